"""Extras by what a user does: the table of ``zavandor_env.extras`` agrees with pyproject.toml,
and a feature whose extra is missing says so in one line naming the ``pip install``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from zavandor_env.extras import EXTRAS, MissingExtraError, missing, require

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, from the dev extra
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
OPTIONAL = PROJECT["optional-dependencies"]


def _names(requirements: list[str]) -> set[str]:
    """Distribution names of requirement strings, normalised (``ray[rllib]>=2`` -> ``ray``)."""
    return {re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0].lower().replace("_", "-")
            for r in requirements}


def _self_extras(requirements: list[str]) -> set[str]:
    """The extras of this package that a requirement list includes (``zavandor-env[a,b]``)."""
    found: set[str] = set()
    for r in requirements:
        match = re.fullmatch(r"zavandor-env\[([\w,]+)\]", r)
        if match:
            found.update(match.group(1).split(","))
    return found


def test_every_library_of_the_extras_table_is_in_that_extra_of_pyproject() -> None:
    for extra, libraries in EXTRAS.items():
        declared = _names(OPTIONAL[extra])
        for _, distribution in libraries:
            assert distribution.lower().replace("_", "-") in declared, (extra, distribution)


def test_rl_is_the_full_set_of_train_eval_and_render() -> None:
    assert _self_extras(OPTIONAL["rl"]) == {"train", "eval", "render"}


def test_the_core_install_has_the_environments_and_no_training_or_pictures() -> None:
    core = _names(PROJECT["dependencies"])
    assert {"numpy", "gymnasium", "pettingzoo"} <= core
    heavy = {dist for extra in ("train", "render", "eval", "ray", "openspiel")
             for _, dist in EXTRAS[extra]}
    assert not core & {d.lower().replace("_", "-") for d in heavy}


def test_dependencies_are_ranges_not_exact_pins() -> None:
    for requirement in PROJECT["dependencies"] + [r for rs in OPTIONAL.values() for r in rs]:
        version = requirement.split(";")[0]  # an environment marker may compare with ==
        assert "==" not in version, requirement


def test_a_missing_library_is_one_line_naming_the_extra_and_its_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if it were not installed
    assert missing("render") == ["PIL"]
    with pytest.raises(MissingExtraError) as info:
        require("render", "drawing")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("drawing needs the [render] extra (missing: PIL)")
    assert 'pip install "zavandor-env[render]"' in message
    # Both kinds: an ImportError, and the project's one-line user error (a ValueError).
    assert isinstance(info.value, ImportError) and isinstance(info.value, ValueError)


def test_only_checks_the_libraries_a_feature_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openskill", None)
    require("eval", "the chart", only=["matplotlib"])  # openskill is not needed for it
    with pytest.raises(KeyError, match="brings no torch"):
        require("eval", "the chart", only=["torch"])


def test_rgb_array_rendering_without_the_render_extra_is_refused_when_the_env_is_made(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from zavandor_env import SingleAgentEnv, env

    monkeypatch.setitem(sys.modules, "PIL", None)
    for make in (env, SingleAgentEnv):
        with pytest.raises(MissingExtraError, match=r'zavandor-env\[render\]') as info:
            make(render_mode="rgb_array")
        assert "\n" not in str(info.value)


def _zavandor(args: list[str], hide: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    code = ("import sys\n"
            f"for name in {hide!r}:\n"
            "    sys.modules[name] = None  # as if it were not installed\n"
            "from zavandor_env.cli import main\n"
            f"sys.exit(main({args!r}))\n")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("command", [["eval", "--agents", "random", "random", "--games", "2"],
                                     ["scorecard", "random", "--games", "2", "--players", "2"],
                                     ["ladder", "--games", "2", "--players", "2"]])
def test_a_chart_without_matplotlib_is_one_line_before_any_game(
        command: list[str], tmp_path: Path) -> None:
    result = _zavandor([*command, "--out", str(tmp_path / "out")], ("matplotlib",), tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert 'pip install "zavandor-env[eval]"' in lines[0] and "--no-chart" in lines[0]
    assert not (tmp_path / "out").exists()  # nothing played, nothing written


def test_the_sb3_vector_env_without_stable_baselines3_is_one_line_naming_train() -> None:
    code = ("import sys\n"
            "sys.modules['stable_baselines3'] = None  # as if it were not installed\n"
            "try:\n"
            "    import zavandor_env.envs.sb3\n"
            "except ImportError as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120).stdout.strip()
    assert out.startswith("MissingExtraError ") and "[train]" in out and "\n" not in out
