"""SB3's own tools on a game: ``make_vec_env(..., vec_env_cls=SubprocVecEnv)`` (one process
per game, started by forkserver), plain ``PPO`` and plain ``evaluate_policy`` (no masks: on our
game its illegal moves end episodes, the default of every face); on Zavandor also
``evaluate_policy`` on the native ``zavandor_env.envs.sb3.make_vec_env``.

Usage: ``python sb3_subproc_eval.py GAME [STEPS]``.
"""

from __future__ import annotations

import sys
import time

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.vec_env import SubprocVecEnv

GAME = sys.argv[1]
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 128

if __name__ == "__main__":
    torch.set_num_threads(1)
    # "zavandor_env:Zavandor-v0": the worker processes import the package that registers it.
    env_id = "zavandor_env:Zavandor-v0" if GAME == "Zavandor-v0" else GAME
    venv = make_vec_env(env_id, n_envs=2, seed=0, vec_env_cls=SubprocVecEnv)
    model = PPO("MlpPolicy", venv, n_steps=32, batch_size=32, seed=0)
    start = time.perf_counter()
    model.learn(total_timesteps=STEPS)
    rate = model.num_timesteps / (time.perf_counter() - start)
    mean, std = evaluate_policy(model, venv, n_eval_episodes=4)
    venv.close()
    print(f"{GAME} SubprocVecEnv: mean return {mean:.2f} +- {std:.2f}")
    print(f"steps/s: {rate:.0f}")
    if GAME == "Zavandor-v0":
        from zavandor_env.envs.sb3 import make_vec_env as make_native_vec_env

        native = make_native_vec_env(2, seed=0)
        mean, std = evaluate_policy(model, native, n_eval_episodes=4)
        print(f"{GAME} native VecEnv: mean return {mean:.2f} +- {std:.2f}")
