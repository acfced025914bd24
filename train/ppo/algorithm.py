"""Masked PPO over batched native games, in one module: the network, the rollout and the update.

This is the ``ppo`` trainer's algorithm (``trainer: ppo``); :mod:`zavandor_env.train.ppo.selfplay`
drives it.  It replaces sb3-contrib's ``MaskablePPO`` loop, whose per-step Python and
distribution objects cost more than this small network's arithmetic (docs/benchmarks.md, "Where
a training run's time goes"); Stable-Baselines3 stays the route for users who train with it on
:mod:`zavandor_env.envs.sb3`.

What it keeps of MaskablePPO, so that checkpoints, exports and warm starts read the same:

* **the network**: :class:`ActorCritic` is SB3's ``MlpPolicy`` layout -- actor and critic MLPs
  apart (``mlp_extractor.policy_net`` / ``value_net``), heads ``action_net`` and ``value_net``,
  the same parameter names and order, orthogonal initialisation with SB3's gains and Adam with
  ``eps=1e-5`` -- so a MaskablePPO checkpoint's ``policy.pth`` and ``policy.optimizer.pth``
  load into it as they are, and :func:`~zavandor_env.train.ppo.export.policy_from_sb3` exports
  it;
* **the update**: clipped surrogate, advantages normalised per minibatch, unclipped value loss,
  entropy bonus, gradient-norm clipping, the ``target_kl`` early stop at 1.5x, and the same
  diagnostics (``train/approx_kl``, ``clip_fraction``, ``explained_variance``...);
* **masking**: illegal actions get a logit of -1e8 before the softmax, as
  ``MaskableCategorical`` does.

What it does differently, for speed: many games per forward pass (``ppo.n_envs``: 64 rather
than 4), actions sampled by the Gumbel-max trick on the masked logits in one tensor operation,
the rollout written into preallocated arrays, GAE in one vectorised pass over the games, and
the update on all cores (``torch_threads``) while the rollout's small forward passes keep one
thread (more would only synchronise).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from zavandor_env.train.common.checkpointing import write_model_zip

__all__ = ["ActorCritic", "MaskedPPO", "Rollout", "UpdateSettings", "mlp", "orthogonal_init"]

#: The logit of an illegal action (sb3-contrib's ``MaskableCategorical`` uses the same).
MASKED_LOGIT = -1e8
#: How an SB3 zip's ``data`` entry describes the activation (read back by the export).
ACTIVATION_REPRS = {"tanh": "<class 'torch.nn.modules.activation.Tanh'>",
                    "relu": "<class 'torch.nn.modules.activation.ReLU'>"}


ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(sizes: list[int], activation: str) -> nn.Sequential:
    """Linear layers ``sizes[0] -> sizes[1] -> ...``, each followed by the activation (SB3's
    ``MlpExtractor`` network; the RLlib module builds its own from it too)."""
    layers: list[nn.Module] = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(fan_in, fan_out), ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


def orthogonal_init(module: nn.Module, gain: float) -> None:
    """SB3's initialisation: orthogonal weights with ``gain``, zero biases."""
    for layer in module.modules():
        if isinstance(layer, nn.Linear):
            nn.init.orthogonal_(layer.weight, gain=gain)
            nn.init.zeros_(layer.bias)


class MlpExtractor(nn.Module):
    """The two hidden networks, apart (SB3's ``MlpExtractor`` without shared layers)."""

    def __init__(self, obs_dim: int, net_arch: list[int], activation: str) -> None:
        super().__init__()
        self.policy_net = mlp([obs_dim, *net_arch], activation)
        self.value_net = mlp([obs_dim, *net_arch], activation)


class ActorCritic(nn.Module):
    """The actor (masked logits) and the critic (a value), two MLPs of ``net_arch`` apart,
    in SB3's ``MlpPolicy`` layout (see the module docstring)."""

    def __init__(self, obs_dim: int, num_actions: int, net_arch: list[int],
                 activation: str) -> None:
        super().__init__()
        self.activation = activation
        self.mlp_extractor = MlpExtractor(obs_dim, net_arch, activation)
        self.action_net = nn.Linear(net_arch[-1], num_actions)
        self.value_net = nn.Linear(net_arch[-1], 1)
        # SB3's gains: sqrt(2) in the hidden layers, 0.01 for the logits (a near-uniform first
        # policy), 1 for the value.
        orthogonal_init(self.mlp_extractor.policy_net, float(np.sqrt(2)))
        orthogonal_init(self.mlp_extractor.value_net, float(np.sqrt(2)))
        orthogonal_init(self.action_net, 0.01)
        orthogonal_init(self.value_net, 1.0)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.mlp_extractor.policy_net(obs))

    def values(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_net(self.mlp_extractor.value_net(obs)).squeeze(-1)


def resolve_device(device: str) -> str:
    """``auto``: ``cuda`` when torch sees a GPU, else ``cpu``; ``cpu`` / ``cuda`` as given."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the softmax over the legal actions (``mask`` bool)."""
    return torch.log_softmax(logits.masked_fill(~mask, MASKED_LOGIT), dim=-1)


@dataclass(frozen=True)
class UpdateSettings:
    """The PPO update's hyperparameters (the ``ppo`` section's names)."""

    n_epochs: int
    batch_size: int
    clip_range: float
    ent_coef: float
    vf_coef: float
    max_grad_norm: float
    target_kl: float | None
    gamma: float
    gae_lambda: float

    @classmethod
    def of(cls, ppo: Any) -> UpdateSettings:
        return cls(**{name: getattr(ppo, name) for name in cls.__dataclass_fields__})


class Rollout:
    """``n_steps`` learner decisions of ``n_envs`` games, in preallocated arrays."""

    def __init__(self, n_steps: int, n_envs: int, obs_dim: int, num_actions: int) -> None:
        shape = (n_steps, n_envs)
        self.obs = np.zeros((*shape, obs_dim), np.float32)
        self.masks = np.zeros((*shape, num_actions), np.bool_)
        self.actions = np.zeros(shape, np.int64)
        self.log_probs = np.zeros(shape, np.float32)
        self.values = np.zeros(shape, np.float32)
        self.rewards = np.zeros(shape, np.float32)
        self.ended = np.zeros(shape, np.bool_)  # step t ended its game (nothing bootstraps)
        self.advantages = np.zeros(shape, np.float32)
        self.returns = np.zeros(shape, np.float32)

    def finish(self, last_values: np.ndarray, gamma: float, lam: float) -> None:
        """GAE(lambda) advantages and the returns the critic learns, over every game at once;
        ``last_values``: the critic's values of the observations after the last step."""
        running = np.zeros_like(last_values, dtype=np.float32)
        next_values = last_values.astype(np.float32)
        for t in range(len(self.rewards) - 1, -1, -1):
            alive = 1.0 - self.ended[t]
            delta = self.rewards[t] + gamma * next_values * alive - self.values[t]
            running = delta + gamma * lam * alive * running
            self.advantages[t] = running
            next_values = self.values[t]
        self.returns[:] = self.advantages + self.values


class MaskedPPO:
    """The learner: an :class:`ActorCritic`, its Adam optimizer, and the counters a checkpoint
    keeps (``num_timesteps``: learner decisions trained on; ``_n_updates``: gradient steps).

    Args:
        obs_dim, num_actions: the environment's sizes.
        net_arch, activation: the network (``TrainConfig.net_arch`` / ``activation``).
        learning_rate: Adam's step size.
        seed: seeds torch's generator for the initial weights and the sampling.
        device: where the network learns (:func:`resolve_device`); rollouts arrive as NumPy
            arrays on the CPU and leave as NumPy arrays.
    """

    def __init__(self, obs_dim: int, num_actions: int, net_arch: list[int], activation: str,
                 learning_rate: float, seed: int, device: str = "cpu") -> None:
        self.device = torch.device(resolve_device(device))
        self.generator = torch.Generator(self.device).manual_seed(int(seed))
        torch.manual_seed(int(seed))  # the initial weights (made on the CPU, then moved)
        self.policy = ActorCritic(obs_dim, num_actions, list(net_arch), activation).to(
            self.device)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=learning_rate, eps=1e-5)
        self.learning_rate = learning_rate
        self.num_timesteps = 0
        self._n_updates = 0

    # ---- acting ---------------------------------------------------------------------------
    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                              np.ndarray]:
        """Sampled actions, their log-probabilities and the critic's values for a batch of
        observations (float32 ``[N, D]``) and masks (bool ``[N, A]``)."""
        x = torch.from_numpy(obs).to(self.device)
        log_p = masked_log_probs(self.policy.logits(x), torch.from_numpy(mask).to(self.device))
        # Gumbel-max: argmax(log p + Gumbel noise) is a sample of p; an illegal action's
        # log p of about -1e8 never wins.
        noise = torch.rand(log_p.shape, generator=self.generator,
                           device=self.device).clamp_(min=1e-20)
        actions = (log_p - torch.log(-torch.log(noise))).argmax(dim=-1)
        chosen = log_p.gather(1, actions[:, None]).squeeze(1)
        return (actions.cpu().numpy(), chosen.cpu().numpy(),
                self.policy.values(x).cpu().numpy())

    @torch.no_grad()
    def values(self, obs: np.ndarray) -> np.ndarray:
        return self.policy.values(torch.from_numpy(obs).to(self.device)).cpu().numpy()

    # ---- learning -------------------------------------------------------------------------
    def update(self, rollout: Rollout, settings: UpdateSettings) -> dict[str, float]:
        """``n_epochs`` passes of minibatch PPO over the rollout (advantages already
        computed); returns the diagnostics SB3 charts under ``train/``."""
        n = rollout.actions.size
        flat = [torch.from_numpy(a.reshape(n, *a.shape[2:])).to(self.device) for a in (
            rollout.obs, rollout.masks, rollout.actions, rollout.log_probs, rollout.advantages,
            rollout.returns)]
        obs, masks, actions, old_log_probs, advantages, returns = flat
        batch = min(settings.batch_size, n)
        sums: dict[str, list[float]] = {"pg": [], "value": [], "entropy": [], "clip": [],
                                        "kl": []}
        loss = torch.zeros(())
        stopped = False
        for _ in range(settings.n_epochs):
            order = torch.randperm(n, generator=self.generator, device=self.device)
            for start in range(0, n - batch + 1, batch):  # full minibatches only, as SB3
                rows = order[start:start + batch]
                log_p = masked_log_probs(self.policy.logits(obs[rows]), masks[rows])
                new_log_prob = log_p.gather(1, actions[rows, None]).squeeze(1)
                # Entropy over the legal actions (an illegal one's p is 0: 0 * -1e8 = 0).
                entropy = -(log_p.exp() * log_p).sum(dim=-1)
                adv = advantages[rows]
                if len(rows) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                log_ratio = new_log_prob - old_log_probs[rows]
                ratio = log_ratio.exp()
                clipped = ratio.clamp(1 - settings.clip_range, 1 + settings.clip_range)
                pg_loss = -torch.min(adv * ratio, adv * clipped).mean()
                value_loss = nn.functional.mse_loss(self.policy.values(obs[rows]), returns[rows])
                entropy_loss = -entropy.mean()
                loss = pg_loss + settings.ent_coef * entropy_loss + settings.vf_coef * value_loss
                with torch.no_grad():
                    approx_kl = float(((ratio - 1) - log_ratio).mean())
                    sums["clip"].append(float(((ratio - 1).abs() > settings.clip_range)
                                              .float().mean()))
                sums["pg"].append(pg_loss.item())
                sums["value"].append(value_loss.item())
                sums["entropy"].append(entropy_loss.item())
                sums["kl"].append(approx_kl)
                if settings.target_kl is not None and approx_kl > 1.5 * settings.target_kl:
                    stopped = True  # as SB3: stop before this step changes the weights
                    break
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.policy.parameters(), settings.max_grad_norm)
                self.optimizer.step()
                self._n_updates += 1
            if stopped:
                break
        values, targets = rollout.values.ravel(), rollout.returns.ravel()
        spread = float(np.var(targets))
        explained = float("nan") if spread == 0 else 1 - float(np.var(targets - values)) / spread
        return {"train/policy_gradient_loss": float(np.mean(sums["pg"] or [0.0])),
                "train/value_loss": float(np.mean(sums["value"] or [0.0])),
                "train/entropy_loss": float(np.mean(sums["entropy"] or [0.0])),
                "train/approx_kl": float(np.mean(sums["kl"] or [0.0])),
                "train/clip_fraction": float(np.mean(sums["clip"] or [0.0])),
                "train/loss": loss.item(),
                "train/explained_variance": explained,
                "train/clip_range": settings.clip_range,
                "train/learning_rate": self.learning_rate,
                "train/n_updates": float(self._n_updates)}

    # ---- checkpoints ----------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """``model.zip`` in SB3's layout, without pickled objects: ``policy.pth`` and
        ``policy.optimizer.pth`` (state dicts of tensors, read back with torch's
        ``weights_only`` loader) and a plain JSON ``data`` entry that names the network, so
        ``python -m zavandor_env.train.ppo.export model.zip`` converts it."""
        data = {"policy_kwargs": {"activation_fn": ACTIVATION_REPRS[self.policy.activation],
                                  "net_arch": [m.out_features for m in
                                               self.policy.mlp_extractor.policy_net
                                               if isinstance(m, nn.Linear)]},
                "num_timesteps": self.num_timesteps, "n_updates": self._n_updates,
                "trainer": "zavandor_env.train.ppo.algorithm.MaskedPPO"}
        write_model_zip(Path(path), self.policy.state_dict(), self.optimizer.state_dict(), data)

    def set_parameters(self, params: dict[str, Any]) -> None:
        """Load a checkpoint's ``policy`` and ``policy.optimizer`` state dicts (ours or a
        MaskablePPO's: the same names); a mismatch raises ``RuntimeError`` / ``ValueError`` /
        ``KeyError`` before the optimizer is touched."""
        self.policy.load_state_dict(params["policy"], strict=True)  # (copied to the device)
        self.optimizer.load_state_dict(params["policy.optimizer"])
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate  # the config's, as SB3 sets it every update
