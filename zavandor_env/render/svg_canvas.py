"""The SVG picture's drawing primitives and what it is drawn from.

:class:`Canvas` writes SVG elements into a list of strings (joined once at the end);
:class:`Scene` holds the seats as the viewer may see them plus the public table.  The geometry
and palette constants are shared by the panel and table drawers (``svg_seats`` and ``svg``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from zavandor_env.engine.data import (
    ARTIFACTS,
    GEM_NAMES,
    NUM_COLOURS,
    Colour,
    Gem,
)
from zavandor_env.engine.state import Phase
from zavandor_env.engine.view import PlayerView, SeatView

if TYPE_CHECKING:
    from zavandor_env.engine.game import Game

# ---- geometry -------------------------------------------------------------------------------
WIDTH: Final = 1280
MARGIN: Final = 16
GAP: Final = 12
HEADER_H: Final = 64
COLUMNS: Final = {2: 2, 3: 3, 4: 2, 5: 3, 6: 3}  # players -> panel columns
# Estimated advance of one character, in ems, for a generic sans-serif face; used only to
# wrap pills and shorten long lines, so a little generosity is safer than precision.
_EM: Final = 0.6
_EM_BOLD: Final = 0.68
FONT: Final = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

# ---- palette ---------------------------------------------------------------------------------
BG: Final = "#22303a"
PANEL: Final = "#fbf8f1"
PANEL_OUT: Final = "#c9c9c9"
TABLE: Final = "#ece4d2"
CARD: Final = "#fffdf7"
INK: Final = "#2b2b2b"
MUTED: Final = "#7a7466"
LINE: Final = "#d8cfbb"
GOLD: Final = "#f2b705"
HEAD_INK: Final = "#f4ead2"
HEAD_MUTED: Final = "#a9b8c2"
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


def signed(n: int) -> str:
    return f"{n:+d}"


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
        attrs = f' font-size="{size:g}" fill="{fill}"'
        if bold:
            attrs += ' font-weight="bold"'
        if italic:
            attrs += ' font-style="italic"'
        if anchor:
            attrs += f' text-anchor="{anchor}"'
        if cls:
            attrs += f' class="{cls}"'
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


# The palettes must cover every kind the tables define (a new gem or colour would fail here).
assert len(GEM_COLOURS) == len(GEM_NAMES) and len(CARD_COLOURS) == NUM_COLOURS
assert set(LETTER_COLOURS) == {a.letter for a in ARTIFACTS}
