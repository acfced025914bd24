"""``import zavandor_env.openspiel``: the name the docs first gave
:mod:`zavandor_env.envs.openspiel` (importing either registers ``python_zavandor`` with
OpenSpiel)."""

from zavandor_env.envs.openspiel import *  # noqa: F403
from zavandor_env.envs.openspiel import __all__  # noqa: F401
