"""``zavandor train`` in a subprocess: one-line errors with exit code 2, Ctrl-C with a resume
line, and the no-argument quick run."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.interrupt import interrupt_after_first_checkpoint
from zavandor_env.train.common.checkpointing import latest_checkpoint, read_checkpoint
from zavandor_env.train.config import TrainConfig

TRAIN = [sys.executable, "-m", "zavandor_env.cli", "train"]


def zavandor_train(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*TRAIN, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def assert_one_line_error(result: subprocess.CompletedProcess, *words: str) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert all(w in lines[0] for w in words), lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "override, words",
    [
        ("game.max_rounds=-3", ["'game'", "max_rounds", "-3"]),
        ("game.no_such_rule=true", ["'game'", "no_such_rule"]),
        ("vp_delta=.nan", ["'vp_delta'", "finite"]),
        ("step_reward=inf", ["'step_reward'", "finite"]),
        ("truncation_reward=-.inf", ["'truncation_reward'", "finite"]),
        ("learning_rate=nan", ["'ppo.learning_rate'"]),
        ("opponent_weights.wizard=1", ["'opponent_weights'", "wizard"]),
        ("eval_opponents=[wizard]", ["'eval_opponents'", "wizard"]),
        ("env_kwargs.vp_delta=0", ["env_kwargs", "vp_delta"]),
    ],
)
def test_bad_config_value_is_one_line_and_exit_code_2(
    tmp_path: Path, override: str, words: list[str]
) -> None:
    assert_one_line_error(zavandor_train(tmp_path, "--set", override), *words)
    assert not (tmp_path / "runs").exists()  # nothing was started


def test_old_config_with_env_kwargs_names_the_new_keys(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text("name: old\nenv_kwargs:\n  reward: rank\n  vp_delta: 0.005\n")
    line = assert_one_line_error(zavandor_train(tmp_path, "--config", str(old)), "env_kwargs")
    assert 'reward: "rank", vp_delta: 0.005' in line


def broken_run(tmp_path: Path) -> Path:
    """A run folder whose only checkpoint's model.zip is not a zip."""
    run_dir = tmp_path / "runs" / "quick__1__broken"
    checkpoint = run_dir / "checkpoints" / "step_000000128"
    checkpoint.mkdir(parents=True)
    (run_dir / "pool").mkdir()
    (run_dir / "config.yaml").write_text(TrainConfig(runs_dir=str(tmp_path / "runs")).to_yaml())
    (checkpoint / "model.zip").write_bytes(b"this is not a zip archive")
    (checkpoint / "state.json").write_text(
        '{"step": 128, "pool": {"snapshots": []}, "rating": {}, "totals": {}}')
    (run_dir / "checkpoints" / "LATEST").write_text(checkpoint.name)
    return run_dir


def test_corrupt_checkpoint_on_resume_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    run_dir = broken_run(tmp_path)
    assert_one_line_error(zavandor_train(tmp_path, "--resume", str(run_dir)),
                          "no intact checkpoint", "step_000000128", "model.zip")


def test_resume_of_a_folder_that_is_no_run_is_one_line(tmp_path: Path) -> None:
    assert_one_line_error(zavandor_train(tmp_path, "--resume", str(tmp_path)), "config.yaml")


def test_missing_train_extra_says_how_to_install_it_in_one_line(tmp_path: Path) -> None:
    code = ("import sys\n"
            "for name in ('torch', 'sb3_contrib', 'stable_baselines3'):\n"
            "    sys.modules[name] = None  # as if the [train] extra were not installed\n"
            "from zavandor_env.cli import main\n"
            "sys.exit(main(['train']))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    line = assert_one_line_error(result, "torch", "sb3_contrib")
    assert 'pip install "zavandor-env[train]"' in line and 'pip install -e ".[train]"' in line


@pytest.mark.slow
def test_ctrl_c_prints_the_resume_command_and_leaves_a_resumable_run(tmp_path: Path) -> None:
    run_dir, returncode, err = interrupt_after_first_checkpoint(
        [*TRAIN, "--quiet", "--set", "total_timesteps=1000000", "--set", "n_steps=64",
         "--set", "batch_size=64", "--set", "checkpoint_every=128", "--set", "eval_games=0"],
        tmp_path)
    assert returncode == 130, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("interrupted at step ")
    assert lines[0].endswith(f"zavandor train --resume {Path('runs') / run_dir.name}")
    checkpoint = latest_checkpoint(run_dir)
    assert checkpoint is not None
    read_checkpoint(checkpoint, run_dir / "pool")  # whole: resume would take it


@pytest.mark.slow
def test_zavandor_train_without_arguments_runs_the_quick_config_within_a_minute(
    tmp_path: Path,
) -> None:
    start = time.monotonic()
    result = zavandor_train(tmp_path, timeout=120)
    elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    [run_dir] = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("quick__1__")
    assert "zavandor train --resume" in result.stdout
    assert elapsed < 60, f"the quick run took {elapsed:.0f} s"
