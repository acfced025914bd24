"""The engine's public API: construction, who decides, legal actions and their names, illegal
actions, clones, saved games, replays and the text dump."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable

import numpy as np
import pytest

from tests.policies import ThriftyPolicy, UniformPolicy, play
from zavandor_env.engine import (
    ACTION_NAMES,
    NUM_ACTIONS,
    Game,
    GameConfig,
    IllegalActionError,
    Phase,
    ReplayError,
    action_block,
    action_to_string,
    string_to_action,
)
from zavandor_env.engine.actions import END_BLOCK, END_TURN
from zavandor_env.engine.data import CHARACTERS
from zavandor_env.render.text import describe

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle


def game_where(
    predicate: Callable[[Game], bool], num_players: int = 3, kind: str = "thrifty"
) -> Game:
    """The first decision, over seeds 0, 1, ..., at which ``predicate`` holds."""
    for seed in range(200):
        game = Game.new(GameConfig(num_players=num_players), seed=seed)
        policy = ThriftyPolicy(seed) if kind == "thrifty" else UniformPolicy(seed)
        while not game.is_over:
            if predicate(game):
                return game
            game.apply(policy(game))
    raise AssertionError("no game reached the wanted decision")


def mid_game(num_players: int = 4, decisions: int = 120, seed: int = 5) -> Game:
    game = Game.new(GameConfig(num_players=num_players), seed=seed)
    policy = ThriftyPolicy(seed)
    for _ in range(decisions):
        game.apply(policy(game))
    return game


def finished_game(num_players: int = 3, seed: int = 2) -> Game:
    game = Game.new(GameConfig(num_players=num_players), seed=seed)
    play(game, ThriftyPolicy(seed))
    return game


# ---- construction and who decides ----------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_new_game_sets_the_table_for_each_player_count(num_players: int) -> None:
    game = Game.new(GameConfig(num_players=num_players), seed=num_players)
    state = game.state
    assert game.num_players == num_players == len(state.players)
    assert [p.seat for p in state.players] == list(range(num_players))
    assert sorted(state.turn_order) == list(range(num_players))
    assert len(state.display) == num_players
    assert state.round == 1 and game.phase == Phase.TURN
    assert game.current_player == game.turn_player == state.turn_order[0]
    assert not game.is_over and not game.terminated and not game.truncated
    assert game.scores() == [3] * num_players and game.winners() == []
    assert game.history == []
    legal = game.legal_actions()
    assert len(legal) >= 2 and list(legal) == sorted(legal)
    mask = game.action_mask()
    assert len(mask) == NUM_ACTIONS == 67
    assert [a for a, m in enumerate(mask) if m] == list(legal)


def test_new_accepts_keyword_options() -> None:
    game = Game.new(num_players=5, seed=1)
    assert game.num_players == 5 and game.seed == 1
    assert game.to_json() == Game.new(GameConfig(num_players=5), seed=1).to_json()


def test_new_rejects_a_config_together_with_options() -> None:
    with pytest.raises(TypeError):
        Game.new(GameConfig(), seed=1, num_players=3)


BAD_SEEDS = [-1, "1", 1.5, True, False, np.int64(-3), np.float64(2.0), np.bool_(True), [3]]


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_new_rejects_a_bad_seed(seed: object) -> None:
    with pytest.raises(ValueError, match="^seed must be a non-negative integer or None, got "):
        Game.new(GameConfig(), seed=seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("np_type", [np.int64, np.int32, np.uint64, np.uint8])
def test_new_accepts_numpy_integer_seeds(np_type: type) -> None:
    game = Game.new(GameConfig(num_players=3), seed=np_type(3))
    assert type(game.seed) is int and game.seed == 3
    assert game.to_json() == Game.new(GameConfig(num_players=3), seed=3).to_json()
    assert Game.replay(game.config, np_type(3), []).to_json() == game.to_json()


def test_reseed_accepts_numpy_integer_seeds() -> None:
    plain, numpy_seeded = mid_game(seed=8), mid_game(seed=8)
    plain.reseed(12345)
    numpy_seeded.reseed(np.int64(12345))  # type: ignore[arg-type]
    assert numpy_seeded.to_json() == plain.to_json()


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_reseed_rejects_a_bad_seed(seed: object) -> None:
    game = mid_game(seed=8)
    before = game.to_json()
    with pytest.raises(ValueError, match="^seed must be a non-negative integer, got "):
        game.reseed(seed)  # type: ignore[arg-type]
    assert game.to_json() == before


def test_seedless_game_draws_a_seed_and_still_replays() -> None:
    game = Game.new(GameConfig(num_players=2), seed=None)
    assert type(game.seed) is int and game.seed >= 0
    play(game, ThriftyPolicy(0))
    assert game.is_over
    assert Game.from_replay_record(game.replay_record()).to_json() == game.to_json()


def test_bidder_decides_while_the_turn_stays_with_the_opener() -> None:
    game = game_where(lambda g: g.phase == Phase.BID and g.current_player != g.turn_player)
    assert game.state.current_player == game.current_player
    assert game.state.auction_opener == game.turn_player
    assert game.turn_player in game.state.turn_order


def test_legal_actions_are_ascending_and_non_empty_until_the_end() -> None:
    for num_players, kind in ((2, "thrifty"), (5, "uniform")):
        game = Game.new(GameConfig(num_players=num_players, max_rounds=30), seed=4)
        policy = ThriftyPolicy(4) if kind == "thrifty" else UniformPolicy(4)
        while not game.is_over:
            legal = game.legal_actions()
            assert len(legal) >= 2 and list(legal) == sorted(set(legal))
            assert all(type(a) is int and 0 <= a < NUM_ACTIONS for a in legal)
            assert all(game.is_legal(a) for a in legal)
            game.apply(policy(game))
        assert game.legal_actions() == () and game.action_mask() == [0] * NUM_ACTIONS
        assert game.current_player == -1 and game.phase == Phase.GAME_OVER
        with pytest.raises(IllegalActionError):
            game.apply(END_TURN)


def test_finished_game_reports_scores_and_winners() -> None:
    game = finished_game()
    assert game.terminated and not game.truncated
    best = max(game.scores())
    assert game.winners() == [s for s, vp in enumerate(game.scores()) if vp == best]


def test_forced_decisions_are_skipped_unless_asked_for() -> None:
    game = finished_game()
    assert len(game.history) < game.state.num_decisions  # forced ones were taken for us
    config = GameConfig(num_players=3, skip_forced_decisions=False)
    slow = Game.new(config, seed=2)
    forced = 0
    policy = UniformPolicy(2)
    while not slow.is_over and slow.state.round < 6:
        forced += len(slow.legal_actions()) == 1
        slow.apply(policy(slow))
    assert forced > 0


# ---- action names --------------------------------------------------------------------------------
@pytest.mark.parametrize("action", range(NUM_ACTIONS))
def test_action_name_round_trips(action: int) -> None:
    name = action_to_string(action)
    assert name == ACTION_NAMES[action]
    assert string_to_action(name) == action
    assert name.startswith(action_block(action))
    assert action_to_string(np.int64(action)) == name


def test_action_names_are_unique_and_cover_the_blocks() -> None:
    assert len(set(ACTION_NAMES)) == NUM_ACTIONS == 67
    assert ACTION_NAMES[0] == "end_turn" and ACTION_NAMES[1] == "end_block"
    assert ACTION_NAMES[2:7] == tuple(
        f"buy_{g}" for g in ("opal", "sapphire", "emerald", "diamond", "ruby")
    )
    assert ACTION_NAMES[22] == "buy_chip_20" and ACTION_NAMES[26] == "buy_chip_40"
    assert ACTION_NAMES[27] == "advance_gemstones" and ACTION_NAMES[33] == "open_spellbook"
    assert ACTION_NAMES[45] == "open_phoenix" and ACTION_NAMES[53] == "open_salamander"
    assert ACTION_NAMES[54:61] == tuple(f"bid_plus_{k}" for k in (0, 1, 2, 5, 10, 20, 50))
    assert ACTION_NAMES[61] == "pass" and ACTION_NAMES[66] == "lose_ruby"


@pytest.mark.parametrize("bad", [-1, 67, 10**6, "0", "end_turn", 1.0, None, True, np.True_])
def test_action_to_string_rejects_non_actions(bad: object) -> None:
    with pytest.raises(ValueError):
        action_to_string(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["", "buy_gold", "END_TURN", " end_turn", 3, None, ["pass"]])
def test_string_to_action_rejects_unknown_names(bad: object) -> None:
    with pytest.raises(ValueError):
        string_to_action(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 67, 99])
def test_action_block_rejects_out_of_range(bad: int) -> None:
    with pytest.raises(ValueError):
        action_block(bad)


# ---- illegal actions -----------------------------------------------------------------------------
def test_illegal_action_error_names_the_action_and_the_legal_ones() -> None:
    game = mid_game()
    legal = game.legal_actions()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    before = game.to_json()
    with pytest.raises(IllegalActionError) as info:
        game.apply(illegal)
    message = str(info.value)
    assert f"{illegal} ({ACTION_NAMES[illegal]})" in message
    for a in legal:
        assert f"{a} ({ACTION_NAMES[a]})" in message
    assert info.value.action == illegal and info.value.legal == legal
    assert isinstance(info.value, ValueError)
    assert game.to_json() == before and game.legal_actions() == legal


def block_open(game: Game) -> bool:
    return game.phase == Phase.TURN and END_BLOCK in game.legal_actions()


@pytest.mark.parametrize(
    "bad", [True, False, np.True_, 1.0, 0.0, -1, -66, 67, 10**9, "0", "end_turn", None, [0]]
)
def test_apply_rejects_non_actions_and_leaves_the_state(bad: object) -> None:
    # END_BLOCK (1) and END_TURN (0) are both legal, so True/False/1.0/0.0 would be
    # "equal" to a legal action: they must still be refused.
    game = game_where(block_open)
    assert {END_TURN, END_BLOCK} <= set(game.legal_actions())
    before = game.to_json()
    with pytest.raises(IllegalActionError) as info:
        game.apply(bad)  # type: ignore[arg-type]
    assert repr(bad) in str(info.value) or str(bad) in str(info.value)
    assert game.to_json() == before
    assert not game.is_legal(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("np_type", [np.int64, np.int32, np.intp, np.uint8])
def test_apply_accepts_numpy_integers(np_type: type) -> None:
    game = game_where(block_open)
    reference = game.clone()
    action = game.legal_actions()[-1]
    assert game.is_legal(np_type(action))
    game.apply(np_type(action))
    reference.apply(action)
    assert type(game.history[-1]) is int
    assert game.to_json() == reference.to_json()  # also proves the history is JSON-clean


def test_error_for_negative_action_does_not_name_another_action() -> None:
    game = mid_game()
    with pytest.raises(IllegalActionError) as info:
        game.apply(-1)
    assert str(info.value).startswith("illegal action -1;")
    assert ACTION_NAMES[-1] not in str(info.value).split(";")[0]


# ---- clones --------------------------------------------------------------------------------------
def test_clone_is_independent_of_the_original() -> None:
    game = mid_game()
    before = game.to_json()
    legal = game.legal_actions()
    clone = game.clone()
    assert clone.to_json() == before
    policy = ThriftyPolicy(1)
    for _ in range(60):
        if clone.is_over:
            break
        clone.apply(policy(clone))
    clone.state.players[0].hand[0] += 5
    clone.state.decks[0].clear()
    clone.state.players[1].sentinels.append(3)
    assert game.to_json() == before and game.legal_actions() == legal


def test_clone_shares_the_future_and_reseed_changes_it() -> None:
    game = mid_game(seed=8)
    twin, other = game.clone(), game.clone()
    other.reseed(12345)
    futures = []
    for g in (game, twin, other):
        policy = ThriftyPolicy(77)
        for _ in range(150):
            if g.is_over:
                break
            g.apply(policy(g))
        futures.append(g.to_json())
    assert futures[0] == futures[1]
    assert json.loads(futures[2])["state"]["decks"] != json.loads(futures[0])["state"]["decks"]


# ---- saved games and replays --------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: Game.new(num_players=6, seed=3), mid_game, finished_game])
def test_json_round_trip_restores_the_game(make: Callable[[], Game]) -> None:
    game = make()
    text = game.to_json()
    copy_ = Game.from_json(text)
    assert copy_.to_json() == text
    assert copy_.seed == game.seed and copy_.legal_actions() == game.legal_actions()
    assert copy_.current_player == game.current_player and copy_.is_over == game.is_over
    assert Game.from_dict(json.loads(text)).to_json() == text


@pytest.mark.parametrize("make", [mid_game, finished_game])
def test_replay_record_rebuilds_the_game(make: Callable[[], Game]) -> None:
    game = make()
    record = json.loads(json.dumps(game.replay_record()))
    assert set(record) == {"format", "config", "seed", "actions"}
    assert record["actions"] == game.history
    rebuilt = Game.from_replay_record(record)
    assert rebuilt.to_json() == game.to_json()
    assert Game.replay(game.config, game.seed, game.history).to_json() == game.to_json()


def _saved() -> dict:
    return mid_game(num_players=3, decisions=90, seed=3).to_dict()


def _set(path: tuple, value: object) -> Callable[[dict], None]:
    def mutate(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _delete(path: tuple) -> Callable[[dict], None]:
    def mutate(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return mutate


MALFORMED_SAVES = {
    "format missing": _delete(("format",)),
    "format 2": _set(("format",), 2),
    "seed negative": _set(("seed",), -4),
    "seed string": _set(("seed",), "7"),
    "state missing": _delete(("state",)),
    "state a list": _set(("state",), []),
    "state key missing": _delete(("state", "display")),
    "state key unknown": _set(("state", "bonus"), 1),
    "config bad": _set(("state", "config", "num_players"), 9),
    "config not a mapping": _set(("state", "config"), 3),
    "phase unknown": _set(("state", "phase"), 9),
    "block unknown": _set(("state", "block"), 7),
    "round a string": _set(("state", "round"), "3"),
    "flag an int": _set(("state", "terminated"), 0),
    "players short": _set(("state", "players"), []),
    "player seat wrong": _set(("state", "players", 1, "seat"), 0),
    "player character unknown": _set(("state", "players", 0, "character"), 6),
    "hand too short": _set(("state", "players", 0, "hand"), [0] * 5),
    "hand count negative": _set(("state", "players", 0, "hand", 26), -1),
    "level above 4": _set(("state", "players", 0, "levels", 2), 5),
    "gem count a float": _set(("state", "players", 2, "active", 0), 2.0),
    "gem created": _set(("state", "gem_supply", 0), 27),
    "card created": _set(("state", "players", 0, "hand", 0), 40),
    "card of another colour": _set(("state", "decks", 0), [25]),
    "sentinel id unknown": _set(("state", "players", 0, "sentinels"), [9]),
    "turn player out of range": _set(("state", "turn_player"), 3),
    "turn order repeats a seat": _set(("state", "turn_order"), [0, 0, 1]),
    "current player absent": _set(("state", "current_player"), -1),
    "bid without an auction": _set(("state", "phase"), int(Phase.BID)),
    "history action unknown": _set(("state", "history"), [0, 67]),
    "rng truncated": _set(("state", "rng"), [3, [1, 2, 3], None]),
    "rng garbage": _set(("state", "rng", 1, 0), "x"),
    "rng word too big": _set(("state", "rng", 1, 5), 2**40),
    "balance of a waiting player": _set(("state", "players", 1, "balance"), 500),
}


@pytest.mark.parametrize("name", sorted(MALFORMED_SAVES))
def test_malformed_saved_game_raises_replay_error(name: str) -> None:
    data = _saved()
    if name == "balance of a waiting player":
        seat = next(s for s in range(3) if s != data["state"]["turn_player"])
        mutate = _set(("state", "players", seat, "balance"), 500)
    else:
        mutate = MALFORMED_SAVES[name]
    mutate(data)
    with pytest.raises(ReplayError):
        Game.from_dict(data)
    with pytest.raises(ReplayError):
        Game.from_json(json.dumps(data))


def _two_player_save() -> dict:
    return mid_game(num_players=2, decisions=60, seed=4).to_dict()


def _own_a_displayed_artifact(data: dict) -> None:
    art = data["state"]["display"][0]
    data["state"]["players"][0]["artifacts"][art] += 1  # 2 players: one copy of each


def _repeat_an_artifact_in_the_deck(data: dict) -> None:
    data["state"]["artifact_deck"].append(data["state"]["display"][0])


def _repeat_a_character(data: dict) -> None:
    players = data["state"]["players"]
    players[1]["character"] = players[0]["character"]


def _swap_the_dealt_characters(data: dict) -> None:
    players = data["state"]["players"]
    players[0]["character"], players[1]["character"] = (
        players[1]["character"], players[0]["character"]
    )


def _give_a_sentinel(seats: tuple[int, ...], owner: int) -> Callable[[dict], None]:
    def mutate(data: dict) -> None:
        state = data["state"]
        for seat in seats:
            state["players"][seat]["sentinels"].append(4)
        state["sentinel_owner"][4] = owner

    return mutate


DUPLICATED_ITEMS = {
    "artifact owned and in the display": (_own_a_displayed_artifact, "copies in the game"),
    "artifact twice in deck and display": (_repeat_an_artifact_in_the_deck, "copies in the game"),
    "character repeated": (_repeat_a_character, "is already seat 0's"),
    "character not the config's": (_swap_the_dealt_characters, "but the config deals"),
    "sentinel held by two seats": (_give_a_sentinel((0, 1), 0), "held by seat 0 and seat 1"),
    "sentinel listed twice": (_give_a_sentinel((0, 0), 0), "listed twice for seat 0"),
    "sentinel owner disagrees": (_give_a_sentinel((0,), 1), "whose sentinels do not list it"),
    "sentinel held but available": (_give_a_sentinel((1,), -1), "state.sentinel_owner has it"),
}


@pytest.mark.parametrize("name", sorted(DUPLICATED_ITEMS))
def test_saved_game_with_an_item_in_two_places_is_refused(name: str) -> None:
    data = _two_player_save()
    if name == "character not the config's":
        data = Game.new(GameConfig(num_players=2, characters=("elf", "witch")), seed=1).to_dict()
    assert Game.from_dict(copy.deepcopy(data)).to_dict() == data  # the untouched save loads
    mutate, message = DUPLICATED_ITEMS[name]
    mutate(data)
    with pytest.raises(ReplayError, match=f"^malformed saved game: .*{message}") as caught:
        Game.from_json(json.dumps(data))
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[]", "3", "null", '{"format": 1}', "{", None, 3, b"\xff\xfe", "[" * 100_000],
)
def test_malformed_saved_game_text_raises_replay_error(text: object) -> None:
    with pytest.raises(ReplayError):
        Game.from_json(text)  # type: ignore[arg-type]


def test_randomly_corrupted_saved_games_fail_cleanly_or_play() -> None:
    """Each corruption either raises ReplayError on load or yields a game that plays on."""
    base = _saved()
    leaves = []

    def walk(obj: object, path: tuple) -> None:
        if isinstance(obj, dict):
            for key, value in obj.items():
                leaves.append(path + (key,))
                walk(value, path + (key,))
        elif isinstance(obj, list) and len(obj) < 40:
            for i, value in enumerate(obj):
                leaves.append(path + (i,))
                walk(value, path + (i,))

    walk(base, ())
    rng = random.Random(0)
    garbage: list[object] = [None, -1, 0, 1, 99, 10**4, "x", 1.5, True, [], {}, [1, 2], [[-5]]]
    loaded = 0
    for _ in range(300):
        data = copy.deepcopy(base)
        _set(rng.choice(leaves), rng.choice(garbage))(data)
        try:
            game = Game.from_dict(data)
        except ReplayError:
            continue
        loaded += 1
        policy = UniformPolicy(1)
        for _ in range(40):
            if game.is_over:
                break
            game.apply(policy(game))
        game.to_json()
    assert loaded > 0  # some corruptions are harmless (e.g. a VP total or a dust count)


MALFORMED_REPLAYS = {
    "not a dict": lambda r: [r],
    "format missing": lambda r: {k: v for k, v in r.items() if k != "format"},
    "actions missing": lambda r: {k: v for k, v in r.items() if k != "actions"},
    "format wrong": lambda r: {**r, "format": 0},
    "config bad": lambda r: {**r, "config": {**r["config"], "num_players": 1}},
    "config unknown key": lambda r: {**r, "config": {**r["config"], "speed": 2}},
    "config not a mapping": lambda r: {**r, "config": "3 players"},
    "seed negative": lambda r: {**r, "seed": -1},
    "seed string": lambda r: {**r, "seed": "4"},
    "actions not a list": lambda r: {**r, "actions": "0 1 2"},
    "action a string": lambda r: {**r, "actions": r["actions"][:3] + ["end_turn"]},
    "action a bool": lambda r: {**r, "actions": [True] + r["actions"]},
    "action out of range": lambda r: {**r, "actions": r["actions"][:5] + [67]},
    "action illegal": lambda r: {**r, "actions": r["actions"][:5] + [66]},
    "actions past the end": lambda r: {**r, "actions": r["actions"] + [0]},
}


@pytest.mark.parametrize("name", sorted(MALFORMED_REPLAYS))
def test_malformed_replay_raises_replay_error(name: str) -> None:
    record = finished_game(num_players=2, seed=1).replay_record()
    with pytest.raises(ReplayError):
        Game.from_replay_record(MALFORMED_REPLAYS[name](record))  # type: ignore[arg-type]


def test_diverging_replay_names_the_decision() -> None:
    record = mid_game().replay_record()
    record["actions"] = record["actions"][:10] + [66]
    with pytest.raises(ReplayError, match="decision 10"):
        Game.from_replay_record(record)


# ---- text dump -----------------------------------------------------------------------------------
def test_describe_shows_the_whole_table() -> None:
    game = mid_game(num_players=4)
    before = game.to_json()
    text = describe(game)
    assert game.to_json() == before
    assert text.count("\n") > 20
    assert text.startswith(f"Round {game.state.round}, phase {game.phase.name}")
    for p in game.state.players:
        assert f"Seat {p.seat} ({CHARACTERS[p.character].name})" in text
    for part in (
        "Turn order: I=Seat",
        "gems active",
        "knowledge:",
        "artifacts:",
        "hand (value",
        "Display:",
        "Sentinels remaining:",
        "Gem supply:",
        "Energy decks/discards:",
        "Legal actions:",
    ):
        assert part in text


def test_describe_shows_the_auction_and_pending_decisions() -> None:
    bidding = game_where(lambda g: g.phase == Phase.BID and g.state.high_bidder >= 0)
    assert "Auction:" in describe(bidding) and "high bid" in describe(bidding)
    losing = game_where(lambda g: g.phase == Phase.LOSE_GEM)
    assert "each return an active gem" in describe(losing)
    debt = game_where(lambda g: g.phase == Phase.DEBT, kind="uniform")
    assert "must sell gems" in describe(debt)


def test_describe_reports_the_end() -> None:
    game = finished_game()
    text = describe(game)
    assert f"winners {game.winners()}" in text and "Legal actions" not in text
