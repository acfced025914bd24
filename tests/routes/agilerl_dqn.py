"""AgileRL's off-policy loop (its ``train_off_policy`` written out: DQN, its ``ReplayBuffer``
of ``Transition``\\ s, the mask from ``info["action_mask"]`` when the env gives one) on a
vector env: Gymnasium's ``SyncVectorEnv`` for a built-in game, the native vector entry point
for ours.  Runs in AgileRL's own virtual environment (tests/envs/test_integrations_routes.py).

Usage: ``python agilerl_dqn.py GAME [STEPS]``.
"""

from __future__ import annotations

import sys
import time

import gymnasium
import torch
from agilerl.algorithms import DQN
from agilerl.components.data import Transition
from agilerl.components.replay_buffer import ReplayBuffer

import zavandor_env  # noqa: F401  (registers Zavandor-v0)

GAME = sys.argv[1]
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 400
torch.manual_seed(0)
torch.set_num_threads(1)
mode = "vector_entry_point" if GAME == "Zavandor-v0" else "sync"
env = gymnasium.make_vec(GAME, num_envs=4, vectorization_mode=mode)
agent = DQN(env.single_observation_space, env.single_action_space, batch_size=32,
            learn_step=4, net_config={"encoder_config": {"hidden_size": [64]}})
memory = ReplayBuffer(max_size=2_000)
obs, info = env.reset(seed=0)
epsilon, episodes = 1.0, 0
start = time.perf_counter()
for step in range(STEPS // env.num_envs):
    action = agent.get_action(obs, epsilon, action_mask=info.get("action_mask", None))
    epsilon = max(0.1, epsilon * 0.995)
    next_obs, reward, done, trunc, info = env.step(action)
    episodes += int((done | trunc).sum())
    transition = Transition(obs=obs, action=action, reward=reward, next_obs=next_obs,
                            done=done).to_tensordict()
    transition.batch_size = torch.Size([env.num_envs])
    memory.add(transition)
    if len(memory) >= agent.batch_size and step % agent.learn_step == 0:
        agent.learn(memory.sample(agent.batch_size))
    obs = next_obs
rate = (STEPS // env.num_envs) * env.num_envs / (time.perf_counter() - start)
env.close()
print(GAME, "episodes", episodes)
print(f"steps/s: {rate:.0f}")
