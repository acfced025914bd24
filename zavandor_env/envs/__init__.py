"""The RL layer: PettingZoo AEC environment ``zavandor_v0``, the Gymnasium single-agent adapter
``SingleAgentEnv``, the reward settings (``RewardConfig``), the observation layout and the
benchmark.

``SingleAgentEnv`` and the registered Gymnasium id ``Zavandor-v0`` (built by
``zavandor_env.envs.gym_entry.make_env``) play the same default opponents, the agents layer's
rule-based novice, which this package imports only when that default is used.

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
