"""Self-play training with sb3-contrib MaskablePPO: one linear entry point, :func:`train`.

Run layout (``<runs_dir>/<name>__<seed>__<time>/``)::

    config.yaml                  the resolved config (``--resume`` reads it back)
    resumes.jsonl                one line per ``--resume``: the step and its ``--set`` changes
    events.out.tfevents.*        TensorBoard: SB3's scalars + ours (see callbacks.py)
    pool/snap_<step>.npz         frozen learner snapshots (weights-only)
    checkpoints/step_<N>/        model.zip (SB3: weights + optimizer) and state.json
                                 (step, pool, rating, totals); the newest two are kept
    checkpoints/LATEST           name of the newest complete checkpoint (written last)
    policy.npz                   weights-only export of the newest checkpoint (agents.PolicyAgent)
    eval.json                    the newest evaluation figures

Checkpoints are written so that a kill at any moment loses at most one checkpoint interval,
and ``--resume`` loads only tensors and JSON, never pickled objects (see
:mod:`train.checkpointing`).  Ctrl-C saves a checkpoint when the model is between two updates
and raises :class:`TrainingInterrupted`, whose message says how to resume.
"""

from __future__ import annotations

import json
import random
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.engine.errors import PicklableError
from zavandor_env.io.folders import FolderError, hold, release
from zavandor_env.train.checkpointing import (
    Checkpoint,
    CheckpointError,
    CheckpointWriter,
    SaveError,
    check_shape,
    find_resumable,
    latest_checkpoint,
    model_shape,
    obs_fingerprint,
    record_resume,
    run_folder,
    saving,
    write_text_atomic,
)
from zavandor_env.train.config import TrainConfig, TrainConfigError, load_config

__all__ = ["TrainingInterrupted", "latest_checkpoint", "load_run_config", "train"]


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


# ---- run directory ----------------------------------------------------------------------------
def new_run_dir(cfg: TrainConfig) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(cfg.runs_dir) / f"{cfg.name}__{cfg.seed}__{stamp}"
    run_dir, k = base, 1
    while run_dir.exists():  # two runs started in the same second
        k += 1
        run_dir = base.with_name(f"{base.name}-{k}")
    try:
        (run_dir / "checkpoints").mkdir(parents=True)
        (run_dir / "pool").mkdir()
    except OSError:  # a full disk, a file in the way: leave no half-made run folder
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
    ``total_timesteps``)."""
    run_folder(run_dir)  # no symlink at the folder, checkpoints/, pool/ or config.yaml
    path = Path(run_dir) / "config.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"{str(run_dir)!r} is not a run folder (no config.yaml)")
    return load_config(path, overrides)


def _warn(message: str) -> None:
    print(message, file=sys.stderr)


# ---- model ------------------------------------------------------------------------------------
def _seed_everything(seed: int, threads: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)


def make_vec_env(cfg: TrainConfig, spec: Any, start_step: int = 0) -> Any:
    """The run's ``n_envs`` training games as one SB3 VecEnv (see ``vec_env``)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    kind = cfg.resolved_vec_env()
    if kind == "native":
        from zavandor_env.envs.sb3_vec import make_native_vec_env

        return VecMonitor(make_native_vec_env(cfg, spec, start_step))

    from zavandor_env.envs.training import make_training_env

    thunks: list[Callable[[], Any]] = [
        make_training_env(cfg, spec, rank, start_step) for rank in range(cfg.n_envs)
    ]
    vec = DummyVecEnv(thunks) if kind == "dummy" else SubprocVecEnv(thunks)
    return VecMonitor(vec)  # SB3's rollout/ep_rew_mean and ep_len_mean


def make_model(cfg: TrainConfig, venv: Any, seed: int | None = None) -> Any:
    """A fresh MaskablePPO built from the config alone (``seed`` default: ``cfg.seed``)."""
    from sb3_contrib import MaskablePPO
    from torch import nn

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[cfg.activation]
    return MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        target_kl=cfg.target_kl,
        policy_kwargs={"net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)},
                       "activation_fn": activation},
        seed=cfg.seed if seed is None else seed,
        device="cpu",
        verbose=0,
    )


def restore_model(model: Any, checkpoint: Checkpoint) -> None:
    """Load a checkpoint's tensors and counters into a model built from the run's config."""
    try:
        model.set_parameters(checkpoint.params, exact_match=True, device="cpu")
    except (RuntimeError, ValueError, KeyError) as exc:
        detail = " ".join(str(exc).split())[:300]
        raise CheckpointError(
            f"checkpoint {checkpoint.path.name} does not fit the run's config (were net_arch or "
            f"activation changed with --set?): {detail}") from None
    model.num_timesteps = checkpoint.step
    model._n_updates = int(checkpoint.state.get("n_updates", 0))


def _close_quietly(close: Callable[[], Any]) -> None:
    """Close a resource on the way out; after Ctrl-C worker processes may already be gone."""
    try:
        close()
    except (OSError, EOFError, KeyboardInterrupt):
        pass


def _start_or_resume(cfg: TrainConfig | None, resume: str | Path | None,
                     overrides: list[str] | None, warn: Callable[[str], None],
                     ) -> tuple[TrainConfig, Path, Checkpoint | None]:
    """The config, the run folder and the checkpoint to continue from (None: a new run).
    A resumed run's config must keep the checkpoint's model shape (player count, network)."""
    if resume is not None:
        run_dir = Path(resume)
        cfg = load_run_config(run_dir, overrides)
        lock_run_folder(run_dir)  # before anything is written or pruned there
        checkpoint = find_resumable(run_dir, warn)
        check_shape(checkpoint, cfg)
        record_resume(run_dir, checkpoint.step, overrides)
        return cfg, run_dir, checkpoint
    if cfg is None:
        cfg = load_config()
    run_dir = new_run_dir(cfg)
    try:
        lock_run_folder(run_dir)
        write_text_atomic(run_dir / "config.yaml", cfg.to_yaml())
    except (OSError, CheckpointError):
        release(run_dir)
        shutil.rmtree(run_dir, ignore_errors=True)  # made by this call, holds nothing yet
        raise
    print(f"run folder: {run_dir}", flush=True)  # where to look while it runs
    return cfg, run_dir, None


# ---- the run ----------------------------------------------------------------------------------
def train(cfg: TrainConfig | None = None, resume: str | Path | None = None,
          overrides: list[str] | None = None,
          warn: Callable[[str], None] = _warn) -> Path:
    """Train (or continue training) and return the run folder.

    Args:
        cfg: the config of a new run (ignored when resuming).  Its ``init_policy`` (a
            weights-only ``.npz``) is copied into the new model before training; a resumed
            run continues from its checkpoint and never re-applies it.
        resume: a run folder to continue from its newest intact checkpoint.
        overrides: ``key=value`` changes applied to the resumed run's config.
        warn: receives one line per broken checkpoint skipped when resuming.

    Raises:
        TrainConfigError: a bad config or override, or an ``init_policy`` file that is
            missing, unreadable or does not fit the config (before any run folder is made).
        CheckpointError: no intact checkpoint to resume from, or one that does not fit.
        TrainingInterrupted: Ctrl-C (a checkpoint is saved first when that is safe).
    """
    from stable_baselines3.common.logger import TensorBoardOutputFormat, configure

    from zavandor_env.agents.policy_file import PolicyFileError, save_policy
    from zavandor_env.train.callbacks import SelfPlayCallback
    from zavandor_env.train.export import policy_from_sb3, policy_into_sb3
    from zavandor_env.train.init_policy import read_init_policy
    from zavandor_env.train.pool import OpponentPool
    from zavandor_env.train.rating import PoolRating
    from zavandor_env.train.timed import STATE_KEY as TIMED_STATE_KEY
    from zavandor_env.train.timed import TimedPolicies

    # A new run's warm start is read and checked against the config before the run folder
    # exists, so a file that does not fit leaves nothing behind.  A resumed run never reads
    # it: its own checkpoint wins (the key stays in its config.yaml as a record).
    init = None
    if resume is None:
        if cfg is None:
            cfg = load_config()
        if cfg.init_policy is not None:
            init = read_init_policy(cfg)
    cfg, run_dir, checkpoint = _start_or_resume(cfg, resume, overrides, warn)
    state: dict[str, Any] = checkpoint.state if checkpoint is not None else {}
    start_step = int(state.get("step", 0))

    _seed_everything(cfg.seed + start_step, cfg.torch_threads)
    pool = OpponentPool(run_dir / "pool", cfg)
    rating = PoolRating()
    totals: dict[str, Any] = {"illegal_actions": 0}
    if checkpoint is not None:
        pool.load_state_dict(state["pool"])
        rating.load_state_dict(state["rating"])
        totals.update(state.get("totals", {}))

    venv = make_vec_env(cfg, pool.spec(), start_step)
    model = make_model(cfg, venv, seed=cfg.seed + start_step)
    if checkpoint is not None:
        try:
            restore_model(model, checkpoint)
        except CheckpointError:
            _close_quietly(venv.close)
            raise
    elif init is not None:
        try:
            policy_into_sb3(model, init[1], repr(str(init[0])))
        except PolicyFileError as exc:  # read_init_policy passed: the model differs from cfg
            _close_quietly(venv.close)
            shutil.rmtree(run_dir, ignore_errors=True)  # made by this call: config.yaml only
            raise TrainConfigError(f"config key 'init_policy': {exc}") from None
    logger = configure(str(run_dir), ["tensorboard"])
    model.set_logger(logger)
    writer = next(f.writer for f in logger.output_formats
                  if isinstance(f, TensorBoardOutputFormat))
    if checkpoint is None:
        writer.add_text("config", cfg.to_markdown(), 0)
    if init is not None:
        line = f"initialised from {init[0]}"
        writer.add_text("init_policy", line, 0)
        print(line)
    checkpoints = CheckpointWriter(run_dir, checkpoint, shape=model_shape(cfg))
    timed = TimedPolicies(run_dir, cfg.keep_policy_minutes)
    timed.resume_at(float(state.get(TIMED_STATE_KEY, 0.0)))  # the run's clock goes on

    def save_checkpoint(step: int) -> None:
        payload = {"n_updates": int(model._n_updates), "pool": pool.state_dict(),
                   "rating": rating.state_dict(), "totals": totals,
                   "obs_fingerprint": obs_fingerprint(),
                   TIMED_STATE_KEY: timed.elapsed_minutes()}
        with saving(run_dir, f"checkpoint of step {step}"):  # a full disk: one line
            checkpoints.write(step, model.save, payload)
            figures = {"step": step, "illegal_actions": totals["illegal_actions"],
                       "eval": {k: r.to_dict() for k, r in callback.last_eval.items()}}
            save_policy(policy_from_sb3(model, {**figures, "config": cfg.to_dict()}),
                        run_dir / "policy.npz")
            write_text_atomic(run_dir / "eval.json", json.dumps(figures, indent=2))
        pool.prune_files(checkpoints.kept_snapshot_files)

    start = int(model.num_timesteps)
    callback = SelfPlayCallback(cfg, pool, rating, save_checkpoint, totals, start_step=start,
                                timed=timed)
    try:
        remaining = cfg.total_timesteps - start
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=False)
        callback.updating = False
        callback.init_callback(model)  # (again, for a resumed run that had nothing left to do)
        callback.periodic(int(model.num_timesteps), final=True)
        callback.keep_timed()
    except KeyboardInterrupt:
        raise _interrupted(run_dir, int(model.num_timesteps), callback.updating,
                           save_checkpoint) from None
    finally:
        _close_quietly(writer.flush)
        _close_quietly(logger.close)
        _close_quietly(venv.close)
        release(run_dir)
    return run_dir


def _interrupted(run_dir: Path, step: int, updating: bool,
                 save_checkpoint: Callable[[int], None]) -> TrainingInterrupted:
    """Save on Ctrl-C when the weights are between two updates; say how to resume."""
    saved = None
    if not updating:
        try:
            save_checkpoint(step)
            saved = step
        except (KeyboardInterrupt, SaveError):  # a second Ctrl-C, a full disk: keep the last
            pass
    return TrainingInterrupted(run_dir, saved, latest_checkpoint(run_dir) is not None, step)
