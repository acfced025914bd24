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
* ``game.state`` (the live state, to edit) exists only on the Python backend; on a native game
  it raises a one-line ``NoLiveStateError`` (an ``AttributeError``).  ``game.to_python()``
  converts explicitly: a new Python game holding a copy of the state (the native game is
  left as it is; on a Python game it returns the game itself).  A native game never changes
  backend by itself.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, Final

from .state import GameState

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


def native_observe(core: Any, seat: int, out: Any) -> None:
    """Write ``seat``'s observation of a native core into ``out`` (``float32[OBS_SIZE]``);
    the layout and scales are the Python encoder's (``zavandor_env.envs.observation``)."""
    core_module().observe(core, seat, out)
