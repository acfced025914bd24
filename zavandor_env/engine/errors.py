"""Exceptions raised by the rules engine.

Every exception of the package survives pickling (a subprocess vector env, Ray or
multiprocessing hands it to the parent intact): one whose ``__init__`` takes other arguments
than its message mixes in :class:`PicklableError`, which rebuilds it from its ``args`` and
attributes (:func:`restore_exception`) without calling ``__init__`` again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zavandor_env.engine.actions import as_action_index


def restore_exception(cls: type[BaseException], args: tuple[Any, ...],
                      state: dict[str, Any]) -> BaseException:
    """Rebuild an exception of ``cls`` with these ``args`` and attributes (the unpickler's
    side of :meth:`PicklableError.__reduce__`)."""
    exc = cls.__new__(cls, *args)
    exc.args = args
    exc.__dict__.update(state)
    return exc


class PicklableError:
    """Mixed in first into an exception whose ``__init__`` takes other arguments than its
    message, so that it pickles (the default rebuilds it as ``cls(*args)``, which such an
    ``__init__`` refuses: "__init__() missing 2 required positional arguments" in the parent
    of a subprocess)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        exc: BaseException = self  # type: ignore[assignment]
        return (restore_exception, (type(exc), exc.args, dict(exc.__dict__)))


class IllegalActionError(PicklableError, ValueError):
    """An action was applied that is not legal now; the game state is left untouched.

    ``IllegalActionError(action, legal, names)`` names the action and the legal ones;
    ``IllegalActionError(message)`` (or another such error) keeps that message."""

    def __init__(self, action: object, legal: Sequence[int] | None = None,
                 names: Sequence[str] | None = None) -> None:
        if legal is None or names is None:
            # Rebuilt from a message or from another IllegalActionError: Gymnasium's
            # AsyncVectorEnv re-raises a worker's error as ``type(error)(error)``.
            self.action = getattr(action, "action", None)
            self.legal = tuple(getattr(action, "legal", ()))
            super().__init__(str(action))
            return
        self.action = action
        self.legal = tuple(legal)
        shown = ", ".join(f"{a} ({names[a]})" for a in self.legal)
        index = as_action_index(action)  # -1 unless an integer (NumPy's too), not a bool
        if 0 <= index < len(names):
            label = f"{index} ({names[index]})"
        else:  # out of range (a negative index would name the wrong action), or not an int
            label = repr(action)
        super().__init__(f"illegal action {label}; legal actions are: {shown}")


class ReplayError(ValueError):
    """A saved game or replay file is malformed or does not replay."""
