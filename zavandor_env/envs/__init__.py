"""Every face of the environment: the PettingZoo AEC environment ``zavandor_v0``
(:mod:`.aec`), the Gymnasium single-agent ``SingleAgentEnv`` (:mod:`.single_agent`) and its
registered id ``Zavandor-v0`` (:mod:`.gym_entry`), the native vector env (:mod:`.vector`), the
SB3 ``VecEnv`` (:mod:`.sb3`), the RLlib multi-agent env (:mod:`.rllib`) and the OpenSpiel game
(:mod:`.openspiel`); the options they share (:mod:`.options`, :mod:`.opponents`,
:mod:`.rewards`, :mod:`.info`, :mod:`.contract`).  Every face runs the C++ core.

Importing this package imports PettingZoo and Gymnasium; ``import zavandor_env.engine`` does not.
"""

from __future__ import annotations

from zavandor_env import GYM_ID, register_gymnasium
from zavandor_env.encoding.observation import OBS_SIZE, SLICES, ObservationEncoder, decode
from zavandor_env.envs.aec import ENV_NAME, env, raw_env
from zavandor_env.envs.rewards import RewardConfig
from zavandor_env.envs.single_agent import SingleAgentEnv

register_gymnasium()

__all__ = [
    "ENV_NAME",
    "GYM_ID",
    "OBS_SIZE",
    "SLICES",
    "ObservationEncoder",
    "RewardConfig",
    "SingleAgentEnv",
    "decode",
    "env",
    "raw_env",
    "register_gymnasium",
]
