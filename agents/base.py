"""Base agents: the contract (re-exported from :mod:`zavandor_env.engine.agent`, where it is
defined beside :class:`~zavandor_env.engine.PlayerView`) and the two trivial players.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zavandor_env.engine.actions import END_TURN, PASS
from zavandor_env.engine.agent import Agent, DecisionFn, FunctionAgent
from zavandor_env.engine.view import PlayerView

__all__ = ["Agent", "DecisionFn", "FunctionAgent", "PassAgent", "RandomAgent"]


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
