"""The test suite's own contracts: which modules run on both engine backends, and the two tiers.

A rules test module runs on the native and the Python engine because it carries the
``both_backends`` marker (tests/conftest.py), not because its file name is listed somewhere:
these tests fail when a rules module lacks the marker, so a new or renamed one cannot quietly
stop running on the native backend.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _module_marks(path: Path) -> set[str]:
    """The marker names of a module-level ``pytestmark = ...`` (one mark or a list)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        if not any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
            continue
        assert node.value is not None
        for sub in ast.walk(node.value):
            if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute)
                    and sub.value.attr == "mark"):
                names.add(sub.attr)
    return names


RULES_MODULES = sorted(TESTS.glob("test_rules_*.py"))


def test_there_are_rules_modules() -> None:
    assert len(RULES_MODULES) >= 4, RULES_MODULES


@pytest.mark.parametrize("path", RULES_MODULES, ids=lambda p: p.name)
def test_every_rules_module_runs_on_both_backends(path: Path) -> None:
    assert "both_backends" in _module_marks(path), (
        f"{path.name} needs `pytestmark = pytest.mark.both_backends` (tests/conftest.py)")


def test_the_marker_reader_sees_a_list_of_marks(tmp_path: Path) -> None:
    module = tmp_path / "test_rules_x.py"
    module.write_text("import pytest\npytestmark = [pytest.mark.slow, pytest.mark.both_backends]\n")
    assert _module_marks(module) == {"slow", "both_backends"}
    module.write_text("import pytest\n\ndef test_x():\n    pass\n")
    assert _module_marks(module) == set()


@pytest.mark.both_backends
class TestAMarkedClass:
    def test_runs_with_the_backend_as_the_default(self, engine_backend: str) -> None:
        # Without the marker engine_backend has no parameter and this test errors.
        assert engine_backend in ("native", "python")
        assert os.environ["ZAVANDOR_BACKEND"] == engine_backend


def test_the_default_run_is_the_fast_tier(pytestconfig: pytest.Config) -> None:
    """README's command has no -m: pyproject's addopts deselect the slow tier, and a later
    ``-m slow`` on the command line selects it instead (.ci/run runs both tiers)."""
    addopts = pytestconfig.getini("addopts")
    assert addopts[addopts.index("-m") + 1] == "not slow", addopts
    markers = pytestconfig.getini("markers")
    assert any(m.startswith("slow:") for m in markers)
    assert any(m.startswith("both_backends:") for m in markers)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    fast, slow = ci.find("python -m pytest -n 2 -q\n"), ci.find("python -m pytest -n 2 -q -m slow")
    assert 0 <= fast < slow, "CI runs the fast tier, then the slow tier"


@pytest.mark.both_backends
def test_a_marked_test_runs_on_its_backend_without_asking_for_it(
        request: pytest.FixtureRequest) -> None:
    assert os.environ["ZAVANDOR_BACKEND"] == request.node.callspec.params["engine_backend"]
