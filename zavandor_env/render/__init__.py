"""Pictures and text of the table, for people.

* ``svg`` draws a game as one SVG document (``svg_canvas``: the drawing primitives, palette,
  what a viewer may see and a player's panel); ``picture`` rasterises it;
* ``text``: the referee's dump (``describe``) and one seat's view for human play
  (``render_view``), from one writer;
* ``modes``: the environments' ``render()`` modes.
"""
