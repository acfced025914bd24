"""Exceptions raised by the rules engine."""

from __future__ import annotations

from collections.abc import Sequence


class IllegalActionError(ValueError):
    """An action was applied that is not legal now; the game state is left untouched."""

    def __init__(self, action: object, legal: Sequence[int], names: Sequence[str]) -> None:
        self.action = action
        self.legal = tuple(legal)
        shown = ", ".join(f"{a} ({names[a]})" for a in self.legal)
        try:
            label = f"{action} ({names[action]})"  # type: ignore[index]
        except (TypeError, IndexError):
            label = repr(action)
        super().__init__(f"illegal action {label}; legal actions are: {shown}")


class ReplayError(ValueError):
    """A saved game or replay file is malformed or does not replay."""
