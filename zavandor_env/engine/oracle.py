"""The oracle: the Python rules of this package, run as a game.

The C++ core plays every game (:class:`~zavandor_env.engine.game.Game`); the rule modules
(``turn``, ``auction``, ``flow``, ``economy``, ``scoring``...) are its executable
specification, readable and run here.  :class:`OracleCore` plays them on a live, editable
:class:`GameState` behind the C++ core's interface, so :class:`OracleGame` is :class:`Game`
itself on that core.  ``zavandor selfcheck``, the golden replays, code generation and the rule
tests (``tests/conftest.py``: every test marked ``core_and_oracle`` runs on both) hold the
core equal to it.  No user-facing default picks it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from zavandor_env.engine import auction, turn
from zavandor_env.engine.config import GameConfig
from zavandor_env.engine.flow import new_state, start_round
from zavandor_env.engine.game import Game
from zavandor_env.engine.scoring import winners
from zavandor_env.engine.state import GameState, Phase
from zavandor_env.engine.view import PlayerView

__all__ = ["OracleCore", "OracleGame", "games_on_the_oracle"]

#: The rules of each decision: (its legal actions, applying one).
_RULES = {
    Phase.TURN: (turn.legal_turn, turn.apply_turn),
    Phase.BID: (auction.legal_bid, auction.apply_bid),
    Phase.DEBT: (auction.legal_debt, auction.apply_debt),
    Phase.FREE_LEVEL: (turn.legal_free_level, turn.apply_free_level),
    Phase.LOSE_GEM: (auction.legal_lose_gem, auction.apply_lose_gem),
}
#: What the core reads straight from the state's field of the same name.
_STATE_FIELDS = frozenset({"round", "phase", "current_player", "turn_player", "terminated",
                           "truncated"})


class OracleCore:
    """The Python rules behind the interface :class:`Game` uses on the C++ core (the same
    methods, the same meaning), playing on the live :attr:`state`."""

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __getattr__(self, name: str) -> Any:
        if name in _STATE_FIELDS:
            return getattr(self.state, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def num_players(self) -> int:
        return self.state.config.num_players

    def history(self) -> list[int]:
        return self.state.history

    def legal_actions(self) -> tuple[int, ...]:
        state = self.state
        if state.terminated or state.truncated or state.phase == Phase.ROUND_END:
            return ()
        return tuple(_RULES[state.phase][0](state))

    def apply(self, action: int, stop_at_round_end: bool) -> None:
        self.state.history.append(action)
        self._step(action, stop_at_round_end)
        self.skip_forced(stop_at_round_end)

    def advance(self, stop_at_round_end: bool) -> None:
        start_round(self.state)
        self.skip_forced(stop_at_round_end)

    def _step(self, action: int, stop_at_round_end: bool) -> None:
        state = self.state
        _RULES[state.phase][1](state, action)
        # Phase 4 leaves ROUND_END pending; unless asked to stop there, phases 1-2 follow now
        # (and also before a max_decisions truncation, so both paths give the same game).
        stopped = state.phase == Phase.ROUND_END
        state.num_decisions += 1
        truncate = state.num_decisions >= state.config.max_decisions and not state.terminated
        if stopped and (truncate or not stop_at_round_end):
            start_round(state)
        if truncate and not state.truncated:
            state.truncated = True
            state.phase = Phase.GAME_OVER
            state.current_player = -1

    def skip_forced(self, stop_at_round_end: bool = False) -> None:
        """Take every decision that has a single legal action (option
        ``skip_forced_decisions``)."""
        if not self.state.config.skip_forced_decisions:
            return
        while len(legal := self.legal_actions()) == 1:
            self._step(legal[0], stop_at_round_end)

    def scores(self) -> list[int]:
        return [p.vp for p in self.state.players]

    def winners(self) -> list[int]:
        return winners(self.state) if self.state.terminated else []

    def clone(self) -> OracleCore:
        return OracleCore(self.state.clone())

    def reseed(self, seed: int) -> None:
        self.state.rng.seed(seed)

    def to_state_dict(self) -> dict[str, Any]:
        return self.state.to_dict()


class OracleGame(Game):
    """A :class:`Game` whose rules run in Python on the live :attr:`state` (editable: a
    script may change it between decisions).  ``OracleGame.new(config, seed)`` gives the game
    that ``Game.new(config, seed)`` gives, decision for decision."""

    __slots__ = ()
    _core: OracleCore

    def __init__(self, state: GameState, seed: int | None = None) -> None:
        """A game playing on ``state`` itself (not a copy)."""
        self._attach(OracleCore(state), state.config, seed)

    @staticmethod
    def _new_core(config: GameConfig, seed: int) -> OracleCore:
        core = OracleCore(new_state(config, seed))
        core.skip_forced()
        return core

    @property
    def state(self) -> GameState:
        """The live state (a read-only copy on the C++ core)."""
        return self._core.state

    @property
    def native_core(self) -> Any:
        return None

    def view(self, seat: int) -> PlayerView:
        return PlayerView(self._core.state, seat)


@contextmanager
def games_on_the_oracle() -> Iterator[None]:
    """Within the block, ``Game.new`` and ``Game.from_dict`` (so also ``replay``,
    ``from_json`` and ``scenario.build``) build oracle games: code generation writes its
    artifacts with the rules themselves (a stale core cannot spoil them) and the rule tests
    run once this way (``tests/conftest.py``).  Not for use while other threads play."""
    saved = Game.__dict__["new"], Game.__dict__["from_dict"]
    Game.new, Game.from_dict = OracleGame.new, OracleGame.from_dict  # type: ignore[method-assign]
    try:
        yield
    finally:
        Game.new, Game.from_dict = saved  # type: ignore[method-assign]
