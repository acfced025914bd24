"""Fields of knowledge: raising a level (paid or free) and the effects of entering a level."""

from __future__ import annotations

from zavandor_env.engine.data import (
    EMPTY_DECK_DUST,
    MAX_LEVEL,
    NUM_FIELDS,
    SAGES_CARDS_PER_LEVEL,
    TOKEN_COLOUR,
    TOKEN_VALUE,
    Field,
)
from zavandor_env.engine.queries import has_means_for_colour
from zavandor_env.engine.state import GameState, PlayerState
from zavandor_env.engine.supply import draw_card


def can_raise(player: PlayerState, field: int) -> bool:
    """A level can be gained in a field below level 4 that holds the player's chip, or in a
    new field if a bought chip waits in the pentagon (one chip per field)."""
    level = player.levels[field]
    return level < MAX_LEVEL and (level > 0 or player.pentagon_chips > 0)


def free_level_targets(player: PlayerState) -> list[int]:
    return [f for f in range(NUM_FIELDS) if can_raise(player, f)]


def raise_level(state: GameState, player: PlayerState, field: int) -> None:
    """Move the player's chip one level up (placing a pentagon chip at level 1 if new).

    Hand-limit modifiers and level effects are derived from the levels, so entering a field
    changes the hand limit once.  Entering a 9-Sages level deals its reward.
    """
    level = player.levels[field]
    if level == 0:
        player.pentagon_chips -= 1
    player.levels[field] = level + 1
    if field == Field.SAGES:
        _sages_reward(state, player, level + 1)


def _sages_reward(state: GameState, player: PlayerState, new_level: int) -> None:
    """Two cards of colour blue/green/white/red for level 1/2/3/4, kept under the turn-order
    card until next round; exchanged for their value in dust if the player has no way to get
    that colour when entering the level (:func:`queries.has_means_for_colour`, docs/rules.md
    decision 13; option ``sages_dust_substitution``)."""
    colour = new_level - 1
    tokens = []
    dust = 0
    for _ in range(SAGES_CARDS_PER_LEVEL):
        token = draw_card(state, colour)
        if token < 0:
            dust += EMPTY_DECK_DUST[colour]
        else:
            tokens.append(token)
    if state.config.sages_dust_substitution and not has_means_for_colour(state, player, colour):
        for token in tokens:
            state.discards[TOKEN_COLOUR[token]].append(token)
            dust += TOKEN_VALUE[token]
        tokens = []
    player.sages_tokens.extend(tokens)
    player.sages_dust += dust
