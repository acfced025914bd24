"""A rule-based Zavandor player: values every purchase in "energy at the end of the game".

The player is implemented once, in C++ (``native/src/heuristic.cpp``, which also plays it in
rollouts and vectorised opponents); this module holds its weights and the agent class that
hands each decision to the native core (:func:`zavandor_env.agents.base.decision_core`).

How it thinks (weights in ``configs/agents/heuristic.yaml``, see :class:`HeuristicWeights`):

* **Horizon.**  ``R``, the rounds still to come, is estimated from the round number and the
  sentinels sold (the game ends in the round the fifth one goes).  Income is worth
  ``income x R x income_efficiency``; a VP is worth ``vp_energy`` (about what a sentinel
  costs per VP).  Early, economy dominates; late, VP does -- so sentinels come at the end.
* **Turn plan.**  Each phase-3 block may be used once, so a turn runs knowledge -> auctions
  -> gems: a cheap level first (Gemstones makes the gems bought later cheaper), then any
  auction whose value beats its price (artifacts that unlock gems come before gem buying),
  then gems with what is left (activate, swap weak gems for strong ones, buy by return).
  An auction is opened before gems only if it pays better per energy than the best gem or
  there is money for both.
* **Gems.**  Value = income x R x efficiency + VP x vp_energy.  With free slots money is the
  limit, so gems are ranked by return per energy; with full slots the slot is the limit, so a
  new gem must beat the weakest active one (which is then sold).
* **Knowledge.**  One paid level per turn: the field whose next levels pay best (a new field
  also pays its chip).  Gemstones pays in proportion to future gem spending, Accumulation by
  the value of an extra slot once slots are full, Fire by ruby access, the 9 Sages by its
  cards, Artifacts by the discounts, every level 4 by 2 VP.
* **Auctions.**  Each artifact and sentinel is valued for this seat (VP, effect, bonuses,
  discounts it gives, free levels and chips, damage to opponents from Mirror/Cloak) plus a
  share of its value to the strongest opponent (denial).  Bids rise while the price stays
  under that value and under what the seat can pay from its hand (never into gem sales
  except the inactive ones: no ruinous debt).  The fifth sentinel, which ends the game, is
  worth a win if the seat leads after buying it and a loss otherwise.
* **Other decisions.**  Debts sell the least valuable gem; Mirror/Cloak victims give up the
  least valuable active gem; free levels go to the best field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any

import pydantic

from zavandor_env.agents.base import Agent, EngineUnavailableError, decision_core, safe_default
from zavandor_env.agents.params_file import ParamsFile
from zavandor_env.agents.spec_params import drop_engine
from zavandor_env.engine.native import core_module
from zavandor_env.engine.schema import checked
from zavandor_env.engine.view import PlayerView
from zavandor_env.resources import PACKAGE_DIR

DEFAULT_CONFIG = PACKAGE_DIR / "configs" / "agents" / "heuristic.yaml"

# Constants of the C++ player, generated into native/src/generated/constants.hpp from here
# (zavandor_env/codegen/header.py): expected energy per round from one more active gem of
# each kind (opals give dust in groups of three: 10 per three, plus the concentrated-card
# bonus of +2 per four cards), and the worth of the two 9-Sages cards of each level.
GEM_INCOME = (10 / 3, 5.5, 8.0, 10.5, 15.5)
SAGES_CARD_VALUE = (10, 15, 20, 30)
#: Game length assumed for a player count that ``HeuristicWeights.expected_rounds`` lacks.
DEFAULT_EXPECTED_ROUNDS = 16


@checked(ValueError, what="heuristic weight")
class HeuristicWeights(ParamsFile):
    """Tunable numbers of :class:`HeuristicAgent` (energy units unless stated); every number is
    finite, and a weight that is not a field is refused."""

    _SECTION, _WHAT, _DEFAULT = "weights", "heuristic weights", DEFAULT_CONFIG

    # Keys and values are whole numbers; "3" or 12.0 (from a file) are taken as 3 and 12.
    expected_rounds: dict[Annotated[int, pydantic.Strict(False)],
                          Annotated[int, pydantic.Strict(False)]] = field(
        default_factory=lambda: {2: 17, 3: 16, 4: 15, 5: 15, 6: 14}
    )
    rounds_per_sentinel: float = 2.5  # pace of the end game once sentinels start to go
    min_horizon: float = 1.0
    late_game_horizon: float = 3.0  # horizon floor while sentinels remain unsold
    income_efficiency: float = 0.6  # share of income that ends up well spent
    vp_energy: float = 12.0  # one VP at the end of the game
    sentinel_vp_energy: float = 15.0
    lead_tempo: float = 30.0  # bringing the end closer while leading (or its cost if behind)
    deny_weight: float = 0.3  # share of the strongest opponent's value added to ours
    hand_slot_per_round: float = 0.6  # one hand-limit slot, per remaining round
    future_gem_spend_per_round: float = 30.0  # base-price gem spending (Gemstones value)
    expected_artifacts: float = 3.0  # artifacts still to buy (Artifacts-knowledge value)
    expected_sentinels: float = 2.0  # sentinels still to buy (Mask, Artifacts knowledge)
    spellbook_access_per_round: float = 3.0  # emerald access
    elixir_access_per_round: float = 3.0  # diamond access
    ruby_access_per_round: float = 4.0  # ruby access (Fire level 4)
    hand_limit_3_per_round: float = 1.5  # Crystal Ball / Wand
    free_chip: float = 15.0  # Mirror/Cloak chip
    win_bonus: float = 1000.0  # the fifth sentinel, when it makes this seat the winner
    lead_margin: float = 2.0  # VP lead needed to trust that ending the game wins
    sentinel_min_horizon: float = 0.0  # no sentinel before R falls to this (0: value decides)
    big_raise_fraction: float = 0.25  # raise by at most this share of the remaining margin


#: Full weights: given ones, or a file's (default: the shipped one) with given keys overridden.
resolve_weights = HeuristicWeights.resolve


class HeuristicAgent(Agent):
    """Competent rule-based play (see the module docstring).  Deterministic given the view
    (exact ties go to the first candidate; the seed is unused).

    Args:
        seed: accepted for the agent contract; the heuristic draws nothing.
        weights: a :class:`HeuristicWeights`, a mapping of overrides, or None for the
            defaults in ``configs/agents/heuristic.yaml``.
        config: path of a weights YAML file (instead of ``weights``).
        engine: ignored (deprecated; see :func:`~zavandor_env.agents.spec_params.drop_engine`).
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None,
                 weights: HeuristicWeights | Mapping[str, Any] | None = None,
                 config: str | Path | None = None, engine: str | None = None) -> None:
        super().__init__(seed)
        drop_engine(self.name, engine)
        self.w = resolve_weights(weights, config)
        self._native_w: tuple[HeuristicWeights, Any] | None = None

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        return choose(view, legal_actions, self.native_weights())

    def native_weights(self) -> Any:
        """:attr:`w` as the native core's ``HeuristicWeights`` (built once per weights)."""
        cached = self._native_w
        if cached is None or cached[0] is not self.w:
            cached = self._native_w = (self.w, native_weights(self.w))
        return cached[1]


def native_weights(w: HeuristicWeights) -> Any:
    """The native core's copy of ``w``."""
    return core_module().HeuristicWeights(w.to_dict())


def choose(view: PlayerView, legal_actions: Sequence[int],
           weights: HeuristicWeights | Any) -> int:
    """The heuristic's decision for the seat deciding in ``view`` (``weights``: a
    :class:`HeuristicWeights` or its native copy).  The native player chooses among the
    game's legal actions; when the caller offers fewer, a choice outside them becomes
    :func:`~zavandor_env.agents.base.safe_default`."""
    if isinstance(weights, HeuristicWeights):
        weights = native_weights(weights)
    action = int(core_module().heuristic_action(decision_core(view), weights))
    return action if action in legal_actions else safe_default(legal_actions)


# EngineUnavailableError: still importable from here, where it was defined before.
__all__ = ["DEFAULT_CONFIG", "EngineUnavailableError", "HeuristicAgent", "HeuristicWeights",
           "choose", "native_weights", "resolve_weights"]
