"""Sample a full game consistent with what one seat knows (for search under hidden information).

The hidden parts of a Zavandor table are (rulebook; ``PlayerView``):

* the values of the other players' energy cards (their colours are known),
* the values of the other players' 9-Sages cards (colour known from the level they entered),
* the order of every energy deck and of the artifact deck.

:func:`determinize` keeps everything the viewer knows and redraws all of that: per colour, the
cards nobody can see (the full deck less the viewer's own cards and the face-up discards) are
shuffled and dealt back into the same places -- the same number of cards of each colour in
every hidden hand, the same number under each turn-order card, the same draw-pile sizes -- so
every card exists exactly once.  The artifact deck is reshuffled within each letter (A/B/C/D
stay in order, as the rules build it).  Finally the game's generator is reseeded, so a search
over the sample cannot foresee the real draws or tie-breaks.

This is the uniform "information set sampling" of PIMC / IS-MCTS: it ignores what could be
inferred from the opponents' past choices, which the rules do not make public.  One public fact
does constrain the hidden cards: a player in the middle of his turn (or paying for an auction)
owes the costs he has run up (``balance``), and his hand can pay them, so a sample whose hand
could not is rejected and redrawn (conditioning on that fact, as a player at the table would).
"""

from __future__ import annotations

import random
from collections import Counter

from zavandor_env.engine.data import (
    ARTIFACTS,
    DECK_TOKENS,
    NUM_CARD_TOKENS,
    NUM_COLOURS,
    TOKEN_COLOUR,
    TOKEN_VALUE,
)
from zavandor_env.engine.economy import hand_value
from zavandor_env.engine.game import Game
from zavandor_env.engine.state import GameState, PlayerState
from zavandor_env.engine.view import PlayerView

#: Redraws of the hidden cards before the owing players get the best cards of their colours.
_MAX_REDRAWS = 64


def unseen_cards(view: PlayerView) -> list[list[int]]:
    """Per colour, the card tokens the viewer cannot see, sorted (a canonical multiset).

    Built only from what the view exposes: the full deck, less the viewer's own hand and
    9-Sages cards, less the face-up discards.
    """
    me = view.me
    remaining = [Counter(deck) for deck in DECK_TOKENS]
    hand = me.hand
    seen: list[int] = [t for t in range(NUM_CARD_TOKENS) for _ in range(hand[t])]
    seen.extend(me.sages_tokens)
    for pile in view.discards:
        seen.extend(pile)
    for token in seen:
        colour = TOKEN_COLOUR[token]
        remaining[colour][token] -= 1
        if remaining[colour][token] < 0:
            raise ValueError(f"card conservation broken: token {token} seen too often")
    return [sorted(counts.elements()) for counts in remaining]


def determinize(view: PlayerView, rng: random.Random) -> Game:
    """A complete :class:`Game` drawn uniformly from those consistent with ``view``.

    The returned game is independent of the real one (a deep copy) and its generator is
    reseeded from ``rng``.  Raises ValueError if the view's state breaks card conservation.
    """
    real = view._state
    seat = view.seat
    unseen = unseen_cards(view)
    # Players whose hidden hand must cover what they owe this turn (public costs).
    owing = [p.seat for p in real.players if p.seat != seat and p.balance > 0]
    for attempt in range(_MAX_REDRAWS + 1):
        state = real.clone()
        pools = [pool[:] for pool in unseen]
        for pool in pools:
            rng.shuffle(pool)
        if attempt == _MAX_REDRAWS:  # rare: the owing players take their colours' best cards
            for pool in pools:
                pool.sort(key=TOKEN_VALUE.__getitem__)
        _deal(state, seat, pools, first=owing)
        if all(hand_value(state.players[s].hand) >= state.players[s].balance for s in owing):
            break
    state.artifact_deck = _shuffle_within_letters(state.artifact_deck, rng)
    state.rng.seed(rng.getrandbits(64))
    return Game(state, None)


def _deal(state: GameState, seat: int, pools: list[list[int]], first: list[int]) -> None:
    """Deal the shuffled unseen cards back into every hidden place of ``state`` (the seats in
    ``first`` are served first, so with sorted pools they get the most valuable cards)."""
    others = [p for p in state.players if p.seat != seat]
    for colour in range(NUM_COLOURS):
        pool = pools[colour]
        slots = len(state.decks[colour])
        for p in others:
            slots += sum(p.hand[t] for t in range(NUM_CARD_TOKENS) if TOKEN_COLOUR[t] == colour)
            slots += sum(1 for t in p.sages_tokens if TOKEN_COLOUR[t] == colour)
        if slots != len(pool):
            raise ValueError(
                f"card conservation broken for colour {colour}: {slots} hidden places, "
                f"{len(pool)} unseen cards"
            )
    others.sort(key=lambda p: p.seat not in first)
    for p in others:
        _redeal_hand(p, pools)
    for colour in range(NUM_COLOURS):
        state.decks[colour] = pools[colour]  # what is left fills the draw pile exactly


def _redeal_hand(player: PlayerState, pools: list[list[int]]) -> None:
    """Replace the player's card values (and 9-Sages cards) by cards from the end of the
    pools, keeping how many cards of each colour he holds."""
    hand = player.hand
    counts = [0] * NUM_COLOURS
    for t in range(NUM_CARD_TOKENS):
        if hand[t]:
            counts[TOKEN_COLOUR[t]] += hand[t]
            hand[t] = 0
    for colour in range(NUM_COLOURS):
        for _ in range(counts[colour]):
            hand[pools[colour].pop()] += 1
    player.sages_tokens = [pools[TOKEN_COLOUR[t]].pop() for t in player.sages_tokens]


def _shuffle_within_letters(deck: list[int], rng: random.Random) -> list[int]:
    """Shuffle the artifact deck keeping each letter's positions (A on top of B, ...)."""
    out = deck[:]
    for letter in sorted({ARTIFACTS[a].letter for a in deck}):
        positions = [i for i, a in enumerate(deck) if ARTIFACTS[a].letter == letter]
        items = [deck[i] for i in positions]
        rng.shuffle(items)
        for i, a in zip(positions, items):
            out[i] = a
    return out
