"""The built wheel is what a `pip install` user gets: one top-level package, its data inside.

`agents/`, `train/` and `configs/` sit at the top of the repository but install as
`zavandor_env.agents`, `zavandor_env.train` and `zavandor_env/configs`, so no generic top-level
name (`agents`, `train`) can collide with a user's own modules, and the shipped weights and
configs are found from any working directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _build_wheel(out: Path, **env: str) -> Path:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=900, env={**os.environ, **env},
    )
    if result.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{result.stderr[-3000:]}")
    (path,) = out.glob("*.whl")
    return path


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel as ``pip install`` builds it here (a compiler present: the native core in)."""
    return _build_wheel(tmp_path_factory.mktemp("wheel"))


def _install_and_run(wheel: Path, tmp_path: Path, script: str) -> str:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
         str(wheel)],
        check=True, capture_output=True, timeout=600,
    )
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip()


@pytest.mark.slow
def test_wheel_installs_only_the_zavandor_env_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"zavandor_env"}
    assert "zavandor_env/agents/heuristic.py" in names
    assert "zavandor_env/train/selfplay.py" in names


@pytest.mark.slow
def test_wheel_ships_configs_and_policy_weights(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "zavandor_env/configs/quick.yaml",
        "zavandor_env/configs/agents/heuristic.yaml",
        "zavandor_env/configs/game/standard_4p.yaml",
        "zavandor_env/train/checkpoints/selfplay_2p/policy.npz",
        "zavandor_env/train/checkpoints/selfplay_4p/policy.npz",
        "zavandor_env/py.typed",
        "zavandor_env/web/static/viewer.html",
        "zavandor_env/web/static/app.js",
    ):
        assert required in names, f"{required} is missing from the wheel"


@pytest.mark.slow
def test_wheel_ships_the_native_core_and_its_sources_stay_out(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("zavandor_env/engine/_native") and n.endswith(".so") for n in names)
    assert not any(n.endswith((".cpp", ".hpp")) for n in names)


@pytest.mark.slow
def test_installed_wheel_plays_on_the_native_core(wheel: Path, tmp_path: Path) -> None:
    script = (
        "from zavandor_env.engine import Game, native_available\n"
        "assert native_available()\n"
        "game = Game.new(num_players=3, seed=4)\n"
        "assert game.backend == 'native', game.backend\n"
        "python = Game.new(num_players=3, seed=4, backend='python')\n"
        "assert game.to_json() == python.to_json()\n"
        "print('ok')\n"
    )
    assert _install_and_run(wheel, tmp_path, script) == "ok"


@pytest.mark.slow
def test_a_wheel_built_without_the_native_core_plays_in_python_and_says_why(
        tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "wheel", ZAVANDOR_NO_NATIVE="1")
    assert not any("_native" in n for n in zipfile.ZipFile(wheel).namelist())
    script = (
        "from zavandor_env.engine import Game, native_available, native_status\n"
        "assert not native_available()\n"
        "assert 'not built' in native_status(), native_status()\n"
        "game = Game.new(num_players=2, seed=1)\n"
        "assert game.backend == 'python'\n"
        "try:\n"
        "    Game.new(num_players=2, seed=1, backend='native')\n"
        "except RuntimeError as exc:\n"
        "    assert 'native core unavailable' in str(exc) and '\\n' not in str(exc)\n"
        "else:\n"
        "    raise AssertionError('native backend without a native core')\n"
        "print('ok')\n"
    )
    assert _install_and_run(wheel, tmp_path, script) == "ok"


@pytest.mark.slow
def test_installed_wheel_finds_its_data_from_any_directory(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    script = (
        "import zavandor_env, zavandor_env.agents as a\n"
        f"assert zavandor_env.__file__.startswith({str(target)!r}), zavandor_env.__file__\n"
        "from zavandor_env.agents.heuristic import HeuristicAgent\n"
        "HeuristicAgent(seed=0)\n"
        "from zavandor_env.train.config import load_config\n"
        "assert load_config().total_timesteps > 0\n"
        "assert load_config('configs/selfplay_2p.yaml').num_players == 2\n"
        "from zavandor_env.agents import make_agent\n"
        "make_agent('policy:path=train/checkpoints/selfplay_2p/policy.npz')\n"
        "import importlib.util\n"
        "assert importlib.util.find_spec('agents') is None, 'a top-level agents was installed'\n"
        "assert importlib.util.find_spec('train') is None, 'a top-level train was installed'\n"
        "print('ok')\n"
    )
    assert _install_and_run(wheel, tmp_path, script) == "ok"
