"""The native vector env's speed: learner steps per second of
:class:`~zavandor_env.envs.vector.ZavandorVectorEnv` with uniformly random legal learner
actions, as a ``zavandor bench`` row."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from zavandor_env.bench.records import BenchRow
from zavandor_env.envs.vector import ZavandorVectorEnv


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask`` (argmax of random scores)."""
    scores = rng.random(mask.shape)
    scores[~mask] = -1.0
    return scores.argmax(axis=1)


def bench_vector_row(num_players: int, num_envs: int = 64, seconds: float = 3.0,
                     opponents: Any = "random", seed: int = 0, **options: Any) -> BenchRow:
    """Learner steps per second of ``num_envs`` games (``opponents`` played natively,
    ``options`` as the env's) for about ``seconds`` in this process, with games, truncated
    share and rounds; rule ``options`` that differ from the rulebook's are named in the row."""
    env = ZavandorVectorEnv(num_envs, num_players, opponents=opponents, seed=seed, copy=False,
                            **options)
    rng = np.random.default_rng(seed)
    env.reset()
    steps = games = truncated = rounds = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(16):
            _obs, _rew, _term, trunc, infos = env.step(_random_actions(env.action_masks(), rng))
            steps += num_envs
            if "final_info" in infos:
                finished = infos["_final_info"]
                games += int(finished.sum())
                truncated += int(trunc.sum())
                rounds += int(np.asarray(infos["final_info"]["rounds"])[finished].sum())
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    env.close()
    return BenchRow(
        name=f"vector env N={num_envs} vs {opponents} (native)"
             + "".join(f", {k}={v}" for k, v in sorted(options.items())),
        players=num_players, per_second=steps / elapsed, unit="steps/s", games=games,
        truncated_share=truncated / games if games else None,
        rounds_per_game=rounds / games if games else None,
        per_game=steps / games if games else None, seconds=elapsed,
    )
