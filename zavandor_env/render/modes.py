"""Rendering for the environments (one place for both): the spectator's view of the table.

* ``"ansi"`` returns :func:`zavandor_env.render.text.describe` (every hand shown in full);
* ``"human"`` shows the picture of :func:`zavandor_env.render.svg.to_svg` in a live browser
  page and prints the text with terminal colours (headings in bold, the deciding seat
  highlighted, the legal actions dimmed), for machines without a screen;
* ``"rgb_array"`` returns the picture of :func:`zavandor_env.render.svg.to_svg` as an
  H x W x 3 ``uint8`` array (Gymnasium's convention; needs the ``render`` extra, part of ``rl``).

A seat's own hidden-information view for human play is ``zavandor_env.render.text.render_view``
(text) and ``to_svg(game, seat=k)`` (picture).
"""

from __future__ import annotations

import os
import sys
import tempfile
import webbrowser
from pathlib import Path
from typing import Any

from zavandor_env.engine import Game
from zavandor_env.extras import require
from zavandor_env.io.files import write_atomic
from zavandor_env.render.svg import to_svg
from zavandor_env.render.text import BOLD, DIM, RESET, describe

RENDER_MODES = ("ansi", "human", "rgb_array")

_HIGHLIGHT = "\033[1;93m"


def render_text(game: Game, colour: bool = False) -> str:
    """The whole table as text (with ANSI colours when ``colour`` is true)."""
    text = describe(game, name=lambda seat: f"player_{seat}")
    if not colour:
        return text
    lines = []
    for line in text.splitlines():
        if line.startswith("player_") and "deciding" in line.split(":", 1)[0]:
            line = f"{_HIGHLIGHT}{line}{RESET}"
        elif line.startswith(("Round ", "player_", "Auction:", "Pending:")):
            line = f"{BOLD}{line}{RESET}"
        elif line.startswith("Legal actions:"):
            line = f"{DIM}{line}{RESET}"
        lines.append(line)
    return "\n".join(lines)


class Renderer:
    """What ``env.render()`` returns in one render mode (text, an RGB array, or ``None``).

    ``"human"`` shows the picture of the table in a live browser page (a file rewritten at
    every render, which reloads itself every second; opened in the browser once where a
    display exists, its path printed once either way) and prints the coloured table to the
    terminal.
    """

    def __init__(self, render_mode: str | None) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, "
                             f"got {render_mode!r}")
        if render_mode == "rgb_array":  # refused now, not at the first render()
            require("render", 'render_mode="rgb_array"')
        self.render_mode = render_mode
        self.page: Path | None = None  # the live page of "human" mode, made on first use

    def __call__(self, game: Game | None) -> Any:
        mode = self.render_mode
        if mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode="
                                  f"one of {RENDER_MODES} when making the environment")
            return None
        if game is None:
            raise RuntimeError("call reset() before render()")
        if mode == "rgb_array":
            # lazy: the rasteriser is an optional dependency
            from zavandor_env.render.picture import frame

            return frame(game)
        if mode == "ansi":
            return render_text(game, colour=False)
        self._show_page(game)
        print(render_text(game, colour=True))
        return None

    def __getstate__(self) -> dict[str, Any]:
        """A copy (a pickled or deep-copied environment) renders on its own: no shared page."""
        return {"render_mode": self.render_mode, "page": None}

    def close(self) -> None:
        """Remove the live page and its folder (if any); a later render makes new ones."""
        if self.page is not None:
            self.page.unlink(missing_ok=True)
            try:
                self.page.parent.rmdir()
            except OSError:
                pass  # not empty (someone else's file) or gone: left as it is
            self.page = None

    def _show_page(self, game: Game) -> None:
        first = self.page is None
        if self.page is None:
            # A folder of its own, not an empty placeholder file: a first write that fails
            # (a full disk) leaves no empty page behind.
            self.page = Path(tempfile.mkdtemp(prefix="zavandor-")) / "table.html"
        # At once: a reload never sees half a page, a full disk leaves no temporary file.
        # Not synced: the page is rewritten at every render and worthless after a crash.
        write_atomic(self.page, _LIVE_PAGE.format(svg=to_svg(game)), sync=False)
        if first:
            print(f"zavandor: watching the table at {self.page.as_uri()}")
            if _has_display():
                webbrowser.open(self.page.as_uri())


def _has_display() -> bool:
    """A browser window can open here (not on a headless server, CI or an ssh session)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


_LIVE_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="1">
<title>zavandor: live table</title>
<style>body{{margin:0;background:#1f2933}} svg{{display:block;width:100%;height:auto}}</style>
</head><body>{svg}</body></html>
"""
