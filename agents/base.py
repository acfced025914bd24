"""Base agents: the contract (re-exported from :mod:`zavandor_env.engine.agent`, where it is
defined beside :class:`~zavandor_env.engine.PlayerView`), the two trivial players, and
:func:`decision_core`, the native core every scripted bot decides on.

The scripted bots (heuristic, novice, naive, planner, MCTS) have one implementation, in C++
(``native/src``); their Python classes hold the parameters and hand the decision to the core.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zavandor_env.engine.actions import END_TURN, PASS
from zavandor_env.engine.agent import Agent, DecisionFn, FunctionAgent
from zavandor_env.engine.native import core_module
from zavandor_env.engine.view import PlayerView

__all__ = ["Agent", "DecisionFn", "EngineUnavailableError", "FunctionAgent", "PassAgent",
           "RandomAgent", "decision_core", "safe_default"]


class EngineUnavailableError(ValueError, RuntimeError):
    """The native core (or a part of it a search needs) is not built.  A ``ValueError``, so a
    command line reports it as a bad agent parameter; a ``RuntimeError`` too, as before."""


def decision_core(view: PlayerView) -> Any:
    """The native core (``_native.Core``) a bot decides on for the seat deciding in ``view``.

    On a native game it is the game's own core (nothing is copied).  On a game of the Python
    rules (the oracle that rule tests and ``selfcheck`` drive) it is a core built from a copy
    of the state, once per call: the bots run only in C++, and they read only what the
    deciding seat may know, so handing them the whole state reveals nothing to the agent.
    """
    core = view.native_core
    if core is not None:
        return core
    data = view._state.to_dict()
    data["history"] = []  # a log the rules never read: not worth converting
    return core_module().Core.from_state_dict(data)


def safe_default(legal_actions: Sequence[int]) -> int:
    """What a scripted player plays when its choice is not among ``legal_actions`` (a caller
    that offers a filtered list): end the turn, else pass, else the first legal action."""
    for safe in (END_TURN, PASS):
        if safe in legal_actions:
            return safe
    return legal_actions[0]


class RandomAgent(Agent):
    """Uniformly random over the legal actions (the floor every agent must beat)."""

    name = "random"

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        return legal_actions[int(self.rng.random() * len(legal_actions))]


class PassAgent(Agent):
    """Never spends: ends its turn and passes every auction (a rigged, known-weak opponent
    used to test the evaluator; it opens only when the rules force it to)."""

    name = "pass"

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        return safe_default(legal_actions)
