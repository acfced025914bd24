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
from operator import attrgetter
from typing import Any

from zavandor_env.engine.data import (
    CONC_TOKEN0,
    DUST_TOKEN0,
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
    hand_limit,
    item_price,
    may_acquire,
    may_own_gem,
)
from zavandor_env.engine.scoring import sentinel_vp, victory_points
from zavandor_env.engine.state import GameState, Phase


def _read(path: str) -> Any:
    """A read-only attribute of a view: ``path`` of the record under it (``"_p.vp"``, a
    player's; ``"_state.round"``, the state's), read in C: no Python call on access."""
    return property(attrgetter(path))


def _copy(path: str) -> Any:
    """A list of the record under a view, as a tuple: a view cannot be used to change the
    game."""
    get = attrgetter(path)
    return property(lambda view: tuple(get(view)))


def _derived(rule: Callable[[Any], Any]) -> Any:
    """A read-only attribute of a seat that a rule computes from its player record."""
    return property(lambda view: rule(view._p))


class HiddenInformationError(AttributeError):
    """Raised when a view is asked for something its seat may not know."""


class SeatView:
    """One seat as seen by the viewer.  Own seat: everything; other seats: public parts only."""

    __slots__ = ("_own", "_p")

    def __init__(self, player: Any, own: bool) -> None:
        self._p = player
        self._own = own

    # ---- public -------------------------------------------------------------------------
    seat: int = _read("_p.seat")
    character: int = _read("_p.character")
    active: tuple[int, ...] = _copy("_p.active")
    inactive: tuple[int, ...] = _copy("_p.inactive")
    levels: tuple[int, ...] = _copy("_p.levels")
    chips_bought: tuple[bool, ...] = _copy("_p.chips_bought")
    pentagon_chips: int = _read("_p.pentagon_chips")
    artifacts: tuple[int, ...] = _copy("_p.artifacts")
    sentinels: tuple[int, ...] = _copy("_p.sentinels")
    vp: int = _read("_p.vp")  # the last phase-4 score (see current_vp)
    gem_vp: int = _read("_p.gem_vp")
    #: Costs announced this turn and not yet paid (public: everyone saw the purchases).
    balance: int = _read("_p.balance")
    eliminated: bool = _read("_p.eliminated")
    druid_ruby_used: bool = _read("_p.druid_ruby_used")
    sages_dust: int = _read("_p.sages_dust")
    is_own: bool = _read("_own")
    #: VP the seat would score if phase 4 came now (``vp`` is the last phase-4 score).
    current_vp: int = _derived(victory_points)
    #: Hand-limit slots used (known from counts alone).
    hand_load: int = _derived(lambda player: hand_load(player.hand))
    hand_limit: int = _derived(hand_limit)
    active_slots: int = _derived(active_slots)
    #: How many 9-Sages cards wait under the turn-order card (values hidden).
    sages_count: int = _derived(lambda player: len(player.sages_tokens))

    def sentinel_vp(self, sentinel: int) -> int:
        """VP a sentinel would be worth to this seat with its current holdings."""
        return sentinel_vp(self._p, sentinel)

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
    def known_value(self) -> int:
        """Value of the publicly known part of the hand: concentrated cards and dust."""
        hand = self._p.hand
        return sum(hand[t] * TOKEN_VALUE[t] for t in range(CONC_TOKEN0, NUM_TOKENS) if hand[t])

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
    round: int = _read("_state.round")
    phase: Phase = _read("_state.phase")
    turn_order: tuple[int, ...] = _copy("_state.turn_order")
    turn_player: int = _read("_state.turn_player")
    current_player: int = _read("_state.current_player")
    blocks_used: int = _read("_state.blocks_used")
    paid_advance_done: bool = _read("_state.paid_advance_done")
    display: tuple[int, ...] = _copy("_state.display")
    sentinel_owner: tuple[int, ...] = _copy("_state.sentinel_owner")
    concentrated_supply: tuple[int, ...] = _copy("_state.concentrated_supply")
    gem_supply: tuple[int, ...] = _copy("_state.gem_supply")
    art_mod: tuple[int, ...] = _copy("_state.art_mod")
    sen_mod: tuple[int, ...] = _copy("_state.sen_mod")

    @property
    def block(self) -> int:
        return int(self._state.block)

    config: Any = _read("_state.config")
    num_players: int = _read("_state.config.num_players")

    @property
    def is_over(self) -> bool:
        return self._state.terminated or self._state.truncated

    @property
    def artifact_deck_size(self) -> int:
        return len(self._state.artifact_deck)

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

    # ---- auction ------------------------------------------------------------------------
    auction_kind: int = _read("_state.auction_kind")
    auction_item: int = _read("_state.auction_item")
    auction_opener: int = _read("_state.auction_opener")
    high_bid: int = _read("_state.high_bid")
    high_bidder: int = _read("_state.high_bidder")
    passed: int = _read("_state.passed")
    debtor: int = _read("_state.debtor")
    free_levels: int = _read("_state.free_levels")
    victims: tuple[int, ...] = _copy("_state.victims")

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
