"""Play a trained policy: a MaskablePPO checkpoint (``.zip``) or a weights-only export (``.npz``).

Two file kinds are accepted:

* **SB3 checkpoint** (``*.zip``, from ``MaskablePPO.save``): loaded with sb3-contrib.  Such a
  file holds pickled Python objects, so load only checkpoints you trust.
* **Weights-only policy** (``*.npz``, format ``zavandor-policy`` version 1, written by
  ``train.export.save_policy``): the actor's matrices plus JSON metadata, read with
  ``allow_pickle=False`` -- nothing in the file is executed.

Either way the action mask is always applied (``predict(..., action_masks=mask)`` for SB3;
masked logits for the export), so the agent never plays an illegal action.  A missing,
corrupt or incompatible file (observation or action size that does not match this
environment) raises :class:`PolicyLoadError` with a message naming the file and the problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zavandor_env.engine.view import PlayerView

from .base import Agent


class PolicyLoadError(ValueError):
    """A policy file is missing, unreadable, or does not fit the environment."""


def _env_sizes() -> tuple[int, int]:
    from zavandor_env.engine.actions import NUM_ACTIONS
    from zavandor_env.envs.observation import OBS_SIZE

    return OBS_SIZE, NUM_ACTIONS


class PolicyAgent(Agent):
    """A trained policy as an agent (see the module docstring).

    Args:
        path: ``.zip`` (MaskablePPO) or ``.npz`` (weights-only) file.
        seed: seeds sampling when ``deterministic`` is false.
        deterministic: play the most probable legal action (default) instead of sampling.
        device: torch device for SB3 checkpoints.
    """

    needs_observation = True
    name = "policy"

    def __init__(
        self,
        path: str | Path,
        seed: int | None = None,
        deterministic: bool = True,
        device: str = "cpu",
    ) -> None:
        super().__init__(seed)
        self.path = Path(path)
        self.deterministic = deterministic
        obs_dim, num_actions = _env_sizes()
        if not self.path.is_file():
            raise PolicyLoadError(f"policy file {str(self.path)!r} does not exist")
        if self.path.suffix == ".zip":
            self._model = _load_sb3(self.path, obs_dim, num_actions, device)
            self._numpy = None
        elif self.path.suffix == ".npz":
            self._model = None
            self._numpy = _load_numpy(self.path, obs_dim, num_actions)
        else:
            raise PolicyLoadError(
                f"{str(self.path)!r}: expected a MaskablePPO .zip or a weights-only .npz policy"
            )
        import numpy as np

        self._np_rng = np.random.default_rng(seed)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        if seed is not None:
            import numpy as np

            self._np_rng = np.random.default_rng(seed)

    def act(
        self,
        observation: dict[str, Any] | None,
        view: PlayerView,
        legal_actions: Sequence[int],
    ) -> int:
        if observation is None:
            raise ValueError("PolicyAgent needs the encoded observation (needs_observation)")
        obs = observation["observation"]
        mask = observation["action_mask"]
        if self._numpy is not None:
            rng = None if self.deterministic else self._np_rng
            action = self._numpy.act(obs, mask, rng, self.deterministic)
        else:
            action, _ = self._model.predict(  # type: ignore[union-attr]
                obs, action_masks=mask.astype(bool), deterministic=self.deterministic
            )
            action = int(action)
        if action not in legal_actions:  # a mask mismatch would be a bug: fail loudly
            raise RuntimeError(f"policy chose illegal action {action} despite the mask")
        return action


def _load_sb3(path: Path, obs_dim: int, num_actions: int, device: str) -> Any:
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise PolicyLoadError(
            "loading a .zip checkpoint needs sb3-contrib (pip install 'zavandor-env[rl]')"
        ) from exc
    try:
        model = MaskablePPO.load(str(path), device=device)
    except Exception as exc:  # noqa: BLE001 -- zipfile, pickle, KeyError...: "not a checkpoint"
        raise PolicyLoadError(
            f"{str(path)!r} is not a readable MaskablePPO checkpoint: {type(exc).__name__}: {exc}"
        ) from None
    obs_shape = getattr(model.observation_space, "shape", None)
    n = getattr(model.action_space, "n", None)
    if obs_shape != (obs_dim,):
        raise PolicyLoadError(
            f"{str(path)!r} expects observations of shape {obs_shape}, "
            f"the environment gives ({obs_dim},)"
        )
    if n != num_actions:
        raise PolicyLoadError(
            f"{str(path)!r} has {n} actions, the environment has {num_actions}"
        )
    return model


def _load_numpy(path: Path, obs_dim: int, num_actions: int) -> Any:
    from zavandor_env.train.export import PolicyFileError, load_policy

    try:
        return load_policy(path, obs_dim=obs_dim, num_actions=num_actions)
    except PolicyFileError as exc:
        raise PolicyLoadError(str(exc)) from None
