"""PettingZoo's naming convention: ``from zavandor_env import zavandor_v0; zavandor_v0.env()``.

The version suffix changes whenever a change to the rules, observation or rewards would make
results incomparable, as in PettingZoo's own environments.
"""

from __future__ import annotations

from zavandor_env.envs.aec import env, raw_env

__all__ = ["env", "raw_env"]
