"""Typed readers of named parameters from outside (agent specs, ``key=value`` options).

A parameter is declared once, with what it allows, as a :class:`Param`: :class:`Int`,
:class:`Number`, :class:`Flag`, :class:`Choice`, :class:`Text`, :class:`FilePath`,
:class:`Table` or :class:`Function`.  :func:`check_params` reads a mapping against such a
declaration and refuses the first bad value with one line that names the owner, the
parameter, the value and what is allowed, so a value is checked when it is read, not where it
is first used (a search's first decision, hours into a tournament).

Paths are the sharpest edge: a spec value ``0`` is the integer 0, and ``open(0)`` reads the
process's standard input and then closes it (``open(1)`` closes standard output, any ``N`` a
worker's pipe or a journal).  :func:`regular_file` is the one check of a path from outside:
text only (never an integer), and, when it exists, a regular file (never a FIFO, a device or
a folder, whose reads block or never end).  Readers call it again just before they open.

Every refusal is a :class:`ParamError` (a :class:`~zavandor_env.io.files.UntrustedInputError`,
so a ``ValueError``).
"""

from __future__ import annotations

import math
import numbers
import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zavandor_env.io.files import UntrustedInputError

#: Longest value quoted in an error message (a longer one is cut, with its length).
MAX_SHOWN_CHARS = 60


class ParamError(UntrustedInputError):
    """A named parameter is unknown, of the wrong type, out of its range, or names a file
    that cannot be one (one line: owner, parameter, value, what is allowed)."""


def shown(value: object) -> str:
    """``value`` for an error message: its repr, cut to :data:`MAX_SHOWN_CHARS` (an integer
    too long to print is described by its size: Python refuses to print one of 4,300
    digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 190:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    if len(text) > MAX_SHOWN_CHARS:
        return f"{text[:MAX_SHOWN_CHARS]}... ({len(text):,} characters)"
    return text


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (whatever a library wrote), or its class name."""
    return " ".join(str(exc).split()) or type(exc).__name__


@dataclass(frozen=True, kw_only=True)
class Param:
    """One parameter: what it allows (:meth:`allowed`) and its check (:meth:`check`).
    ``optional``: None is allowed too (the default of many parameters)."""

    optional: bool = False

    def allowed(self) -> str:
        """What the parameter takes, in words (the end of an error line)."""
        raise NotImplementedError

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` (not None) is allowed."""
        raise NotImplementedError

    def check(self, value: Any) -> None:
        """``ValueError`` with what the value must be (:meth:`allowed`, or a more precise
        reason) unless it is allowed."""
        if value is None and self.optional:
            return
        if not self.accepts(value):
            raise ValueError(self.allowed())

    def _or_none(self, text: str) -> str:
        return f"{text}, or none" if self.optional else text


def _integer(value: Any) -> int | None:
    """``value`` as an int when it is an integer (not a bool, not a float), else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


@dataclass(frozen=True, kw_only=True)
class Int(Param):
    """A whole number in ``[low, high]`` (a float such as 3.0 is refused: a count is exact)."""

    low: int
    high: int

    def allowed(self) -> str:
        return self._or_none(f"an integer in [{self.low}, {self.high}]")

    def accepts(self, value: Any) -> bool:
        number = _integer(value)
        return number is not None and self.low <= number <= self.high

    def check(self, value: Any) -> None:
        number = _integer(value)
        if number is not None and number > self.high:
            raise ValueError(f"at most {self.high}")
        if number is not None and number < self.low:
            raise ValueError({0: "a non-negative integer", 1: "a positive integer"}.get(
                self.low, f"at least {self.low}"))
        super().check(value)


@dataclass(frozen=True, kw_only=True)
class Number(Param):
    """A finite number (integer or decimal) in ``[low, high]``; ``(low, ...`` when
    ``open_low``; ``high`` None: no upper bound but finiteness."""

    low: float
    high: float | None = None
    open_low: bool = False

    def allowed(self) -> str:
        low = "(" if self.open_low else "["
        if self.high is None:
            return self._or_none(f"a finite number in {low}{self.low:g}, inf)")
        return self._or_none(f"a number in {low}{self.low:g}, {self.high:g}]")

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False
        try:
            x = float(value)
        except (OverflowError, ValueError):  # an integer too large for a float
            return False
        if not math.isfinite(x) or x < self.low or (self.open_low and x == self.low):
            return False
        return self.high is None or x <= self.high


@dataclass(frozen=True, kw_only=True)
class Flag(Param):
    """``true`` or ``false`` (a string such as ``"maybe"`` is not taken as true)."""

    def allowed(self) -> str:
        return self._or_none("true or false")

    def accepts(self, value: Any) -> bool:
        return type(value) is bool


@dataclass(frozen=True, kw_only=True)
class Choice(Param):
    """One of ``options`` (exact strings)."""

    options: tuple[str, ...]

    def allowed(self) -> str:
        return self._or_none("one of " + ", ".join(self.options))

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.options


@dataclass(frozen=True, kw_only=True)
class Text(Param):
    """A string that matches ``pattern`` in full."""

    pattern: str
    what: str

    def allowed(self) -> str:
        return self._or_none(self.what)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and re.fullmatch(self.pattern, value) is not None


@dataclass(frozen=True, kw_only=True)
class FilePath(Param):
    """The path of a regular file (see :func:`regular_file`): text, never an integer; a
    missing file is left to the reader, which names it (a spec may be written before its
    file, e.g. a ladder's ``{n}``; so is its format).  ``resolve`` maps the text to the file
    read (e.g. a path relative to the package)."""

    what: str
    resolve: Callable[[str], Path] | None = None

    def allowed(self) -> str:
        return self._or_none(f"the path of a {self.what} (text, not a number)")

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (str, os.PathLike))

    def check(self, value: Any) -> None:
        super().check(value)
        if value is None:
            return
        try:
            regular_file(value, what=self.what, resolve=self.resolve, must_exist=False)
        except ParamError as exc:
            raise ValueError(f"the path of a regular file ({exc})") from None


@dataclass(frozen=True, kw_only=True)
class Table(Param):
    """A mapping (from YAML), or an instance of ``types`` (from Python), checked as a whole
    by ``validate`` (which raises ``ValueError`` or ``TypeError`` for a bad one)."""

    what: str
    types: tuple[type, ...] = ()
    validate: Callable[[Any], object] | None = None

    def allowed(self) -> str:
        return self._or_none(f"a mapping of {self.what} (in a YAML agent entry)")

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (Mapping, *self.types))

    def check(self, value: Any) -> None:
        super().check(value)
        if value is None or self.validate is None:
            return
        try:
            self.validate(value)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"a valid mapping of {self.what} ({one_line(exc)})") from None


@dataclass(frozen=True, kw_only=True)
class Function(Param):
    """A Python function (set in Python only: no spec string or YAML value is one)."""

    def allowed(self) -> str:
        return self._or_none("a Python function (set in Python only)")

    def accepts(self, value: Any) -> bool:
        return callable(value)


#: A declaration: parameter name -> what it allows.
Schema = Mapping[str, Param]


def check_params(owner: str, schema: Schema, params: Mapping[str, Any]) -> None:
    """Refuse the first parameter of ``params`` that ``schema`` lacks or does not allow.

    Raises:
        ParamError: ``"{owner}: unknown key ..."`` or ``"{owner}: KEY must be WHAT IS
            ALLOWED, got VALUE"`` (one line).
    """
    for key, value in params.items():
        param = schema.get(key) if isinstance(key, str) else None
        if param is None:
            raise ParamError(f"{owner}: unknown key {shown(key)}; known keys: "
                             f"{', '.join(sorted(schema))}")
        try:
            param.check(value)
        except ValueError as exc:
            raise ParamError(f"{owner}: {key} must be {one_line(exc)}, "
                             f"got {shown(value)}") from None


def regular_file(path: Any, *, what: str, resolve: Callable[[str], Path] | None = None,
                 must_exist: bool = True) -> Path:
    """``path`` as a :class:`~pathlib.Path` that names a regular file, or one line why not.

    An integer (or a bool) is refused whatever it is: ``open()`` takes it as a file
    descriptor.  An empty path or one with a NUL byte is refused; so is anything that is not a
    regular file (a folder, a FIFO or a device such as ``/dev/stdin`` or ``/dev/zero``, whose
    reads block or never end).  A missing file is refused only when ``must_exist``.

    Raises:
        ParamError: the reason, naming ``what`` and the path.
    """
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise ParamError(f"{what}: a path must be text, got {shown(path)} (a number is not a "
                         "path)")
    text = os.fspath(path)
    if not isinstance(text, str) or not text or "\0" in text:
        raise ParamError(f"{what}: {shown(text)} is not a usable path")
    resolved = resolve(text) if resolve is not None else Path(text)
    try:
        mode = os.stat(resolved).st_mode
    except FileNotFoundError:
        if must_exist:
            raise ParamError(f"{what} {str(resolved)!r} does not exist") from None
        return resolved
    except (OSError, ValueError) as exc:  # too long a name, a loop of links, no permission
        reason = getattr(exc, "strerror", None) or one_line(exc)
        raise ParamError(f"cannot read {what} {str(resolved)!r}: {reason}") from None
    if not stat.S_ISREG(mode):
        raise ParamError(f"{what} {str(resolved)!r} is not a regular file")
    return resolved


__all__ = ["Choice", "FilePath", "Flag", "Function", "Int", "Number", "Param", "ParamError",
           "Schema", "Table", "Text", "check_params", "regular_file", "shown"]
