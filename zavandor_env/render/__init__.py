"""Pictures and text of the table, for people.

* ``svg`` draws a game as one SVG document (``svg_canvas``: the drawing primitives, palette,
  what a viewer may see and a player's panel); ``picture`` rasterises it;
* ``text``: the referee's dump (``describe``) and one seat's view for human play
  (``render_view``), from one writer;
* ``modes``: the environments' ``render()`` modes.

``describe(game)`` and ``to_svg(game, seat=None)`` are exported here: the engine's ``Game`` does
not draw itself, since the engine imports nothing above it.
"""

from zavandor_env.render.svg import to_svg
from zavandor_env.render.text import describe

__all__ = ["describe", "to_svg"]
