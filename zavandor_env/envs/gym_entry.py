"""``gymnasium.make("Zavandor-v0")``: one learner seat against opponents that play the game.

:func:`make_env` is the registered entry point: a :class:`~zavandor_env.envs.SingleAgentEnv`
whose opponents are given by agent spec (registry names such as ``"heuristic"`` or
``"mcts:iterations=200"``, see :mod:`zavandor_env.agents.registry`), by default ``"novice"``
(``opponents=None``: uniform random play).

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

from collections.abc import Sequence
from typing import Any

from zavandor_env.envs.opponents import DEFAULT_OPPONENTS, OpponentSpec
from zavandor_env.envs.single_agent import SingleAgentEnv

__all__ = ["DEFAULT_OPPONENTS", "make_env"]

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
            ``{agent, params, label}``, an :class:`~zavandor_env.agents.registry.AgentSpec`,
            an :class:`~zavandor_env.engine.agent.Agent`, or ``None`` (the environment's fast
            built-in random player).
        **options: :class:`SingleAgentEnv` options (``learner_seat``, ``render_mode``,
            ``illegal_action``), reward options (``reward``, ``vp_delta``, ``step_reward``,
            ``truncation_reward``, ``illegal_reward``) and rule options (``max_rounds``, ...).
    """
    return SingleAgentEnv(num_players=num_players, opponents=opponents, **options)
