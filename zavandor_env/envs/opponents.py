"""Who the learner plays: the one reading of an ``opponents`` argument, the self-play pool
description.

Every face takes ``opponents`` the same way (:func:`per_seat`): a sequence gives one
opponent per other seat, in seat order after the learner; anything else is the opponent of
every other seat.

The training pool reaches the environments as a :class:`PoolSpec` (plain data: opponent keys,
weights and snapshot file paths), which works the same in one process and in worker
processes; the training env draws each game's opponents from it at the start of the game
(:class:`~zavandor_env.envs.sb3.NativeVecEnv`).
An opponent key is :data:`SNAPSHOT` or an agent spec of :mod:`zavandor_env.agents.registry`
(``heuristic``, ``mcts:iterations=16``...), so a new agent needs no change here.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zavandor_env.agents.registry import AgentSpec, parse_spec
from zavandor_env.engine.agent import Agent

#: The one opponent key that is not an agent spec: a frozen past copy of the learner.
SNAPSHOT = "snapshot"

#: The default opponents of every single-learner face (``gymnasium.make("Zavandor-v0")``,
#: ``SingleAgentEnv``, the SB3 ``make_vec_env``): the rule-based novice (see
#: :mod:`zavandor_env.envs.gym_entry` for why).
DEFAULT_OPPONENTS = "novice"

#: One opponent: an agent spec (a registry string such as ``"heuristic"``, a mapping
#: ``{agent, params, label}`` or an :class:`AgentSpec`), an :class:`Agent`, or ``None`` for
#: the environment's built-in uniform random player.
OpponentSpec = str | Mapping[str, Any] | AgentSpec | Agent | None


def per_seat(opponents: Any, others: int) -> list[Any]:
    """``opponents`` as one entry per other seat: a sequence (not a string) must hold exactly
    ``others`` (else a one-line ``ValueError``); anything else is repeated for every seat."""
    if isinstance(opponents, Sequence) and not isinstance(opponents, (str, bytes)):
        if len(opponents) != others:
            raise ValueError(f"give one opponent per other seat ({others}), "
                             f"got {len(opponents)}")
        return list(opponents)
    return [opponents] * others


def opponent_agent(spec: object) -> Agent | None:
    """The agent of one opponent spec (see :data:`OpponentSpec`); ``None`` stays ``None``;
    anything else is a one-line ``TypeError``."""
    if spec is None or isinstance(spec, Agent):
        return spec
    if isinstance(spec, AgentSpec):
        return spec.build()
    if isinstance(spec, (str, Mapping)):
        return parse_spec(spec).build()
    raise TypeError(
        f"an opponent must be an agent spec (e.g. 'novice', 'heuristic'), an AgentSpec, an "
        f"Agent or None (uniform random play), got {spec!r}; wrap a function "
        f"fn(observation, view, legal_actions) in zavandor_env.engine.agent.FunctionAgent")


def opponent_agents(opponents: object, others: int) -> list[Agent | None]:
    """One opponent agent (or ``None``) per other seat (:func:`per_seat`,
    :func:`opponent_agent`); an agent given for several seats is copied for each further seat
    (an agent plays one seat at a time)."""
    built: list[Agent | None] = []
    seen: set[int] = set()
    for spec in per_seat(opponents, others):
        agent = opponent_agent(spec)
        if agent is not None and id(agent) in seen:
            agent = copy.deepcopy(agent)
        seen.add(id(agent))
        built.append(agent)
    return built


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

    def draw(self, rng: random.Random, seats: int) -> list[tuple[str, str | None]]:
        """One episode's draw for ``seats`` seats: ``(snapshot label, file)`` or
        ``(agent spec, None)`` per seat."""
        drawn: list[tuple[str, str | None]] = []
        for _ in range(seats):
            key = self.draw_opponent(rng)
            drawn.append(self.draw_snapshot(rng) if key == SNAPSHOT else (key, None))
        return drawn
