"""docs/security.md names, for every boundary, the tests that hold it: each must exist.

A row that cites a test file, or a test in it (``tests/test_x.py::test_name``, or a
``test_prefix_*`` pattern), is checked here, so the page cannot promise a check that was
renamed or removed.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "security.md"
CITED = re.compile(r"`(tests/[\w/]+\.py)(?:::([\w*\[\]-]+))?`")


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def cited_tests(text: str) -> list[tuple[str, str | None]]:
    """The (file, test or pattern) pairs a page cites."""
    return [(m.group(1), m.group(2)) for m in CITED.finditer(text)]


def missing(text: str) -> list[str]:
    """Every citation of ``text`` that names no existing file or test."""
    problems = []
    for file, name in cited_tests(text):
        path = ROOT / file
        if not path.is_file():
            problems.append(file)
            continue
        if name is None:
            continue
        names = _test_names(path)
        if not fnmatch.filter(names, name.split("[")[0]):
            problems.append(f"{file}::{name}")
    return problems


def test_every_test_the_security_page_cites_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert len(cited_tests(text)) >= 20  # the page is read, not skipped
    assert missing(text) == []


def test_a_citation_of_a_renamed_test_is_caught() -> None:
    assert missing("`tests/project/test_security_doc.py::test_no_such_test`") == [
        "tests/project/test_security_doc.py::test_no_such_test"]
    assert missing("`tests/test_no_such_file.py`") == ["tests/test_no_such_file.py"]
    assert missing("`tests/project/test_security_doc.py::test_every_*`") == []


def test_every_boundary_module_of_the_one_door_is_on_the_page() -> None:
    text = PAGE.read_text(encoding="utf-8")
    modules = sorted(p.name for p in (ROOT / "zavandor_env" / "io").glob("*.py")
                     if p.name != "__init__.py")
    assert [m for m in modules if f"io/{m}" not in text] == []
