"""The one way configs are checked: pydantic dataclasses, and one-line errors from them.

Game, training and agent parameters are pydantic dataclasses (types, bounds and descriptions in
``Annotated[..., Field(...)]``, plain defaults, so ``dataclasses.fields`` reads as for any
dataclass).  :func:`checked` makes one, whose constructor raises the project's own error class
with one line naming the key instead of pydantic's multi-line ``ValidationError``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass as pydantic_dataclass
from typing_extensions import dataclass_transform

#: The checking every config shares: a type is taken as written (a YAML ``"yes"`` or an int 1
#: is no bool, ``"3"`` no int), unknown keys are refused, NaN and infinities are no number.
STRICT = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)

_UNKNOWN = ("unexpected_keyword_argument", "extra_forbidden")
#: The project's words for pydantic's common error types (``{ge}`` etc. from the error's
#: context): "n_envs must be >= 1, got 0", as the hand-written checks said it.
_WORDS = {
    "int_type": "must be an integer", "int_parsing": "must be an integer",
    "int_from_float": "must be an integer", "float_type": "must be a number",
    "float_parsing": "must be a number", "finite_number": "must be a finite number",
    "bool_type": "must be true or false", "bool_parsing": "must be true or false",
    "string_type": "must be a string", "list_type": "must be a list",
    "tuple_type": "must be a list", "dict_type": "must be a mapping",
    "greater_than_equal": "must be >= {ge}", "greater_than": "must be > {gt}",
    "less_than_equal": "must be <= {le}", "less_than": "must be < {lt}",
    "literal_error": "must be {expected}", "too_short": "must hold at least {min_length} entries",
    "too_long": "must hold at most {max_length} entries",
}
T = TypeVar("T", bound=type)


def one_line(exc: ValidationError, *, label: str = "{}", what: str = "key",
             known: Sequence[str] = ()) -> str:
    """The first problem of ``exc`` as one line: unknown keys first (with the closest known
    one), else the first error, its key written through ``label`` (e.g. ``"config key {!r}"``).

    A check raising ``ValueError`` with no key (one across fields) gives its message as is.
    """
    errors = exc.errors(include_url=False)
    unknown = [str(e["loc"][-1]) for e in errors if e["type"] in _UNKNOWN and e["loc"]]
    if unknown:
        names = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            names.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        return f"unknown {what} {', '.join(names)}; known: {', '.join(known)}"
    error = errors[0]
    loc = error["loc"]
    cause = error.get("ctx", {}).get("error")
    if error["type"] == "value_error" and isinstance(cause, ValueError):
        text = str(cause)  # our own check's words (pydantic would prefix "Value error, ")
        return f"{_key(loc, label)} {text}" if loc else text
    words = _WORDS.get(error["type"])
    if words is not None:
        message = " " + words.format(**error.get("ctx", {}))
    else:  # a rarer check: pydantic's own words
        message = ": " + error["msg"][0].lower() + error["msg"][1:]
    shown = repr(error["input"])  # a file may hold a megabyte value: the line stays short
    shown = shown if len(shown) <= 80 else f"{shown[:77]}..."
    return f"{_key(loc, label)}{message}, got {shown}"

def _key(loc: tuple[Any, ...], label: str) -> str:
    """``("opponent_weights", "random")`` -> ``config key 'opponent_weights' ['random']``."""
    if not loc:
        return "config"
    head = label.format(loc[0])
    return head + "".join(f"[{part!r}]" for part in loc[1:] if part != "[key]")


@dataclass_transform(field_specifiers=(dataclasses.field, Field))
def checked(error: type[Exception], *, what: str = "key", label: str = "{}",
            frozen: bool = False) -> Callable[[T], T]:
    """Class decorator: a pydantic dataclass checked by :data:`STRICT`, whose constructor
    raises ``error`` with :func:`one_line`'s message instead of a ``ValidationError``
    (``dataclasses.replace`` goes through the same constructor, so it is checked too).
    ``what`` names a key in the unknown-key message, ``label`` formats a key in the others."""

    def decorate(cls: T) -> T:
        made: Any = pydantic_dataclass(frozen=frozen, config=STRICT)(cls)
        init = vars(made)["__init__"]  # the one pydantic made
        known = [f.name for f in dataclasses.fields(made) if f.init]

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            try:
                init(self, *args, **kwargs)
            except ValidationError as exc:
                raise error(one_line(exc, label=label, what=what, known=known)) from None

        made.__init__ = __init__
        return made  # type: ignore[no-any-return]

    return decorate
