"""Speed of AEC random play, side by side with PettingZoo peers measured in the same run.

Counting rule (the same as ``shared/bench/peer_bench.py``, so the figures are comparable): a
step is one decision by a player; the ``None`` steps PettingZoo needs for finished agents are
timed but not counted.  Every decision runs the loop a real agent runs: ``last()`` (so the
observation and mask are built), a uniformly random legal action from the mask, ``step()``.
Runs whole games for about ``seconds`` after one untimed warm-up game.
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

REFERENCE_PEER = "texas_holdem_v4"
PEERS = (REFERENCE_PEER, "connect_four_v3")


@dataclass
class EnvBenchResult:
    """Figures of one benchmark row."""

    name: str
    steps: int
    games: int
    seconds: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def us_per_step(self) -> float:
        return 1e6 * self.seconds / max(1, self.steps)

    def row(self) -> str:
        return (f"{self.name:<30} {self.steps_per_s:>10,.0f} steps/s  {self.us_per_step:>7.1f} us/step"
                f"  {self.games / self.seconds:>8,.1f} games/s  "
                f"{self.steps / max(1, self.games):>6.0f} steps/game")


def bench_aec(make_env: Callable[[], Any], name: str, seconds: float = 3.0,
              seed: int = 0) -> EnvBenchResult:
    """Random play through any PettingZoo AEC env whose observation or info has a mask."""
    aec = make_env()
    rng = np.random.default_rng(seed)

    def play(game_seed: int | None) -> int:
        aec.reset(seed=game_seed)
        steps = 0
        for _agent in aec.agent_iter():
            obs, _reward, terminated, truncated, info = aec.last()
            if terminated or truncated:
                action = None
            else:
                mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
                legal = np.flatnonzero(mask)
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            aec.step(action)
        return steps

    play(seed)  # warm-up: imports, caches
    steps = games = 0
    start = time.perf_counter()
    while True:
        steps += play(None)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    aec.close()
    return EnvBenchResult(name, steps, games, elapsed)


def _peer_factory(name: str) -> Callable[[], Any]:
    module = importlib.import_module(f"pettingzoo.classic.{name}")  # ImportError if missing
    return module.env


def bench_env_section(args: argparse.Namespace) -> list[EnvBenchResult]:
    """The ``zavandor bench`` section for environments: zavandor ``env()`` (and ``raw_env``)
    at each player count, then the PettingZoo peers, and the ratio to texas_holdem_v4."""
    from .aec import env, raw_env

    seconds, seed = args.seconds, args.seed
    rows: list[EnvBenchResult] = []
    for n in args.players:
        rows.append(bench_aec(partial(env, num_players=n), f"zavandor_v0 env() {n}p",
                              seconds, seed))
    for n in args.players:
        rows.append(bench_aec(partial(raw_env, num_players=n), f"zavandor_v0 raw_env {n}p",
                              seconds, seed))
    reference = None
    for peer in PEERS:
        try:
            factory = _peer_factory(peer)
        except ImportError as exc:
            print(f"  (skipped PettingZoo {peer}: {exc}; pip install 'pettingzoo[classic]')")
            continue
        result = bench_aec(factory, f"pettingzoo {peer}", seconds, seed)
        rows.append(result)
        if peer == REFERENCE_PEER:
            reference = result
    print("AEC random play (last() + mask + step every decision, one core, same run):")
    for row in rows:
        line = "  " + row.row()
        if reference is not None:
            line += f"  {row.steps_per_s / reference.steps_per_s:>5.2f}x {REFERENCE_PEER}"
        print(line)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=0)
    bench_env_section(parser.parse_args())


if __name__ == "__main__":
    main()
