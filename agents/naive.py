"""``naive``: the computer player of sozav (the only other implementation of this game), ported
as an external baseline.

The policy is sozav's ``AI::Naive`` player (sozav: a public Perl implementation by Roderick
Schertler, github.com/rosche/sozav), re-implemented here from a description of its decisions
over our engine.  sozav's player is called again and again during its turn and does *one* thing
per call, in a fixed priority order (this module numbers the steps S1-S7, below); its bidding
(B1-B4) uses a fixed limit of about the printed minimum.  The numbers are sozav's constants
(no tuning, so no YAML file).

Quantities (named as in sozav's policy): *cash* = own hand value less the turn's unpaid balance;
*liquid* = cash + sale value of the inactive gems; *m(item)* = price at a bid less the bid
(turn-order card, Artifacts knowledge, cross discounts, Masks: ``PlayerView.price``, unfloored);
*best_gem* = the highest kind the seat may buy now (prerequisites, 5-ruby cap) **and that is
still in the supply** (sozav's player has no supply limit; ours is hard); *b(s)* = the
sentinel bonus by sozav's formulas; *next track* = Gemstones if a Fire track and no Gemstones track,
else the first of Artifacts, Accumulation, 9 Sages not entered.  *Chip order* (for ties) is
approximated by the order the naive player enters fields: starting field, (Gemstones after a
Fire start), Artifacts, Accumulation, 9 Sages -- our engine does not record which chip lies on
which field, and this order differs from sozav's only after a free Mirror/Cloak chip.

Mapping, sozav step -> our actions (``docs/actions.md``):

========================================  =====================================================
sozav                                      here
========================================  =====================================================
auto-activation at turn start and after   ``activate_<gem>``/``deactivate_<gem>`` in the gem
own purchases: best types active           block: the highest inactive kind into a free slot,
                                           else swapped with the lowest active kind below it.
                                           Done while the gem block is current, before its
                                           first buy/sell, and (if the block is still unused)
                                           just before ``end_turn``.  Every decision of the turn
                                           reads the arrangement this would produce ("virtual").
                                           With ``no_undo_activation`` a kind activated this
                                           turn is never deactivated (such a swap is skipped, and
                                           so is an upgrade purchase that would need it).  What
                                           changes after the gem block has closed (Belt, Wand,
                                           Elixir diamond, a Mirror loss) waits for the next
                                           turn's gem block; off-turn the actual arrangement is
                                           used, like sozav's "waits until the owner's turn".
inactive gems spent automatically, after   gems/knowledge: ``sell_<gem>`` (cheapest kind among
cards and dust, cheapest type first        the virtually inactive) in the gem block just before
                                           the purchase, until cash covers it -- for a knowledge
                                           purchase only while the knowledge block is not the
                                           current one (the sale would close it); with the gem
                                           block closed, knowledge steps test cash, not liquid.
                                           Auctions: the engine's debt decision, ``sell_<gem>``
                                           of the cheapest virtually inactive kind first.
S1 sentinel auction at 120                 ``open_<sentinel>`` (uniform among the wanted best-b),
                                           then ``bid_plus_0``
S2 Gemstones advance first (+10 margin)    ``advance_gemstones``, only before the gem block has
                                           started and only from cash (a funding sale would
                                           close the gem block before the gem it saves for)
S3 buy target / "third opal" / "short"     ``buy_<gem>`` (an upgrade is then realised by
                                           ``deactivate`` + ``activate``); a target while the
                                           gem block is closed counts as "short" (money kept
                                           for next turn's gems, no artifact auction)
S4 cheapest advanceable track / place a    ``advance_<field>`` (placing: ``advance_<next
pentagon chip on the next track            track>`` from level 0)
S5 / S6b buy the cheapest chip             ``buy_chip_<cost>`` (cash funded for chip + level 1),
                                           placed by S4 on the next call
S6a first wanted affordable artifact       ``open_<artifact>`` then ``bid_plus_0``; a Mirror or
                                           Cloak the engine refuses (no active gem) is skipped
                                           (sozav would raise an error)
S7 bank: buy opals while over the hand     ``buy_opal`` while the hand, after paying the turn's
limit                                      balance, exceeds the limit (our payment is settled at
                                           the end of the turn, so it is simulated with the
                                           engine's payment rule); only while the gem block is
                                           usable
end the turn                               ``end_turn``; ``end_block`` is never used (taking an
                                           action of another block closes the open one)
B1-B4 bidding                              ``pass`` or ``bid_plus_1``; the opening bid is
                                           ``bid_plus_0`` (the minimum)
free advance (Runestone, Mask, Talisman)   ``advance_<field>``: most expensive next level (ties:
                                           later chip).  sozav loses the advance when only a new
                                           field is possible; our engine makes it mandatory, so
                                           the chip goes on the next track (else the first
                                           legal field)
Mirror/Cloak victim                        ``lose_<gem>`` of the cheapest active kind
character choice                           none (``GameConfig.characters``)
========================================  =====================================================

Under the FAQ's no-split rule each of the gem, knowledge and auction blocks is used once per
turn, so sozav's call order (e.g. gems -> knowledge -> artifact auction -> gems again) is kept
only as far as the blocks allow: a step whose block has closed does not apply, and the next
step is tried.  The agent never stalls: every purchase spends cash, sales only fund the
purchase that asked for them, gem moves only raise the active gems' kinds, and the no-undo rule
is respected.  A banked opal (S7) may be sold on a later turn as liquid energy, as in sozav,
but never within the turn it was bought.  ``fallbacks`` counts decisions where the policy's
choice was illegal and a safe default (end turn / pass) was played instead (0 in the tests).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from zavandor_env.engine.actions import (
    ACTIVATE,
    ADVANCE,
    BID,
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
    ARTIFACTS,
    CHARACTERS,
    CHIP_COSTS,
    DUST_TOKEN0,
    GEM_COST_TABLE,
    GEM_SALE_TABLE,
    LEVEL_COSTS,
    MAX_LEVEL,
    NUM_FIELDS,
    NUM_GEMS,
    NUM_SENTINELS,
    RAVEN_ARTIFACTS,
    SENTINEL_MIN_BID,
    TOAD_ARTIFACTS,
    TOKEN_VALUE,
    Art,
    Field,
    Gem,
    Sen,
)
from zavandor_env.engine.economy import choose_payment, dust_chits, hand_load
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL, Block, Phase
from zavandor_env.engine.view import PlayerView

from .base import Agent

__all__ = ["NaiveAgent", "NaiveDecision", "block_usable", "naive_decision", "safe_default"]

# sozav's constants (steps S2, B3).
GEMS_ADVANCE_MARGIN = 10
BID_LIMIT_FACTOR = 1.05
MASK_BID_LIMIT_FACTOR = 1.40
DISCOUNT_SHARE = 3  # a third of any discount raises the limit
JITTER_MINUS = 1 / 7  # -1 with 1/7, 0 with 2/7, +1 with 4/7
JITTER_ZERO = 3 / 7
_BIG_BID = 100_000  # m(item) = price(bid) - bid at a bid far from the floor at 0
_FREE_ADVANCE_ARTIFACTS = (Art.RUNESTONE, Art.MASK, Art.TALISMAN)
_TRACK_SEQUENCE = (Field.ARTIFACTS, Field.ACCUMULATION, Field.SAGES)


def block_usable(view: PlayerView, block: Block) -> bool:
    """Whether the turn player may still act in ``block`` this turn (FAQ no-split rule)."""
    if not view.config.no_split_blocks:
        return True
    return view.block == block or not (view.blocks_used >> block) & 1


def _load_after_settlement(hand: Sequence[int], balance: int, one_value_dust: bool) -> int:
    """Hand-limit load once the turn's balance is paid (our payments are settled at the end of
    the turn, sozav pays at once: S7 needs the hand as it will be)."""
    h = list(hand)
    change = -balance
    if balance > 0:
        try:
            chosen = choose_payment(h, balance, one_value_dust)
        except ValueError:  # cannot happen: every purchase was checked against cash
            return hand_load(h)
        paid = 0
        for t, n in enumerate(chosen):
            if n:
                h[t] -= n
                paid += n * TOKEN_VALUE[t]
        change = paid - balance
    if change > 0:
        for i, n in enumerate(dust_chits(change, one_value_dust)):
            h[DUST_TOKEN0 + i] += n
    return hand_load(h)


def _simulate_arrangement(
    active: Sequence[int],
    inactive: Sequence[int],
    slots: int,
    can_activate: Callable[[int], bool],
    can_deactivate: Callable[[int], bool],
) -> tuple[list[int], list[int], set[int], int | None]:
    """sozav's "best types active", reached by our gem moves: the highest inactive kind goes
    into a free slot, else replaces the lowest active kind below it.  Kinds moved one way are
    never moved back (the no-undo rule), so this ends.  Returns the final active and inactive
    counts, the kinds activated on the way, and the first move (None if nothing moves)."""
    act, ina = list(active), list(inactive)
    activated: set[int] = set()
    deactivated: set[int] = set()
    first: int | None = None
    while True:
        waiting = [g for g in range(NUM_GEMS) if ina[g] and g not in deactivated
                   and can_activate(g)]
        if not waiting:
            break
        g = max(waiting)
        if sum(act) < slots:
            move = ACTIVATE + g
            act[g] += 1
            ina[g] -= 1
            activated.add(g)
        else:
            lower = [h for h in range(g) if act[h] and h not in activated and can_deactivate(h)]
            if not lower:
                break
            h = min(lower)
            move = DEACTIVATE + h
            act[h] -= 1
            ina[h] += 1
            deactivated.add(h)
        if first is None:
            first = move
    return act, ina, activated, first


class NaiveDecision:
    """Everything one decision of the naive player reads, computed once from the view."""

    def __init__(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> None:
        self.view = view
        self.legal = frozenset(legal)
        self.rng = rng
        self.me = me = view.me
        self.level = me.levels[Field.GEMSTONES]
        self.cash = me.liquid
        self.slots = me.active_slots
        self.own_turn = view.turn_player == view.seat and not view.is_over
        self.gems_usable = self.own_turn and block_usable(view, Block.GEMS)
        active, inactive = me.active, me.inactive
        self.realize: int | None = None
        self.activated_virtually: set[int] = set()
        if self.gems_usable:
            act, ina, acted, first = _simulate_arrangement(
                active, inactive, self.slots, self._can_activate, self._can_deactivate
            )
            self.v_active, self.v_inactive = act, ina
            self.activated_virtually = acted
            self.realize = first
        else:
            self.v_active, self.v_inactive = list(active), list(inactive)
        self.liquid = self.cash + sum(
            n * GEM_SALE_TABLE[g][self.level] for g, n in enumerate(self.v_inactive)
        )

    # ---- gem moves allowed now ------------------------------------------------------------
    def _can_activate(self, gem: int) -> bool:
        # With a free slot the mask tells whether this kind was deactivated this turn; without
        # one, the kinds we deactivated are all below every active kind, so never wanted back.
        me = self.me
        if self.view.phase == Phase.TURN and sum(me.active) < self.slots:
            return ACTIVATE + gem in self.legal
        return True

    def _can_deactivate(self, gem: int) -> bool:
        # In the turn the mask is exact; in an auction of our turn the gem block is unused
        # (else it would be closed), so nothing was moved yet.
        if self.view.phase == Phase.TURN:
            return DEACTIVATE + gem in self.legal
        return True

    # ---- sozav's quantities ----------------------------------------------------------------
    def cost(self, gem: int) -> int:
        return GEM_COST_TABLE[gem][self.level]

    def modifier(self, kind: int, item: int) -> int:
        """m(item): what this seat pays beyond (or below) the bid."""
        return self.view.price(self.view.seat, kind, item, _BIG_BID) - _BIG_BID

    def best_gem(self) -> int | None:
        view, seat = self.view, self.view.seat
        supply = view.gem_supply
        for g in range(NUM_GEMS - 1, -1, -1):
            if supply[g] and view.may_own_gem(seat, g):
                return g
        return None

    def bonus(self, sentinel: int) -> int:
        """b(s) by sozav's formulas on the (virtual) holdings."""
        act, arts, me = self.v_active, self.me.artifacts, self.me
        if sentinel == Sen.PHOENIX:
            return 2 * sum(1 for n in act if n)
        if sentinel == Sen.OWL:
            return 2 * sum(1 for lv in me.levels if lv >= MAX_LEVEL)
        if sentinel == Sen.FOX:
            return min(12, 2 * act[Gem.SAPPHIRE])
        if sentinel == Sen.TOMCAT:
            return min(12, 2 * act[Gem.OPAL])
        if sentinel == Sen.SCARAB:
            return act[Gem.EMERALD]
        if sentinel == Sen.UNICORN:
            return act[Gem.DIAMOND]
        if sentinel == Sen.SALAMANDER:
            return 2 * act[Gem.RUBY]
        if sentinel == Sen.TOAD:
            return 2 * sum(arts[a] for a in TOAD_ARTIFACTS)
        return 2 * sum(arts[a] for a in RAVEN_ARTIFACTS)  # raven

    def open_sentinels(self) -> list[int]:
        owners = self.view.sentinel_owner
        return [s for s in range(NUM_SENTINELS) if owners[s] == -1]

    def has_advanceable_chip(self) -> bool:
        me = self.me
        return me.pentagon_chips > 0 or any(0 < lv < MAX_LEVEL for lv in me.levels)

    def wants(self, kind: int, item: int) -> bool:
        """sozav's wants(item)."""
        arts = self.me.artifacts
        if self.fire_blocks_buying():
            return False
        if kind == ITEM_SENTINEL:
            best = max((self.bonus(s) for s in self.open_sentinels()), default=0)
            return self.bonus(item) >= best
        if item == Art.SPELLBOOK and arts[Art.SPELLBOOK]:
            return False
        if item == Art.ELIXIR and arts[Art.SPELLBOOK]:
            return False
        if item in _FREE_ADVANCE_ARTIFACTS and not self.has_advanceable_chip():
            return False
        return True

    def fire_blocks_buying(self) -> bool:
        """sozav's wants() rule 1: the druid buys and bids on nothing until Fire 4."""
        return 0 < self.me.levels[Field.FIRE] < MAX_LEVEL

    def next_track(self) -> int | None:
        levels = self.me.levels
        if levels[Field.FIRE] and not levels[Field.GEMSTONES]:
            return Field.GEMSTONES
        for f in _TRACK_SEQUENCE:
            if not levels[f]:
                return f
        return None

    def chip_rank(self) -> list[int]:
        """Rank of each field in (approximate) chip order: lower = earlier chip."""
        start = CHARACTERS[self.me.character].start_field
        order: list[int] = [start]
        if start == Field.FIRE:
            order.append(Field.GEMSTONES)
        order += [f for f in _TRACK_SEQUENCE if f not in order]
        order += [f for f in range(NUM_FIELDS) if f not in order]
        rank = [0] * NUM_FIELDS
        for i, f in enumerate(order):
            rank[f] = i
        return rank

    # ---- dispatch -------------------------------------------------------------------------
    def decide(self) -> int:
        phase = self.view.phase
        if phase == Phase.TURN:
            return self.turn()
        if phase == Phase.BID:
            return self.bid()
        if phase == Phase.DEBT:
            return self.pay_debt()
        if phase == Phase.FREE_LEVEL:
            return self.free_level()
        if phase == Phase.LOSE_GEM:  # lose_<gem> of the cheapest active kind
            return min((a for a in self.legal if a >= LOSE_GEM), default=min(self.legal))
        return min(self.legal)

    # ---- phase 3: one action per call -----------------------------------------------------
    def turn(self) -> int:
        view = self.view
        if view.block == Block.GEMS and self.realize is not None:
            return self.realize  # keep the arrangement right while the gem block is open
        intent = self.intent()
        if self.realize is not None and (intent == END_TURN or BUY_GEM <= intent < BUY_CHIP):
            return self.realize  # entering the gem block (or its last chance): arrange first
        return intent

    def fund(self, needed: int, action: int, block: Block) -> int | None:
        """``action`` if cash covers ``needed``; else sell the cheapest virtually inactive gem
        first (sozav spends inactive gems automatically); None if that cannot be done."""
        if self.cash >= needed:
            return action if action in self.legal else None
        if not self.gems_usable or (block != Block.GEMS and self.view.block == block):
            return None  # a sale would close the block the purchase needs
        for g in range(NUM_GEMS):
            if self.v_inactive[g] and SELL_GEM + g in self.legal:
                return SELL_GEM + g
        return None

    def intent(self) -> int:
        """Steps S1-S7: the first step that applies, or end the turn."""
        view, me = self.view, self.me
        auctions_usable = block_usable(view, Block.AUCTION)
        knowledge_usable = block_usable(view, Block.KNOWLEDGE) and not view.paid_advance_done
        # S1: the sentinel with the best bonus, as soon as 120 (net) is affordable.
        if auctions_usable:
            action = self.sentinel_step()
            if action is not None:
                return action
        # S2: Gemstones knowledge before buying gems.
        gems_started = view.block == Block.GEMS or (view.blocks_used >> Block.GEMS) & 1
        level = me.levels[Field.GEMSTONES]
        if knowledge_usable and 0 < level < MAX_LEVEL and not gems_started:
            c = LEVEL_COSTS[Field.GEMSTONES][level]
            if self.liquid >= c + GEMS_ADVANCE_MARGIN and self.cash >= c:
                action = ADVANCE + Field.GEMSTONES
                if action in self.legal:
                    return action
        # S3: the gem target.
        short = False
        best = self.best_gem()
        target = None
        if best is not None:
            free = self.slots - sum(self.v_active)
            if free > 0 or any(self.v_active[h] and self.upgradable(h) for h in range(best)):
                target = best
        if target is not None:
            if self.gems_usable:
                if self.liquid >= self.cost(target):
                    action = self.fund(self.cost(target), BUY_GEM + target, Block.GEMS)
                    if action is not None:
                        return action
                elif (self.slots > sum(self.v_active) and self.v_active[Gem.OPAL] == 2
                        and self.liquid >= self.cost(Gem.OPAL)):
                    action = self.fund(self.cost(Gem.OPAL), BUY_GEM + Gem.OPAL, Block.GEMS)
                    if action is not None:
                        return action
            short = True
        # S4: one paid advance on the cheapest advanceable track, or place a pentagon chip.
        nt = self.next_track()
        budget = self.liquid if self.gems_usable else self.cash
        if knowledge_usable:
            action = self.advance_step(nt, budget)
            if action is not None:
                return action
        # S5 (short: a chip only for Gemstones) / S6 (no target: artifact, then chip).
        if short:
            if nt == Field.GEMSTONES and knowledge_usable:
                action = self.chip_step(nt, budget)
                if action is not None:
                    return action
        else:
            if auctions_usable:
                action = self.artifact_step()
                if action is not None:
                    return action
            if knowledge_usable:
                action = self.chip_step(nt, budget)
                if action is not None:
                    return action
        # S7: bank the excess in opals, then end the turn.
        if self.gems_usable and self.cash >= self.cost(Gem.OPAL) and BUY_GEM in self.legal:
            load = _load_after_settlement(me.hand, me.balance, view.config.one_value_dust)
            if load > me.hand_limit:
                return BUY_GEM + Gem.OPAL
        return END_TURN

    def upgradable(self, gem: int) -> bool:
        """Whether an active gem of this kind could make room for a better one: sozav's
        "active gem below best_gem", limited by the no-undo rule while the gem block is open."""
        if not self.gems_usable:
            return True
        return gem not in self.activated_virtually and self._can_deactivate(gem)

    def sentinel_step(self) -> int | None:
        sentinels = self.open_sentinels()
        if not sentinels:
            return None
        top = max(self.bonus(s) for s in sentinels)
        candidates = [s for s in sentinels if self.bonus(s) == top
                      and self.wants(ITEM_SENTINEL, s)]
        if not candidates:
            return None
        if self.liquid < SENTINEL_MIN_BID + self.modifier(ITEM_SENTINEL, candidates[0]):
            return None
        choice = candidates[int(self.rng.random() * len(candidates))]
        action = OPEN_SENTINEL + choice
        return action if action in self.legal else None

    def advance_step(self, nt: int | None, budget: int) -> int | None:
        me = self.me
        levels = me.levels
        tracks = [f for f in range(NUM_FIELDS) if 0 < levels[f] < MAX_LEVEL]
        place_chip = not tracks
        if tracks:
            rank = self.chip_rank()
            f = min(tracks, key=lambda t: (LEVEL_COSTS[t][levels[t]], rank[t]))
            c = LEVEL_COSTS[f][levels[f]]
            if budget < c:
                return None
            if f == Field.FIRE and self.view.may_own_gem(self.view.seat, Gem.RUBY):
                place_chip = True  # the druid keeps Fire at 3 until his special ruby
            else:
                return self.fund(c, ADVANCE + f, Block.KNOWLEDGE)
        if place_chip and me.pentagon_chips > 0 and nt is not None:
            c = LEVEL_COSTS[nt][0]
            if budget >= c:
                return self.fund(c, ADVANCE + nt, Block.KNOWLEDGE)
        return None

    def chip_step(self, nt: int | None, budget: int) -> int | None:
        if nt is None or self.has_advanceable_chip():
            return None
        unbought = [i for i, b in enumerate(self.me.chips_bought) if not b]
        if not unbought:
            return None
        i = unbought[0]
        needed = CHIP_COSTS[i] + LEVEL_COSTS[nt][0]  # the placement must be paid in cash too
        if budget < needed:
            return None
        return self.fund(needed, BUY_CHIP + i, Block.KNOWLEDGE)

    def artifact_step(self) -> int | None:
        view = self.view
        for art in view.display:  # oldest first
            if not view.may_acquire(view.seat, ITEM_ARTIFACT, art):
                continue
            if not self.wants(ITEM_ARTIFACT, art):
                continue
            if self.liquid < ARTIFACTS[art].min_bid + self.modifier(ITEM_ARTIFACT, art):
                continue
            if OPEN_ARTIFACT + art in self.legal:
                return OPEN_ARTIFACT + art
        return None

    # ---- bidding --------------------------------------------------------------------------
    def bid(self) -> int:
        view = self.view
        if view.high_bidder < 0:  # our own opening: always the printed minimum
            return BID
        kind, item = view.auction_kind, view.auction_item
        if not self.wants(kind, item):  # B1
            return PASS
        m = self.modifier(kind, item)
        current = view.high_bid
        if self.liquid <= current + m:  # B2: never more than liquid energy
            return PASS
        if kind == ITEM_ARTIFACT:
            minimum = ARTIFACTS[item].min_bid
            factor = MASK_BID_LIMIT_FACTOR if item == Art.MASK else BID_LIMIT_FACTOR
        else:
            minimum, factor = SENTINEL_MIN_BID, BID_LIMIT_FACTOR
        limit = minimum * factor  # B3
        if m < 0:
            limit += -m / DISCOUNT_SHARE
        r = self.rng.random()
        limit += -1 if r < JITTER_MINUS else (0 if r < JITTER_ZERO else 1)
        if current >= limit:  # B4
            return PASS
        return BID + 1

    def pay_debt(self) -> int:
        """sozav pays with inactive gems, cheapest type first."""
        for g in range(NUM_GEMS):
            if self.v_inactive[g] and SELL_GEM + g in self.legal:
                return SELL_GEM + g
        for g in range(NUM_GEMS):
            if self.me.inactive[g] and SELL_GEM + g in self.legal:
                return SELL_GEM + g
        return min(self.legal)

    def free_level(self) -> int:
        levels = self.me.levels
        rank = self.chip_rank()
        placed = [a - ADVANCE for a in sorted(self.legal) if 0 < levels[a - ADVANCE] < MAX_LEVEL]
        if placed:
            f = max(placed, key=lambda t: (LEVEL_COSTS[t][levels[t]], rank[t]))
            return ADVANCE + f
        nt = self.next_track()
        if nt is not None and ADVANCE + nt in self.legal:
            return ADVANCE + nt
        return min(self.legal)


def safe_default(legal_actions: Sequence[int]) -> int:
    """What a scripted player plays when its choice is not legal: end the turn, else pass,
    else the first legal action."""
    for safe in (END_TURN, PASS):
        if safe in legal_actions:
            return safe
    return legal_actions[0]


def naive_decision(view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
    """The naive player's decision for the seat of ``view`` (``rng`` draws the bid jitter and
    the sentinel choice)."""
    return NaiveDecision(view, legal, rng).decide()


class NaiveAgent(Agent):
    """sozav's naive computer player (see the module docstring).  Seeded: the same seed, seat
    and game give the same decisions.

    Attributes:
        fallbacks: decisions (over this agent's life) where the policy's choice was not legal
            and end turn / pass / the first legal action was played instead.
    """

    name = "naive"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.fallbacks = 0

    def act(
        self,
        observation: dict[str, Any] | None,
        view: PlayerView,
        legal_actions: Sequence[int],
    ) -> int:
        action = self.decide(view, legal_actions)
        if action in legal_actions:
            return action
        self.fallbacks += 1  # defensive: a rule the port missed must not crash a game
        return safe_default(legal_actions)

    def decide(self, view: PlayerView, legal_actions: Sequence[int]) -> int:
        """The policy's choice (``act`` adds the safe fallback around it)."""
        return naive_decision(view, legal_actions, self.rng)
