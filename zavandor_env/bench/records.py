"""The records every benchmark shares: a timed row and a recorded game to replay.

They sit in the engine layer because every layer's benchmark reports them: the engine rows
(``zavandor_env.bench.engine``, ``zavandor bench``), the environment rows
(``zavandor_env.bench.env``) and the native vector env's row.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

#: Digits kept of the rows' measured floats in ``--json``.
_DIGITS = {"per_second": 3, "truncated_share": 4, "rounds_per_game": 3, "per_game": 3,
           "seconds": 3}


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
        return {key: value if value is None or key not in _DIGITS else round(value, _DIGITS[key])
                for key, value in asdict(self).items()}

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


#: Plays (or times) call ``i`` and returns its decisions, truncated games and rounds.
Play = Callable[[int], tuple[int, int, int]]


def time_calls(seconds: float, call: Play) -> tuple[int, int, int, int, float]:
    """Call ``call(i)`` for ``i = 0, 1, ...`` until ``seconds`` have passed (once at least):
    the sums of what it returned (decisions, truncated games, rounds), the calls, the time."""
    sums = [0, 0, 0]
    calls = 0
    start = time.perf_counter()
    while True:
        sums = [total + part for total, part in zip(sums, call(calls))]
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return sums[0], sums[1], sums[2], calls, elapsed


def games_row(name: str, players: int, seconds: float, play: Play, unit: str = "decisions/s",
              rounds: bool = True) -> BenchRow:
    """A row of whole games: ``play(i)`` plays game ``i`` and returns its decisions, whether
    it was truncated and its rounds (``rounds=False``: not known), called for ``seconds``."""
    decisions, truncated, played_rounds, games, elapsed = time_calls(seconds, play)
    return BenchRow(name, players, decisions / elapsed, unit, games, truncated / games,
                    played_rounds / games if rounds else None, decisions / games, elapsed)


def rate_row(name: str, players: int, unit: str, seconds: float,
             step: Callable[[int], int]) -> BenchRow:
    """A row of ``unit`` per second: ``step(i)`` returns how many it did, called for
    ``seconds``."""
    done, _, _, _, elapsed = time_calls(seconds, lambda i: (step(i), 0, 0))
    return BenchRow(name, players, done / elapsed, unit, seconds=elapsed)
