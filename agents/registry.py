"""Build agents from a name and parameters (for YAML files and the command line).

Spec strings on the command line look like ``name`` or ``name:key=value,key=value``, e.g.
``mcts:iterations=200,rollout=random`` or ``policy:path=runs/best.npz``; values are parsed as
YAML scalars (numbers, booleans, strings).  In YAML an agent is either such a string or a
mapping ``{agent: mcts, label: mcts200, params: {iterations: 200}}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .base import Agent


def _random(**kw: Any) -> Agent:
    from .base import RandomAgent

    return RandomAgent(**kw)


def _pass(**kw: Any) -> Agent:
    from .base import PassAgent

    return PassAgent(**kw)


def _heuristic(**kw: Any) -> Agent:
    from .heuristic import HeuristicAgent

    return HeuristicAgent(**kw)


def _mcts(**kw: Any) -> Agent:
    from .mcts import MCTSAgent

    return MCTSAgent(**kw)


def _policy(**kw: Any) -> Agent:
    from .policy import PolicyAgent

    return PolicyAgent(**kw)


def _human(**kw: Any) -> Agent:
    from .human import HumanAgent

    return HumanAgent(**kw)


REGISTRY: dict[str, Callable[..., Agent]] = {
    "random": _random,
    "pass": _pass,
    "heuristic": _heuristic,
    "mcts": _mcts,
    "policy": _policy,
    "human": _human,
}


@dataclass(frozen=True)
class AgentSpec:
    """A picklable recipe for an agent: registry name, parameters and a display label."""

    agent: str
    params: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""

    def __post_init__(self) -> None:
        if self.agent not in REGISTRY:
            raise ValueError(f"unknown agent {self.agent!r}; known agents: {sorted(REGISTRY)}")
        if not self.label:
            object.__setattr__(self, "label", _default_label(self.agent, self.params))

    def build(self, seed: int | None = None) -> Agent:
        """A fresh agent (``seed`` seeds it unless the params fix one)."""
        params = dict(self.params)
        params.setdefault("seed", seed)
        try:
            agent = REGISTRY[self.agent](**params)
        except TypeError as exc:
            raise ValueError(f"bad parameters for agent {self.agent!r}: {exc}") from None
        agent.name = self.label
        return agent


def _default_label(agent: str, params: Mapping[str, Any]) -> str:
    if not params:
        return agent
    inner = ",".join(f"{k}={v}" for k, v in params.items() if k != "seed")
    return f"{agent}({inner})" if inner else agent


def parse_spec(spec: str | Mapping[str, Any]) -> AgentSpec:
    """An :class:`AgentSpec` from ``"name:key=value,..."`` or a YAML mapping."""
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"agent", "params", "label"}
        if unknown or "agent" not in spec:
            raise ValueError(
                f"an agent entry needs 'agent' (and optional 'params', 'label'), got {dict(spec)}"
            )
        params = spec.get("params") or {}
        if not isinstance(params, Mapping):
            raise ValueError(f"params of agent {spec['agent']!r} must be a mapping")
        return AgentSpec(str(spec["agent"]), dict(params), str(spec.get("label") or ""))
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string, got {spec!r}")
    import yaml

    name, _, rest = spec.strip().partition(":")
    parsed: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"bad agent parameter {item!r} in {spec!r} (want key=value)")
            parsed[key.strip()] = yaml.safe_load(value.strip())
    return AgentSpec(name.strip(), parsed)


def make_agent(spec: str | Mapping[str, Any], seed: int | None = None) -> Agent:
    """Build an agent from a spec string or mapping (see the module docstring)."""
    return parse_spec(spec).build(seed)
