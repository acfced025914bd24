"""JSON-lines journals read back as a stream, each line checked as it is read.

A journal (``games.jsonl`` of ``zavandor eval``, ``games_<n>p.jsonl`` of the ladder) is a
header line and one line per finished game.  It comes back from disk -- possibly from someone
else -- so :func:`read_journal_stream` never holds more than one unchecked line:

* the file is opened without following a symlink and must be a regular file;
* its size is bounded before anything is read (:data:`~.limits.MAX_JOURNAL_BYTES`), each line
  while it is read (:data:`~.limits.MAX_JOURNAL_LINE_BYTES`) and the count of lines
  (:data:`~.limits.MAX_JOURNAL_LINES`);
* each line is parsed as untrusted JSON (:func:`~.files.parse_json`: bounded depth, finite
  numbers), every integer in it must fit a signed 64-bit integer (what seeds and the native
  core take; ``10**400`` would overflow the first float it meets), and then it goes to the
  caller's check, which keeps only what it needs;
* the first bad line stops the read with one line naming the file and the line number.

A last line without its newline is the torn write of a killed process: it is dropped, and
``intact`` says how many bytes the good lines fill, so the writer can cut the file there
before appending.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from zavandor_env.io.files import UntrustedInputError, integers, open_regular, parse_json
from zavandor_env.io.limits import (
    MAX_JOURNAL_BYTES,
    MAX_JOURNAL_LINE_BYTES,
    MAX_JOURNAL_LINES,
    MAX_SEED,
)

T = TypeVar("T")


class JournalReadError(UntrustedInputError):
    """A journal is too large, damaged or not what its reader expects; one line."""


@dataclass
class JournalRead(Generic[T]):
    """What :func:`read_journal_stream` read: the header, the checked entries and how many
    bytes of the file the intact lines fill."""

    header: dict[str, Any]
    entries: list[T]
    intact: int


def check_integers(value: Any, where: str, bound: int = MAX_SEED) -> None:
    """Refuse an integer of magnitude above ``bound`` anywhere in ``value`` (walked without
    recursion: the value comes from a file)."""
    for item in integers(value):
        if not -bound <= item <= bound:
            raise JournalReadError(f"{where} holds an integer of {len(str(abs(item)))} digits: "
                                   "out of range")


def read_journal_stream(path: str | Path, check_entry: Callable[[Any, str], T], *,
                        what: str = "journal",
                        check_header: Callable[[dict[str, Any], str], None] | None = None,
                        max_bytes: int = MAX_JOURNAL_BYTES, max_lines: int = MAX_JOURNAL_LINES,
                        max_line_bytes: int = MAX_JOURNAL_LINE_BYTES) -> JournalRead[T]:
    """Read the journal at ``path`` line by line (see the module docstring).

    ``check_header(header, where)`` sees the first line (a JSON object, else refused);
    ``check_entry(value, where)`` each later one, parsed, and returns what to keep.  ``where``
    is ``"<path> line <n>"``.  A check refuses a line by raising any ``ValueError`` with one
    line; it propagates unchanged.  Size, syntax and number problems raise
    :class:`JournalReadError`.
    """
    path = Path(path)
    fd = open_regular(path, what=what, error=JournalReadError)
    with os.fdopen(fd, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > max_bytes:
            raise JournalReadError(f"{what} {str(path)!r} is larger than {max_bytes:,} bytes")
        header: dict[str, Any] | None = None
        entries: list[T] = []
        intact, number = 0, 0
        while line := fh.readline(max_line_bytes + 1):
            number += 1
            where = f"{path} line {number}"
            if not line.endswith(b"\n"):
                if len(line) > max_line_bytes:
                    raise JournalReadError(f"{where} is longer than {max_line_bytes:,} bytes")
                break  # the torn last line of a killed write: dropped
            if number > max_lines + 1 or intact + len(line) > max_bytes:
                raise JournalReadError(f"{what} {str(path)!r} holds more than {max_lines:,} "
                                       f"entries or {max_bytes:,} bytes")
            value = parse_json(line, what=where, max_bytes=max_line_bytes)
            check_integers(value, where)
            if header is None:
                if not isinstance(value, dict):
                    break  # refused below
                if check_header is not None:
                    check_header(value, where)
                header = value
            else:
                entries.append(check_entry(value, where))
            intact += len(line)
    if header is None:
        raise JournalReadError(f"{path} has no header line: it is not a journal this tool "
                               "wrote")
    return JournalRead(header, entries, intact)
