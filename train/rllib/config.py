"""The ``rllib`` section of a training config: what RLlib PPO on Ray adds to the ``ppo``
section, whose rollout and update keys it reads."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from zavandor_env.engine.schema import checked
from zavandor_env.io import limits
from zavandor_env.train.common.config import Natural, TrainConfigError, doc


@checked(TrainConfigError, what="rllib key", label="config key 'rllib.{}'")
class RllibConfig:
    """The RLlib trainer's own keys (``trainer: rllib``)."""

    num_env_runners: Annotated[Natural, Field(le=limits.MAX_WORKERS),
            doc("""Ray actors playing the
        training games, ``ppo.n_envs`` games each (0: play them in the trainer's process); an
        update takes ``n_steps * n_envs`` decisions of every seat per runner""")] = 1
