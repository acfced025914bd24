"""A player's view of the table as text, with optional ANSI colours (for human play).

Unlike the spectator renderings (``zavandor_env.render.text.describe``, the env's
``render``), this shows only what the seat may know: its own cards in full, other hands as
counts per colour plus their face-up concentrated cards and dust.
"""

from __future__ import annotations

from zavandor_env.engine.data import (
    ARTIFACTS,
    CHARACTERS,
    COLOUR_NAMES,
    DUST_CHITS,
    FIELD_NAMES,
    GEM_NAMES,
    NUM_TOKENS,
    POSITION_NAMES,
    SENTINELS,
    token_name,
)
from zavandor_env.engine.state import Phase
from zavandor_env.engine.view import PlayerView, SeatView

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
        return f"{code}{text}{RESET}" if self.colour else text

    def bold(self, text: str) -> str:
        return self.wrap(BOLD, text)

    def dim(self, text: str) -> str:
        return self.wrap(DIM, text)


def _gems(style: Style, counts: tuple[int, ...]) -> str:
    parts = [style.wrap(GEM_COLOURS[g], f"{n} {GEM_NAMES[g]}") for g, n in enumerate(counts) if n]
    return ", ".join(parts) or "-"


def _hand(style: Style, seat: SeatView) -> str:
    if seat.is_own:
        hand = seat.hand
        parts = []
        for t in range(NUM_TOKENS):
            if hand[t]:
                name = token_name(t)
                colour = next((i for i, c in enumerate(COLOUR_NAMES) if name.startswith(c) or
                               name.endswith(c)), -1)
                text = f"{hand[t]}x {name}"
                parts.append(style.wrap(CARD_COLOURS[colour], text) if colour >= 0 else text)
        return f"{', '.join(parts) or 'empty'}  (value {seat.hand_value})"
    counts = seat.card_counts
    parts = [style.wrap(CARD_COLOURS[c], f"{n} {COLOUR_NAMES[c]} card(s)")
             for c, n in enumerate(counts) if n]
    parts += [style.wrap(CARD_COLOURS[c], f"{n} concentrated {COLOUR_NAMES[c]}")
              for c, n in enumerate(seat.concentrated) if n]
    dust = sum(n * v for n, v in zip(seat.dust, DUST_CHITS))
    if dust:
        parts.append(f"dust {dust}")
    return ", ".join(parts) or "empty"


def _seat_lines(style: Style, view: PlayerView, seat: SeatView) -> list[str]:
    order = view.turn_order
    position = POSITION_NAMES[order.index(seat.seat)] if seat.seat in order else "-"
    who = "you" if seat.is_own else f"player_{seat.seat}"
    head = (f"{who} ({CHARACTERS[seat.character].name}, position {position}): "
            f"{seat.vp} VP (now {seat.current_vp})")
    if seat.eliminated:
        head += " ELIMINATED"
    levels = ", ".join(f"{FIELD_NAMES[f]} {lv}" for f, lv in enumerate(seat.levels) if lv) or "-"
    arts = ", ".join(f"{n}x {ARTIFACTS[a].name}" if n > 1 else ARTIFACTS[a].name
                     for a, n in enumerate(seat.artifacts) if n) or "-"
    sens = ", ".join(SENTINELS[s].name for s in seat.sentinels) or "-"
    lines = [
        style.bold(head) if seat.is_own else head,
        (f"    active {_gems(style, seat.active)} ({sum(seat.active)}/{seat.active_slots} slots);"
         f" inactive {_gems(style, seat.inactive)}"),
        f"    knowledge {levels}; chips waiting {seat.pentagon_chips}",
        f"    artifacts {arts}; sentinels {sens}",
        f"    hand {_hand(style, seat)}; limit {seat.hand_limit}"
        + (f"; unpaid {seat.balance}" if seat.balance else ""),
    ]
    if seat.sages_count or seat.sages_dust:
        lines.append(f"    under turn card: {seat.sages_count} 9-Sages card(s), "
                     f"dust {seat.sages_dust}")
    return lines


def render_view(view: PlayerView, colour: bool = True) -> str:
    """The table as the viewing seat knows it."""
    style = Style(colour)
    lines = [style.bold(f"Round {view.round} - phase {view.phase.name}"
                        f" - player_{view.turn_player}'s turn")]
    display = ", ".join(ARTIFACTS[a].name for a in view.display) or "-"
    lines.append(f"display: {display} ({view.artifact_deck_size} in deck)")
    free = [SENTINELS[s].name for s, o in enumerate(view.sentinel_owner) if o == -1]
    lines.append(f"sentinels left: {', '.join(free) or '-'} ({view.sentinels_acquired} taken)")
    for seat in view.players:
        lines.extend(_seat_lines(style, view, seat))
    if view.auction_kind >= 0:
        item = (ARTIFACTS[view.auction_item].name if view.auction_kind == 0
                else SENTINELS[view.auction_item].name)
        holder = f"player_{view.high_bidder}" if view.high_bidder >= 0 else "nobody yet (minimum)"
        price = view.price(view.seat, view.auction_kind, view.auction_item, view.high_bid)
        lines.append(style.bold(f"auction: {item}, high bid {view.high_bid} by {holder}"
                                f" (you would pay {price} at this bid)"))
    if view.phase == Phase.DEBT:
        lines.append(style.bold("you must sell gems to pay for what you won"))
    elif view.phase == Phase.LOSE_GEM:
        lines.append(style.bold("you must return one active gem (Mirror/Cloak)"))
    elif view.phase == Phase.FREE_LEVEL:
        lines.append(style.bold(f"place {view.free_levels} free knowledge level(s)"))
    return "\n".join(lines)
