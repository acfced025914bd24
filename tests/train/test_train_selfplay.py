"""End to end: the quick config trains, charts, checkpoints, exports, and resumes."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import pytest

from zavandor_env.envs.training import BLOCK_NAMES
from zavandor_env.train.common.checkpointing import (
    PARTIAL,
    CheckpointError,
    list_checkpoints,
    read_checkpoint,
)
from zavandor_env.train.config import load_config
from zavandor_env.train.ppo.selfplay import TrainingInterrupted, latest_checkpoint, train

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
pytestmark = pytest.mark.slow

EXPECTED_SCALARS = {
    "eval/winrate_vs_random", "eval/winrate_vs_heuristic", "rating/learner_mu",
    "charts/mean_vp", "charts/mean_rounds", "charts/illegal_actions", "charts/env_steps_per_s",
    "train/approx_kl", "rollout/ep_rew_mean", "time/fps", "pool/snapshots",
} | {f"actions/share_{name}" for name in BLOCK_NAMES}


def latest(run_dir: Path) -> Path:
    """The checkpoint LATEST names (the test fails if there is none)."""
    checkpoint = latest_checkpoint(run_dir)
    assert checkpoint is not None, f"{run_dir} has no complete checkpoint"
    return checkpoint


def scalars(run_dir: Path) -> tuple[dict[str, list[tuple[int, float]]], list[str]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    data = {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}
    return data, acc.Tags()["tensors"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    cfg = load_config(CONFIGS / "quick.yaml", [f"runs_dir={runs}", "progress_bar=false"])
    return train(cfg)


def test_quick_run_writes_every_chart_and_the_config_text(quick_run: Path) -> None:
    data, tensors = scalars(quick_run)
    missing = EXPECTED_SCALARS - set(data)
    assert not missing, f"missing TensorBoard tags: {sorted(missing)}"
    assert any(t.startswith("config") for t in tensors)
    assert max(step for step, _ in data["eval/winrate_vs_random"]) == 2048
    assert all(value == 0 for _, value in data["charts/illegal_actions"])
    shares = [data[f"actions/share_{name}"][-1][1] for name in BLOCK_NAMES]
    assert sum(shares) == pytest.approx(1.0)


def test_quick_run_leaves_a_complete_checkpoint_and_figures(quick_run: Path) -> None:
    checkpoint = latest(quick_run)
    state = json.loads((checkpoint / "state.json").read_text())
    assert state["step"] == 2048
    assert [label for label, _ in state["pool"]["snapshots"]] == ["snap@000001024"]
    figures = json.loads((quick_run / "eval.json").read_text())
    assert figures["illegal_actions"] == 0
    assert set(figures["eval"]) == {"random", "heuristic"}


@pytest.mark.parametrize("deterministic", [True, False])
def test_exported_policy_plays_legal_games_through_policy_agent(
    quick_run: Path, deterministic: bool, tmp_path: Path
) -> None:
    from zavandor_env.agents import PolicyAgent, RandomAgent
    from zavandor_env.eval.match import play_game
    from zavandor_env.train.ppo.export import main as export_main

    # The checkpoint's model.zip holds tensors and JSON only: the export converts it without
    # unpickling, to the same policy as the run's own policy.npz.
    converted = tmp_path / "from_zip.npz"
    assert export_main([str(latest(quick_run) / "model.zip"), str(converted)]) == 0
    for agent in (PolicyAgent(quick_run / "policy.npz", seed=0, deterministic=deterministic),
                  PolicyAgent(converted, seed=0, deterministic=deterministic)):
        for seed in range(2):  # PolicyAgent raises if the policy ever picks an illegal action
            result = play_game([agent, RandomAgent(seed=seed)], seed=seed)
            assert result.decisions > 0


def test_resume_continues_the_step_count_and_the_pool(quick_run: Path) -> None:
    before = json.loads((latest(quick_run) / "state.json").read_text())
    train(resume=quick_run, overrides=["total_timesteps=3072", "progress_bar=false"])
    state = json.loads((latest(quick_run) / "state.json").read_text())
    assert state["step"] == 3072
    # config.yaml stays the starting config; the resume's changes are recorded beside it.
    [record] = (quick_run / "resumes.jsonl").read_text().splitlines()
    assert json.loads(record) == {"resumed_from_step": 2048,
                                  "overrides": ["total_timesteps=3072", "progress_bar=false"]}
    assert state["rating"]["games"] > before["rating"]["games"]
    labels = [label for label, _ in state["pool"]["snapshots"]]
    assert labels[: len(before["pool"]["snapshots"])] == [
        label for label, _ in before["pool"]["snapshots"]]
    data, _ = scalars(quick_run)
    steps = sorted({step for step, _ in data["train/approx_kl"]})
    assert steps[-1] == 3072 and 2048 in steps


def test_resume_of_a_folder_without_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("name: quick\n")
    with pytest.raises(CheckpointError, match="no complete checkpoint"):
        train(resume=tmp_path)


def test_the_environments_receive_the_pool_snapshots(tmp_path: Path) -> None:
    cfg = load_config(CONFIGS / "quick.yaml", [
        f"runs_dir={tmp_path}", "progress_bar=false", "ppo.n_steps=128",
        "ppo.batch_size=64", "ppo.total_timesteps=768", "snapshot_every=256", "eval_games=0",
        "opponent_weights={snapshot: 1.0}",
    ])
    run_dir = train(cfg)
    data, _ = scalars(run_dir)
    assert data["pool/snapshots"][-1][1] == 2
    assert data["charts/illegal_actions"][-1][1] == 0
    # After the first snapshot every opponent is one: the environments got the pool.
    assert "charts/winrate_train_vs_snap" in data


def test_wall_clock_budget_stops_early_with_a_final_checkpoint(tmp_path: Path) -> None:
    cfg = load_config(CONFIGS / "quick.yaml", [
        f"runs_dir={tmp_path}", "progress_bar=false", "max_minutes=0.0001", "eval_games=1",
        "total_timesteps=1000000",
    ])
    run_dir = train(cfg)
    state = json.loads((latest(run_dir) / "state.json").read_text())
    assert 0 < state["step"] < 10_000
    assert json.loads((run_dir / "eval.json").read_text())["step"] == state["step"]


def test_publish_writes_weights_config_and_figures_only(
    quick_run: Path, tmp_path: Path
) -> None:
    from zavandor_env.agents import PolicyAgent
    from zavandor_env.train.common.publish import publish

    out = tmp_path / "published"
    figures = publish(quick_run, out, games=2)
    # A resumed run (the module's run is resumed by another test) adds its resume record.
    resumed = ["resumes.jsonl"] if (quick_run / "resumes.jsonl").is_file() else []
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["config.yaml", "eval.json", "policy.npz", *resumed])
    assert len(figures["results"]) == 4
    assert all(0 <= r["winrate_ci95"][0] <= r["winrate"] <= r["winrate_ci95"][1] <= 1
               for r in figures["results"])
    PolicyAgent(out / "policy.npz")


# ---- checkpoints that survive a kill, resumes that run no code -------------------------------
class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs (no except, no cleanup that saves)."""


def tiny_run(runs: Path, *extra: str) -> Path:
    """384 learner steps in rollouts of 128: checkpoints at 128, 256 and a final one at 384."""
    cfg = load_config(CONFIGS / "quick.yaml", [
        f"runs_dir={runs}", "progress_bar=false", "n_steps=64", "batch_size=64",
        "total_timesteps=384", "checkpoint_every=128", "snapshot_every=128", "eval_every=0",
        "eval_games=1", "game.max_decisions=300", *extra,
    ])
    return train(cfg)


def test_keep_policy_minutes_keeps_the_policy_that_played_at_each_mark(
    tmp_path: Path, minute_per_reading_marks: None
) -> None:
    from zavandor_env.agents import PolicyAgent
    from zavandor_env.agents.policy_file import load_policy

    run_dir = tiny_run(tmp_path, "keep_policy_minutes=[0.0001, 10000]")
    kept = load_policy(run_dir / "policy_0.0001min.npz")
    # Kept before the first update: the step count of the first rollout, not the last one.
    assert kept.info["kept_at_minutes"] == 0.0001 and kept.info["step"] == 128
    assert not (run_dir / "policy_10000min.npz").exists()
    PolicyAgent(run_dir / "policy_0.0001min.npz")


def step_of(checkpoint: Path) -> int:
    return json.loads((checkpoint / "state.json").read_text())["step"]


def test_kill_mid_save_keeps_the_previous_checkpoint_and_resume_continues_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zavandor_env.train.ppo.algorithm import MaskedPPO

    real_save = MaskedPPO.save
    calls = []

    def dying_save(self, path, *args, **kwargs):  # noqa: ANN001, ANN202
        calls.append(path)
        if len(calls) == 3:  # the final save: half a file, then the process is gone
            Path(path).write_bytes(b"PK\x03\x04truncated")
            raise Killed
        return real_save(self, path, *args, **kwargs)

    monkeypatch.setattr(MaskedPPO, "save", dying_save)
    with pytest.raises(Killed):
        tiny_run(tmp_path, "pool_size=1")
    monkeypatch.undo()
    [run_dir] = tmp_path.iterdir()
    assert step_of(latest(run_dir)) == 256
    # Both kept checkpoints are whole, pool files included (pool_size=1 dropped snap@128 from
    # the pool, but the kept checkpoint of step 128 still refers to it).
    assert [step_of(p) for p in list_checkpoints(run_dir)] == [256, 128]
    for path in list_checkpoints(run_dir):
        read_checkpoint(path, run_dir / "pool")
    train(resume=run_dir, overrides=["progress_bar=false"])
    assert step_of(latest(run_dir)) == 384
    names = sorted(p.name for p in (run_dir / "checkpoints").iterdir())
    assert names == ["LATEST", "step_000000256", "step_000000384"]  # partial folder gone


def test_kill_during_a_final_save_at_the_latest_step_leaves_that_checkpoint_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zavandor_env.train.ppo.algorithm import MaskedPPO

    run_dir = tiny_run(tmp_path)
    newest = latest(run_dir)
    before = (newest / "model.zip").read_bytes()

    def dying_save(self, path, *args, **kwargs):  # noqa: ANN001, ANN202
        Path(path).write_bytes(b"")
        raise Killed

    monkeypatch.setattr(MaskedPPO, "save", dying_save)
    with pytest.raises(Killed):  # nothing left to train: only the final save runs, and dies
        train(resume=run_dir, overrides=["progress_bar=false"])
    monkeypatch.undo()
    assert latest_checkpoint(run_dir) == newest
    assert (newest / "model.zip").read_bytes() == before
    train(resume=run_dir, overrides=["progress_bar=false", "total_timesteps=512"])
    assert step_of(latest(run_dir)) == 512


def test_empty_model_zip_in_latest_falls_back_to_the_previous_one_with_a_warning(
    tmp_path: Path,
) -> None:
    run_dir = tiny_run(tmp_path)
    broken = latest(run_dir)
    (broken / "model.zip").write_bytes(b"")
    warnings: list[str] = []
    train(resume=run_dir, overrides=["progress_bar=false", "total_timesteps=512"],
          warn=warnings.append)
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert broken.name in warnings[0] and "model.zip is empty" in warnings[0]
    assert "step_000000256" in warnings[0]
    assert step_of(latest(run_dir)) == 512


def test_a_save_at_an_existing_step_never_rewrites_that_checkpoint(tmp_path: Path) -> None:
    run_dir = tiny_run(tmp_path)
    first = latest(run_dir)
    before = (first / "model.zip").read_bytes()
    train(resume=run_dir, overrides=["progress_bar=false"])  # nothing left: a final save only
    second = latest(run_dir)
    assert second != first and step_of(second) == step_of(first) == 384
    assert (first / "model.zip").read_bytes() == before
    assert len(list_checkpoints(run_dir)) == 2


class Payload:
    """Unpickling this creates the marker file: what a malicious checkpoint would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204
        return (open, (str(self.marker), "w"))


def rewrite_zip(path: Path, replace: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    entries.update(replace)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


def crafted_payload(marker: Path) -> bytes:
    payload = pickle.dumps(Payload(marker), protocol=2)
    pickle.loads(payload)  # the payload is live: plain unpickling does create the marker
    assert marker.exists()
    marker.unlink()
    return payload


def test_pickled_payload_in_the_checkpoint_data_is_never_unpickled(tmp_path: Path) -> None:
    run_dir = tiny_run(tmp_path / "runs")
    marker = tmp_path / "pwned"
    zip_path = latest(run_dir) / "model.zip"
    with zipfile.ZipFile(zip_path) as zf:
        data = json.loads(zf.read("data"))
    encoded = base64.b64encode(crafted_payload(marker)).decode()
    for value in data.values():  # every cloudpickled entry becomes the payload
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = encoded
    rewrite_zip(zip_path, {"data": json.dumps(data).encode()})
    train(resume=run_dir, overrides=["progress_bar=false", "total_timesteps=512"])
    assert not marker.exists()
    assert step_of(latest(run_dir)) == 512


def test_pickled_payload_in_the_checkpoint_tensors_is_refused(tmp_path: Path) -> None:
    run_dir = tiny_run(tmp_path / "runs")
    marker = tmp_path / "pwned"
    crafted = latest(run_dir)
    rewrite_zip(crafted / "model.zip", {"policy.pth": crafted_payload(marker)})
    warnings: list[str] = []
    train(resume=run_dir, overrides=["progress_bar=false", "total_timesteps=512"],
          warn=warnings.append)
    assert not marker.exists()
    assert len(warnings) == 1 and crafted.name in warnings[0]
    for path in list_checkpoints(run_dir):  # and with no intact one left: refused
        rewrite_zip(path / "model.zip", {"policy.pth": crafted_payload(marker)})
    with pytest.raises(CheckpointError, match="no intact checkpoint"):
        train(resume=run_dir, overrides=["progress_bar=false"])
    assert not marker.exists()


def test_resume_with_another_net_arch_is_a_clear_error(tmp_path: Path) -> None:
    run_dir = tiny_run(tmp_path)
    with pytest.raises(CheckpointError, match=r"trained with net_arch=\[64, 64\].*net_arch=\[16\]"):
        train(resume=run_dir, overrides=["progress_bar=false", "net_arch=[16]"])
    state = json.loads((latest(run_dir) / "state.json").read_text())
    del state["model_shape"]  # a checkpoint from before shapes were recorded: the tensors say
    (latest(run_dir) / "state.json").write_text(json.dumps(state))
    with pytest.raises(CheckpointError, match="does not fit the run's config"):
        train(resume=run_dir, overrides=["progress_bar=false", "net_arch=[16]"])


# ---- Ctrl-C ----------------------------------------------------------------------------------
def test_ctrl_c_between_updates_saves_a_checkpoint_and_says_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zavandor_env.train.ppo.callbacks import SelfPlayCallback

    real_check = SelfPlayCallback.out_of_time

    def interrupted(self):  # noqa: ANN001, ANN202  (asked after every learner step)
        if self.model.num_timesteps >= 200:
            raise KeyboardInterrupt
        return real_check(self)

    monkeypatch.setattr(SelfPlayCallback, "out_of_time", interrupted)
    with pytest.raises(TrainingInterrupted) as info:
        tiny_run(tmp_path)
    monkeypatch.undo()
    run_dir = info.value.run_dir
    assert info.value.saved_step == 200
    assert f"zavandor train --resume {run_dir}" in str(info.value)
    assert "\n" not in str(info.value)
    assert step_of(latest(run_dir)) == 200
    train(resume=run_dir, overrides=["progress_bar=false"])
    assert step_of(latest(run_dir)) >= 384  # whole rollouts: 200 + 2 * 128


def test_ctrl_c_during_a_policy_update_keeps_the_last_checkpoint_unsaved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zavandor_env.train.ppo.algorithm import MaskedPPO

    real_update = MaskedPPO.update
    calls = []

    def interrupted_update(self, *args):  # noqa: ANN001, ANN002, ANN202
        calls.append(1)
        if len(calls) == 2:  # the update of the rollout from 128 to 256
            raise KeyboardInterrupt
        return real_update(self, *args)

    monkeypatch.setattr(MaskedPPO, "update", interrupted_update)
    with pytest.raises(TrainingInterrupted) as info:
        tiny_run(tmp_path)
    assert info.value.saved_step is None and info.value.resumable
    assert "zavandor train --resume" in str(info.value)
    assert step_of(latest(info.value.run_dir)) == 128


# ---- a full disk -----------------------------------------------------------------------------
@pytest.mark.parametrize("failing", ["model", "policy file"])
def test_a_full_disk_during_training_is_one_line_and_leaves_a_resumable_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    failing: str,
) -> None:
    import errno

    import numpy as np

    from zavandor_env.cli import main
    from zavandor_env.train.ppo.algorithm import MaskedPPO

    target, name = (MaskedPPO, "save") if failing == "model" else (np, "savez")
    real, calls = getattr(target, name), []

    def full_disk(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append(args)
        if len(calls) == 2:  # half a file, then the disk is full
            dest = args[-1]  # model.save(self, path), np.savez(file)
            (dest.write if hasattr(dest, "write") else Path(dest).write_bytes)(b"PK\x03\x04")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, full_disk)
    runs = tmp_path / "runs"
    settings = [f"runs_dir={runs}", "n_steps=64", "batch_size=64", "total_timesteps=384",
                "checkpoint_every=128", "snapshot_every=128", "eval_every=0", "eval_games=1",
                "game.max_decisions=300"]
    argv = ["train", "--config", str(CONFIGS / "quick.yaml"), "--quiet"]
    assert main([*argv, *(a for s in settings for a in ("--set", s))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err
    assert "step_000000128" in err and "--resume" in err
    monkeypatch.undo()
    [run_dir] = runs.iterdir()
    leftovers = [p.name for p in run_dir.rglob("*")
                 if p.name.startswith(PARTIAL) or p.name.endswith(".tmp")]
    assert leftovers == []
    assert step_of(latest(run_dir)) == 128
    train(resume=run_dir, overrides=["progress_bar=false"])
    assert step_of(latest(run_dir)) == 384
