"""A run folder or a training config someone sends: ``zavandor train`` (and ``--resume``)
unpickles nothing, reads bounded plain data, keeps every name inside the run folder, refuses a
changed model shape, and answers every problem in one line with exit code 2.

The run folders here are crafted, not trained: a checkpoint whose tensors are empty state
dicts passes every check up to building the model, which is all these refusals need.
"""

from __future__ import annotations

import errno
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.hostile import crafted_sb3_zip
from zavandor_env.train.common.checkpointing import (
    CheckpointError,
    CheckpointWriter,
    SaveError,
    find_resumable,
    latest_checkpoint,
    model_shape,
    read_checkpoint,
    read_state,
    record_resume,
    saving,
)
from zavandor_env.train.config import TrainConfig

STEP = "step_000000128"


def tensors_zip(path: Path) -> None:
    """A model.zip whose tensor entries load with ``weights_only`` (empty state dicts)."""
    import torch

    with zipfile.ZipFile(path, "w") as zf:
        for group in ("policy", "policy.optimizer"):
            buffer = io.BytesIO()
            torch.save({}, buffer)
            zf.writestr(f"{group}.pth", buffer.getvalue())


def crafted_run(tmp_path: Path, config: dict[str, Any] | None = None,
                state: dict[str, Any] | None = None) -> Path:
    """A run folder with one intact-looking checkpoint; ``config``/``state`` change its
    config.yaml / state.json."""
    cfg = TrainConfig(runs_dir=str(tmp_path / "runs"))
    run_dir = tmp_path / "runs" / "quick__1__crafted"
    checkpoint = run_dir / "checkpoints" / STEP
    checkpoint.mkdir(parents=True)
    (run_dir / "pool").mkdir()
    data = {k: v for k, v in cfg.to_dict().items() if k != "config_path"}
    (run_dir / "config.yaml").write_text(json.dumps({**data, **(config or {})}))
    tensors_zip(checkpoint / "model.zip")
    base = {"step": 128, "n_updates": 1, "pool": {"snapshots": []},
            "rating": {"games": 0, "ratings": {}}, "totals": {"illegal_actions": 0},
            "model_shape": model_shape(cfg)}
    (checkpoint / "state.json").write_text(json.dumps({**base, **(state or {})}))
    (run_dir / "checkpoints" / "LATEST").write_text(STEP)
    return run_dir


def train_cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run ``zavandor train ARGS`` in this process; the one line it must fail with."""
    from zavandor_env.cli import main

    assert main(["train", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zavandor train: ") and err.count("\n") == 1, err
    return err


# ---- trust comes only from the caller --------------------------------------------------------
@pytest.mark.parametrize("key", ["eval_opponents", "opponent_weights"])
def test_resume_refuses_a_config_yaml_that_opts_in_to_unpickling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str,
) -> None:
    marker = tmp_path / "pwned"
    spec = f"policy:path={crafted_sb3_zip(tmp_path / 'evil.zip', marker)},trust_pickle=true"
    value: Any = [spec] if key == "eval_opponents" else {spec: 1.0}
    run_dir = crafted_run(tmp_path, config={key: value})
    line = train_cli(capsys, "--resume", str(run_dir), "--quiet")
    assert "cannot be set in an agent spec" in line and "--trust-pickle" in line
    assert not marker.exists()


def test_a_training_config_file_cannot_opt_in_either(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    marker = tmp_path / "pwned"
    spec = f"policy:path={crafted_sb3_zip(tmp_path / 'evil.zip', marker)},trust_pickle=true"
    config = tmp_path / "cfg.yaml"
    config.write_text(json.dumps({"runs_dir": str(tmp_path / "runs"), "eval_opponents": [spec]}))
    assert "cannot be set in an agent spec" in train_cli(capsys, "--config", str(config))
    assert not marker.exists() and not (tmp_path / "runs").exists()


# ---- config files: one line, whatever they hold ----------------------------------------------
@pytest.mark.parametrize("content, words", [
    (b"\xff\xfe\x00binary\x80", ["not UTF-8"]),
    (b"a: " + b"[" * 100_000 + b"]" * 100_000, ["nests"]),
    (b"a: [1, 2", ["not valid YAML"]),
    (b"a: !!python/object/apply:os.system ['touch pwned']", ["tags"]),
])
@pytest.mark.parametrize("how", ["--config", "--resume"])
def test_a_binary_nested_or_invalid_config_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, words: list[str],
    how: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    run_dir = crafted_run(tmp_path)
    (run_dir / "config.yaml").write_bytes(content)
    target = run_dir / "config.yaml" if how == "--config" else run_dir
    line = train_cli(capsys, how, str(target))
    assert all(w in line for w in words), line
    assert not (tmp_path / "pwned").exists()


# ---- state.json, pool, ratings, LATEST -------------------------------------------------------
@pytest.mark.parametrize("state, words", [
    ({"step": 10**30}, ["no valid step"]),
    ({"step": -1}, ["no valid step"]),
    ({"step": 12.5}, ["no valid step"]),
    ({"pool": {"snapshots": "snap.npz"}}, ["pool 'snapshots'"]),
    ({"pool": {"snapshots": [["a", "b", "c"]]}}, ["pool 'snapshots'"]),
    ({"rating": {"ratings": {"learner": [25.0]}}}, ["rating 'ratings'"]),
    ({"rating": {"ratings": {"learner": [25.0, -1.0]}}}, ["rating 'ratings'"]),
    ({"rating": {"games": "many"}}, ["rating 'games'"]),
    ({"totals": {"illegal_actions": "x"}}, ["totals"]),
    ({"n_updates": 10**30}, ["n_updates"]),
])
def test_a_malformed_state_json_is_a_broken_checkpoint_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], state: dict[str, Any], words: list[str],
) -> None:
    run_dir = crafted_run(tmp_path, state=state)
    with pytest.raises(CheckpointError) as info:
        read_state(run_dir / "checkpoints" / STEP)
    assert all(w in str(info.value) for w in words), str(info.value)
    line = train_cli(capsys, "--resume", str(run_dir), "--quiet")
    assert "no intact checkpoint" in line and all(w in line for w in words)


@pytest.mark.parametrize("name", ["../../x.npz", "/etc/passwd", "sub/x.npz", "..", ".x.npz",
                                  "x\\y.npz", ""])
def test_pool_snapshot_names_that_leave_the_pool_folder_are_refused(
    tmp_path: Path, name: str,
) -> None:
    outside = tmp_path / "x.npz"
    outside.write_bytes(b"")  # "../../x.npz" from the checkpoint exists: it must not matter
    run_dir = crafted_run(tmp_path, state={"pool": {"snapshots": [["snap@1", name]]}})
    with pytest.raises(CheckpointError, match="not a plain file name"):
        read_checkpoint(run_dir / "checkpoints" / STEP, run_dir / "pool")


def test_a_pool_snapshot_symlinked_out_of_the_run_folder_is_refused(tmp_path: Path) -> None:
    run_dir = crafted_run(tmp_path, state={"pool": {"snapshots": [["snap@1", "snap_1.npz"]]}})
    (tmp_path / "elsewhere.npz").write_bytes(b"")
    (run_dir / "pool" / "snap_1.npz").symlink_to(tmp_path / "elsewhere.npz")
    with pytest.raises(CheckpointError, match="symlink pointing out"):
        read_checkpoint(run_dir / "checkpoints" / STEP, run_dir / "pool")


def test_latest_naming_a_folder_outside_the_run_is_ignored(tmp_path: Path) -> None:
    run_dir = crafted_run(tmp_path)
    assert latest_checkpoint(run_dir) == run_dir / "checkpoints" / STEP
    other = crafted_run(tmp_path / "other")
    for name in ["../../../other/runs/quick__1__crafted/checkpoints/" + STEP,
                 str(other / "checkpoints" / STEP)]:
        (run_dir / "checkpoints" / "LATEST").write_text(name)
        assert latest_checkpoint(run_dir) is None


def test_a_checkpoint_folder_symlinked_from_elsewhere_is_not_resumed(tmp_path: Path) -> None:
    run_dir = crafted_run(tmp_path)
    other = crafted_run(tmp_path / "other")
    (run_dir / "checkpoints" / "step_000000999").symlink_to(other / "checkpoints" / STEP)
    assert find_resumable(run_dir, print).path.name == STEP


# ---- the record of resumes -------------------------------------------------------------------
def test_the_resume_record_replaces_a_symlink_or_an_oversized_file(tmp_path: Path) -> None:
    from zavandor_env.train.common.checkpointing import MAX_RESUMES_BYTES, RESUMES

    run = tmp_path / "run"
    run.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("not the run's\n")
    (run / RESUMES).symlink_to(outside)
    record_resume(run, 3, ["max_minutes=5"])
    assert outside.read_text() == "not the run's\n"  # neither read into the run nor grown
    assert not (run / RESUMES).is_symlink()
    record_resume(run, 4, None)
    assert [json.loads(line) for line in (run / RESUMES).read_text().splitlines()] == [
        {"resumed_from_step": 3, "overrides": ["max_minutes=5"]},
        {"resumed_from_step": 4, "overrides": []}]
    (run / RESUMES).write_text("x" * (MAX_RESUMES_BYTES + 1))
    record_resume(run, 5, [])
    assert (run / RESUMES).read_text().splitlines() == [
        '{"resumed_from_step": 5, "overrides": []}']


# ---- the model's shape -----------------------------------------------------------------------
@pytest.mark.parametrize("how", ["config.yaml", "--set"])
@pytest.mark.parametrize("key, value", [("num_players", 3), ("net_arch", [32, 32]),
                                        ("activation", "relu")])
def test_resume_refuses_a_changed_model_shape_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str, key: str, value: Any,
) -> None:
    changed = {key: value}
    run_dir = crafted_run(tmp_path, config=changed if how == "config.yaml" else None)
    extra = ["--set", f"{key}={json.dumps(value)}"] if how == "--set" else []
    line = train_cli(capsys, "--resume", str(run_dir), "--quiet", *extra)
    assert f"{key}=" in line and "was trained with" in line, line


# ---- a full disk -----------------------------------------------------------------------------
def _full_disk(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_save_that_fails_leaves_no_partial_folder_and_the_previous_checkpoint(
    tmp_path: Path,
) -> None:
    run_dir = crafted_run(tmp_path)
    previous = read_checkpoint(run_dir / "checkpoints" / STEP, run_dir / "pool")
    writer = CheckpointWriter(run_dir, previous)
    with pytest.raises(SaveError) as info, saving(run_dir, "checkpoint of step 256"):
        writer.write(256, _full_disk, {"pool": {}, "rating": {}})
    message = str(info.value)
    assert "No space left" in message and STEP in message and "--resume" in message
    assert "\n" not in message
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == ["LATEST", STEP]
    assert latest_checkpoint(run_dir) == previous.path


def test_a_failed_latest_pointer_undoes_the_new_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zavandor_env.train.common import checkpointing
    run_dir = crafted_run(tmp_path)
    previous = read_checkpoint(run_dir / "checkpoints" / STEP, run_dir / "pool")
    monkeypatch.setattr(checkpointing, "write_text_atomic", _full_disk)
    with pytest.raises(OSError, match="No space left"):
        CheckpointWriter(run_dir, previous).write(256, tensors_zip, {"pool": {}, "rating": {}})
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == ["LATEST", STEP]


def test_a_new_checkpoint_records_the_model_shape(tmp_path: Path) -> None:
    run_dir = crafted_run(tmp_path)
    shape = model_shape(TrainConfig(runs_dir=str(tmp_path)))
    checkpoint = CheckpointWriter(run_dir, shape=shape).write(
        256, tensors_zip, {"pool": {"snapshots": []}, "rating": {}})
    assert checkpoint.state["model_shape"] == shape and checkpoint.step == 256


# ---- tensors and snapshots: bounded and finite -----------------------------------------------
def _bomb_model_zip(path: Path) -> None:
    """A model.zip whose policy.pth would inflate to 3 GB (a few MB on disk)."""
    import zlib

    from tests.hostile import deflated_zeros, write_zip

    write_zip(path, [("data", 0, b"{}", 2, zlib.crc32(b"{}")),
                     ("policy.pth", 8, deflated_zeros(b"", 3000), 3000 << 20, 0),
                     ("policy.optimizer.pth", 0, b"", 0, 0)])


def test_a_zip_bomb_model_is_refused_from_its_declared_size(tmp_path: Path) -> None:
    import time

    run_dir = crafted_run(tmp_path)
    _bomb_model_zip(run_dir / "checkpoints" / STEP / "model.zip")
    began = time.perf_counter()
    with pytest.raises(CheckpointError, match="policy.pth would inflate to 3,145,728,000"):
        read_checkpoint(run_dir / "checkpoints" / STEP, run_dir / "pool")
    assert time.perf_counter() - began < 1.0


def test_an_export_of_a_zip_bomb_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from zavandor_env.train.ppo.export import main

    _bomb_model_zip(tmp_path / "bomb.zip")
    assert main([str(tmp_path / "bomb.zip")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "would inflate to" in err, err


def test_nan_tensors_in_a_checkpoint_are_a_broken_checkpoint(tmp_path: Path) -> None:
    import torch

    run_dir = crafted_run(tmp_path)
    with zipfile.ZipFile(run_dir / "checkpoints" / STEP / "model.zip", "w") as zf:
        for group in ("policy", "policy.optimizer"):
            buffer = io.BytesIO()
            torch.save({"state": {0: {"exp_avg": torch.tensor([1.0, float("nan")])}}}, buffer)
            zf.writestr(f"{group}.pth", buffer.getvalue())
    with pytest.raises(CheckpointError, match="policy.pth holds NaN"):
        read_checkpoint(run_dir / "checkpoints" / STEP, run_dir / "pool")


def test_a_nan_pool_snapshot_is_a_broken_checkpoint_not_a_crash_later(tmp_path: Path) -> None:
    import numpy as np

    from zavandor_env.agents.policy_file import NumpyPolicy, save_policy
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    run_dir = crafted_run(tmp_path, state={"pool": {"snapshots": [["snap@1", "snap_1.npz"]]}})
    bias = np.zeros(NUM_ACTIONS, np.float32)
    bias[0] = np.nan
    policy = NumpyPolicy([np.zeros((NUM_ACTIONS, OBS_SIZE), np.float32)], [bias])
    save_policy(policy, run_dir / "pool" / "snap_1.npz")
    with pytest.raises(CheckpointError, match="pool snapshot snap_1.npz: .*NaN"):
        read_checkpoint(run_dir / "checkpoints" / STEP, run_dir / "pool")


@pytest.mark.parametrize("text", ["[" * 100_000, '{"eval": {"random": {"wins": 1}}}', "{"])
def test_the_closing_report_survives_a_malformed_eval_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
) -> None:
    from zavandor_env.cli.train import report

    (tmp_path / "eval.json").write_text(text)
    report(tmp_path)
    out = capsys.readouterr().out
    assert "(no figures: " in out and "--resume" in out


def test_a_run_folder_that_cannot_be_made_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "file").write_text("in the way")
    line = train_cli(capsys, "--set", f"runs_dir={tmp_path / 'file' / 'runs'}", "--quiet")
    assert "cannot write the run" in line and "file" in line


def test_a_seed_numpy_cannot_take_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    line = train_cli(capsys, "--set", f"runs_dir={tmp_path / 'runs'}", "--set",
                     f"seed={10**30}", "--quiet")
    assert "'seed'" in line and "2147483647" in line
    assert not (tmp_path / "runs").exists()
