"""Self-play training with sb3-contrib MaskablePPO: one linear entry point, :func:`train`.

Run layout (``<runs_dir>/<name>__<seed>__<time>/``)::

    config.yaml                  the resolved config (``--resume`` reads it back)
    events.out.tfevents.*        TensorBoard: SB3's scalars + ours (see callbacks.py)
    pool/snap_<step>.npz         frozen learner snapshots (weights-only)
    checkpoints/step_<N>/        model.zip (SB3: weights + optimizer) and state.json
                                 (step, pool, rating, totals); only the newest is kept
    checkpoints/LATEST           name of the newest complete checkpoint (written last)
    policy.npz                   weights-only export of the newest checkpoint (agents.PolicyAgent)
    eval.json                    the newest evaluation figures

A checkpoint is complete only once ``LATEST`` names it, so a run killed while saving resumes
from the previous one: at most one checkpoint interval is lost.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .config import TrainConfig, load_config

LATEST = "LATEST"


# ---- run directory ----------------------------------------------------------------------------
def new_run_dir(cfg: TrainConfig) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(cfg.runs_dir) / f"{cfg.name}__{cfg.seed}__{stamp}"
    run_dir, k = base, 1
    while run_dir.exists():  # two runs started in the same second
        k += 1
        run_dir = base.with_name(f"{base.name}-{k}")
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "pool").mkdir()
    return run_dir


def latest_checkpoint(run_dir: Path) -> Path | None:
    pointer = run_dir / "checkpoints" / LATEST
    if not pointer.is_file():
        return None
    path = run_dir / "checkpoints" / pointer.read_text().strip()
    return path if (path / "model.zip").is_file() and (path / "state.json").is_file() else None


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def load_run_config(run_dir: Path, overrides: list[str] | None = None) -> TrainConfig:
    """The config a run was started with (plus ``key=value`` overrides, e.g. a longer
    ``total_timesteps``)."""
    path = run_dir / "config.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"{str(run_dir)!r} is not a run folder (no config.yaml)")
    cfg = load_config(path, overrides)
    return cfg


# ---- model ------------------------------------------------------------------------------------
def _seed_everything(seed: int, threads: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)


def make_vec_env(cfg: TrainConfig, spec: Any, start_step: int = 0) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from .envs import make_training_env

    thunks: list[Callable[[], Any]] = [
        make_training_env(cfg, spec, rank, start_step) for rank in range(cfg.n_envs)
    ]
    vec = DummyVecEnv(thunks) if cfg.vec_env == "dummy" else SubprocVecEnv(thunks)
    return VecMonitor(vec)  # SB3's rollout/ep_rew_mean and ep_len_mean


def make_model(cfg: TrainConfig, venv: Any) -> Any:
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
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )


# ---- the run ----------------------------------------------------------------------------------
def train(cfg: TrainConfig | None = None, resume: str | Path | None = None,
          overrides: list[str] | None = None) -> Path:
    """Train (or continue training) and return the run folder.

    Args:
        cfg: the config of a new run (ignored when resuming).
        resume: a run folder to continue from its newest checkpoint.
        overrides: ``key=value`` changes applied to the resumed run's config.
    """
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import TensorBoardOutputFormat, configure

    from .callbacks import SelfPlayCallback
    from .export import policy_from_sb3, save_policy
    from .pool import OpponentPool
    from .rating import PoolRating

    state: dict[str, Any] = {}
    if resume is not None:
        run_dir = Path(resume)
        cfg = load_run_config(run_dir, overrides)
        checkpoint = latest_checkpoint(run_dir)
        if checkpoint is None:
            raise FileNotFoundError(f"{str(run_dir)!r} has no complete checkpoint to resume from")
        state = json.loads((checkpoint / "state.json").read_text())
    else:
        if cfg is None:
            cfg = load_config()
        run_dir = new_run_dir(cfg)
        _write_atomic(run_dir / "config.yaml", cfg.to_yaml())
        checkpoint = None

    _seed_everything(cfg.seed + int(state.get("step", 0)), cfg.torch_threads)
    pool = OpponentPool(run_dir / "pool", cfg)
    rating = PoolRating()
    totals: dict[str, Any] = {"illegal_actions": 0}
    if state:
        pool.load_state_dict(state["pool"])
        rating.load_state_dict(state["rating"])
        totals.update(state.get("totals", {}))

    venv = make_vec_env(cfg, pool.spec(), int(state.get("step", 0)))
    if checkpoint is not None:
        model = MaskablePPO.load(checkpoint / "model.zip", env=venv, device="cpu")
    else:
        model = make_model(cfg, venv)
    logger = configure(str(run_dir), ["tensorboard"])
    model.set_logger(logger)
    writer = next(f.writer for f in logger.output_formats
                  if isinstance(f, TensorBoardOutputFormat))
    if checkpoint is None:
        writer.add_text("config", cfg.to_markdown(), 0)

    def save_checkpoint(step: int) -> None:
        folder = run_dir / "checkpoints" / f"step_{step:09d}"
        folder.mkdir(parents=True, exist_ok=True)
        model.save(folder / "model.zip")
        payload = {"step": step, "pool": pool.state_dict(), "rating": rating.state_dict(),
                   "totals": totals}
        _write_atomic(folder / "state.json", json.dumps(payload))
        figures = {"step": step, "illegal_actions": totals["illegal_actions"],
                   "eval": {k: r.to_dict() for k, r in callback.last_eval.items()}}
        save_policy(policy_from_sb3(model, {**figures, "config": cfg.to_dict()}),
                    run_dir / "policy.npz")
        _write_atomic(run_dir / "eval.json", json.dumps(figures, indent=2))
        _write_atomic(run_dir / "checkpoints" / LATEST, folder.name)
        for old in (run_dir / "checkpoints").glob("step_*"):
            if old != folder:
                shutil.rmtree(old, ignore_errors=True)
        pool.prune_files()

    start = int(model.num_timesteps)
    callback = SelfPlayCallback(cfg, pool, rating, save_checkpoint, totals, start_step=start)
    remaining = cfg.total_timesteps - start
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=False)
    step = int(model.num_timesteps)
    callback.init_callback(model)  # (again, for a resumed run that had nothing left to do)
    callback.periodic(step, final=True)
    writer.flush()
    logger.close()
    venv.close()
    return run_dir
