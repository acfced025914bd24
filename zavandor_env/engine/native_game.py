"""``NativeGame``: the :class:`~.game.Game` API on the C++ core (see :mod:`.native`)."""

from __future__ import annotations

from typing import Any

from .actions import ACTION_NAMES, as_action_index
from .errors import IllegalActionError
from .game import FORMAT_VERSION, Game, check_seed
from .state import GameState, Phase
from .view import NativeView, PlayerView

# Game's own "state" slot: NativeGame hides it behind a property and fills it only when the
# game is handed over to the Python backend.
_STATE_SLOT: Any = Game.__dict__["state"]


class NativeGame(Game):
    """A :class:`Game` whose rules run in the C++ core (see :mod:`.native`)."""

    __slots__ = ()

    @property
    def backend(self) -> str:
        return "native"

    @property
    def native_core(self) -> Any:
        """The C++ core object (``_native.Core``): for the native observation encoder
        and batched stepping; its methods skip this class's checks."""
        return self._core

    # ---- reading -------------------------------------------------------------------
    @property  # type: ignore[override]  # read-only here: reading it hands the game over
    def state(self) -> GameState:  # type: ignore[override]
        """Hands this game over to the Python backend and returns its live state (see
        the :mod:`.native` docstring); use :meth:`read_state` to read without that."""
        state = self.read_state()
        _STATE_SLOT.__set__(self, state)  # the Python slot, unused until now
        self._core = None
        self.__class__ = Game  # type: ignore[assignment]  # same slots: now the Python methods
        return state

    # Every method first checks that the game is still native: a method can be looked up
    # before a handover and called after it (``game.apply(policy(game))`` binds ``apply``,
    # then ``policy`` reads ``game.state``); it then runs as the Python method.
    def view(self, seat: int) -> PlayerView:
        if self._core is None:
            return Game.view(self, seat)
        return NativeView(self._core, seat, self.read_state)

    def read_state(self) -> GameState:
        if self._core is None:
            return Game.read_state(self)
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
        if self._core is None:
            return Game.legal_actions(self)
        legal = self._legal
        if legal is None:
            legal = self._legal = self._core.legal_actions()
        return legal

    def scores(self) -> list[int]:
        if self._core is None:
            return Game.scores(self)
        return self._core.scores()

    def winners(self) -> list[int]:
        if self._core is None:
            return Game.winners(self)
        return self._core.winners()

    # ---- acting --------------------------------------------------------------------
    def apply(self, action: int, *, stop_at_round_end: bool = False) -> None:
        core = self._core
        if core is None:
            return Game.apply(self, action, stop_at_round_end=stop_at_round_end)
        if core.phase == Phase.ROUND_END:
            Game._refuse_at_round_end(self, action)
        index = action if type(action) is int else as_action_index(action)
        if index not in self.legal_actions():
            raise IllegalActionError(action, self.legal_actions(), ACTION_NAMES)
        core.apply(index, stop_at_round_end)
        self._legal = None
        self._snapshot = None

    def advance(self, *, stop_at_round_end: bool = False) -> None:
        if self._core is None:
            return Game.advance(self, stop_at_round_end=stop_at_round_end)
        if self._core.phase != Phase.ROUND_END:
            Game._refuse_advance(self)
        self._core.advance(stop_at_round_end)
        self._legal = None
        self._snapshot = None

    def reseed(self, seed: Any) -> None:

        if self._core is None:
            return Game.reseed(self, seed)
        self._core.reseed(check_seed(seed))
        self._snapshot = None

    def clone(self) -> Game:
        if self._core is None:
            return Game.clone(self)
        copy = NativeGame.wrap(self._core.clone(), self._config, self.seed)
        copy._legal = self._legal
        return copy

    def to_dict(self) -> dict[str, Any]:
        if self._core is None:
            return Game.to_dict(self)
        return {"format": FORMAT_VERSION, "seed": self.seed,
                "state": self._core.to_state_dict()}

    # ---- construction --------------------------------------------------------------
    @classmethod
    def wrap(cls, core: Any, config: Any, seed: int | None) -> NativeGame:
        """A game around a native ``core`` (a ``_native.Core``) of ``config``."""
        game = cls.__new__(cls)
        _STATE_SLOT.__set__(game, None)
        game._core = core
        game._config = config
        game.seed = seed
        game._legal = None
        game._snapshot = None
        return game
