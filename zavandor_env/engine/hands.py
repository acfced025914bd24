"""A readable, read-only snapshot of one hand: :class:`Hand`.

The engine keeps a hand packed as a count vector over token types (``data.NUM_TOKENS``: the
21 energy-card values, the 4 concentrated cards, the dust chits), which is fast but opaque.
:func:`hand_of` unpacks such a vector for people writing scripts and tests::

    hand = game.hand(0)
    hand.cards["red"], hand.card_values["red"], hand.dust[10], hand.value
    hand.notation  # "blue5 red17:2 conc_red dust10", the scenario builder's notation
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from zavandor_env.engine.data import (
    CARD_TOKENS,
    COLOUR_NAMES,
    CONC_TOKEN0,
    DUST_CHITS,
    DUST_TOKEN0,
    NUM_CARD_TOKENS,
    NUM_COLOURS,
    NUM_TOKENS,
)
from zavandor_env.engine.economy import hand_load, hand_value


@dataclass(frozen=True)
class Hand:
    """One seat's usable energy, unpacked (a snapshot: it does not follow the game).

    Attributes:
        cards: colour name (``blue green white red``) -> number of energy cards.
        card_values: colour name -> the values of those cards, ascending (repeats kept).
        concentrated: colour name -> number of concentrated cards.
        dust: chit value (1, 2, 5, 10) -> number of chits; 1-chits exist only with the
            ``one_value_dust`` variant.
        value: total energy value of the hand (cards, concentrated cards and dust).
        load: hand-limit slots the hand uses (card 1, concentrated card 3, dust 1/1/2/3).
        tokens: the packed count vector the engine stores (``data.NUM_TOKENS`` entries).
    """

    cards: Mapping[str, int]
    card_values: Mapping[str, tuple[int, ...]]
    concentrated: Mapping[str, int]
    dust: Mapping[int, int]
    value: int
    load: int
    tokens: tuple[int, ...]

    def __hash__(self) -> int:  # the mappings are derived from ``tokens``
        return hash(self.tokens)

    @property
    def dust_value(self) -> int:
        """Total value of the dust chits."""
        return sum(chit * n for chit, n in self.dust.items())

    @property
    def notation(self) -> str:
        """The hand in the scenario notation (``"blue5:2 conc_red dust10"``), ordered by
        token; ``scenario.build(players=[{"hand": hand.notation}])`` rebuilds it."""
        return token_notation(self.tokens)


def hand_of(tokens: Sequence[int]) -> Hand:
    """Unpack a hand's count vector (``PlayerState.hand``) into a :class:`Hand`."""
    if len(tokens) != NUM_TOKENS:
        raise ValueError(f"a hand has {NUM_TOKENS} token counts, got {len(tokens)}")
    counts = tuple(int(n) for n in tokens)
    values: list[list[int]] = [[] for _ in range(NUM_COLOURS)]
    for t in range(NUM_CARD_TOKENS):
        colour, value = CARD_TOKENS[t]
        values[colour].extend([value] * counts[t])
    return Hand(
        cards=MappingProxyType({COLOUR_NAMES[c]: len(values[c]) for c in range(NUM_COLOURS)}),
        card_values=MappingProxyType(
            {COLOUR_NAMES[c]: tuple(values[c]) for c in range(NUM_COLOURS)}
        ),
        concentrated=MappingProxyType(
            {COLOUR_NAMES[c]: counts[CONC_TOKEN0 + c] for c in range(NUM_COLOURS)}
        ),
        dust=MappingProxyType({chit: counts[DUST_TOKEN0 + i] for i, chit in enumerate(DUST_CHITS)}),
        value=hand_value(counts),
        load=hand_load(counts),
        tokens=counts,
    )


def token_word(token: int) -> str:
    """Notation word of one hand token: ``"blue5"``, ``"conc_red"``, ``"dust10"``."""
    if token < NUM_CARD_TOKENS:
        colour, value = CARD_TOKENS[token]
        return f"{COLOUR_NAMES[colour]}{value}"
    if token < DUST_TOKEN0:
        return f"conc_{COLOUR_NAMES[token - CONC_TOKEN0]}"
    return f"dust{DUST_CHITS[token - DUST_TOKEN0]}"


def token_notation(counts: Sequence[int]) -> str:
    """A count vector in notation, ordered by token index, e.g. ``"blue5:2 dust10"``."""
    return " ".join(
        token_word(t) + (f":{n}" if n > 1 else "") for t, n in enumerate(counts) if n
    )
