"""The engine API for people who script positions: exported enums, readable hands and the
stop between a round's phase 4 and the next round's phases 1-2."""

from __future__ import annotations

import dataclasses
import json

import pytest

import zavandor_env.engine as engine
from tests.policies import ThriftyPolicy, UniformPolicy
from zavandor_env.engine import (
    Game,
    GameConfig,
    Hand,
    IllegalActionError,
    Phase,
    PlayerView,
    ReplayError,
    RoundEndError,
)
from zavandor_env.engine import data as engine_data
from zavandor_env.engine import state as engine_state
from zavandor_env.engine.actions import END_TURN, string_to_action
from zavandor_env.engine.oracle import OracleGame
from zavandor_env.engine.scenario import build, play
from zavandor_env.engine.scoring import victory_points
from zavandor_env.render.text import describe

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle


# ---- exported enums ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,module",
    [
        ("Art", engine_data),
        ("Sen", engine_data),
        ("Gem", engine_data),
        ("Field", engine_data),
        ("Colour", engine_data),
        ("Phase", engine_state),
        ("Block", engine_state),
    ],
)
def test_engine_exports_the_index_enums(name: str, module: object) -> None:
    assert name in engine.__all__
    assert getattr(engine, name) is getattr(module, name)


def test_exported_enums_index_the_engine_tables() -> None:
    assert engine.Art.TALISMAN == engine_data.ARTIFACTS.index(
        next(a for a in engine_data.ARTIFACTS if a.name == "talisman")
    )
    assert engine.Sen.OWL == 1 and engine.Gem.RUBY == 4 and engine.Colour.RED == 3
    assert engine.Field.FIRE == engine_data.FIELD_NAMES.index("fire")


# ---- readable hands ----------------------------------------------------------------------------
HAND = "blue5 blue7 green9 red17:2 conc_red conc_blue:2 dust2 dust5 dust10:3"


def built_hand_game() -> Game:
    return build(3, players=[{}, {"hand": HAND}])


def test_hand_unpacks_a_scenario_built_hand() -> None:
    hand = built_hand_game().hand(1)
    assert isinstance(hand, Hand)
    assert dict(hand.cards) == {"blue": 2, "green": 1, "white": 0, "red": 2}
    assert dict(hand.card_values) == {
        "blue": (5, 7), "green": (9,), "white": (), "red": (17, 17),
    }
    assert dict(hand.concentrated) == {"blue": 2, "green": 0, "white": 0, "red": 1}
    assert dict(hand.dust) == {1: 0, 2: 1, 5: 1, 10: 3}
    assert hand.dust_value == 37
    assert hand.value == 5 + 7 + 9 + 34 + 60 + 2 * 20 + 37
    assert hand.load == 5 + 3 * 3 + 1 + 2 + 3 * 3
    assert hand.notation == "blue5 blue7 green9 red17:2 conc_blue:2 conc_red dust2 dust5 dust10:3"


def test_hand_notation_rebuilds_the_same_hand() -> None:
    hand = built_hand_game().hand(1)
    again = build(3, players=[{}, {"hand": hand.notation}]).hand(1)
    assert again == hand and hash(again) == hash(hand)


def test_hand_is_a_read_only_snapshot() -> None:
    game = OracleGame.from_dict(built_hand_game().to_dict())  # the oracle: a live state
    hand = game.hand(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        hand.value = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        hand.cards["blue"] = 9  # type: ignore[index]
    game.state.players[1].hand[0] += 1  # the game moves on; the snapshot does not
    assert hand.tokens[0] == 0 and game.hand(1).tokens[0] == 1
    assert hand == built_hand_game().hand(1)


def test_player_view_hand_is_the_own_seat_hand() -> None:
    game = built_hand_game()
    for seat in range(3):
        view = PlayerView(game.state, seat)
        assert view.hand() == game.hand(seat)
        assert view.hand().tokens == view.me.hand


@pytest.mark.parametrize("seat", [3, -1, True, "0", 1.0])
def test_hand_rejects_a_bad_seat(seat: object) -> None:
    with pytest.raises(ValueError, match="seat must be an integer in \\[0, 3\\)"):
        built_hand_game().hand(seat)  # type: ignore[arg-type]


# ---- stopping at the round end -----------------------------------------------------------------
def last_turn_scenario() -> Game:
    """Seat 1 plays the round's last turn.  Seat 0's scored VP are stale (phase 4 recounts
    them with the talisman) and seat 1's hand is over its limit (phase 4 discards)."""
    return build(
        2,
        players=[{"artifacts": "talisman", "vp": 0}, {"hand": "red15:7"}],
        turn_order=[0, 1],
        turn_player=1,
    )


def test_stop_at_round_end_shows_the_phase_four_scores() -> None:
    game = last_turn_scenario()
    assert game.scores()[0] == 0
    game.apply(END_TURN, stop_at_round_end=True)
    assert game.at_round_end and not game.is_over and game.state.round == 1
    assert game.scores() == [victory_points(p) for p in game.state.players]
    assert game.scores()[0] == 8 + 3  # talisman + two opals and a sapphire
    limit = PlayerView(game.state, 1).me.hand_limit
    assert game.hand(1).cards["red"] == limit < 7  # the hand limit was enforced
    assert game.current_player == -1 and game.legal_actions() == ()
    assert game.action_mask() == [0] * engine.NUM_ACTIONS
    assert "round 1 ended" in describe(game) and "deciding" not in describe(game)
    game.advance()
    assert not game.at_round_end and game.state.round == 2
    assert game.state.turn_order[0] == 0  # most VP first, from the phase-4 scores
    assert game.hand(1).cards["blue"] == 1  # income came with phases 1-2


def test_round_end_stop_then_advance_equals_the_default_apply() -> None:
    stopped, default = last_turn_scenario(), last_turn_scenario()
    stopped.apply(END_TURN, stop_at_round_end=True)
    default.apply(END_TURN)
    assert stopped.scores() == default.scores()
    stopped.advance()
    assert stopped.to_json() == default.to_json()


def play_both_ways(config: GameConfig, seed: int, uniform: bool) -> tuple[Game, Game, int]:
    """The same game played by the same policy without and with stops at every round end
    (continued with ``advance``); returns both and the number of stops."""
    games = []
    stops = 0
    for stop in (False, True):
        game = Game.new(config, seed)
        policy = UniformPolicy(seed) if uniform else ThriftyPolicy(seed)
        while not game.is_over:
            game.apply(policy(game), stop_at_round_end=stop)
            while game.at_round_end:  # forced decisions may end the next round too
                stops += 1
                assert game.scores() == [victory_points(p) for p in game.state.players]
                game.advance(stop_at_round_end=True)
        games.append(game)
    return games[0], games[1], stops


@pytest.mark.parametrize(
    "num_players,seed,uniform,overbid",
    [(2, 1, False, False), (4, 2, False, True), (3, 7, True, False), (6, 4, True, False)],
)
def test_continuing_after_round_end_stops_gives_the_default_game(
    num_players: int, seed: int, uniform: bool, overbid: bool
) -> None:
    config = GameConfig(num_players=num_players, max_rounds=25, allow_overbid=overbid)
    default, stopped, stops = play_both_ways(config, seed, uniform)
    assert stops >= default.state.round - 1 > 0
    assert stopped.history == default.history
    assert stopped.to_json() == default.to_json()


def cursed_last_player_scenario() -> Game:
    """Seat 2, last in turn order, wins a talisman he cannot pay for: the Curse of the 9
    Sages puts him out, which ends his turn and the round."""
    game = build(
        3,
        players=[{}, {}, {"active": "opal"}],
        turn_order=[0, 1, 2],
        turn_player=2,
        display=["talisman", "elixir", "spellbook"],
        allow_overbid=True,
    )
    return play(game, "open_talisman bid_plus_0 pass")


def test_round_end_stop_after_the_last_player_is_cursed() -> None:
    stopped, default = cursed_last_player_scenario(), cursed_last_player_scenario()
    stopped.apply(string_to_action("pass"), stop_at_round_end=True)
    default.apply(string_to_action("pass"))
    assert stopped.at_round_end and stopped.state.players[2].eliminated
    assert stopped.state.round == 1 and default.state.round == 2
    loaded = Game.from_json(stopped.to_json())
    for game in (stopped, loaded):
        game.advance()
        assert game.to_json() == default.to_json()


def test_truncation_at_a_round_ending_decision_matches_the_default_path() -> None:
    probe = Game.new(GameConfig(num_players=3), seed=5)
    policy = ThriftyPolicy(5)
    while not probe.at_round_end:
        probe.apply(policy(probe), stop_at_round_end=True)
    limit = probe.state.num_decisions  # the round-ending decision reaches the limit
    config = GameConfig(num_players=3, max_decisions=limit)
    default, stopped, _ = play_both_ways(config, 5, uniform=False)
    assert stopped.truncated and not stopped.at_round_end
    assert stopped.to_json() == default.to_json()


def stopped_game() -> Game:
    game = Game.new(GameConfig(num_players=4), seed=6)
    policy = ThriftyPolicy(6)
    while game.state.round < 3 or not game.at_round_end:
        game.apply(policy(game), stop_at_round_end=True)
        if game.at_round_end and game.state.round < 3:
            game.advance()
    return game


def test_a_game_saved_at_the_round_end_loads_and_continues() -> None:
    game = stopped_game()
    text = game.to_json()
    assert json.loads(text)["state"]["phase"] == Phase.ROUND_END
    loaded = Game.from_json(text)
    assert loaded.at_round_end and loaded.to_json() == text
    twin = game.clone()
    assert twin.at_round_end
    for g in (game, loaded, twin):
        g.advance()
        policy = ThriftyPolicy(60)
        for _ in range(80):
            g.apply(policy(g))
    assert loaded.to_json() == game.to_json() == twin.to_json()
    assert json.loads(game.to_json())["state"]["phase"] != Phase.ROUND_END


def test_apply_at_the_round_end_raises_until_advance() -> None:
    game = stopped_game()
    before = game.to_json()
    with pytest.raises(RoundEndError, match="call Game.advance"):
        game.apply(END_TURN)
    assert isinstance(RoundEndError("x"), IllegalActionError)
    assert game.to_json() == before


def test_advance_without_a_round_end_raises() -> None:
    game = Game.new(GameConfig(num_players=2), seed=1)
    before = game.to_json()
    with pytest.raises(RoundEndError, match="stopped at a round end"):
        game.advance()
    assert game.to_json() == before


def test_default_apply_never_stops_at_the_round_end() -> None:
    game = Game.new(GameConfig(num_players=3), seed=2)
    policy = ThriftyPolicy(2)
    while game.state.round < 4:
        game.apply(policy(game))
        assert not game.at_round_end
    assert json.loads(game.to_json())["state"]["phase"] != Phase.ROUND_END


def test_a_saved_round_end_with_a_deciding_player_is_refused() -> None:
    data = stopped_game().to_dict()
    data["state"]["current_player"] = 0
    with pytest.raises(ReplayError, match="disagree"):
        Game.from_dict(data)


def test_saved_round_end_phase_on_a_finished_game_is_refused() -> None:
    game = Game.new(GameConfig(num_players=2), seed=3)
    policy = ThriftyPolicy(3)
    while not game.is_over:
        game.apply(policy(game))
    data = game.to_dict()
    data["state"]["phase"] = int(Phase.ROUND_END)
    with pytest.raises(ReplayError, match="disagree"):
        Game.from_dict(data)
    assert Game.from_dict(game.to_dict()).phase == Phase.GAME_OVER
