"""Saved games and replays from strangers: every field bounded and consistent with its phase
before either engine sees it (``zavandor_env/io/saved_games.py``), the native core keeping only
memory-safety bounds (``bindings.cpp``), and sizes, depths and replay lengths capped
(docs/rules.md, "Saved-game limits")."""

from __future__ import annotations

import copy
import json
import time
from functools import cache
from typing import Any

import pytest

from tests.fuzz_saves import seed_saves
from zavandor_env.engine import (
    ConfigError,
    Game,
    GameConfig,
    Phase,
    ReplayError,
    native_available,
)
from zavandor_env.engine.config import MAX_DECISIONS, MAX_ROUNDS
from zavandor_env.engine.data import DUST_TOKEN0
from zavandor_env.engine.errors import IllegalActionError
from zavandor_env.engine.oracle import OracleGame
from zavandor_env.io import saved_games as validation

BACKENDS = (OracleGame, Game)  # the oracle and the core
needs_native = pytest.mark.skipif(not native_available(), reason="native core not built")


@cache
def _first_save(phase: Phase, num_players: int = 2) -> str:
    """The first save in ``phase`` of the seeded games (as JSON, so each test gets a copy)."""
    for seed in range(200):
        for save in seed_saves(num_players, seed):
            if save["state"]["phase"] == phase:
                return json.dumps(save)
    raise AssertionError(f"no seeded game reaches {phase.name}")


def save_at(phase: Phase, num_players: int = 2) -> dict[str, Any]:
    return json.loads(_first_save(phase, num_players))


def assert_refused(data: dict[str, Any], message: str = "") -> None:
    """Both backends refuse ``data`` with one line (mentioning ``message``)."""
    for backend in BACKENDS:
        with pytest.raises(ReplayError, match=message or None) as caught:
            backend.from_dict(copy.deepcopy(data))
        assert "\n" not in str(caught.value)


# ---- finding 1: the out-of-bounds write in complete_purchase ---
def free_level_save_in_debt_with_item_10() -> dict[str, Any]:
    """The report's save: 2 players at FREE_LEVEL, ``phase`` set to 2 (DEBT) and
    ``auction_item`` to 10 (the native core then owned sentinel 10 of 9 after one move)."""
    data = save_at(Phase.FREE_LEVEL)
    data["state"]["phase"] = int(Phase.DEBT)
    data["state"]["auction_item"] = 10
    return data


def test_a_debt_phase_without_an_auction_is_refused() -> None:
    assert_refused(free_level_save_in_debt_with_item_10(), "DEBT but no auction is in progress")


@needs_native
def test_the_native_core_refuses_a_debt_phase_without_an_auction_itself() -> None:
    from zavandor_env.engine import _native

    state = free_level_save_in_debt_with_item_10()["state"]
    with pytest.raises(ValueError, match="auction_item names no item"):
        _native.Core.from_state_dict(state)


def test_auction_fields_outside_an_auction_are_refused() -> None:
    data = save_at(Phase.FREE_LEVEL)
    data["state"]["auction_item"] = 10
    assert_refused(data, "no auction is in progress in phase FREE_LEVEL")


# ---- finding 2: unbounded counts ---
@pytest.mark.parametrize("chits", [100_000, 400_000])
def test_a_hand_of_that_many_one_value_chits_is_refused_at_once(chits: int) -> None:
    data = save_at(Phase.TURN)
    data["state"]["config"]["one_value_dust"] = True
    data["state"]["players"][0]["hand"][DUST_TOKEN0] = chits  # 1.2 GB / 19 GB on payment
    start = time.perf_counter()
    assert_refused(data, f"hand holds {chits}, outside \\[0, {validation.MAX_DUST_CHITS}\\]")
    assert time.perf_counter() - start < 2


@pytest.mark.parametrize(
    "field", ["hand[28]", "sages_dust", "pentagon_chips", "vp", "gem_vp", "balance"]
)
def test_a_count_of_2_to_the_31_minus_1_is_refused(field: str) -> None:
    data = save_at(Phase.TURN)
    player = data["state"]["players"][data["state"]["turn_player"]]
    if field == "hand[28]":
        player["hand"][28] = 2**31 - 1
    else:
        player[field] = 2**31 - 1
    assert_refused(data, "outside")


@needs_native
def test_the_native_core_refuses_counts_past_its_ceilings_in_one_line() -> None:
    from zavandor_env.engine import _native

    state = save_at(Phase.TURN)["state"]
    state["players"][0]["hand"][27] = 2**31 - 1
    message = r"^state dict: hand\[27\] must be in \[0, 1000\] \(an integer\), got 2147483647$"
    with pytest.raises(ValueError, match=message):
        _native.Core.from_state_dict(state)


@pytest.mark.parametrize("where", ["round", "max_rounds", "max_decisions"])
@pytest.mark.parametrize("value", [2**31, 2**63])
def test_round_and_limits_past_int32_are_refused_in_one_line(where: str, value: int) -> None:
    data = save_at(Phase.TURN)
    target = data["state"] if where == "round" else data["state"]["config"]
    target[where] = value
    assert_refused(data)


@pytest.mark.parametrize("field", ["max_rounds", "max_decisions"])
def test_a_config_with_limits_past_their_ceilings_is_refused(field: str) -> None:
    most = {"max_rounds": MAX_ROUNDS, "max_decisions": MAX_DECISIONS}[field]
    assert GameConfig(num_players=2, **{field: most})  # the ceiling itself is a game
    for value in (most + 1, 2**31):
        with pytest.raises(ConfigError, match=f"^{field} must be <= {most}, got {value}$"):
            GameConfig(num_players=2, **{field: value})


def test_limits_beyond_the_ceilings_are_refused() -> None:
    data = save_at(Phase.TURN)
    data["state"]["config"]["max_rounds"] = MAX_ROUNDS + 1
    assert_refused(data, "max_rounds")


# ---- finding 2: saves the fuzz found accepted, that then failed mid-game ---
def _bid_on_an_artifact_not_displayed(data: dict[str, Any]) -> None:
    state = data["state"]
    state["auction_item"] = next(a for a in range(12) if a not in state["display"])


def _debt_item_price_above_the_bid(data: dict[str, Any]) -> None:
    data["state"]["debt_item_price"] = data["state"]["high_bid"] + 500


def _turn_balance_above_the_hand(data: dict[str, Any]) -> None:
    state = data["state"]
    state["players"][state["turn_player"]]["balance"] = 500  # "hand cannot pay" at the end


def _lose_gem_in_debt(data: dict[str, Any]) -> None:
    data["state"]["phase"] = int(Phase.DEBT)  # the backends diverged after this swap


def _free_level_without_free_levels(data: dict[str, Any]) -> None:
    data["state"]["free_levels"] = 0


def _a_level_without_a_chip(data: dict[str, Any]) -> None:
    player = data["state"]["players"][0]
    field = next(f for f, level in enumerate(player["levels"]) if level == 0)
    player["levels"][field] = 1


MID_GAME_FAILURES = {
    "auctioned artifact not displayed": (Phase.BID, _bid_on_an_artifact_not_displayed,
                                         "not on display"),
    "debt price above the bid": (Phase.DEBT, _debt_item_price_above_the_bid, "above the bid"),
    "turn balance the hand cannot pay": (Phase.BID, _turn_balance_above_the_hand,
                                         "exceeds his hand's value"),
    "LOSE_GEM swapped to DEBT": (Phase.LOSE_GEM, _lose_gem_in_debt, "DEBT"),
    "FREE_LEVEL without free levels": (Phase.FREE_LEVEL, _free_level_without_free_levels,
                                       "free_levels is 0"),
    "a level without a chip": (Phase.TURN, _a_level_without_a_chip, "chips bought"),
}


@cache
def _debt_save_of_another_seat() -> str:
    """A save in DEBT whose debtor is not the turn player (5 players)."""
    for seed in range(300):
        for save in seed_saves(5, seed):
            state = save["state"]
            if state["phase"] == Phase.DEBT and state["debtor"] != state["turn_player"]:
                return json.dumps(save)
    raise AssertionError("no seeded game has another seat's debt")


def test_a_turn_balance_the_hand_cannot_pay_during_another_seats_debt_is_refused() -> None:
    data = json.loads(_debt_save_of_another_seat())
    state = data["state"]
    state["players"][state["turn_player"]]["balance"] = 1000  # found by the 20,000-save run
    assert_refused(data, "exceeds his hand's value")


def test_more_nine_sages_cards_than_a_round_gives_are_refused() -> None:
    data = save_at(Phase.TURN)
    state = data["state"]
    pile = [card for piles in ("decks", "discards") for p in state[piles] for card in p]
    state["decks"], state["discards"] = [[], [], [], []], [[], [], [], []]  # all under a card
    state["players"][0]["sages_tokens"] = pile  # conserved, but past the core's 32 slots
    assert len(pile) > 32
    assert_refused(data, "sages_tokens holds")


def test_a_purchase_price_past_the_amount_ceiling_is_refused() -> None:
    data = save_at(Phase.GAME_OVER)
    record = data["state"]["purchases"][0]
    record[4], record[5] = validation.MAX_AMOUNT, validation.MAX_AMOUNT + 5  # core: refused
    assert_refused(data, "impossible for that item")


@pytest.mark.parametrize("gauss", [1.5, float("nan")])
def test_a_generator_with_a_cached_gaussian_is_refused(gauss: float) -> None:
    data = save_at(Phase.TURN)
    data["state"]["rng"][2] = gauss  # the native core has no such cache: the backends differed
    assert_refused(data, "state.rng must be")


@pytest.mark.parametrize("name", sorted(MID_GAME_FAILURES))
def test_saves_that_failed_mid_game_are_refused_on_load(name: str) -> None:
    phase, mutate, message = MID_GAME_FAILURES[name]
    data = save_at(phase, num_players=2 if phase != Phase.DEBT else 5)
    mutate(data)
    if phase == Phase.BID and name.startswith("auctioned"):
        data["state"]["auction_kind"] = 0
    assert_refused(data, message)


@pytest.mark.parametrize("phase", list(Phase))
def test_real_saves_of_every_phase_load_and_play_on(phase: Phase) -> None:
    data = save_at(phase, num_players=5)
    for backend in BACKENDS:
        game = backend.from_dict(copy.deepcopy(data))
        if game.at_round_end:
            game.advance()
        if not game.is_over:
            game.apply(game.legal_actions()[0])


# ---- finding 3: sizes bounded before work is done ---
def test_a_saved_game_nested_too_deep_is_refused_in_one_line() -> None:
    text = '{"format": 1, "state": ' + "[" * 200 + "]" * 200 + "}"
    with pytest.raises(ReplayError, match="nests deeper than 64"):
        Game.from_json(text)


def test_a_replay_nested_too_deep_is_refused_in_one_line() -> None:
    with pytest.raises(ReplayError, match="nests deeper than 64"):
        Game.from_replay_json("[" * 100_000)


def test_a_replay_file_round_trips() -> None:
    game = Game.new(GameConfig(num_players=2), seed=3)
    for _ in range(30):
        game.apply(game.legal_actions()[0])
    copy_ = Game.from_replay_json(json.dumps(game.replay_record()))
    assert copy_.to_dict() == game.to_dict()


def test_a_replay_longer_than_any_game_is_refused_before_replaying() -> None:
    config = GameConfig(num_players=2, max_decisions=MAX_DECISIONS)  # the longest allowed
    record = Game.new(config, seed=1).replay_record()
    record["actions"] = [0] * 200_000
    start = time.perf_counter()
    with pytest.raises(ReplayError, match=f"at most {MAX_DECISIONS:,}"):
        Game.from_replay_record(record)
    assert time.perf_counter() - start < 1
    record["config"]["max_decisions"] = 10**6  # no config may allow more
    with pytest.raises(ReplayError, match="bad config: max_decisions"):
        Game.from_replay_record(record)


def test_a_replay_longer_than_its_configs_limit_is_refused_before_replaying() -> None:
    record = Game.new(GameConfig(num_players=2, max_decisions=50), seed=1).replay_record()
    record["actions"] = [0] * 51
    with pytest.raises(ReplayError, match="at most 50 can be replayed"):
        Game.from_replay_record(record)


def test_a_replay_at_the_cap_still_replays_until_it_diverges() -> None:
    record = Game.new(GameConfig(num_players=2), seed=1).replay_record()
    record["actions"] = [66] * 5
    with pytest.raises(ReplayError, match="decision 0"):
        Game.from_replay_record(record)
    assert issubclass(ReplayError, ValueError) and not issubclass(IllegalActionError, ReplayError)
