"""The native backend: :class:`NativeGame`, the same :class:`Game` API on the C++ core.

The C++ core (``native/src``, built into ``zavandor_env.engine._native`` when the package is
installed with a C++17 compiler) is a port of this package's Python rules: the same action
indices, the same state fields, the same random draws (a bit-exact copy of CPython's
``random.Random``), so ``(config, seed, actions)`` gives the identical game on either backend
and a saved game loads in both.  The Python engine stays the readable reference and the
fallback; ``tests/test_native_*.py`` and ``zavandor selfcheck`` hold the two equal.

Choosing a backend: ``Game.new(config, seed, backend="native" | "python")``; ``None`` takes
:func:`default_backend` (native when built, unless ``ZAVANDOR_BACKEND=python`` is set).

Reading the state.  The Python backend's ``game.state`` is the live, editable
:class:`GameState`.  A native game has no Python state object, so:

* :meth:`Game.read_state` gives a :class:`GameState` to *read* (a copy made after each change,
  cached until the next one); agents, the viewer and the outcome use it.
* ``game.state`` on a native game hands the game over to the Python backend (the state is
  copied out once and the game continues in Python), because the caller may edit it.  The
  game stays correct and only loses native speed; :attr:`Game.backend` then says
  ``"python"``.
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING, Any, Final

from .errors import IllegalActionError
from .state import GameState, Phase
from .view import NativeView, PlayerView

if TYPE_CHECKING:
    from .game import Game

BACKENDS: Final = ("native", "python")

_IMPORT_ERROR: str | None = None
try:  # the extension is optional: an install without a compiler runs the Python engine
    from . import _native  # type: ignore[attr-defined]
except ImportError as exc:  # pragma: no cover - depends on how the package was installed
    _native = None
    if importlib.util.find_spec(f"{__package__}._native") is None:
        _IMPORT_ERROR = "it was not built when the package was installed"
    else:  # built but broken (e.g. for another Python): say exactly why
        _IMPORT_ERROR = f"it does not load: {exc}"
if os.environ.get("ZAVANDOR_NO_NATIVE", "") not in ("", "0"):  # as if it were not built
    _native = None
    _IMPORT_ERROR = "ZAVANDOR_NO_NATIVE is set"


def native_available() -> bool:
    """Whether the C++ core was built and imports (see :func:`native_status` for why not)."""
    return _native is not None


def native_status() -> str:
    """One line: the native core is available, or why it is not."""
    if _native is not None:
        return "native core available (zavandor_env.engine._native)"
    return (f"native core unavailable: {_IMPORT_ERROR}; the pure-Python engine is used "
            "(reinstall with a C++17 compiler, g++ or clang, to build it)")


def default_backend() -> str:
    """``"native"`` when the core is built, else ``"python"``; ``ZAVANDOR_BACKEND=python``
    (or ``native``) in the environment overrides it."""
    chosen = os.environ.get("ZAVANDOR_BACKEND", "").strip().lower()
    if chosen == "python":
        return "python"
    if chosen not in ("", "native"):
        raise ValueError(f"ZAVANDOR_BACKEND must be 'native' or 'python', got {chosen!r}")
    return "native" if _native is not None else "python"


def resolve_backend(backend: str | None) -> str:
    """``backend`` checked (``None`` -> :func:`default_backend`); asking for ``"native"``
    without the core raises a one-line ``RuntimeError``."""
    if backend is None:
        return default_backend()
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'native' or 'python', got {backend!r}")
    if backend == "native" and _native is None:
        raise RuntimeError(native_status())
    return backend


def core_module() -> Any:
    """The extension module (``RuntimeError`` if it is not built)."""
    if _native is None:
        raise RuntimeError(native_status())
    return _native


def new_core(config_dict: dict[str, Any], seed: int) -> Any:
    return core_module().Core(config_dict, seed)


def core_from_state(state: GameState) -> Any:
    """A native core holding a copy of a Python state (e.g. one built by ``scenario``)."""
    return core_module().Core.from_state_dict(state.to_dict())


def make_native_class(game_cls: type[Game]) -> type[Game]:
    """Build :class:`NativeGame` as a subclass of ``game_cls`` (called once by ``game.py``;
    a function so that ``game.py`` and this module need not import each other at load)."""

    class NativeGame(game_cls):  # type: ignore[valid-type, misc]
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
        @property  # type: ignore[override]
        def state(self) -> GameState:
            """Hands this game over to the Python backend and returns its live state (see
            the module docstring); use :meth:`read_state` to read without that."""
            state = self.read_state()
            game_cls.state.__set__(self, state)  # the Python slot, unused until now
            self._core = None
            self.__class__ = game_cls  # same slots: every method is now the Python one
            return state

        # Every method first checks that the game is still native: a method can be looked up
        # before a handover and called after it (``game.apply(policy(game))`` binds ``apply``,
        # then ``policy`` reads ``game.state``); it then runs as the Python method.
        def view(self, seat: int) -> PlayerView:
            if self._core is None:
                return game_cls.view(self, seat)
            return NativeView(self._core, seat, self.read_state)

        def read_state(self) -> GameState:
            if self._core is None:
                return game_cls.read_state(self)
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
                return game_cls.legal_actions(self)
            legal = self._legal
            if legal is None:
                legal = self._legal = self._core.legal_actions()
            return legal

        def scores(self) -> list[int]:
            if self._core is None:
                return game_cls.scores(self)
            return self._core.scores()

        def winners(self) -> list[int]:
            if self._core is None:
                return game_cls.winners(self)
            return self._core.winners()

        # ---- acting --------------------------------------------------------------------
        def apply(self, action: int, *, stop_at_round_end: bool = False) -> None:
            core = self._core
            if core is None:
                return game_cls.apply(self, action, stop_at_round_end=stop_at_round_end)
            if core.phase == Phase.ROUND_END:
                game_cls._refuse_at_round_end(self, action)
            index = action if type(action) is int else _as_index(action)
            if index not in self.legal_actions():
                raise IllegalActionError(action, self.legal_actions(), _names())
            core.apply(index, stop_at_round_end)
            self._legal = None
            self._snapshot = None

        def advance(self, *, stop_at_round_end: bool = False) -> None:
            if self._core is None:
                return game_cls.advance(self, stop_at_round_end=stop_at_round_end)
            if self._core.phase != Phase.ROUND_END:
                game_cls._refuse_advance(self)
            self._core.advance(stop_at_round_end)
            self._legal = None
            self._snapshot = None

        def reseed(self, seed: Any) -> None:
            from .game import check_seed

            if self._core is None:
                return game_cls.reseed(self, seed)
            self._core.reseed(check_seed(seed))
            self._snapshot = None

        def clone(self) -> Game:
            if self._core is None:
                return game_cls.clone(self)
            copy = NativeGame.__new__(NativeGame)
            copy._init_native(self._core.clone(), self._config, self.seed)
            copy._legal = self._legal
            return copy

        def to_dict(self) -> dict[str, Any]:
            from .game import FORMAT_VERSION

            if self._core is None:
                return game_cls.to_dict(self)
            return {"format": FORMAT_VERSION, "seed": self.seed,
                    "state": self._core.to_state_dict()}

        # ---- construction --------------------------------------------------------------
        def _init_native(self, core: Any, config: Any, seed: int | None) -> None:
            game_cls.state.__set__(self, None)
            self._core = core
            self._config = config
            self.seed = seed
            self._legal = None
            self._snapshot = None

    NativeGame.__qualname__ = NativeGame.__name__ = "NativeGame"
    return NativeGame


def _as_index(action: object) -> int:
    from .actions import as_action_index

    return as_action_index(action)


def _names() -> tuple[str, ...]:
    from .actions import ACTION_NAMES

    return ACTION_NAMES


def native_observe(core: Any, seat: int, out: Any) -> None:
    """Write ``seat``'s observation of a native core into ``out`` (``float32[OBS_SIZE]``);
    the layout and scales are the Python encoder's (``zavandor_env.envs.observation``)."""
    core_module().observe(core, seat, out)
