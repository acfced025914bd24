"""What every agent of the registry takes from a spec: each parameter's type and range, in one
place.

An agent spec (``mcts:c=1.4,iterations=200``, or a YAML entry) comes from the command line, a
tournament file, a training config or a run folder that someone may send.  Each value is
checked against the declaration here when the spec is read (:class:`~.registry.AgentSpec`
does it), before any agent is built or any game played: ``mcts:c=abc`` or ``eval_scale=0`` is
one line then, not an error at the first searched decision, hours later.  What needs the
whole spec (``net`` only with ``policy=network``) or the file itself (a policy that loads) is
the constructor's, which the up-front checks of ``zavandor eval``, ``ladder`` and tournaments
run once before the first game.

Budgets and counts are capped by :mod:`zavandor_env.io.limits`; decimals must be finite; paths
must be text naming a regular file (:func:`zavandor_env.io.params.regular_file`), never an
integer (``open(0)`` reads standard input).  A test holds these declarations to the
constructors' signatures, so a new parameter cannot go undeclared.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

from zavandor_env.io import limits
from zavandor_env.io.params import (
    Choice,
    FilePath,
    Flag,
    Function,
    Int,
    Number,
    Param,
    Schema,
    Table,
    Text,
    check_params,
)
from zavandor_env.resources import data_path

#: A spec's seed: what NumPy's generators and the native core take.
SEED = Int(low=0, high=limits.MAX_SEED, optional=True)
#: Rounds of a game are far fewer (about 17 at two players); an int the C++ search takes.
MAX_ROUNDS = 1_000
#: Tree edges of one IS-MCTS iteration (0: unlimited); an int the C++ search takes.
MAX_TREE_DEPTH = 10_000


#: The values the removed ``engine`` parameter took (heuristic, novice, mcts): saved specs
#: that name one keep working, the value ignored (:func:`drop_engine`).
OLD_ENGINES = ("auto", "native", "python")
_ENGINE = Choice(options=OLD_ENGINES, optional=True)
_engine_warned = False


def drop_engine(agent: str, engine: object) -> None:
    """Accept and ignore the removed ``engine`` parameter of an agent with one implementation
    (the C++ one): a one-line ``ValueError`` for a value it never took, and one
    ``DeprecationWarning`` per process for an old value, so saved specs keep working."""
    global _engine_warned
    if engine is None:
        return
    if engine not in OLD_ENGINES:
        raise ValueError(f"{agent}: engine must be 'auto', 'native' or 'python', got {engine!r}")
    if not _engine_warned:
        _engine_warned = True
        warnings.warn(f"{agent}: engine={engine} is ignored (every bot runs in the native core "
                      "now); drop it from the spec", DeprecationWarning, stacklevel=3)


def _weights() -> Table:
    from zavandor_env.agents.heuristic import HeuristicWeights, resolve_weights

    return Table(what="heuristic weights", types=(HeuristicWeights,),
                 validate=resolve_weights, optional=True)


def _heuristic() -> dict[str, Param]:
    return {"seed": SEED, "weights": _weights(), "engine": _ENGINE,
            "config": FilePath(what="heuristic weights file", optional=True)}


def _planner() -> dict[str, Param]:
    from zavandor_env.agents.planner import PlannerParams, resolve_params

    return {"seed": SEED, "config": FilePath(what="planner parameters file", optional=True),
            "params": Table(what="planner parameters", types=(PlannerParams,),
                            validate=resolve_params, optional=True)}


def _mcts() -> dict[str, Param]:
    from zavandor_env.agents.mcts import POLICIES as scripted
    from zavandor_env.agents.mcts import ROLLOUTS
    from zavandor_env.agents.netsearch import SEARCH_PARAMS

    budget = Int(low=1, high=limits.MAX_SEARCH_ITERATIONS)
    finite = Number(low=0.0)
    return {
        "seed": SEED, "iterations": budget,
        "seconds": Number(low=0.0, high=limits.MAX_SEARCH_SECONDS, open_low=True,
                          optional=True),
        "rollout": Choice(options=tuple(dict.fromkeys((*scripted, "random", *ROLLOUTS))),
                          optional=True),
        "horizon_rounds": Int(low=0, high=MAX_ROUNDS),
        "c": finite, "prior_weight": finite,
        "eval_scale": Number(low=0.0, open_low=True),
        "search_all": Flag(), "avoid_curse": Flag(), "no_ruin": Flag(optional=True),
        "weights": _weights(), "engine": _ENGINE,
        "algorithm": Choice(options=("flat", "tree")),
        "switch_z": finite,
        "min_pairs": Int(low=0, high=limits.MAX_SEARCH_ITERATIONS),
        "opponent_model": Choice(options=("search", "policy", "heuristic")),
        "max_depth": Int(low=0, high=MAX_TREE_DEPTH),
        "policy": Choice(options=(*scripted, "network")),
        "net": FilePath(what="policy file", resolve=data_path, optional=True),
        # the network search's own, None for its defaults
        **{key: dataclasses.replace(SEARCH_PARAMS[key], optional=True)
           for key in ("c_puct", "opponent_temperature", "fpu_reduction", "rollout_steps")},
    }


def _policy() -> dict[str, Param]:
    return {
        "seed": SEED,
        "path": FilePath(what="policy file", resolve=data_path),
        "deterministic": Flag(), "avoid_curse": Flag(),
        "device": Text(pattern=r"[a-z]{2,16}(:[0-9]{1,3})?", what="a torch device (cpu, cuda:0)"),
    }


def _human() -> dict[str, Param]:
    return {"seed": SEED, "colour": Flag(), "input_fn": Function(optional=True),
            "output_fn": Function(optional=True)}


def _openspiel() -> dict[str, Param]:
    return {"seed": SEED, "bot": Choice(options=("ismcts", "random")),
            # one simulation only expands the root: OpenSpiel's IS-MCTS then fails an assert
            "simulations": Int(low=2, high=limits.MAX_SEARCH_ITERATIONS),
            "uct_c": Number(low=0.0), "rollouts": Int(low=1, high=limits.MAX_ROLLOUTS)}


_SCHEMAS: dict[str, Callable[[], dict[str, Param]]] = {
    "random": lambda: {"seed": SEED},
    "pass": lambda: {"seed": SEED},
    "heuristic": _heuristic,
    "novice": lambda: {**_heuristic(), "blunder": Number(low=0.0, high=1.0)},
    "naive": lambda: {"seed": SEED},
    "one_ply": lambda: {"seed": SEED},
    "planner": _planner,
    "mcts": _mcts,
    "openspiel": _openspiel,
    "policy": _policy,
    "human": _human,
}


@cache
def agent_schema(agent: str) -> Schema | None:
    """What agent ``agent`` of the registry takes from a spec (None: not declared here)."""
    make = _SCHEMAS.get(agent)
    return None if make is None else make()


def declared_agents() -> tuple[str, ...]:
    """The agents declared here."""
    return tuple(_SCHEMAS)


def check_agent_params(agent: str, params: dict[str, Any] | Any) -> None:
    """Refuse the first of ``params`` that agent ``agent`` does not take or allow, in one
    :class:`~zavandor_env.io.params.ParamError` line (a ``ValueError``) naming the agent, the
    parameter, the value and what is allowed.  An agent not declared here is not checked."""
    schema = agent_schema(agent)
    if schema is not None:
        check_params(f"bad parameters for agent {agent!r}", schema, params)


__all__ = ["OLD_ENGINES", "agent_schema", "check_agent_params", "declared_agents",
           "drop_engine"]
