"""The opponent pool: per-episode draws by weight, snapshots, the rating, the schedules."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from zavandor_env.envs.opponents import PoolSpec
from zavandor_env.train.common.rating import PoolRating
from zavandor_env.train.common.run import Schedule


def test_draw_follows_the_weights() -> None:
    spec = PoolSpec({"snapshot": 0.5, "random": 0.25, "heuristic": 0.25},
                    snapshots=[("snap@1", "x.npz")])
    rng = random.Random(0)
    counts = Counter(spec.draw_opponent(rng) for _ in range(4000))
    assert counts["snapshot"] == pytest.approx(2000, abs=150)
    assert counts["random"] == pytest.approx(1000, abs=120)


def test_snapshot_kind_is_skipped_while_the_pool_is_empty() -> None:
    spec = PoolSpec({"snapshot": 0.9, "heuristic": 0.1})
    rng = random.Random(0)
    assert {spec.draw_opponent(rng) for _ in range(200)} == {"heuristic"}
    assert PoolSpec({"snapshot": 1.0}).draw_opponent(rng) == "random"


def test_latest_snapshot_share_is_respected() -> None:
    spec = PoolSpec({"snapshot": 1.0}, snapshots=[("a", "a"), ("b", "b"), ("c", "c")],
                    latest_share=0.8)
    rng = random.Random(1)
    counts = Counter(spec.draw_snapshot(rng)[0] for _ in range(3000))
    assert counts["c"] == pytest.approx(2400, abs=150)  # the others share the rest
    assert counts["a"] == pytest.approx(300, abs=80)


def test_rating_rises_with_wins_and_random_stays_the_anchor() -> None:
    rating = PoolRating()
    start = rating.get("random").mu
    for _ in range(30):
        rating.update(["learner", "random"], [1, 2])
        rating.update(["heuristic", "learner"], [1, 2])
    mu, ordinal = rating.learner()
    assert mu > start + 3 and rating.get("random").mu == start
    assert rating.get("heuristic").mu > mu
    restored = PoolRating()
    restored.load_state_dict(rating.state_dict())
    assert restored.learner() == pytest.approx((mu, ordinal))


def test_schedule_fires_on_multiples_and_survives_a_restart() -> None:
    s = Schedule(100)
    assert [step for step in range(0, 450, 50) if s.due(step)] == [100, 200, 300, 400]
    resumed = Schedule(100, start=250)
    assert not resumed.due(260) and resumed.due(300)
    assert not Schedule(0).due(10**6)


def test_draw_returns_agent_spec_keys_with_their_parameters() -> None:
    spec = PoolSpec({"mcts:iterations=4": 1.0, "pass": 1.0})
    rng = random.Random(2)
    assert {spec.draw_opponent(rng) for _ in range(100)} == {"mcts:iterations=4", "pass"}
