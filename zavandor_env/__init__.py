"""zavandor-env: *The Scepter of Zavandor* as a reinforcement-learning environment.

Exports (loaded lazily, so ``import zavandor_env.engine`` never imports PettingZoo, Gymnasium
or torch): :func:`env` and :class:`raw_env` (PettingZoo AEC ``zavandor_v0``, also reachable in
PettingZoo's own convention as ``from zavandor_env import zavandor_v0; zavandor_v0.env()``) and
:class:`SingleAgentEnv` (Gymnasium; ``gymnasium.make("Zavandor-v0")`` builds one against
rule-based opponents, see :func:`register_gymnasium`), and :func:`evaluate` (a seat-rotated
tournament of your own agents and specs, with Wilson intervals: ``zavandor eval`` in Python).

Subpackages: ``engine`` (the rules), ``envs`` (PettingZoo / Gymnasium), ``agents`` (players and
the tournament), ``train`` (self-play training).  The environment subpackage is ``envs``, not
``env``, so that importing it can never shadow the :func:`env` factory.

``gymnasium.make("Zavandor-v0", num_players=4)`` and ``pettingzoo.make("aec", "zavandor-v0",
num_players=4)`` work after ``import zavandor_env``, whichever is imported first: each id is
registered at once if its library is already loaded, otherwise as soon as that library
finishes importing.  ``gymnasium.make("zavandor_env:Zavandor-v0")`` works without any import.
"""

from __future__ import annotations

# Private names (a leading underscore), so that dir() and star imports show only the public API.
import importlib as _importlib
import sys as _sys
from typing import Any as _Any

#: The package's version, its one source: pyproject.toml reads it, ``zavandor --version`` prints it.
__version__ = "0.1.0"
__all__ = ["GYM_ID", "PETTINGZOO_ID", "SingleAgentEnv", "env", "evaluate", "raw_env",
           "register_gymnasium", "register_pettingzoo", "zavandor_v0"]

GYM_ID = "Zavandor-v0"
PETTINGZOO_ID = "zavandor-v0"
_LAZY = {"env": "zavandor_env.envs.aec", "raw_env": "zavandor_env.envs.aec",
         "SingleAgentEnv": "zavandor_env.envs.single_agent",
         "evaluate": "zavandor_env.eval.evaluate"}


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        return getattr(_importlib.import_module(_LAZY[name]), name)
    if name == "zavandor_v0":
        return _importlib.import_module("zavandor_env.zavandor_v0")
    raise AttributeError(f"module 'zavandor_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names (the lazy exports included, which a plain dir() would not list)."""
    return sorted({*__all__, "__version__"})


def register_gymnasium() -> None:
    """Register ``Zavandor-v0`` with Gymnasium (idempotent).

    The entry point is :func:`zavandor_env.envs.gym_entry.make_env`: a 2-player game against
    rule-based ``"novice"`` opponents that finish their games (``SingleAgentEnv()``'s default
    too; random opponents, ``opponents=None``, mostly curse themselves out in the first
    round).  The vector entry point, :func:`zavandor_env.envs.vector.make_vector_env`,
    batches those games in the native core (``gymnasium.make_vec("Zavandor-v0", 8,
    vectorization_mode="vector_entry_point")``).  Both are strings, so the adapters (and
    PettingZoo) are imported only when ``gymnasium.make`` / ``make_vec`` is called."""
    from gymnasium.envs.registration import register, registry

    if GYM_ID not in registry:
        register(id=GYM_ID, entry_point="zavandor_env.envs.gym_entry:make_env",
                 vector_entry_point="zavandor_env.envs.vector:make_vector_env")


def register_pettingzoo() -> None:
    """Register the AEC env as ``zavandor-v0`` in PettingZoo's registry (PettingZoo 1.27 and
    later; idempotent): ``pettingzoo.make("aec", "zavandor-v0", num_players=4)`` is
    :func:`zavandor_env.env` with those arguments.  An older PettingZoo has no registry: then
    nothing is registered (``zavandor_env.env()`` works with every version)."""
    import pettingzoo

    register = getattr(pettingzoo, "register", None)
    registry = getattr(pettingzoo, "aec_registry", None)
    if register is not None and registry is not None and PETTINGZOO_ID not in registry:
        register("aec", PETTINGZOO_ID, entry_point="zavandor_env.envs.aec:env")


#: The libraries whose registries get our ids, and who registers them.
_REGISTRARS = {"gymnasium": register_gymnasium, "pettingzoo": register_pettingzoo}


class _RegisterWhenLoaded:
    """A one-shot import hook: after ``import gymnasium`` (or ``pettingzoo``) completes,
    register our id there.

    It only wraps the loader of those top-level modules and removes itself once both are
    done, so it costs nothing for other imports and imports neither library itself.
    """

    def __init__(self) -> None:
        self.waiting = {name for name in _REGISTRARS if name not in _sys.modules}

    def find_spec(self, name: str, path: _Any = None, target: _Any = None) -> _Any:
        if name not in self.waiting:
            return None
        self.waiting.discard(name)
        _sys.meta_path.remove(self)  # the lookup below must not come back here
        from importlib.util import find_spec

        try:
            spec = find_spec(name)
        finally:
            if self.waiting:
                _sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module
        registrar = _REGISTRARS[name]

        def exec_and_register(module: _Any) -> None:
            exec_module(module)
            registrar()

        spec.loader.exec_module = exec_and_register  # type: ignore[method-assign]
        return spec


for _name, _registrar in _REGISTRARS.items():
    if _name in _sys.modules:
        _registrar()
if not any(isinstance(f, _RegisterWhenLoaded) for f in _sys.meta_path):
    _hook = _RegisterWhenLoaded()
    if _hook.waiting:
        _sys.meta_path.insert(0, _hook)
