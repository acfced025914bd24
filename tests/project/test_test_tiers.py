"""The test suite's own contracts: which modules run on the core and the oracle, and the tiers.

A rules test module runs on the C++ core and on the oracle (the Python rules) because it
carries the ``core_and_oracle`` marker (tests/conftest.py), not because its file name is
listed somewhere: these tests fail when a rules module lacks the marker, so a new or renamed
one cannot quietly stop running on either.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from zavandor_env.engine import Game
from zavandor_env.engine.oracle import OracleGame

TESTS = Path(__file__).resolve().parents[1]
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


RULES_MODULES = sorted(TESTS.rglob("test_rules_*.py"))


def test_there_are_rules_modules() -> None:
    assert len(RULES_MODULES) >= 4, RULES_MODULES


@pytest.mark.parametrize("path", RULES_MODULES, ids=lambda p: p.name)
def test_every_rules_module_runs_on_the_core_and_the_oracle(path: Path) -> None:
    assert "core_and_oracle" in _module_marks(path), (
        f"{path.name} needs `pytestmark = pytest.mark.core_and_oracle` (tests/conftest.py)")


def test_the_marker_reader_sees_a_list_of_marks(tmp_path: Path) -> None:
    module = tmp_path / "test_rules_x.py"
    module.write_text(
        "import pytest\npytestmark = [pytest.mark.slow, pytest.mark.core_and_oracle]\n")
    assert _module_marks(module) == {"slow", "core_and_oracle"}
    module.write_text("import pytest\n\ndef test_x():\n    pass\n")
    assert _module_marks(module) == set()


@pytest.mark.core_and_oracle
class TestAMarkedClass:
    def test_runs_on_the_core_and_the_oracle(self, rules_on: str) -> None:
        # Without the marker rules_on has no parameter and this test errors.
        assert rules_on in ("core", "oracle")
        game = Game.new(num_players=2, seed=1)
        assert isinstance(game, OracleGame) == (rules_on == "oracle")
        assert isinstance(Game.from_dict(game.to_dict()), OracleGame) == (rules_on == "oracle")


def test_the_default_run_is_the_fast_tier(pytestconfig: pytest.Config) -> None:
    """README's command has no -m: pyproject's addopts deselect the slow tier, and a later
    ``-m slow`` on the command line selects it instead (.ci/run runs both tiers)."""
    addopts = pytestconfig.getini("addopts")
    assert addopts[addopts.index("-m") + 1] == "not slow", addopts
    markers = pytestconfig.getini("markers")
    assert any(m.startswith("slow:") for m in markers)
    assert any(m.startswith("core_and_oracle:") for m in markers)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    fast, slow = ci.find("python -m pytest -n 2 -q\n"), ci.find("python -m pytest -n 2 -q -m slow")
    assert 0 <= fast < slow, "CI runs the fast tier, then the slow tier"


@pytest.mark.core_and_oracle
def test_a_marked_test_runs_on_its_rules_without_asking_for_it(
        request: pytest.FixtureRequest) -> None:
    on_oracle = request.node.callspec.params["rules_on"] == "oracle"
    assert isinstance(Game.new(num_players=2, seed=1), OracleGame) == on_oracle
