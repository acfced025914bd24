"""``zavandor_env.sb3``: the name the docs first gave :mod:`zavandor_env.envs.sb3` (kept
working)."""

from zavandor_env.envs.sb3 import *  # noqa: F403
from zavandor_env.envs.sb3 import __all__  # noqa: F401
