"""The records every benchmark shares: a timed row and a recorded game to replay.

They sit in the engine layer because every layer's benchmark reports them: the engine rows
(``zavandor_env.bench.engine``, ``zavandor bench``), the environment rows
(``zavandor_env.bench.env``) and the native vector env's row (``zavandor_env.bench.vector``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass
class BenchRow:
    """One benchmark row (``zavandor bench`` text and ``--json`` objects).

    Attributes:
        name: what was timed.
        players: players per game.
        per_second: the speed, in ``unit``.
        unit: ``"decisions/s"`` (engine), ``"steps/s"`` (environments), ``"clones/s"``.
        games: whole games timed (0 for clones).
        truncated_share: share of those games cut off by a safety limit (None: no games).
        rounds_per_game: mean rounds per game (None where the environment does not say).
        per_game: mean decisions (or steps) per game.
        seconds: time measured.
    """

    name: str
    players: int
    per_second: float
    unit: str
    games: int = 0
    truncated_share: float | None = None
    rounds_per_game: float | None = None
    per_game: float | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (floats rounded to what the measurement supports)."""
        data = asdict(self)
        for key in ("per_second", "rounds_per_game", "per_game", "seconds"):
            if data[key] is not None:
                data[key] = round(data[key], 3)
        if self.truncated_share is not None:
            data["truncated_share"] = round(self.truncated_share, 4)
        return data

    def text(self) -> str:
        """One aligned line for the terminal."""
        line = f"{self.name:<42} {self.players:>2}p {self.per_second:>9,.0f} {self.unit:<11}"
        if self.games:
            line += f" {self.games / self.seconds:>9,.1f} games/s"
            if self.rounds_per_game is not None:
                line += f" {self.rounds_per_game:>5.1f} rounds"
            if self.per_game is not None:
                line += f" {self.per_game:>6.0f} {self.unit.split('/')[0]}/game"
            if self.truncated_share is not None:
                line += f" {self.truncated_share:>6.1%} truncated"
        return line


@dataclass(frozen=True)
class RecordedGame:
    """A game to replay: its seed, the decisions in order, and how it ended."""

    seed: int
    actions: tuple[int, ...]
    rounds: int
    truncated: bool


def check_seconds(seconds: float) -> float:
    """``seconds`` if it is a finite positive time, else ValueError (a NaN or infinite budget
    would never end a timing loop)."""
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a finite number above 0, got {seconds!r}")
    return float(seconds)
