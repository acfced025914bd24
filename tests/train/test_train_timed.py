"""``keep_policy_minutes`` (``train/common/timed.py``): the learner's policy kept at wall-clock
marks,
the one in force when each mark went by, for learning curves at equal time; across
``--resume`` the marks are on the run's clock, which goes on from the checkpoint's minutes, and
a policy kept at a mark is never replaced by a later one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zavandor_env.train.common.timed import STATE_KEY, TimedPolicies, timed_policy_name


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _policy(value: float) -> Any:
    """A one-layer policy whose action bias is ``value`` (to tell versions apart)."""
    from zavandor_env.agents.policy_file import NumpyPolicy
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

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
    ({"keep_policy_minutes": [15], "backend": "rllib"}, "trainer rllib"),
])
def test_a_bad_mark_is_one_line_naming_the_key(changes: dict[str, Any], words: str) -> None:
    from zavandor_env.train.config import TrainConfigError, from_dict

    with pytest.raises(TrainConfigError) as info:
        from_dict(changes)
    assert words in str(info.value) and "\n" not in str(info.value)


# ---- across resumes --------------------------------------------------------------------------
def _bias(path: Path) -> float:
    from zavandor_env.agents.policy_file import load_policy

    return float(load_policy(path).biases[-1][0])


def test_a_policy_already_kept_at_a_mark_is_never_replaced(tmp_path: Path) -> None:
    from zavandor_env.agents.policy_file import save_policy

    # An invocation went past mark 1 (and kept it) after its last checkpoint, then stopped:
    # the resumed run reaches mark 1 again with another policy.
    save_policy(_policy(1.0)({}), tmp_path / timed_policy_name(1))
    clock = FakeClock()
    timed = TimedPolicies(tmp_path, [1, 2], clock=clock)
    assert timed.pending == [2.0]
    clock.now += 180
    written = timed.before_update(_policy(2.0), {})
    assert [p.name for p in written] == [timed_policy_name(2)]
    assert _bias(tmp_path / timed_policy_name(1)) == 1.0
    assert _bias(tmp_path / timed_policy_name(2)) == 2.0


def test_the_run_clock_goes_on_from_the_checkpoints_minutes(tmp_path: Path) -> None:
    clock = FakeClock()
    timed = TimedPolicies(tmp_path, [1, 5], clock=clock)
    timed.resume_at({STATE_KEY: 3.0})  # mark 1 went by before the checkpoint: not kept again
    assert timed.pending == [5.0] and timed.elapsed_minutes() == 3.0
    clock.now += 60
    assert timed.before_update(lambda info: pytest.fail("built too early"), {}) == []
    clock.now += 90  # 5.5 minutes of the run
    [path] = timed.before_update(_policy(4.0), {})
    from zavandor_env.agents.policy_file import load_policy

    info = load_policy(path).info
    assert info["kept_at_minutes"] == 5.0 and info["written_at_minutes"] == 5.5
    assert not (tmp_path / timed_policy_name(1)).exists()


def test_a_checkpoints_minutes_must_be_a_finite_count(tmp_path: Path) -> None:
    from zavandor_env.train.common.checkpointing import CheckpointError, read_state

    for bad in (-1.0, "3", None, True):
        (tmp_path / "state.json").write_text(json.dumps(
            {"step": 1, "pool": {}, "rating": {}, STATE_KEY: bad}))
        with pytest.raises(CheckpointError, match=STATE_KEY):
            read_state(tmp_path)


# ---- through both trainers ------------------------------------------------------------------
def _kept(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(run.glob("policy_*min.npz"))}


def _latest_minutes(run: Path) -> float:
    latest = (run / "checkpoints" / "LATEST").read_text().strip()
    return float(json.loads((run / "checkpoints" / latest / "state.json").read_text())[STATE_KEY])


MARKS = "keep_policy_minutes=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 100000]"


def _check_resumed(run: Path, before: dict[str, bytes], minutes: float) -> None:
    """Every policy kept before the resume is unchanged; the clock went on."""
    after = _kept(run)
    assert before and all(after[name] == data for name, data in before.items())
    assert _latest_minutes(run) > minutes
    from zavandor_env.agents.policy_file import load_policy

    for name in set(after) - set(before):  # kept by the resumed invocation: after its start
        assert load_policy(run / name).info["kept_at_minutes"] > minutes


@pytest.mark.skipif("not __import__('zavandor_env.engine').engine.native_available()")
def test_an_exit_resume_keeps_the_marks_of_the_first_invocation(
        tmp_path: Path, minute_per_reading_marks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.train.test_exit import PriorSearch, _cli, _run_dir, _write
    from zavandor_env.train.exit import selfplay as exit_mod

    monkeypatch.setattr(exit_mod, "make_search",
                        lambda policy, params: PriorSearch(policy, **params))
    assert _cli("--config", str(_write(tmp_path, exit_generations=1)), "--set", MARKS) == 0
    run = _run_dir(tmp_path)
    before, minutes = _kept(run), _latest_minutes(run)
    assert _cli("--resume", str(run), "--set", "exit_generations=2") == 0
    _check_resumed(run, before, minutes)


def test_a_ppo_resume_keeps_the_marks_of_the_first_invocation(
        tmp_path: Path, minute_per_reading_marks: None) -> None:
    pytest.importorskip("sb3_contrib")
    from zavandor_env.train.config import load_config
    from zavandor_env.train.ppo.selfplay import train

    quick = Path(__file__).resolve().parents[2] / "configs" / "quick.yaml"
    cfg = load_config(quick, [
        f"runs_dir={tmp_path}", "progress_bar=false", "n_steps=64", "batch_size=64",
        "total_timesteps=256", "checkpoint_every=128", "snapshot_every=128", "eval_every=0",
        "eval_games=1", "game.max_decisions=300", MARKS])
    run = train(cfg)
    before, minutes = _kept(run), _latest_minutes(run)
    train(resume=run, overrides=["total_timesteps=512"])
    _check_resumed(run, before, minutes)
