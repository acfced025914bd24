"""Rendering for the environments: the spectator's view of the whole table.

``"ansi"`` returns :func:`zavandor_env.engine.text.describe` (every hand shown in full);
``"human"`` prints the same text with terminal colours: headings in bold, the deciding seat
highlighted, the legal actions dimmed.  A seat's own hidden-information view for human play
lives in ``agents.table``.
"""

from __future__ import annotations

from ..engine import Game
from ..engine.text import describe

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
