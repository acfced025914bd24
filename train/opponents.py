"""Opponents for self-play: frozen learner snapshots and the pool description.

The environments never see the pool itself.  The main process sends every environment a
:class:`PoolSpec` (plain data: kinds, weights and snapshot file paths), which works the same in
one process (``DummyVecEnv``) and in worker processes (``SubprocVecEnv``); each environment
then draws its opponents from the spec at the start of every game (see
:class:`train.envs.TrainingEnv`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from zavandor_env.agents.base import Agent

from .export import NumpyPolicy, load_policy


class SnapshotAgent(Agent):
    """Plays a weights-only policy file with NumPy on the CPU, always within the mask.

    Args:
        policy: the network (see :mod:`train.export`).
        deterministic: take the most probable legal action instead of sampling one.
    """

    needs_observation = True
    name = "snapshot"

    def __init__(self, policy: NumpyPolicy, seed: int | None = None,
                 deterministic: bool = False) -> None:
        super().__init__(seed)
        self.policy = policy
        self.deterministic = deterministic
        self.np_rng = np.random.default_rng(seed)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        if seed is not None:
            self.np_rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any] | None, view: Any,
            legal_actions: Sequence[int]) -> int:
        if observation is None:
            raise ValueError("SnapshotAgent needs the encoded observation")
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
    """What an opponent seat may be this episode (plain data, cheap to send to workers).

    Attributes:
        weights: probability weight per kind (``snapshot``, ``random``, ``heuristic``).
        snapshots: ``(label, file)`` of every snapshot in the pool, oldest first.
        latest_share: chance that a drawn snapshot is the newest one.
        heuristic_kwargs: keyword arguments of ``agents.HeuristicAgent``.
    """

    weights: dict[str, float]
    snapshots: list[tuple[str, str]] = field(default_factory=list)
    latest_share: float = 0.5
    heuristic_kwargs: dict[str, Any] = field(default_factory=dict)

    def draw_kind(self, rng: random.Random) -> str:
        """A kind by weight; ``snapshot`` is left out while the pool holds none."""
        kinds = [k for k, w in self.weights.items() if w > 0 and (k != "snapshot" or self.snapshots)]
        if not kinds:  # only snapshots weighted, none yet: play random until the first one
            return "random"
        return rng.choices(kinds, weights=[self.weights[k] for k in kinds])[0]

    def draw_snapshot(self, rng: random.Random) -> tuple[str, str]:
        if len(self.snapshots) == 1 or rng.random() < self.latest_share:
            return self.snapshots[-1]
        return rng.choice(self.snapshots[:-1])


def make_heuristic(seed: int | None, kwargs: dict[str, Any]) -> Agent:
    try:
        from zavandor_env.agents.heuristic import HeuristicAgent
    except ImportError as exc:
        raise RuntimeError("agents.HeuristicAgent is not available; give the 'heuristic' "
                           "opponent weight 0") from exc
    return HeuristicAgent(seed=seed, **kwargs)
