"""The C++ core (``native/src``), built into ``zavandor_env.engine._native`` when the package is
installed (a C++17 compiler is required).

The core is a port of this package's Python rules, the oracle (:mod:`.oracle`): the same
action indices, the same state fields, the same random draws (a bit-exact copy of CPython's
``random.Random``), so ``(config, seed, actions)`` gives the identical game on either and a
saved game loads in both.  :class:`~.game.Game` plays on it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path
from typing import Any

from zavandor_env.engine.state import GameState

_IMPORT_ERROR: str | None = None


def source_tree_shadowing(package_dir: Path, installed_dir: Path | None) -> str | None:
    """Why a missing core is a shadowing, or None: ``package_dir`` (the ``zavandor_env``
    Python imported) lies in a source checkout (beside ``pyproject.toml`` and
    ``native/src``) while the installed copy, ``installed_dir``, has its core built.  That is
    ``pip install .`` followed by Python run inside the clone: the current folder comes first
    on ``sys.path``."""
    checkout = package_dir.parent
    if installed_dir is None or installed_dir.resolve() == package_dir.resolve():
        return None
    if not ((checkout / "pyproject.toml").is_file() and (checkout / "native" / "src").is_dir()):
        return None
    if not any((installed_dir / "engine").glob("_native*")):
        return None
    return (f"Python imported the source tree {package_dir} (the current folder shadows the "
            f"installed package in {installed_dir.parent}), and the source tree's core is not "
            "built; run Python from another folder, or install in place: pip install -e .")


def _installed_dir() -> Path | None:
    """The installed distribution's ``zavandor_env`` folder (None: not installed)."""
    try:
        located = importlib.metadata.distribution("zavandor-env").locate_file("zavandor_env")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(located))  # an editable install may answer a bare relative name
    return path if path.is_absolute() and path.is_dir() else None


try:  # a broken install still imports the package; playing a game then says why it cannot
    from zavandor_env.engine import _native  # type: ignore[attr-defined]
except ImportError as exc:  # pragma: no cover - depends on how the package was installed
    _native = None
    if importlib.util.find_spec(f"{__package__}._native") is None:
        _IMPORT_ERROR = (source_tree_shadowing(Path(__file__).resolve().parents[1],
                                               _installed_dir())
                         or "it was not built when the package was installed")
    else:  # built but broken (e.g. for another Python): say exactly why
        _IMPORT_ERROR = f"it does not load: {exc}"


def native_available() -> bool:
    """Whether the C++ core was built and imports (see :func:`native_status` for why not)."""
    return _native is not None


def native_status() -> str:
    """One line: the native core is available, or why it is not."""
    if _native is not None:
        return "native core available (zavandor_env.engine._native)"
    if _IMPORT_ERROR and _IMPORT_ERROR.startswith("Python imported the source tree"):
        return f"native core unavailable: {_IMPORT_ERROR}"
    return (f"native core unavailable: {_IMPORT_ERROR}; reinstall the package with a C++17 "
            "compiler (g++ or clang, Xcode command line tools, MSVC build tools)")


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
    the layout and scales are the Python encoder's (``zavandor_env.encoding.observation``)."""
    core_module().observe(core, seat, out)
