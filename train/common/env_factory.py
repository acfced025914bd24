"""A training config's environments: the one place where a :class:`TrainConfig` becomes the
plain parameters (players, seats, seeds, reward and rule options, the opponent pool) that the
environment faces of :mod:`zavandor_env.envs` take.  The environments import nothing of
training."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from zavandor_env.envs.opponents import PoolSpec

if TYPE_CHECKING:
    from zavandor_env.envs.sb3 import NativeVecEnv
    from zavandor_env.train.config import TrainConfig


def make_native_vec_env(cfg: TrainConfig, spec: PoolSpec, start_step: int = 0,
                        **kwargs: Any) -> NativeVecEnv:
    """The run's ``ppo.n_envs`` games on the native core, seeded from ``cfg.seed`` and the
    step the run starts (or resumes) at, so a resumed run does not replay the same games (SB3
    reseeds it with the model's seed before training); ``kwargs`` go to
    :class:`~zavandor_env.envs.sb3.NativeVecEnv` (``seed`` replaces the derived one)."""
    from zavandor_env.envs.sb3 import NativeVecEnv

    kwargs.setdefault("seed",
                      int(np.random.SeedSequence([cfg.seed, start_step]).generate_state(1)[0]))
    return NativeVecEnv(cfg.ppo.n_envs, spec, cfg.num_players, learner_seat=cfg.learner_seat,
                        **cfg.env_options(), **kwargs)
