"""An append-only JSON-lines journal that survives ``kill -9`` and a full disk.

Line 1 is a header (what the entries belong to); every later line is one entry, appended,
flushed and fsynced as soon as it exists, so a process killed at any moment loses at most the
entry it was writing.  Reading back (:func:`read_journal`) drops that torn last line (a line
without its newline: the write was cut short), and :meth:`Journal.append_after` cuts it off
the file before anything is appended; any other damage is refused in one line
(:class:`JournalError`), since silently skipping a finished entry would change what the
journal says happened.

The tournament streams its finished games here (``games.jsonl``, see
:mod:`zavandor_env.agents.tournament`) so that ``zavandor eval --resume`` plays only the games
that are missing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from zavandor_env.io.files import (
    MAX_RECORD_BYTES,
    UntrustedInputError,
    parse_json,
    write_atomic,
)


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
        return cls(path, open(path, "ab"))  # noqa: SIM115 - closed by close()

    @classmethod
    def append_after(cls, path: str | Path, intact: int) -> Journal:
        """An existing journal open to append more, once it is cut to its first ``intact``
        bytes (what :func:`read_journal` read back: a torn last line is dropped, since
        appending after it would glue the next entry onto it)."""
        path = Path(path)
        if intact < path.stat().st_size:
            os.truncate(path, intact)
        return cls(path, open(path, "ab"))  # noqa: SIM115 - closed by close()

    def append(self, entry: Any) -> None:
        """Write ``entry`` as one line and make it durable before returning."""
        self._handle.write(_line(entry).encode("utf-8"))
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _line(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False) + "\n"


def read_journal(path: str | Path, max_line_bytes: int = MAX_RECORD_BYTES,
                 ) -> tuple[dict[str, Any], list[Any], int]:
    """``(header, entries, intact_bytes)``: the journal's lines and how many bytes of the file
    they fill (less than its size when the last line is torn).  Every line is parsed as
    untrusted JSON (:func:`~zavandor_env.io.files.parse_json`)."""
    path = Path(path)
    values: list[Any] = []
    intact = 0
    try:
        with open(path, "rb") as fh:
            while line := fh.readline(max_line_bytes + 1):
                if not line.endswith(b"\n"):
                    if len(line) > max_line_bytes:
                        raise JournalError(f"{path} line {len(values) + 1} is longer than "
                                           f"{max_line_bytes:,} bytes")
                    break  # the torn last line of a killed write: dropped
                try:
                    values.append(parse_json(line, what=f"{path} line {len(values) + 1}",
                                             max_bytes=max_line_bytes))
                except UntrustedInputError as exc:
                    raise JournalError(f"{exc} (the journal is damaged)") from None
                intact += len(line)
    except OSError as exc:
        raise JournalError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not values or not isinstance(values[0], dict):
        raise JournalError(f"{path} has no header line: it is not a journal this tool wrote")
    return values[0], values[1:], intact
