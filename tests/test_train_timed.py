"""``keep_policy_minutes`` (``train/timed.py``): the learner's policy kept at wall-clock marks,
the one in force when each mark went by, for learning curves at equal time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zavandor_env.train.timed import TimedPolicies, timed_policy_name


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _policy(value: float) -> Any:
    """A one-layer policy whose action bias is ``value`` (to tell versions apart)."""
    from zavandor_env.agents.policy_file import NumpyPolicy
    from zavandor_env.engine.actions import NUM_ACTIONS
    from zavandor_env.envs.observation import OBS_SIZE

    def make(info: dict[str, Any]) -> NumpyPolicy:
        return NumpyPolicy([np.zeros((NUM_ACTIONS, OBS_SIZE), np.float32)],
                           [np.full(NUM_ACTIONS, value, np.float32)], "tanh", info=info)
    return make


def test_each_mark_keeps_the_policy_in_force_when_it_went_by(tmp_path: Path) -> None:
    from zavandor_env.agents.policy_file import load_policy

    clock = FakeClock()
    timed = TimedPolicies(tmp_path, [2, 1, 5], clock=clock)
    clock.now += 50  # 0.83 min: no mark passed yet, nothing is built or written
    assert timed.before_update(lambda info: pytest.fail("built too early"), {}) == []
    clock.now += 80  # 2.17 min: marks 1 and 2 both passed while version 1 played
    written = timed.before_update(_policy(1.0), {"step": 7})
    assert [p.name for p in written] == [timed_policy_name(1), timed_policy_name(2)]
    clock.now += 600  # 12 min: mark 5 passed while version 2 played
    timed.before_update(_policy(2.0), {"step": 9})
    kept = {m: load_policy(tmp_path / timed_policy_name(m)) for m in (1, 2, 5)}
    assert [float(kept[m].biases[-1][0]) for m in (1, 2, 5)] == [1.0, 1.0, 2.0]
    assert kept[5].info["kept_at_minutes"] == 5 and kept[5].info["step"] == 9
    assert timed.pending == [] and timed.before_update(_policy(3.0)) == []


def test_the_file_names_read_as_minutes() -> None:
    assert timed_policy_name(15) == "policy_15min.npz"
    assert timed_policy_name(7.5) == "policy_7.5min.npz"


@pytest.mark.parametrize("changes, words", [
    ({"keep_policy_minutes": [0]}, "keep_policy_minutes"),
    ({"keep_policy_minutes": [-1.0]}, "keep_policy_minutes"),
    ({"keep_policy_minutes": [15], "backend": "rllib"}, "backend rllib"),
])
def test_a_bad_mark_is_one_line_naming_the_key(changes: dict[str, Any], words: str) -> None:
    from zavandor_env.train.config import TrainConfigError, from_dict

    with pytest.raises(TrainConfigError) as info:
        from_dict(changes)
    assert words in str(info.value) and "\n" not in str(info.value)
