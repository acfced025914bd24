"""What the training charts read of the games: the learner's actions per action block, illegal
actions, time spent inside the environment (opponents' moves included) and one summary per
finished game (scores, ranks, who sat where).  :class:`~zavandor_env.envs.sb3.NativeVecEnv`
keeps them per game for the SB3 trainer (``env_method("pop_stats")``), and the RLlib env
counts its actions by the same blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from zavandor_env.engine.actions import ACTION_BLOCKS, NUM_ACTIONS, OPEN_SENTINEL
from zavandor_env.engine.outcome import Outcome


def _block_table() -> tuple[tuple[str, ...], np.ndarray]:
    """Chart names of the action blocks and the block index of every action.

    The engine names both auction openings ``open``; the charts keep artifacts and sentinels
    apart, since opening sentinel auctions is what ends a game.
    """
    names: list[str] = []
    index = np.zeros(NUM_ACTIONS, dtype=np.int64)
    for block, first, size, _suffixes in ACTION_BLOCKS:
        if block == "open":
            block = "open_sentinel" if first == OPEN_SENTINEL else "open_artifact"
        if block == "bid_plus":
            block = "bid"
        names.append(block)
        index[first:first + size] = len(names) - 1
    return tuple(names), index


BLOCK_NAMES, ACTION_TO_BLOCK = _block_table()


class TrainingStats:
    """What the charts read of ``n`` games since the trainer last asked: learner actions per
    action block, illegal actions, seconds spent inside the environment, finished games."""

    def __init__(self, n: int) -> None:
        self.blocks = np.zeros((n, len(BLOCK_NAMES)), np.int64)
        self.illegal = np.zeros(n, np.int64)
        self.env_seconds = np.zeros(n, np.float64)
        self.episodes: list[list[dict[str, Any]]] = [[] for _ in range(n)]

    def pop(self, i: int) -> dict[str, Any]:
        """Game ``i``'s statistics since the last call (and reset them)."""
        out = {"blocks": self.blocks[i].copy(), "illegal": int(self.illegal[i]),
               "env_seconds": float(self.env_seconds[i]), "episodes": self.episodes[i]}
        self.blocks[i] = 0
        self.illegal[i] = 0
        self.env_seconds[i] = 0.0
        self.episodes[i] = []
        return out


def episode_summary(outcome: Outcome, seat: int, opponent_labels: Sequence[str],
                    illegal: bool = False) -> dict[str, Any]:
    """One finished game as the charts read it: the learner's seat, scores, ranks, who sat
    where (``opponent_labels`` in seat order after the learner), winners, how it ended."""
    n = outcome.num_players
    labels = ["learner"] * n
    for k, label in enumerate(opponent_labels):
        labels[(seat + 1 + k) % n] = label
    return {
        "seat": seat,
        "scores": list(outcome.scores),
        "ranks": list(outcome.ranks),
        "labels": labels,
        "winners": list(outcome.winners),
        "terminated": outcome.terminated,
        "rounds": outcome.rounds,
        "decisions": outcome.decisions,
        "illegal": illegal,
    }
