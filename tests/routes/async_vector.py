"""Gymnasium's ``AsyncVectorEnv`` (one process per game): random play within
``info["action_mask"]`` where the game gives one; on Zavandor, with
``illegal_action="raise"``, an illegal action reaches this process as the game's own
``IllegalActionError`` (a ``ValueError``), not as a ``TypeError`` of unpickling.

Usage: ``python async_vector.py GAME [STEPS]``.
"""

from __future__ import annotations

import sys
import time

import gymnasium
import numpy as np

import zavandor_env  # noqa: F401  (registers Zavandor-v0)

GAME = sys.argv[1]
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 200

if __name__ == "__main__":
    envs = gymnasium.make_vec(GAME, num_envs=2, vectorization_mode="async")
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    start = time.perf_counter()
    for _ in range(STEPS):
        mask = info.get("action_mask")
        if mask is None:
            actions = envs.action_space.sample()
        else:
            actions = (rng.random(mask.shape) + mask).argmax(axis=1)
        obs, reward, terminated, truncated, info = envs.step(actions)
        episodes += int((terminated | truncated).sum())
    rate = STEPS * envs.num_envs / (time.perf_counter() - start)
    envs.close()
    print(f"{GAME} AsyncVectorEnv: {episodes} episodes in {STEPS} steps")
    print(f"steps/s: {rate:.0f}")
    if GAME == "Zavandor-v0":
        from zavandor_env.engine import IllegalActionError

        envs = gymnasium.make_vec(GAME, num_envs=2, vectorization_mode="async",
                                  illegal_action="raise")
        obs, info = envs.reset(seed=0)
        illegal = (info["action_mask"] == 0).argmax(axis=1)
        try:
            envs.step(illegal)
        except IllegalActionError as exc:
            print("illegal action raised across processes:", str(exc).splitlines()[0][:60])
        else:
            raise AssertionError("the illegal action was not refused")
        finally:
            envs.close(terminate=True)
