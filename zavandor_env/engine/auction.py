"""Phase 3c: auctions of artifacts and sentinels, payment, and the effects of what is won.

Bidding goes round in turn order starting with the opener; passing is final; when everyone
else has passed the high bidder wins (the opener buys at his opening bid if nobody raises).
The price is the bid plus the turn-order modifier less discounts, floored at 0.  A winner who
lacks energy sells gems (his choice, one decision per gem) until the price is covered.  Then
the item's effects apply at once, before another auction can start.
"""

from __future__ import annotations

from zavandor_env.engine.actions import BID, BID_RAISES, LOSE_GEM, PASS, SELL_GEM
from zavandor_env.engine.data import ARTIFACTS, GEM_SALE_TABLE, NUM_CHIPS, NUM_GEMS, Art, Field, Gem
from zavandor_env.engine.economy import return_token, settle
from zavandor_env.engine.flow import alive_seats, end_turn
from zavandor_env.engine.knowledge import free_level_targets
from zavandor_env.engine.queries import item_min_bid, item_price, liquid, max_payable, may_acquire
from zavandor_env.engine.scoring import rescore
from zavandor_env.engine.state import ITEM_ARTIFACT, Block, GameState, Phase, PlayerState


def open_auction(state: GameState, kind: int, item: int) -> None:
    state.auction_kind = kind
    state.auction_item = item
    state.auction_opener = state.turn_player
    state.high_bid = item_min_bid(kind, item)
    state.high_bidder = -1
    state.passed = 0
    state.phase = Phase.BID
    state.current_player = state.turn_player


def legal_bid(state: GameState) -> list[int]:
    seat = state.current_player
    player = state.players[seat]
    if not may_acquire(player, state.auction_kind, state.auction_item):
        return [PASS]
    opening = state.high_bidder < 0
    actions = []
    if state.config.allow_overbid:
        first = 0 if opening else 1
        actions = [BID + i for i in range(first, len(BID_RAISES))]
    else:
        budget = max_payable(player)
        for i, raise_by in enumerate(BID_RAISES):
            if raise_by == 0 and not opening:
                continue
            price = item_price(
                state, player, state.auction_kind, state.auction_item, state.high_bid + raise_by
            )
            if price > budget:
                break  # prices only grow with the bid
            actions.append(BID + i)
    if not opening:
        actions.append(PASS)  # the opener must bid at least the minimum
    return actions


def apply_bid(state: GameState, action: int) -> None:
    seat = state.current_player
    if action == PASS:
        state.passed |= 1 << seat
    else:
        state.high_bid += BID_RAISES[action - BID]
        state.high_bidder = seat
    _next_bidder(state, seat)


def _next_bidder(state: GameState, seat: int) -> None:
    """Hand the bid to the next player in turn order who has not passed; when it comes back
    round to the high bidder, everyone else has passed and the auction is won."""
    order = state.turn_order
    n = len(order)
    start = order.index(seat)
    for step in range(1, n + 1):
        candidate = order[(start + step) % n]
        if candidate == state.high_bidder:
            _win(state, candidate)
            return
        if state.players[candidate].eliminated or (state.passed >> candidate) & 1:
            continue
        state.current_player = candidate
        return
    raise AssertionError("auction without a high bidder")  # the opener always bids


def _win(state: GameState, seat: int) -> None:
    player = state.players[seat]
    price = item_price(state, player, state.auction_kind, state.auction_item, state.high_bid)
    if price > max_payable(player):  # the Curse (impossible with the affordability filter)
        _curse(state, seat)
        return
    player.balance += price
    state.debt_item_price = price
    state.debtor = seat
    if liquid(player) < 0:
        state.phase = Phase.DEBT
        state.current_player = seat
        return
    _complete_purchase(state)


def legal_debt(state: GameState) -> list[int]:
    player = state.players[state.debtor]
    return [SELL_GEM + g for g in range(NUM_GEMS) if player.active[g] or player.inactive[g]]


def apply_debt(state: GameState, action: int) -> None:
    player = state.players[state.debtor]
    gem = action - SELL_GEM
    sell_gem(state, player, gem)
    if liquid(player) >= 0:
        _complete_purchase(state)


def sell_gem(state: GameState, player: PlayerState, gem: int) -> None:
    """Return a gem to the supply for half its current price (inactive ones first: selling an
    active gem while an inactive one of the same kind waits would only cost VP)."""
    player.balance -= GEM_SALE_TABLE[gem][player.levels[Field.GEMSTONES]]
    if player.inactive[gem]:
        player.inactive[gem] -= 1
    else:
        player.active[gem] -= 1
    state.gem_supply[gem] += 1


def _complete_purchase(state: GameState) -> None:
    """Pay at once, take the item and apply its immediate effects."""
    seat = state.debtor
    player = state.players[seat]
    settle(state, player)
    kind, item = state.auction_kind, state.auction_item
    state.purchases.append(
        (state.round, seat, kind, item, state.high_bid, state.debt_item_price)
    )
    _clear_auction(state)
    if kind == ITEM_ARTIFACT:
        state.display.remove(item)
        state.artifact_auctioned = True
        player.artifacts[item] += 1
        spec = ARTIFACTS[item]
        if item == Art.ELIXIR and state.gem_supply[Gem.DIAMOND]:
            state.gem_supply[Gem.DIAMOND] -= 1
            player.inactive[Gem.DIAMOND] += 1  # to the pentagon (docs/rules.md decision 8)
        if spec.destroys_gems:
            _take_free_chip(player)
            state.victims = [
                s
                for s in state.turn_order
                if s != seat and not state.players[s].eliminated and any(state.players[s].active)
            ]
        state.free_levels = spec.free_levels
    else:
        state.sentinel_owner[item] = seat
        player.sentinels.append(item)
    continue_resolution(state)


def _take_free_chip(player: PlayerState) -> None:
    """Mirror/Cloak: the most expensive chip not yet bought goes to the pentagon for free."""
    for i in range(NUM_CHIPS - 1, -1, -1):
        if not player.chips_bought[i]:
            player.chips_bought[i] = True
            player.pentagon_chips += 1
            return
    # All chips already bought: no effect (docs/rules.md decision 7).


def _clear_auction(state: GameState) -> None:
    state.auction_kind = -1
    state.auction_item = -1
    state.auction_opener = -1
    state.high_bid = 0
    state.high_bidder = -1
    state.passed = 0
    state.debt_item_price = 0


def continue_resolution(state: GameState) -> None:
    """Ask the pending post-auction decisions in order (free levels, then each victim), then
    give the turn back to the turn player in his auction block."""
    winner = state.debtor
    if state.free_levels > 0:
        if free_level_targets(state.players[winner]):
            state.phase = Phase.FREE_LEVEL
            state.current_player = winner
            return
        state.free_levels = 0  # no legal target: the advance is lost
    while state.victims:
        victim = state.victims[0]
        if any(state.players[victim].active):
            state.phase = Phase.LOSE_GEM
            state.current_player = victim
            return
        state.victims.pop(0)
    state.debtor = -1
    state.phase = Phase.TURN
    state.current_player = state.turn_player
    state.block = Block.AUCTION


def legal_lose_gem(state: GameState) -> list[int]:
    player = state.players[state.current_player]
    return [LOSE_GEM + g for g in range(NUM_GEMS) if player.active[g]]


def apply_lose_gem(state: GameState, action: int) -> None:
    player = state.players[state.current_player]
    gem = action - LOSE_GEM
    player.active[gem] -= 1
    state.gem_supply[gem] += 1
    state.victims.pop(0)
    continue_resolution(state)


def _curse(state: GameState, seat: int) -> None:
    """Curse of the 9 Sages: the winner who cannot pay is out; the auction is cancelled.

    His gems return to the supply, cards to the discard piles, concentrated cards to their
    supply; his artifacts and sentinels leave the game (they stay recorded on his seat, score
    nothing, and the sentinels still count towards the game end).  Turn order is dealt for
    the remaining players from the next phase 1.  When one player is left (always, in a
    2-player game) the game ends at once and he wins (:func:`_end_with_one_player`).
    """
    player = state.players[seat]
    player.eliminated = True
    for g in range(NUM_GEMS):
        state.gem_supply[g] += player.active[g] + player.inactive[g]
        player.active[g] = player.inactive[g] = 0
    for token, count in enumerate(player.hand):
        if count:
            return_token(state, token, count)
            player.hand[token] = 0
    for token in player.sages_tokens:
        return_token(state, token, 1)
    player.sages_tokens.clear()
    player.sages_dust = 0
    player.balance = 0
    player.vp = player.gem_vp = 0
    _clear_auction(state)
    state.debtor = -1
    if len(alive_seats(state)) <= 1:
        _end_with_one_player(state)
        return
    if seat == state.turn_player:
        end_turn(state)
    else:
        state.phase = Phase.TURN
        state.current_player = state.turn_player
        state.block = Block.AUCTION


def _end_with_one_player(state: GameState) -> None:
    """The Curse left one player: nobody is left to bid against, so the game ends by the rules
    now and he is the sole winner.  His unpaid costs of this turn are settled and every VP
    total is recounted, so the final scores describe the final holdings."""
    for player in state.players:
        if not player.eliminated and player.balance:
            settle(state, player)
    rescore(state)
    state.terminated = True
    state.phase = Phase.GAME_OVER
    state.current_player = -1
