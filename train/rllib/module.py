"""RLModules of the RLlib backend: the masked actor-critic, and the scripted seats.

:class:`MaskedActorCritic` is the learner ("main") and every frozen snapshot: separate actor
and critic MLPs with the shape and initialisation of SB3's ``MlpPolicy`` (``net_arch`` for
both, orthogonal weights, gain 0.01 on the action layer), so an RLlib run and a MaskablePPO
run of one config train the same network -- and export to the same weights-only file
(:mod:`zavandor_env.agents.policy_file`) by copying layers, nothing to translate.  Illegal
actions get the most negative float as logit (not ``-inf``, which would make the entropy and
KL terms NaN), so neither sampling nor the argmax can pick them.

:class:`ScriptedModule` plays a seat for a rule-based agent: it has no weights and answers
every observation with its delegate action (see :mod:`.env`).  It is never trained.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.inference_only_api import InferenceOnlyAPI
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

from zavandor_env.envs.rllib import MASK_KEY, OBS_KEY
from zavandor_env.train.ppo.algorithm import mlp, orthogonal_init

#: A logit no legal action can lose to (finite: ``-inf`` turns entropy and KL into NaN).
MASKED_LOGIT = float(torch.finfo(torch.float32).min)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Actor and critic MLPs over ``observations``; logits masked by ``action_mask``.

    ``model_config``: ``hidden`` (layer sizes, e.g. ``[64, 64]``) and ``activation``
    (``tanh`` | ``relu``).  On env runners (``inference_only``) the critic is left out.
    """

    def setup(self) -> None:
        config = cast(dict[str, Any], self.model_config or {})
        hidden = [int(n) for n in config.get("hidden", [64, 64])]
        activation = str(config.get("activation", "tanh"))
        obs_dim = int(np.prod(self.observation_space[OBS_KEY].shape))  # type: ignore[index]
        num_actions = int(self.action_space.n)  # type: ignore[union-attr]
        self.activation = activation
        self.actor = mlp([obs_dim, *hidden], activation)
        self.action_head = nn.Linear(hidden[-1], num_actions)
        self.critic = mlp([obs_dim, *hidden], activation)
        self.value_head = nn.Linear(hidden[-1], 1)
        orthogonal_init(self.actor, np.sqrt(2))
        orthogonal_init(self.critic, np.sqrt(2))
        orthogonal_init(self.action_head, 0.01)
        orthogonal_init(self.value_head, 1.0)

    def get_non_inference_attributes(self) -> list[str]:
        return ["critic", "value_head"]

    def _logits(self, batch: dict[str, Any]) -> torch.Tensor:
        obs = batch[Columns.OBS]
        logits = self.action_head(self.actor(obs[OBS_KEY]))
        return logits.masked_fill(obs[MASK_KEY] < 0.5, MASKED_LOGIT)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        obs = batch[Columns.OBS][OBS_KEY]
        return self.value_head(self.critic(obs)).squeeze(-1)


class ScriptedModule(RLModule):
    """A seat played by a rule-based agent: answers every observation with the delegate
    action ``model_config["delegate"]`` (the environment then asks the agent).

    Not a ``TorchRLModule`` on purpose: it has no weights, and RLlib's learners build an
    optimizer for every torch module they hold, which fails for an empty parameter list.
    """

    def setup(self) -> None:
        self.delegate = int(cast(dict[str, Any], self.model_config)["delegate"])

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = batch[Columns.OBS][MASK_KEY]
        return {Columns.ACTIONS: np.full(len(mask), self.delegate, dtype=np.int64)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("a scripted seat is never trained")
