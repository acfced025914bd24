"""Exceptions raised by the rules engine."""

from __future__ import annotations

from collections.abc import Sequence


class IllegalActionError(ValueError):
    """An action was applied that is not legal now; the game state is left untouched."""

    def __init__(self, action: object, legal: Sequence[int], names: Sequence[str]) -> None:
        self.action = action
        self.legal = tuple(legal)
        shown = ", ".join(f"{a} ({names[a]})" for a in self.legal)
        if type(action) is int and 0 <= action < len(names):
            label = f"{action} ({names[action]})"
        else:  # out of range (a negative index would name the wrong action), or not an int
            label = repr(action)
        super().__init__(f"illegal action {label}; legal actions are: {shown}")


class ReplayError(ValueError):
    """A saved game or replay file is malformed or does not replay."""
