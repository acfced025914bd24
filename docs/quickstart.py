"""Quickstart: MaskablePPO against Zavandor-v0's default opponents (about a minute on 2 cores)."""

import gymnasium
import torch
from sb3_contrib import MaskablePPO

import zavandor_env  # noqa: F401  (registers Zavandor-v0)

STEPS = 50_000  # test: 256
GAMES = 200  # test: 3

torch.set_num_threads(1)  # a small network: one thread is fastest
env = gymnasium.make("Zavandor-v0")  # 2 players: the learner against a rule-based "novice"
model = MaskablePPO("MlpPolicy", env, seed=0)
model.learn(total_timesteps=STEPS)

wins = 0
for game in range(GAMES):
    obs, info = env.reset(seed=game)
    done = False
    while not done:
        masks = env.get_wrapper_attr("action_masks")()  # the learner's legal actions
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    wins += env.unwrapped.outcome().won(info["seat"])  # winners come only from the rules
print(f"won {wins} of {GAMES} games against the default opponents")
