"""Game setup and the round structure: phase 1 (order, display), phase 2 (income),
the hand-over between phase-3 turns, and phase 4 (hand limit, scoring, game end)."""

from __future__ import annotations

import random

from zavandor_env.engine.config import GameConfig
from zavandor_env.engine.data import (
    ARTIFACT_LETTERS,
    ARTIFACTS,
    CARDS_PER_CONCENTRATED,
    CHARACTER_INDEX,
    CHARACTERS,
    CONC_TOKEN0,
    CONCENTRATED_BONUS_DUST,
    CONCENTRATED_PER_COLOUR,
    COPIES_BY_PLAYERS,
    EMPTY_DECK_DUST,
    ENERGY_FLOW_DUST_BY_LEVEL,
    GEM_SUPPLY,
    MODIFIER_VP_THRESHOLD,
    NUM_COLOURS,
    NUM_GEMS,
    POSITION_MODIFIER,
    SENTINELS_TO_END,
    START_GEMS,
    Art,
    Colour,
    Field,
    Gem,
    opal_dust,
)
from zavandor_env.engine.economy import enforce_hand_limit, gain_dust, settle
from zavandor_env.engine.queries import hand_limit
from zavandor_env.engine.scoring import rescore
from zavandor_env.engine.state import Block, GameState, Phase, PlayerState
from zavandor_env.engine.supply import build_decks, draw_card


def new_state(config: GameConfig, seed: int | None) -> GameState:
    """Set up the table (rulebook "Game Setup") and play phases 1-2 of round 1."""
    rng = random.Random(seed)
    state = GameState(config, rng)
    n = config.num_players
    if config.characters is None:
        characters = rng.sample(range(len(CHARACTERS)), n)
    else:
        characters = [CHARACTER_INDEX[name] for name in config.characters]
    state.gem_supply = list(GEM_SUPPLY)
    state.concentrated_supply = [CONCENTRATED_PER_COLOUR] * NUM_COLOURS
    build_decks(state)
    for seat, character in enumerate(characters):
        player = PlayerState(seat, character)
        spec = CHARACTERS[character]
        for gem in range(NUM_GEMS):
            player.active[gem] = START_GEMS[gem]
            state.gem_supply[gem] -= START_GEMS[gem]
        player.levels[spec.start_field] = 1
        gain_dust(player, spec.start_dust, config.one_value_dust)
        for _ in range(spec.start_blue_cards):  # the Fairy's two cards, usable in round 1
            player.hand[draw_card(state, Colour.BLUE)] += 1
        state.players.append(player)
    rescore(state)
    _build_artifact_deck(state)
    for _ in range(n):
        state.display.append(state.artifact_deck.pop())
    start_round(state)
    return state


def _build_artifact_deck(state: GameState) -> None:
    """Copies per player count; each letter shuffled apart, A on top of B, C, D."""
    copies = COPIES_BY_PLAYERS[state.config.num_players]
    deck: list[int] = []
    for letter in reversed(ARTIFACT_LETTERS):  # the list's end is the top of the deck
        group = [a for a, spec in enumerate(ARTIFACTS) if spec.letter == letter] * copies
        state.rng.shuffle(group)
        deck.extend(group)
    state.artifact_deck = deck


def alive_seats(state: GameState) -> list[int]:
    return [p.seat for p in state.players if not p.eliminated]


def start_round(state: GameState) -> None:
    """Phases 1 and 2, then hand phase 3 to the first player in turn order."""
    if state.round >= state.config.max_rounds:
        state.truncated = True
        state.phase = Phase.GAME_OVER
        state.current_player = -1
        return
    state.round += 1
    for player in state.players:  # 9-Sages cards come out from under the turn-order card
        for token in player.sages_tokens:
            player.hand[token] += 1
        player.sages_tokens.clear()
        if player.sages_dust:
            gain_dust(player, player.sages_dust, state.config.one_value_dust)
            player.sages_dust = 0
    _determine_turn_order(state)
    _refill_display(state)
    for seat in state.turn_order:
        _collect_income(state, state.players[seat])
    state.turn_index = 0
    begin_turn(state, state.turn_order[0])


def _determine_turn_order(state: GameState) -> None:
    """Most VP first, then most VP from gems, then random; set the position price modifiers."""
    seats = alive_seats(state)
    tiebreak = {seat: state.rng.random() for seat in seats}
    players = state.players
    order = sorted(seats, key=lambda s: (-players[s].vp, -players[s].gem_vp, tiebreak[s]))
    state.turn_order = order
    assign_position_modifiers(state)


def assign_position_modifiers(state: GameState) -> None:
    """Set each seat's turn-order price modifier from its position and the scored VP."""
    players = state.players
    order = state.turn_order
    n = len(order)
    if state.config.catchup_small_games and n in (3, 4):
        positions = list(range(n - 2)) + [4, 5]  # cards I..N-2, V, VI (unofficial variant)
    else:
        positions = list(range(n))
    leader_vp = players[order[0]].vp
    state.art_mod = [0] * state.config.num_players
    state.sen_mod = [0] * state.config.num_players
    for seat, position in zip(order, positions):
        if position == 1:
            applies = players[seat].vp >= MODIFIER_VP_THRESHOLD
        else:
            applies = leader_vp >= MODIFIER_VP_THRESHOLD
        if applies:
            state.art_mod[seat], state.sen_mod[seat] = POSITION_MODIFIER[position]


def _refill_display(state: GameState) -> None:
    """Refill to one artifact per player, but only if an artifact was auctioned last round."""
    if state.artifact_auctioned:
        target = len(state.turn_order)
        while len(state.display) < target and state.artifact_deck:
            state.display.append(state.artifact_deck.pop())
    state.artifact_auctioned = False


def _collect_income(state: GameState, player: PlayerState) -> None:
    """Phase 2: opal dust, one card per producing gem or artifact, concentrated cards for
    each four of a colour (mandatory, sources mixed), and Energy Flow dust."""
    active, arts = player.active, player.artifacts
    dust = opal_dust(active[Gem.OPAL]) + ENERGY_FLOW_DUST_BY_LEVEL[player.levels[Field.ENERGY_FLOW]]
    counts = (
        active[Gem.SAPPHIRE],
        active[Gem.EMERALD] + arts[Art.CRYSTAL_OF_PROTECTION],
        active[Gem.DIAMOND],
        active[Gem.RUBY] + arts[Art.CHALICE],
    )
    hand = player.hand
    for colour in range(NUM_COLOURS):
        count = counts[colour]
        if not count:
            continue
        fours, cards = divmod(count, CARDS_PER_CONCENTRATED)
        for _ in range(fours):
            if state.concentrated_supply[colour]:
                state.concentrated_supply[colour] -= 1
                hand[CONC_TOKEN0 + colour] += 1
                dust += CONCENTRATED_BONUS_DUST
            else:  # supply exhausted: four ordinary cards (docs/rules.md decision 12)
                cards += CARDS_PER_CONCENTRATED
        for _ in range(cards):
            token = draw_card(state, colour)
            if token < 0:  # deck and discards empty (decision 12)
                dust += EMPTY_DECK_DUST[colour]
            else:
                hand[token] += 1
    gain_dust(player, dust, state.config.one_value_dust)


def begin_turn(state: GameState, seat: int) -> None:
    state.turn_player = seat
    state.current_player = seat
    state.phase = Phase.TURN
    state.block = Block.NONE
    state.blocks_used = 0
    state.paid_advance_done = False
    state.gems_activated = 0
    state.gems_deactivated = 0


def end_turn(state: GameState) -> None:
    """Settle the turn player's combined costs and pass to the next player (or phase 4)."""
    player = state.players[state.turn_player]
    if not player.eliminated:
        settle(state, player)
    order = state.turn_order
    index = state.turn_index + 1
    while index < len(order) and state.players[order[index]].eliminated:
        index += 1
    if index < len(order):
        state.turn_index = index
        begin_turn(state, order[index])
    else:
        end_round(state)


def end_round(state: GameState) -> None:
    """Phase 4: hand limits, VP recount, and the game-end check (>= 5 sentinels acquired, or
    one player left); a game that goes on waits in ``Phase.ROUND_END`` for :func:`start_round`."""
    for player in state.players:
        if not player.eliminated:
            enforce_hand_limit(state, player, hand_limit(player))
    rescore(state)
    if sentinels_acquired(state) >= SENTINELS_TO_END or len(alive_seats(state)) <= 1:
        state.terminated = True
        state.phase = Phase.GAME_OVER
        state.current_player = -1
        return
    state.phase = Phase.ROUND_END  # phases 1-2 of the next round follow (Game._step)
    state.current_player = -1


def sentinels_acquired(state: GameState) -> int:
    return sum(1 for owner in state.sentinel_owner if owner != -1)
