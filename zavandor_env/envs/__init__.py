"""The RL layer: PettingZoo AEC environment ``zavandor_v0``, the Gymnasium single-agent adapter
``SingleAgentEnv`` (registered as ``Zavandor-v0``), the observation layout and the benchmark.

Importing this package imports PettingZoo and Gymnasium; ``import zavandor_env.engine`` does not.
"""

from __future__ import annotations

from .. import GYM_ID, register_gymnasium
from .aec import ENV_NAME, env, raw_env
from .observation import OBS_SIZE, SLICES, ObservationEncoder, decode
from .single_agent import SingleAgentEnv

register_gymnasium()

__all__ = [
    "ENV_NAME",
    "GYM_ID",
    "OBS_SIZE",
    "SLICES",
    "ObservationEncoder",
    "SingleAgentEnv",
    "decode",
    "env",
    "raw_env",
    "register_gymnasium",
]
