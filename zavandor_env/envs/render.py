"""Rendering for the environments (one place for both): the spectator's view of the table.

* ``"ansi"`` returns :func:`zavandor_env.engine.text.describe` (every hand shown in full);
* ``"human"`` prints the same text with terminal colours (headings in bold, the deciding seat
  highlighted, the legal actions dimmed): the machines this runs on rarely have a screen;
* ``"rgb_array"`` returns the picture of :func:`zavandor_env.engine.svg.to_svg` as an
  H x W x 3 ``uint8`` array (Gymnasium's convention; needs the ``render`` extra, part of ``rl``).

A seat's own hidden-information view for human play lives in ``zavandor_env.agents.table``
(text) and ``game.to_svg(seat=k)`` (picture).
"""

from __future__ import annotations

from typing import Any

from ..engine import Game
from ..engine.text import describe

RENDER_MODES = ("ansi", "human", "rgb_array")

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_HIGHLIGHT = "\033[1;93m"


def render_text(game: Game, colour: bool = False) -> str:
    """The whole table as text (with ANSI colours when ``colour`` is true)."""
    text = describe(game, name=lambda seat: f"player_{seat}")
    if not colour:
        return text
    lines = []
    for line in text.splitlines():
        if line.startswith("player_") and "deciding" in line.split(":", 1)[0]:
            line = f"{_HIGHLIGHT}{line}{_RESET}"
        elif line.startswith(("Round ", "player_", "Auction:", "Pending:")):
            line = f"{_BOLD}{line}{_RESET}"
        elif line.startswith("Legal actions:"):
            line = f"{_DIM}{line}{_RESET}"
        lines.append(line)
    return "\n".join(lines)


def check_render_mode(render_mode: str | None) -> None:
    """Refuse an unknown render mode in one line."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, "
                         f"got {render_mode!r}")


def render(game: Game | None, render_mode: str | None) -> Any:
    """What ``env.render()`` returns in ``render_mode`` (text, an RGB array, or ``None``)."""
    if render_mode is None:
        import gymnasium

        gymnasium.logger.warn("render() called without a render_mode; pass render_mode="
                              f"one of {RENDER_MODES} when making the environment")
        return None
    if game is None:
        raise RuntimeError("call reset() before render()")
    if render_mode == "rgb_array":
        from .picture import frame  # lazy: the rasteriser is an optional dependency

        return frame(game)
    if render_mode == "ansi":
        return render_text(game, colour=False)
    print(render_text(game, colour=True))
    return None
