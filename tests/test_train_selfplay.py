"""End to end: the quick config trains, charts, checkpoints, exports, and resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zavandor_env.train.config import load_config
from zavandor_env.train.envs import BLOCK_NAMES
from zavandor_env.train.selfplay import latest_checkpoint, train

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
pytestmark = pytest.mark.slow

EXPECTED_SCALARS = {
    "eval/winrate_vs_random", "eval/winrate_vs_heuristic", "rating/learner_mu",
    "charts/mean_vp", "charts/mean_rounds", "charts/illegal_actions", "charts/env_steps_per_s",
    "train/approx_kl", "rollout/ep_rew_mean", "time/fps", "pool/snapshots",
} | {f"actions/share_{name}" for name in BLOCK_NAMES}


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
    checkpoint = latest_checkpoint(quick_run)
    assert checkpoint is not None
    state = json.loads((checkpoint / "state.json").read_text())
    assert state["step"] == 2048
    assert [label for label, _ in state["pool"]["snapshots"]] == ["snap@000001024"]
    figures = json.loads((quick_run / "eval.json").read_text())
    assert figures["illegal_actions"] == 0
    assert set(figures["eval"]) == {"random", "heuristic"}


@pytest.mark.parametrize("deterministic", [True, False])
def test_exported_policy_plays_legal_games_through_policy_agent(
    quick_run: Path, deterministic: bool
) -> None:
    from zavandor_env.agents import PolicyAgent, RandomAgent
    from zavandor_env.agents.match import play_game

    for path in (quick_run / "policy.npz", latest_checkpoint(quick_run) / "model.zip"):
        agent = PolicyAgent(path, seed=0, deterministic=deterministic)
        for seed in range(2):  # PolicyAgent raises if the policy ever picks an illegal action
            result = play_game([agent, RandomAgent(seed=seed)], seed=seed)
            assert result.decisions > 0


def test_resume_continues_the_step_count_and_the_pool(quick_run: Path) -> None:
    before = json.loads((latest_checkpoint(quick_run) / "state.json").read_text())
    train(resume=quick_run, overrides=["total_timesteps=3072", "progress_bar=false"])
    state = json.loads((latest_checkpoint(quick_run) / "state.json").read_text())
    assert state["step"] == 3072
    assert state["rating"]["games"] > before["rating"]["games"]
    labels = [label for label, _ in state["pool"]["snapshots"]]
    assert labels[: len(before["pool"]["snapshots"])] == [
        label for label, _ in before["pool"]["snapshots"]]
    data, _ = scalars(quick_run)
    steps = sorted({step for step, _ in data["train/approx_kl"]})
    assert steps[-1] == 3072 and 2048 in steps


def test_resume_of_a_folder_without_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("name: quick\n")
    with pytest.raises(FileNotFoundError, match="no complete checkpoint"):
        train(resume=tmp_path)


def test_subprocess_environments_train_and_receive_pool_snapshots(tmp_path: Path) -> None:
    cfg = load_config(CONFIGS / "quick.yaml", [
        f"runs_dir={tmp_path}", "progress_bar=false", "vec_env=subproc", "n_steps=128",
        "batch_size=64", "total_timesteps=768", "snapshot_every=256", "eval_games=0",
        "opponent_weights={snapshot: 1.0}",
    ])
    run_dir = train(cfg)
    data, _ = scalars(run_dir)
    assert data["pool/snapshots"][-1][1] == 2
    assert data["charts/illegal_actions"][-1][1] == 0
    # After the first snapshot every opponent is one: the workers got the pool.
    assert "charts/winrate_train_vs_snap" in data


def test_wall_clock_budget_stops_early_with_a_final_checkpoint(tmp_path: Path) -> None:
    cfg = load_config(CONFIGS / "quick.yaml", [
        f"runs_dir={tmp_path}", "progress_bar=false", "max_minutes=0.0001", "eval_games=1",
        "total_timesteps=1000000",
    ])
    run_dir = train(cfg)
    state = json.loads((latest_checkpoint(run_dir) / "state.json").read_text())
    assert 0 < state["step"] < 10_000
    assert json.loads((run_dir / "eval.json").read_text())["step"] == state["step"]


def test_publish_writes_weights_config_and_figures_only(
    quick_run: Path, tmp_path: Path
) -> None:
    from zavandor_env.agents import PolicyAgent
    from zavandor_env.train.publish import publish

    out = tmp_path / "published"
    figures = publish(quick_run, out, games=2)
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "eval.json", "policy.npz"]
    assert len(figures["results"]) == 4
    assert all(0 <= r["winrate_ci95"][0] <= r["winrate"] <= r["winrate_ci95"][1] <= 1
               for r in figures["results"])
    PolicyAgent(out / "policy.npz")
