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

from collections.abc import Sequence
from numbers import Integral
from typing import TYPE_CHECKING, Final

from zavandor_env.engine.actions import action_to_string
from zavandor_env.engine.data import (
    ARTIFACTS,
    CHARACTERS,
    CHIP_COSTS,
    COLOUR_NAMES,
    CONCENTRATED_VALUE,
    DUST_CHITS,
    FIELD_NAMES,
    GEM_NAMES,
    MAX_LEVEL,
    NUM_CARD_TOKENS,
    NUM_COLOURS,
    POSITION_NAMES,
    SENTINEL_MIN_BID,
    SENTINELS_TO_END,
    TOKEN_COLOUR,
    TOKEN_VALUE,
    Art,
    Colour,
    Field,
    Gem,
    Sen,
    token_name,
)
from zavandor_env.engine.names import ARTIFACT_NAMES, SENTINEL_NAMES
from zavandor_env.engine.state import ITEM_ARTIFACT, Block, Phase
from zavandor_env.engine.view import PlayerView, SeatView

if TYPE_CHECKING:
    from zavandor_env.engine.game import Game

# ---- geometry -------------------------------------------------------------------------------
WIDTH: Final = 1280
_MARGIN: Final = 16
_GAP: Final = 12
_HEADER_H: Final = 64
_COLUMNS: Final = {2: 2, 3: 3, 4: 2, 5: 3, 6: 3}  # players -> panel columns
# Estimated advance of one character, in ems, for a generic sans-serif face; used only to
# wrap pills and shorten long lines, so a little generosity is safer than precision.
_EM: Final = 0.6
_EM_BOLD: Final = 0.68
_FONT: Final = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

# ---- palette ---------------------------------------------------------------------------------
_BG: Final = "#22303a"
_PANEL: Final = "#fbf8f1"
_PANEL_OUT: Final = "#c9c9c9"
_TABLE: Final = "#ece4d2"
_CARD: Final = "#fffdf7"
_INK: Final = "#2b2b2b"
_MUTED: Final = "#7a7466"
_LINE: Final = "#d8cfbb"
_GOLD: Final = "#f2b705"
_HEAD_INK: Final = "#f4ead2"
_HEAD_MUTED: Final = "#a9b8c2"
_RED_INK: Final = "#b3261e"

# Fill and outline per gem kind; opals and diamonds are pale, so their outline does the work.
_GEM_COLOURS: Final = {
    Gem.OPAL: ("#efe6f6", "#8e7fae"),
    Gem.SAPPHIRE: ("#2f66d0", "#1b3f86"),
    Gem.EMERALD: ("#1f9d55", "#11603a"),
    Gem.DIAMOND: ("#dff4ff", "#4b94bf"),
    Gem.RUBY: ("#cf2140", "#7e1023"),
}
# Fill, outline and ink per card colour (the colour of the gem that produces it).
_CARD_COLOURS: Final = {
    Colour.BLUE: ("#2f66d0", "#1b3f86", "#ffffff"),
    Colour.GREEN: ("#1f9d55", "#11603a", "#ffffff"),
    Colour.WHITE: ("#f7f7f2", "#8b8b80", "#2b2b2b"),
    Colour.RED: ("#cf2140", "#7e1023", "#ffffff"),
}
# Header colour per seat: distinct from each other and from the card colours.
_SEAT_COLOURS: Final = ("#6d4c9f", "#b86e12", "#14807f", "#a63d64", "#4f6d8f", "#5f7f25")
# Artifact cards are dealt in letters A-D (cheap to dear); each letter has its own tint.
_LETTER_COLOURS: Final = {"A": "#9cc5a1", "B": "#8fb3dc", "C": "#c9a3dc", "D": "#e6bb5c"}
_DUST: Final = ("#e3b94f", "#9a7420")
_GEM_POINTS: Final = ((-8, -2), (-4, -7), (4, -7), (8, -2), (0, 8))  # a brilliant-cut outline


def _esc(text: str) -> str:
    """Text made safe for element content and attribute values."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _words(name: str) -> str:
    """A table name for people: ``"magic_mirror"`` -> ``"magic mirror"``."""
    return name.replace("_", " ")


def _width(text: str, size: float, bold: bool = False) -> float:
    return len(text) * size * (_EM_BOLD if bold else _EM)


def _seat_name(seat: int) -> str:
    return f"player_{seat}"  # the environments' agent names


def _signed(n: int) -> str:
    return f"{n:+d}"


class _Canvas:
    """An SVG fragment being written: a list of strings joined once at the end."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[str] = []

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str,
        *,
        rx: float = 0,
        stroke: str | None = None,
        sw: float = 1,
        extra: str = "",
    ) -> None:
        line = f' stroke="{stroke}" stroke-width="{sw:g}"' if stroke else ""
        corner = f' rx="{rx:g}"' if rx else ""
        self.parts.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}"{corner} fill="{fill}"'
            f"{line}{extra}/>"
        )

    def text(
        self,
        x: float,
        y: float,
        text: str,
        *,
        size: float = 12,
        fill: str = _INK,
        bold: bool = False,
        anchor: str = "",
        italic: bool = False,
        cls: str = "",
    ) -> None:
        attrs = f' font-size="{size:g}" fill="{fill}"'
        if bold:
            attrs += ' font-weight="bold"'
        if italic:
            attrs += ' font-style="italic"'
        if anchor:
            attrs += f' text-anchor="{anchor}"'
        if cls:
            attrs += f' class="{cls}"'
        self.parts.append(f'<text x="{x:g}" y="{y:g}"{attrs}>{_esc(text)}</text>')

    def gem(self, x: float, y: float, gem: int, faded: bool = False) -> None:
        fill, stroke = _GEM_COLOURS[Gem(gem)]
        points = " ".join(f"{x + dx:g},{y + dy:g}" for dx, dy in _GEM_POINTS)
        opacity = ' opacity="0.25"' if faded else ""
        self.parts.append(
            f'<polygon points="{points}" fill="{fill}" stroke="{stroke}" stroke-width="1.2"'
            f' stroke-linejoin="round"{opacity}/>'
            # the crown's facet line makes the shape read as a cut stone
            f'<polyline points="{x - 8:g},{y - 2:g} {x + 8:g},{y - 2:g}" stroke="{stroke}"'
            f' stroke-width="0.8" fill="none"{opacity}/>'
        )

    def card(self, x: float, y: float, colour: int, label: str, w: float = 22,
             h: float = 30, conc: bool = False) -> None:
        """An energy card of ``colour`` (a concentrated one has a double frame)."""
        fill, stroke, ink = _CARD_COLOURS[Colour(colour)]
        self.rect(x, y, w, h, fill, rx=3, stroke=stroke, sw=1.2)
        if conc:
            self.rect(x + 3, y + 3, w - 6, h - 6, "none", rx=2, stroke=ink, sw=1)
        self.text(x + w / 2, y + h / 2 + 4.5, label, size=12, fill=ink, bold=True, anchor="middle")

    def pill(self, x: float, y: float, text: str, fill: str, *, ink: str = _INK,
             size: float = 11, stroke: str | None = None, bold: bool = False) -> float:
        """A rounded label; returns its width."""
        w = _width(text, size, bold) + 12
        self.rect(x, y, w, size + 8, fill, rx=(size + 8) / 2, stroke=stroke)
        self.text(x + w / 2, y + size + 2.5, text, size=size, fill=ink, anchor="middle",
                  bold=bold)
        return w

    def open(self, x: float, y: float, extra: str = "") -> None:
        self.parts.append(f'<g transform="translate({x:g},{y:g})"{extra}>')

    def close(self) -> None:
        self.parts.append("</g>")


class _Table:
    """What the picture is drawn from: the seats as the viewer may see them, plus the public
    table.  Built from :class:`PlayerView` for a seat; for the spectator every seat is an
    own-seat view, which shows everything."""

    __slots__ = ("game", "view", "seats", "viewer", "n")

    def __init__(self, game: Game, seat: int | None) -> None:
        state = game.read_state()
        self.game = game
        self.n = state.config.num_players
        if seat is None:
            self.viewer = -1
            self.view = PlayerView(state, 0)  # only its public, table-wide parts are read
            self.seats: tuple[SeatView, ...] = tuple(SeatView(p, True) for p in state.players)
        else:
            self.viewer = seat
            self.view = PlayerView(state, seat)
            self.seats = self.view.players

    @property
    def over(self) -> bool:
        return self.view.is_over

    def deciding(self) -> int:
        """The seat to decide now (-1 when nobody does)."""
        if self.over or self.view.phase == Phase.ROUND_END:
            return -1
        return self.view.current_player


# ---- the header ------------------------------------------------------------------------------
def _status(t: _Table) -> tuple[str, str]:
    """(headline, detail) of what the game waits for."""
    v = t.view
    if t.over:
        outcome = t.game.outcome()
        if outcome.truncated:
            return "Game over: cut off by a safety limit", "no winner"
        names = " and ".join(_seat_name(s) for s in outcome.winners)
        best = max(outcome.scores[s] for s in outcome.winners) if outcome.winners else 0
        shared = " (shared)" if len(outcome.winners) > 1 else ""
        return f"Game over: {names} won{shared}", f"{best} VP in round {outcome.rounds}"
    if v.phase == Phase.ROUND_END:
        return f"Round {v.round} scored", "waiting for the next round"
    who = _seat_name(v.current_player)
    phase = v.phase
    if phase == Phase.TURN:
        block = Block(v.block)
        doing = "turn" if block == Block.NONE else f"turn, {block.name.lower()} block"
    elif phase == Phase.BID:
        doing = "raise or pass"
    elif phase == Phase.DEBT:
        doing = f"sell gems to pay {t.game.read_state().debt_item_price}"
    elif phase == Phase.FREE_LEVEL:
        doing = f"place {v.free_levels} free level{'s' if v.free_levels != 1 else ''}"
    else:
        doing = "return an active gem"
    return f"{who} to decide", doing


def _header(c: _Canvas, t: _Table) -> None:
    v = t.view
    c.text(_MARGIN, 28, "The Scepter of Zavandor", size=21, fill=_HEAD_INK, bold=True)
    phase = _words(v.phase.name.lower())
    who = "spectator view" if t.viewer < 0 else f"seen by {_seat_name(t.viewer)}"
    c.text(_MARGIN, 50, f"Round {v.round}  \u00b7  phase: {phase}  \u00b7  {who}", size=13,
           fill=_HEAD_MUTED)
    head, detail = _status(t)
    right = WIDTH - _MARGIN
    c.text(right, 28, head, size=18, fill=_GOLD, bold=True, anchor="end")
    history = t.game.history
    last = f"last action: {action_to_string(history[-1])}" if history else "no action yet"
    c.text(right, 50, f"{detail}  \u00b7  {last}", size=13, fill=_HEAD_INK, anchor="end")


# ---- a player's panel -----------------------------------------------------------------------
def _tags(t: _Table, sv: SeatView) -> list[tuple[str, str, str]]:
    """(text, fill, ink) labels for a seat's header line, most important first."""
    v = t.view
    seat = sv.seat
    tags: list[tuple[str, str, str]] = []
    if sv.eliminated:
        tags.append(("ELIMINATED", "#555555", "#ffffff"))
    if t.over:
        outcome = t.game.outcome()
        if seat in outcome.winners:
            tags.append(("WINNER", _GOLD, _INK))
        tags.append((f"rank {outcome.ranks[seat]}", "#e3dccb", _INK))
        return tags
    if seat == t.deciding():
        tags.append(("DECIDING", _GOLD, _INK))
    if seat == v.turn_player and v.phase != Phase.ROUND_END and not sv.eliminated:
        tags.append(("TURN", "#3d5a6c", "#ffffff"))
    if v.auction_kind >= 0 and not sv.eliminated:
        if seat == v.high_bidder:
            tags.append(("HIGH BID", "#2f7d3b", "#ffffff"))
        elif (v.passed >> seat) & 1:
            tags.append(("passed", "#ddd6c6", _MUTED))
        else:
            tags.append(("bidding", "#e8f0e4", "#2f7d3b"))
    if seat == t.viewer:
        tags.append(("YOU", "#22303a", "#ffffff"))
    return tags


def _card_values(sv: SeatView, colour: int) -> list[int]:
    hand = sv.hand  # own seat only: a view raises on anyone else's
    values: list[int] = []
    for token in range(NUM_CARD_TOKENS):
        if TOKEN_COLOUR[token] == colour and hand[token]:
            values.extend([TOKEN_VALUE[token]] * hand[token])
    return values


def _values_text(values: Sequence[int], room: float, size: float) -> str:
    """Card values as ``"5 5 7"``; as ``"5x2 7"`` if that is too wide; cut with '...' last."""
    plain = " ".join(map(str, values))
    if _width(plain, size) <= room:
        return plain
    runs: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        runs.append(f"{values[i]}\u00d7{j - i}" if j - i > 1 else str(values[i]))
        i = j
    short = " ".join(runs)
    while runs and _width(short, size) > room:
        runs.pop()
        short = " ".join(runs) + " \u2026"
    return short


def _panel(t: _Table, sv: SeatView, pw: float) -> tuple[_Canvas, float]:
    """One seat's panel drawn at the origin; returns it and its height."""
    c = _Canvas()
    seat = sv.seat
    v = t.view
    shows_hand = sv.is_own  # the spectator's seats are all "own"
    accent = _SEAT_COLOURS[seat % len(_SEAT_COLOURS)]
    # header strip: name, character, VP
    c.rect(0, 0, pw, 34, accent, rx=8)
    c.rect(0, 26, pw, 8, accent)
    name = _seat_name(seat)
    c.text(12, 23, name, size=16, fill="#ffffff", bold=True)
    c.text(12 + _width(name, 16, True) + 8, 22, CHARACTERS[sv.character].name, size=12,
           fill="#f1e9ff", italic=True)
    c.text(pw - 12, 24, f"{sv.vp} VP", size=18, fill="#ffffff", bold=True, anchor="end")
    now = sv.current_vp if not sv.eliminated else 0
    if now != sv.vp:  # VP drive turn order only when scored in phase 4; show the live count
        c.text(pw - 14 - _width(f"{sv.vp} VP", 18, True), 22, f"now {now}", size=11,
               fill="#f1e9ff", anchor="end")

    # position in turn order with its price modifiers, and status tags
    y = 44
    order = v.turn_order
    if seat in order:
        position = order.index(seat)
        c.parts.append(f'<circle cx="22" cy="{y + 9}" r="11" fill="#3d3a33"/>')
        c.text(22, y + 13, POSITION_NAMES[position], size=11, fill="#ffffff", bold=True,
               anchor="middle")
        c.text(40, y + 13, f"artifacts {_signed(v.art_mod[seat])}  \u00b7  sentinels "
               f"{_signed(v.sen_mod[seat])}", size=11, fill=_MUTED)
    else:
        c.text(12, y + 13, "not in the turn order", size=11, fill=_MUTED)
    x = pw - 10
    for text, fill, ink in _tags(t, sv):
        w = _width(text, 10, True) + 12
        x -= w
        c.pill(x, y + 1, text, fill, ink=ink, size=10, bold=True)
        x -= 5

    # gems: active on the spiral, inactive in the pentagon
    y += 28
    slot_w = min(70.0, (pw - 96) / 5)
    for label, counts in (
        (f"spiral {sum(sv.active)}/{sv.active_slots}", sv.active),
        ("pentagon", sv.inactive),
    ):
        c.text(12, y + 14, label, size=11, fill=_MUTED)
        for gem in Gem:
            gx = 96 + gem * slot_w
            n = counts[gem]
            c.gem(gx + 9, y + 9, gem, faded=n == 0)
            c.text(gx + 21, y + 14, str(n), size=12, fill=_INK if n else "#b9b2a2", bold=n > 0)
        y += 24
    c.parts.append(f'<line x1="10" y1="{y + 3}" x2="{pw - 10:g}" y2="{y + 3}" '
                   f'stroke="{_LINE}"/>')

    # hand: one cell per colour (cards, their values where visible, concentrated cards)
    y += 8
    load = f"load {sv.hand_load}/{sv.hand_limit}"
    worth = f"value {sv.hand_value}" if shows_hand else f"public value {sv.known_value}"
    c.text(12, y + 13, "hand", size=11, fill=_MUTED)
    over = sv.hand_load > sv.hand_limit
    c.text(96, y + 13, load, size=11, fill=_RED_INK if over else _INK, bold=over)
    c.text(96 + _width(load, 11, over) + 12, y + 13, worth, size=11)
    if sv.balance:
        owed = f"owes {sv.balance}" if sv.balance > 0 else f"sale proceeds {-sv.balance}"
        c.text(pw - 12, y + 13, owed, size=11, fill=_RED_INK, anchor="end")
    y += 20
    # one column per colour: the cards (count on the card), concentrated cards beside them,
    # and underneath the card values where this viewer may see them
    counts = sv.card_counts
    conc = sv.concentrated
    col_w = (pw - 20) / NUM_COLOURS
    for colour in Colour:
        cx = 12 + colour * col_w
        n = counts[colour]
        if n:
            c.card(cx, y, colour, str(n))
        else:  # an empty slot keeps the columns readable at a glance
            c.rect(cx, y, 22, 30, "none", rx=3, stroke="#cfc6b2", extra=' stroke-dasharray="3 2"')
        if conc[colour]:
            c.card(cx + 27, y, colour, str(conc[colour]), w=26, conc=True)
        if n and shows_hand:
            text = _values_text(_card_values(sv, colour), col_w - 8, 11.5)
            c.text(cx, y + 46, text, size=11.5, cls="vals")
        elif n:
            c.text(cx, y + 46, "face down", size=11, fill=_MUTED, italic=True)
    y += 56
    dust = sv.dust
    total = sum(chit * k for chit, k in zip(DUST_CHITS, dust))
    c.parts.append(f'<circle cx="24" cy="{y + 8}" r="9" fill="{_DUST[0]}" '
                   f'stroke="{_DUST[1]}" stroke-width="1.2"/>')
    c.text(38, y + 12, f"dust {total}", size=11, bold=True)
    chits = "  ".join(f"{chit}\u00d7{k}" for chit, k in zip(DUST_CHITS, dust) if k)
    if chits:
        c.text(38 + _width(f"dust {total}", 11, True) + 8, y + 12, f"({chits})", size=11,
               fill=_MUTED)
    if any(conc):  # names the double-framed cards of the columns above
        held = ", ".join(f"{k} {COLOUR_NAMES[col]} ({CONCENTRATED_VALUE[col] * k})"
                         for col, k in enumerate(conc) if k)
        c.text(pw - 12, y + 12, f"concentrated: {held}", size=11, fill=_MUTED, anchor="end")
    y += 20
    # 9-Sages cards wait under the turn-order card until next round
    if sv.sages_count or sv.sages_dust:
        if shows_hand:
            parts = [token_name(tok) for tok in sv.sages_tokens]
        else:
            parts = [f"{sv.sages_count} card{'s' if sv.sages_count != 1 else ''}"]
        if sv.sages_dust:
            parts.append(f"dust {sv.sages_dust}")
        c.text(12, y + 12, "under turn card: " + ", ".join(parts), size=11, fill=_MUTED,
               cls="vals" if shows_hand else "")
        y += 18
    c.parts.append(f'<line x1="10" y1="{y + 2}" x2="{pw - 10:g}" y2="{y + 2}" '
                   f'stroke="{_LINE}"/>')

    # knowledge: six fields, four levels each
    y += 8
    c.text(12, y + 12, "knowledge", size=11, fill=_MUTED)
    bought = [str(cost) for cost, b in zip(CHIP_COSTS, sv.chips_bought) if b]
    chips = f"chips bought: {' '.join(bought) or 'none'}"
    if sv.pentagon_chips:
        chips += f"  \u00b7  {sv.pentagon_chips} to place"
    c.text(pw - 12, y + 12, chips, size=11, fill=_MUTED, anchor="end")
    y += 18
    field_w = (pw - 20) / 3
    for field in Field:
        fx = 10 + (field % 3) * field_w
        fy = y + (field // 3) * 20
        level = sv.levels[field]
        top = level == MAX_LEVEL
        c.text(fx + 2, fy + 12, _words(FIELD_NAMES[field]), size=11,
               fill=_INK if level else "#a39c8c")
        for k in range(MAX_LEVEL):  # gold pips mark a field at the top level
            px = fx + field_w - 10 - (MAX_LEVEL - 1 - k) * 9
            fill = (_GOLD if top else "#6b5a3e") if k < level else "none"
            c.parts.append(f'<circle cx="{px:g}" cy="{fy + 8}" r="3.6" fill="{fill}" '
                           f'stroke="#8c7b5c" stroke-width="1"/>')
    y += 44

    # artifacts and sentinels as labels that wrap
    for label, items in (
        ("artifacts", [(ARTIFACT_NAMES[a] + (f" \u00d7{k}" if k > 1 else ""),
                        _LETTER_COLOURS[ARTIFACTS[a].letter])
                       for a, k in zip(Art, sv.artifacts) if k]),
        ("sentinels", [(f"{SENTINEL_NAMES[s]} {sv.sentinel_vp(s)} VP", "#f5d77a")
                       for s in sv.sentinels]),
    ):
        c.text(12, y + 13, label, size=11, fill=_MUTED)
        x = 78.0
        if not items:
            c.text(x, y + 13, "none", size=11, fill="#b9b2a2")
        for text, fill in items:
            w = _width(_words(text), 11) + 12
            if x + w > pw - 10 and x > 78:
                x = 78
                y += 22
            x += c.pill(x, y, _words(text), fill) + 5
        y += 24
    return c, y + 4


def _panels(t: _Table, top: float, pws: float, seats: Sequence[int],
            out: _Canvas) -> float:
    """Draw one row of panels at ``top``; returns the row's height."""
    drawn = [_panel(t, t.seats[s], pws) for s in seats]
    height = max(h for _, h in drawn)
    cols = _COLUMNS[t.n]
    row_w = len(seats) * pws + (len(seats) - 1) * _GAP
    full = cols * pws + (cols - 1) * _GAP
    x = _MARGIN + (full - row_w) / 2  # a short last row is centred
    deciding = t.deciding()
    for seat, (panel, _) in zip(seats, drawn):
        sv = t.seats[seat]
        if seat == deciding:  # a gold halo around the seat whose decision it is
            out.rect(x - 4, top - 4, pws + 8, height + 8, "none", rx=11, stroke=_GOLD, sw=4)
        out.rect(x, top, pws, height, _PANEL_OUT if sv.eliminated else _PANEL, rx=8)
        extra = ' opacity="0.45"' if sv.eliminated else ""
        out.open(x, top, f' id="seat-{seat}"{extra}')
        out.parts.extend(panel.parts)
        out.close()
        x += pws + _GAP
    return height


# ---- the table between the players -----------------------------------------------------------
def _artifact_card(c: _Canvas, x: float, y: float, art: int) -> None:
    spec = ARTIFACTS[art]
    c.rect(x, y, 96, 80, _CARD, rx=6, stroke="#b7ab90", sw=1.2)
    c.rect(x, y, 96, 18, _LETTER_COLOURS[spec.letter], rx=6)
    c.rect(x, y + 12, 96, 6, _LETTER_COLOURS[spec.letter])
    c.text(x + 7, y + 13.5, spec.letter, size=11, bold=True)
    c.text(x + 89, y + 13.5, f"{spec.vp} VP", size=11, bold=True, anchor="end")
    lines: list[str] = []
    for word in ARTIFACT_NAMES[art].split("_"):
        if lines and _width(lines[-1] + " " + word, 12, True) <= 88:
            lines[-1] += " " + word
        else:
            lines.append(word)
    for i, line in enumerate(lines[:2]):
        c.text(x + 48, y + 36 + i * 15, line, size=12, bold=True, anchor="middle")
    c.text(x + 48, y + 73, f"min bid {spec.min_bid}", size=10.5, fill=_MUTED, anchor="middle")


def _display(c: _Canvas, t: _Table, x: float, y: float, w: float) -> float:
    v = t.view
    c.text(x, y + 14, "Display", size=14, bold=True)
    c.text(x + 66, y + 14, f"artifact deck: {v.artifact_deck_size} cards", size=11,
           fill=_MUTED)
    per_row = max(1, int((w + 8) // 104))
    display = v.display
    if not display:
        c.text(x, y + 44, "empty", size=12, fill=_MUTED, italic=True)
    for i, art in enumerate(display):
        _artifact_card(c, x + (i % per_row) * 104, y + 24 + (i // per_row) * 88, art)
    rows = max(1, (len(display) + per_row - 1) // per_row)
    return 24 + rows * 88


def _auction(c: _Canvas, t: _Table, x: float, y: float, w: float) -> float:
    """The auction in progress, the pending resolution, the turn, or the final result."""
    v = t.view
    c.rect(x, y, w, 200, _CARD, rx=8, stroke="#b7ab90", sw=1.2)
    cx = x + w / 2
    if t.over:
        outcome = t.game.outcome()
        c.text(cx, y + 30, "Final result", size=16, bold=True, anchor="middle")
        why = ("cut off by a safety limit: no winner" if outcome.truncated
               else f"ended in round {outcome.rounds}")
        c.text(cx, y + 50, why, size=11, fill=_MUTED, anchor="middle")
        ranked = sorted(range(t.n), key=lambda s: (outcome.ranks[s], s))
        for i, seat in enumerate(ranked):
            ry = y + 76 + i * 20
            won = seat in outcome.winners
            out = outcome.eliminated[seat]
            c.text(x + 24, ry, f"{outcome.ranks[seat]}.", size=13, bold=won)
            c.text(x + 48, ry, _seat_name(seat) + ("  (eliminated)" if out else ""), size=13,
                   bold=won, fill=_MUTED if out else _INK)
            c.text(x + w - 24, ry, f"{outcome.scores[seat]} VP", size=13, bold=won,
                   anchor="end")
        return 200
    if v.auction_kind >= 0:
        item = v.auction_item
        if v.auction_kind == ITEM_ARTIFACT:
            spec = ARTIFACTS[item]
            name = ARTIFACT_NAMES[item]
            what = f"artifact {spec.letter}  \u00b7  {spec.vp} VP  \u00b7  min bid {spec.min_bid}"
        else:
            name = SENTINEL_NAMES[item]
            what = f"sentinel  \u00b7  min bid {SENTINEL_MIN_BID}"
        c.text(x + 14, y + 22, "AUCTION", size=11, fill=_MUTED, bold=True)
        c.text(x + w - 14, y + 22, f"opened by {_seat_name(v.auction_opener)}", size=11,
               fill=_MUTED, anchor="end")
        c.text(cx, y + 50, _words(name), size=20, bold=True, anchor="middle")
        c.text(cx, y + 70, what, size=11, fill=_MUTED, anchor="middle")
        if v.high_bidder >= 0:
            c.text(cx, y + 108, str(v.high_bid), size=32, bold=True, anchor="middle")
            bidder = v.high_bidder
            price = v.price(bidder, v.auction_kind, item, v.high_bid)
            c.text(cx, y + 128, f"high bid by {_seat_name(bidder)} (would pay {price})",
                   size=12, anchor="middle")
        else:
            c.text(cx, y + 108, "no bid yet", size=18, fill=_MUTED, anchor="middle")
        # every seat still in the game: bidding or passed
        px = x + 14
        py = y + 146
        for sv in t.seats:
            if sv.eliminated:
                continue
            seat = sv.seat
            passed = bool((v.passed >> seat) & 1)
            label = _seat_name(seat) + (" passed" if passed else "")
            width = _width(label, 11) + 12
            if px + width > x + w - 10:
                px = x + 14
                py += 24
            fill = "#e3dccb" if passed else ("#b9dfb5" if seat == v.high_bidder else "#e8f0e4")
            px += c.pill(px, py, label, fill, ink=_MUTED if passed else _INK) + 6
        return 200
    # no auction: the pending resolution, or whose turn it is
    phase = v.phase
    c.text(x + 14, y + 22, "NO AUCTION", size=11, fill=_MUTED, bold=True)
    lines: list[str] = []
    if phase == Phase.ROUND_END:
        head = f"round {v.round} scored"
        lines.append("phase 4 done; the next round's income comes next")
    else:
        head = f"{_seat_name(v.turn_player)}'s turn"
        used = [b.name.lower() for b in (Block.GEMS, Block.KNOWLEDGE, Block.AUCTION)
                if (v.blocks_used >> b) & 1]
        block = Block(v.block)
        if block != Block.NONE:
            lines.append(f"open block: {block.name.lower()}")
        lines.append(f"blocks used: {', '.join(used) or 'none'}")
        if phase == Phase.DEBT:
            lines.append(f"{_seat_name(v.debtor)} sells gems to pay "
                         f"{t.game.read_state().debt_item_price}")
        elif phase == Phase.FREE_LEVEL:
            lines.append(f"{_seat_name(v.current_player)} places {v.free_levels} free level(s)")
        elif phase == Phase.LOSE_GEM:
            lines.append("returning an active gem: " + ", ".join(map(_seat_name, v.victims)))
    c.text(cx, y + 70, head, size=20, bold=True, anchor="middle")
    for i, line in enumerate(lines):
        c.text(cx, y + 100 + i * 20, line, size=12, fill=_MUTED, anchor="middle")
    return 200


def _sentinels(c: _Canvas, t: _Table, x: float, y: float, w: float) -> float:
    v = t.view
    owners = v.sentinel_owner
    c.text(x, y + 14, "Sentinels", size=14, bold=True)
    c.text(x + 82, y + 14, f"{v.sentinels_acquired} acquired  \u00b7  the game ends at "
           f"{SENTINELS_TO_END}", size=11, fill=_MUTED)
    cell_w = (w - 12) / 3
    for s in Sen:
        sx = x + (s % 3) * (cell_w + 6)
        sy = y + 24 + (s // 3) * 58
        owner = owners[s]
        if owner == -1:
            fill, stroke, ink = "#fff4cf", "#d6b24a", _INK
            status = f"open  \u00b7  min {SENTINEL_MIN_BID}"
        elif owner >= 0:
            fill, stroke, ink = "#efeae0", _SEAT_COLOURS[owner % 6], _MUTED
            status = _seat_name(owner)
        else:
            fill, stroke, status, ink = "#dcdcdc", "#a0a0a0", "out of the game", "#8a8a8a"
        c.rect(sx, sy, cell_w, 50, fill, rx=6, stroke=stroke, sw=2 if owner >= 0 else 1.2)
        c.text(sx + cell_w / 2, sy + 21, SENTINEL_NAMES[s], size=13, bold=True, anchor="middle",
               fill=ink)
        c.text(sx + cell_w / 2, sy + 39, status, size=10.5, anchor="middle",
               fill=_SEAT_COLOURS[owner % 6] if owner >= 0 else _MUTED, bold=owner >= 0)
    return 24 + 3 * 58 - 8


def _strip(c: _Canvas, t: _Table, x: float, y: float, w: float) -> float:
    """Turn order with the price modifiers, then the supplies (also a legend of the colours)."""
    v = t.view
    c.text(x, y + 14, "turn order", size=11, fill=_MUTED)
    px = x + 80
    for position, seat in enumerate(v.turn_order):
        label = (f"{POSITION_NAMES[position]}  {_seat_name(seat)}  "
                 f"{_signed(v.art_mod[seat])} / {_signed(v.sen_mod[seat])}")
        px += c.pill(px, y + 1, label, "#f7f1e3", stroke=_SEAT_COLOURS[seat % 6]) + 8
    c.text(px + 4, y + 14, "(price modifier on artifacts / sentinels)", size=11, fill=_MUTED)
    y += 28
    c.text(x, y + 14, "gem supply", size=11, fill=_MUTED)
    px = x + 80
    for gem in Gem:
        c.gem(px + 9, y + 9, gem)
        label = f"{GEM_NAMES[gem]} {v.gem_supply[gem]}"
        c.text(px + 22, y + 14, label, size=11)
        px += 30 + _width(label, 11)
    y += 26
    c.text(x, y + 14, "energy", size=11, fill=_MUTED)
    decks = v.deck_sizes
    discards = v.discards
    supply = v.concentrated_supply
    column = (w - 80) / NUM_COLOURS
    for colour in Colour:
        px = x + 80 + colour * column
        c.card(px, y - 1, colour, "", w=14, h=20)
        label = (f"deck {decks[colour]}  \u00b7  discards {len(discards[colour])}  \u00b7  "
                 f"concentrated {supply[colour]}")
        c.text(px + 19, y + 14, label, size=11)
    return 78


def _table(t: _Table, top: float, out: _Canvas) -> float:
    """The central table band; returns its height."""
    c = _Canvas()
    inner = WIDTH - 2 * _MARGIN - 28
    sent_w = 330.0
    auction_w = 330.0
    display_w = inner - sent_w - auction_w - 2 * 20
    h_display = _display(c, t, 14, 14, display_w)
    h_auction = _auction(c, t, 14 + display_w + 20, 14, auction_w)
    h_sent = _sentinels(c, t, 14 + display_w + auction_w + 40, 14, sent_w)
    y = 14 + max(h_display, h_auction, h_sent) + 12
    c.parts.append(f'<line x1="14" y1="{y:g}" x2="{inner + 14:g}" y2="{y:g}" '
                   f'stroke="{_LINE}"/>')
    y += 10
    y += _strip(c, t, 14, y, inner)
    height = y + 6
    out.rect(_MARGIN, top, WIDTH - 2 * _MARGIN, height, _TABLE, rx=12, stroke="#b7ab90", sw=1.5)
    out.open(_MARGIN, top, ' id="table"')
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
    t = _Table(game, seat)
    body = _Canvas()
    _header(body, t)
    cols = _COLUMNS[t.n]
    pw = (WIDTH - 2 * _MARGIN - (cols - 1) * _GAP) / cols
    seats = list(range(t.n))
    rows = [seats[i : i + cols] for i in range(0, t.n, cols)]
    y: float = _HEADER_H
    y += _panels(t, y, pw, rows[0], body) + _GAP + 4
    y += _table(t, y, body) + _GAP + 4
    for row in rows[1:]:
        y += _panels(t, y, pw, row, body) + _GAP
    height = int(y + _MARGIN - _GAP)
    title = f"The Scepter of Zavandor, round {t.view.round}"
    return "".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="{_FONT}">',
            f"<title>{_esc(title)}</title>",
            f'<rect width="{WIDTH}" height="{height}" fill="{_BG}"/>',
            *body.parts,
            "</svg>",
        ]
    )


# The palettes must cover every kind the tables define (a new gem or colour would fail here).
assert len(_GEM_COLOURS) == len(GEM_NAMES) and len(_CARD_COLOURS) == NUM_COLOURS
assert set(_LETTER_COLOURS) == {a.letter for a in ARTIFACTS}
