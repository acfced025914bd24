"""Expert iteration's network: the torch actor-critic of the ``.npz`` format, its loss and
its training on the replay window."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from zavandor_env.train.common.checkpointing import obs_fingerprint
from zavandor_env.train.config import TrainConfig
from zavandor_env.train.exit.selfplay import BATCH_FIELDS, DecisionBatch
from zavandor_env.train.ppo.export import copy_into, layer_copies

if TYPE_CHECKING:
    import torch

    from zavandor_env.agents.policy_file import NumpyPolicy

#: Logit of an illegal action in the loss: finite (a -inf times a zero target is NaN), far
#: below any legal logit.
_MASKED_LOGIT: Final = -1e9


def _mlp(sizes: Sequence[int], activation: str) -> Any:
    from torch import nn

    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[Any] = []
    for i, (inp, out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(inp, out))
        if i < len(sizes) - 2:
            layers.append(act())
    return nn.Sequential(*layers)


def _linears(seq: Any) -> list[Any]:
    from torch import nn

    return [m for m in seq if isinstance(m, nn.Linear)]


class ExitModel:
    """The actor-critic of the ``.npz`` format in torch: two separate MLPs of ``net_arch``
    hidden sizes (actor: observation -> one logit per action; critic: observation -> value).

    Random initialisation follows SB3's (orthogonal, gain sqrt(2) for hidden layers, 0.01 for
    the logits, 1 for the value), so a cold start's prior is near uniform, as PPO's is."""

    def __init__(self, net_arch: Sequence[int], activation: str) -> None:
        from torch import nn

        from zavandor_env.encoding.observation import OBS_SIZE
        from zavandor_env.engine.actions import NUM_ACTIONS

        self.activation = activation
        self.net = nn.ModuleDict({
            "actor": _mlp([OBS_SIZE, *net_arch, NUM_ACTIONS], activation),
            "critic": _mlp([OBS_SIZE, *net_arch, 1], activation)})
        for name, last_gain in (("actor", 0.01), ("critic", 1.0)):
            linears = _linears(self.net[name])
            for k, layer in enumerate(linears):
                gain = last_gain if k == len(linears) - 1 else math.sqrt(2)
                nn.init.orthogonal_(layer.weight, gain=gain)
                nn.init.zeros_(layer.bias)

    def parameters(self) -> Any:
        return self.net.parameters()

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net["actor"](obs)  # type: ignore[no-any-return]

    def values(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net["critic"](obs).squeeze(-1)  # type: ignore[no-any-return]

    def to_policy(self, info: dict[str, Any] | None = None) -> NumpyPolicy:
        """The weights-only policy (actor and critic) of the current weights."""
        from zavandor_env.agents.policy_file import NumpyPolicy

        actor, critic = _linears(self.net["actor"]), _linears(self.net["critic"])
        return NumpyPolicy(layer_copies(actor, "weight"), layer_copies(actor, "bias"),
                           self.activation, dict(info or {}), obs_fingerprint(),
                           layer_copies(critic, "weight"), layer_copies(critic, "bias"))

    def load_policy(self, policy: NumpyPolicy) -> bool:
        """Copy a policy file's actor, and its critic when it has one, into the network (the
        shapes were checked by ``init_policy.read_init_policy``); return whether the critic
        was copied."""
        copy_into(_linears(self.net["actor"]), policy.weights, policy.biases)
        if policy.has_value:
            copy_into(_linears(self.net["critic"]), policy.value_weights or [],
                      policy.value_biases or [])
        return policy.has_value


def make_optimizer(model: ExitModel, cfg: TrainConfig) -> Any:
    import torch

    return torch.optim.Adam(model.parameters(), lr=cfg.exit.learning_rate)


def batch_losses(model: ExitModel, batch: DecisionBatch,
                 rows: np.ndarray | slice = slice(None), anchor: Any = None,
                 deviation_weight: float = 1.0) -> dict[str, Any]:
    """The loss terms of ``rows`` of ``batch`` as torch scalars: ``policy`` (cross-entropy of
    the masked policy to the target), ``value`` (MSE to the final reward), ``entropy`` (of the
    masked policy), ``target_entropy`` (of the target; ``policy - target_entropy`` is the KL
    divergence the policy still has to close) and, given an ``anchor`` actor (a frozen copy:
    observation -> logits), ``anchor_kl``, the KL divergence from the anchor's masked policy
    to the network's, and ``deviations``, the share of rows whose target's most probable
    action is not the anchor's; those rows weigh ``deviation_weight`` in ``policy``, the
    others 1 (``target_entropy`` stays unweighted)."""
    import torch

    obs, mask, target, value = (torch.from_numpy(getattr(batch, f)[rows]) for f in BATCH_FIELDS)
    logits = model.logits(obs).masked_fill(~mask, _MASKED_LOGIT)
    logp = torch.log_softmax(logits, dim=-1)
    probs = logp.exp()
    cross_entropy = -(target * logp).sum(-1)
    policy = cross_entropy.mean()
    entropy = -(probs * logp).sum(-1).mean()
    target_entropy = -(target * torch.log(target.clamp_min(1e-12))).sum(-1).mean()
    value_loss = torch.nn.functional.mse_loss(model.values(obs), value)
    terms = {"policy": policy, "value": value_loss, "entropy": entropy,
             "target_entropy": target_entropy}
    if anchor is not None:
        with torch.no_grad():
            anchor_logp = torch.log_softmax(anchor(obs).masked_fill(~mask, _MASKED_LOGIT), -1)
            deviates = target.argmax(-1) != anchor_logp.argmax(-1)
        terms["anchor_kl"] = (anchor_logp.exp() * (anchor_logp - logp)).sum(-1).mean()
        terms["deviations"] = deviates.float().mean()
        if deviation_weight != 1.0:
            weight = 1.0 + (deviation_weight - 1.0) * deviates.float()
            terms["policy"] = (cross_entropy * weight).sum() / weight.sum()
    return terms


def train_step(model: ExitModel, optimizer: Any, batch: DecisionBatch, cfg: TrainConfig,
               rng: np.random.Generator) -> dict[str, float]:
    """``n_epochs`` passes of shuffled minibatches of ``batch_size`` over ``batch``; return the
    mean loss terms of the passes (plus ``updates``, the optimizer steps taken)."""
    import copy

    import torch

    n = len(batch)
    sums: dict[str, float] = {}
    updates = 0
    # The trust region's anchor: the actor before this training, i.e. the one that played.
    anchored = cfg.exit.anchor_kl > 0 or cfg.exit.deviation_weight != 1.0
    anchor = copy.deepcopy(model.net["actor"]).requires_grad_(False) if anchored else None
    for _ in range(cfg.exit.n_epochs):
        order = rng.permutation(n)
        for begin in range(0, n, cfg.exit.batch_size):
            rows = np.sort(order[begin:begin + cfg.exit.batch_size])
            terms = batch_losses(model, batch, rows, anchor, cfg.exit.deviation_weight)
            # A frozen critic gets no gradient at all (Adam would move it even on a tiny one).
            loss = terms["policy"] + (cfg.exit.vf_coef * terms["value"] if cfg.exit.train_critic
                                      else 0.0)
            if cfg.exit.anchor_kl:
                loss = loss + cfg.exit.anchor_kl * terms["anchor_kl"]
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(list(model.parameters()), cfg.exit.max_grad_norm)
            optimizer.step()
            updates += 1
            terms["total"] = loss
            for key, term in terms.items():
                sums[key] = sums.get(key, 0.0) + float(term.detach())
    means = {key: total / max(updates, 1) for key, total in sums.items()}
    means["updates"] = float(updates)
    return means
