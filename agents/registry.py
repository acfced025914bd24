"""Build agents from a name and parameters (for YAML files and the command line).

Spec strings on the command line look like ``name`` or ``name:key=value,key=value``, e.g.
``mcts:iterations=200,rollout=random`` or ``policy:path=runs/best.npz,deterministic=false``.
Values are read as scalars: ``true``/``false`` (any case) are booleans, ``none``/``null`` is
None, integers and decimals are numbers, anything else is a string (quotes are stripped).  The
key ``label`` names the agent in reports (``random:label=r2``).  In YAML an agent is either
such a string or a mapping ``{agent: mcts, label: mcts200, params: {iterations: 200}}``.

Unknown agent names and unknown parameter keys are refused when the spec is read, with one
line naming the agent, the key and the keys it knows; so is every value that its agent's
declaration (:mod:`~zavandor_env.agents.spec_params`: types, ranges, budgets capped by
:mod:`zavandor_env.io.limits`, paths that are text and name regular files) does not allow, in
one line naming the agent, the parameter, the value and what is allowed.  What depends on the
whole spec or on a file's content (a policy that loads) is checked by building the agent, which
the up-front checks of ``zavandor eval``, ladders and tournaments do before the first game.

**Engine.**  Every scripted agent (``heuristic``, ``novice``, ``naive``, ``planner``,
``mcts``) has one implementation, in the native core.  The ``engine=auto|native|python``
parameter that chose between two is gone: a saved spec that names it still builds (the value
is ignored, with one ``DeprecationWarning`` per process); any other value is refused.

**A class of your own**: ``python:package.module:ClassName`` (parameters after a comma, as
for any agent: ``python:mybots:Greedy,depth=2,label=mine``) builds that :class:`Agent` subclass
of an importable module.  Importing runs the module's code, so only the caller may name one:
``zavandor eval --agents`` and :func:`zavandor_env.evaluate` do; a spec read from a file
(tournament files, training configs, run folders) that names one is refused, as is one that
:func:`parse_spec` reads without ``allow_import=True``.

**Trust comes only from the caller.**  No spec, string or mapping, may carry ``trust_pickle``
(the consent to unpickle an SB3 ``.zip``, which runs code from the file): specs come from
tournament files, training configs and run folders that someone may send, and an opt-in
written into such a file would be the sender's, not the user's.  The caller grants it instead:
``make_agent(spec, trust_pickle=True)``, ``parse_spec(spec, trust_pickle=True)``, or the
``--trust-pickle`` flag of ``zavandor eval``/``play``/``scorecard``; the granted consent travels
with the :class:`AgentSpec` (to worker processes too) and reaches only agents that take it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from inspect import signature
from typing import Any

from zavandor_env.agents.base import Agent
from zavandor_env.agents.spec_params import check_agent_params
from zavandor_env.io.params import one_line, shown


class AgentSpecError(ValueError):
    """An agent spec names an unknown agent, has a malformed or unknown parameter, or its
    agent cannot be built from the parameters."""


#: The parameter a spec may never carry (see the module docstring): the caller grants it.
TRUST_PICKLE = "trust_pickle"
#: The agent-name prefix of a user's own class, ``python:module:Class``.
PYTHON_PREFIX = "python:"
_CLASS_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def _trust_refused(agent: str) -> str:
    """One line: why a spec cannot opt in to unpickling, and how the caller does."""
    return (f"agent {agent!r}: {TRUST_PICKLE} cannot be set in an agent spec (specs come from "
            "files and run folders that others may send); for a pickled SB3 .zip you trust, "
            "pass --trust-pickle on the command line (zavandor eval/play/scorecard) or "
            "make_agent(spec, trust_pickle=True) / PolicyAgent(path, trust_pickle=True) in "
            "Python; or convert it without unpickling: python -m zavandor_env.train.ppo.export "
            "FILE.zip")


# name -> "module:Class"; imported only when the agent is checked or built.
_CLASSES: dict[str, str] = {
    "random": "zavandor_env.agents.base:RandomAgent",
    "pass": "zavandor_env.agents.base:PassAgent",
    "heuristic": "zavandor_env.agents.heuristic:HeuristicAgent",
    "novice": "zavandor_env.agents.novice:NoviceAgent",
    "naive": "zavandor_env.agents.naive:NaiveAgent",
    "planner": "zavandor_env.agents.planner:PlannerAgent",
    "mcts": "zavandor_env.agents.mcts:MCTSAgent",
    "one_ply": "zavandor_env.agents.one_ply:OnePlyAgent",  # the example bot to copy
    "openspiel": "zavandor_env.envs.openspiel:OpenSpielAgent",  # needs the openspiel extra
    "policy": "zavandor_env.agents.policy:PolicyAgent",
    "human": "zavandor_env.agents.human:HumanAgent",
}


def _load(path: str) -> type[Agent]:
    module, _, name = path.partition(":")
    cls: type[Agent] = getattr(import_module(module), name)
    return cls


def _factory(path: str) -> Callable[..., Agent]:
    def build(**kw: Any) -> Agent:
        return _load(path)(**kw)

    build.agent_class_path = path  # type: ignore[attr-defined]  # read by _takes
    return build


REGISTRY: dict[str, Callable[..., Agent]] = {name: _factory(p) for name, p in _CLASSES.items()}


def _user_class(agent: str) -> type[Agent]:
    """The :class:`Agent` subclass that ``python:module:Class`` names, imported now."""
    path = agent.removeprefix(PYTHON_PREFIX)
    module, _, name = path.partition(":")
    try:
        cls = getattr(import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise AgentSpecError(f"agent {agent!r}: cannot import {path} ({one_line(exc)}); the "
                             "module must be importable: installed, or on PYTHONPATH") from None
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise AgentSpecError(f"agent {agent!r}: {path} is not a subclass of "
                             "zavandor_env.agents.base.Agent (wrap a function with "
                             "FunctionAgent, or pass it to zavandor_env.evaluate)")
    return cls


def _agent_class(agent: str) -> Callable[..., Any]:
    """The class agent ``agent`` builds (its factory when it has no class path)."""
    if agent.startswith(PYTHON_PREFIX):
        return _user_class(agent)
    factory = REGISTRY[agent]
    path = getattr(factory, "agent_class_path", None)
    return _load(path) if path else factory


def is_interactive(agent: str) -> bool:
    """Whether the agent asks a person (so it needs this process's terminal)."""
    return bool(getattr(_agent_class(agent), "interactive", False))


@dataclass(frozen=True)
class AgentSpec:
    """A picklable recipe for an agent: registry name, parameters and a display label, plus
    the caller's consent to unpickling (``trust_pickle``, never part of ``params``).

    Raises :class:`AgentSpecError` for an unknown name, a parameter the agent does not take,
    or ``trust_pickle`` among the parameters (see the module docstring).
    """

    agent: str
    params: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""
    trust_pickle: bool = False
    """granted by the caller (``--trust-pickle``, ``make_agent(..., trust_pickle=True)``): the
    agent may unpickle the file it loads; never read from a spec"""
    allow_import: bool = False
    """granted by the caller (``zavandor eval --agents``, ``zavandor_env.evaluate``): a
    ``python:module:Class`` agent may be imported; never read from a spec"""

    def __post_init__(self) -> None:
        if TRUST_PICKLE in self.params:
            raise AgentSpecError(_trust_refused(self.agent))
        if type(self.trust_pickle) is not bool:  # consent is True, not something truthy
            raise AgentSpecError(f"trust_pickle must be True or False, got {self.trust_pickle!r}")
        if isinstance(self.agent, str) and self.agent.startswith(PYTHON_PREFIX):
            self._check_user_class()
        elif self.agent not in REGISTRY:
            raise AgentSpecError(f"unknown agent {shown(self.agent)}; known agents: "
                                 f"{', '.join(sorted(REGISTRY))}")
        else:
            try:  # each key, and its value's type and range, declared in agents/spec_params.py
                check_agent_params(self.agent, self.params)
            except ValueError as exc:
                raise AgentSpecError(str(exc)) from None
        if not isinstance(self.label, str):
            raise AgentSpecError(f"agent {self.agent!r}: label must be text, "
                                 f"got {shown(self.label)}")
        if not self.label:  # (a label's control characters are escaped where it is shown)
            object.__setattr__(self, "label", _default_label(self.agent, self.params))

    def _check_user_class(self) -> None:
        """A ``python:module:Class`` agent: well formed, and named by the caller (importing
        it runs its module's code, so no file may name one)."""
        if self.allow_import is not True:
            raise AgentSpecError(
                f"agent {shown(self.agent)}: a class of your own can be named only on the "
                "command line (zavandor eval --agents) or in Python (zavandor_env.evaluate), "
                "not in a file: importing it runs code")
        if not _CLASS_PATH.fullmatch(self.agent.removeprefix(PYTHON_PREFIX)):
            raise AgentSpecError(f"agent {shown(self.agent)}: write python:package.module:Class")

    @property
    def interactive(self) -> bool:
        """Whether this agent asks a person for its decisions."""
        return is_interactive(self.agent)

    def trusting(self, trust_pickle: bool = True) -> AgentSpec:
        """This spec with the caller's consent to unpickling granted (or withdrawn)."""
        return dataclasses.replace(self, trust_pickle=trust_pickle)

    def build(self, seed: int | None = None) -> Agent:
        """A fresh agent (``seed`` seeds it unless the params fix one); the caller's
        ``trust_pickle`` reaches it only when it takes that parameter."""
        params = dict(self.params)
        params.setdefault("seed", seed)
        if self.trust_pickle and TRUST_PICKLE in signature(_agent_class(self.agent)).parameters:
            params[TRUST_PICKLE] = True
        make = (_user_class(self.agent) if self.agent.startswith(PYTHON_PREFIX)
                else REGISTRY[self.agent])
        try:
            agent = make(**params)
        except TypeError as exc:  # a value of the wrong type deep in the constructor
            detail = one_line(exc)
            raise AgentSpecError(f"bad parameters for agent {self.agent!r}: {detail}") from None
        agent.name = self.label
        return agent


def _default_label(agent: str, params: Mapping[str, Any]) -> str:
    if agent.startswith(PYTHON_PREFIX):  # a class of the user's: its name
        agent = agent.rpartition(":")[2]
    if not params:
        return agent
    inner = ",".join(f"{k}={v}" for k, v in params.items() if k != "seed")
    return f"{agent}({inner})" if inner else agent


_INT = re.compile(r"[+-]?\d+")
#: Digits of the longest integer a spec may write (every ceiling has at most 19).
_MAX_INT_DIGITS = 100
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


def parse_value(text: str) -> Any:
    """A spec value as a scalar: bool, None, int, float or string (see the module docstring)."""
    value = text.strip()
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null", "~"):
        return None
    if _INT.fullmatch(value):
        if len(value) > _MAX_INT_DIGITS:  # Python refuses to convert more digits
            raise AgentSpecError(f"agent spec value {shown(value)} is not allowed: an integer "
                                 f"of at most {_MAX_INT_DIGITS} digits")
        return int(value)
    if _FLOAT.fullmatch(value):
        return float(value)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_spec(spec: str | Mapping[str, Any], *, trust_pickle: bool = False,
               allow_import: bool = False) -> AgentSpec:
    """An :class:`AgentSpec` from ``"name:key=value,..."`` (``"python:module:Class,key=value"``
    for a class of your own) or a YAML mapping; ``trust_pickle`` is the caller's consent to
    unpickling, ``allow_import`` to importing a named class (neither is ever read from
    ``spec``: see the module docstring)."""
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"agent", "params", "label"}
        if unknown or "agent" not in spec:
            raise AgentSpecError("an agent entry needs 'agent' (and optional 'params', "
                                 f"'label'), got {shown(dict(spec))}")
        params = spec.get("params") or {}
        if not isinstance(params, Mapping):
            raise AgentSpecError(f"params of agent {shown(spec['agent'])} must be a mapping")
        label: Any = spec.get("label") or ""
        if type(label) in (int, float) and abs(label) < 1e18:  # YAML's `label: 200`
            label = str(label)
        if not isinstance(spec["agent"], str) or not isinstance(label, str):
            raise AgentSpecError(f"an agent entry's 'agent' and 'label' must be text, got "
                                 f"{shown(spec['agent'])} and {shown(label)}")
        return AgentSpec(spec["agent"], dict(params), label, trust_pickle, allow_import)
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, got {shown(spec)}")
    text = spec.strip()
    name, _, rest = (text.partition(",") if text.startswith(PYTHON_PREFIX)
                     else text.partition(":"))
    parsed: dict[str, Any] = {}
    label = ""
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise AgentSpecError(f"bad agent parameter {shown(item)} in {shown(spec)} "
                                     "(want key=value)")
            if key == "label":
                label = value.strip()
            else:
                parsed[key] = parse_value(value)
    return AgentSpec(name.strip(), parsed, label, trust_pickle, allow_import)


def make_agent(spec: str | Mapping[str, Any], seed: int | None = None, *,
               trust_pickle: bool = False) -> Agent:
    """Build an agent from a spec string or mapping (see the module docstring);
    ``trust_pickle`` is the caller's consent to unpickling, which no spec can give."""
    return parse_spec(spec, trust_pickle=trust_pickle).build(seed)
