"""The table as text, from one writer: the referee's dump and one seat's view.

:func:`describe` shows everything, hidden information included (card values in every hand,
9-Sages cards under the turn-order cards): the referee's view, for people debugging games and
agents.  :func:`render_view` shows what one seat may know, for human play (optionally with
ANSI colours): its own cards in full, the other hands as counts per colour plus their face-up
concentrated cards and dust.  Both write every seat from a
:class:`~zavandor_env.engine.view.SeatView` (the referee's are all "own" seats), so nothing
hidden can leak into a seat's view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from zavandor_env.engine.actions import ACTION_NAMES
from zavandor_env.engine.data import (
    CHARACTERS,
    CHIP_COSTS,
    COLOUR_NAMES,
    CONC_TOKEN0,
    DUST_TOKEN0,
    FIELD_NAMES,
    GEM_NAMES,
    NUM_TOKENS,
    POSITION_NAMES,
    TOKEN_COLOUR,
    token_name,
)
from zavandor_env.engine.names import ARTIFACT_NAMES, SENTINEL_NAMES
from zavandor_env.engine.state import Block, Phase
from zavandor_env.engine.view import PlayerView, SeatView

if TYPE_CHECKING:
    from zavandor_env.engine.game import Game

SeatName = Callable[[int], str]

RESET = "\033[0m"
BOLD = "\033[1m"
DIM = "\033[2m"
GEM_COLOURS = ("\033[97m", "\033[94m", "\033[92m", "\033[96m", "\033[91m")  # opal..ruby
CARD_COLOURS = GEM_COLOURS[1:]  # blue, green, white, red energy


class Style:
    """Colour helpers that turn into no-ops when colour is off."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def wrap(self, code: str, text: str) -> str:
        return f"{code}{text}{RESET}" if self.colour and code else text

    def bold(self, text: str) -> str:
        return self.wrap(BOLD, text)


def seat_label(seat: int) -> str:
    """The default way seats are named: ``"Seat 2"``."""
    return f"Seat {seat}"


def _listed(parts: Sequence[str], empty: str = "none") -> str:
    return ", ".join(parts) or empty


def _counted(name: str, n: int) -> str:
    return f"{name} x{n}" if n > 1 else name


def _gems(style: Style, counts: Sequence[int]) -> str:
    return _listed([style.wrap(GEM_COLOURS[g], f"{GEM_NAMES[g]} {n}")
                    for g, n in enumerate(counts) if n])


def _hand(style: Style, sv: SeatView) -> str:
    """``hand (value, load): cards``: every token of an own seat, else what is face up."""
    load = f"load {sv.hand_load}/{sv.hand_limit}"
    if sv.is_own:
        hand = sv.hand
        cards = [style.wrap(CARD_COLOURS[TOKEN_COLOUR[t]] if TOKEN_COLOUR[t] >= 0 else "",
                            _counted(token_name(t), hand[t]))
                 for t in range(NUM_TOKENS) if hand[t]]
        return f"hand (value {sv.hand_value}, {load}): {_listed(cards, 'empty')}"
    cards = [style.wrap(CARD_COLOURS[c], f"{COLOUR_NAMES[c]} cards {n}")
             for c, n in enumerate(sv.card_counts) if n]
    cards += [style.wrap(CARD_COLOURS[c], _counted(token_name(CONC_TOKEN0 + c), n))
              for c, n in enumerate(sv.concentrated) if n]
    cards += [_counted(token_name(DUST_TOKEN0 + i), n)
              for i, n in enumerate(sv.dust) if n]
    return f"hand (public value {sv.known_value}, {load}): {_listed(cards, 'empty')}"


def _seat_lines(style: Style, v: PlayerView, sv: SeatView, name: SeatName,
                deciding: int) -> list[str]:
    seat = sv.seat
    where = POSITION_NAMES[v.turn_order.index(seat)] if seat in v.turn_order else "-"
    flags = [flag for flag, on in (("turn", seat == v.turn_player and deciding >= 0),
                                   ("deciding", seat == deciding),
                                   ("ELIMINATED", sv.eliminated)) if on]
    flagged = f" [{', '.join(flags)}]" if flags else ""
    levels = _listed([f"{FIELD_NAMES[f]} L{lv}" for f, lv in enumerate(sv.levels) if lv])
    chips = _listed([str(c) for c, bought in zip(CHIP_COSTS, sv.chips_bought) if bought])
    arts = _listed([_counted(ARTIFACT_NAMES[a], n) for a, n in enumerate(sv.artifacts) if n])
    sentinels = _listed([SENTINEL_NAMES[s] for s in sv.sentinels])
    if sv.is_own:
        sages = [token_name(t) for t in sv.sages_tokens]
    else:
        sages = [f"{sv.sages_count} card(s)"] if sv.sages_count else []
    if sv.sages_dust:
        sages.append(f"dust {sv.sages_dust}")
    head = (f"{name(seat)} ({CHARACTERS[sv.character].name}), position {where}{flagged}: "
            f"{sv.vp} VP ({sv.gem_vp} from gems)")
    slots = f"{sum(sv.active)}/{sv.active_slots} slots"
    return [
        style.bold(head) if seat == v.seat else head,
        f"  gems active ({slots}): {_gems(style, sv.active)}; inactive: "
        f"{_gems(style, sv.inactive)}",
        f"  knowledge: {levels}; chips bought: {chips} ({sv.pentagon_chips} waiting in the "
        "pentagon)",
        f"  artifacts: {arts}; sentinels: {sentinels}",
        f"  {_hand(style, sv)}",
        f"  balance {sv.balance:+d}; under the turn-order card: {_listed(sages, 'nothing')}",
    ]


def _supplies(v: PlayerView) -> list[str]:
    remaining = [SENTINEL_NAMES[s] for s, owner in enumerate(v.sentinel_owner) if owner == -1]
    display = _listed([ARTIFACT_NAMES[a] for a in v.display], "empty")
    energy = _listed([f"{COLOUR_NAMES[c]} {n}/{len(v.discards[c])}"
                      for c, n in enumerate(v.deck_sizes)])
    concentrated = _listed([f"{COLOUR_NAMES[c]} {n}"
                            for c, n in enumerate(v.concentrated_supply)])
    return [
        f"Display: {display}; artifact deck: {v.artifact_deck_size} cards",
        f"Sentinels remaining: {_listed(remaining)}",
        "Gem supply: " + _listed([f"{GEM_NAMES[g]} {n}" for g, n in enumerate(v.gem_supply)]),
        f"Energy decks/discards: {energy}; concentrated supply: {concentrated}",
    ]


def _pending(v: PlayerView, name: SeatName, debt_price: int | None) -> list[str]:
    lines = []
    if v.auction_kind >= 0:
        item = (ARTIFACT_NAMES if v.auction_kind == 0 else SENTINEL_NAMES)[v.auction_item]
        passed = [s for s in range(v.num_players) if (v.passed >> s) & 1]
        bid = (f"high bid {v.high_bid} by {name(v.high_bidder)}" if v.high_bidder >= 0
               else f"minimum {v.high_bid}, no bid yet")
        lines.append(f"Auction: {item} opened by {name(v.auction_opener)}; {bid}; "
                     f"passed: {passed or 'nobody'}")
    if v.phase == Phase.DEBT:
        price = f" {debt_price}" if debt_price is not None else " for what was won"
        lines.append(f"Pending: {name(v.debtor)} must sell gems to pay{price}")
    elif v.phase == Phase.FREE_LEVEL:
        lines.append(f"Pending: {name(v.current_player)} places {v.free_levels} free level(s)")
    elif v.phase == Phase.LOSE_GEM:
        victims = ", ".join(map(name, v.victims))
        lines.append(f"Pending: {victims} each return an active gem, in this order")
    return lines


def _table(style: Style, v: PlayerView, seats: Sequence[SeatView], name: SeatName,
           status: str, deciding: int, debt_price: int | None = None) -> list[str]:
    """Every line but the legal actions: round and status, turn order, seats, supplies,
    the auction and the decisions pending."""
    order = ", ".join(f"{POSITION_NAMES[i]}={name(seat)} ({v.art_mod[seat]:+d} art/"
                      f"{v.sen_mod[seat]:+d} sen)" for i, seat in enumerate(v.turn_order))
    lines = [style.bold(f"Round {v.round}, phase {v.phase.name}, block {Block(v.block).name}; "
                        f"{status}"), f"Turn order: {order}"]
    for sv in seats:
        lines += _seat_lines(style, v, sv, name, deciding)
    return lines + _supplies(v) + _pending(v, name, debt_price)


def describe(game: Game, name: SeatName = seat_label) -> str:
    """The whole table as readable text: round, phase, turn order with position modifiers,
    every player's holdings, the display, supplies, decks, the auction and pending decisions.
    ``name`` turns a seat index into its label (the environments use ``player_<i>``)."""
    state = game.state
    if state.terminated:
        status = f"game over: winners {game.winners()}"
    elif state.truncated:
        status = "game over: truncated by a safety limit"
    elif game.at_round_end:
        status = f"round {state.round} ended (phase 4 scored); Game.advance() continues"
    else:
        status = f"{name(state.current_player)} decides"
    seats = [SeatView(p, True) for p in state.players]
    lines = _table(Style(False), PlayerView(state, 0), seats, name, status,
                   game.current_player, state.debt_item_price)
    legal = game.legal_actions()
    if legal:
        lines.append("Legal actions: " + ", ".join(ACTION_NAMES[a] for a in legal))
    return "\n".join(lines)


def render_view(view: PlayerView, colour: bool = True) -> str:
    """The table as the viewing seat knows it (with ANSI colours when ``colour``)."""
    def name(seat: int) -> str:
        return "you" if seat == view.seat else f"player_{seat}"

    deciding = -1 if view.is_over or view.phase == Phase.ROUND_END else view.current_player
    status = "game over" if view.is_over else f"{name(view.current_player)} to decide"
    style = Style(colour)
    lines = _table(style, view, view.players, name, status, deciding)
    if view.auction_kind >= 0 and not view.me.eliminated:
        price = view.price(view.seat, view.auction_kind, view.auction_item, view.high_bid)
        lines.append(style.bold(f"You would pay {price} at the high bid."))
    return "\n".join(lines)
