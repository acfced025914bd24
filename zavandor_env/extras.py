"""The optional extras: which libraries each one brings, and one line when one is missing.

The core install (``pip install zavandor-env``) is the rules engine and the environments.
Everything else is an extra chosen by what the user does (``pyproject.toml`` declares them):
``train`` (self-play training: torch, Stable-Baselines3, sb3-contrib, TensorBoard, OpenSkill),
``render`` (pictures of the table as arrays), ``eval`` (the charts of ``zavandor eval``,
``scorecard`` and ``ladder``), ``ray``, ``openspiel``; ``rl`` is all of train, render and eval.

Code that needs an extra calls :func:`require` before the work starts, so a user without it
reads one line naming the ``pip install`` that brings it, instead of a traceback halfway
through.  Nothing here imports the optional libraries: :func:`missing` only looks them up.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from typing import Final

__all__ = ["EXTRAS", "MissingExtraError", "install_command", "missing", "require"]

#: extra -> (import name, distribution name) of each library it brings that the package
#: imports.  The distributions are those of the extra in ``pyproject.toml`` (a test holds the
#: two together); the import names are what :func:`missing` looks for.
EXTRAS: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "train": (("torch", "torch"), ("stable_baselines3", "stable-baselines3"),
              ("sb3_contrib", "sb3-contrib"), ("tensorboard", "tensorboard"),
              ("openskill", "openskill")),
    "render": (("PIL", "pillow"),),
    "eval": (("matplotlib", "matplotlib"), ("openskill", "openskill")),
    "ray": (("ray", "ray"),),
    "openspiel": (("pyspiel", "open_spiel"),),
}


class MissingExtraError(ImportError, ValueError):
    """An optional library is not installed; the message is one line naming the extra and the
    ``pip install`` that brings it.

    An :class:`ImportError` (it is one) and a :class:`ValueError` (the project's kind of user
    error, which the command line prints as one line)."""


def install_command(extra: str) -> str:
    """The command that installs ``extra``, for a release and for a source checkout."""
    return f'pip install "zavandor-env[{extra}]" (in a checkout: pip install -e ".[{extra}]")'


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent that is missing, or a module set to None
        return False


def missing(extra: str, only: Iterable[str] | None = None) -> list[str]:
    """The import names of ``extra``'s libraries (or of those of them named in ``only``) that
    cannot be imported here; none of them is imported, they are only looked up."""
    if extra not in EXTRAS:
        raise KeyError(f"unknown extra {extra!r}; extras: {', '.join(sorted(EXTRAS))}")
    names = [name for name, _ in EXTRAS[extra]]
    if only is not None:
        wanted = set(only)
        unknown = wanted.difference(names)
        if unknown:
            raise KeyError(f"the [{extra}] extra brings no {', '.join(sorted(unknown))}")
        names = [name for name in names if name in wanted]
    return [name for name in names if not _importable(name)]


def require(extra: str, what: str, only: Iterable[str] | None = None) -> None:
    """Raise :class:`MissingExtraError` if a library of ``extra`` is missing.

    Args:
        extra: a key of :data:`EXTRAS`.
        what: the feature that needs it, as the message's subject (``"training"``,
            ``'render_mode="rgb_array"'``).
        only: the import names the feature needs, when it needs only some of the extra's
            (default: all of them).
    """
    absent = missing(extra, only)
    if absent:
        raise MissingExtraError(
            f"{what} needs the [{extra}] extra (missing: {', '.join(absent)}): "
            f"{install_command(extra)}",
            name=absent[0],
        )
