"""Play a trained policy: a weights-only export (``.npz``) or, opted into, an SB3 ``.zip``.

Two file kinds are accepted:

* **Weights-only policy** (``*.npz``, the default; format in :mod:`agents.policy_file`): the
  actor's matrices plus JSON metadata, read with ``allow_pickle=False`` -- nothing in the file
  is executed.  Training writes one next to its checkpoints (``policy.npz``).
* **SB3 checkpoint** (``*.zip``, from ``MaskablePPO.save``): its ``data`` entry holds pickled
  Python objects, so loading one runs code from the file.  It is refused unless the caller
  opts in with ``trust_pickle=True`` (``PolicyAgent(path, trust_pickle=True)``,
  ``make_agent(spec, trust_pickle=True)`` or the ``--trust-pickle`` flag of ``zavandor
  eval``/``play``/``scorecard``; never an agent spec, which may come from someone's file, see
  :mod:`agents.registry`), and even then a :class:`PickleLoadWarning` says so.
  ``python -m zavandor_env.train.ppo.export x.zip`` converts one to ``.npz`` without unpickling
  anything.

:meth:`PolicyAgent.explain` reports the policy's view of its last decision (the masked action
probabilities, top ones first, and the critic's value estimate when the file holds one); the
game driver stores it in replays for the browser viewer.

Either way the action mask is always applied (``predict(..., action_masks=mask)`` for SB3;
masked logits for the export), so the agent never plays an illegal action.  A missing,
corrupt, refused or incompatible file (another observation layout, or observation or action
sizes that do not match this environment) raises :class:`PolicyLoadError` with a one-line
message naming the file and the problem.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.agents.base import Agent
from zavandor_env.agents.mcts import curse_free
from zavandor_env.agents.policy_file import NumpyPolicy, PolicyFileError, load_policy
from zavandor_env.agents.spec_params import check_agent_params
from zavandor_env.encoding.observation import OBS_SIZE
from zavandor_env.engine.actions import ACTION_NAMES, NUM_ACTIONS
from zavandor_env.engine.state import Phase
from zavandor_env.engine.view import PlayerView
from zavandor_env.extras import install_command
from zavandor_env.io.params import ParamError, one_line, regular_file
from zavandor_env.resources import data_path

#: Decisions where a bid or an auction opening can be chosen (what avoid_curse filters).
_AUCTION_PHASES = (Phase.TURN, Phase.BID)


#: A policy file is missing, unreadable, refused, or does not fit the environment: the policy
#: files' error, under the name this module always gave it.
PolicyLoadError = PolicyFileError


class PickleLoadWarning(UserWarning):
    """An SB3 ``.zip`` checkpoint is being unpickled (it can run code from the file)."""


#: How many of the most probable actions :meth:`PolicyAgent.explain` reports.
EXPLAIN_TOP = 8


class PolicyAgent(Agent):
    """A trained policy as an agent (see the module docstring).

    Args:
        path: ``.npz`` (weights-only) or ``.zip`` (MaskablePPO, needs ``trust_pickle``) file,
            or a network already in memory (a :class:`NumpyPolicy`: a pool snapshot, the
            learner in evaluation).
        seed: seeds sampling when ``deterministic`` is false.
        deterministic: play the most probable legal action (default) instead of sampling.
        device: torch device for SB3 checkpoints.
        trust_pickle: allow loading a ``.zip`` checkpoint, which unpickles objects from the
            file and so can run arbitrary code: only for files you trust.
        avoid_curse: under the rulebook's Curse (``allow_overbid``), never bid or open an
            auction it could not pay even by selling every gem: such actions are masked out
            before the policy chooses.  The shipped policies were trained with the
            affordability filter and have never seen the Curse; masking keeps them in the
            game they learned (measured: the 6-player policy wins 0.0 of 204 games against
            five naive players without it, always cursed).  Off: the raw policy.

    Raises:
        PolicyLoadError: the file is missing, unreadable, a ``.zip`` without
            ``trust_pickle=True``, or does not fit this environment.
    """

    needs_observation = True
    name = "policy"

    def __init__(self, path: str | Path | NumpyPolicy, seed: int | None = None,
                 deterministic: bool = True, device: str = "cpu", trust_pickle: bool = False,
                 avoid_curse: bool = True) -> None:
        super().__init__(seed)
        if type(trust_pickle) is not bool:  # a YAML "maybe" must not count as consent
            raise PolicyLoadError(f"trust_pickle must be true or false, got {trust_pickle!r}")
        check_agent_params("policy", {"deterministic": deterministic, "avoid_curse": avoid_curse})
        self.deterministic, self.avoid_curse = deterministic, avoid_curse
        self._model: Any = None
        self._numpy: NumpyPolicy | None = None
        if isinstance(path, NumpyPolicy):  # a network in memory (a pool snapshot, a learner)
            self._numpy = path
        else:
            self._load(path, device, trust_pickle)
        self._np_rng = np.random.default_rng(seed)
        self._last: tuple[Any, Any] | None = None  # (observation, mask) of the last decision

    @property
    def network(self) -> NumpyPolicy | None:
        """The weights-only network this agent plays (None for an SB3 ``.zip`` model)."""
        return self._numpy

    def _load(self, path: str | Path, device: str, trust_pickle: bool) -> None:
        """Read the policy file at ``path`` (see the class docstring)."""
        try:  # text naming a regular file (an integer would be read as a file descriptor)
            self.path = regular_file(path, what="policy file", resolve=data_path)
        except ParamError as exc:
            raise PolicyLoadError(str(exc)) from None
        suffix = self.path.suffix.lower()
        if suffix == ".zip":
            if not trust_pickle:
                raise PolicyLoadError(_refused_zip_message(self.path))
            warnings.warn(f"loading SB3 checkpoint {str(self.path)!r} unpickles objects from the "
                          "file, which can run arbitrary code; do this only for files you trust",
                          PickleLoadWarning, stacklevel=3)
            self._model = _load_sb3(self.path, device)
        elif suffix == ".npz":
            self._numpy = load_policy(self.path, obs_dim=OBS_SIZE, num_actions=NUM_ACTIONS)
        else:
            raise PolicyLoadError(f"{str(self.path)!r}: expected a weights-only .npz or a "
                                  "MaskablePPO .zip policy")

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        self._last = None
        if seed is not None:
            self._np_rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        if observation is None:
            raise ValueError("PolicyAgent needs the encoded observation (needs_observation)")
        obs = observation["observation"]
        mask = observation["action_mask"]
        # (A caller without a view, e.g. replaying recorded observations, gets the raw mask.)
        if (self.avoid_curse and view is not None and view.phase in _AUCTION_PHASES
                and view.config.allow_overbid):
            safe = curse_free(view, legal_actions)
            if len(safe) < len(legal_actions):
                mask = np.zeros_like(mask)
                mask[safe] = 1
        # Kept, not explained now: explain() costs a second forward pass that only replays
        # recording it should pay for.
        self._last = (obs, mask)
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

    def explain(self, top: int = EXPLAIN_TOP) -> dict[str, Any] | None:
        """The policy's view of its last decision, or None before the first one.

        Returns ``{"probs": {action_name: p, ...}, "value": v}``: the ``top`` most probable
        legal actions under the masked distribution (most probable first; the one played
        when deterministic is the first) and the critic's estimate of this seat's return,
        ``None`` for a weights-only file exported before the critic was.
        """
        if self._last is None:
            return None
        obs, mask = self._last
        if self._numpy is not None:
            probs = self._numpy.probabilities(obs, mask)
            value = self._numpy.value(obs)
        else:
            probs, value = _sb3_explain(self._model, obs, mask)
        # Legal actions the 4-decimal rounding would show as 0 are left out (noise in a list
        # of the policy's real candidates); the most probable one always stays.
        order = [int(a) for i, a in enumerate(np.argsort(-probs, kind="stable")[:top])
                 if i == 0 or round(float(probs[a]), 4) > 0]
        return {
            "probs": {ACTION_NAMES[a]: round(float(probs[a]), 4) for a in order},
            "value": None if value is None else round(float(value), 4),
        }


def _sb3_explain(model: Any, obs: Any, mask: Any) -> tuple[Any, float]:
    """Masked action probabilities and the value estimate of an SB3 model for one state."""
    import torch

    policy = model.policy
    tensor, _ = policy.obs_to_tensor(obs)
    with torch.no_grad():
        dist = policy.get_distribution(tensor, action_masks=mask.astype(bool))
        probs = dist.distribution.probs[0].cpu().numpy()
        value = float(policy.predict_values(tensor)[0, 0])
    return probs, value


def _refused_zip_message(path: Path) -> str:
    """One line: why a ``.zip`` is refused and the two ways forward."""
    name = str(path)
    return (f"refusing to load {name!r}: an SB3 .zip checkpoint is unpickled on load and can run "
            f"arbitrary code; use a weights-only .npz instead (convert without unpickling: "
            f"python -m zavandor_env.train.ppo.export {name}), or, for a file you trust, opt in "
            f"with --trust-pickle on the command line (zavandor eval/play/scorecard) or "
            f"PolicyAgent(..., trust_pickle=True) in Python")


def _load_sb3(path: Path, device: str) -> Any:
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise PolicyLoadError(
            f"loading a .zip checkpoint needs sb3-contrib: {install_command('train')}"
        ) from exc
    try:
        model = MaskablePPO.load(str(path), device=device)
    except Exception as exc:  # noqa: BLE001 -- zipfile, pickle, KeyError...: "not a checkpoint"
        detail = one_line(exc)  # one line, whatever the library wrote
        raise PolicyLoadError(
            f"{str(path)!r} is not a readable MaskablePPO checkpoint: "
            f"{type(exc).__name__}: {detail}"
        ) from None
    obs_shape = getattr(model.observation_space, "shape", None)
    n = getattr(model.action_space, "n", None)
    if obs_shape != (OBS_SIZE,):
        raise PolicyLoadError(f"{str(path)!r} expects observations of shape {obs_shape}, "
                              f"the environment gives ({OBS_SIZE},)")
    if n != NUM_ACTIONS:
        raise PolicyLoadError(f"{str(path)!r} has {n} actions, the environment has {NUM_ACTIONS}")
    return model
