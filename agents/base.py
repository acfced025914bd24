"""The agent protocol shared by every player of a Zavandor game (bots, trained policies, humans).

An agent is told which seat it plays with :meth:`Agent.reset` at the start of each game and is
asked for a decision with :meth:`Agent.act` whenever that seat must decide.  It decides from
what the seat may know:

* ``view`` -- a :class:`~zavandor_env.engine.view.PlayerView`: the public table plus the seat's
  own hand (never the state itself, so an agent cannot peek at hidden cards or deck order);
* ``observation`` -- the environment's encoded observation dict (``{"observation",
  "action_mask"}``), computed only for agents whose ``needs_observation`` is true, because
  encoding costs time that search and rule-based agents do not need;
* ``legal_actions`` -- the ascending tuple of legal action indices (never empty).

``act`` returns one of ``legal_actions``.  Agents are seedable: the same seed, seat and game
give the same decisions.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from zavandor_env.engine.actions import END_TURN, PASS
from zavandor_env.engine.view import PlayerView


class Agent(ABC):
    """Base class of all agents (see the module docstring for the protocol).

    Attributes:
        name: a short label used in tournament tables.
        needs_observation: whether :meth:`act` reads the encoded observation.
    """

    needs_observation: ClassVar[bool] = False
    name: str = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.seat = -1
        self.num_players = 0
        self.rng = random.Random(seed)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        """Start a new game in ``seat`` of ``num_players``; ``seed`` (if given) reseeds."""
        self.seat = seat
        self.num_players = num_players
        if seed is not None:
            self.rng.seed(seed)

    @abstractmethod
    def act(
        self,
        observation: dict[str, Any] | None,
        view: PlayerView,
        legal_actions: Sequence[int],
    ) -> int:
        """Choose one of ``legal_actions`` for the seat this agent plays."""

    def close(self) -> None:
        """Release resources (models, files); the default has none."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class RandomAgent(Agent):
    """Uniformly random over the legal actions (the floor every agent must beat)."""

    name = "random"

    def act(
        self,
        observation: dict[str, Any] | None,
        view: PlayerView,
        legal_actions: Sequence[int],
    ) -> int:
        return legal_actions[int(self.rng.random() * len(legal_actions))]


class PassAgent(Agent):
    """Never spends: ends its turn and passes every auction (a rigged, known-weak opponent
    used to test the evaluator; it opens only when the rules force it to)."""

    name = "pass"

    def act(
        self,
        observation: dict[str, Any] | None,
        view: PlayerView,
        legal_actions: Sequence[int],
    ) -> int:
        for preferred in (END_TURN, PASS):
            if preferred in legal_actions:
                return preferred
        return legal_actions[0]
