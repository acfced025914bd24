"""The oracle: the Python rules of this package, run as a game.

The C++ core plays every game (:class:`~zavandor_env.engine.game.Game`); the rule modules
(``turn``, ``auction``, ``flow``, ``economy``, ``scoring``...) are its executable
specification, readable and run here.  :class:`OracleGame` plays them on a live, editable
:class:`GameState` with :class:`Game`'s API.  ``zavandor selfcheck``, the golden replays,
code generation and the rule tests (``tests/conftest.py``: every test marked
``core_and_oracle`` runs on both) hold the core equal to it.  No user-facing default picks it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, SupportsIndex

from zavandor_env.engine import auction, turn
from zavandor_env.engine.config import GameConfig
from zavandor_env.engine.flow import new_state, start_round
from zavandor_env.engine.game import (
    FORMAT_VERSION,
    Game,
    RoundEndError,
    check_seed,
    config_and_seed,
    retire_backend,
)
from zavandor_env.engine.scoring import winners
from zavandor_env.engine.state import GameState, Phase
from zavandor_env.engine.view import PlayerView

__all__ = ["OracleGame", "games_on_the_oracle"]

_LEGAL = {
    Phase.TURN: turn.legal_turn,
    Phase.BID: auction.legal_bid,
    Phase.DEBT: auction.legal_debt,
    Phase.FREE_LEVEL: turn.legal_free_level,
    Phase.LOSE_GEM: auction.legal_lose_gem,
}
_APPLY = {
    Phase.TURN: turn.apply_turn,
    Phase.BID: auction.apply_bid,
    Phase.DEBT: auction.apply_debt,
    Phase.FREE_LEVEL: turn.apply_free_level,
    Phase.LOSE_GEM: auction.apply_lose_gem,
}


class OracleGame(Game):
    """A :class:`Game` whose rules run in Python on the live :attr:`state` (editable: a
    script may change it between decisions).  ``OracleGame.new(config, seed)`` gives the game
    that ``Game.new(config, seed)`` gives, decision for decision."""

    __slots__ = ("state",)
    state: GameState  # the live state (a slot here; a read-only copy on the core)

    def __init__(self, state: GameState, seed: int | None = None) -> None:
        """A game playing on ``state`` itself (not a copy)."""
        self.state = state
        self.seed = seed
        self._legal = None

    @classmethod
    def new(cls, config: GameConfig | None = None, seed: SupportsIndex | None = None, *,
            backend: str | None = None, **options: Any) -> OracleGame:
        """:meth:`Game.new` on the oracle."""
        retire_backend(backend)
        config, seed = config_and_seed(config, seed, options)
        game = cls(new_state(config, seed), seed)
        game._skip_forced()
        return game

    @property
    def native_core(self) -> Any:
        return None

    def view(self, seat: int) -> PlayerView:
        return PlayerView(self.state, seat)

    @property
    def round(self) -> int:
        return self.state.round

    @property
    def config(self) -> GameConfig:
        return self.state.config

    @property
    def num_players(self) -> int:
        return self.state.config.num_players

    @property
    def current_player(self) -> int:
        return self.state.current_player  # -1 in GAME_OVER and ROUND_END

    @property
    def turn_player(self) -> int:
        return self.state.turn_player

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def is_over(self) -> bool:
        return self.state.terminated or self.state.truncated

    @property
    def at_round_end(self) -> bool:
        return self.state.phase == Phase.ROUND_END

    @property
    def terminated(self) -> bool:
        return self.state.terminated

    @property
    def truncated(self) -> bool:
        return self.state.truncated

    @property
    def history(self) -> list[int]:
        return self.state.history

    def legal_actions(self) -> tuple[int, ...]:
        legal = self._legal
        if legal is None:
            state = self.state
            if state.terminated or state.truncated or state.phase == Phase.ROUND_END:
                legal = ()
            else:
                legal = tuple(_LEGAL[state.phase](state))
            self._legal = legal
        return legal

    def apply(self, action: int, *, stop_at_round_end: bool = False) -> None:
        index = self._check_action(action)
        self.state.history.append(index)
        self._step(index, stop_at_round_end)
        self._skip_forced(stop_at_round_end)

    def advance(self, *, stop_at_round_end: bool = False) -> None:
        if self.state.phase != Phase.ROUND_END:
            raise RoundEndError("Game.advance() needs a game stopped at a round end")
        start_round(self.state)
        self._legal = None
        self._skip_forced(stop_at_round_end)

    def _step(self, action: int, stop_at_round_end: bool = False) -> None:
        state = self.state
        _APPLY[state.phase](state, action)
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
        self._legal = None

    def _skip_forced(self, stop_at_round_end: bool = False) -> None:
        if not self.state.config.skip_forced_decisions:
            return
        while True:
            legal = self.legal_actions()
            if len(legal) != 1:
                return
            self._step(legal[0], stop_at_round_end)

    def scores(self) -> list[int]:
        return [p.vp for p in self.state.players]

    def winners(self) -> list[int]:
        return winners(self.state) if self.state.terminated else []

    def clone(self) -> OracleGame:
        copy = OracleGame(self.state.clone(), self.seed)
        copy._legal = self._legal
        return copy

    def reseed(self, seed: SupportsIndex) -> None:
        self.state.rng.seed(check_seed(seed))

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "seed": self.seed, "state": self.state.to_dict()}


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
