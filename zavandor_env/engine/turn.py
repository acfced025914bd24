"""Phase 3 for the turn player: gems (3a), knowledge (3b), opening auctions (3c), ending
blocks and the turn, plus the free-level decision after a Runestone/Mask/Talisman.

With the FAQ rule ``no_split_blocks`` each block may be used once per turn, in any order: the
first action of a block opens it and closes the block that was open (or ``end_block`` closes
it explicitly); a closed block cannot be reopened this turn.
"""

from __future__ import annotations

from zavandor_env.engine.actions import (
    ACTIVATE,
    ADVANCE,
    BUY_CHIP,
    BUY_GEM,
    DEACTIVATE,
    END_BLOCK,
    END_TURN,
    OPEN_ARTIFACT,
    OPEN_SENTINEL,
    SELL_GEM,
)
from zavandor_env.engine.auction import continue_resolution, open_auction, sell_gem
from zavandor_env.engine.data import (
    ARTIFACTS,
    CHIP_COSTS,
    GEM_COST_TABLE,
    LEVEL_COSTS,
    MAX_LEVEL,
    NUM_CHIPS,
    NUM_FIELDS,
    NUM_GEMS,
    NUM_SENTINELS,
    SENTINEL_MIN_BID,
    Field,
    Gem,
)
from zavandor_env.engine.flow import end_turn
from zavandor_env.engine.knowledge import can_raise, raise_level
from zavandor_env.engine.queries import (
    active_slots,
    artifact_price,
    gems_sale_value,
    liquid,
    may_acquire,
    may_own_gem,
    sentinel_price,
)
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL, Block, GameState

_CHEAPEST_CHIP = min(CHIP_COSTS)
_BLOCK_OF_ACTION = (
    [Block.NONE, Block.NONE]
    + [Block.GEMS] * (BUY_CHIP - BUY_GEM)
    + [Block.KNOWLEDGE] * (OPEN_ARTIFACT - BUY_CHIP)
    + [Block.AUCTION] * (OPEN_SENTINEL + NUM_SENTINELS - OPEN_ARTIFACT)
)


def _block_open(state: GameState, block: Block) -> bool:
    if state.block == block or not state.config.no_split_blocks:
        return True
    return not (state.blocks_used >> block) & 1


def legal_turn(state: GameState) -> list[int]:
    """Legal actions of the turn player, in ascending index order."""
    player = state.players[state.turn_player]
    actions = [END_TURN]
    if state.block != Block.NONE:
        actions.append(END_BLOCK)
    cash = liquid(player)
    if _block_open(state, Block.GEMS):
        level = player.levels[Field.GEMSTONES]
        supply = state.gem_supply
        active, inactive = player.active, player.inactive
        may_activate = sum(active) < active_slots(player)
        if state.config.no_undo_activation:
            no_activate, no_deactivate = state.gems_deactivated, state.gems_activated
        else:
            no_activate = no_deactivate = 0
        buys, sells, activations, deactivations = [], [], [], []
        for g in range(NUM_GEMS):
            if (
                supply[g]
                and cash >= GEM_COST_TABLE[g][level]
                and (g <= Gem.SAPPHIRE or may_own_gem(state, player, g))
            ):
                buys.append(BUY_GEM + g)
            if active[g] or inactive[g]:
                sells.append(SELL_GEM + g)
                if inactive[g] and may_activate and not (no_activate >> g) & 1:
                    activations.append(ACTIVATE + g)
                if active[g] and not (no_deactivate >> g) & 1:
                    deactivations.append(DEACTIVATE + g)
        actions += buys
        actions += sells
        actions += activations
        actions += deactivations
    if _block_open(state, Block.KNOWLEDGE):
        if cash >= _CHEAPEST_CHIP:
            bought = player.chips_bought
            for i in range(NUM_CHIPS):
                if not bought[i] and cash >= CHIP_COSTS[i]:
                    actions.append(BUY_CHIP + i)
        if not state.paid_advance_done:
            levels = player.levels
            has_chip = player.pentagon_chips > 0
            for f in range(NUM_FIELDS):
                level = levels[f]  # inlined knowledge.can_raise: this loop runs every decision
                if level < MAX_LEVEL and (level or has_chip) and cash >= LEVEL_COSTS[f][level]:
                    actions.append(ADVANCE + f)
    if _block_open(state, Block.AUCTION):
        _legal_openings(state, actions, cash)
    return actions


def _legal_openings(state: GameState, actions: list[int], cash: int) -> None:
    """Auctions the turn player may open: items he may own (and, with the affordability
    filter ``allow_overbid=False``, whose price at the minimum bid he could pay)."""
    player = state.players[state.turn_player]
    budget = None if state.config.allow_overbid else cash + gems_sale_value(player)
    has_active_gem = any(player.active)
    for art in sorted(set(state.display)):
        if not may_acquire(player, ITEM_ARTIFACT, art):
            continue
        if ARTIFACTS[art].needs_active_gem_to_open and not has_active_gem:
            continue
        if budget is None or artifact_price(state, player, art, ARTIFACTS[art].min_bid) <= budget:
            actions.append(OPEN_ARTIFACT + art)
    owners = state.sentinel_owner
    if -1 not in owners:
        return
    if budget is None or sentinel_price(state, player, SENTINEL_MIN_BID) <= budget:
        actions.extend(OPEN_SENTINEL + s for s in range(NUM_SENTINELS) if owners[s] == -1)


def apply_turn(state: GameState, action: int) -> None:
    if action == END_TURN:
        end_turn(state)
        return
    if action == END_BLOCK:
        state.blocks_used |= 1 << state.block
        state.block = Block.NONE
        return
    block = _BLOCK_OF_ACTION[action]
    if block != state.block:
        if state.block != Block.NONE:
            state.blocks_used |= 1 << state.block
        state.block = block
    player = state.players[state.turn_player]
    if action < SELL_GEM:
        gem = action - BUY_GEM
        player.balance += GEM_COST_TABLE[gem][player.levels[Field.GEMSTONES]]
        state.gem_supply[gem] -= 1
        if gem == Gem.RUBY and player.levels[Field.FIRE] < 4:
            player.druid_ruby_used = True  # the Druid's single ruby at Fire level 3
        # A new gem goes onto the spiral when a slot is free (it can be moved freely anyway).
        if sum(player.active) < active_slots(player):
            player.active[gem] += 1
        else:
            player.inactive[gem] += 1
    elif action < ACTIVATE:
        sell_gem(state, player, action - SELL_GEM)
    elif action < DEACTIVATE:
        gem = action - ACTIVATE
        player.inactive[gem] -= 1
        player.active[gem] += 1
        state.gems_activated |= 1 << gem
    elif action < BUY_CHIP:
        gem = action - DEACTIVATE
        player.active[gem] -= 1
        player.inactive[gem] += 1
        state.gems_deactivated |= 1 << gem
    elif action < ADVANCE:
        chip = action - BUY_CHIP
        player.balance += CHIP_COSTS[chip]
        player.chips_bought[chip] = True
        player.pentagon_chips += 1
    elif action < OPEN_ARTIFACT:
        field = action - ADVANCE
        player.balance += LEVEL_COSTS[field][player.levels[field]]
        state.paid_advance_done = True
        raise_level(state, player, field)
    elif action < OPEN_SENTINEL:
        open_auction(state, ITEM_ARTIFACT, action - OPEN_ARTIFACT)
    else:
        open_auction(state, ITEM_SENTINEL, action - OPEN_SENTINEL)


def legal_free_level(state: GameState) -> list[int]:
    player = state.players[state.current_player]
    return [ADVANCE + f for f in range(NUM_FIELDS) if can_raise(player, f)]


def apply_free_level(state: GameState, action: int) -> None:
    raise_level(state, state.players[state.current_player], action - ADVANCE)
    state.free_levels -= 1
    continue_resolution(state)
