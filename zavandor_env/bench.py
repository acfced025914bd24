"""Speed benchmarks: uniformly random legal play through the engine, and cloning.

A "decision" is one action chosen by a player (forced decisions the engine takes by itself
are not counted, as in the peer benchmarks in ``shared/bench``).  Everything runs in this one
process, on one core.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from .engine import Game, GameConfig


@dataclass
class BenchResult:
    """Figures of one benchmark row."""

    name: str
    num_players: int
    decisions: int
    games: int
    rounds: int
    truncated: int
    seconds: float

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def rounds_per_game(self) -> float:
        return self.rounds / max(1, self.games)

    def row(self) -> str:
        return (
            f"{self.name:<22} {self.num_players:>2}p  {self.decisions_per_s:>10,.0f} decisions/s"
            f"  {self.games_per_s:>8,.1f} games/s  {self.rounds_per_game:>5.1f} rounds/game"
            f"  {self.decisions / max(1, self.games):>6.0f} decisions/game"
            f"  {self.truncated}/{self.games} truncated"
        )


def bench_engine(num_players: int, seconds: float = 3.0, seed: int = 0) -> BenchResult:
    """Uniformly random legal play through :class:`Game` for about ``seconds``."""
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
    return BenchResult(
        "engine random play", num_players, decisions, games, rounds, truncated,
        time.perf_counter() - start,
    )


def bench_clone(num_players: int, seconds: float = 1.0, seed: int = 0) -> float:
    """Clones per second of mid-game states (round >= 5 when random play gets there)."""
    rng = random.Random(seed)
    game = Game.new(GameConfig(num_players=num_players), seed=seed)
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
    return count / (time.perf_counter() - start)
