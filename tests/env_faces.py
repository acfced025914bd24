"""Every face of the environment behind one small driver, for tests/envs/test_env_contract.py.

A face is what a library is handed: the PettingZoo AEC env, ``gymnasium.make``, ``make_vec`` in
each vectorization mode, the SB3 ``VecEnv`` and the RLlib env.  Each :class:`Face` plays
``slots`` games and answers in one shape: per slot a :class:`Slot` (the observation vector, the
reward of the last step, whether that slot's episode ended, its info unbatched, and the mask a
library samples from next).  ``raw_info`` keeps what the face itself returned (batched for the
vector faces) for the dtype checks.  Adding a face = a subclass here and a name in ``FACES``.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np

import zavandor_env
from zavandor_env.envs.info import RESULT_KEYS


@dataclass
class Slot:
    obs: np.ndarray
    reward: float
    done: bool
    info: dict[str, Any]
    mask: np.ndarray  # what a library samples the slot's next action from


class Face:
    """One face; ``make`` builds it with env ``options`` (reward, rules, illegal_action)."""

    slots = 1
    batched = False  # info values come batched (vector faces)
    info_keys = frozenset(RESULT_KEYS) | {"action_mask", "seat"}

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.env: Any = self.make(**options)
        self.raw_info: Any = None

    def make(self, **options: Any) -> Any:
        raise NotImplementedError

    def reset(self, seed: int) -> list[Slot]:
        raise NotImplementedError

    def step(self, actions: list[int]) -> list[Slot]:
        raise NotImplementedError

    def close(self) -> None:
        self.env.close()


def _unbatch(info: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """Slot i's view of a batched info (keys present for it; ``_key`` masks dropped)."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for key, value in info.items():
        if key.startswith("_") or key in ("final_obs", "final_info", "episode"):
            continue
        for i in range(n):
            if info.get(f"_{key}", np.ones(n, bool))[i]:
                out[i][key] = value[i]
    return out


class AECFace(Face):
    info_keys = frozenset(RESULT_KEYS)

    def make(self, **options: Any) -> Any:
        return zavandor_env.env(num_players=2, **options)

    def _now(self, reward: float, done: bool, info: dict[str, Any]) -> list[Slot]:
        obs, *_ = self.env.last()
        return [Slot(obs["observation"], reward, done, info, obs["action_mask"])]

    def reset(self, seed: int) -> list[Slot]:
        self.env.reset(seed=seed)
        *_, info = self.env.last()
        self.raw_info = info
        return self._now(0.0, False, info)

    def step(self, actions: list[int]) -> list[Slot]:
        env = self.env
        agent = env.agent_selection
        env.step(int(actions[0]))
        reward = float(env.rewards[agent])
        done = bool(env.terminations[agent] or env.truncations[agent])
        info = dict(env.infos[agent])
        self.raw_info = info
        if done:
            while env.agents:  # the dead agents step None, as PettingZoo requires
                env.step(None)
            obs = env.observe(agent)
            return [Slot(obs["observation"], reward, True, info, obs["action_mask"])]
        return self._now(reward, False, info)


class SingleFace(Face):
    def make(self, **options: Any) -> Any:
        return gymnasium.make("Zavandor-v0", **options)

    def reset(self, seed: int) -> list[Slot]:
        obs, info = self.env.reset(seed=seed)
        self.raw_info = info
        return [Slot(obs, 0.0, False, info, info["action_mask"])]

    def step(self, actions: list[int]) -> list[Slot]:
        obs, reward, terminated, truncated, info = self.env.step(int(actions[0]))
        self.raw_info = info
        return [Slot(obs, float(reward), bool(terminated or truncated), info,
                     info["action_mask"])]


class VectorFace(Face):
    """``gymnasium.make_vec`` in one vectorization mode (Gymnasium's NEXT_STEP autoreset)."""

    slots = 2
    batched = True
    mode = "sync"

    def make(self, **options: Any) -> Any:
        return gymnasium.make_vec("Zavandor-v0", self.slots, vectorization_mode=self.mode,
                                  **options)

    def _slots(self, obs: np.ndarray, rewards: Any, dones: Any, info: dict[str, Any]
               ) -> list[Slot]:
        self.raw_info = info
        infos = _unbatch(info, self.slots)
        return [Slot(obs[i], float(rewards[i]), bool(dones[i]), infos[i],
                     infos[i]["action_mask"]) for i in range(self.slots)]

    def reset(self, seed: int) -> list[Slot]:
        obs, info = self.env.reset(seed=seed)
        zeros = np.zeros(self.slots)
        return self._slots(obs, zeros, zeros.astype(bool), info)

    def step(self, actions: list[int]) -> list[Slot]:
        obs, rewards, terminated, truncated, info = self.env.step(np.asarray(actions))
        return self._slots(obs, rewards, terminated | truncated, info)


class AsyncFace(VectorFace):
    mode = "async"


class NativeFace(VectorFace):
    mode = "vector_entry_point"


#: The keys SB3's conventions add to a finished game's info.
SB3_KEYS = ("terminal_observation", "TimeLimit.truncated", "outcome")


class SB3Face(Face):
    """``zavandor_env.envs.sb3.make_vec_env``: SB3's conventions (same-step autoreset, one info
    dict per game; masks from ``action_masks()``, which sb3-contrib samples from)."""

    slots = 2

    def make(self, **options: Any) -> Any:
        from zavandor_env.envs.sb3 import make_vec_env

        return make_vec_env(self.slots, **options)

    def reset(self, seed: int) -> list[Slot]:
        self.env.seed(seed)
        obs = self.env.reset()
        infos = self.env.reset_infos
        self.raw_info = infos
        masks = self.env.action_masks()
        return [Slot(obs[i], 0.0, False, infos[i], masks[i]) for i in range(self.slots)]

    def step(self, actions: list[int]) -> list[Slot]:
        obs, rewards, dones, infos = self.env.step(np.asarray(actions))
        self.raw_info = infos
        masks = self.env.action_masks()
        for i in np.flatnonzero(dones):  # SB3's own keys of a finished game, set aside
            assert set(SB3_KEYS) <= set(infos[i])
        ours = [{k: v for k, v in info.items() if k not in SB3_KEYS} for info in infos]
        return [Slot(infos[i]["terminal_observation"] if dones[i] else obs[i],
                     float(rewards[i]), bool(dones[i]), ours[i], masks[i])
                for i in range(self.slots)]


def _fake_rllib() -> None:
    """Where Ray is not installed, the two names zavandor_env/envs/rllib.py imports from it (a plain
    base class and a type alias), so the RLlib face's own code still runs here."""
    names = ["ray", "ray.rllib", "ray.rllib.env", "ray.rllib.env.multi_agent_env",
             "ray.rllib.utils", "ray.rllib.utils.typing"]
    modules = {name: types.ModuleType(name) for name in names}

    class MultiAgentEnv:
        def __init__(self) -> None:
            pass

    modules["ray.rllib.env.multi_agent_env"].MultiAgentEnv = MultiAgentEnv  # type: ignore[attr-defined]
    modules["ray.rllib.utils.typing"].MultiAgentDict = dict  # type: ignore[attr-defined]
    sys.modules.update(modules)


def _has_ray() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


class RLlibFace(Face):
    """``zavandor_env.envs.rllib.ZavandorMultiAgentEnv``: one agent acts per step (its reward is the
    one it receives on its next observation, RLlib's bookkeeping); the mask is in the
    observation (RLlib's convention), not in the info."""

    info_keys = frozenset(RESULT_KEYS) | {"seat"}

    def make(self, **options: Any) -> Any:
        fake = not _has_ray()
        before = set(sys.modules)
        if fake:
            _fake_rllib()
        try:
            from zavandor_env.envs.rllib import ZavandorMultiAgentEnv
        finally:
            for name in set(sys.modules) - before if fake else ():
                if name == "ray" or name.startswith("ray."):
                    del sys.modules[name]
        illegal = options.pop("illegal_action", "terminate")
        return ZavandorMultiAgentEnv({"num_players": 2, "options": options,
                                      "illegal_action": illegal})

    def _slot(self, obs: dict[str, Any], reward: float, done: bool, info: dict[str, Any],
              agent: str) -> list[Slot]:
        self.raw_info = info
        seen = obs[agent]
        self.agent = agent
        return [Slot(seen["observations"], reward, done, info, seen["action_mask"])]

    def reset(self, seed: int) -> list[Slot]:
        obs, infos = self.env.reset(seed=seed)
        (agent,) = obs
        return self._slot(obs, 0.0, False, infos[agent], agent)

    def step(self, actions: list[int]) -> list[Slot]:
        actor = self.agent
        obs, rewards, terminated, _truncated, infos = self.env.step({actor: int(actions[0])})
        done = bool(terminated["__all__"])
        if done:
            info = {k: v for k, v in infos[actor].items() if k != "zavandor"}
            return self._slot(obs, float(rewards.get(actor, 0.0)), True, info, actor)
        (agent,) = obs
        return self._slot(obs, float(rewards.get(actor, 0.0)), False, infos[agent], agent)


#: Every face, by the name the contract table uses.
FACES: dict[str, type[Face]] = {
    "aec": AECFace, "single": SingleFace, "sync": VectorFace, "async": AsyncFace,
    "native": NativeFace, "sb3": SB3Face, "rllib": RLlibFace,
}
