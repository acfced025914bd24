"""The libraries' own loops on our game, each beside the same script on a built-in game.

Each script of tests/routes/ is what a user of that library writes (skrl's PPO with its
wrapper and trainer, a CleanRL-style masked PPO with ``-inf`` masks, SB3's ``SubprocVecEnv``
and plain ``evaluate_policy``, Gymnasium's ``AsyncVectorEnv``, AgileRL's off-policy DQN loop);
it runs whole in a fresh interpreter, first on a Gymnasium built-in game (so a failure on ours
is ours), then on ``Zavandor-v0`` through the route under test.  AgileRL pins its own
PettingZoo and TensorDict, so it runs in a virtual environment of its own (made once from
pinned versions, without the system's packages; ``ZAVANDOR_AGILERL_VENV`` names its folder).
All of it is slow (a training script each): the fast tier holds the same contract in
tests/envs/test_env_contract.py.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROUTES = ROOT / "tests" / "routes"
pytestmark = pytest.mark.slow

#: AgileRL and the versions it pins (peft: AgileRL 2.58 imports it without requiring it);
#: torch is the project's CPU build.
AGILERL_PINS = ("agilerl==2.58.0", "tensordict==0.13.0", "pettingzoo==1.26.1", "peft==0.21.0",
                "gymnasium==1.4.0", "torch==2.13.0")


def _run(script: str, *args: str, python: str = sys.executable, cwd: Path,
         timeout: int = 600) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    result = subprocess.run([python, str(ROUTES / script), *args], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{script} {args} failed:\n{result.stderr[-3000:]}"
    return result.stdout


def _needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip('needs the [integrations] extra: pip install -e ".[integrations]"')


@pytest.mark.parametrize(("game", "mode"), [("CartPole-v1", "sync"),
                                            ("Zavandor-v0", "vector_entry_point"),
                                            ("Zavandor-v0", "sync")])
def test_skrl_ppo_trains_on_the_vector_env(game: str, mode: str, tmp_path: Path) -> None:
    _needs("skrl")
    assert "skrl PPO ran" in _run("skrl_ppo.py", game, mode, cwd=tmp_path)


def _taxi() -> str:
    """Gymnasium's Taxi with action masks, as this Gymnasium names it (v3 in 1.2, the version
    Ray pins; v4 later)."""
    import gymnasium

    return "Taxi-v4" if "Taxi-v4" in gymnasium.registry else "Taxi-v3"


@pytest.mark.parametrize(("game", "mode"), [("Taxi", "sync"),
                                            ("Zavandor-v0", "vector_entry_point"),
                                            ("Zavandor-v0", "sync"), ("Zavandor-v0", "async")])
def test_a_cleanrl_style_masked_ppo_with_inf_masks_runs(game: str, mode: str,
                                                        tmp_path: Path) -> None:
    game = _taxi() if game == "Taxi" else game
    assert "ran to the end" in _run("masked_ppo.py", game, mode, "256", cwd=tmp_path)


@pytest.mark.parametrize("game", ["CartPole-v1", "Zavandor-v0"])
def test_sb3_subproc_vec_env_and_plain_evaluate_policy(game: str, tmp_path: Path) -> None:
    out = _run("sb3_subproc_eval.py", game, cwd=tmp_path)
    assert "SubprocVecEnv: mean return" in out
    if game == "Zavandor-v0":
        assert "native VecEnv: mean return" in out


@pytest.mark.parametrize("game", ["CartPole-v1", "Zavandor-v0"])
def test_gymnasium_async_vector_env_and_its_errors(game: str, tmp_path: Path) -> None:
    out = _run("async_vector.py", game, cwd=tmp_path)
    assert "AsyncVectorEnv:" in out
    if game == "Zavandor-v0":
        assert "illegal action raised across processes" in out


def _agilerl_python(tmp_path: Path) -> str:
    """The interpreter of AgileRL's own virtual environment, made on first use."""
    key = hashlib.sha256(" ".join(AGILERL_PINS).encode()).hexdigest()[:12]
    default = Path.home() / ".cache" / "zavandor-env" / f"agilerl-{key}"
    venv = Path(os.environ.get("ZAVANDOR_AGILERL_VENV", default))
    python = venv / "bin" / "python"
    ready = venv / ".zavandor-ready"
    if not ready.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        result = subprocess.run([str(python), "-m", "pip", "install", "-q", *AGILERL_PINS],
                                capture_output=True, text=True, timeout=1800)
        assert result.returncode == 0, f"AgileRL's venv:\n{result.stderr[-3000:]}"
        ready.write_text(" ".join(AGILERL_PINS) + "\n", encoding="utf-8")
    return str(python)


@pytest.mark.parametrize("game", ["CartPole-v1", "Zavandor-v0"])
def test_agilerl_off_policy_loop_on_the_native_vector_env(game: str, tmp_path: Path) -> None:
    python = _agilerl_python(tmp_path)
    out = _run("agilerl_dqn.py", game, python=python, cwd=tmp_path, timeout=900)
    assert f"{game} episodes" in out


def test_agilerl_snippet_of_the_docs_runs_in_its_own_venv(tmp_path: Path) -> None:
    from test_integrations_docs import BLOCKS, SHORTEN

    (code,) = [body for title, _, body in BLOCKS if title.startswith("AgileRL")]
    short = SHORTEN.sub(lambda m: f"{m.group(1)}{m.group(2)}", code)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([_agilerl_python(tmp_path), "-c", short], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
