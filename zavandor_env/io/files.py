"""Files a stranger may send, and files we must never leave half-written.

Every reader of JSON or YAML that a user can hand us (saved games, replays, configs, run
folders, tuning files) goes through :func:`parse_json` / :func:`parse_yaml`, and every file
we write goes through :func:`write_atomic`, so that one place decides:

* **size**: text past ``max_bytes`` is refused before it is parsed;
* **depth**: nesting past :data:`MAX_DEPTH` is refused in one line (a 100,000-deep
  ``[[[...]]]`` was a ``RecursionError`` from inside ``json`` or PyYAML, or later from ours);
* **values**: JSON's ``NaN``/``Infinity`` and floats that overflow (``1e400``) are refused, and
  so are integers with more digits than Python converts (``ValueError`` far from the file);
* **YAML**: only plain data by the YAML 1.2 core schema (no base-60 ``1:30``, no dates, no
  ``yes``/``no`` booleans), read in linear time: no tags (``!!python/...``, ``!!binary``,
  ``!!set``...), no aliases (``*a``), whose expansion is the "billion laughs" bomb, no
  duplicate keys, numbers of at most 64 characters, at most 10,000 values
  (:mod:`~zavandor_env.io.plain_yaml`);
* **writes**: a temporary file beside the target, flushed and synced, then renamed over it,
  so a reader (or a full disk, or ``kill -9``) never leaves a half-written or empty file.

Errors are :class:`UntrustedInputError` (a ``ValueError``) with a one-line message that names
``what`` was read; callers wrap it in their own error type when they have one.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Final

#: Deepest nesting of lists/objects accepted in any file we read (our deepest is about 5).
MAX_DEPTH: Final = 64
#: Default size cap of a config or tuning file.
MAX_CONFIG_BYTES: Final = 1 << 20
#: Default size cap of a saved game, a replay or a run folder's JSON.
MAX_RECORD_BYTES: Final = 64 << 20


class UntrustedInputError(ValueError):
    """A file or text from outside is too large, too deep, not of its format, or not data."""


def read_bounded(path: str | Path, *, what: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, refused with one line when it is larger than
    ``max_bytes``, is no regular file (a FIFO would block the reader forever, a device never
    end) or cannot be read (the file is never read past the cap).

    ``path`` must be a path: ``open()`` takes an integer as a file descriptor (``0`` reads
    stdin, and closing it closes the descriptor), so a number from a file or a spec that
    reached here would be a system call, not a file name."""
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise UntrustedInputError(f"{what} must be a file name, got {type(path).__name__} "
                                  f"{str(path)[:40]!r}")
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise UntrustedInputError(f"{what} {str(path)!r} is not a regular file")
            chunks, size = [], 0
            while size <= max_bytes and (chunk := os.read(fd, min(1 << 20,
                                                                 max_bytes + 1 - size))):
                chunks.append(chunk)
                size += len(chunk)
            data = b"".join(chunks)
        finally:
            os.close(fd)
    except OSError as exc:
        raise UntrustedInputError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") \
            from None
    if len(data) > max_bytes:
        raise UntrustedInputError(f"{what} {str(path)!r} is larger than {max_bytes:,} bytes")
    return data


def open_regular(path: str | Path, *, what: str,
                 error: type[UntrustedInputError] = UntrustedInputError) -> int:
    """A read-only descriptor of the regular file ``path``, opened without following a symlink
    or blocking (a FIFO, a device), else ``error`` with one line why not."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        reason = ("it is a symlink" if os.path.islink(path) else exc.strerror or str(exc))
        raise error(f"cannot read {what} {str(path)!r}: {reason}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise error(f"{what} {str(path)!r} is not a regular file")
    return fd


def _text(data: str | bytes, what: str, max_bytes: int) -> str:
    if not isinstance(data, (str, bytes)):
        raise UntrustedInputError(f"{what} must be text, got {type(data).__name__}")
    if len(data) > max_bytes:  # of text, characters: a cheap bound that lets no more bytes in
        raise UntrustedInputError(f"{what} is larger than {max_bytes:,} bytes")
    try:
        return data if isinstance(data, str) else data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UntrustedInputError(f"{what} is not UTF-8 text (byte {exc.start})") from None


def _check_depth(value: Any, what: str, max_depth: int) -> None:
    """Refuse parsed data nested deeper than ``max_depth`` (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            if depth > max_depth:
                raise UntrustedInputError(f"{what} nests deeper than {max_depth} levels")
            stack.extend((item, depth + 1) for item in v if isinstance(item, (list, dict)))


def integers(value: Any) -> Iterator[int]:
    """Every integer (not a bool) in ``value`` and its lists and mappings, in order, walked
    without recursion (the value may come from a file)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            stack.extend(reversed(list(item.values()) if isinstance(item, dict) else item))
        elif isinstance(item, int) and not isinstance(item, bool):
            yield item


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def parse_json(data: str | bytes, *, what: str, max_bytes: int = MAX_RECORD_BYTES,
               max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON from outside: bounded in size and depth, finite numbers only."""
    text = _text(data, what, max_bytes)
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:  # json's C parser stops at the interpreter's recursion limit
        raise UntrustedInputError(f"{what} nests deeper than {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, a refused constant, too many digits
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UntrustedInputError(f"{what} is not valid JSON: {first}") from None
    _check_depth(value, what, max_depth)  # shallower than the recursion limit, still too deep
    return value


def load_json(path: str | Path, *, what: str, max_bytes: int = MAX_RECORD_BYTES) -> Any:
    """:func:`parse_json` of a file, read no further than ``max_bytes``."""
    return parse_json(read_bounded(path, what=what, max_bytes=max_bytes),
                      what=f"{what} {str(path)!r}", max_bytes=max_bytes)


def parse_yaml(data: str | bytes, *, what: str, max_bytes: int = MAX_CONFIG_BYTES,
               max_depth: int = MAX_DEPTH) -> Any:
    """Parse YAML from outside as plain data (mappings, lists, strings, numbers, booleans,
    null) by the YAML 1.2 core schema: bounded in size, depth, node count and number length,
    no tags, no aliases, no duplicate keys, finite numbers only
    (:mod:`~zavandor_env.io.plain_yaml`)."""
    import yaml

    from zavandor_env.io.plain_yaml import plain_data_loader

    text = _text(data, what, max_bytes)
    try:  # the loader counts depth itself: PyYAML recurses only when composing nodes
        return yaml.load(text, Loader=plain_data_loader(max_depth))  # noqa: S506 - safe subclass
    except RecursionError:
        raise UntrustedInputError(f"{what} nests too deeply") from None
    except yaml.YAMLError as exc:
        # PyYAML's messages span lines (context, marks): keep what and where, on one line.
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise UntrustedInputError(f"{what} is not valid YAML: {problem}{where}") from None


def load_yaml(path: str | Path, *, what: str, max_bytes: int = MAX_CONFIG_BYTES) -> Any:
    """:func:`parse_yaml` of a file, read no further than ``max_bytes``."""
    return parse_yaml(read_bounded(path, what=what, max_bytes=max_bytes),
                      what=f"{what} {str(path)!r}", max_bytes=max_bytes)


def write_atomic(path: str | Path, content: str | bytes | Callable[[IO[bytes]], object], *,
                 sync: bool = True) -> Path:
    """Replace ``path`` by ``content`` all at once (a reader sees the old or the new file).

    ``content`` is text (written as UTF-8), bytes, or a function that writes into the open
    binary file (e.g. ``lambda fh: np.savez(fh, **arrays)``).  The temporary file is made
    beside ``path`` and removed if anything fails (a full disk, an exception in ``content``),
    so no ``.tmp`` or empty file is left behind; the error propagates unchanged.
    """
    path = Path(path)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                        dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as fh:
            if isinstance(content, str):
                fh.write(content.encode("utf-8"))
            elif isinstance(content, bytes):
                fh.write(content)
            else:
                content(fh)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.chmod(tmp_name, 0o644)  # mkstemp's 0600 would hide a report from its reader
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise
    return path

