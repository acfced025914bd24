"""Steps per second of each route, beside the same loop or script on a built-in game: the table
of docs/integrations.md ("Speed of each route").

Usage (from the repository root): ``python tests/routes/bench.py [SECONDS]``; set
``ZAVANDOR_AGILERL_VENV`` to AgileRL's virtual environment to add its row.  Prints Markdown
rows.  Environment rows: random play (within the mask where the game has one) for SECONDS
each; script rows: the route scripts of this folder, which time their own loop (training
included).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import zavandor_env

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
RNG = np.random.default_rng(0)


def _timed(step: Callable[[], int]) -> float:
    """Calls ``step`` (returning the env steps it made) for SECONDS; steps per second."""
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        steps += step()
    return steps / (time.perf_counter() - start)


def _pick(mask: Any, n: int | None = None) -> Any:
    if mask is None:
        return RNG.integers(2, size=n) if n else int(RNG.integers(2))
    scores = RNG.random(np.shape(mask)) + np.asarray(mask)
    return scores.argmax(axis=-1)


def aec(make: Callable[[], Any]) -> float:
    env = make()
    env.reset(seed=0)

    def step() -> int:
        if not env.agents:
            env.reset()
            return 0
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(_pick(obs["action_mask"])))
        return 1
    return _timed(step)


def single(game: str) -> float:
    env = gymnasium.make(game)
    _, info = env.reset(seed=0)
    state = {"info": info}

    def step() -> int:
        action = _pick(state["info"].get("action_mask"))
        _, _, term, trunc, state["info"] = env.step(int(action))
        if term or trunc:
            _, state["info"] = env.reset()
        return 1
    return _timed(step)


def vector(game: str, mode: str, n: int = 4) -> float:
    env = gymnasium.make_vec(game, n, vectorization_mode=mode)
    _, info = env.reset(seed=0)
    state = {"info": info}

    def step() -> int:
        *_, state["info"] = env.step(_pick(state["info"].get("action_mask"), n))
        return n
    rate = _timed(step)
    env.close()
    return rate


def sb3(game: str, n: int = 4) -> float:
    if game == "Zavandor-v0":
        from zavandor_env.envs.sb3 import make_vec_env

        env = make_vec_env(n, seed=0)
        masks: Callable[[], Any] = env.action_masks
    else:
        from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env

        env = sb3_make_vec_env(game, n_envs=n, seed=0)
        masks = lambda: None  # noqa: E731
    env.reset()

    def step() -> int:
        env.step(_pick(masks(), n))
        return n
    return _timed(step)


def script(name: str, *args: str, python: str = sys.executable) -> float:
    run = subprocess.run([python, str(HERE / name), *args], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=1800)
    found = re.search(r"^steps/s: (\d+)", run.stdout, re.M)
    if run.returncode or not found:
        raise RuntimeError(f"{name} {args}: {run.stderr[-2000:]}")
    return float(found.group(1))


def _connect_four() -> Any:
    from pettingzoo.classic import connect_four_v3  # needs pygame

    return connect_four_v3.env()


def rows() -> list[tuple[str, Callable[[], float], Callable[[], float]]]:
    table = [
        ("PettingZoo AEC `zavandor_env.env()` (decisions/s) vs connect_four_v3",
         lambda: aec(zavandor_env.env), lambda: aec(_connect_four)),
        ("`gymnasium.make` vs CartPole-v1",
         lambda: single("Zavandor-v0"), lambda: single("CartPole-v1")),
    ]
    for mode in ("sync", "async", "vector_entry_point"):
        table.append((f"`make_vec(4, vectorization_mode=\"{mode}\")` vs CartPole-v1",
                      lambda m=mode: vector("Zavandor-v0", m),
                      lambda m=mode: vector("CartPole-v1", m)))
    table += [
        ("SB3 `VecEnv`: `zavandor_env.envs.sb3.make_vec_env(4)` vs SB3's `make_vec_env` of "
         "CartPole-v1 (4)",
         lambda: sb3("Zavandor-v0"), lambda: sb3("CartPole-v1")),
        ("script: SB3 `PPO` on `SubprocVecEnv` (2), learning included, vs CartPole-v1",
         lambda: script("sb3_subproc_eval.py", "Zavandor-v0", "512"),
         lambda: script("sb3_subproc_eval.py", "CartPole-v1", "512")),
        ("script: Gymnasium `AsyncVectorEnv` (2), random masked play, vs CartPole-v1",
         lambda: script("async_vector.py", "Zavandor-v0", "500"),
         lambda: script("async_vector.py", "CartPole-v1", "500")),
        ("script: skrl PPO on the native vector env (4), vs CartPole-v1 (sync)",
         lambda: script("skrl_ppo.py", "Zavandor-v0", "vector_entry_point", "1024"),
         lambda: script("skrl_ppo.py", "CartPole-v1", "sync", "1024")),
        ("script: CleanRL-style masked PPO on the native vector env (4), vs Taxi-v4 (sync)",
         lambda: script("masked_ppo.py", "Zavandor-v0", "vector_entry_point", "1024"),
         lambda: script("masked_ppo.py", "Taxi-v4", "sync", "1024")),
    ]
    venv = os.environ.get("ZAVANDOR_AGILERL_VENV")
    if venv:
        python = str(Path(venv) / "bin" / "python")
        table.append(("script: AgileRL DQN off-policy loop on the native vector env (4), vs "
                      "CartPole-v1 (sync)",
                      lambda: script("agilerl_dqn.py", "Zavandor-v0", "800", python=python),
                      lambda: script("agilerl_dqn.py", "CartPole-v1", "800", python=python)))
    return table


if __name__ == "__main__":
    print("| route | Zavandor-v0 steps/s | built-in steps/s |")
    print("|---|---:|---:|")
    for label, ours, builtin in rows():
        cells = []
        for measure in (ours, builtin):
            try:
                cells.append(f"{measure():,.0f}")
            except ImportError as exc:  # a built-in game whose extra is missing here
                cells.append(f"n/a ({exc.name} missing)")
        print(f"| {label} | {cells[0]} | {cells[1]} |", flush=True)
