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
    "Agent": "agents.base",
    "RandomAgent": "agents.base",
    "PassAgent": "agents.base",
    "HeuristicAgent": "agents.heuristic",
    "HeuristicWeights": "agents.heuristic",
    "MCTSAgent": "agents.mcts",
    "PolicyAgent": "agents.policy",
    "PolicyLoadError": "agents.policy",
    "HumanAgent": "agents.human",
    "AgentSpec": "agents.registry",
    "make_agent": "agents.registry",
    "parse_spec": "agents.registry",
    "REGISTRY": "agents.registry",
    "play_game": "agents.match",
    "GameResult": "agents.match",
}

__all__ = list(_EXPORTS)  # resolved lazily in __getattr__


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
