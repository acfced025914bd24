"""A readable multi-line dump of the whole table, for people debugging games and agents.

``describe(game)`` shows everything, hidden information included (card values in every hand,
9-Sages cards under the turn-order cards): it is the referee's view, not a player's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from zavandor_env.engine.actions import ACTION_NAMES
from zavandor_env.engine.data import (
    CHARACTERS,
    CHIP_COSTS,
    COLOUR_NAMES,
    FIELD_NAMES,
    GEM_NAMES,
    NUM_TOKENS,
    POSITION_NAMES,
    token_name,
)
from zavandor_env.engine.economy import hand_load, hand_value
from zavandor_env.engine.names import ARTIFACT_NAMES, SENTINEL_NAMES
from zavandor_env.engine.queries import active_slots, hand_limit
from zavandor_env.engine.state import GameState, Phase, PlayerState

if TYPE_CHECKING:
    from zavandor_env.engine.game import Game

SeatName = Callable[[int], str]


def _gems(counts: list[int]) -> str:
    shown = [f"{GEM_NAMES[g]} {n}" for g, n in enumerate(counts) if n]
    return ", ".join(shown) or "none"


def _hand(player: PlayerState) -> str:
    items = []
    for t in range(NUM_TOKENS):
        n = player.hand[t]
        if n:
            items.append(f"{token_name(t)} x{n}" if n > 1 else token_name(t))
    return ", ".join(items) or "empty"


def _player_lines(
    state: GameState, player: PlayerState, name: SeatName, deciding: int
) -> list[str]:
    seat = player.seat
    position = state.turn_order.index(seat) if seat in state.turn_order else -1
    where = POSITION_NAMES[position] if position >= 0 else "-"
    flags = []
    if seat == state.turn_player and deciding >= 0:
        flags.append("turn")
    if seat == deciding:
        flags.append("deciding")
    if player.eliminated:
        flags.append("ELIMINATED")
    levels = (
        ", ".join(f"{FIELD_NAMES[f]} L{lv}" for f, lv in enumerate(player.levels) if lv) or "none"
    )
    chips = [str(c) for c, bought in zip(CHIP_COSTS, player.chips_bought) if bought]
    arts = [
        f"{ARTIFACT_NAMES[a]} x{n}" if n > 1 else ARTIFACT_NAMES[a]
        for a, n in enumerate(player.artifacts)
        if n
    ]
    sages = [token_name(t) for t in player.sages_tokens]
    if player.sages_dust:
        sages.append(f"dust {player.sages_dust}")
    flagged = f" [{', '.join(flags)}]" if flags else ""
    sentinels = ", ".join(SENTINEL_NAMES[s] for s in player.sentinels) or "none"
    hand = f"value {hand_value(player.hand)}, load {hand_load(player.hand)}/{hand_limit(player)}"
    slots = f"{sum(player.active)}/{active_slots(player)} slots"
    return [
        (
            f"{name(seat)} ({CHARACTERS[player.character].name}), position {where}{flagged}: "
            f"{player.vp} VP ({player.gem_vp} from gems)"
        ),
        f"  gems active ({slots}): {_gems(player.active)}; inactive: {_gems(player.inactive)}",
        (
            f"  knowledge: {levels}; chips bought: {', '.join(chips) or 'none'} "
            f"({player.pentagon_chips} waiting in the pentagon)"
        ),
        f"  artifacts: {', '.join(arts) or 'none'}; sentinels: {sentinels}",
        f"  hand ({hand}): {_hand(player)}",
        (
            f"  balance {player.balance:+d}; "
            f"under the turn-order card: {', '.join(sages) or 'nothing'}"
        ),
    ]


def _pending(state: GameState, name: SeatName) -> list[str]:
    lines = []
    if state.auction_kind >= 0:
        item = (
            ARTIFACT_NAMES[state.auction_item]
            if state.auction_kind == 0
            else SENTINEL_NAMES[state.auction_item]
        )
        passed = [s for s in range(state.config.num_players) if (state.passed >> s) & 1]
        bid = (
            f"high bid {state.high_bid} by {name(state.high_bidder)}"
            if state.high_bidder >= 0
            else f"minimum {state.high_bid}, no bid yet"
        )
        lines.append(
            f"Auction: {item} opened by {name(state.auction_opener)}; {bid}; "
            f"passed: {passed or 'nobody'}"
        )
    if state.phase == Phase.DEBT:
        lines.append(f"Pending: {name(state.debtor)} must sell gems to pay {state.debt_item_price}")
    elif state.phase == Phase.FREE_LEVEL:
        lines.append(
            f"Pending: {name(state.current_player)} places {state.free_levels} free level(s)"
        )
    elif state.phase == Phase.LOSE_GEM:
        victims = ", ".join(map(name, state.victims))
        lines.append(f"Pending: {victims} each return an active gem, in this order")
    return lines


def seat_label(seat: int) -> str:
    """The default way seats are named: ``"Seat 2"``."""
    return f"Seat {seat}"


def describe(game: Game, name: SeatName = seat_label) -> str:
    """The whole table as readable text: round, phase, turn order with position modifiers,
    every player's holdings, the display, supplies, decks, the auction and pending decisions.
    ``name`` turns a seat index into its label (the environments use ``player_<i>``)."""
    state = game.read_state()
    if state.terminated:
        status = f"game over: winners {game.winners()}"
    elif state.truncated:
        status = "game over: truncated by a safety limit"
    elif game.at_round_end:
        status = f"round {state.round} ended (phase 4 scored); Game.advance() continues"
    else:
        status = f"{name(state.current_player)} decides"
    order = ", ".join(
        f"{POSITION_NAMES[i]}={name(seat)} ({state.art_mod[seat]:+d} art/"
        f"{state.sen_mod[seat]:+d} sen)"
        for i, seat in enumerate(state.turn_order)
    )
    lines = [
        f"Round {state.round}, phase {state.phase.name}, block {state.block.name}; {status}",
        f"Turn order: {order}",
    ]
    for player in state.players:
        lines.extend(_player_lines(state, player, name, game.current_player))
    remaining = [SENTINEL_NAMES[s] for s, owner in enumerate(state.sentinel_owner) if owner == -1]
    display = ", ".join(ARTIFACT_NAMES[a] for a in state.display) or "empty"
    lines += [
        f"Display: {display}; artifact deck: {len(state.artifact_deck)} cards",
        f"Sentinels remaining: {', '.join(remaining) or 'none'}",
        "Gem supply: " + ", ".join(f"{GEM_NAMES[g]} {n}" for g, n in enumerate(state.gem_supply)),
        "Energy decks/discards: "
        + ", ".join(
            f"{COLOUR_NAMES[c]} {len(state.decks[c])}/{len(state.discards[c])}"
            for c in range(len(COLOUR_NAMES))
        )
        + "; concentrated supply: "
        + ", ".join(f"{COLOUR_NAMES[c]} {n}" for c, n in enumerate(state.concentrated_supply)),
    ]
    lines += _pending(state, name)
    legal = game.legal_actions()
    if legal:
        lines.append("Legal actions: " + ", ".join(ACTION_NAMES[a] for a in legal))
    return "\n".join(lines)
