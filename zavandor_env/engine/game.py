"""The engine's public face: :class:`Game`, a game played by the C++ core.

Typical loop::

    game = Game.new(GameConfig(num_players=4), seed=7)
    while not game.is_over:
        action = random.choice(game.legal_actions())
        game.apply(action)
    print(game.scores(), game.winners())

``Game`` never calls an agent: it stores the pending decision and waits for ``apply``.
Decisions with a single legal action are taken automatically (option
``skip_forced_decisions``), so every decision an agent sees is a real choice.

The decision that ends a round plays phase 4 (hand limits, VP recount, game end), which leaves
the state in ``Phase.ROUND_END``; by default ``apply`` goes straight on with the next round's
phases 1-2 (turn order, display, income).  A script that wants to look between the two passes
``stop_at_round_end=True`` to :meth:`Game.apply`, reads the phase-4 scores while
:attr:`Game.at_round_end` is true, and continues with :meth:`Game.advance`; the game then goes
on exactly as without the stop.

The rules run in the C++ core (``native/src``, built when the package is installed).  The
Python rules of this package are its executable specification, the oracle
(:mod:`zavandor_env.engine.oracle`): ``zavandor selfcheck``, the golden replays and the rule
tests hold the two equal, so ``(config, seed, decisions)`` gives the same game on either.
"""

from __future__ import annotations

import json
import numbers
import random
import warnings
from collections.abc import Iterable
from operator import attrgetter
from typing import Any, SupportsIndex

from zavandor_env.engine.actions import ACTION_NAMES, NUM_ACTIONS, as_action_index
from zavandor_env.engine.config import GameConfig
from zavandor_env.engine.errors import IllegalActionError, ReplayError
from zavandor_env.engine.hands import Hand, hand_of
from zavandor_env.engine.native import core_from_state, new_core
from zavandor_env.engine.outcome import Outcome, game_outcome
from zavandor_env.engine.state import GameState, Phase, Purchase
from zavandor_env.engine.view import NativeView, PlayerView
from zavandor_env.io.files import UntrustedInputError, parse_json
from zavandor_env.io.saved_games import check_state_dict

FORMAT_VERSION = 1


class RoundEndError(IllegalActionError):
    """:meth:`Game.apply` while the game is stopped at a round end, or :meth:`Game.advance`
    while it is not; the game is left untouched."""

    def __init__(self, message: str, action: object = None) -> None:
        self.action = action
        self.legal = ()
        ValueError.__init__(self, message)


def check_seed(seed: object, or_none: bool = False) -> int:
    """``seed`` as a plain ``int``: any integer >= 0 (NumPy integers included) passes; bools,
    floats, strings and negative numbers raise a one-line ``ValueError``.  ``or_none`` only
    changes the message (for callers that also take ``None``)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        alternative = " or None" if or_none else ""
        raise ValueError(f"seed must be a non-negative integer{alternative}, got {seed!r}")
    return int(seed)


def retire_backend(backend: str | None, stacklevel: int = 3) -> None:
    """The old ``backend=`` argument: ``"native"`` still works (with a warning), anything else
    is a one-line ``ValueError`` (the Python rules are the oracle now, not a runtime)."""
    if backend is None:
        return
    if backend == "native":
        warnings.warn("backend= is deprecated and ignored: every game runs on the C++ core",
                      DeprecationWarning, stacklevel=stacklevel)
        return
    raise ValueError(f"backend={backend!r} is gone: games run on the C++ core; the Python rules "
                     "are the oracle, zavandor_env.engine.oracle.OracleGame")


def _record_seed(record: dict[str, Any], what: str) -> int | None:
    """The seed of a saved game or replay: ``None`` or an integer >= 0."""
    seed = record.get("seed")
    if seed is not None and (type(seed) is not int or seed < 0):
        raise ReplayError(f"{what} seed must be a non-negative integer, got {seed!r}")
    return seed


def _from_core(name: str) -> Any:
    """A read-only attribute of a game that is its core's attribute ``name`` (read in C: no
    Python call on access, as in :class:`~.view.PlayerView`)."""
    return property(attrgetter(f"_core.{name}"))


class Game:
    """A game in progress, played by the C++ core: config + seeded generator + state + the
    decisions taken.  ``(config, seed, decisions)`` replays a game exactly (:meth:`replay`).

    :attr:`state` is the one way to read the state: a copy taken after the last change (edits
    to it never reach the game).  To build a position, see :mod:`.scenario`; to run the Python
    rules themselves, :class:`~zavandor_env.engine.oracle.OracleGame` (a subclass).
    """

    __slots__ = ("seed", "_legal", "_core", "_config", "_snapshot")
    seed: int | None
    _legal: tuple[int, ...] | None
    _core: Any
    _config: GameConfig
    _snapshot: GameState | None

    def __init__(self, state: GameState, seed: int | None = None) -> None:
        """A game on the core holding a copy of ``state`` (e.g. one a scenario or the
        determinizer built); ``ValueError`` if the core refuses it."""
        self._attach(core_from_state(state), state.config, seed)

    def _attach(self, core: Any, config: GameConfig, seed: int | None) -> None:
        self._core = core
        self._config = config
        self.seed = seed
        self._legal = None
        self._snapshot = None

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def new(
        cls, config: GameConfig | None = None, seed: SupportsIndex | None = None, *,
        backend: str | None = None, **options: Any
    ) -> Game:
        """Set up a new game.  ``options`` are :class:`GameConfig` fields (used when no
        config is given), e.g. ``Game.new(num_players=4, seed=1)``.

        ``seed`` is any integer >= 0 (a ``numbers.Integral``: NumPy integers too), stored as
        a plain ``int``; ``None`` draws one.  Bools, floats and negative numbers raise a
        one-line ``ValueError``.  (``backend`` is deprecated and ignored.)"""
        retire_backend(backend)
        if config is None:
            config = GameConfig(**options)
        elif options:
            raise TypeError("pass either a GameConfig or keyword options, not both")
        if seed is None:  # draw one, so that every game can still be replayed from its record
            plain = random.SystemRandom().randrange(2**63)
        else:  # a plain int: the generator and JSON need one
            plain = check_seed(seed, or_none=True)
        game = cls.__new__(cls)
        game._attach(cls._new_core(config, plain), config, plain)
        return game

    @staticmethod
    def _new_core(config: GameConfig, seed: int) -> Any:
        return new_core(config.to_dict(), seed)

    @classmethod
    def replay(cls, config: GameConfig, seed: SupportsIndex | None,
               actions: Iterable[int]) -> Game:
        """Rebuild a game from its config, seed and the decisions taken (forced ones excluded,
        as recorded in :attr:`history`).  Raises :class:`ReplayError` if an action is illegal."""
        game = cls.new(config, seed)
        for step, action in enumerate(actions):
            try:
                game.apply(action)
            except IllegalActionError as exc:
                raise ReplayError(f"replay diverges at decision {step}: {exc}") from None
        return game

    # ---- reading -------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """The state, to read: a copy taken after the last change, cached until the next one
        (edits to it never reach the game)."""
        return self._read()

    def _read(self) -> GameState:
        snapshot = self._snapshot
        if snapshot is None:
            snapshot = self._snapshot = GameState.from_dict(self._core.to_state_dict())
        return snapshot

    @property
    def native_core(self) -> Any:
        """The C++ core object, for the native observation encoder, the native bots and
        batched stepping (its methods skip this class's checks); ``None`` on the oracle."""
        return self._core

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now (of the state as it is now: take a new view after each
        change)."""
        return NativeView(self._core, seat, self._read)

    #: The current round (1 = the first).
    round: int = _from_core("round")
    num_players: int = _from_core("num_players")
    #: The seat that must decide now (-1 when the game is over or stopped at a round end).
    current_player: int = _from_core("current_player")
    #: The seat whose phase-3 turn it is (may differ from the deciding player).
    turn_player: int = _from_core("turn_player")
    #: The game ended by the rules (>= 5 sentinels acquired, or one player left).
    terminated: bool = _from_core("terminated")
    #: The game was cut off by a safety limit (max rounds or max decisions).
    truncated: bool = _from_core("truncated")

    @property
    def config(self) -> GameConfig:
        return self._config

    @property
    def phase(self) -> Phase:
        return Phase(self._core.phase)

    @property
    def is_over(self) -> bool:
        return self._core.terminated or self._core.truncated

    @property
    def at_round_end(self) -> bool:
        """Stopped after phase 4 and before the next round's phases 1-2 (``phase`` is
        ``Phase.ROUND_END``; only after ``apply(..., stop_at_round_end=True)``): nobody decides
        until :meth:`advance`."""
        return self._core.phase == Phase.ROUND_END

    @property
    def history(self) -> list[int]:
        """Decisions applied through :meth:`apply` (forced decisions are not included)."""
        return self._core.history()

    # ---- legal actions -------------------------------------------------------------------
    def legal_actions(self) -> tuple[int, ...]:
        """Legal action indices for the current player, ascending; empty when over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._core.legal_actions()
        return legal

    def action_mask(self) -> list[int]:
        """0/1 list of length NUM_ACTIONS marking the legal actions."""
        mask = [0] * NUM_ACTIONS
        for a in self.legal_actions():
            mask[a] = 1
        return mask

    def is_legal(self, action: int) -> bool:
        return as_action_index(action) in self.legal_actions()

    # ---- acting --------------------------------------------------------------------------
    def apply(self, action: int, *, stop_at_round_end: bool = False) -> None:
        """Apply the current player's decision (then any forced decisions that follow).

        Args:
            action: a legal action index (a Python or NumPy integer).
            stop_at_round_end: if this decision, or a forced one after it, ends the round,
                stop after phase 4 (hand limits, VP recount, game-end check) and before the
                next round's phases 1-2: :attr:`at_round_end` is then true, :meth:`scores`
                are the phase-4 scores, nobody decides, and :meth:`advance` continues.  A
                game saved there (:meth:`to_json`) loads stopped there.  Continuing gives
                exactly the game that ``stop_at_round_end=False`` (the default) gives.

        Raises:
            IllegalActionError: the action is not legal now (the state is left untouched).
            RoundEndError: the game is stopped at a round end (call :meth:`advance`).
        """
        if self.at_round_end:
            raise RoundEndError(f"round {self.round} has ended: call Game.advance() before "
                                f"applying action {action!r}", action)
        legal = self.legal_actions()
        index = action if type(action) is int else as_action_index(action)
        if index not in legal:
            raise IllegalActionError(action, legal, ACTION_NAMES)
        self._core.apply(index, stop_at_round_end)
        self._legal = None
        self._snapshot = None

    def advance(self, *, stop_at_round_end: bool = False) -> None:
        """Continue a game stopped at a round end: play the next round's phases 1-2 (turn
        order, display, income) and any forced decisions, up to the next real decision (or
        the next round end, with ``stop_at_round_end``).

        Raises:
            RoundEndError: the game is not stopped at a round end.
        """
        if not self.at_round_end:
            raise RoundEndError("Game.advance() needs a game stopped at a round end")
        self._core.advance(stop_at_round_end)
        self._legal = None
        self._snapshot = None

    # ---- outcome -------------------------------------------------------------------------
    def scores(self) -> list[int]:
        """VP of every seat as scored at the last phase 4 (0 for an eliminated player)."""
        return self._core.scores()

    @property
    def purchases(self) -> list[Purchase]:
        """Every auction won and paid for so far, oldest first (frozen records, a new list)."""
        return [Purchase(*record) for record in self.state.purchases]

    def hand(self, seat: int) -> Hand:
        """A readable snapshot of ``seat``'s hand (every card value: the referee's view;
        a player's own view is :meth:`PlayerView.hand`)."""
        n = self.num_players
        if isinstance(seat, bool) or not isinstance(seat, numbers.Integral) or not 0 <= seat < n:
            raise ValueError(f"seat must be an integer in [0, {n}), got {seat!r}")
        return hand_of(self.state.players[int(seat)].hand)

    def winners(self) -> list[int]:
        """Seats sharing the win (most VP); empty while the game is running or if truncated."""
        return self._core.winners()

    def outcome(self) -> Outcome:
        """The result as every layer reads it (:mod:`.outcome`): scores, ranks, the rules'
        winners (none for a truncated game), eliminations, rounds and decisions."""
        return game_outcome(self)

    # ---- copies and files ----------------------------------------------------------------
    def clone(self) -> Game:
        """An independent copy (random generator included: the same future unless reseeded)."""
        copy = type(self).__new__(type(self))
        copy._attach(self._core.clone(), self._config, self.seed)
        copy._legal = self._legal
        return copy

    def reseed(self, seed: SupportsIndex) -> None:
        """Replace the random generator, e.g. so a search clone cannot foresee real draws.

        ``seed`` is any integer >= 0 (NumPy integers included); anything else raises
        ``ValueError``."""
        self._core.reseed(check_seed(seed))
        self._snapshot = None

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "seed": self.seed,
                "state": self._core.to_state_dict()}

    def to_json(self) -> str:
        """The full state (RNG included) as JSON; :meth:`from_json` restores it exactly."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, backend: str | None = None) -> Game:
        """Load :meth:`to_dict` output (of a game or of the oracle: the format is one).
        (``backend`` is deprecated and ignored.)"""
        retire_backend(backend)
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            raise ReplayError(f"not a saved game of format {FORMAT_VERSION}")
        seed = _record_seed(data, "saved game")
        try:
            raw = data["state"]
            if not isinstance(raw, dict):
                raise TypeError("state must be an object")
            if "purchases" not in raw:  # saved before won auctions were recorded
                raw = {**raw, "purchases": []}
            check_state_dict(raw, GameConfig.from_dict(raw.get("config")))
            # The core checks every index and count again before storing it.
            game = cls(GameState.from_dict(raw), seed)
        except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
            raise ReplayError(f"malformed saved game: {exc}") from None
        if not game.is_over and not game.at_round_end and not game.legal_actions():
            raise ReplayError("malformed saved game: the pending decision has no legal action")
        return game

    @classmethod
    def from_json(cls, text: str | bytes) -> Game:
        """Load :meth:`to_json` output; the text is bounded in size and nesting depth
        (:func:`~.files.parse_json`) before anything is built from it."""
        return cls.from_dict(_parse_record(text, "saved game"))

    def replay_record(self) -> dict[str, Any]:
        """What a replay file holds: config, seed and decisions (enough to rebuild the game)."""
        return {
            "format": FORMAT_VERSION,
            "config": self.config.to_dict(),
            "seed": self.seed,
            "actions": list(self.history),
        }

    @classmethod
    def from_replay_record(cls, record: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`replay_record` output, with clear errors on bad data."""
        if not isinstance(record, dict):
            raise ReplayError("a replay must be a JSON object")
        missing = {"format", "config", "seed", "actions"} - set(record)
        if missing:
            raise ReplayError(f"replay is missing {sorted(missing)}")
        if record["format"] != FORMAT_VERSION:
            raise ReplayError(f"replay format {record['format']!r} is not {FORMAT_VERSION}")
        actions = record["actions"]
        if not isinstance(actions, list) or not all(type(a) is int for a in actions):
            raise ReplayError("replay actions must be a list of integers")
        try:
            config = GameConfig.from_dict(record["config"])
        except (ValueError, TypeError) as exc:
            raise ReplayError(f"replay has a bad config: {exc}") from None
        # Refused before replaying: no game of this config is longer (and no config allows
        # more than MAX_DECISIONS).
        most = config.max_decisions
        if len(actions) > most:
            raise ReplayError(f"replay holds {len(actions):,} decisions; at most {most:,} "
                              f"can be replayed")
        return cls.replay(config, _record_seed(record, "replay"), actions)

    @classmethod
    def from_replay_json(cls, text: str | bytes) -> Game:
        """:meth:`from_replay_record` of a replay file's text, bounded in size and nesting
        depth (:func:`~.files.parse_json`) before it is parsed further."""
        return cls.from_replay_record(_parse_record(text, "replay"))

    def __getattr__(self, name: str) -> Any:
        # Called only for a missing attribute.  The drawings left the engine (it imports
        # nothing above it): a caller of the former methods reads where they went.
        if name in _MOVED_TO_RENDER:
            raise AttributeError(f"Game.{name}() moved out of the engine: use "
                                 f"{_MOVED_TO_RENDER[name]}")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(players={self.num_players}, round={self.round}, "
            f"phase={self.phase.name}, current={self.current_player}, turn={self.turn_player})"
        )

#: The former drawing methods and what replaces each (``zavandor_env.render``).
_MOVED_TO_RENDER = {
    "describe": "zavandor_env.render.describe(game)",
    "to_svg": "zavandor_env.render.to_svg(game, seat=None)",
}


def _parse_record(text: str | bytes, what: str) -> Any:
    """JSON from outside as data, or a one-line :class:`ReplayError`."""
    try:
        return parse_json(text, what=what)
    except UntrustedInputError as exc:
        raise ReplayError(str(exc)) from None
