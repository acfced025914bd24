"""Speed benchmarks of the engine: uniformly random play, and games that end by the rules.

Uniformly random players do not play the game as people do (their games end early in a curse
or run to the ``max_rounds`` safety limit), so ``zavandor bench`` also times **games that end
by the rules**: heuristic self-play, recorded once (:func:`record_heuristic_games`, a row of
its own with the agents' thinking time included), then replayed decision by decision
(:func:`bench_replay`: ``legal_actions()`` as an agent would need it, then ``apply()``).  Every
row reports the share of its games that a safety limit cut off.

A "decision" is one action chosen by a player (forced decisions the engine takes by itself
are not counted, as in the peer benchmarks).  Everything runs in this one process, on one core.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from .engine import Game, GameConfig


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


def _row(name: str, n: int, decisions: int, games: int, rounds: int, truncated: int,
         seconds: float, unit: str = "decisions/s") -> BenchRow:
    return BenchRow(name, n, decisions / seconds, unit, games, truncated / max(1, games),
                    rounds / max(1, games), decisions / max(1, games), seconds)


def bench_engine(num_players: int, seconds: float = 3.0, seed: int = 0) -> BenchRow:
    """Uniformly random legal play through :class:`Game` for about ``seconds``."""
    seconds = check_seconds(seconds)
    rng = random.Random(seed)
    config = GameConfig(num_players=num_players)
    decisions = games = rounds = truncated = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        game = Game.new(config, seed=seed + games)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[int(rng.random() * len(legal))])
            decisions += 1
        games += 1
        rounds += game.state.round
        truncated += game.truncated
        if time.perf_counter() >= deadline:
            break
    return _row("engine, uniformly random play", num_players, decisions, games, rounds,
                truncated, time.perf_counter() - start)


def record_heuristic_games(
    num_players: int, seconds: float = 3.0, seed: int = 0, min_games: int = 2
) -> tuple[BenchRow, list[RecordedGame]]:
    """Heuristic self-play for about ``seconds`` (at least ``min_games`` games): the row of
    whole-game speed with the agents' thinking included, and the games to replay."""
    from zavandor_env.agents.heuristic import HeuristicAgent  # the bench is a top-level tool
    from zavandor_env.agents.match import play_game

    seconds = check_seconds(seconds)
    config = GameConfig(num_players=num_players)
    agents = [HeuristicAgent(seed=seat) for seat in range(num_players)]
    games: list[RecordedGame] = []
    spent = 0.0
    while spent < seconds or len(games) < min_games:
        result = play_game(agents, seed=seed + len(games), config=config, record_replay=True)
        assert result.replay is not None
        spent += result.seconds
        games.append(RecordedGame(result.seed, tuple(result.replay["actions"]), result.rounds,
                                  result.truncated))
    row = _row("heuristic self-play (agents included)", num_players,
               sum(len(g.actions) for g in games), len(games), sum(g.rounds for g in games),
               sum(g.truncated for g in games), spent)
    return row, games


def bench_replay(games: Sequence[RecordedGame], num_players: int, seconds: float = 3.0) -> BenchRow:
    """The engine's side of recorded games (``legal_actions()`` + ``apply()`` for every
    decision), cycling through ``games`` for about ``seconds``."""
    seconds = check_seconds(seconds)
    if not games:
        raise ValueError("bench_replay needs at least one recorded game")
    config = GameConfig(num_players=num_players)
    decisions = played = rounds = truncated = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        record = games[played % len(games)]
        game = Game.new(config, seed=record.seed)
        for action in record.actions:
            game.legal_actions()  # an agent needs them for every decision
            game.apply(action)
        decisions += len(record.actions)
        played += 1
        rounds += game.state.round
        truncated += game.truncated
        if time.perf_counter() >= deadline:
            break
    return _row("engine, replayed heuristic games", num_players, decisions, played, rounds,
                truncated, time.perf_counter() - start)


def bench_clone(num_players: int, seconds: float = 1.0, seed: int = 0,
                record: RecordedGame | None = None) -> BenchRow:
    """Clones per second of a mid-game state: halfway through ``record`` when given (a game
    that ends by the rules), else where random play reaches round 5 or ends."""
    seconds = check_seconds(seconds)
    config = GameConfig(num_players=num_players)
    if record is not None:
        game = Game.new(config, seed=record.seed)
        for action in record.actions[: len(record.actions) // 2]:
            game.apply(action)
    else:
        rng = random.Random(seed)
        game = Game.new(config, seed=seed)
        while not game.is_over and game.state.round < 5:
            legal = game.legal_actions()
            game.apply(legal[int(rng.random() * len(legal))])
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            game.clone()
        count += 100
    elapsed = time.perf_counter() - start
    return BenchRow("engine, clone a mid-game state", num_players, count / elapsed, "clones/s",
                    seconds=elapsed)
