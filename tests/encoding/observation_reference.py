"""The observation computed in Python, field by field: the specification the C++ encoder meets.

The C++ core's encoder (``native/src/observe.cpp``) is tuned for speed, which makes a slip -- a
field shifted by one, a count taken from the wrong list -- easy to make and hard to see.  This
module computes every field one at a time and by name, straight from a
:class:`~zavandor_env.engine.state.GameState` and the data tables, and checks each against the
layout declaration (the ordered field tables, their sizes and scales) it shares with the
observation module; the tests assert that both encoders give bit-identical vectors over many
games.  Only the tests use it: the package encodes with the core alone (this one is many
times slower).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from zavandor_env.encoding.observation import (
    _SCALE,
    BLOCKS,
    CLOSABLE_BLOCKS,
    DECISION_PHASES,
    GLOBAL_FIELDS,
    OBS_BOUND,
    OBS_SIZE,
    PLAYER_FIELDS,
    PLAYER_SIZE,
    PRIVATE_FIELDS,
    ObsField,
)
from zavandor_env.engine.data import (
    CHARACTERS,
    CONC_TOKEN0,
    DUST_CHITS,
    DUST_TOKEN,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ARTIFACT_TYPES,
    NUM_CARD_TOKENS,
    NUM_COLOURS,
    NUM_GEMS,
    NUM_SENTINELS,
    TOKEN_COLOUR,
    TOKEN_VALUE,
)
from zavandor_env.engine.economy import hand_load
from zavandor_env.engine.queries import hand_limit, item_price, liquid, max_payable
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL, GameState

Number = int | float
Values = list[Number]


def one_hot(index: int | None, size: int) -> Values:
    """``size`` zeros with a one at ``index`` (all zeros when ``index`` is None)."""
    return [1 if i == index else 0 for i in range(size)]


def _bit(mask: int, index: int) -> int:
    return 1 if mask & (1 << index) else 0


def _in_auction(state: GameState) -> bool:
    return state.auction_kind >= 0


# ---- global fields ---------------------------------------------------------------------------
def _global_values(state: GameState) -> dict[str, Values]:
    n = state.config.num_players
    auction = _in_auction(state)
    kind, item = state.auction_kind, state.auction_item
    owners = state.sentinel_owner
    phase = state.phase if state.phase in DECISION_PHASES else None
    return {
        "num_players": one_hot(n - MIN_PLAYERS, MAX_PLAYERS - MIN_PLAYERS + 1),
        "round": [state.round],
        "round_fraction": [state.round / state.config.max_rounds],
        "phase": [1 if phase == p else 0 for p in DECISION_PHASES],
        "block": [1 if state.block == b else 0 for b in BLOCKS],
        "blocks_used": [_bit(state.blocks_used, b) for b in CLOSABLE_BLOCKS],
        "paid_advance_done": [int(state.paid_advance_done)],
        "gems_activated": [_bit(state.gems_activated, g) for g in range(NUM_GEMS)],
        "gems_deactivated": [_bit(state.gems_deactivated, g) for g in range(NUM_GEMS)],
        "display": [state.display.count(a) for a in range(NUM_ARTIFACT_TYPES)],
        "artifact_deck": [state.artifact_deck.count(a) for a in range(NUM_ARTIFACT_TYPES)],
        "artifact_deck_size": [len(state.artifact_deck)],
        "sentinel_available": [1 if owners[s] == -1 else 0 for s in range(NUM_SENTINELS)],
        "sentinels_acquired": [sum(1 for owner in owners if owner != -1)],
        "gem_supply": list(state.gem_supply),
        "concentrated_supply": list(state.concentrated_supply),
        "deck_size": [len(deck) for deck in state.decks],
        "discard_size": [len(pile) for pile in state.discards],
        # Counted over every pile, so a card in the wrong colour's pile would still show.
        "discards": [sum(pile.count(t) for pile in state.discards)
                     for t in range(NUM_CARD_TOKENS)],
        "auction_active": [int(auction or state.debtor >= 0)],
        "auction_artifact": one_hot(item if kind == ITEM_ARTIFACT else None, NUM_ARTIFACT_TYPES),
        "auction_sentinel": one_hot(item if kind == ITEM_SENTINEL else None, NUM_SENTINELS),
        "high_bid": [state.high_bid if auction else 0],
        "opening_bid_pending": [int(auction and state.high_bidder < 0)],
        "debt_price": [state.debt_item_price],
        "free_levels": [state.free_levels],
        "victims_left": [len(state.victims)],
    }


# ---- player slots ----------------------------------------------------------------------------
def seat_slots(state: GameState, seat: int) -> list[int]:
    """Seats in slot order: the observer, the others in turn order after it, the rest."""
    order = list(state.turn_order)
    if seat in order:
        start = order.index(seat)
        others = [order[(start + k) % len(order)] for k in range(1, len(order))]
    else:
        others = order
    rest = [s for s in range(state.config.num_players) if s != seat and s not in others]
    return [seat, *others, *rest]


def _colour_counts(tokens: Sequence[int], count_of: Callable[[int], int]) -> Values:
    """Per colour, the summed counts of the card tokens of that colour."""
    return [sum(count_of(t) for t in tokens if TOKEN_COLOUR[t] == c) for c in range(NUM_COLOURS)]


def _player_values(state: GameState, s: int) -> dict[str, Values]:
    p = state.players[s]
    hand = p.hand
    auction = _in_auction(state)
    cards = range(NUM_CARD_TOKENS)
    deciding = s == state.current_player and not (state.terminated or state.truncated)
    return {
        "present": [1],
        "eliminated": [int(p.eliminated)],
        "character": one_hot(p.character, len(CHARACTERS)),
        "active_gems": list(p.active),
        "inactive_gems": list(p.inactive),
        "levels": list(p.levels),
        "chips_bought": [int(bought) for bought in p.chips_bought],
        "pentagon_chips": [p.pentagon_chips],
        "artifacts": list(p.artifacts),
        "sentinels": [1 if x in p.sentinels else 0 for x in range(NUM_SENTINELS)],
        "vp": [p.vp],
        "gem_vp": [p.gem_vp],
        "position": one_hot(state.turn_order.index(s) if s in state.turn_order else None,
                            MAX_PLAYERS),
        "price_modifier": [state.art_mod[s], state.sen_mod[s]],
        "cards": _colour_counts(cards, lambda t: hand[t]),
        "concentrated": [hand[CONC_TOKEN0 + c] for c in range(NUM_COLOURS)],
        "dust_chits": [hand[DUST_TOKEN[v]] for v in DUST_CHITS],
        "dust": [sum(v * hand[DUST_TOKEN[v]] for v in DUST_CHITS)],
        "hand_load": [hand_load(hand)],
        "hand_limit": [hand_limit(p)],
        "sages_cards": _colour_counts(cards, p.sages_tokens.count),
        "sages_dust": [p.sages_dust],
        "balance": [p.balance],
        "druid_ruby_used": [int(p.druid_ruby_used)],
        "is_turn_player": [int(s == state.turn_player)],
        "is_deciding": [int(deciding)],
        "high_bidder": [int(auction and s == state.high_bidder)],
        "passed": [int(auction and _bit(state.passed, s) == 1)],
        "debtor": [int(s == state.debtor)],
        "victim": [int(s in state.victims)],
    }


# ---- private fields --------------------------------------------------------------------------
def _private_values(state: GameState, seat: int) -> dict[str, Values]:
    me = state.players[seat]
    active = not me.eliminated
    auction = _in_auction(state)
    price = 0
    if auction and active:
        price = item_price(state, me, state.auction_kind, state.auction_item, state.high_bid)
    return {
        "hand_cards": [me.hand[t] for t in range(NUM_CARD_TOKENS)],
        "sages_cards": [me.sages_tokens.count(t) for t in range(NUM_CARD_TOKENS)],
        "hand_value": [sum(n * TOKEN_VALUE[t] for t, n in enumerate(me.hand))],
        "liquid": [liquid(me)],
        "max_payable": [max_payable(me) if active else 0],
        "price_at_high_bid": [price],
    }


# ---- assembly --------------------------------------------------------------------------------
def _checked(fields: Sequence[ObsField], values: dict[str, Values]) -> Values:
    """Each field's raw values in layout order; a missing or extra name or a wrong size is an
    error."""
    names = [f.name for f in fields]
    if sorted(names) != sorted(values):
        raise AssertionError(f"reference fields {sorted(values)} != layout {sorted(names)}")
    out: Values = []
    for f in fields:
        raw = values[f.name]
        if len(raw) != f.size:
            raise AssertionError(f"field {f.name!r}: {len(raw)} values, layout says {f.size}")
        out += raw
    return out


def raw_values(state: GameState, seat: int) -> Values:
    """The unscaled numbers of ``seat``'s observation in layout order (absent slots are zeros)."""
    values = _checked(GLOBAL_FIELDS, _global_values(state))
    slots = seat_slots(state, seat)
    for s in slots:
        values += _checked(PLAYER_FIELDS, _player_values(state, s))
    values += [0] * (PLAYER_SIZE * (MAX_PLAYERS - len(slots)))
    values += _checked(PRIVATE_FIELDS, _private_values(state, seat))
    assert len(values) == OBS_SIZE, len(values)
    return values


def encode_reference(state: GameState, seat: int) -> np.ndarray:
    """The observation of ``seat``: :func:`raw_values`, each times its field's scale, then
    clipped to [-OBS_BOUND, OBS_BOUND]."""
    obs = np.asarray(raw_values(state, seat), dtype=np.float64).astype(np.float32) * _SCALE
    return np.clip(obs, -OBS_BOUND, OBS_BOUND)
