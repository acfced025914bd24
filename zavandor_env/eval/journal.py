"""An append-only JSON-lines journal that survives ``kill -9`` and a full disk.

Line 1 is a header (what the entries belong to); every later line is one entry, appended,
flushed and fsynced as soon as it exists, so a process killed at any moment loses at most the
entry it was writing.  Reading back (:func:`read_journal_checked`) drops that torn last line
(a line without its newline: the write was cut short), and :meth:`Journal.append_after` cuts
it off the file before anything is appended; any other damage is refused in one line
(:class:`JournalError`), since silently skipping a finished entry would change what the
journal says happened.  The file is read as a bounded stream
(:mod:`zavandor_env.io.journals`): each line is checked by the caller as it is read, so a
junk line stops the read at once instead of after the whole file is held in memory.  A
journal is never opened through a symlink.

The tournament streams its finished games here (``games.jsonl``, see
:mod:`zavandor_env.eval.tournament`) so that ``zavandor eval --resume`` plays only the games
that are missing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TypeVar

from zavandor_env.io.files import UntrustedInputError, write_atomic
from zavandor_env.io.journals import read_journal_stream

T = TypeVar("T")


class JournalError(ValueError):
    """The journal cannot be read back (damaged, foreign, too large); one line."""


class Journal:
    """An open journal, appending; made by :meth:`create` or :meth:`reopen`."""

    def __init__(self, path: Path, handle: IO[bytes]) -> None:
        self.path = path
        self._handle = handle

    @classmethod
    def create(cls, path: str | Path, header: dict[str, Any]) -> Journal:
        """A new journal holding only ``header`` (replacing any file at ``path`` at once)."""
        path = Path(path)
        write_atomic(path, _line(header))
        return cls(path, _open_append(path))

    @classmethod
    def append_after(cls, path: str | Path, intact: int) -> Journal:
        """An existing journal open to append more, once it is cut to its first ``intact``
        bytes (what :func:`read_journal_checked` read back: a torn last line is dropped, since
        appending after it would glue the next entry onto it)."""
        path = Path(path)
        handle = _open_append(path)
        if intact < os.fstat(handle.fileno()).st_size:
            os.truncate(handle.fileno(), intact)
        return cls(path, handle)

    def append(self, entry: Any) -> None:
        """Write ``entry`` as one line and make it durable before returning."""
        self._handle.write(_line(entry).encode("utf-8"))
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def _open_append(path: Path) -> IO[bytes]:
    """``path`` open to append, never through a symlink (one planted where the journal is
    would carry our games into another file)."""
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags), "ab")


def _line(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False) + "\n"


def read_journal_checked(
    path: str | Path,
    check_entry: Callable[[Any, str], T],
    check_header: Callable[[dict[str, Any], str], None] | None = None,
) -> tuple[dict[str, Any], list[T], int]:
    """``(header, entries, intact_bytes)``: the journal's lines and how many bytes of the file
    they fill (less than its size when the last line is torn), read as a bounded stream
    (:func:`~zavandor_env.io.journals.read_journal_stream`), each entry passed through
    ``check_entry(value, where)`` as it is read (what it returns is kept) and the header
    through ``check_header``; the first bad line stops the read with one
    :class:`JournalError` line naming the file and line."""
    try:
        read = read_journal_stream(path, check_entry, what="journal", check_header=check_header)
    except UntrustedInputError as exc:
        message = str(exc)
        if " line " in message and "has no header" not in message:
            message += " (the journal is damaged)"
        raise JournalError(message) from None
    return read.header, read.entries, read.intact


def read_journal_header(path: str | Path) -> dict[str, Any]:
    """The header of the journal at ``path``, reading no further than its first line (bounded
    like every line); :class:`JournalError` when it has none."""

    class _Stop(Exception):
        pass

    found: dict[str, Any] = {}

    def keep(header: dict[str, Any], _where: str) -> None:
        found.update(header)
        raise _Stop

    try:
        read_journal_checked(path, lambda value, _where: value, check_header=keep)
    except _Stop:
        return found
    raise JournalError(f"{path} has no header line: it is not a journal this tool wrote")
