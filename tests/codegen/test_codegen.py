"""The generated cross-language constants (``python -m zavandor_env.codegen``).

``native/src/generated/constants.hpp`` holds every constant the C++ core shares with Python,
written from the Python definitions.  These tests check that the committed header is what the
generator writes now, that the built extension was compiled from it, that a change on the
Python side (a rule table, a new rule option) reaches the header, and (slow tier) the whole
rule-change drill: change a table, regenerate, rebuild, and both engines agree.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import zavandor_env.codegen as codegen
from zavandor_env.codegen import header
from zavandor_env.engine import GameConfig, native_available

ROOT = Path(__file__).resolve().parents[2]
needs_native = pytest.mark.skipif(not native_available(), reason="native core not built")


def recorded_hash(text: str) -> str | None:
    """The hash a header's text records of itself (``CONSTANTS_HASH``), or None."""
    found = re.search(r'CONSTANTS_HASH\[\] = "([0-9a-f]+)";', text)
    return found.group(1) if found else None


def test_the_committed_header_is_what_the_generator_writes() -> None:
    stale = codegen.run(["header"], check=True)
    assert stale == [], f"{stale} stale: run `python -m zavandor_env.codegen` and rebuild"


def test_the_header_is_the_same_text_on_every_run() -> None:
    assert header.render() == header.render()


@needs_native
def test_the_native_core_was_built_from_the_current_header() -> None:
    from zavandor_env.engine import _native  # type: ignore[attr-defined]

    assert _native.CONSTANTS_HASH == recorded_hash(header.render()), (
        f"the native core was built from another constants header: rebuild it ({header.REBUILD})")


def test_the_recorded_hash_is_the_hash_of_the_text_above_it() -> None:
    text = header.render()
    body = text[: text.index("// The hash of the text above")]
    assert recorded_hash(text) == header.content_hash(body)
    assert recorded_hash("no hash here") is None


def _fake_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    path = tmp_path / header.HEADER_PATH
    path.parent.mkdir(parents=True)
    path.write_text(text)
    for part in ("tests/golden/regenerate.py", "configs/README.md"):
        (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / part).write_text("")
    monkeypatch.setattr(codegen, "ROOT", tmp_path)
    return path


def test_check_lists_a_stale_header_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = _fake_checkout(tmp_path, monkeypatch, "// an old header\n")
    assert codegen.main(["--check", "--only", "header"]) == 1
    assert capsys.readouterr().out == f"stale: {header.HEADER_PATH}\n"
    assert path.read_text() == "// an old header\n"
    assert codegen.main(["--only", "header"]) == 0
    assert "rebuild the native core" in capsys.readouterr().out
    assert path.read_text() == header.render()
    assert codegen.main(["--check", "--only", "header"]) == 0
    assert capsys.readouterr().out == ""


def test_outside_a_checkout_nothing_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(codegen, "ROOT", tmp_path)
    assert codegen.main(["--only", "header"]) == 2
    assert "is not a source checkout (no native/src)" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_an_unknown_artifact_name_is_a_one_line_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert codegen.main(["--check", "--only", "headers"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown artifact(s) ['headers']" in err


def test_a_rule_table_change_reaches_the_header(monkeypatch: pytest.MonkeyPatch) -> None:
    from zavandor_env.engine import data

    costs = list(data.LEVEL_COSTS)
    costs[data.Field.FIRE] = (6, 10, 15, 20)
    monkeypatch.setattr(data, "LEVEL_COSTS", tuple(costs))
    text = header.render()
    assert "LEVEL_COSTS[6][4] = {{2, 4, 8, 16}, {3, 6, 12, 24}, {6, 10, 15, 20}," in text
    assert recorded_hash(text) != recorded_hash(
        (ROOT / header.HEADER_PATH).read_text())


def _config_with(monkeypatch: pytest.MonkeyPatch, name: str, kind: type, default: object) -> None:
    from zavandor_env.engine import config

    extended = dataclasses.make_dataclass(
        "GameConfig", [(name, kind, dataclasses.field(default=default))], bases=(GameConfig,),
        frozen=True)
    monkeypatch.setattr(config, "GameConfig", extended)


def test_a_new_boolean_rule_option_is_one_dataclass_field(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _config_with(monkeypatch, "gentle_auctions", bool, False)
    text = header.render()
    assert "  X(no_undo_activation, true) \\\n  X(gentle_auctions, false) \\\n" in text
    assert '"no_undo_activation", "gentle_auctions"};' in text  # CONFIG_KEYS


def test_an_option_type_the_native_core_cannot_take_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _config_with(monkeypatch, "board", str, "classic")
    with pytest.raises(header.CodegenError, match=r"GameConfig\.board: the native core takes"):
        header.render()


def test_an_int_option_without_bounds_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # The native core's bounds are the config's own Field(ge=..., le=...): none, no header.
    _config_with(monkeypatch, "max_turns", int, 5)
    with pytest.raises(header.CodegenError, match=r"GameConfig\.max_turns: .*bounded by ge"):
        header.render()


def test_a_new_mcts_parameter_must_be_placed(monkeypatch: pytest.MonkeyPatch) -> None:
    from zavandor_env.agents import mcts

    class Agent(mcts.MCTSAgent):
        def __init__(self, seed: int | None = None, temperature: float = 1.0) -> None:
            super().__init__(seed)

    monkeypatch.setattr(mcts, "MCTSAgent", Agent)
    with pytest.raises(header.CodegenError, match=r"MCTSAgent parameter\(s\) \['temperature'\]"):
        header.render()


@needs_native
def test_the_native_config_refuses_an_option_it_was_not_built_with() -> None:
    from zavandor_env.engine import _native  # type: ignore[attr-defined]

    config = {**GameConfig().to_dict(), "gentle_auctions": True}
    with pytest.raises(ValueError, match="'gentle_auctions' is unknown to the native core"):
        _native.Core(config, 0)
    assert _native.Core(GameConfig().to_dict(), 0).to_state_dict()["config"] == (
        GameConfig().to_dict())


@needs_native
def test_the_native_defaults_and_field_lists_are_the_python_ones() -> None:
    from zavandor_env.agents.heuristic import HeuristicWeights, resolve_weights
    from zavandor_env.agents.mcts import MCTSAgent
    from zavandor_env.engine import Game, _native  # type: ignore[attr-defined]

    assert _native.HeuristicWeights.FIELDS == tuple(
        f.name for f in dataclasses.fields(HeuristicWeights))
    # The native search's default policy is MCTSAgent's (the planner, which needs its
    # parameters), not the heuristic it once defaulted to.
    assert MCTSAgent().policy == "planner"
    game = Game.new(GameConfig(), seed=1)
    core = _native.Core.from_state_dict(game.state.to_dict())
    weights = _native.HeuristicWeights(resolve_weights(None).to_dict())
    with pytest.raises(ValueError, match="the planner needs 'planner'"):
        _native.mcts_search(core, game.current_player, list(game.legal_actions()), {},
                            weights, 0)


# ---- the rule-change drill (slow tier: builds the native core) ------------------------------
_IGNORED = shutil.ignore_patterns(".git", "build", "*.so", "__pycache__", ".venv", "*.egg-info",
                                  ".pytest_cache", ".mypy_cache", ".ruff_cache", "runs")


@pytest.mark.slow
@needs_native
def test_the_rule_change_drill(tmp_path: Path) -> None:
    """Change a knowledge level price in data.py, regenerate, rebuild: both engines agree, and
    no hand edit of native/src was needed (only the generated header changed)."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, ignore=_IGNORED, symlinks=True)
    data_py = tree / "zavandor_env" / "engine" / "data.py"
    text = data_py.read_text()
    old = "    (5, 10, 15, 20),  # fire\n"
    assert old in text
    data_py.write_text(text.replace(old, "    (6, 10, 15, 20),  # fire\n"))
    before = {p: p.read_bytes() for p in (tree / "native" / "src").rglob("*") if p.is_file()}

    env = {**os.environ, "NPY_NUM_BUILD_JOBS": "2", "PYTHONPATH": str(tree)}

    def run(*args: str, timeout: int) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, *args], cwd=tree, env=env, text=True,
                              capture_output=True, timeout=timeout, check=False)
        assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        return done

    run("-m", "zavandor_env.codegen", "--only", "header", timeout=300)
    changed = sorted(p.relative_to(tree).as_posix() for p in before
                     if p.read_bytes() != before[p])
    assert changed == [header.HEADER_PATH]
    assert "{6, 10, 15, 20}" in (tree / header.HEADER_PATH).read_text()
    run("setup.py", "build_ext", "--inplace", timeout=3600)
    probe = run("-c", "from zavandor_env.engine import _native, data; "
                "print(_native.__file__, data.LEVEL_COSTS[2])", timeout=120)
    assert str(tree) in probe.stdout and "(6, 10, 15, 20)" in probe.stdout
    run("-m", "zavandor_env.codegen", "--check", "--only", "header", timeout=300)
    check = run("-m", "zavandor_env.cli", "selfcheck", "--games", "4", "--quiet", timeout=1800)
    assert "core and oracle identical" in check.stdout


def test_selfcheck_flips_every_rule_option_even_an_unlisted_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from zavandor_env import selfcheck

    flipped = {name for variant in selfcheck.VARIANTS for name in variant}
    options = {f.name for f in dataclasses.fields(GameConfig) if isinstance(f.default, bool)}
    assert options <= flipped
    extended = dataclasses.make_dataclass(
        "GameConfig", [("gentle_auctions", bool, dataclasses.field(default=False))],
        bases=(GameConfig,), frozen=True)
    monkeypatch.setattr(selfcheck, "GameConfig", extended)
    assert selfcheck._every_option_flipped(({},))[-1] == {"gentle_auctions": True}
