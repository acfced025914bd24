"""Pixels of the table, for ``render_mode="rgb_array"``: the picture's SVG, painted with Pillow.

:func:`zavandor_env.render.svg.to_svg` is the one picture of the table; this module paints it.
The SVG it writes uses a small fixed vocabulary (``rect``, ``circle``, ``polygon``,
``polyline``, ``line``, ``text``, ``g`` translated, element opacity and one dash pattern), so
:func:`svg_to_rgb` paints exactly that vocabulary with Pillow's C drawing, and refuses any
other element or attribute in one line rather than drawing it wrong.  A general renderer
(resvg, used before) shaped and filled every string of every frame and encoded a PNG to hand
the pixels over: 60-120 ms a 4-player frame.  Here each distinct string is rasterised once
and reused (:func:`_label`), so a frame costs a few milliseconds of drawing and pasting.

Text is drawn in DejaVu Sans when the machine has it (the SVG's first choice), else in
Pillow's own scalable face, so two machines with different fonts give slightly different
pixels.  Pillow comes with the ``render`` extra (``pip install "zavandor-env[render]"``, also
part of ``rl``) and is imported on first use, so the rest of the package works without it.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from zavandor_env.extras import require
from zavandor_env.render.svg import to_svg

if TYPE_CHECKING:
    from PIL import Image as PILImage
    from PIL import ImageDraw as PILDraw

    from zavandor_env.engine import Game

_NS = "{http://www.w3.org/2000/svg}"
#: The largest picture painted, in pixels a side (a 6-player table at full size is ~1,700).
MAX_SIDE = 8192
#: Every attribute each element of the table's SVG may carry; anything else is refused.
_ATTRIBUTES = {
    "rect": {"x", "y", "width", "height", "rx", "fill", "stroke", "stroke-width",
             "stroke-dasharray"},
    "circle": {"cx", "cy", "r", "fill", "stroke", "stroke-width"},
    "polygon": {"points", "fill", "stroke", "stroke-width", "stroke-linejoin", "opacity"},
    "polyline": {"points", "fill", "stroke", "stroke-width", "opacity"},
    "line": {"x1", "y1", "x2", "y2", "stroke", "stroke-width"},
    "text": {"x", "y", "font-size", "fill", "font-weight", "font-style", "text-anchor",
             "class"},
    "g": {"transform", "id", "opacity"},
    "title": set(),
}
_TRANSLATE = re.compile(r"translate\(\s*(-?[\d.]+)\s*[, ]\s*(-?[\d.]+)\s*\)")
_ANCHORS = {"": "ls", "start": "ls", "middle": "ms", "end": "rs"}  # SVG -> Pillow (baseline)
_FONT_FILES = {(False, False): "DejaVuSans.ttf", (True, False): "DejaVuSans-Bold.ttf",
               (False, True): "DejaVuSans-Oblique.ttf",
               (True, True): "DejaVuSans-BoldOblique.ttf"}


def svg_to_rgb(svg: str, width: int | None = None) -> np.ndarray:
    """Paint the table's SVG (:func:`~zavandor_env.render.svg.to_svg`) as an ``H x W x 3``
    ``uint8`` array.

    Args:
        svg: an SVG document written by ``to_svg`` (its vocabulary only).
        width: the width in pixels (the height keeps the aspect ratio); ``None`` keeps the
            document's own size.

    Raises:
        ImportError: the ``render`` extra is not installed (the message names it).
        ValueError: ``width`` is not a positive integer, or the document is not one the table
            drawing writes (one line naming what is not).
    """
    if width is not None and (isinstance(width, bool) or not isinstance(width, int)
                              or width <= 0):
        raise ValueError(f"width must be None or a positive integer, got {width!r}")
    require("render", "rasterising the table")  # one clear error before the imports
    from PIL import Image, ImageDraw

    root = _parse(svg)
    doc_w, doc_h = _number(root, "width"), _number(root, "height")
    scale = 1.0 if width is None else width / doc_w
    size = (round(doc_w * scale), round(doc_h * scale))
    if not (0 < size[0] <= MAX_SIDE and 0 < size[1] <= MAX_SIDE):
        raise ValueError(f"a picture of {size[0]} x {size[1]} pixels is past the "
                         f"{MAX_SIDE}-pixel side this painter draws")
    image = Image.new("RGB", size, "#ffffff")
    _Painter(image, ImageDraw.Draw(image), scale).children(root, 0.0, 0.0)
    return np.asarray(image, dtype=np.uint8)


def frame(game: Game, seat: int | None = None, width: int | None = None) -> np.ndarray:
    """The table as an ``H x W x 3`` ``uint8`` image: :func:`svg_to_rgb` of ``to_svg``.

    ``seat=None`` is the spectator's view; a seat index shows only what that seat may know.
    """
    return svg_to_rgb(to_svg(game, seat), width)


# ---- reading the document ---------------------------------------------------------------------
def _parse(svg: str) -> ET.Element:
    """The document's root, refusing what ``to_svg`` never writes before parsing it (no
    declarations: an entity could expand a short text into gigabytes)."""
    if not isinstance(svg, str):
        raise ValueError(f"svg must be a str, got {type(svg).__name__}")
    if "<!" in svg:
        raise ValueError("the table's SVG has no declarations (<!DOCTYPE, <!ENTITY)")
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as exc:
        raise ValueError(f"not an SVG document: {exc}") from None
    if root.tag != f"{_NS}svg":
        raise ValueError(f"not an SVG document: the root element is {root.tag!r}")
    return root


def _number(element: ET.Element, key: str, default: float | None = None) -> float:
    text = element.get(key)
    if text is None:
        if default is None:
            raise ValueError(f"<{_tag(element)}> has no {key}")
        return default
    return _finite(element, key, text)


def _finite(element: ET.Element, key: str, text: str) -> float:
    """``text`` as a number within the painter's range, or one line naming the attribute."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"<{_tag(element)}> {key}={text[:20]!r} is not a number") from None
    if not math.isfinite(value) or abs(value) > 1e6:
        raise ValueError(f"<{_tag(element)}> {key}={text[:20]!r} is out of range")
    return value


def _tag(element: ET.Element) -> str:
    return element.tag.removeprefix(_NS)


def _points(element: ET.Element, dx: float, dy: float, scale: float) -> list[tuple[float, float]]:
    values = [_finite(element, "points", v)
              for v in re.split(r"[\s,]+", (element.get("points") or "").strip()) if v]
    if len(values) % 2 or len(values) < 4:
        raise ValueError(f"<{_tag(element)}> points must be x,y pairs")
    return [((x + dx) * scale, (y + dy) * scale) for x, y in zip(values[::2], values[1::2])]


# ---- painting ---------------------------------------------------------------------------------
class _Painter:
    """Paints the elements of the table's SVG onto one Pillow image, ``scale`` pixels a unit."""

    def __init__(self, image: PILImage.Image, draw: PILDraw.ImageDraw, scale: float) -> None:
        self.image, self.draw, self.scale = image, draw, scale
        self._paint: dict[str, Callable[[ET.Element, float, float], None]] = {
            "rect": self.rect, "circle": self.circle, "polygon": self.polygon,
            "polyline": self.polyline, "line": self.line, "text": self.text,
        }

    def children(self, parent: ET.Element, dx: float, dy: float) -> None:
        for element in parent:
            tag = _tag(element)
            allowed = _ATTRIBUTES.get(tag)
            if allowed is None:
                raise ValueError(f"the table painter draws the table's own SVG: <{tag}> is "
                                 "not part of it")
            unknown = sorted(set(element.attrib) - allowed)
            if unknown:
                raise ValueError(f"the table painter does not draw <{tag}> {unknown[0]}=")
            if tag == "g":
                ox, oy = self._translation(element)
                self._group(element, dx + ox, dy + oy, _number(element, "opacity", 1.0))
            elif tag != "title":
                opacity = _number(element, "opacity", 1.0)
                if opacity >= 1.0:
                    self._paint[tag](element, dx, dy)
                elif opacity > 0.0:
                    self._faded(element, dx, dy, opacity)

    def _group(self, element: ET.Element, dx: float, dy: float, opacity: float) -> None:
        """A group's children; at an ``opacity`` below 1 (an eliminated seat's panel) they are
        painted on the picture, which is then blended with a copy of itself from before."""
        if opacity >= 1.0:
            self.children(element, dx, dy)
            return
        from PIL import Image, ImageDraw

        before = self.image.copy()
        self.children(element, dx, dy)
        self.image.paste(Image.blend(before, self.image, max(opacity, 0.0)))
        self.draw = ImageDraw.Draw(self.image)

    @staticmethod
    def _translation(element: ET.Element) -> tuple[float, float]:
        text = element.get("transform")
        if text is None:
            return 0.0, 0.0
        match = _TRANSLATE.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"<g> transform={text[:30]!r}: only translate(x,y) is drawn")
        return float(match.group(1)), float(match.group(2))

    def _faded(self, element: ET.Element, dx: float, dy: float, opacity: float) -> None:
        """An element at ``opacity`` (only polygons and polylines carry one): painted on a
        copy of the few pixels it covers, then blended in."""
        from PIL import Image, ImageDraw

        xs, ys = zip(*_points(element, dx, dy, self.scale))
        pad = self._width(element) + 1
        box = (max(0, math.floor(min(xs)) - pad), max(0, math.floor(min(ys)) - pad),
               min(self.image.width, math.ceil(max(xs)) + pad + 1),
               min(self.image.height, math.ceil(max(ys)) + pad + 1))
        if box[0] >= box[2] or box[1] >= box[3]:
            return
        before = self.image.crop(box)
        after = before.copy()
        shifted = _Painter(after, ImageDraw.Draw(after), self.scale)
        shifted._paint[_tag(element)](element, dx - box[0] / self.scale,
                                      dy - box[1] / self.scale)
        self.image.paste(Image.blend(before, after, opacity), box[:2])

    def _width(self, element: ET.Element) -> int:
        return max(1, round(_number(element, "stroke-width", 1.0) * self.scale))

    @staticmethod
    def _colour(element: ET.Element, key: str, default: str | None) -> str | None:
        value = element.get(key, default)
        return None if value in (None, "none") else value

    def rect(self, element: ET.Element, dx: float, dy: float) -> None:
        s = self.scale
        x0, y0 = (_number(element, "x", 0.0) + dx) * s, (_number(element, "y", 0.0) + dy) * s
        x1 = x0 + _number(element, "width") * s - 1
        y1 = y0 + _number(element, "height") * s - 1
        if x1 < x0 or y1 < y0:
            return
        fill = self._colour(element, "fill", "#000000")
        stroke = self._colour(element, "stroke", None)
        dashed = element.get("stroke-dasharray")
        width = self._width(element)
        radius = _number(element, "rx", 0.0) * s
        self.draw.rounded_rectangle((x0, y0, x1, y1), radius=radius, fill=fill,
                                    outline=None if dashed else stroke, width=width)
        if dashed and stroke:
            pattern = [_finite(element, "stroke-dasharray", v) * s for v in dashed.split()]
            if len(pattern) != 2:
                raise ValueError(f"<rect> stroke-dasharray={dashed[:20]!r}: two lengths")
            on, off = pattern
            for a, b in ((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), \
                    ((x0, y1), (x0, y0)):
                for p, q in _dashes(a, b, on, off):
                    self.draw.line((p, q), fill=stroke, width=width)

    def circle(self, element: ET.Element, dx: float, dy: float) -> None:
        s = self.scale
        cx, cy = (_number(element, "cx") + dx) * s, (_number(element, "cy") + dy) * s
        r = _number(element, "r") * s
        self.draw.ellipse((cx - r, cy - r, cx + r, cy + r),
                          fill=self._colour(element, "fill", "#000000"),
                          outline=self._colour(element, "stroke", None),
                          width=self._width(element))

    def polygon(self, element: ET.Element, dx: float, dy: float) -> None:
        self.draw.polygon(_points(element, dx, dy, self.scale),
                          fill=self._colour(element, "fill", "#000000"),
                          outline=self._colour(element, "stroke", None),
                          width=self._width(element))

    def polyline(self, element: ET.Element, dx: float, dy: float) -> None:
        stroke = self._colour(element, "stroke", None)
        if stroke:
            self.draw.line(_points(element, dx, dy, self.scale), fill=stroke,
                           width=self._width(element))

    def line(self, element: ET.Element, dx: float, dy: float) -> None:
        s = self.scale
        stroke = self._colour(element, "stroke", None)
        if stroke:
            self.draw.line(((_number(element, "x1") + dx) * s, (_number(element, "y1") + dy) * s,
                            (_number(element, "x2") + dx) * s, (_number(element, "y2") + dy) * s),
                           fill=stroke, width=self._width(element))

    def text(self, element: ET.Element, dx: float, dy: float) -> None:
        content = element.text or ""
        if not content or len(element):
            return
        anchor = _ANCHORS.get(element.get("text-anchor", ""))
        if anchor is None:
            raise ValueError(f"<text> text-anchor={element.get('text-anchor')!r} is not drawn")
        size = _number(element, "font-size", 12.0) * self.scale
        ink = self._colour(element, "fill", "#000000")
        if ink is None:
            return
        mask, ox, oy = _label(content, round(size * 4) / 4,
                              element.get("font-weight") == "bold",
                              element.get("font-style") == "italic", anchor)
        x = round((_number(element, "x") + dx) * self.scale) + ox
        y = round((_number(element, "y") + dy) * self.scale) + oy
        self.image.paste(ink, (x, y), mask)


def _dashes(a: tuple[float, float], b: tuple[float, float], on: float,
            off: float) -> Iterator[tuple[tuple[float, float], tuple[float, float]]]:
    """The dash segments from ``a`` to ``b`` of the pattern ``on``, ``off``."""
    length = math.dist(a, b)
    if length == 0 or on <= 0:
        return
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    t = 0.0
    while t < length:
        end = min(t + on, length)
        yield (a[0] + ux * t, a[1] + uy * t), (a[0] + ux * end, a[1] + uy * end)
        t = end + max(off, 0.5)


@lru_cache(maxsize=16)
def _font(size: float, bold: bool, italic: bool) -> Any:
    """DejaVu Sans at ``size`` pixels, or Pillow's own scalable face where it is missing."""
    from PIL import ImageFont

    try:
        return ImageFont.truetype(_FONT_FILES[bold, italic], size)
    except OSError:
        return ImageFont.load_default(size)


@lru_cache(maxsize=4096)
def _label(text: str, size: float, bold: bool, italic: bool,
           anchor: str) -> tuple[PILImage.Image, int, int]:
    """A string as a coverage mask and its offset from the anchor point, rasterised once:
    a table's strings repeat from frame to frame, and drawing them is most of a frame's cost."""
    from PIL import Image, ImageDraw

    font = _font(size, bold, italic)
    left, top, right, bottom = (math.floor(v) for v in font.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left + 1), max(1, bottom - top + 1)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask, left, top
