"""A beatable opponent: the heuristic player with a beginner's lapses.

:class:`NoviceAgent` plays :class:`~zavandor_env.agents.heuristic.HeuristicAgent`'s moves (it buys
gems, advances knowledge and buys sentinels until five are owned, so its games end by the
rules), except that each decision on its own turn is, with probability ``blunder``, a uniformly
random legal action instead.  Under the rulebook's Curse of the 9 Sages such a lapse is often
fatal: opening an auction it cannot pay for gets it eliminated.

It is the default opponent of ``gymnasium.make("Zavandor-v0")`` (:mod:`zavandor_env.envs.gym_entry`
explains the choice, docs/benchmarks.md measures it): a small learner beats it within tens of
thousands of steps by first learning not to curse itself, and the heuristic it is built on
leaves room for a long learning curve after that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from zavandor_env.agents.heuristic import HeuristicAgent, HeuristicWeights
from zavandor_env.agents.spec_params import check_agent_params
from zavandor_env.engine.state import Phase
from zavandor_env.engine.view import PlayerView

#: The default lapse rate (docs/benchmarks.md, "Learning against Zavandor-v0's default opponents").
DEFAULT_BLUNDER = 0.02


class NoviceAgent(HeuristicAgent):
    """The heuristic with a random lapse on a share ``blunder`` of its turn decisions.

    Args:
        seed: seeds the lapses (and the heuristic's tie-breaking).
        blunder: probability, per decision on its own turn, of a uniformly random legal action
            (0: the plain heuristic, 1: random turns with heuristic bidding).
        weights: heuristic weights or overrides (see :class:`HeuristicAgent`).
        config: path of a heuristic weights YAML file.
        engine: ignored (deprecated), as in :class:`HeuristicAgent`.
    """

    name = "novice"

    def __init__(self, seed: int | None = None, blunder: float = DEFAULT_BLUNDER,
                 weights: HeuristicWeights | Mapping[str, Any] | None = None,
                 config: str | Path | None = None, engine: str | None = None) -> None:
        check_agent_params("novice", {"blunder": blunder})
        super().__init__(seed, weights, config, engine)
        self.blunder = float(blunder)

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        # The lapse is drawn here, from the agent's own generator (the heuristic draws
        # nothing); drawn first, so the native valuation is skipped when it happens.
        core = view.native_core  # its phase, so a native view copies no state for it
        phase = view.phase if core is None else core.phase
        if phase == Phase.TURN and self.rng.random() < self.blunder:
            return legal_actions[self.rng.randrange(len(legal_actions))]
        return super().act(observation, view, legal_actions)
