"""The charts of the training games, one definition for every trainer that plays against a
pool (PPO's callback and RLlib's iterations): the learner's action mix, its results, its
results per opponent kind, and the ratings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from zavandor_env.envs.training import BLOCK_NAMES
from zavandor_env.train.common.rating import ANCHOR, PoolRating


def chart_games(record: Callable[[str, float], None], games: list[dict[str, Any]],
                blocks: Any, rating: PoolRating, pool_labels: Sequence[str],
                rated: Sequence[str] = ()) -> None:
    """Chart ``games`` and rate them.

    Args:
        record: ``record(tag, value)``.
        games: one dict per finished game: the learner's ``seat``, every seat's ``scores``,
            ``labels`` (rating labels, the learner's at its seat) and ``ranks``, the
            ``winners``, ``rounds`` and ``terminated``; a game with a true ``illegal`` is not
            rated.
        blocks: the learner's decisions per action block.
        rating: the pool's rating, updated with every game.
        pool_labels: the snapshots' labels (their mean rating is charted).
        rated: the labels of the agent specs whose rating is charted.
    """
    total = int(np.sum(blocks))
    for name, count in zip(BLOCK_NAMES, blocks if total else []):
        record(f"actions/share_{name}", float(count) / total)
    if games:
        won = [g["seat"] in g["winners"] for g in games]  # no winner when cut off
        record("charts/mean_vp", float(np.mean([g["scores"][g["seat"]] for g in games])))
        record("charts/mean_opponent_vp", float(np.mean([
            np.mean([v for i, v in enumerate(g["scores"]) if i != g["seat"]]) for g in games])))
        record("charts/mean_rounds", float(np.mean([g["rounds"] for g in games])))
        record("charts/truncated", float(np.mean([not g["terminated"] for g in games])))
        record("charts/winrate_train", float(np.mean(won)))
        by_kind: dict[str, list[bool]] = {}
        for g, w in zip(games, won):
            kinds = {lab.split("@")[0] for i, lab in enumerate(g["labels"]) if i != g["seat"]}
            if len(kinds) == 1:  # one opponent kind in the game (every 2-player game)
                by_kind.setdefault(kinds.pop(), []).append(w)
            if not g.get("illegal"):
                rating.update(g["labels"], g["ranks"])
        for kind, ws in by_kind.items():
            record(f"charts/winrate_train_vs_{kind}", float(np.mean(ws)))
    mu, ordinal = rating.learner()
    record("rating/learner_mu", mu)
    record("rating/learner_ordinal", ordinal)
    snaps = [rating.get(label).mu for label in pool_labels]
    if snaps:
        record("rating/pool_mean_mu", float(np.mean(snaps)))
    for label in sorted(set(rated) - {ANCHOR}):
        record(f"rating/{label}_mu", float(rating.get(label).mu))
