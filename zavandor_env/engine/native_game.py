"""``NativeGame``: the :class:`~.game.Game` API on the C++ core (see :mod:`.native`)."""

from __future__ import annotations

from typing import Any

from .actions import ACTION_NAMES, as_action_index
from .errors import IllegalActionError
from .game import FORMAT_VERSION, Game, check_seed
from .state import GameState, Phase
from .view import NativeView, PlayerView


class NoLiveStateError(AttributeError):
    """``game.state`` on a native game, which has no live Python state to hand out."""


class NativeGame(Game):
    """A :class:`Game` whose rules run in the C++ core (see :mod:`.native`).

    It stays native for its whole life: it has no live, editable :attr:`state` (reading it
    raises :class:`NoLiveStateError`); :meth:`read_state` gives a copy to read and
    :meth:`to_python` a Python game to edit.
    """

    __slots__ = ()

    @property
    def backend(self) -> str:
        return "native"

    @property
    def native_core(self) -> Any:
        """The C++ core object (``_native.Core``): for the native observation encoder and
        batched stepping; its methods skip this class's checks."""
        return self._core

    # ---- reading -------------------------------------------------------------------
    @property  # type: ignore[override]  # no live state here: read_state() or to_python()
    def state(self) -> GameState:  # type: ignore[override]
        """Refused (:class:`NoLiveStateError`): the state lives in the C++ core.  Read it
        with :meth:`read_state`; edit it on ``game = game.to_python()``."""
        raise NoLiveStateError("a native game has no live Python state: read it with "
                               "game.read_state(), or edit it on game = game.to_python()")

    def to_python(self) -> Game:
        """A new Python game holding a copy of this game's state (this game is unchanged)."""
        game = Game(GameState.from_dict(self._core.to_state_dict()), self.seed)
        game._legal = self._legal
        return game

    def view(self, seat: int) -> PlayerView:
        return NativeView(self._core, seat, self.read_state)

    def read_state(self) -> GameState:
        """A copy of the state taken after the last change (cached until the next one;
        edits to it never reach the game)."""
        snapshot = self._snapshot
        if snapshot is None:
            snapshot = GameState.from_dict(self._core.to_state_dict())
            self._snapshot = snapshot
        return snapshot

    @property
    def config(self) -> Any:
        return self._config

    @property
    def num_players(self) -> int:
        return self._core.num_players

    @property
    def current_player(self) -> int:
        return self._core.current_player

    @property
    def turn_player(self) -> int:
        return self._core.turn_player

    @property
    def phase(self) -> Phase:
        return Phase(self._core.phase)

    @property
    def round(self) -> int:
        return self._core.round

    @property
    def is_over(self) -> bool:
        core = self._core
        return core.terminated or core.truncated

    @property
    def terminated(self) -> bool:
        return self._core.terminated

    @property
    def truncated(self) -> bool:
        return self._core.truncated

    @property
    def at_round_end(self) -> bool:
        return self._core.phase == Phase.ROUND_END

    @property
    def history(self) -> list[int]:
        return self._core.history()

    def legal_actions(self) -> tuple[int, ...]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._core.legal_actions()
        return legal

    def scores(self) -> list[int]:
        return self._core.scores()

    def winners(self) -> list[int]:
        return self._core.winners()

    # ---- acting --------------------------------------------------------------------
    def apply(self, action: int, *, stop_at_round_end: bool = False) -> None:
        core = self._core
        if core.phase == Phase.ROUND_END:
            Game._refuse_at_round_end(self, action)
        index = action if type(action) is int else as_action_index(action)
        if index not in self.legal_actions():
            raise IllegalActionError(action, self.legal_actions(), ACTION_NAMES)
        core.apply(index, stop_at_round_end)
        self._legal = None
        self._snapshot = None

    def advance(self, *, stop_at_round_end: bool = False) -> None:
        if self._core.phase != Phase.ROUND_END:
            Game._refuse_advance(self)
        self._core.advance(stop_at_round_end)
        self._legal = None
        self._snapshot = None

    def reseed(self, seed: Any) -> None:
        self._core.reseed(check_seed(seed))
        self._snapshot = None

    def clone(self) -> Game:
        copy = NativeGame.wrap(self._core.clone(), self._config, self.seed)
        copy._legal = self._legal
        return copy

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "seed": self.seed,
                "state": self._core.to_state_dict()}

    # ---- construction --------------------------------------------------------------
    @classmethod
    def wrap(cls, core: Any, config: Any, seed: int | None) -> NativeGame:
        """A game around a native ``core`` (a ``_native.Core``) of ``config``."""
        game = cls.__new__(cls)
        game._core = core
        game._config = config
        game.seed = seed
        game._legal = None
        game._snapshot = None
        return game
