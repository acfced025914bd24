"""Training environments: ``SingleAgentEnv`` with pool opponents, plus the statistics we chart.

:class:`TrainingEnv` wraps one :class:`~zavandor_env.envs.SingleAgentEnv`, draws its opponents
from the pool at every reset, and records, cheaply,
what TensorBoard shows about the learner: actions per action block, illegal actions, time
spent inside the environment (opponents' moves included), and one summary per finished game
(VP, rounds, who it played).  The main process collects them with ``pop_stats()`` through
``VecEnv.env_method``, which works in one process and across worker processes alike.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from zavandor_env.agents.policy_file import NumpyPolicy
from zavandor_env.agents.registry import AgentSpec, parse_spec
from zavandor_env.engine.actions import ACTION_BLOCKS, NUM_ACTIONS, OPEN_SENTINEL
from zavandor_env.engine.agent import Agent
from zavandor_env.engine.outcome import Outcome, game_outcome
from zavandor_env.envs import SingleAgentEnv
from zavandor_env.train.config import SNAPSHOT, TrainConfig
from zavandor_env.train.opponents import NumpyPolicyAgent, PoolSpec, cached_policy


def _block_table() -> tuple[tuple[str, ...], np.ndarray]:
    """Chart names of the action blocks and the block index of every action.

    The engine names both auction openings ``open``; the charts keep artifacts and sentinels
    apart, since opening sentinel auctions is what ends a game.
    """
    names: list[str] = []
    index = np.zeros(NUM_ACTIONS, dtype=np.int64)
    for block, first, size, _suffixes in ACTION_BLOCKS:
        if block == "open":
            block = "open_sentinel" if first == OPEN_SENTINEL else "open_artifact"
        if block == "bid_plus":
            block = "bid"
        names.append(block)
        index[first:first + size] = len(names) - 1
    return tuple(names), index


BLOCK_NAMES, ACTION_TO_BLOCK = _block_table()


class TrainingEnv(gymnasium.Wrapper):
    """A ``SingleAgentEnv`` whose opponents are drawn from the pool at every reset, with
    statistics for the charts.

    A plain ``random`` opponent is handed to the environment as ``None`` (its built-in uniform
    player), which skips the agent machinery; every other opponent is an agent of the
    project's protocol, built from its spec once per seat and reused across games (the
    environment resets each for its seat and hands it only that seat's view).
    """

    def __init__(self, env: SingleAgentEnv, spec: PoolSpec, seed: int) -> None:
        super().__init__(env)
        self.pool_spec = spec
        self.rng = random.Random(seed)
        others = env.num_players - 1
        self._snapshot_seats = [NumpyPolicyAgent(NumpyPolicy([], []), seed + k)
                                for k in range(others)]
        self._agent_seats: list[dict[str, Agent | None]] = [{} for _ in range(others)]
        self._specs: dict[str, AgentSpec] = {}
        self.labels = ["random"] * others  # who plays each other seat this game
        self._blocks = np.zeros(len(BLOCK_NAMES), dtype=np.int64)
        self._illegal = 0
        self._env_seconds = 0.0
        self._episodes: list[dict[str, Any]] = []

    # ---- API used by the trainer ----------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()  # type: ignore[attr-defined]

    def set_pool(self, spec: PoolSpec) -> None:
        """Opponents are drawn from ``spec`` from the next episode on."""
        self.pool_spec = spec

    def pop_stats(self) -> dict[str, Any]:
        """Statistics since the last call (and reset them)."""
        stats = {"blocks": self._blocks.copy(), "illegal": self._illegal,
                 "env_seconds": self._env_seconds, "episodes": self._episodes}
        self._blocks[:] = 0
        self._illegal = 0
        self._env_seconds = 0.0
        self._episodes = []
        return stats

    def draw_opponents(self) -> list[Agent | None]:
        """This game's opponents, one per other seat (in seat order after the learner)."""
        opponents: list[Agent | None] = []
        for k in range(len(self.labels)):
            key = self.pool_spec.draw_opponent(self.rng)
            if key == SNAPSHOT:
                label, path = self.pool_spec.draw_snapshot(self.rng)
                snapshot = self._snapshot_seats[k]
                snapshot.policy = cached_policy(path)
                opponents.append(snapshot)
            else:
                label, agent = self._agent(k, key)
                opponents.append(agent)
            self.labels[k] = label
        return opponents

    def _agent(self, seat: int, key: str) -> tuple[str, Agent | None]:
        """The label and the agent (None: the env's own random player) of spec ``key``."""
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = parse_spec(key)
        seats = self._agent_seats[seat]
        if key not in seats:
            plain_random = spec.agent == "random" and not spec.params
            seats[key] = None if plain_random else spec.build(self.rng.randrange(2**31))
        return spec.label, seats[key]

    # ---- Gymnasium ------------------------------------------------------------------------
    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        start = time.perf_counter()
        self.env.set_opponents(self.draw_opponents())  # type: ignore[attr-defined]
        out = self.env.reset(**kwargs)
        self._env_seconds += time.perf_counter() - start
        return out

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        action = int(action)
        self._blocks[ACTION_TO_BLOCK[action]] += 1
        start = time.perf_counter()
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._env_seconds += time.perf_counter() - start
        if info.get("illegal_action"):
            self._illegal += 1
        if terminated or truncated:
            self._episodes.append(self._summary(info))
            if truncated and not terminated:
                # A cut-off game is over for good (the environment has priced it with
                # truncation_reward): report it as terminal, so PPO does not bootstrap a
                # future that will never come.
                terminated, truncated = True, False
        return obs, float(reward), terminated, truncated, info

    def _summary(self, info: dict[str, Any]) -> dict[str, Any]:
        env: SingleAgentEnv = self.env  # type: ignore[assignment]
        return episode_summary(game_outcome(env.game), env.seat, self.labels,
                               bool(info.get("illegal_action", False)))


def build_env(cfg: TrainConfig, learner_seat: int | None = None) -> SingleAgentEnv:
    """The config's ``SingleAgentEnv``: its rule options and reward settings, by name."""
    return SingleAgentEnv(num_players=cfg.num_players, learner_seat=learner_seat,
                          **cfg.env_options())


def make_training_env(cfg: TrainConfig, spec: PoolSpec, rank: int,
                      start_step: int = 0) -> Callable[[], TrainingEnv]:
    """A thunk building environment ``rank``, seeded from ``cfg.seed``, ``rank`` and the step
    the run starts (or resumes) at, so a resumed run does not replay the same games."""

    def thunk() -> TrainingEnv:
        seed = int(np.random.SeedSequence([cfg.seed, rank, start_step]).generate_state(1)[0])
        env = build_env(cfg, cfg.learner_seat)
        env.reset(seed=seed)  # seeds the env's generator; SB3 resets again on its own
        env.action_space.seed(seed)
        return TrainingEnv(env, spec, seed)

    return thunk


def episode_summary(outcome: Outcome, seat: int, opponent_labels: Sequence[str],
                    illegal: bool = False) -> dict[str, Any]:
    """One finished game as the charts read it: the learner's seat, scores, ranks, who sat
    where (``opponent_labels`` in seat order after the learner), winners, how it ended."""
    n = outcome.num_players
    labels = ["learner"] * n
    for k, label in enumerate(opponent_labels):
        labels[(seat + 1 + k) % n] = label
    return {
        "seat": seat,
        "scores": list(outcome.scores),
        "ranks": list(outcome.ranks),
        "labels": labels,
        "winners": list(outcome.winners),
        "terminated": outcome.terminated,
        "rounds": outcome.rounds,
        "decisions": outcome.decisions,
        "illegal": illegal,
    }
