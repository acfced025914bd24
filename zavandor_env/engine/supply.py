"""Drawing energy cards: one face-down deck and one face-up discard pile per colour."""

from __future__ import annotations

from zavandor_env.engine.data import DECK_TOKENS, NUM_COLOURS
from zavandor_env.engine.state import GameState


def build_decks(state: GameState) -> None:
    """Shuffle each colour's 30/36/30/30 cards into its draw pile (as hand token ids)."""
    for colour in range(NUM_COLOURS):
        deck = list(DECK_TOKENS[colour])
        state.rng.shuffle(deck)
        state.decks[colour] = deck
        state.discards[colour] = []


def draw_card(state: GameState, colour: int) -> int:
    """Draw one card of a colour; returns its token, or -1 if deck and discards are empty.

    An empty draw pile is refilled by shuffling that colour's discards (the publisher's
    glossary, zavandor.de; docs/rules.md C1).
    """
    deck = state.decks[colour]
    if not deck:
        discards = state.discards[colour]
        if not discards:
            return -1
        deck.extend(discards)
        discards.clear()
        state.rng.shuffle(deck)
    return deck.pop()

