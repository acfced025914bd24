"""One runtime: every game runs on the C++ core, ``game.state`` is a read-only copy of its
state, and the old ``backend=`` argument is retired (the Python rules are the oracle)."""

from __future__ import annotations

import warnings

import pytest

from zavandor_env.engine import Game
from zavandor_env.engine.oracle import OracleGame


def _mid_game() -> Game:
    game = Game.new(num_players=3, seed=11)
    for _ in range(25):
        game.apply(game.legal_actions()[0])
    return game


def test_every_game_runs_on_the_core() -> None:
    game = _mid_game()
    assert type(game) is Game and game.native_core is not None
    assert type(game.clone()) is Game
    assert type(Game.from_json(game.to_json())) is Game
    assert type(Game.from_replay_record(game.replay_record())) is Game


def test_state_is_a_copy_whose_edits_never_reach_the_game() -> None:
    game = _mid_game()
    before = game.to_json()
    state = game.state
    assert game.state is state  # cached until the next change
    state.players[0].hand[0] += 3
    state.decks[0].clear()
    assert game.to_json() == before
    game.apply(game.legal_actions()[0])
    assert game.state is not state and game.state.history == game.history


def test_a_state_loads_onto_the_core_as_a_copy() -> None:
    oracle = OracleGame.new(num_players=3, seed=11)
    game = Game(oracle.state, oracle.seed)
    assert type(game) is Game and game.to_json() == oracle.to_json()
    oracle.state.players[0].hand[0] += 3  # the oracle's live state; the core holds its copy
    assert game.to_json() != oracle.to_json()


def test_backend_native_still_works_with_a_one_line_deprecation_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        game = Game.new(num_players=2, seed=3, backend="native")
        again = Game.from_dict(game.to_dict(), backend="native")
    assert type(game) is Game and again.to_json() == game.to_json()
    assert [w.category for w in caught] == [DeprecationWarning] * 2
    assert all("\n" not in str(w.message) for w in caught)


def test_backend_python_is_a_one_line_error_naming_the_oracle() -> None:
    with pytest.raises(ValueError, match="oracle") as info:
        Game.new(num_players=2, seed=3, backend="python")
    assert "\n" not in str(info.value)
