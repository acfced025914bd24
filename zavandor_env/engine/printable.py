"""Text from a file made safe to print to a terminal.

An agent label, a player name or a spec read from a replay or a tournament file is a
stranger's string: an ESC in it is an ANSI sequence that the terminal obeys (clear the
screen, rewrite the title, hide the lines before it), a carriage return overwrites what was
printed, a bidirectional override reverses what follows, and a lone surrogate (from a file
name that is not UTF-8) makes ``print`` itself raise.  :func:`terminal_safe` shows each such
character as its Python escape (``\\x1b``, ``\\r``, ``\\u202e``) instead, so the text stays
readable and the terminal stays as it was.
"""

from __future__ import annotations

import re

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
