"""The agent contract: the one protocol every player of a game implements.

Bots, search, trained policies and people all play through :class:`Agent`; the tournament,
``zavandor play``, the Gymnasium adapter's opponents and training's evaluation call nothing
else.  It sits beside :class:`~zavandor_env.engine.view.PlayerView` because a view is what an
agent decides from.  The engine itself never calls an agent: a driver (e.g.
``zavandor_env.agents.play_game``) asks the game who decides, asks that seat's agent, and
applies the answer.

An agent is told which seat it plays with :meth:`Agent.reset` at the start of each game and is
asked for a decision with :meth:`Agent.act` whenever that seat must decide.  It decides from
what the seat may know:

* ``view`` -- a :class:`PlayerView`: the public table plus the seat's own hand (never the state
  itself, so an agent cannot peek at hidden cards or deck order);
* ``observation`` -- the environment's encoded observation dict (``{"observation",
  "action_mask"}``), computed only for agents whose ``needs_observation`` is true, because
  encoding costs time that search and rule-based agents do not need;
* ``legal_actions`` -- the ascending tuple of legal action indices (never empty).

``act`` returns one of ``legal_actions``.  Agents are seedable: the same seed, seat and game give
the same decisions.  A plain function becomes an agent explicitly, with :class:`FunctionAgent`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from zavandor_env.engine.view import PlayerView

#: The signature of a decision function: ``(observation or None, view, legal_actions) -> action``.
DecisionFn = Callable[[dict[str, Any] | None, PlayerView, Sequence[int]], int]


class Agent(ABC):
    """Base class of all agents (see the module docstring for the protocol).

    Attributes:
        name: a short label used in tournament tables.
        needs_observation: whether :meth:`act` reads the encoded observation.
        seat: the seat played in the current game (-1 before the first :meth:`reset`).
        rng: the agent's own seeded generator (reseeded by :meth:`reset` when given a seed).
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

    def close(self) -> None:  # noqa: B027  (an optional hook: most agents hold nothing)
        """Release resources (models, files); the default has none."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class FunctionAgent(Agent):
    """An agent made from a decision function ``fn(observation, view, legal_actions) -> action``.

    Args:
        fn: the decision function; ``observation`` is ``None`` unless ``needs_observation``.
        needs_observation: compute the encoded observation for ``fn`` (costs time).
        name: the label used in tables.
    """

    def __init__(self, fn: DecisionFn, needs_observation: bool = False,
                 name: str = "function") -> None:
        super().__init__()
        if not callable(fn):
            raise TypeError(f"FunctionAgent needs a callable, got {fn!r}")
        self.fn = fn
        self.name = name
        # An instance attribute shadows the class-level flag for this one agent.
        self.needs_observation = needs_observation  # type: ignore[misc]

    def act(
        self,
        observation: dict[str, Any] | None,
        view: PlayerView,
        legal_actions: Sequence[int],
    ) -> int:
        return int(self.fn(observation, view, legal_actions))
