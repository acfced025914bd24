"""A rule-based Zavandor player: values every purchase in "energy at the end of the game".

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
from dataclasses import asdict, field
from pathlib import Path
from typing import Annotated, Any

import pydantic

from zavandor_env.engine.actions import (
    ACTIVATE,
    ADVANCE,
    BID,
    BID_RAISES,
    BUY_CHIP,
    BUY_GEM,
    DEACTIVATE,
    END_TURN,
    LOSE_GEM,
    OPEN_ARTIFACT,
    OPEN_SENTINEL,
    PASS,
    SELL_GEM,
)
from zavandor_env.engine.data import (
    ACCUMULATION_SLOTS_BY_LEVEL,
    ARTIFACTS,
    CHIP_COSTS,
    CONC_TOKEN0,
    DRUID,
    DUST_CHITS,
    DUST_TOKEN0,
    ENERGY_FLOW_DUST_BY_LEVEL,
    GEM_COST_TABLE,
    GEM_SALE_TABLE,
    GEM_VP,
    HAND_LIMIT_FIELD_MODIFIER,
    LEVEL_COSTS,
    MAX_LEVEL,
    NUM_CARD_TOKENS,
    NUM_FIELDS,
    NUM_GEMS,
    RAVEN_ARTIFACTS,
    SENTINEL_MIN_BID,
    SENTINELS_TO_END,
    TOAD_ARTIFACTS,
    TOKEN_VALUE,
    Art,
    Field,
    Gem,
    Sen,
)
from zavandor_env.engine.economy import hand_load
from zavandor_env.engine.native import core_module, native_available, native_status
from zavandor_env.engine.schema import checked
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL, Block, Phase
from zavandor_env.engine.view import PlayerView, SeatView
from zavandor_env.resources import PACKAGE_DIR

from .base import Agent
from .params_file import read_yaml_section, with_overrides

DEFAULT_CONFIG = PACKAGE_DIR / "configs" / "agents" / "heuristic.yaml"

#: The ``engine`` choices of agents with a C++ port (heuristic, novice, mcts): ``"auto"`` (the
#: default) runs the port where it can, ``"native"`` always (an error where it cannot),
#: ``"python"`` never (the code in ``agents/``, e.g. to try a change to it).
ENGINES = ("auto", "native", "python")


class EngineUnavailableError(ValueError, RuntimeError):
    """``engine="native"`` where the C++ port cannot run (the core is not built, or the game
    is not a native one).  A ``ValueError``, so a command line reports it as a bad agent
    parameter; a ``RuntimeError`` too, as the MCTS agent raised before."""


def check_engine(agent: str, engine: object) -> str:
    """``engine`` if it is one of :data:`ENGINES` (``None`` means ``"auto"``); a one-line
    ``ValueError`` otherwise, and :class:`EngineUnavailableError` for ``"native"`` when the
    core is not built."""
    if engine is None:
        return "auto"
    if engine not in ENGINES:
        raise ValueError(f"{agent}: engine must be 'auto', 'native' or 'python', got {engine!r}")
    if engine == "native" and not native_available():
        raise EngineUnavailableError(f"{agent}: engine='native' needs the native core, which "
                                     f"is unavailable ({native_status()}); use engine=python")
    return str(engine)

# Expected energy per round from one more active gem of each kind (opals give dust in
# groups of three: 10 per three), plus the concentrated-card bonus (+2 per four cards).
GEM_INCOME = (10 / 3, 5.5, 8.0, 10.5, 15.5)
SAGES_CARD_VALUE = (10, 15, 20, 30)  # two cards of blue/green/white/red per 9-Sages level
#: Game length assumed for a player count that ``HeuristicWeights.expected_rounds`` lacks.
DEFAULT_EXPECTED_ROUNDS = 16


@checked(ValueError, what="heuristic weight")
class HeuristicWeights:
    """Tunable numbers of :class:`HeuristicAgent` (energy units unless stated); every number is
    finite, and a weight that is not a field is refused."""

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

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> HeuristicWeights:
        return cls(**{str(key): value for key, value in data.items()})

    @classmethod
    def from_yaml(cls, path: str | Path) -> HeuristicWeights:
        return cls.from_mapping(read_yaml_section(path, "weights", "heuristic weights"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _default_weights() -> HeuristicWeights:
    if DEFAULT_CONFIG.exists():
        return HeuristicWeights.from_yaml(DEFAULT_CONFIG)
    return HeuristicWeights()


def resolve_weights(
    weights: HeuristicWeights | Mapping[str, Any] | None, base: HeuristicWeights | None = None
) -> HeuristicWeights:
    """Full weights: ``weights`` itself, or ``base`` (default: the built-in weights) with the
    given keys overridden."""
    if isinstance(weights, HeuristicWeights):
        return weights
    base = base if base is not None else _default_weights()
    return with_overrides(base, weights)


class HeuristicAgent(Agent):
    """Competent rule-based play (see the module docstring).  Deterministic given the view
    (exact ties go to the first candidate; the seed is unused).

    Two implementations make the same choice bit for bit (tested): :func:`choose` in this
    module and its C++ port (``native/src/heuristic.cpp``), which runs only on a native game
    (a view with ``native_core``) and spares the copy of the state a Python view needs.

    Args:
        seed: accepted for the agent contract; the heuristic draws nothing.
        weights: a :class:`HeuristicWeights`, a mapping of overrides, or None for the
            defaults in ``configs/agents/heuristic.yaml``.
        config: path of a weights YAML file (instead of ``weights``).
        engine: which implementation decides: ``"auto"`` (the default: the C++ port on a
            native game, this module on a Python one), ``"native"`` (always the port; a
            one-line :class:`EngineUnavailableError` where it cannot run) or ``"python"``
            (always this module, e.g. to try an edit of it).  ``heuristic:engine=python``
            in an agent spec.
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        weights: HeuristicWeights | Mapping[str, Any] | None = None,
        config: str | Path | None = None,
        engine: str = "auto",
    ) -> None:
        super().__init__(seed)
        self.engine = check_engine(self.name, engine)
        base = HeuristicWeights.from_yaml(config) if config is not None else None
        self.w = resolve_weights(weights, base)
        self._native_w: tuple[HeuristicWeights, Any] | None = None

    # ---- protocol -----------------------------------------------------------------------
    def act(
        self,
        observation: dict[str, Any] | None,
        view: PlayerView,
        legal_actions: Sequence[int],
    ) -> int:
        engine = self.engine
        if engine == "python":
            return choose(view, legal_actions, self.w)
        core = view.native_core
        # The port decides among the core's own legal actions; a caller that offers another
        # list (a filtered one) gets the Python choice among it under "auto".
        if core is not None and tuple(legal_actions) == core.legal_actions():
            return int(native_heuristic_action(core, self.native_weights()))
        if engine == "native":
            why = ("this game runs on the Python backend (use backend='native')" if core is None
                   else "the legal actions offered differ from the game's own")
            raise EngineUnavailableError(f"{self.name}: engine='native' cannot decide here: "
                                         f"{why}; use engine=auto or engine=python")
        return choose(view, legal_actions, self.w)

    def native_weights(self) -> Any:
        """:attr:`w` as the native core's ``HeuristicWeights`` (built once per weights)."""
        cached = self._native_w
        if cached is None or cached[0] is not self.w:
            cached = self._native_w = (self.w, native_heuristic_weights(self.w))
        return cached[1]


def native_heuristic_weights(w: HeuristicWeights) -> Any:
    """The native core's copy of ``w`` (``RuntimeError`` if the core is not built)."""
    return core_module().HeuristicWeights(w.to_dict())


def native_heuristic_action(core: Any, native_w: Any) -> int:
    """The heuristic's decision for the seat deciding in a native ``core``."""
    return core_module().heuristic_action(core, native_w)  # type: ignore[no-any-return]


def choose(view: PlayerView, legal: Sequence[int], w: HeuristicWeights) -> int:
    """The heuristic decision for the seat of ``view`` (a function, so search can call it)."""
    phase = view.phase
    if phase == Phase.TURN:
        action = _Turn(view, legal, w).decide()
    elif phase == Phase.BID:
        action = _bid(view, legal, w)
    elif phase == Phase.DEBT:
        action = _cheapest_gem_action(view, legal, SELL_GEM, w)
    elif phase == Phase.LOSE_GEM:
        action = _cheapest_gem_action(view, legal, LOSE_GEM, w)
    elif phase == Phase.FREE_LEVEL:
        action = _free_level(view, legal, w)
    else:
        action = legal[0]
    if action not in legal:  # defensive: a rule the valuation missed must not crash a game
        return END_TURN if END_TURN in legal else (PASS if PASS in legal else legal[0])
    return action


# ---- shared valuations ------------------------------------------------------------------
def horizon(view: PlayerView, w: HeuristicWeights) -> float:
    """Estimated rounds still to be played, this one included."""
    n = view.num_players
    expected = w.expected_rounds.get(n, DEFAULT_EXPECTED_ROUNDS)
    left = SENTINELS_TO_END - view.sentinels_acquired
    # A game that runs past its expected length still ends only through sentinels.
    by_round = max(expected - view.round + 1, w.late_game_horizon)
    by_sentinels = left * w.rounds_per_sentinel
    return max(w.min_horizon, min(by_round, by_sentinels))


def gem_value(gem: int, r: float, w: HeuristicWeights) -> float:
    """Worth of one more *active* gem of this kind for the rest of the game."""
    return GEM_INCOME[gem] * r * w.income_efficiency + GEM_VP[gem] * w.vp_energy


def _best_gem_kind(view: PlayerView, seat: int) -> int:
    for g in (Gem.RUBY, Gem.DIAMOND, Gem.EMERALD, Gem.SAPPHIRE):
        if view.may_own_gem(seat, g):
            return g
    return Gem.SAPPHIRE


def slot_value(view: PlayerView, p: SeatView, r: float, w: HeuristicWeights) -> float:
    """Worth of one more active-gem slot: the best gem it could hold, net of its price,
    counted in full only when the slots are (nearly) full."""
    g = _best_gem_kind(view, p.seat)
    net = gem_value(g, r, w) - GEM_COST_TABLE[g][p.levels[Field.GEMSTONES]]
    fullness = 1.0 if sum(p.active) + sum(p.inactive) >= p.active_slots - 1 else 0.4
    return max(0.0, net) * fullness


def level_gain(view: PlayerView, p: SeatView, f: int, new_level: int, r: float,
               w: HeuristicWeights) -> float:
    """Worth (before cost) of reaching ``new_level`` in field ``f``."""
    value = 0.0
    if new_level == 1:
        value += HAND_LIMIT_FIELD_MODIFIER[f] * w.hand_slot_per_round * r
    if new_level == MAX_LEVEL:
        owl = 2 if Sen.OWL in p.sentinels else 0
        value += (2 + owl) * w.vp_energy
    if f == Field.GEMSTONES:
        value += 0.1 * w.future_gem_spend_per_round * max(0.0, r - 2)
    elif f == Field.ENERGY_FLOW:
        gain = ENERGY_FLOW_DUST_BY_LEVEL[new_level] - ENERGY_FLOW_DUST_BY_LEVEL[new_level - 1]
        value += gain * max(0.0, r - 1)
    elif f == Field.FIRE:
        steps_left = MAX_LEVEL - new_level + 1
        ruby = w.ruby_access_per_round * max(0.0, r - steps_left - 1)
        value += ruby / steps_left
        if new_level == 3 and p.character == DRUID and not p.druid_ruby_used:
            value += max(0.0, gem_value(Gem.RUBY, r - 1, w) - 60) * 0.5
    elif f == Field.SAGES:
        value += SAGES_CARD_VALUE[new_level - 1] * (0.9 if r > 1 else 0.0)
    elif f == Field.ARTIFACTS:
        if new_level in (2, 4):
            share = min(1.0, r / 8)
            value += share * (5 * w.expected_artifacts + 10 * w.expected_sentinels)
    elif f == Field.ACCUMULATION:
        extra = ACCUMULATION_SLOTS_BY_LEVEL[new_level] - ACCUMULATION_SLOTS_BY_LEVEL[new_level - 1]
        value += extra * slot_value(view, p, r - 1, w)
    return value


def field_plan_value(view: PlayerView, p: SeatView, f: int, r: float, w: HeuristicWeights,
                     free: bool = False) -> float:
    """Best net worth of the next levels in ``f`` (one per turn), a new field paying its chip.

    ``free``: the first level costs nothing (Runestone, Mask, Talisman).
    """
    level = p.levels[f]
    if level >= MAX_LEVEL:
        return float("-inf")
    total = 0.0
    if level == 0 and not free and p.pentagon_chips == 0:
        unbought = [c for c, b in zip(CHIP_COSTS, p.chips_bought) if not b]
        if not unbought:
            return float("-inf")
        total -= unbought[0]
    best = float("-inf")
    for k, lv in enumerate(range(level + 1, MAX_LEVEL + 1)):
        cost = 0 if (free and k == 0) else LEVEL_COSTS[f][lv - 1]
        total += level_gain(view, p, f, lv, r - k, w) - cost
        best = max(best, total)
        if k >= 2:  # look at most three levels ahead
            break
    return best


def _toad_raven_bonus(p: SeatView, art: int) -> float:
    bonus = 0.0
    if art in TOAD_ARTIFACTS and Sen.TOAD in p.sentinels:
        bonus += 2
    if art in RAVEN_ARTIFACTS and Sen.RAVEN in p.sentinels:
        bonus += 2
    return bonus


def _weakest_active_value(p: SeatView, r: float, w: HeuristicWeights) -> float:
    active = p.active
    values = [gem_value(g, r, w) for g in range(NUM_GEMS) if active[g]]
    return min(values) if values else 0.0


def artifact_value(view: PlayerView, p: SeatView, art: int, r: float,
                   w: HeuristicWeights) -> float:
    """Worth of an artifact to seat ``p`` (energy at the end of the game)."""
    if not view.may_acquire(p.seat, ITEM_ARTIFACT, art):
        return float("-inf")
    spec = ARTIFACTS[art]
    vp = spec.vp + _toad_raven_bonus(p, art)
    value = vp * w.vp_energy
    eff = w.income_efficiency
    arts = p.artifacts
    if art == Art.SPELLBOOK:
        if not arts[Art.SPELLBOOK]:
            value += w.spellbook_access_per_round * max(0.0, r - 1)
    elif art == Art.ELIXIR:
        value += gem_value(Gem.DIAMOND, r - 1, w) * 0.8  # the free diamond
        if not arts[Art.ELIXIR]:
            value += w.elixir_access_per_round * max(0.0, r - 1)
    elif art in (Art.CRYSTAL_BALL,):
        value += w.hand_limit_3_per_round * r
    elif art == Art.BELT:
        value += 2 * slot_value(view, p, r - 1, w)
    elif art == Art.WAND:
        value += 2 * slot_value(view, p, r - 1, w) + w.hand_limit_3_per_round * r
    elif art == Art.CRYSTAL_OF_PROTECTION:
        value += GEM_INCOME[Gem.EMERALD] * max(0.0, r - 1) * eff
    elif art == Art.CHALICE:
        value += GEM_INCOME[Gem.RUBY] * max(0.0, r - 1) * eff
    elif art in (Art.MIRROR, Art.CLOAK):
        if not all(p.chips_bought):
            value += w.free_chip * min(1.0, r / 6)
        opponents = [o for o in view.players if o.seat != p.seat and not o.eliminated]
        if opponents:
            harm = sum(_weakest_active_value(o, r - 1, w) for o in opponents) / len(opponents)
            value += harm * (1.0 if len(opponents) == 1 else 0.7)
    if spec.free_levels:
        free = [field_plan_value(view, p, f, r, w, free=True) for f in range(NUM_FIELDS)]
        free = sorted((v for v in free if v != float("-inf")), reverse=True)
        value += sum(max(0.0, v) for v in free[: spec.free_levels]) * 0.8
    if art == Art.MASK:
        value += 20 * min(w.expected_sentinels, 5 - view.sentinels_acquired) * min(1.0, r / 4)
    if art == Art.RUNESTONE and Art.CHALICE in view.display:
        value += 5
    return value


def sentinel_value(view: PlayerView, p: SeatView, sen: int, r: float,
                   w: HeuristicWeights) -> float:
    """Worth of a sentinel to seat ``p``: its VP now, and the game's end when it is the fifth."""
    vp = p.sentinel_vp(sen)
    if view.sentinels_acquired + 1 >= SENTINELS_TO_END:
        mine = p.current_vp + vp
        best_other = max(
            (o.current_vp for o in view.players if o.seat != p.seat and not o.eliminated),
            default=0,
        )
        return w.win_bonus if mine >= best_other + w.lead_margin else -w.win_bonus
    if r > w.sentinel_min_horizon > 0:
        return float("-inf")
    mine = p.current_vp
    best_other = max(
        (o.current_vp for o in view.players if o.seat != p.seat and not o.eliminated), default=0
    )
    tempo = w.lead_tempo if mine > best_other else -w.lead_tempo
    return vp * w.sentinel_vp_energy + tempo


def item_value(view: PlayerView, p: SeatView, kind: int, item: int, r: float,
               w: HeuristicWeights) -> float:
    if kind == ITEM_ARTIFACT:
        return artifact_value(view, p, item, r, w)
    return sentinel_value(view, p, item, r, w)


def bid_limit(view: PlayerView, kind: int, item: int, w: HeuristicWeights) -> float:
    """Highest price the viewer should pay: own value plus a share of the best rival's."""
    r = horizon(view, w)
    me = view.me
    mine = item_value(view, me, kind, item, r, w)
    rivals = [
        item_value(view, o, kind, item, r, w)
        for o in view.opponents
        if view.may_acquire(o.seat, kind, item)
    ]
    rival = max((v for v in rivals if v != float("-inf")), default=0.0)
    if kind == ITEM_SENTINEL and view.sentinels_acquired + 1 >= SENTINELS_TO_END:
        return mine  # the game ends either way: only winning matters
    return mine + w.deny_weight * max(0.0, rival)


def storable(view: PlayerView) -> int:
    """About how much of the viewer's hand survives the phase-4 hand limit: items are kept
    greedily by value per slot (cards, concentrated cards, dust re-chitted into 10s and 5s)."""
    me = view.me
    hand = me.hand
    slots = me.hand_limit
    if hand_load(hand) <= slots:  # everything fits: nothing to choose
        return me.hand_value
    items: list[tuple[float, int, int]] = []  # (value per slot, slots, value)
    for t in range(NUM_CARD_TOKENS):
        items.extend([(TOKEN_VALUE[t], 1, TOKEN_VALUE[t])] * hand[t])
    for t in range(CONC_TOKEN0, DUST_TOKEN0):
        items.extend([(TOKEN_VALUE[t] / 3, 3, TOKEN_VALUE[t])] * hand[t])
    dust = sum(hand[DUST_TOKEN0 + i] * v for i, v in enumerate(DUST_CHITS))
    tens, rest = divmod(dust, 10)
    items.extend([(10 / 3, 3, 10)] * tens)
    if rest >= 5:
        items.append((2.5, 2, 5))
        rest -= 5
    items.extend([(2.0, 1, 2)] * (rest // 2))
    items.sort(reverse=True)
    kept = 0
    for _, load, value in items:
        if load <= slots:
            slots -= load
            kept += value
    return kept


def excess(view: PlayerView) -> int:
    """Energy the viewer would lose to the hand limit if the round ended now: spending it
    costs nothing, so purchases count only the part of their price beyond it."""
    me = view.me
    return max(0, me.liquid - storable(view))


def spend_budget(view: PlayerView) -> int:
    """What the viewer can pay without selling an active gem."""
    me = view.me
    level = me.levels[Field.GEMSTONES]
    inactive_sale = sum(n * GEM_SALE_TABLE[g][level] for g, n in enumerate(me.inactive))
    return me.liquid + inactive_sale


# ---- phase 3: the turn ------------------------------------------------------------------
class _Turn:
    """One phase-3 decision of the turn player (knowledge -> auctions -> gems -> end)."""

    def __init__(self, view: PlayerView, legal: Sequence[int], w: HeuristicWeights) -> None:
        self.view = view
        self.legal = frozenset(legal)  # membership only: never iterated
        self.w = w
        self.me = view.me
        self.r = horizon(view, w)
        self.excess = excess(view)

    def net_cost(self, cost: float) -> float:
        """Price less the part paid from energy the hand limit would destroy anyway."""
        return cost - min(cost, self.excess)

    def decide(self) -> int:
        block = self.view.block
        used = self.view.blocks_used
        if block in (Block.NONE, Block.KNOWLEDGE) and not (used >> Block.KNOWLEDGE) & 1:
            action = self._knowledge()
            if action is not None:
                return action
        gem_plan = self._gem_action() if not (used >> Block.GEMS) & 1 else None
        if block != Block.GEMS and not (used >> Block.AUCTION) & 1:
            action = self._auction(gem_plan)
            if action is not None:
                return action
        if gem_plan is not None:
            return gem_plan[0]
        return END_TURN

    # -- knowledge
    def _knowledge(self) -> int | None:
        me, legal = self.me, self.legal
        best_f, best_v = -1, 0.0
        for f in range(NUM_FIELDS):
            if self.view.paid_advance_done:
                break
            v = field_plan_value(self.view, me, f, self.r, self.w)
            if v != float("-inf"):
                # The first step (chip + level) may be paid from energy that would be lost.
                first = LEVEL_COSTS[f][me.levels[f]] if me.levels[f] < MAX_LEVEL else 0
                if me.levels[f] == 0 and me.pentagon_chips == 0:
                    first += next((c for c, b in zip(CHIP_COSTS, me.chips_bought) if not b), 0)
                v += min(first, self.excess)
            if v > best_v:
                best_f, best_v = f, v
        if best_f < 0:
            return None
        if ADVANCE + best_f in legal:
            return ADVANCE + best_f
        if me.levels[best_f] == 0 and me.pentagon_chips == 0:
            for i, bought in enumerate(me.chips_bought):
                if not bought:
                    cost = CHIP_COSTS[i] + LEVEL_COSTS[best_f][0]
                    if BUY_CHIP + i in legal and me.liquid >= cost:
                        return BUY_CHIP + i
                    break
        return None

    # -- auctions
    def _auction(self, gem_plan: tuple[int, float, int] | None) -> int | None:
        view, legal, w, me = self.view, self.legal, self.w, self.me
        cash = me.liquid
        best, best_ratio = None, 0.0
        # Ascending action index, so exact ties go to the lowest opening (a defined order the
        # C++ port can follow, unlike a set's iteration order).
        for a in range(OPEN_ARTIFACT, BID):
            if a not in legal:
                continue
            if OPEN_ARTIFACT <= a < OPEN_SENTINEL:
                kind, item = ITEM_ARTIFACT, a - OPEN_ARTIFACT
            else:
                kind, item = ITEM_SENTINEL, a - OPEN_SENTINEL
            min_bid = ARTIFACTS[item].min_bid if kind == ITEM_ARTIFACT else SENTINEL_MIN_BID
            price = view.price(view.seat, kind, item, min_bid)
            if price > cash:
                continue
            value = item_value(view, me, kind, item, self.r, w)
            surplus = value - self.net_cost(price)
            if surplus <= 0:
                continue
            ratio = surplus / max(price, 1)
            if ratio > best_ratio:
                best, best_ratio = (a, price), ratio
        if best is None:
            return None
        if gem_plan is not None:
            _, gem_ratio, gem_cost = gem_plan
            if best_ratio < gem_ratio and cash < best[1] + gem_cost:
                return None
        return best[0]

    # -- gems
    def _gem_action(self) -> tuple[int, float, int] | None:
        """(action, return per energy, cost) of the best gem move, or None."""
        me, legal, r, w = self.me, self.legal, self.r, self.w
        active, inactive = me.active, me.inactive
        slots = me.active_slots
        n_active = sum(active)
        values = [gem_value(g, r, w) for g in range(NUM_GEMS)]
        # 1. Put the best waiting gem to work.
        waiting = [g for g in range(NUM_GEMS) if inactive[g]]
        if waiting:
            best_wait = max(waiting, key=lambda g: values[g])
            if n_active < slots and ACTIVATE + best_wait in legal:
                return (ACTIVATE + best_wait, 99.0, 0)
            actives = [g for g in range(NUM_GEMS) if active[g]]
            if actives:
                worst = min(actives, key=lambda g: values[g])
                if values[best_wait] > values[worst] and DEACTIVATE + worst in legal:
                    return (DEACTIVATE + worst, 99.0, 0)
            # Waiting gems no better than every active one only cost VP-less money: sell.
            worst_wait = min(waiting, key=lambda g: values[g])
            if n_active >= slots and SELL_GEM + worst_wait in legal:
                return (SELL_GEM + worst_wait, 99.0, 0)
        # 2. Buy by return.
        cash = me.liquid
        level = me.levels[Field.GEMSTONES]
        free_slots = slots - n_active
        actives = [g for g in range(NUM_GEMS) if active[g]]
        worst = min(actives, key=lambda g: values[g]) if actives else -1
        best, best_score = None, 0.0
        for g in range(NUM_GEMS):
            a = BUY_GEM + g
            cost = GEM_COST_TABLE[g][level]
            if free_slots > 0:
                if a not in legal:
                    continue
                gain = values[g] - self.net_cost(cost)
                if gain <= 0:
                    continue
                # Money-bound with several free slots: return per energy; else per slot.
                score = gain / cost if free_slots > 1 else gain
                ratio = gain / cost
                if score > best_score:
                    best, best_score = (a, ratio, cost), score
            elif worst >= 0 and values[g] > values[worst]:
                sale = GEM_SALE_TABLE[worst][level]
                gain = values[g] - values[worst] + sale - self.net_cost(cost)
                if gain <= 0 or cash + sale < cost or not self.view.may_own_gem(me.seat, g):
                    continue
                if self.view.gem_supply[g] <= 0:
                    continue
                if gain > best_score:
                    # Sell the weak gem first: the slot frees and the sale helps pay.
                    act = SELL_GEM + worst if SELL_GEM + worst in legal else a
                    if act not in legal:
                        continue
                    best, best_score = (act, gain / cost, cost), gain
        return best


# ---- bidding ----------------------------------------------------------------------------
def _bid(view: PlayerView, legal: Sequence[int], w: HeuristicWeights) -> int:
    kind, item = view.auction_kind, view.auction_item
    opening = view.high_bidder < 0
    if opening:
        return BID if BID in legal else legal[0]
    if PASS not in legal:
        return legal[0]
    if view.high_bidder == view.seat:
        return PASS  # cannot happen (the bid moves on), kept for safety
    # Energy the hand limit would destroy anyway makes the price that much cheaper.
    limit = min(bid_limit(view, kind, item, w) + excess(view), spend_budget(view))
    seat = view.seat
    high = view.high_bid
    margin = limit - view.price(seat, kind, item, high + 1)
    if margin < 0:
        return PASS
    choice = BID + 1
    for i in range(len(BID_RAISES) - 1, 0, -1):
        raise_by = BID_RAISES[i]
        if BID + i not in legal or raise_by > max(1.0, margin * w.big_raise_fraction):
            continue
        if view.price(seat, kind, item, high + raise_by) <= limit:
            choice = BID + i
            break
    return choice if choice in legal else PASS


# ---- other decisions --------------------------------------------------------------------
def _cheapest_gem_action(view: PlayerView, legal: Sequence[int], base: int,
                         w: HeuristicWeights) -> int:
    """Sell (debt) or lose (Mirror/Cloak) the gem whose loss hurts least."""
    r = horizon(view, w)
    me = view.me
    level = me.levels[Field.GEMSTONES]

    def loss(action: int) -> float:
        g = action - base
        if base == SELL_GEM and me.inactive[g]:
            return -1.0 + GEM_SALE_TABLE[g][level] * 0.001  # idle gems go first
        value = gem_value(g, r, w)
        if base == SELL_GEM:
            value -= GEM_SALE_TABLE[g][level]
        return value

    return min(legal, key=loss)


def _free_level(view: PlayerView, legal: Sequence[int], w: HeuristicWeights) -> int:
    r = horizon(view, w)
    me = view.me

    def gain(action: int) -> float:
        return field_plan_value(view, me, action - ADVANCE, r, w, free=True)

    return max(legal, key=gain)


__all__ = ["ENGINES", "EngineUnavailableError", "HeuristicAgent", "HeuristicWeights",
           "check_engine", "choose", "horizon"]
