"""The one table of item names, shared by the action names and the scenario notation.

An artifact or sentinel is spelled the same everywhere: ``open_magic_mirror`` is the action
that opens an auction on ``magic_mirror``, and ``magic_mirror`` is what a scenario's
``display`` or ``artifacts`` takes.  :func:`artifact_index` and :func:`sentinel_index` also
accept the whole action name (``"open_magic_mirror"``), so a name can be copied from
:func:`~zavandor_env.engine.actions.action_to_string`, and for artifacts a few short aliases
(``"mirror"``).
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Final

from zavandor_env.engine.data import ARTIFACTS, SENTINELS

#: Artifact names by ``data.Art`` index (the suffixes of the ``open_<artifact>`` actions).
ARTIFACT_NAMES: Final = tuple(a.name for a in ARTIFACTS)
#: Sentinel names by ``data.Sen`` index (the suffixes of the ``open_<sentinel>`` actions).
SENTINEL_NAMES: Final = tuple(s.name for s in SENTINELS)
#: Short spellings accepted for the longer artifact names.
ARTIFACT_ALIASES: Final = {
    "belt": "magic_belt",
    "mirror": "magic_mirror",
    "protection": "crystal_of_protection",
    "mask": "mask_of_charisma",
    "wand": "magic_wand",
    "chalice": "chalice_of_fire",
    "cloak": "shadow_cloak",
}
OPEN_PREFIX: Final = "open_"


class UnknownNameError(ValueError):
    """A name is not an artifact or sentinel; the message lists the known ones."""


def artifact_index(name: str) -> int:
    """``data.Art`` index of ``"magic_mirror"``, ``"open_magic_mirror"`` or ``"mirror"``."""
    return _lookup(name, ARTIFACT_NAMES, ARTIFACT_ALIASES, "artifact")


def sentinel_index(name: str) -> int:
    """``data.Sen`` index of ``"phoenix"`` or ``"open_phoenix"``."""
    return _lookup(name, SENTINEL_NAMES, {}, "sentinel")


def _lookup(name: str, names: tuple[str, ...], aliases: dict[str, str], what: str) -> int:
    if not isinstance(name, str):
        raise UnknownNameError(f"{what} name must be a string, got {name!r}")
    bare = name.removeprefix(OPEN_PREFIX)
    bare = aliases.get(bare, bare)
    if bare in names:
        return names.index(bare)
    close = get_close_matches(bare, list(names) + list(aliases), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = " ".join(names) + (f"; aliases {' '.join(aliases)}" if aliases else "")
    raise UnknownNameError(f"unknown {what} {name!r}{hint}; known: {shown}")
