"""Every module, file and API reference the documentation shows names something in the tree.

When a module moves, the pages that name it must move with it: a dotted name
(``zavandor_env.eval.tournament``, ``python -m zavandor_env.train.ppo.export``, a ``:::``
reference of the API page) must be a module of the package or a name defined at the top of
one, and a source path in backticks (```zavandor_env/io/saved_games.py```, ```agents/```,
```native/src/observe.cpp```) must exist.  Read statically: no module is imported, so pages that
name optional libraries' faces are checked without those libraries.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "configs" / "README.md",
         *sorted((ROOT / "docs").rglob("*.md"))]

DOTTED = re.compile(r"(?<![\w./-])zavandor_env(?:\.\w+)+")
#: A path of the source tree in backticks: a room's folder or a source file in one.
ROOMS = ("zavandor_env", "agents", "train", "native/src", "tests", "configs", "engine", "envs",
         "encoding", "io", "render", "eval", "bench", "cli", "codegen", "web")
SOURCE_PATH = re.compile("`((?:" + "|".join(ROOMS) + r")/[\w./-]*)`")
SUFFIXES = (".py", ".cpp", ".hpp", ".yaml", ".md", ".js", ".json", ".npz", "/")
#: Folders a short path (``engine/game.py``) is read from, in this order.
SHORT_BASES = ("", "zavandor_env/", "native/src/")


def _module_file(dotted: str) -> Path | None:
    """The source file of a module of the package (``agents``/``train``/``configs`` read where
    they live), or None."""
    parts = dotted.split(".")
    base, rest = ROOT / "zavandor_env", parts[1:]
    if rest and rest[0] in ("agents", "train"):
        base, rest = ROOT / rest[0], rest[1:]
    path = base.joinpath(*rest)
    if path.is_dir() and not (path / "__init__.py").is_file() and rest:
        return path  # a data folder installed with the package (configs)
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


@functools.cache
def _top_level_names(path: Path) -> frozenset[str]:
    """Names a module defines or imports at its top (under ``if`` too), and the string literals
    of the module (a lazy ``__getattr__`` export is a name in a table)."""
    text = path.read_text(encoding="utf-8")
    found: set[str] = set(re.findall(r"[\"'](\w+)[\"']", text))
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(found)


def _extension_modules() -> set[str]:
    return set(re.findall(r"\"(zavandor_env[\w.]+)\"", (ROOT / "setup.py").read_text()))


def resolves(dotted: str) -> bool:
    """A module of the package, or a name defined at the top of one."""
    if dotted in _extension_modules():
        return True
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        path = _module_file(".".join(parts[:end]))
        if path is not None:
            return end == len(parts) or (path.is_file() and parts[end] in _top_level_names(path))
    return False


def path_exists(text: str) -> bool:
    return any((ROOT / base / text).exists() for base in SHORT_BASES)


def references(page: Path) -> list[tuple[int, str, str]]:
    """(line, kind, text) of every dotted name and source path on ``page``."""
    found = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        for name in DOTTED.findall(line):
            found.append((number, "module", name.rstrip(".")))
        for path in SOURCE_PATH.findall(line):
            if path.endswith(SUFFIXES) and "<" not in path and "*" not in path:
                found.append((number, "path", path))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_and_source_path_a_page_names_exists(page: Path) -> None:
    broken = [f"{page.relative_to(ROOT)}:{number}: {text}"
              for number, kind, text in references(page)
              if not (resolves(text) if kind == "module" else path_exists(text))]
    assert not broken, "names of modules or files that are not in the tree:\n" + "\n".join(broken)


def test_the_reader_finds_moved_modules_and_missing_files(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("`zavandor_env.eval.tournament` and `zavandor_env.agents.tournament`;\n"
                    "::: zavandor_env.engine.game.Game\n"
                    "`zavandor_env/io/saved_games.py`, `engine/validation.py`, `agents/`\n"
                    "python -m zavandor_env.codegen --check; `train/loss` is a tag\n")
    checked = {text: (resolves(text) if kind == "module" else path_exists(text))
               for _, kind, text in references(page)}
    assert checked == {"zavandor_env.eval.tournament": True,
                       "zavandor_env.agents.tournament": False,
                       "zavandor_env.engine.game.Game": True,
                       "zavandor_env/io/saved_games.py": True,
                       "engine/validation.py": False, "agents/": True,
                       "zavandor_env.codegen": True}
