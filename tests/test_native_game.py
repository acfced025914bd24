"""A native game stays native: no live ``state`` (a one-line error naming the two ways on),
an explicit ``to_python()`` that copies, and nothing that turns it into a Python game."""

from __future__ import annotations

import pytest

from zavandor_env.engine import Game, native_available
from zavandor_env.engine.native_game import NativeGame, NoLiveStateError

pytestmark = pytest.mark.skipif(not native_available(), reason="needs the native core")


def _native_game() -> Game:
    game = Game.new(num_players=3, seed=11, backend="native")
    for _ in range(25):
        game.apply(game.legal_actions()[0])
    return game


def test_reading_state_on_a_native_game_is_a_one_line_error_and_changes_nothing() -> None:
    game = _native_game()
    before = game.to_json()
    with pytest.raises(NoLiveStateError, match=r"read_state\(\).*to_python\(\)") as info:
        game.state  # noqa: B018  # the read itself is what is refused
    assert "\n" not in str(info.value)
    assert isinstance(info.value, AttributeError)
    assert type(game) is NativeGame and game.backend == "native"
    assert game.native_core is not None and game.to_json() == before
    game.apply(game.legal_actions()[0])  # and it plays on natively
    assert type(game) is NativeGame


def test_to_python_gives_an_independent_python_game_of_the_same_position() -> None:
    game = _native_game()
    py = game.to_python()
    assert type(py) is Game and py.backend == "python" and type(game) is NativeGame
    assert py.to_json() == game.to_json() and py.legal_actions() == game.legal_actions()
    py.state.players[0].hand[0] += 3  # edits reach the copy only
    assert game.read_state().players[0].hand[0] == py.state.players[0].hand[0] - 3
    action = game.legal_actions()[-1]
    game.apply(action)
    py.apply(action)  # both play the same game on (the edit aside)
    assert py.history == game.history


def test_to_python_on_a_python_game_is_the_game_itself() -> None:
    game = Game.new(num_players=2, seed=3, backend="python")
    assert game.to_python() is game
