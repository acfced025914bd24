"""One copy of each module when the repository's ``agents/`` or ``train/`` is imported by its
folder name.

The repository keeps ``agents/`` and ``train/`` at its top; they install (and import) as
``zavandor_env.agents`` and ``zavandor_env.train``.  From the repository root, ``import
agents.base`` would otherwise load a second copy of every module, with classes unequal to the
installed ones (``agents.base.RandomAgent is zavandor_env.agents.base.RandomAgent`` false).
:func:`alias_package` makes the folder name an alias instead: ``agents`` and every
``agents.X`` are the very module objects ``zavandor_env.agents`` and ``zavandor_env.agents.X``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``alias.X`` and loads it as the module ``target.X`` (imported once, under its
    real name)."""

    def __init__(self, alias: str, target: str) -> None:
        self.alias = alias
        self.target = target
        self._real_specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(self, name: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if not name.startswith(self.alias + "."):
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        real = importlib.import_module(self.target + spec.name[len(self.alias):])
        # The import system stamps the alias's spec on the module it is given: keep the real
        # one (pickle, reload and tools read it).
        self._real_specs[spec.name] = real.__spec__
        return real

    def exec_module(self, module: ModuleType) -> None:
        alias_spec = module.__spec__
        if alias_spec is not None and alias_spec.name in self._real_specs:
            module.__spec__ = self._real_specs.pop(alias_spec.name)


def alias_package(alias: str, target: str) -> None:
    """Make the top-level name ``alias`` (being imported now) and its submodules the modules of
    the package ``target``.  Called from the package's ``__init__`` when it runs as ``alias``."""
    sys.modules[alias] = importlib.import_module(target)
    if not any(isinstance(f, _AliasFinder) and f.alias == alias for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder(alias, target))
