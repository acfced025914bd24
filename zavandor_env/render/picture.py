"""Pixels of the table, for ``render_mode="rgb_array"``: the engine's SVG, rasterised.

:func:`frame` draws a game with :func:`zavandor_env.render.svg.to_svg` and rasterises it with
resvg (the ``resvg-py`` wheel: a self-contained Rust renderer, no system libraries), decoding
its PNG with Pillow.  Both come with the ``render`` extra (``pip install "zavandor-env[render]"``,
also part of ``rl``); they are imported on first use, so the rest of the package works without
them.  Text is drawn with the machine's fonts (a generic sans-serif face), so two machines with
different fonts give slightly different pixels.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import numpy as np

from zavandor_env.extras import require
from zavandor_env.render.svg import to_svg

if TYPE_CHECKING:
    from zavandor_env.engine import Game


def svg_to_rgb(svg: str, width: int | None = None) -> np.ndarray:
    """Rasterise an SVG document to an ``H x W x 3`` ``uint8`` array on a white background.

    Args:
        svg: the SVG text.
        width: the width in pixels (the height keeps the aspect ratio); ``None`` keeps the
            document's own size.

    Raises:
        ImportError: the ``render`` extra is not installed (the message names it).
        ValueError: the SVG cannot be drawn, or ``width`` is not a positive integer.
    """
    if width is not None and (isinstance(width, bool) or not isinstance(width, int)
                              or width <= 0):
        raise ValueError(f"width must be None or a positive integer, got {width!r}")
    require("render", "rasterising the table")  # one clear error before the imports
    import resvg_py
    from PIL import Image

    options: dict[str, Any] = {"svg_string": svg, "background": "#ffffff"}
    if width is not None:
        options["width"] = width
    png = resvg_py.svg_to_bytes(**options)
    with Image.open(io.BytesIO(bytes(png))) as picture:
        # the background is opaque, so dropping alpha loses nothing
        return np.asarray(picture.convert("RGB"), dtype=np.uint8)


def frame(game: Game, seat: int | None = None, width: int | None = None) -> np.ndarray:
    """The table as an ``H x W x 3`` ``uint8`` image: :func:`svg_to_rgb` of ``to_svg``.

    ``seat=None`` is the spectator's view; a seat index shows only what that seat may know.
    """
    return svg_to_rgb(to_svg(game, seat), width)
