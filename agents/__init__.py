"""Reference agents for *The Scepter of Zavandor* and the tools to compare them.

``RandomAgent``, ``HeuristicAgent``, ``MCTSAgent``, ``PolicyAgent`` and ``HumanAgent`` share
the protocol of :class:`agents.base.Agent`; :func:`make_agent` builds one from a name and
parameters.  Exports are lazy, so ``import agents`` stays light (no torch, no numpy) until a
class that needs more is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Agent": "zavandor_env.agents.base",
    "RandomAgent": "zavandor_env.agents.base",
    "PassAgent": "zavandor_env.agents.base",
    "HeuristicAgent": "zavandor_env.agents.heuristic",
    "HeuristicWeights": "zavandor_env.agents.heuristic",
    "MCTSAgent": "zavandor_env.agents.mcts",
    "PolicyAgent": "zavandor_env.agents.policy",
    "PolicyLoadError": "zavandor_env.agents.policy",
    "HumanAgent": "zavandor_env.agents.human",
    "AgentSpec": "zavandor_env.agents.registry",
    "make_agent": "zavandor_env.agents.registry",
    "parse_spec": "zavandor_env.agents.registry",
    "REGISTRY": "zavandor_env.agents.registry",
    "play_game": "zavandor_env.agents.match",
    "GameResult": "zavandor_env.agents.match",
}

__all__ = list(_EXPORTS)  # resolved lazily in __getattr__


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
