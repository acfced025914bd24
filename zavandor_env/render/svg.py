"""A picture of the table: :func:`to_svg` draws a game as one self-contained SVG document.

The picture shows what a spectator sees (``seat=None``: every hand and 9-Sages card face up)
or exactly what one seat may know (``seat=k``): then every seat is read through
:class:`~zavandor_env.engine.view.PlayerView`, which refuses hidden card values of other
seats, so nothing hidden can leak into the drawing -- the other hands show only their
counts per colour, concentrated cards and dust.

Layout (1280 px wide, the height follows the number of players): a header with the round,
phase, whose decision it is and the last action; a panel per player in a grid (two or three
columns), with the table between the first and second row of players (after the only row
for 2 and 3 players): the display of face-up artifacts, the auction in progress or the final
result, the nine sentinels, the turn order with its price modifiers and the supplies.

The output depends only on the state (no clock, no randomness, no dict-order surprises), so
the same state gives the same string, and it is plain string building with the standard
library only (about a millisecond for four players), cheap enough to draw every frame.
Rasterising it is ``zavandor_env.render.picture``'s job.
"""
from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Final

from zavandor_env.engine.actions import action_to_string
from zavandor_env.engine.data import (
    ARTIFACTS,
    GEM_NAMES,
    NUM_COLOURS,
    POSITION_NAMES,
    SENTINEL_MIN_BID,
    SENTINELS_TO_END,
    Colour,
    Gem,
    Sen,
)
from zavandor_env.engine.names import ARTIFACT_NAMES, SENTINEL_NAMES
from zavandor_env.engine.state import ITEM_ARTIFACT, Block, Phase
from zavandor_env.render.svg_canvas import (
    COLUMNS,
    GAP,
    GOLD,
    INK,
    LETTER_COLOURS,
    LINE,
    MARGIN,
    MUTED,
    SEAT_COLOURS,
    Canvas,
    Scene,
    draw_panels,
    esc,
    seat_name,
    text_width,
    words,
)

if TYPE_CHECKING:
    from zavandor_env.engine.game import Game

# The page's geometry, and the colours only the header and the table use.
WIDTH: Final = 1280
HEADER_H: Final = 64
FONT: Final = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
BG: Final = "#22303a"
TABLE: Final = "#ece4d2"
CARD: Final = "#fffdf7"
HEAD_INK: Final = "#f4ead2"
HEAD_MUTED: Final = "#a9b8c2"


# ---- the header ------------------------------------------------------------------------------
def _status(t: Scene) -> tuple[str, str]:
    """(headline, detail) of what the game waits for."""
    v = t.view
    if t.over:
        outcome = t.game.outcome()
        if outcome.truncated:
            return "Game over: cut off by a safety limit", "no winner"
        names = " and ".join(seat_name(s) for s in outcome.winners)
        best = max(outcome.scores[s] for s in outcome.winners) if outcome.winners else 0
        shared = " (shared)" if len(outcome.winners) > 1 else ""
        return f"Game over: {names} won{shared}", f"{best} VP in round {outcome.rounds}"
    if v.phase == Phase.ROUND_END:
        return f"Round {v.round} scored", "waiting for the next round"
    who = seat_name(v.current_player)
    phase = v.phase
    if phase == Phase.TURN:
        block = Block(v.block)
        doing = "turn" if block == Block.NONE else f"turn, {block.name.lower()} block"
    elif phase == Phase.BID:
        doing = "raise or pass"
    elif phase == Phase.DEBT:
        doing = f"sell gems to pay {t.game.state.debt_item_price}"
    elif phase == Phase.FREE_LEVEL:
        doing = f"place {v.free_levels} free level{'s' if v.free_levels != 1 else ''}"
    else:
        doing = "return an active gem"
    return f"{who} to decide", doing


def _header(c: Canvas, t: Scene) -> None:
    v = t.view
    c.text(MARGIN, 28, "The Scepter of Zavandor", size=21, fill=HEAD_INK, bold=True)
    phase = words(v.phase.name.lower())
    who = "spectator view" if t.viewer < 0 else f"seen by {seat_name(t.viewer)}"
    c.text(MARGIN, 50, f"Round {v.round}  \u00b7  phase: {phase}  \u00b7  {who}", size=13,
           fill=HEAD_MUTED)
    head, detail = _status(t)
    right = WIDTH - MARGIN
    c.text(right, 28, head, size=18, fill=GOLD, bold=True, anchor="end")
    history = t.game.history
    last = f"last action: {action_to_string(history[-1])}" if history else "no action yet"
    c.text(right, 50, f"{detail}  \u00b7  {last}", size=13, fill=HEAD_INK, anchor="end")


# ---- the table between the players -----------------------------------------------------------
def _artifact_card(c: Canvas, x: float, y: float, art: int) -> None:
    spec = ARTIFACTS[art]
    c.rect(x, y, 96, 80, CARD, rx=6, stroke="#b7ab90", sw=1.2)
    c.rect(x, y, 96, 18, LETTER_COLOURS[spec.letter], rx=6)
    c.rect(x, y + 12, 96, 6, LETTER_COLOURS[spec.letter])
    c.text(x + 7, y + 13.5, spec.letter, size=11, bold=True)
    c.text(x + 89, y + 13.5, f"{spec.vp} VP", size=11, bold=True, anchor="end")
    lines: list[str] = []
    for word in ARTIFACT_NAMES[art].split("_"):
        if lines and text_width(lines[-1] + " " + word, 12, True) <= 88:
            lines[-1] += " " + word
        else:
            lines.append(word)
    for i, line in enumerate(lines[:2]):
        c.text(x + 48, y + 36 + i * 15, line, size=12, bold=True, anchor="middle")
    c.text(x + 48, y + 73, f"min bid {spec.min_bid}", size=10.5, fill=MUTED, anchor="middle")


def _display(c: Canvas, t: Scene, x: float, y: float, w: float) -> float:
    v = t.view
    c.text(x, y + 14, "Display", size=14, bold=True)
    c.text(x + 66, y + 14, f"artifact deck: {v.artifact_deck_size} cards", size=11, fill=MUTED)
    per_row = max(1, int((w + 8) // 104))
    display = v.display
    if not display:
        c.text(x, y + 44, "empty", size=12, fill=MUTED, italic=True)
    for i, art in enumerate(display):
        _artifact_card(c, x + (i % per_row) * 104, y + 24 + (i // per_row) * 88, art)
    rows = max(1, (len(display) + per_row - 1) // per_row)
    return 24 + rows * 88


def _auction(c: Canvas, t: Scene, x: float, y: float, w: float) -> float:
    """The auction in progress, the pending resolution, the turn, or the final result."""
    c.rect(x, y, w, 200, CARD, rx=8, stroke="#b7ab90", sw=1.2)
    if t.over:
        _final_result(c, t, x, y, w)
    elif t.view.auction_kind >= 0:
        _auction_running(c, t, x, y, w)
    else:
        _no_auction(c, t, x, y, w)
    return 200


def _final_result(c: Canvas, t: Scene, x: float, y: float, w: float) -> None:
    """The ranking at the end: rank, seat, VP; the winners in bold."""
    cx = x + w / 2
    outcome = t.game.outcome()
    c.text(cx, y + 30, "Final result", size=16, bold=True, anchor="middle")
    why = ("cut off by a safety limit: no winner" if outcome.truncated
           else f"ended in round {outcome.rounds}")
    c.text(cx, y + 50, why, size=11, fill=MUTED, anchor="middle")
    ranked = sorted(range(t.n), key=lambda s: (outcome.ranks[s], s))
    for i, seat in enumerate(ranked):
        ry = y + 76 + i * 20
        won = seat in outcome.winners
        out = outcome.eliminated[seat]
        c.text(x + 24, ry, f"{outcome.ranks[seat]}.", size=13, bold=won)
        c.text(x + 48, ry, seat_name(seat) + ("  (eliminated)" if out else ""), size=13,
               bold=won, fill=MUTED if out else INK)
        c.text(x + w - 24, ry, f"{outcome.scores[seat]} VP", size=13, bold=won, anchor="end")


def _auction_running(c: Canvas, t: Scene, x: float, y: float, w: float) -> None:
    """The item, its opener, the high bid and every seat still bidding or passed."""
    v = t.view
    cx = x + w / 2
    item = v.auction_item
    if v.auction_kind == ITEM_ARTIFACT:
        spec = ARTIFACTS[item]
        name = ARTIFACT_NAMES[item]
        what = f"artifact {spec.letter}  \u00b7  {spec.vp} VP  \u00b7  min bid {spec.min_bid}"
    else:
        name = SENTINEL_NAMES[item]
        what = f"sentinel  \u00b7  min bid {SENTINEL_MIN_BID}"
    c.text(x + 14, y + 22, "AUCTION", size=11, fill=MUTED, bold=True)
    c.text(x + w - 14, y + 22, f"opened by {seat_name(v.auction_opener)}", size=11,
           fill=MUTED, anchor="end")
    c.text(cx, y + 50, words(name), size=20, bold=True, anchor="middle")
    c.text(cx, y + 70, what, size=11, fill=MUTED, anchor="middle")
    if v.high_bidder >= 0:
        c.text(cx, y + 108, str(v.high_bid), size=32, bold=True, anchor="middle")
        bidder = v.high_bidder
        price = v.price(bidder, v.auction_kind, item, v.high_bid)
        c.text(cx, y + 128, f"high bid by {seat_name(bidder)} (would pay {price})",
               size=12, anchor="middle")
    else:
        c.text(cx, y + 108, "no bid yet", size=18, fill=MUTED, anchor="middle")
    # every seat still in the game: bidding or passed
    px = x + 14
    py = y + 146
    for sv in t.seats:
        if sv.eliminated:
            continue
        seat = sv.seat
        passed = bool((v.passed >> seat) & 1)
        label = seat_name(seat) + (" passed" if passed else "")
        width = text_width(label, 11) + 12
        if px + width > x + w - 10:
            px = x + 14
            py += 24
        fill = "#e3dccb" if passed else ("#b9dfb5" if seat == v.high_bidder else "#e8f0e4")
        px += c.pill(px, py, label, fill, ink=MUTED if passed else INK) + 6


def _no_auction(c: Canvas, t: Scene, x: float, y: float, w: float) -> None:
    """No auction: the pending resolution, or whose turn it is."""
    v = t.view
    cx = x + w / 2
    phase = v.phase
    c.text(x + 14, y + 22, "NO AUCTION", size=11, fill=MUTED, bold=True)
    lines: list[str] = []
    if phase == Phase.ROUND_END:
        head = f"round {v.round} scored"
        lines.append("phase 4 done; the next round's income comes next")
    else:
        head = f"{seat_name(v.turn_player)}'s turn"
        used = [b.name.lower() for b in (Block.GEMS, Block.KNOWLEDGE, Block.AUCTION)
                if (v.blocks_used >> b) & 1]
        block = Block(v.block)
        if block != Block.NONE:
            lines.append(f"open block: {block.name.lower()}")
        lines.append(f"blocks used: {', '.join(used) or 'none'}")
        if phase == Phase.DEBT:
            lines.append(f"{seat_name(v.debtor)} sells gems to pay "
                         f"{t.game.state.debt_item_price}")
        elif phase == Phase.FREE_LEVEL:
            lines.append(f"{seat_name(v.current_player)} places {v.free_levels} free level(s)")
        elif phase == Phase.LOSE_GEM:
            lines.append("returning an active gem: " + ", ".join(map(seat_name, v.victims)))
    c.text(cx, y + 70, head, size=20, bold=True, anchor="middle")
    for i, line in enumerate(lines):
        c.text(cx, y + 100 + i * 20, line, size=12, fill=MUTED, anchor="middle")


def _sentinels(c: Canvas, t: Scene, x: float, y: float, w: float) -> float:
    v = t.view
    owners = v.sentinel_owner
    c.text(x, y + 14, "Sentinels", size=14, bold=True)
    c.text(x + 82, y + 14, f"{v.sentinels_acquired} acquired  \u00b7  the game ends at "
           f"{SENTINELS_TO_END}", size=11, fill=MUTED)
    cell_w = (w - 12) / 3
    for s in Sen:
        sx = x + (s % 3) * (cell_w + 6)
        sy = y + 24 + (s // 3) * 58
        owner = owners[s]
        if owner == -1:
            fill, stroke, ink = "#fff4cf", "#d6b24a", INK
            status = f"open  \u00b7  min {SENTINEL_MIN_BID}"
        elif owner >= 0:
            fill, stroke, ink = "#efeae0", SEAT_COLOURS[owner % 6], MUTED
            status = seat_name(owner)
        else:
            fill, stroke, status, ink = "#dcdcdc", "#a0a0a0", "out of the game", "#8a8a8a"
        c.rect(sx, sy, cell_w, 50, fill, rx=6, stroke=stroke, sw=2 if owner >= 0 else 1.2)
        c.text(sx + cell_w / 2, sy + 21, SENTINEL_NAMES[s], size=13, bold=True, anchor="middle",
               fill=ink)
        c.text(sx + cell_w / 2, sy + 39, status, size=10.5, anchor="middle",
               fill=SEAT_COLOURS[owner % 6] if owner >= 0 else MUTED, bold=owner >= 0)
    return 24 + 3 * 58 - 8


def _strip(c: Canvas, t: Scene, x: float, y: float, w: float) -> float:
    """Turn order with the price modifiers, then the supplies (also a legend of the colours)."""
    v = t.view
    c.text(x, y + 14, "turn order", size=11, fill=MUTED)
    px = x + 80
    for position, seat in enumerate(v.turn_order):
        label = (f"{POSITION_NAMES[position]}  {seat_name(seat)}  "
                 f"{v.art_mod[seat]:+d} / {v.sen_mod[seat]:+d}")
        px += c.pill(px, y + 1, label, "#f7f1e3", stroke=SEAT_COLOURS[seat % 6]) + 8
    c.text(px + 4, y + 14, "(price modifier on artifacts / sentinels)", size=11, fill=MUTED)
    y += 28
    c.text(x, y + 14, "gem supply", size=11, fill=MUTED)
    px = x + 80
    for gem in Gem:
        c.gem(px + 9, y + 9, gem)
        label = f"{GEM_NAMES[gem]} {v.gem_supply[gem]}"
        c.text(px + 22, y + 14, label, size=11)
        px += 30 + text_width(label, 11)
    y += 26
    c.text(x, y + 14, "energy", size=11, fill=MUTED)
    column = (w - 80) / NUM_COLOURS
    for colour in Colour:
        px = x + 80 + colour * column
        c.card(px, y - 1, colour, "", w=14, h=20)
        label = (f"deck {v.deck_sizes[colour]}  \u00b7  discards {len(v.discards[colour])}"
                 f"  \u00b7  concentrated {v.concentrated_supply[colour]}")
        c.text(px + 19, y + 14, label, size=11)
    return 78


def _table(t: Scene, top: float, out: Canvas) -> float:
    """The central table band; returns its height."""
    c = Canvas()
    inner = WIDTH - 2 * MARGIN - 28
    side_w = 330.0  # the auction's and the sentinels' columns; the display takes the rest
    display_w = inner - 2 * side_w - 2 * 20
    y = 14 + 12 + max(_display(c, t, 14, 14, display_w),
                      _auction(c, t, 14 + display_w + 20, 14, side_w),
                      _sentinels(c, t, 14 + display_w + side_w + 40, 14, side_w))
    c.parts.append(f'<line x1="14" y1="{y:g}" x2="{inner + 14:g}" y2="{y:g}" '
                   f'stroke="{LINE}"/>')
    y += 10
    y += _strip(c, t, 14, y, inner)
    height = y + 6
    out.rect(MARGIN, top, WIDTH - 2 * MARGIN, height, TABLE, rx=12, stroke="#b7ab90", sw=1.5)
    out.open(MARGIN, top, ' id="table"')
    out.parts.extend(c.parts)
    out.close()
    return height



# ---- the document ----------------------------------------------------------------------------
def to_svg(game: Game, seat: int | None = None) -> str:
    """The table as one self-contained SVG document (inline styles, no external resources).

    Args:
        game: the game to draw (not changed).
        seat: ``None`` for the spectator's view (every hand face up); a seat index for what
            that seat may know: other seats' energy cards and 9-Sages cards only as counts.

    Returns:
        The SVG text; the same state always gives the same string.
    """
    if seat is not None:
        n = game.num_players
        if isinstance(seat, bool) or not isinstance(seat, Integral) or not 0 <= seat < n:
            raise ValueError(f"seat must be None or an integer in [0, {n}), got {seat!r}")
        seat = int(seat)  # NumPy integers pass, as everywhere in the engine
    t = Scene(game, seat)
    body = Canvas()
    _header(body, t)
    cols = COLUMNS[t.n]
    pw = (WIDTH - 2 * MARGIN - (cols - 1) * GAP) / cols
    seats = list(range(t.n))
    rows = [seats[i : i + cols] for i in range(0, t.n, cols)]
    y: float = HEADER_H
    y += draw_panels(t, y, pw, rows[0], body) + GAP + 4
    y += _table(t, y, body) + GAP + 4
    for row in rows[1:]:
        y += draw_panels(t, y, pw, row, body) + GAP
    height = int(y + MARGIN - GAP)
    title = f"The Scepter of Zavandor, round {t.view.round}"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="{FONT}"><title>{esc(title)}</title>'
            f'<rect width="{WIDTH}" height="{height}" fill="{BG}"/>{"".join(body.parts)}</svg>')

