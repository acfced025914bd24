"""``naive``: the computer player of sozav (the only other implementation of this game), ported
as an external baseline.

The port is implemented once, in C++ (``native/src/naive.cpp``, which also plays it in MCTS
rollouts and vectorised opponents); this module holds sozav's constants and the agent class
that hands each decision to the native core (:func:`zavandor_env.agents.base.decision_core`).
The description below is of that implementation.

The policy is sozav's ``AI::Naive`` player (sozav: a public Perl implementation by Roderick
Schertler, github.com/rosche/sozav), re-implemented here from a description of its decisions
over our engine.  sozav's player is called again and again during its turn and does *one* thing
per call, in a fixed priority order (numbered S1-S7 below); its bidding
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

from collections.abc import Sequence
from typing import Any

from zavandor_env.agents.base import Agent, decision_core, safe_default
from zavandor_env.engine.data import Art, Field
from zavandor_env.engine.native import core_module
from zavandor_env.engine.view import PlayerView

__all__ = ["NaiveAgent", "ScriptedBot", "safe_default"]

# sozav's constants (steps S2, B3), generated into native/src/generated/constants.hpp from
# here (zavandor_env/codegen/header.py).
GEMS_ADVANCE_MARGIN = 10
BID_LIMIT_FACTOR = 1.05
MASK_BID_LIMIT_FACTOR = 1.40
DISCOUNT_SHARE = 3  # a third of any discount raises the limit
JITTER_MINUS = 1 / 7  # -1 with 1/7, 0 with 2/7, +1 with 4/7
JITTER_ZERO = 3 / 7
_BIG_BID = 100_000  # m(item) = price(bid) - bid at a bid far from the floor at 0
_FREE_ADVANCE_ARTIFACTS = (Art.RUNESTONE, Art.MASK, Art.TALISMAN)
_TRACK_SEQUENCE = (Field.ARTIFACTS, Field.ACCUMULATION, Field.SAGES)


class ScriptedBot(Agent):
    """A seeded scripted player of the native core (``_native.NativeNaive`` or a subclass).

    The native player draws from its own generator, identical to ``random.Random(seed)``: the
    agent's seed (at construction and at :meth:`reset`) seeds it, so the same seed, seat and
    game give the same decisions as ever.  A pickled or copied agent gets a generator seeded
    from its own :attr:`rng` (the native generator's state does not cross a pickle).
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        # random.Random(seed) seeds with abs(seed); None draws one (from the agent's rng).
        self._bot = self._make_bot(self.rng.getrandbits(64) if seed is None else abs(int(seed)))

    def _make_bot(self, seed: int) -> Any:
        return core_module().NativeNaive(seed)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        if seed is not None:
            self._bot.seed(abs(int(seed)))

    @property
    def fallbacks(self) -> int:
        """Decisions (over this agent's life) where the player's choice was not legal and end
        turn / pass / the first legal action was played instead (0 in the tests)."""
        return int(self._bot.fallbacks)

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        action = int(self._bot.act(decision_core(view)))
        # The native player chooses among the game's legal actions; a caller offering fewer
        # gets the safe default instead of a choice outside them.
        return action if action in legal_actions else safe_default(legal_actions)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_bot": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bot = self._make_bot(self.rng.getrandbits(64))


class NaiveAgent(ScriptedBot):
    """sozav's naive computer player (see the module docstring).  Seeded: the same seed, seat
    and game give the same decisions (the seed draws its bid jitter and sentinel choice)."""

    name = "naive"
