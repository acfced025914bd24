"""Text from a file made safe to print to a terminal.

An agent label, a player name or a spec read from a replay or a tournament file is a
stranger's string: an ESC in it is an ANSI sequence that the terminal obeys (clear the
screen, rewrite the title, hide the lines before it), a carriage return overwrites what was
printed, a bidirectional override reverses what follows, and a lone surrogate (from a file
name that is not UTF-8) makes ``print`` itself raise.  :func:`terminal_safe` shows each such
character as its Python escape (``\\x1b``, ``\\r``, ``\\u202e``) instead, so the text stays
readable and the terminal stays as it was.

:func:`is_terminal` and :func:`colour_wanted` say whether the output goes to a person at a
terminal, the only place progress bars and colours belong.
"""

from __future__ import annotations

import os
import re
from typing import IO

# C0 controls but the newline, DEL and C1 controls; the bidirectional marks, embeddings,
# overrides and isolates; surrogates (not printable, not encodable).
_UNSAFE = "\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_IN_TEXT = re.compile(f"[{_UNSAFE}]")
_UNSAFE_IN_LINE = re.compile(f"[\n{_UNSAFE}]")


def _escape(match: re.Match[str]) -> str:
    return ascii(match.group())[1:-1]  # ascii("\x1b") is "'\\x1b'": drop the quotes


def terminal_safe(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character escaped (``"\\x1b[2J"`` prints as ``\\x1b[2J``).

    Newlines are kept (a report spans lines) unless ``one_line``, for a name printed inside
    a line.
    """
    pattern = _UNSAFE_IN_LINE if one_line else _UNSAFE_IN_TEXT
    return pattern.sub(_escape, text)


def is_terminal(stream: IO[str] | None) -> bool:
    """Whether ``stream`` is a terminal: progress bars and colours are drawn only there, so a
    redirected log gets plain lines (no carriage-return redraws, no ANSI sequences)."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # a closed or detached stream
        return False


def colour_wanted(stream: IO[str] | None, *, refused: bool = False) -> bool:
    """Whether to write ANSI colours to ``stream``: only to a terminal, never when the user
    refused them (``--no-colour``) or set ``NO_COLOR`` to any non-empty value (no-color.org)."""
    if refused or os.environ.get("NO_COLOR", ""):
        return False
    return is_terminal(stream)
