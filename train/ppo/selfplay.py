"""Self-play training with the project's masked PPO (:mod:`zavandor_env.train.ppo.algorithm`):
one linear entry point, :func:`train`.

The run folder is :mod:`zavandor_env.train.common.run`'s, with ``pool/snap_<step>.npz`` (the
frozen learner snapshots) and ``model.zip`` (weights + optimizer, SB3's tensor layout, no
pickled objects) in each checkpoint.  Checkpoints are written so that a kill at any moment
loses at most one checkpoint interval, and ``--resume`` loads only tensors and JSON, never
pickled objects (see :mod:`zavandor_env.train.common.checkpointing`); a run checkpointed by the
former MaskablePPO trainer resumes too (the same tensors).  Ctrl-C saves a checkpoint when the
model is between two updates and raises :class:`TrainingInterrupted`, whose message says how
to resume.

One iteration: ``ppo.n_steps`` learner decisions in each of ``ppo.n_envs`` games (the
opponents, snapshots included, play inside the native core), GAE, ``ppo.n_epochs`` of
minibatch updates on every core, then the charts, snapshots, evaluations and checkpoints that
are due (:mod:`zavandor_env.train.ppo.callbacks`).
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

# ---- model ------------------------------------------------------------------------------------
def make_vec_env(cfg: TrainConfig, spec: Any, start_step: int = 0) -> Any:
    """The run's ``ppo.n_envs`` training games on the native core
    (:class:`~zavandor_env.envs.sb3.NativeVecEnv`; the environments import nothing of
    training).  They are seeded from ``cfg.seed`` and the step the run starts (or resumes) at,
    so a resumed run does not replay the same games."""
    import numpy as np

    from zavandor_env.envs.sb3 import NativeVecEnv

    seed = int(np.random.SeedSequence([cfg.seed, start_step]).generate_state(1)[0])
    return NativeVecEnv(cfg.ppo.n_envs, spec, cfg.num_players, seed=seed,
                        learner_seat=cfg.learner_seat, **cfg.env_options())


def make_model(cfg: TrainConfig, venv: Any = None, seed: int | None = None) -> Any:
    """A fresh :class:`~zavandor_env.train.ppo.algorithm.MaskedPPO` built from the config
    alone (``seed`` default: ``cfg.seed``; ``venv`` is accepted for the sizes' sake and
    unused: the observation and action sizes are the game's)."""
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS
    from zavandor_env.train.ppo.algorithm import MaskedPPO

    return MaskedPPO(OBS_SIZE, NUM_ACTIONS, list(cfg.net_arch), cfg.activation,
                     cfg.ppo.learning_rate, cfg.seed if seed is None else seed, cfg.device)


def restore_model(model: Any, checkpoint: Checkpoint) -> None:
    """Load a checkpoint's tensors and counters into a model built from the run's config."""
    try:
        model.set_parameters(checkpoint.params)
    except (RuntimeError, ValueError, KeyError, IndexError) as exc:
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
    from zavandor_env.train.ppo.callbacks import SelfPlayCallback, TensorBoardLog
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
    log = TensorBoardLog(run_dir)
    if checkpoint is None:
        log.text("config", cfg.to_markdown())
    if init is not None:
        log.text("init_policy", f"initialised from {init[0]}")
        print(f"initialised from {init[0]}")
    checkpoints = CheckpointWriter(run_dir, checkpoint, shape=model_shape(cfg))

    def save_checkpoint(step: int) -> None:
        figures = {"step": step, "illegal_actions": totals["illegal_actions"],
                   "eval": {k: r.to_dict() for k, r in callback.last_eval.items()}}
        save_step(run_dir, checkpoints, step, f"checkpoint of step {step}", model.save,
                  {"n_updates": int(model._n_updates), "pool": pool.state_dict(),
                   "rating": rating.state_dict(), "totals": totals, **timed.state()},
                  lambda info: policy_from_sb3(model, info), figures, cfg)
        pool.prune_files(checkpoints.kept_snapshot_files)

    callback = SelfPlayCallback(cfg, model, venv, log, pool, rating, save_checkpoint, totals,
                                timed=timed, began=began)
    try:
        start = int(model.num_timesteps)
        learn(model, venv, cfg, callback)
        callback.updating = False
        callback.periodic(int(model.num_timesteps), final=True)
        callback.keep_timed()
        print(callback.phases.summary(int(model.num_timesteps) - start), flush=True)
    except KeyboardInterrupt:
        raise interrupted(run_dir, int(model.num_timesteps), callback.updating,
                          save_checkpoint) from None
    finally:
        callback.close()
        close_quietly(log.close, venv.close)
        release(run_dir)
    return run_dir


def learn(model: Any, venv: Any, cfg: TrainConfig, callback: Any) -> None:
    """PPO iterations until ``ppo.total_timesteps`` learner decisions or the wall-clock
    budget: a rollout (stopped without an update when the budget runs out in it), GAE, the
    update, then the callback's periodic work."""
    import torch

    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS
    from zavandor_env.train.ppo.algorithm import Rollout, UpdateSettings

    ppo = cfg.ppo
    settings = UpdateSettings.of(ppo)
    rollout = Rollout(ppo.n_steps, ppo.n_envs, OBS_SIZE, NUM_ACTIONS)
    obs = venv.reset()
    threads = torch.get_num_threads()
    phases = callback.phases
    while model.num_timesteps < ppo.total_timesteps:
        torch.set_num_threads(1)  # small forward passes: more threads only synchronise
        for t in range(ppo.n_steps):
            with phases("forward"):
                masks = venv.action_masks()
                actions, log_probs, values = model.act(obs, masks)
                rollout.obs[t], rollout.masks[t] = obs, masks
                rollout.actions[t], rollout.log_probs[t] = actions, log_probs
                rollout.values[t] = values
            with phases("env"):
                obs, rewards, terminated, truncated = venv.step_batch(actions)
                ended = terminated | truncated
                rollout.rewards[t], rollout.ended[t] = rewards, ended
                callback.episodes.add(rewards, ended)
            model.num_timesteps += ppo.n_envs
            if callback.bar is not None:
                callback.bar.update(ppo.n_envs)
            if callback.out_of_time():
                return  # as SB3: a rollout cut short trains nothing
        with phases("checkpoint"):
            callback.keep_timed()  # the policy that played the rollout, about to be updated
        callback.updating = True
        with phases("update"):
            rollout.finish(model.values(obs), settings.gamma, settings.gae_lambda)
            torch.set_num_threads(threads)
            figures = model.update(rollout, settings)
        callback.after_update(figures, last=model.num_timesteps >= ppo.total_timesteps)


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
