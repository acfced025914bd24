"""A CleanRL-style masked PPO on a Gymnasium vector env: the mask comes from
``info["action_mask"]`` and illegal logits are set to ``-inf`` (so an all-False mask row would
make every probability NaN and ``Categorical`` refuse it).  Written for these tests.

Usage: ``python masked_ppo.py GAME MODE [STEPS]`` (MODE: a ``make_vec`` vectorization mode).
"""

from __future__ import annotations

import sys
import time

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import zavandor_env  # noqa: F401  (registers Zavandor-v0)

GAME, MODE = sys.argv[1], sys.argv[2]
STEPS = int(sys.argv[3]) if len(sys.argv) > 3 else 512
NUM_ENVS, NSTEPS, GAMMA, LAMBDA, CLIP = 4, 32, 0.99, 0.95, 0.2
torch.manual_seed(0)
torch.set_num_threads(1)
envs = gymnasium.make_vec(GAME, num_envs=NUM_ENVS, vectorization_mode=MODE)
space = envs.single_observation_space
n_obs = space.n if isinstance(space, gymnasium.spaces.Discrete) else int(np.prod(space.shape))
n_act = int(envs.single_action_space.n)


def features(obs: np.ndarray) -> torch.Tensor:
    if isinstance(space, gymnasium.spaces.Discrete):  # Taxi: one-hot of the state
        return nn.functional.one_hot(torch.as_tensor(obs), n_obs).float()
    return torch.as_tensor(obs, dtype=torch.float32).reshape(len(obs), -1)


actor = nn.Sequential(nn.Linear(n_obs, 64), nn.Tanh(), nn.Linear(64, n_act))
critic = nn.Sequential(nn.Linear(n_obs, 64), nn.Tanh(), nn.Linear(64, 1))
optim = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=2.5e-4)


def policy(x: torch.Tensor, mask: torch.Tensor) -> Categorical:
    logits = actor(x).masked_fill(~mask, float("-inf"))
    return Categorical(logits=logits)  # validates: NaN probabilities raise ValueError


obs, info = envs.reset(seed=0)
mask = torch.as_tensor(info["action_mask"]).bool()
episodes = 0
start = time.perf_counter()
for _update in range(STEPS // (NUM_ENVS * NSTEPS)):
    xs, masks, actions, logps, values, rewards, dones = [], [], [], [], [], [], []
    for _ in range(NSTEPS):
        x = features(obs)
        with torch.no_grad():
            dist = policy(x, mask)
            action = dist.sample()
            value = critic(x).squeeze(-1)
        obs, reward, terminated, truncated, info = envs.step(action.numpy())
        done = terminated | truncated
        episodes += int(done.sum())
        xs.append(x), masks.append(mask), actions.append(action), values.append(value)
        logps.append(dist.log_prob(action))
        rewards.append(torch.as_tensor(reward, dtype=torch.float32))
        dones.append(torch.as_tensor(done, dtype=torch.float32))
        mask = torch.as_tensor(info["action_mask"]).bool()
    with torch.no_grad():
        next_value = critic(features(obs)).squeeze(-1)
    advantages, last = torch.zeros(NSTEPS, NUM_ENVS), torch.zeros(NUM_ENVS)
    for t in reversed(range(NSTEPS)):
        nxt = next_value if t == NSTEPS - 1 else values[t + 1]
        delta = rewards[t] + GAMMA * nxt * (1 - dones[t]) - values[t]
        last = delta + GAMMA * LAMBDA * (1 - dones[t]) * last
        advantages[t] = last
    returns = advantages + torch.stack(values)
    x, m, a = torch.cat(xs), torch.cat(masks), torch.cat(actions)
    old_logp, adv, ret = torch.cat(logps), advantages.flatten(), returns.flatten()
    for _epoch in range(2):
        dist = policy(x, m)
        ratio = (dist.log_prob(a) - old_logp).exp()
        clipped = torch.clamp(ratio, 1 - CLIP, 1 + CLIP)
        loss = (-torch.min(ratio * adv, clipped * adv).mean()
                + 0.5 * (critic(x).squeeze(-1) - ret).pow(2).mean() - 0.01 * dist.entropy().mean())
        assert torch.isfinite(loss), "the masked PPO loss is not finite"
        optim.zero_grad()
        loss.backward()
        optim.step()
rate = (STEPS // (NUM_ENVS * NSTEPS)) * NUM_ENVS * NSTEPS / (time.perf_counter() - start)
envs.close()
print(f"{GAME} ({MODE}): {episodes} episodes, masked PPO ran to the end")
print(f"steps/s: {rate:.0f}")
