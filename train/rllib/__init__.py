"""The ``rllib`` training backend: RLlib PPO self-play on Ray (``backend: rllib`` in a config).

Modules: ``env`` (the game as an RLlib ``MultiAgentEnv``, scripted seats delegated to agents),
``module`` (the masked actor-critic RLModule and the scripted-seat module), ``league`` (snapshot
slots and the policy mapping function), ``stats`` (game summaries from the env runners and the
charts), ``run`` (the training loop, checkpoints, resume, Ray sessions) and ``export`` (a module
-> the weights-only policy file).  Importing this package imports nothing heavy; Ray and RLlib
are imported when a run starts (``pip install -e ".[ray]"``).
"""

from __future__ import annotations

import importlib.util

# The agents layer owns the Ray session helpers (``eval --ray`` uses them too).
from zavandor_env.eval.ray_cluster import RayConnectionError, RayMissingError, ray_session

__all__ = ["RayConnectionError", "RayMissingError", "ray_available", "ray_session"]


def ray_available() -> bool:
    """Whether Ray can be imported here (nothing is imported to find out)."""
    try:
        return importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):
        return False
