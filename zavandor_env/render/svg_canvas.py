"""The SVG picture's drawing primitives, what it is drawn from, and a player's panel.

:class:`Canvas` writes SVG elements into a list of strings (joined once at the end);
:class:`Scene` holds the seats as the viewer may see them plus the public table.  The geometry
and palette constants are shared by the panels (here) and the table (``svg``).  Each panel is
drawn at the origin by a short sequence of named steps, each returning the next free ``y``;
:func:`draw_panels` places one row of them on the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import TYPE_CHECKING, Final

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
    TOKEN_COLOUR,
    TOKEN_VALUE,
    Art,
    Colour,
    Field,
    Gem,
    token_name,
)
from zavandor_env.engine.names import ARTIFACT_NAMES, SENTINEL_NAMES
from zavandor_env.engine.state import Phase
from zavandor_env.engine.view import PlayerView, SeatView

if TYPE_CHECKING:
    from zavandor_env.engine.game import Game

# ---- geometry (the page's own, and the table's colours, are in ``svg``) ----------------------
MARGIN: Final = 16
GAP: Final = 12
COLUMNS: Final = {2: 2, 3: 3, 4: 2, 5: 3, 6: 3}  # players -> panel columns
# Estimated advance of one character, in ems, for a generic sans-serif face; used only to
# wrap pills and shorten long lines, so a little generosity is safer than precision.
_EM: Final = 0.6
_EM_BOLD: Final = 0.68

# ---- palette ---------------------------------------------------------------------------------
PANEL: Final = "#fbf8f1"
PANEL_OUT: Final = "#c9c9c9"
INK: Final = "#2b2b2b"
MUTED: Final = "#7a7466"
LINE: Final = "#d8cfbb"
GOLD: Final = "#f2b705"
RED_INK: Final = "#b3261e"

# Fill and outline per gem kind; opals and diamonds are pale, so their outline does the work.
GEM_COLOURS: Final = {
    Gem.OPAL: ("#efe6f6", "#8e7fae"),
    Gem.SAPPHIRE: ("#2f66d0", "#1b3f86"),
    Gem.EMERALD: ("#1f9d55", "#11603a"),
    Gem.DIAMOND: ("#dff4ff", "#4b94bf"),
    Gem.RUBY: ("#cf2140", "#7e1023"),
}
# Fill, outline and ink per card colour (the colour of the gem that produces it).
CARD_COLOURS: Final = {
    Colour.BLUE: ("#2f66d0", "#1b3f86", "#ffffff"),
    Colour.GREEN: ("#1f9d55", "#11603a", "#ffffff"),
    Colour.WHITE: ("#f7f7f2", "#8b8b80", "#2b2b2b"),
    Colour.RED: ("#cf2140", "#7e1023", "#ffffff"),
}
# Header colour per seat: distinct from each other and from the card colours.
SEAT_COLOURS: Final = ("#6d4c9f", "#b86e12", "#14807f", "#a63d64", "#4f6d8f", "#5f7f25")
# Artifact cards are dealt in letters A-D (cheap to dear); each letter has its own tint.
LETTER_COLOURS: Final = {"A": "#9cc5a1", "B": "#8fb3dc", "C": "#c9a3dc", "D": "#e6bb5c"}
DUST: Final = ("#e3b94f", "#9a7420")
_GEM_POINTS: Final = ((-8, -2), (-4, -7), (4, -7), (8, -2), (0, 8))  # a brilliant-cut outline


def esc(text: str) -> str:
    """Text made safe for element content and attribute values."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def words(name: str) -> str:
    """A table name for people: ``"magic_mirror"`` -> ``"magic mirror"``."""
    return name.replace("_", " ")


def text_width(text: str, size: float, bold: bool = False) -> float:
    return len(text) * size * (_EM_BOLD if bold else _EM)


def seat_name(seat: int) -> str:
    return f"player_{seat}"  # the environments' agent names


class Canvas:
    """An SVG fragment being written: a list of strings joined once at the end."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, *, rx: float = 0,
             stroke: str | None = None, sw: float = 1, extra: str = "") -> None:
        line = f' stroke="{stroke}" stroke-width="{sw:g}"' if stroke else ""
        corner = f' rx="{rx:g}"' if rx else ""
        self.parts.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}"{corner} '
                          f'fill="{fill}"{line}{extra}/>')

    def text(self, x: float, y: float, text: str, *, size: float = 12, fill: str = INK,
             bold: bool = False, anchor: str = "", italic: bool = False, cls: str = "") -> None:
        optional = (("font-weight", "bold" if bold else ""),
                    ("font-style", "italic" if italic else ""), ("text-anchor", anchor),
                    ("class", cls))
        attrs = f' font-size="{size:g}" fill="{fill}"' + "".join(
            f' {key}="{value}"' for key, value in optional if value)
        self.parts.append(f'<text x="{x:g}" y="{y:g}"{attrs}>{esc(text)}</text>')

    def gem(self, x: float, y: float, gem: int, faded: bool = False) -> None:
        fill, stroke = GEM_COLOURS[Gem(gem)]
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
        fill, stroke, ink = CARD_COLOURS[Colour(colour)]
        self.rect(x, y, w, h, fill, rx=3, stroke=stroke, sw=1.2)
        if conc:
            self.rect(x + 3, y + 3, w - 6, h - 6, "none", rx=2, stroke=ink, sw=1)
        self.text(x + w / 2, y + h / 2 + 4.5, label, size=12, fill=ink, bold=True, anchor="middle")

    def pill(self, x: float, y: float, text: str, fill: str, *, ink: str = INK,
             size: float = 11, stroke: str | None = None, bold: bool = False) -> float:
        """A rounded label; returns its width."""
        w = text_width(text, size, bold) + 12
        self.rect(x, y, w, size + 8, fill, rx=(size + 8) / 2, stroke=stroke)
        self.text(x + w / 2, y + size + 2.5, text, size=size, fill=ink, anchor="middle", bold=bold)
        return w

    def open(self, x: float, y: float, extra: str = "") -> None:
        self.parts.append(f'<g transform="translate({x:g},{y:g})"{extra}>')

    def close(self) -> None:
        self.parts.append("</g>")


class Scene:
    """What the picture is drawn from: the seats as the viewer may see them, plus the public
    table.  Built from :class:`PlayerView` for a seat; for the spectator every seat is an
    own-seat view, which shows everything."""

    __slots__ = ("game", "view", "seats", "viewer", "n")

    def __init__(self, game: Game, seat: int | None) -> None:
        state = game.state
        self.game = game
        self.n = state.config.num_players
        self.viewer = -1 if seat is None else seat
        # The spectator's: only the public, table-wide parts of seat 0's view are read.
        self.view = PlayerView(state, 0 if seat is None else seat)
        self.seats: tuple[SeatView, ...] = (self.view.players if seat is not None else
                                            tuple(SeatView(p, True) for p in state.players))

    @property
    def over(self) -> bool:
        return self.view.is_over

    def deciding(self) -> int:
        """The seat to decide now (-1 when nobody does)."""
        if self.over or self.view.phase == Phase.ROUND_END:
            return -1
        return self.view.current_player


# ---- a player's panel -----------------------------------------------------------------------
def _tags(t: Scene, sv: SeatView) -> list[tuple[str, str, str]]:
    """(text, fill, ink) labels for a seat's header line, most important first."""
    v = t.view
    seat = sv.seat
    tags: list[tuple[str, str, str]] = []
    if sv.eliminated:
        tags.append(("ELIMINATED", "#555555", "#ffffff"))
    if t.over:
        outcome = t.game.outcome()
        if seat in outcome.winners:
            tags.append(("WINNER", GOLD, INK))
        tags.append((f"rank {outcome.ranks[seat]}", "#e3dccb", INK))
        return tags
    if seat == t.deciding():
        tags.append(("DECIDING", GOLD, INK))
    if seat == v.turn_player and v.phase != Phase.ROUND_END and not sv.eliminated:
        tags.append(("TURN", "#3d5a6c", "#ffffff"))
    if v.auction_kind >= 0 and not sv.eliminated:
        if seat == v.high_bidder:
            tags.append(("HIGH BID", "#2f7d3b", "#ffffff"))
        elif (v.passed >> seat) & 1:
            tags.append(("passed", "#ddd6c6", MUTED))
        else:
            tags.append(("bidding", "#e8f0e4", "#2f7d3b"))
    if seat == t.viewer:
        tags.append(("YOU", "#22303a", "#ffffff"))
    return tags


def _card_values(sv: SeatView, colour: int) -> list[int]:
    hand = sv.hand  # own seat only: a view raises on anyone else's
    return [TOKEN_VALUE[token] for token in range(NUM_CARD_TOKENS)
            if TOKEN_COLOUR[token] == colour for _ in range(hand[token])]


def _values_text(values: Sequence[int], room: float, size: float) -> str:
    """Card values as ``"5 5 7"``; as ``"5x2 7"`` if that is too wide; cut with '...' last."""
    plain = " ".join(map(str, values))
    if text_width(plain, size) <= room:
        return plain
    counted = [(value, len(list(same))) for value, same in groupby(values)]
    runs = [f"{value}\u00d7{k}" if k > 1 else str(value) for value, k in counted]
    short = " ".join(runs)
    while runs and text_width(short, size) > room:
        runs.pop()
        short = " ".join(runs) + " \u2026"
    return short


def _panel(t: Scene, sv: SeatView, pw: float) -> tuple[Canvas, float]:
    """One seat's panel drawn at the origin; returns it and its height."""
    c = Canvas()
    _title(c, sv, pw)
    _position(c, t, sv, pw, 44)
    y = _gems(c, sv, pw, 44 + 28)
    y = _hand(c, sv, pw, y + 8)
    y = _dust_and_sages(c, sv, pw, y)
    y = _knowledge(c, sv, pw, y + 8)
    return c, _holdings(c, sv, pw, y) + 4


def _title(c: Canvas, sv: SeatView, pw: float) -> None:
    """The header strip: name, character, VP."""
    seat = sv.seat
    accent = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    c.rect(0, 0, pw, 34, accent, rx=8)
    c.rect(0, 26, pw, 8, accent)
    name = seat_name(seat)
    c.text(12, 23, name, size=16, fill="#ffffff", bold=True)
    c.text(12 + text_width(name, 16, True) + 8, 22, CHARACTERS[sv.character].name, size=12,
           fill="#f1e9ff", italic=True)
    c.text(pw - 12, 24, f"{sv.vp} VP", size=18, fill="#ffffff", bold=True, anchor="end")
    now = sv.current_vp if not sv.eliminated else 0
    if now != sv.vp:  # VP drive turn order only when scored in phase 4; show the live count
        c.text(pw - 14 - text_width(f"{sv.vp} VP", 18, True), 22, f"now {now}", size=11,
               fill="#f1e9ff", anchor="end")


def _position(c: Canvas, t: Scene, sv: SeatView, pw: float, y: float) -> None:
    """The position in turn order with its price modifiers, and the status tags."""
    seat = sv.seat
    v = t.view
    order = v.turn_order
    if seat in order:
        position = order.index(seat)
        c.parts.append(f'<circle cx="22" cy="{y + 9}" r="11" fill="#3d3a33"/>')
        c.text(22, y + 13, POSITION_NAMES[position], size=11, fill="#ffffff", bold=True,
               anchor="middle")
        c.text(40, y + 13, f"artifacts {v.art_mod[seat]:+d}  \u00b7  sentinels "
               f"{v.sen_mod[seat]:+d}", size=11, fill=MUTED)
    else:
        c.text(12, y + 13, "not in the turn order", size=11, fill=MUTED)
    x = pw - 10
    for text, fill, ink in _tags(t, sv):
        x -= text_width(text, 10, True) + 12
        c.pill(x, y + 1, text, fill, ink=ink, size=10, bold=True)
        x -= 5


def _gems(c: Canvas, sv: SeatView, pw: float, y: float) -> float:
    """Gems: active on the spiral, inactive in the pentagon."""
    slot_w = min(70.0, (pw - 96) / 5)
    for label, counts in (
        (f"spiral {sum(sv.active)}/{sv.active_slots}", sv.active),
        ("pentagon", sv.inactive),
    ):
        c.text(12, y + 14, label, size=11, fill=MUTED)
        for gem in Gem:
            gx = 96 + gem * slot_w
            n = counts[gem]
            c.gem(gx + 9, y + 9, gem, faded=n == 0)
            c.text(gx + 21, y + 14, str(n), size=12, fill=INK if n else "#b9b2a2", bold=n > 0)
        y += 24
    c.parts.append(f'<line x1="10" y1="{y + 3}" x2="{pw - 10:g}" y2="{y + 3}" '
                   f'stroke="{LINE}"/>')
    return y


def _hand(c: Canvas, sv: SeatView, pw: float, y: float) -> float:
    """The hand: one cell per colour (cards, their values where visible, concentrated cards)."""
    shows_hand = sv.is_own  # the spectator's seats are all "own"
    load = f"load {sv.hand_load}/{sv.hand_limit}"
    worth = f"value {sv.hand_value}" if shows_hand else f"public value {sv.known_value}"
    c.text(12, y + 13, "hand", size=11, fill=MUTED)
    over = sv.hand_load > sv.hand_limit
    c.text(96, y + 13, load, size=11, fill=RED_INK if over else INK, bold=over)
    c.text(96 + text_width(load, 11, over) + 12, y + 13, worth, size=11)
    if sv.balance:
        owed = f"owes {sv.balance}" if sv.balance > 0 else f"sale proceeds {-sv.balance}"
        c.text(pw - 12, y + 13, owed, size=11, fill=RED_INK, anchor="end")
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
            c.text(cx, y + 46, "face down", size=11, fill=MUTED, italic=True)
    y += 56
    return y


def _dust_and_sages(c: Canvas, sv: SeatView, pw: float, y: float) -> float:
    """Dust chits, the concentrated cards by name, and the 9-Sages cards under the turn card."""
    conc = sv.concentrated
    shows_hand = sv.is_own
    dust = sv.dust
    total = sum(chit * k for chit, k in zip(DUST_CHITS, dust))
    c.parts.append(f'<circle cx="24" cy="{y + 8}" r="9" fill="{DUST[0]}" '
                   f'stroke="{DUST[1]}" stroke-width="1.2"/>')
    c.text(38, y + 12, f"dust {total}", size=11, bold=True)
    chits = "  ".join(f"{chit}\u00d7{k}" for chit, k in zip(DUST_CHITS, dust) if k)
    if chits:
        c.text(38 + text_width(f"dust {total}", 11, True) + 8, y + 12, f"({chits})", size=11,
               fill=MUTED)
    if any(conc):  # names the double-framed cards of the columns above
        held = ", ".join(f"{k} {COLOUR_NAMES[col]} ({CONCENTRATED_VALUE[col] * k})"
                         for col, k in enumerate(conc) if k)
        c.text(pw - 12, y + 12, f"concentrated: {held}", size=11, fill=MUTED, anchor="end")
    y += 20
    # 9-Sages cards wait under the turn-order card until next round
    if sv.sages_count or sv.sages_dust:
        if shows_hand:
            parts = [token_name(tok) for tok in sv.sages_tokens]
        else:
            parts = [f"{sv.sages_count} card{'s' if sv.sages_count != 1 else ''}"]
        if sv.sages_dust:
            parts.append(f"dust {sv.sages_dust}")
        c.text(12, y + 12, "under turn card: " + ", ".join(parts), size=11, fill=MUTED,
               cls="vals" if shows_hand else "")
        y += 18
    c.parts.append(f'<line x1="10" y1="{y + 2}" x2="{pw - 10:g}" y2="{y + 2}" '
                   f'stroke="{LINE}"/>')
    return y


def _knowledge(c: Canvas, sv: SeatView, pw: float, y: float) -> float:
    """Knowledge: six fields, four levels each, and the chips bought."""
    c.text(12, y + 12, "knowledge", size=11, fill=MUTED)
    bought = [str(cost) for cost, b in zip(CHIP_COSTS, sv.chips_bought) if b]
    chips = f"chips bought: {' '.join(bought) or 'none'}"
    if sv.pentagon_chips:
        chips += f"  \u00b7  {sv.pentagon_chips} to place"
    c.text(pw - 12, y + 12, chips, size=11, fill=MUTED, anchor="end")
    y += 18
    field_w = (pw - 20) / 3
    for field in Field:
        fx = 10 + (field % 3) * field_w
        fy = y + (field // 3) * 20
        level = sv.levels[field]
        top = level == MAX_LEVEL
        c.text(fx + 2, fy + 12, words(FIELD_NAMES[field]), size=11,
               fill=INK if level else "#a39c8c")
        for k in range(MAX_LEVEL):  # gold pips mark a field at the top level
            px = fx + field_w - 10 - (MAX_LEVEL - 1 - k) * 9
            fill = (GOLD if top else "#6b5a3e") if k < level else "none"
            c.parts.append(f'<circle cx="{px:g}" cy="{fy + 8}" r="3.6" fill="{fill}" '
                           f'stroke="#8c7b5c" stroke-width="1"/>')
    y += 44
    return y


def _holdings(c: Canvas, sv: SeatView, pw: float, y: float) -> float:
    """Artifacts and sentinels as labels that wrap."""
    for label, items in (
        ("artifacts", [(ARTIFACT_NAMES[a] + (f" \u00d7{k}" if k > 1 else ""),
                        LETTER_COLOURS[ARTIFACTS[a].letter])
                       for a, k in zip(Art, sv.artifacts) if k]),
        ("sentinels", [(f"{SENTINEL_NAMES[s]} {sv.sentinel_vp(s)} VP", "#f5d77a")
                       for s in sv.sentinels]),
    ):
        c.text(12, y + 13, label, size=11, fill=MUTED)
        x = 78.0
        if not items:
            c.text(x, y + 13, "none", size=11, fill="#b9b2a2")
        for text, fill in items:
            w = text_width(words(text), 11) + 12
            if x + w > pw - 10 and x > 78:
                x = 78
                y += 22
            x += c.pill(x, y, words(text), fill) + 5
        y += 24
    return y


def draw_panels(t: Scene, top: float, pws: float, seats: Sequence[int], out: Canvas) -> float:
    """Draw one row of panels at ``top``; returns the row's height."""
    drawn = [_panel(t, t.seats[s], pws) for s in seats]
    height = max(h for _, h in drawn)
    cols = COLUMNS[t.n]
    row_w = len(seats) * pws + (len(seats) - 1) * GAP
    full = cols * pws + (cols - 1) * GAP
    x = MARGIN + (full - row_w) / 2  # a short last row is centred
    deciding = t.deciding()
    for seat, (panel, _) in zip(seats, drawn):
        sv = t.seats[seat]
        if seat == deciding:  # a gold halo around the seat whose decision it is
            out.rect(x - 4, top - 4, pws + 8, height + 8, "none", rx=11, stroke=GOLD, sw=4)
        out.rect(x, top, pws, height, PANEL_OUT if sv.eliminated else PANEL, rx=8)
        extra = ' opacity="0.45"' if sv.eliminated else ""
        out.open(x, top, f' id="seat-{seat}"{extra}')
        out.parts.extend(panel.parts)
        out.close()
        x += pws + GAP
    return height


# The palettes must cover every kind the tables define (a new gem or colour would fail here).
assert len(GEM_COLOURS) == len(GEM_NAMES) and len(CARD_COLOURS) == NUM_COLOURS
assert set(LETTER_COLOURS) == {a.letter for a in ARTIFACTS}
