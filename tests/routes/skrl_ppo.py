"""skrl's PPO (its own Gymnasium vector-env wrapper, trainer and memory) on a vector env.
skrl samples without a mask, so on our game its illegal moves end episodes
(``illegal_action="terminate"``, the default of every face).

Usage: ``python skrl_ppo.py GAME MODE [STEPS]``.
"""

from __future__ import annotations

import sys
import time

import gymnasium
import torch
from skrl.agents.torch.ppo import PPO
from skrl.envs.wrappers.torch import wrap_env
from skrl.memories.torch import RandomMemory
from skrl.models.torch import CategoricalMixin, DeterministicMixin, Model
from skrl.trainers.torch import SequentialTrainer
from torch import nn

import zavandor_env  # noqa: F401  (registers Zavandor-v0)

GAME, MODE = sys.argv[1], sys.argv[2]
STEPS = int(sys.argv[3]) if len(sys.argv) > 3 else 256
torch.manual_seed(0)
torch.set_num_threads(1)


class Policy(CategoricalMixin, Model):
    def __init__(self, observation_space, action_space, device):  # noqa: ANN001
        Model.__init__(self, observation_space=observation_space, action_space=action_space,
                       device=device)
        CategoricalMixin.__init__(self, unnormalized_log_prob=True)
        self.net = nn.Sequential(nn.Linear(self.num_observations, 64), nn.Tanh(),
                                 nn.Linear(64, self.num_actions))

    def compute(self, inputs, role=""):  # noqa: ANN001, ANN201
        return self.net(inputs["observations"]), {}


class Value(DeterministicMixin, Model):
    def __init__(self, observation_space, action_space, device):  # noqa: ANN001
        Model.__init__(self, observation_space=observation_space, action_space=action_space,
                       device=device)
        DeterministicMixin.__init__(self)
        self.net = nn.Sequential(nn.Linear(self.num_observations, 64), nn.Tanh(),
                                 nn.Linear(64, 1))

    def compute(self, inputs, role=""):  # noqa: ANN001, ANN201
        return self.net(inputs["observations"]), {}


env = wrap_env(gymnasium.make_vec(GAME, num_envs=4, vectorization_mode=MODE))
models = {"policy": Policy(env.observation_space, env.action_space, env.device),
          "value": Value(env.observation_space, env.action_space, env.device)}
agent = PPO(models=models, memory=RandomMemory(memory_size=32, num_envs=env.num_envs),
            observation_space=env.observation_space, action_space=env.action_space,
            device=env.device, cfg={"rollouts": 32, "learning_epochs": 2, "mini_batches": 2})
trainer = SequentialTrainer(env=env, agents=agent,
                            cfg={"timesteps": STEPS // env.num_envs,
                                 "disable_progressbar": True})
start = time.perf_counter()
trainer.train()
rate = (STEPS // env.num_envs) * env.num_envs / (time.perf_counter() - start)
print(f"{GAME} ({MODE}): skrl PPO ran {STEPS} steps")
print(f"steps/s: {rate:.0f}")
