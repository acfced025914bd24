"""What one seat may know: :class:`PlayerView`, a read-only window on a :class:`GameState`.

A player at the table sees everything public -- gems, knowledge levels, artifacts, sentinels,
the display, the supplies, the face-up discard piles, dust chits, the auction in progress --
plus the values of his own energy cards and of his own 9-Sages cards.  Of every other hand he
sees only how many cards of each colour it holds (the card backs show the colour), its
concentrated cards and its dust.  Deck order is hidden from everybody.

Non-neural agents decide from a view (never from the state), and the determinizer
(:mod:`.determinize`) samples full games consistent with one.  A view is cheap to make: it
holds the live state and reads it on access, returning copies (tuples), so it cannot be used
to change the game.  It stays current as the game moves on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zavandor_env.engine.data import (
    CONC_TOKEN0,
    CONCENTRATED_VALUE,
    DUST_TOKEN0,
    ENERGY_DECKS,
    NUM_CARD_TOKENS,
    NUM_COLOURS,
    NUM_TOKENS,
    TOKEN_COLOUR,
    TOKEN_VALUE,
)
from zavandor_env.engine.economy import hand_load, hand_value
from zavandor_env.engine.hands import Hand, hand_of
from zavandor_env.engine.queries import (
    active_slots,
    gems_sale_value,
    hand_limit,
    item_price,
    may_acquire,
    may_own_gem,
)
from zavandor_env.engine.scoring import sentinel_vp, victory_points
from zavandor_env.engine.state import GameState, Phase

# Mean card value per colour: what an unseen card of that colour is expected to be worth.
COLOUR_MEAN: tuple[float, ...] = tuple(
    sum(v * n for v, n in deck.items()) / sum(deck.values()) for deck in ENERGY_DECKS
)


class HiddenInformationError(AttributeError):
    """Raised when a view is asked for something its seat may not know."""


class SeatView:
    """One seat as seen by the viewer.  Own seat: everything; other seats: public parts only."""

    __slots__ = ("_own", "_p")

    def __init__(self, player: Any, own: bool) -> None:
        self._p = player
        self._own = own

    # ---- public -------------------------------------------------------------------------
    @property
    def seat(self) -> int:
        return self._p.seat

    @property
    def is_own(self) -> bool:
        return self._own

    @property
    def character(self) -> int:
        return self._p.character

    @property
    def active(self) -> tuple[int, ...]:
        return tuple(self._p.active)

    @property
    def inactive(self) -> tuple[int, ...]:
        return tuple(self._p.inactive)

    @property
    def levels(self) -> tuple[int, ...]:
        return tuple(self._p.levels)

    @property
    def chips_bought(self) -> tuple[bool, ...]:
        return tuple(self._p.chips_bought)

    @property
    def pentagon_chips(self) -> int:
        return self._p.pentagon_chips

    @property
    def artifacts(self) -> tuple[int, ...]:
        return tuple(self._p.artifacts)

    @property
    def sentinels(self) -> tuple[int, ...]:
        return tuple(self._p.sentinels)

    @property
    def vp(self) -> int:
        return self._p.vp

    @property
    def gem_vp(self) -> int:
        return self._p.gem_vp

    def sentinel_vp(self, sentinel: int) -> int:
        """VP a sentinel would be worth to this seat with its current holdings."""
        return sentinel_vp(self._p, sentinel)

    @property
    def current_vp(self) -> int:
        """VP the seat would score if phase 4 came now (``vp`` is the last phase-4 score)."""
        return victory_points(self._p)

    @property
    def balance(self) -> int:
        """Costs announced this turn and not yet paid (public: everyone saw the purchases)."""
        return self._p.balance

    @property
    def eliminated(self) -> bool:
        return self._p.eliminated

    @property
    def druid_ruby_used(self) -> bool:
        return self._p.druid_ruby_used

    @property
    def card_counts(self) -> tuple[int, ...]:
        """Energy cards in hand per colour (blue, green, white, red); values not included."""
        counts = [0] * NUM_COLOURS
        hand = self._p.hand
        for t in range(NUM_CARD_TOKENS):
            if hand[t]:
                counts[TOKEN_COLOUR[t]] += hand[t]
        return tuple(counts)

    @property
    def concentrated(self) -> tuple[int, ...]:
        """Concentrated cards in hand per colour (their value is printed: public)."""
        return tuple(self._p.hand[CONC_TOKEN0 : CONC_TOKEN0 + NUM_COLOURS])

    @property
    def dust(self) -> tuple[int, ...]:
        """Dust chits in hand by chit value 1/2/5/10 (they lie face up)."""
        return tuple(self._p.hand[DUST_TOKEN0:NUM_TOKENS])

    @property
    def sages_count(self) -> int:
        """How many 9-Sages cards wait under the turn-order card (values hidden)."""
        return len(self._p.sages_tokens)

    @property
    def sages_dust(self) -> int:
        return self._p.sages_dust

    @property
    def hand_load(self) -> int:
        """Hand-limit slots used (known from counts alone)."""
        return hand_load(self._p.hand)

    @property
    def hand_limit(self) -> int:
        return hand_limit(self._p)

    @property
    def active_slots(self) -> int:
        return active_slots(self._p)

    @property
    def gems_sale_value(self) -> int:
        return gems_sale_value(self._p)

    @property
    def known_value(self) -> int:
        """Value of the publicly known part of the hand: concentrated cards and dust."""
        hand = self._p.hand
        return sum(hand[t] * TOKEN_VALUE[t] for t in range(CONC_TOKEN0, NUM_TOKENS) if hand[t])

    @property
    def expected_liquid(self) -> float:
        """Spendable energy as others estimate it: known items, each hidden card at its
        colour's mean value, less the unpaid balance.  Exact for one's own seat."""
        if self._own:
            return float(self.hand_value - self._p.balance)
        counts = self.card_counts
        hidden = sum(counts[c] * COLOUR_MEAN[c] for c in range(NUM_COLOURS))
        return self.known_value + hidden - self._p.balance

    # ---- own seat only ------------------------------------------------------------------
    def _require_own(self, what: str) -> None:
        if not self._own:
            raise HiddenInformationError(f"seat {self._p.seat}'s {what} is hidden from this view")

    @property
    def hand(self) -> tuple[int, ...]:
        """Token counts of the whole hand (own seat only)."""
        self._require_own("hand")
        return tuple(self._p.hand)

    @property
    def hand_value(self) -> int:
        self._require_own("hand value")
        return hand_value(self._p.hand)

    @property
    def liquid(self) -> int:
        """Energy still spendable now (hand value less the unpaid balance); own seat only."""
        return self.hand_value - self._p.balance

    @property
    def max_payable(self) -> int:
        return self.liquid + gems_sale_value(self._p)

    @property
    def sages_tokens(self) -> tuple[int, ...]:
        self._require_own("9-Sages cards")
        return tuple(self._p.sages_tokens)


class PlayerView:
    """Read-only view of a game from one seat (see the module docstring).

    Args:
        state: the live game state.
        seat: the viewing seat.
    """

    __slots__ = ("_seats", "_state", "seat")

    #: The C++ core of the game when the view is of a native game (see :class:`NativeView`):
    #: agents with a native implementation (the heuristic) decide on it directly.
    native_core: Any = None

    def __init__(self, state: GameState, seat: int) -> None:
        if not 0 <= seat < state.config.num_players:
            raise ValueError(f"seat must be in [0, {state.config.num_players}), got {seat}")
        self._state = state
        self.seat = seat
        self._seats = tuple(SeatView(p, p.seat == seat) for p in state.players)

    # ---- seats --------------------------------------------------------------------------
    @property
    def me(self) -> SeatView:
        return self._seats[self.seat]

    def player(self, seat: int) -> SeatView:
        return self._seats[seat]

    @property
    def players(self) -> tuple[SeatView, ...]:
        return self._seats

    @property
    def opponents(self) -> tuple[SeatView, ...]:
        return tuple(s for s in self._seats if s.seat != self.seat and not s.eliminated)

    def hand(self) -> Hand:
        """A readable snapshot of the viewer's own hand (``me.hand`` is the packed form)."""
        return hand_of(self._state.players[self.seat].hand)

    # ---- table --------------------------------------------------------------------------
    @property
    def config(self) -> Any:
        return self._state.config

    @property
    def num_players(self) -> int:
        return self._state.config.num_players

    @property
    def round(self) -> int:
        return self._state.round

    @property
    def phase(self) -> Phase:
        return self._state.phase

    @property
    def is_over(self) -> bool:
        return self._state.terminated or self._state.truncated

    @property
    def turn_order(self) -> tuple[int, ...]:
        return tuple(self._state.turn_order)

    @property
    def turn_player(self) -> int:
        return self._state.turn_player

    @property
    def current_player(self) -> int:
        return self._state.current_player

    @property
    def block(self) -> int:
        return int(self._state.block)

    @property
    def blocks_used(self) -> int:
        return self._state.blocks_used

    @property
    def paid_advance_done(self) -> bool:
        return self._state.paid_advance_done

    @property
    def display(self) -> tuple[int, ...]:
        return tuple(self._state.display)

    @property
    def artifact_deck_size(self) -> int:
        return len(self._state.artifact_deck)

    @property
    def sentinel_owner(self) -> tuple[int, ...]:
        return tuple(self._state.sentinel_owner)

    @property
    def sentinels_acquired(self) -> int:
        return sum(1 for o in self._state.sentinel_owner if o != -1)

    @property
    def deck_sizes(self) -> tuple[int, ...]:
        return tuple(len(d) for d in self._state.decks)

    @property
    def discards(self) -> tuple[tuple[int, ...], ...]:
        """Face-up discard piles per colour, as card tokens (bottom first)."""
        return tuple(tuple(d) for d in self._state.discards)

    @property
    def concentrated_supply(self) -> tuple[int, ...]:
        return tuple(self._state.concentrated_supply)

    @property
    def gem_supply(self) -> tuple[int, ...]:
        return tuple(self._state.gem_supply)

    @property
    def art_mod(self) -> tuple[int, ...]:
        return tuple(self._state.art_mod)

    @property
    def sen_mod(self) -> tuple[int, ...]:
        return tuple(self._state.sen_mod)

    # ---- auction ------------------------------------------------------------------------
    @property
    def auction_kind(self) -> int:
        return self._state.auction_kind

    @property
    def auction_item(self) -> int:
        return self._state.auction_item

    @property
    def auction_opener(self) -> int:
        return self._state.auction_opener

    @property
    def high_bid(self) -> int:
        return self._state.high_bid

    @property
    def high_bidder(self) -> int:
        return self._state.high_bidder

    @property
    def passed(self) -> int:
        return self._state.passed

    @property
    def debtor(self) -> int:
        return self._state.debtor

    @property
    def free_levels(self) -> int:
        return self._state.free_levels

    @property
    def victims(self) -> tuple[int, ...]:
        return tuple(self._state.victims)

    # ---- public rule queries ------------------------------------------------------------
    def price(self, seat: int, kind: int, item: int, bid: int) -> int:
        """What ``seat`` would pay for ``item`` won at ``bid`` (modifiers and discounts)."""
        state = self._state
        return item_price(state, state.players[seat], kind, item, bid)

    def may_acquire(self, seat: int, kind: int, item: int) -> bool:
        return may_acquire(self._state.players[seat], kind, item)

    def may_own_gem(self, seat: int, gem: int) -> bool:
        state = self._state
        return may_own_gem(state, state.players[seat], gem)

    def concentrated_value(self, colour: int) -> int:
        return CONCENTRATED_VALUE[colour]

    def __repr__(self) -> str:
        return f"PlayerView(seat={self.seat}, round={self.round}, phase={self.phase.name})"


class NativeView(PlayerView):
    """A :class:`PlayerView` of a native game for the decision at hand: the Python state is
    copied out of the core only when something reads it (an agent that decides natively on
    :attr:`native_core` never pays for the copy).  Take a new view after each change."""

    __slots__ = ("native_core", "_load")

    def __init__(self, core: Any, seat: int, load: Callable[[], GameState]) -> None:
        if not 0 <= seat < core.num_players:
            raise ValueError(f"seat must be in [0, {core.num_players}), got {seat}")
        self.native_core = core
        self.seat = seat
        self._load = load

    def __getattr__(self, name: str) -> Any:
        # Reached only while _state/_seats are unset (or for a missing attribute): fill both
        # slots once, after which every read is a plain slot read.
        if name not in ("_state", "_seats"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        state = self._load()
        slots = PlayerView.__dict__
        slots["_state"].__set__(self, state)
        slots["_seats"].__set__(self, tuple(SeatView(p, p.seat == self.seat)
                                            for p in state.players))
        return getattr(self, name)
