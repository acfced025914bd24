"""A text dump of the table, plain (``"ansi"`` render mode) or with terminal colours
(``"human"``).  It is the spectator's view: every hand is shown in full."""

from __future__ import annotations

from ..engine import Game, Phase
from ..engine.actions import ACTION_NAMES
from ..engine.data import (
    ARTIFACTS,
    CHARACTERS,
    COLOUR_NAMES,
    FIELD_NAMES,
    GEM_NAMES,
    NUM_TOKENS,
    POSITION_NAMES,
    SENTINELS,
    token_name,
)
from ..engine.economy import hand_value
from ..engine.queries import hand_limit

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_GEM_COLOURS = ("\033[97m", "\033[94m", "\033[92m", "\033[96m", "\033[91m")  # opal..ruby


def _gems(counts: list[int], colour: bool) -> str:
    parts = []
    for g, n in enumerate(counts):
        if n:
            text = f"{n} {GEM_NAMES[g]}"
            parts.append(f"{_GEM_COLOURS[g]}{text}{_RESET}" if colour else text)
    return ", ".join(parts) or "-"


def render_text(game: Game, colour: bool = False) -> str:
    """The whole table as text (with ANSI colours when ``colour`` is true)."""
    s = game.state
    bold = (lambda t: f"{_BOLD}{t}{_RESET}") if colour else (lambda t: t)
    dim = (lambda t: f"{_DIM}{t}{_RESET}") if colour else (lambda t: t)
    status = "game over" if game.is_over else f"phase {s.phase.name}"
    if game.truncated:
        status += " (truncated)"
    lines = [bold(f"Zavandor - round {s.round}, {status}, "
                  f"player_{s.turn_player}'s turn, player_{game.current_player} to decide")]
    order = ", ".join(f"{POSITION_NAMES[i]}: player_{seat}" for i, seat in enumerate(s.turn_order))
    lines.append(f"turn order  {order}")
    display = ", ".join(ARTIFACTS[a].name for a in s.display) or "-"
    lines.append(f"display     {display}  ({len(s.artifact_deck)} in deck)")
    free = [SENTINELS[i].name for i, o in enumerate(s.sentinel_owner) if o == -1]
    lines.append(f"sentinels   {', '.join(free) or '-'}")
    lines.append("supply      " + ", ".join(f"{n} {GEM_NAMES[g]}" for g, n in enumerate(s.gem_supply))
                 + "; decks " + ", ".join(f"{COLOUR_NAMES[c]} {len(d)}" for c, d in enumerate(s.decks)))
    if s.auction_kind >= 0:
        item = (ARTIFACTS[s.auction_item].name if s.auction_kind == 0
                else SENTINELS[s.auction_item].name)
        holder = f"player_{s.high_bidder}" if s.high_bidder >= 0 else "nobody (minimum)"
        lines.append(bold(f"auction     {item}: high bid {s.high_bid} by {holder}"))
    if s.phase == Phase.FREE_LEVEL:
        lines.append(bold(f"free levels {s.free_levels} for player_{s.current_player}"))
    for seat, p in enumerate(s.players):
        marker = ">" if seat == game.current_player else " "
        head = (f"{marker} player_{seat} {CHARACTERS[p.character].name:<7} VP {p.vp:>3}"
                + ("  ELIMINATED" if p.eliminated else ""))
        lines.append(bold(head) if seat == game.current_player else head)
        lines.append(f"    active   {_gems(p.active, colour)}   pentagon {_gems(p.inactive, colour)}")
        levels = ", ".join(f"{FIELD_NAMES[f]} {lv}" for f, lv in enumerate(p.levels) if lv)
        lines.append(f"    levels   {levels or '-'}"
                     + (f"   {p.pentagon_chips} chip(s) waiting" if p.pentagon_chips else ""))
        arts = ", ".join(f"{n}x {ARTIFACTS[a].name}" for a, n in enumerate(p.artifacts) if n)
        sens = ", ".join(SENTINELS[x].name for x in p.sentinels)
        lines.append(f"    owns     {arts or '-'}" + (f"; sentinels {sens}" if sens else ""))
        hand = ", ".join(f"{n}x {token_name(t)}" for t in range(NUM_TOKENS) if (n := p.hand[t]))
        lines.append(f"    hand     {hand or '-'}  "
                     + dim(f"(value {hand_value(p.hand)}, limit {hand_limit(p)})"))
    if s.history:
        lines.append(dim(f"last action: {ACTION_NAMES[s.history[-1]]}"))
    return "\n".join(lines)
