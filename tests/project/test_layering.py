"""The layering contract: every module imports only from its own layer or the layers below.

Layers, lowest first (a module may import its own layer and any layer to its left)::

    engine  <-  render  <-  encoding  <-  agents  <-  env  <-  eval  <-  train  <-  cli

========  ===================================================================================
layer     modules
========  ===================================================================================
engine    ``zavandor_env.engine`` (the rules: the C++ core that runs, every ``native/src/*.cpp``
          checked as engine code since ``zavandor_env.engine`` imports its extension
          ``_native``, and the Python rules that are its oracle), ``zavandor_env.io`` (the one
          door: every file, folder and spec from outside), ``zavandor_env.resources``,
          ``zavandor_env._aliases``, ``zavandor_env.extras`` and the package root
          ``zavandor_env/__init__.py`` (see :data:`ALLOWED` for its lazy export)
render    ``zavandor_env.render`` (SVG, text, pixels, the envs' render modes, the human's view)
encoding  ``zavandor_env.encoding`` (the observation layout and encoder: below the bots, since
          the policy bot reads it)
agents    ``zavandor_env.agents`` (the repository's ``agents/``: bots only)
env       ``zavandor_env.envs`` (every environment face: PettingZoo, Gymnasium, the vector env,
          SB3, RLlib, OpenSpiel), ``zavandor_env.zavandor_v0``, and the docs' first names
          ``zavandor_env.sb3`` and ``zavandor_env.openspiel``
eval      ``zavandor_env.eval`` (match, tournament, ladder, scorecard, statistics, journals)
train     ``zavandor_env.train`` (the repository's ``train/``)
cli       ``zavandor_env.cli``, ``zavandor_env.bench``, ``zavandor_env.selfcheck``,
          ``zavandor_env.web`` and ``zavandor_env.codegen`` (it regenerates derived files from
          every layer's definitions)
========  ===================================================================================

What counts as an import: in Python, every ``import`` / ``from ... import`` anywhere in a
module (module level, inside functions, under ``TYPE_CHECKING``), relative ones resolved, and
``importlib.import_module("...")`` / ``__import__("...")`` with a literal name; in C++, every
``py::module_::import("...")`` (a name given by a ``constexpr`` string of the same file is
resolved).  Names outside the project (the standard library, NumPy, ...) are not layered here;
what the engine may load at run time is checked by
:func:`test_importing_and_playing_the_engine_loads_no_rl_library`.  Package code imports the
project only as ``zavandor_env.*``: a bare ``agents`` / ``train`` / ``tests`` import is refused
(it would be a second copy of the module, or a file that is not installed).
"""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LAYERS = ("engine", "render", "encoding", "agents", "env", "eval", "train", "cli")

#: Module (or package: its submodules too) -> layer.  The longest matching name wins; the
#: package root ``zavandor_env`` matches itself only, so a new top-level module must be given
#: a layer here.
LAYER_OF = {
    "zavandor_env": "engine",
    "zavandor_env.engine": "engine",
    "zavandor_env.io": "engine",
    "zavandor_env.resources": "engine",
    "zavandor_env._aliases": "engine",
    "zavandor_env.extras": "engine",
    "zavandor_env.render": "render",
    "zavandor_env.encoding": "encoding",
    "zavandor_env.agents": "agents",
    "zavandor_env.envs": "env",
    "zavandor_env.zavandor_v0": "env",
    "zavandor_env.openspiel": "env",
    "zavandor_env.sb3": "env",
    "zavandor_env.eval": "eval",
    "zavandor_env.train": "train",
    "zavandor_env.cli": "cli",
    "zavandor_env.bench": "cli",
    "zavandor_env.selfcheck": "cli",
    "zavandor_env.web": "cli",
    "zavandor_env.codegen": "cli",
}

#: (importing module, imported module): why this upward import is by design.  Each entry must
#: still be in use (see test_every_allowed_upward_import_is_still_in_use).
ALLOWED = {
    ("zavandor_env", "zavandor_env.zavandor_v0"):
        "the package root's lazy export `from zavandor_env import zavandor_v0` (PettingZoo's "
        "convention), imported only when the attribute is read, never by the engine",
    ("zavandor_env.train.common.publish", "zavandor_env.cli.train"):
        "`python -m zavandor_env.train.common.publish` (the docs' older spelling of `zavandor "
        "publish`), imported only when the module runs as a script",
}

#: Top-level names that are folders of the repository but not installed packages.
NOT_PACKAGES = ("agents", "train", "tests", "configs")

#: The source trees and the package each one installs as.
SOURCE_TREES = (
    ("zavandor_env", ROOT / "zavandor_env"),
    ("zavandor_env.agents", ROOT / "agents"),
    ("zavandor_env.train", ROOT / "train"),
)
NATIVE_SOURCES = ROOT / "native" / "src"


@dataclass(frozen=True)
class Import:
    """One import found in a source file."""

    importer: str  # the importing module's dotted name
    imported: str  # the imported module's dotted name
    path: Path
    line: int


def layer_of(module: str) -> str | None:
    """The layer of a project module (None: not assigned, or not a project module)."""
    if module == "zavandor_env":
        return LAYER_OF["zavandor_env"]
    best = None
    for name in LAYER_OF:
        if name != "zavandor_env" and (module == name or module.startswith(name + ".")):
            if best is None or len(name) > len(best):
                best = name
    return None if best is None else LAYER_OF[best]


def python_modules() -> list[tuple[str, Path]]:
    """(dotted name, path) of every Python module of the package, from the repository's
    source trees (the ``zavandor_env/agents`` and ``zavandor_env/train`` links are skipped:
    their trees are read where they live)."""
    found = []
    for package, tree in SOURCE_TREES:
        for path in sorted(tree.rglob("*.py")):
            parts = path.relative_to(tree).with_suffix("").parts
            if package == "zavandor_env" and parts[0] in ("agents", "train", "configs"):
                continue
            if "checkpoints" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.append((".".join((package, *parts)), path))
    return found


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The absolute name of ``from <level dots><module> import ...`` in ``importer``."""
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


_IMPORT_FUNCTIONS = ("import_module", "__import__")


def python_imports(importer: str, path: Path, source: str | None = None) -> list[Import]:
    """Every import of ``source`` (default: the file's text), as absolute module names, in
    line order."""
    text = path.read_text(encoding="utf-8") if source is None else source
    package = _is_package(path)
    found = []
    for node in ast.walk(ast.parse(text, filename=str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(importer, package, node.level, node.module)
            # `from zavandor_env import engine` imports zavandor_env.engine (a submodule) or a
            # name of zavandor_env: count the submodule where it is one of the project's.
            names = [base]
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if layer_of(sub) is not None and layer_of(sub) != layer_of(base):
                    names.append(sub)
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if (called in _IMPORT_FUNCTIONS and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                name = node.args[0].value
                if name.startswith("."):
                    dots = len(name) - len(name.lstrip("."))
                    name = _resolve(importer, package, dots, name.lstrip(".") or None)
                names = [name]
        found += [Import(importer, name, path, node.lineno) for name in names]
    return sorted(found, key=lambda imp: imp.line)


_CPP_IMPORT = re.compile(r'py::module_?::import\(\s*(?:"([^"]*)"|([A-Za-z_]\w*))\s*\)')
_CPP_CONSTANT = r'constexpr\s+(?:const\s+)?char\s*(?:const\s*)?\*\s*(?:const\s+)?{}\s*=\s*"([^"]*)"'


def cpp_imports(path: Path, source: str | None = None) -> list[Import]:
    """Every ``py::module_::import`` of a C++ file, as module names (the native core is engine
    code: it is imported as ``zavandor_env.engine._native``)."""
    text = path.read_text(encoding="utf-8") if source is None else source
    found = []
    for match in _CPP_IMPORT.finditer(text):
        name = match.group(1)
        if name is None:
            constant = re.search(_CPP_CONSTANT.format(re.escape(match.group(2))), text)
            assert constant, (f"{path}:{text.count(chr(10), 0, match.start()) + 1}: cannot "
                              f"resolve the module name {match.group(2)} (use a literal or a "
                              "constexpr string of the same file)")
            name = constant.group(1)
        line = text.count("\n", 0, match.start()) + 1
        found.append(Import("zavandor_env.engine._native", name, path, line))
    return found


@functools.cache
def all_imports() -> tuple[Import, ...]:
    found: list[Import] = []
    for module, path in python_modules():
        found += python_imports(module, path)
    for path in sorted(NATIVE_SOURCES.glob("*.cpp")) + sorted(NATIVE_SOURCES.glob("*.hpp")):
        found += cpp_imports(path)
    return tuple(found)


def violations(imports: list[Import] | tuple[Import, ...]) -> list[str]:
    """One message per import that breaks the contract (file:line, both modules and layers)."""
    problems = []
    for imp in imports:
        where = f"{imp.path.relative_to(ROOT) if imp.path.is_absolute() else imp.path}:{imp.line}"
        top = imp.imported.split(".")[0]
        if top in NOT_PACKAGES:
            problems.append(f"{where}: {imp.importer} imports {imp.imported!r}, a repository "
                            f"folder, not a package: import zavandor_env.{imp.imported} instead")
            continue
        if top != "zavandor_env":
            continue  # outside the project
        mine, theirs = layer_of(imp.importer), layer_of(imp.imported)
        if theirs is None:
            problems.append(f"{where}: {imp.imported} has no layer (add it to LAYER_OF in "
                            "tests/project/test_layering.py)")
            continue
        assert mine is not None, imp.importer
        if LAYERS.index(theirs) > LAYERS.index(mine) and not _allowed(imp):
            problems.append(f"{where}: {imp.importer} (layer {mine}) imports {imp.imported} "
                            f"(layer {theirs}, above it)")
    return problems


def _allowed(imp: Import) -> bool:
    return any(imp.importer == importer and (imp.imported == imported
                                             or imp.imported.startswith(imported + "."))
               for importer, imported in ALLOWED)


# ---- the contract -----------------------------------------------------------------------------
def test_every_module_has_a_layer() -> None:
    modules = python_modules()
    assert len(modules) > 50  # the trees were found
    unassigned = [str(path.relative_to(ROOT)) for module, path in modules
                  if layer_of(module) is None]
    assert not unassigned, (
        f"give these a layer in LAYER_OF (tests/project/test_layering.py): {unassigned}")


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    imports = all_imports()
    assert any(imp.path.suffix == ".cpp" for imp in imports)  # the C++ imports were read
    problems = violations(imports)
    assert not problems, "upward imports:\n" + "\n".join(problems)


def test_every_allowed_upward_import_is_still_in_use() -> None:
    imports = all_imports()
    for importer, imported in ALLOWED:
        assert any(imp.importer == importer and imp.imported == imported for imp in imports), (
            f"ALLOWED lists {importer} -> {imported}, which no longer happens: remove it")


# ---- the contract can fail ------------------------------------------------------------------
_UPWARD_PYTHON = '''
from __future__ import annotations
import zavandor_env.engine.data
from ..envs import observation
def later():
    from zavandor_env.train import config
    import importlib
    importlib.import_module("zavandor_env.cli")
import agents.base
'''

_UPWARD_CPP = '''
constexpr const char* MODULE = "zavandor_env.engine._native";
constexpr const char* HIGH = "zavandor_env.agents.heuristic";
void f() {
  py::module_::import(MODULE);
  py::module_::import("threading");
  py::object w = py::module_::import(HIGH).attr("resolve_weights");
  py::module_::import("zavandor_env.encoding.observation");
}
'''


def test_the_contract_reports_each_upward_import_with_file_line_and_layers() -> None:
    fake = Path("zavandor_env/engine/fake.py")
    problems = violations(python_imports("zavandor_env.engine.fake", fake, _UPWARD_PYTHON))
    assert problems == [
        "zavandor_env/engine/fake.py:4: zavandor_env.engine.fake (layer engine) imports "
        "zavandor_env.envs (layer env, above it)",
        "zavandor_env/engine/fake.py:6: zavandor_env.engine.fake (layer engine) imports "
        "zavandor_env.train (layer train, above it)",
        "zavandor_env/engine/fake.py:8: zavandor_env.engine.fake (layer engine) imports "
        "zavandor_env.cli (layer cli, above it)",
        "zavandor_env/engine/fake.py:9: zavandor_env.engine.fake imports 'agents.base', a "
        "repository folder, not a package: import zavandor_env.agents.base instead",
    ]
    # The same import is fine one layer up.
    assert violations(python_imports("zavandor_env.cli", Path("zavandor_env/cli.py"),
                                     "from zavandor_env.train import config\n")) == []

    cpp = violations(cpp_imports(Path("native/src/fake.cpp"), _UPWARD_CPP))
    assert cpp == [
        "native/src/fake.cpp:7: zavandor_env.engine._native (layer engine) imports "
        "zavandor_env.agents.heuristic (layer agents, above it)",
        "native/src/fake.cpp:8: zavandor_env.engine._native (layer engine) imports "
        "zavandor_env.encoding.observation (layer encoding, above it)",
    ]


def test_a_module_without_a_layer_is_reported() -> None:
    problems = violations([Import("zavandor_env.cli", "zavandor_env.newthing",
                                  Path("zavandor_env/cli.py"), 3)])
    assert problems == ["zavandor_env/cli.py:3: zavandor_env.newthing has no layer (add it to "
                        "LAYER_OF in tests/project/test_layering.py)"]


# ---- what the engine loads at run time --------------------------------------------------------
RL_LIBRARIES = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "ray")

_PROBE = """
import json, sys
import {module}
{use}
print(json.dumps(sorted({{name.split(".")[0] for name in sys.modules}})))
"""

# Playing a game touches every rules module, including the ones imported lazily.
_PLAY = """
from zavandor_env.engine import Game
game = Game.new(num_players=3, seed=1)
while not game.is_over:
    game.apply(game.legal_actions()[-1])
Game.from_json(game.to_json())
"""


def _top_level_modules_after(module: str, use: str = "") -> set[str]:
    result = subprocess.run([sys.executable, "-c", _PROBE.format(module=module, use=use)],
                            capture_output=True, text=True, check=True, timeout=120, cwd=ROOT)
    return set(json.loads(result.stdout))


@pytest.mark.parametrize("module, use", [("zavandor_env.engine", _PLAY), ("zavandor_env", "")],
                         ids=["engine-and-a-game", "package-root"])
def test_importing_and_playing_the_engine_loads_no_rl_library(module: str, use: str) -> None:
    """The engine serves search agents, scripts and other frameworks that should not pay for
    (or depend on) an RL library; a fresh interpreter, since this one has loaded them."""
    loaded = _top_level_modules_after(module, use)
    assert "zavandor_env" in loaded  # the probe did import the package
    assert not loaded & set(RL_LIBRARIES), sorted(loaded & set(RL_LIBRARIES))


def test_the_run_time_probe_sees_an_rl_library() -> None:
    assert "gymnasium" in _top_level_modules_after("gymnasium")


# ---- one copy of each module ------------------------------------------------------------------
_SAME_MODULES = """
import agents.base, zavandor_env.agents.base
import train.config, zavandor_env.train.config
from agents import RandomAgent
assert agents.base is zavandor_env.agents.base
assert agents.base.RandomAgent is zavandor_env.agents.base.RandomAgent is RandomAgent
assert train.config.TrainConfig is zavandor_env.train.config.TrainConfig
assert agents.base.__spec__.name == "zavandor_env.agents.base"
print("one copy")
"""


def test_importing_agents_by_its_folder_name_gives_the_installed_modules() -> None:
    """From the repository root ``agents`` and ``train`` are importable by their folder names;
    they must be the very modules of ``zavandor_env.agents`` / ``zavandor_env.train``, not a
    second copy whose classes compare unequal."""
    result = subprocess.run([sys.executable, "-c", _SAME_MODULES], cwd=ROOT, timeout=120,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "one copy"
