"""Self-play training with sb3-contrib MaskablePPO: one linear entry point, :func:`train`.

The run folder is :mod:`zavandor_env.train.common.run`'s, with ``pool/snap_<step>.npz`` (the
frozen learner snapshots) and SB3's ``model.zip`` (weights + optimizer) in each checkpoint.
Checkpoints are written so that a kill at any moment loses at most one checkpoint interval,
and ``--resume`` loads only tensors and JSON, never pickled objects (see
:mod:`zavandor_env.train.common.checkpointing`).  Ctrl-C saves a checkpoint when the model is
between two updates and raises :class:`TrainingInterrupted`, whose message says how to resume.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zavandor_env.io.folders import release
from zavandor_env.train.common.checkpointing import (
    Checkpoint,
    CheckpointError,
    CheckpointWriter,
    does_not_fit,
    latest_checkpoint,
    model_shape,
    record_resume,
)
from zavandor_env.train.common.run import (
    TrainingInterrupted,
    close_quietly,
    interrupted,
    league_state,
    load_run_config,
    open_run,
    save_step,
    seed_everything,
    warn,
)
from zavandor_env.train.config import TrainConfig, TrainConfigError

__all__ = ["TrainingInterrupted", "latest_checkpoint", "load_run_config", "train"]

#: The ``ppo`` section's keys that are MaskablePPO's own arguments, by the same names.
PPO_ARGUMENTS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda",
                 "clip_range", "ent_coef", "vf_coef", "max_grad_norm", "target_kl")


# ---- model ------------------------------------------------------------------------------------
def make_vec_env(cfg: TrainConfig, spec: Any, start_step: int = 0) -> Any:
    """The run's ``ppo.n_envs`` training games as one SB3 VecEnv on the native core
    (:class:`~zavandor_env.envs.sb3.NativeVecEnv`, under SB3's ``VecMonitor`` for its
    ``rollout/`` charts; the environments import nothing of training).  They are seeded from
    ``cfg.seed`` and the step the run starts (or resumes) at, so a resumed run does not replay
    the same games (SB3 reseeds them with the model's seed before training)."""
    import numpy as np
    from stable_baselines3.common.vec_env import VecMonitor

    from zavandor_env.envs.sb3 import NativeVecEnv

    seed = int(np.random.SeedSequence([cfg.seed, start_step]).generate_state(1)[0])
    return VecMonitor(NativeVecEnv(cfg.ppo.n_envs, spec, cfg.num_players, seed=seed,
                                   learner_seat=cfg.learner_seat, **cfg.env_options()))


def make_model(cfg: TrainConfig, venv: Any, seed: int | None = None) -> Any:
    """A fresh MaskablePPO built from the config alone (``seed`` default: ``cfg.seed``)."""
    from sb3_contrib import MaskablePPO
    from torch import nn

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[cfg.activation]
    return MaskablePPO(
        "MlpPolicy",
        venv,
        **{key: getattr(cfg.ppo, key) for key in PPO_ARGUMENTS},
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
        raise does_not_fit(checkpoint, exc) from None
    model.num_timesteps = checkpoint.step
    model._n_updates = int(checkpoint.state.get("n_updates", 0))


# ---- the run ----------------------------------------------------------------------------------
def train(cfg: TrainConfig | None = None, resume: str | Path | None = None,
          overrides: list[str] | None = None,
          warn: Callable[[str], None] = warn) -> Path:
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
    from zavandor_env.train.common.pool import OpponentPool
    from zavandor_env.train.common.timed import TimedPolicies
    from zavandor_env.train.ppo.callbacks import SelfPlayCallback
    from zavandor_env.train.ppo.export import policy_from_sb3

    began = time.monotonic()  # max_minutes and the marks count the imitation phase too
    cfg, run_dir, checkpoint, init = open_run(cfg, resume, overrides, warn, "ppo")
    state: dict[str, Any] = checkpoint.state if checkpoint is not None else {}
    seed_everything(cfg.seed + int(state.get("step", 0)), cfg.torch_threads)
    pool = OpponentPool(run_dir / "pool", cfg)
    rating, totals = league_state(checkpoint, pool)
    timed = TimedPolicies(run_dir, cfg.keep_policy_minutes)
    timed.resume_at(state)  # the run's clock goes on
    model, venv = _build_model(cfg, pool, checkpoint, init, run_dir)
    if checkpoint is not None:
        record_resume(run_dir, checkpoint.step, overrides)  # once everything it needs loaded
    logger, writer = _charts(model, cfg, run_dir, checkpoint is None, init)
    checkpoints = CheckpointWriter(run_dir, checkpoint, shape=model_shape(cfg))

    def save_checkpoint(step: int) -> None:
        figures = {"step": step, "illegal_actions": totals["illegal_actions"],
                   "eval": {k: r.to_dict() for k, r in callback.last_eval.items()}}
        save_step(run_dir, checkpoints, step, f"checkpoint of step {step}", model.save,
                  {"n_updates": int(model._n_updates), "pool": pool.state_dict(),
                   "rating": rating.state_dict(), "totals": totals, **timed.state()},
                  lambda info: policy_from_sb3(model, info), figures, cfg)
        pool.prune_files(checkpoints.kept_snapshot_files)

    start = int(model.num_timesteps)
    callback = SelfPlayCallback(cfg, pool, rating, save_checkpoint, totals, start_step=start,
                                timed=timed, began=began)
    try:
        remaining = cfg.ppo.total_timesteps - start
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=False)
        callback.updating = False
        callback.init_callback(model)  # (again, for a resumed run that had nothing left to do)
        callback.periodic(int(model.num_timesteps), final=True)
        callback.keep_timed()
    except KeyboardInterrupt:
        raise interrupted(run_dir, int(model.num_timesteps), callback.updating,
                          save_checkpoint) from None
    finally:
        close_quietly(writer.flush, logger.close, venv.close)
        release(run_dir)
    return run_dir


def _charts(model: Any, cfg: TrainConfig, run_dir: Path, new: bool,
            init: Any) -> tuple[Any, Any]:
    """SB3's TensorBoard logger for ``model`` and its writer; a new run charts its config
    and its warm start."""
    from stable_baselines3.common.logger import TensorBoardOutputFormat, configure

    logger = configure(str(run_dir), ["tensorboard"])
    model.set_logger(logger)
    writer = next(f.writer for f in logger.output_formats
                  if isinstance(f, TensorBoardOutputFormat))
    if new:
        writer.add_text("config", cfg.to_markdown(), 0)
    if init is not None:
        writer.add_text("init_policy", f"initialised from {init[0]}", 0)
        print(f"initialised from {init[0]}")
    return logger, writer


def _build_model(cfg: TrainConfig, pool: Any, checkpoint: Checkpoint | None, init: Any,
                 run_dir: Path) -> tuple[Any, Any]:
    """The model and its environments: restored from ``checkpoint`` (then the resume is
    recorded), else warm-started from ``init`` when given."""
    from zavandor_env.agents.policy_file import PolicyFileError
    from zavandor_env.train.ppo.export import policy_into_sb3

    start_step = checkpoint.step if checkpoint is not None else 0
    venv = make_vec_env(cfg, pool.spec(), start_step)
    model = make_model(cfg, venv, seed=cfg.seed + start_step)
    try:
        if checkpoint is not None:
            restore_model(model, checkpoint)
        elif init is not None:
            policy_into_sb3(model, init[1], repr(str(init[0])))
        elif cfg.ppo.imitate_decisions:
            from zavandor_env.train.ppo.imitate import imitate

            imitate(model, cfg)
    except CheckpointError:
        close_quietly(venv.close)
        raise
    except PolicyFileError as exc:  # read_init_policy passed: the model differs from cfg
        close_quietly(venv.close)
        shutil.rmtree(run_dir, ignore_errors=True)  # made by this call: config.yaml only
        raise TrainConfigError(f"config key 'init_policy': {exc}") from None
    return model, venv
