"""A run's folder and its life, shared by every trainer: a new folder or a resumed one (locked,
its config read back, its newest intact checkpoint found), the outputs a checkpoint step
writes (checkpoint, ``policy.npz``, ``eval.json``), and the Ctrl-C that stops it.

Run layout (``<runs_dir>/<name>__<seed>__<time>/``)::

    config.yaml                  the resolved config (``--resume`` reads it back)
    resumes.jsonl                one line per ``--resume``: the step and its ``--set`` changes
    events.out.tfevents.*        TensorBoard scalars
    pool/snap_<step>.npz         frozen learner snapshots (weights-only; PPO)
    checkpoints/step_<N>/        model.zip and state.json (plus the trainer's own files); the
                                 newest two are kept
    checkpoints/LATEST           name of the newest complete checkpoint (written last)
    policy.npz                   weights-only export of the newest checkpoint
    eval.json                    the newest evaluation figures
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zavandor_env.engine.errors import PicklableError
from zavandor_env.io.folders import FolderError, hold, release
from zavandor_env.train.common.checkpointing import (
    Checkpoint,
    CheckpointError,
    CheckpointWriter,
    SaveError,
    check_shape,
    find_resumable,
    latest_checkpoint,
    obs_fingerprint,
    run_folder,
    saving,
    write_text_atomic,
)
from zavandor_env.train.config import TrainConfig, check_run, load_config

__all__ = ["TrainingInterrupted", "load_run_config", "open_run", "save_step"]


#: Runs of one name and seed started within the same second (a parallel sweep): the suffixes
#: ``-2`` ... tried before giving up.
MAX_SAME_SECOND_RUNS = 1000


class TrainingInterrupted(PicklableError, KeyboardInterrupt):
    """Ctrl-C stopped a run; ``str()`` is one line saying what was kept and how to resume.

    Attributes:
        run_dir: the run folder.
        saved_step: the step of the checkpoint written on the interrupt, or None.
        resumable: whether the run folder holds a checkpoint to resume from.
    """

    def __init__(self, run_dir: Path, saved_step: int | None, resumable: bool,
                 step: int) -> None:
        self.run_dir = run_dir
        self.saved_step = saved_step
        self.resumable = resumable
        resume = f"zavandor train --resume {shlex.quote(str(run_dir))}"
        if saved_step is not None:
            text = f"interrupted at step {step}: checkpoint saved; continue with: {resume}"
        elif resumable:
            text = (f"interrupted at step {step} during a policy update (not saved); the last "
                    f"checkpoint is kept; continue with: {resume}")
        else:
            text = f"interrupted at step {step} before any checkpoint: nothing to resume"
        super().__init__(text)


class Schedule:
    """Fires every ``every`` steps; ``next`` survives a resume through the checkpoint state."""

    def __init__(self, every: int, start: int = 0) -> None:
        self.every = every
        self.next = (start // every + 1) * every if every > 0 else -1

    def due(self, step: int) -> bool:
        if self.every <= 0 or step < self.next:
            return False
        self.next = (step // self.every + 1) * self.every
        return True


def interrupted(run_dir: Path, step: int, updating: bool,
                save: Callable[[int], None]) -> TrainingInterrupted:
    """A Ctrl-C of a step-counting trainer: save when the weights are between two updates
    (``updating`` false), then say what was kept and how to resume."""
    saved = None
    if not updating:
        try:
            save(step)
            saved = step
        except (KeyboardInterrupt, SaveError):  # a second Ctrl-C, a full disk: keep the last
            pass
    return TrainingInterrupted(run_dir, saved, latest_checkpoint(run_dir) is not None, step)


def close_quietly(*closers: Callable[[], Any]) -> None:
    """Close resources on the way out; after Ctrl-C worker processes may already be gone."""
    for close in closers:
        try:
            close()
        except (OSError, EOFError, KeyboardInterrupt):
            pass


def seed_everything(seed: int, threads: int) -> None:
    """Seed Python's, NumPy's and torch's generators; give torch ``threads`` threads (0: one
    per core this process may use)."""
    import os
    import random

    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if threads == 0:
        threads = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)
    torch.set_num_threads(threads)


def progress_bar(cfg: TrainConfig, initial: int) -> Any:
    """The tqdm bar of a step-counting run (None with ``progress_bar: false``; tqdm draws
    none when stderr is no terminal, a log file)."""
    if not cfg.progress_bar:
        return None
    from tqdm import tqdm

    return tqdm(total=cfg.ppo.total_timesteps, initial=initial, unit="step", desc=cfg.name,
                dynamic_ncols=True, disable=None)


def warn(message: str) -> None:
    """The trainers' default for warnings (a broken checkpoint skipped): one stderr line."""
    print(message, file=sys.stderr)


def new_run_dir(cfg: TrainConfig) -> Path:
    """A fresh ``<runs_dir>/<name>__<seed>__<time>`` with its ``checkpoints/`` and ``pool/``.

    The folder is claimed atomically (``mkdir`` fails when it exists): of two runs started in
    the same second with the same name and seed -- a parallel sweep -- one gets the name and
    the other ``<name>-2`` (``-3``...), and neither ever deletes the other's folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(cfg.runs_dir) / f"{cfg.name}__{cfg.seed}__{stamp}"
    base.parent.mkdir(parents=True, exist_ok=True)
    for k in range(1, MAX_SAME_SECOND_RUNS + 1):
        run_dir = base if k == 1 else base.with_name(f"{base.name}-{k}")
        try:
            run_dir.mkdir()
        except FileExistsError:
            continue
        break
    else:
        raise OSError(f"{MAX_SAME_SECOND_RUNS} run folders named {base.name!r} exist already")
    try:
        (run_dir / "checkpoints").mkdir()
        (run_dir / "pool").mkdir()
    except OSError:  # a full disk: leave no half-made run folder (this call made it)
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    return run_dir


def lock_run_folder(run_dir: Path) -> None:
    """Hold the run folder's lock (:func:`zavandor_env.io.folders.hold`) until
    :func:`~zavandor_env.io.folders.release` or this process ends: a second ``train
    --resume`` of the same folder is refused in one :class:`CheckpointError` line."""
    try:
        hold(run_dir, what=f"run folder {str(run_dir)!r}")
    except FolderError as exc:
        raise CheckpointError(str(exc)) from None


def load_run_config(run_dir: Path, overrides: list[str] | None = None) -> TrainConfig:
    """The config a run was started with (plus ``key=value`` overrides, e.g. a longer
    ``ppo.total_timesteps``)."""
    run_folder(run_dir)  # no symlink at the folder, checkpoints/, pool/ or config.yaml
    path = Path(run_dir) / "config.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"{str(run_dir)!r} is not a run folder (no config.yaml)")
    return load_config(path, overrides)


def open_run(cfg: TrainConfig | None, resume: str | Path | None, overrides: list[str] | None,
             warn: Callable[[str], None], trainer: str,
             read_extra: Callable[[Checkpoint], Any] | None = None,
             ) -> tuple[TrainConfig, Path, Checkpoint | None, Any]:
    """The config, the run folder, the checkpoint to continue from (None: a new run) and the
    warm start ``(path, policy)`` of a new run's ``init_policy`` (or None);
    ``read_extra`` reads a trainer's own checkpoint files (:func:`find_resumable`).

    A new run's agents, search and warm start are checked before its folder exists, so a
    mistake leaves nothing behind; a resumed run's config must keep the checkpoint's model
    shape (player count, network) and its trainer."""
    if resume is not None:
        run_dir = Path(resume)
        cfg = load_run_config(run_dir, overrides)
        if cfg.trainer != trainer:
            raise CheckpointError(f"{str(run_dir)!r} is a {cfg.trainer} run, not a {trainer} run")
        lock_run_folder(run_dir)  # before anything is written or pruned there
        checkpoint = find_resumable(run_dir, warn, read_extra)
        check_shape(checkpoint, cfg)
        return cfg, run_dir, checkpoint, None
    from zavandor_env.train.common.init_policy import read_init_policy

    cfg = load_config() if cfg is None else cfg
    check_run(cfg)
    init = read_init_policy(cfg) if cfg.init_policy is not None else None
    run_dir = new_run_dir(cfg)
    try:
        lock_run_folder(run_dir)
        write_text_atomic(run_dir / "config.yaml", cfg.to_yaml())
    except (OSError, CheckpointError):
        release(run_dir)
        shutil.rmtree(run_dir, ignore_errors=True)  # made by this call, holds nothing yet
        raise
    print(f"run folder: {run_dir}", flush=True)  # where to look while it runs
    return cfg, run_dir, None, init


def save_step(run_dir: Path, checkpoints: CheckpointWriter, step: int, what: str,
              write_model: Callable[[Path], Any], state: dict[str, Any],
              export: Callable[[dict[str, Any]], Any], figures: dict[str, Any],
              cfg: TrainConfig) -> None:
    """One checkpoint step of any trainer: the checkpoint (``write_model`` writes the model's
    files, ``state`` adds the trainer's own fields to the common ones), then ``policy.npz``
    (``export(info)``: the weights-only policy) and ``eval.json`` (``figures``); a full disk
    is one :class:`SaveError` line naming ``what``."""
    from zavandor_env.agents.policy_file import save_policy

    payload = {"obs_fingerprint": obs_fingerprint(), **state}
    with saving(run_dir, what):
        checkpoints.write(step, write_model, payload)
        save_policy(export({**figures, "config": cfg.to_dict()}), run_dir / "policy.npz")
        write_text_atomic(run_dir / "eval.json", json.dumps(figures, indent=2))


def league_state(checkpoint: Checkpoint | None, pool: Any) -> tuple[Any, dict[str, Any]]:
    """The rating and totals a step-counting run (PPO, RLlib) goes on with, its ``pool`` (the
    snapshot pool or the league) loaded as the checkpoint left them; fresh ones for a new run."""
    from zavandor_env.train.common.rating import PoolRating

    rating, totals = PoolRating(), {"illegal_actions": 0}
    if checkpoint is not None:
        pool.load_state_dict(checkpoint.state["pool"])
        rating.load_state_dict(checkpoint.state["rating"])
        totals.update(checkpoint.state.get("totals", {}))
    return rating, totals
