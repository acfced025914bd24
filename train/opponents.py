"""Opponents for self-play: policy agents for frozen snapshots, and the pool description.

The environments never see the pool itself.  The main process sends every environment a
:class:`PoolSpec` (plain data: opponent keys, weights and snapshot file paths), which works the
same in one process (``DummyVecEnv``) and in worker processes (``SubprocVecEnv``); each
environment then draws its opponents from the spec at the start of every game (see
:class:`zavandor_env.envs.training.TrainingEnv`).  An opponent key is ``snapshot`` or an agent
spec of :mod:`zavandor_env.agents.registry` (``heuristic``, ``mcts:iterations=16``...), so a
new agent needs no change here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from zavandor_env.agents.policy_file import NumpyPolicy, load_policy
from zavandor_env.engine.agent import Agent
from zavandor_env.engine.view import PlayerView
from zavandor_env.train.config import SNAPSHOT


class NumpyPolicyAgent(Agent):
    """Plays a weights-only policy with NumPy on the CPU, always within the mask: a pool
    snapshot in training, the learner itself in evaluation.

    Args:
        policy: the network (see :mod:`zavandor_env.agents.policy_file`).
        seed: seeds sampling (reseeded by :meth:`reset` when given a seed).
        deterministic: take the most probable legal action instead of sampling one.
        name: the label in results.
    """

    needs_observation = True

    def __init__(self, policy: NumpyPolicy, seed: int | None = None,
                 deterministic: bool = False, name: str = SNAPSHOT) -> None:
        super().__init__(seed)
        self.policy = policy
        self.deterministic = deterministic
        self.name = name
        self.np_rng = np.random.default_rng(seed)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        if seed is not None:
            self.np_rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        if observation is None:
            raise ValueError("NumpyPolicyAgent needs the encoded observation")
        return self.policy.act(observation["observation"], observation["action_mask"],
                               None if self.deterministic else self.np_rng, self.deterministic)


# Snapshots are loaded once per process and shared by every seat and environment in it.
_POLICY_CACHE: dict[str, NumpyPolicy] = {}


def cached_policy(path: str) -> NumpyPolicy:
    policy = _POLICY_CACHE.get(path)
    if policy is None:
        if len(_POLICY_CACHE) > 64:  # dropped snapshots; keep the cache bounded
            _POLICY_CACHE.clear()
        policy = _POLICY_CACHE[path] = load_policy(path)
    return policy


@dataclass
class PoolSpec:
    """Who an opponent seat may be this episode (plain data, cheap to send to workers).

    Attributes:
        weights: probability weight per opponent key (``snapshot`` or an agent spec).
        snapshots: ``(label, file)`` of every snapshot in the pool, oldest first.
        latest_share: chance that a drawn snapshot is the newest one.
    """

    weights: dict[str, float]
    snapshots: list[tuple[str, str]] = field(default_factory=list)
    latest_share: float = 0.5

    def draw_opponent(self, rng: random.Random) -> str:
        """An opponent key by weight; ``snapshot`` is left out while the pool holds none."""
        keys = [k for k, w in self.weights.items()
                if w > 0 and (k != SNAPSHOT or self.snapshots)]
        if not keys:  # only snapshots weighted, none yet: play random until the first one
            return "random"
        return rng.choices(keys, weights=[self.weights[k] for k in keys])[0]

    def draw_snapshot(self, rng: random.Random) -> tuple[str, str]:
        if len(self.snapshots) == 1 or rng.random() < self.latest_share:
            return self.snapshots[-1]
        return rng.choice(self.snapshots[:-1])
