"""Reference agents for *The Scepter of Zavandor* and the tools to compare them.

``RandomAgent``, ``NoviceAgent``, ``HeuristicAgent``, ``NaiveAgent`` (a port of sozav's
computer player), ``MCTSAgent``, ``PolicyAgent``, ``HumanAgent`` and ``OnePlyAgent`` (the
example to copy for a bot of one's own, in plain Python) share the one agent
contract, :class:`zavandor_env.engine.agent.Agent`; :func:`make_agent` builds one from a spec
(``"name:key=value,..."``), and :func:`make_env` is the Gymnasium entry point of
``Zavandor-v0`` (the learner against agents given by spec).  Exports are lazy, so
``import zavandor_env.agents`` stays light (no torch, no numpy) until a class that needs more
is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

if __name__ == "agents":  # the repository's folder imported by its own name: an alias, no copy
    from zavandor_env._aliases import alias_package

    alias_package("agents", "zavandor_env.agents")

_EXPORTS = {
    "Agent": "zavandor_env.agents.base",
    "FunctionAgent": "zavandor_env.agents.base",
    "RandomAgent": "zavandor_env.agents.base",
    "PassAgent": "zavandor_env.agents.base",
    "HeuristicAgent": "zavandor_env.agents.heuristic",
    "HeuristicWeights": "zavandor_env.agents.heuristic",
    "MCTSAgent": "zavandor_env.agents.mcts",
    "NaiveAgent": "zavandor_env.agents.naive",
    "NoviceAgent": "zavandor_env.agents.novice",
    "OnePlyAgent": "zavandor_env.agents.one_ply",
    "PolicyAgent": "zavandor_env.agents.policy",
    "PolicyLoadError": "zavandor_env.agents.policy",
    "HumanAgent": "zavandor_env.agents.human",
    "AgentSpec": "zavandor_env.agents.registry",
    "make_agent": "zavandor_env.agents.registry",
    "parse_spec": "zavandor_env.agents.registry",
    "REGISTRY": "zavandor_env.agents.registry",
    "play_game": "zavandor_env.eval.match",
    "GameResult": "zavandor_env.eval.match",
    "make_env": "zavandor_env.envs.gym_entry",
}

__all__ = list(_EXPORTS)  # resolved lazily in __getattr__


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'zavandor_env.agents' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
