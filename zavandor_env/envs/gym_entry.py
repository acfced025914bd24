"""``gymnasium.make("Zavandor-v0")``: one learner seat against opponents that play the game.

:func:`make_env` is the registered entry point.  It builds a
:class:`~zavandor_env.envs.SingleAgentEnv` whose opponents are agents given by spec (registry
names such as ``"heuristic"`` or ``"mcts:iterations=200"``, see
:mod:`zavandor_env.agents.registry`), so the Gymnasium id can offer rule-based opponents while
the environment layer stays free of agents.  ``SingleAgentEnv(...)`` defaults to the same
``"novice"`` opponents (``opponents=None``: uniform random play).

Why the default opponents are ``"novice"`` (:class:`~zavandor_env.agents.novice.NoviceAgent`:
the heuristic with a random lapse on 2% of its turn decisions): a learner must be able to win
some games soon, and the game must go on after that.  Random opponents curse themselves in the
first round, so there is no game to learn; the full heuristic is not beaten at all by a short
run.  The novice's lapses sometimes curse it, which a small learner exploits within tens of
thousands of steps by learning not to curse itself, and the heuristic it is built on leaves the
rest of the game to learn (measured: docs/benchmarks.md, "Learning against Zavandor-v0's
default opponents").

docs/tutorials/train.md ("MaskablePPO in a minute") gives the commands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from zavandor_env.agents.registry import AgentSpec, parse_spec
from zavandor_env.engine.agent import Agent
from zavandor_env.envs.single_agent import SingleAgentEnv

#: The opponents of ``gymnasium.make("Zavandor-v0")`` (a registry spec, one agent per seat).
DEFAULT_OPPONENTS: Final = "novice"

#: One opponent: a registry spec (string, mapping or :class:`AgentSpec`), an :class:`Agent`,
#: or ``None`` for the environment's built-in uniform random player.
OpponentSpec = str | Mapping[str, Any] | AgentSpec | Agent | None


def make_env(
    num_players: int = 2,
    opponents: OpponentSpec | Sequence[OpponentSpec] = DEFAULT_OPPONENTS,
    **options: Any,
) -> SingleAgentEnv:
    """A :class:`SingleAgentEnv` against opponents built from agent specs.

    Args:
        num_players: 2 to 6.
        opponents: one spec for every other seat (each seat gets its own agent), or a sequence
            of ``num_players - 1`` specs in seat order after the learner.  A spec is a registry
            string (``"novice"``, the default; ``"heuristic"``; ``"random"``), a mapping
            ``{agent, params, label}``, an :class:`AgentSpec`, an :class:`Agent`, or ``None``
            (the environment's fast built-in random player).
        **options: :class:`SingleAgentEnv` options (``learner_seat``, ``render_mode``,
            ``illegal_action``), reward options (``reward``, ``vp_delta``, ``step_reward``,
            ``truncation_reward``, ``illegal_reward``) and rule options (``max_rounds``, ...).
    """
    if type(num_players) is not int:
        raise ValueError(f"num_players must be an integer from 2 to 6, got {num_players!r}")
    others = num_players - 1
    if isinstance(opponents, Sequence) and not isinstance(opponents, str):
        if len(opponents) != others:
            raise ValueError(f"give one opponent per other seat ({others}), "
                             f"got {len(opponents)}")
        seats = [build_opponent(spec) for spec in opponents]
    else:
        seats = [build_opponent(opponents) for _ in range(others)]
    return SingleAgentEnv(num_players=num_players, opponents=seats, **options)


def build_opponent(spec: OpponentSpec) -> Agent | None:
    """One opponent agent from a spec (see :func:`make_env`); ``None`` stays ``None``."""
    if spec is None or isinstance(spec, Agent):
        return spec
    if isinstance(spec, AgentSpec):
        return spec.build()
    if isinstance(spec, (str, Mapping)):
        return parse_spec(spec).build()
    raise TypeError(
        f"an opponent must be an agent spec (e.g. {DEFAULT_OPPONENTS!r}, 'heuristic'), an "
        f"AgentSpec, an Agent or None, got {spec!r}; wrap a function fn(observation, view, "
        f"legal_actions) in zavandor_env.engine.agent.FunctionAgent"
    )
