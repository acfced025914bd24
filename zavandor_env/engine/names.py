"""The one table of item names, shared by the action names and the scenario notation.

An artifact or sentinel is spelled the same everywhere: ``open_magic_mirror`` is the action
that opens an auction on ``magic_mirror``, and ``magic_mirror`` is what a scenario's
``display`` or ``artifacts`` takes.  The scenario's lookups
(:func:`~zavandor_env.engine.scenario.artifact_index`, ``sentinel_index``) also accept the
whole action name (``"open_magic_mirror"``), so a name can be copied from
:func:`~zavandor_env.engine.actions.action_to_string`, and for artifacts a few short aliases
(``"mirror"``).
"""

from __future__ import annotations

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
