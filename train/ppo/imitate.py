"""Imitation before self-play: the new network first copies a scripted player.

A freshly initialised network plays at random, and PPO spends its first minutes learning what
any scripted player already knows (buy gems, open auctions, end the turn).  So a new run can
start by behaviour cloning (``ppo.imitate_decisions`` > 0): the teacher (``ppo.imitate_teacher``,
an agent spec: the heuristic by default) plays every seat of games under the run's rules; each
of its decisions becomes a sample (the deciding seat's observation and mask, the teacher's
action, and the return that seat went on to receive under the run's rewards).  The actor
learns the teacher's actions (cross-entropy on the masked logits) and the critic the returns
(mean squared error), so PPO starts from a policy as good as the teacher and a value function
that already knows who is winning.  The time it takes counts in the run's clock like every
other part of the run (``keep_policy_minutes`` and ``max_minutes`` include it).

Games are played on the native core and observed by its encoder: a few hundred thousand
decisions take seconds; the fitting takes most of the phase.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from zavandor_env.agents.registry import make_agent
from zavandor_env.encoding.observation import OBS_SIZE, ObservationEncoder
from zavandor_env.engine import NUM_ACTIONS, Game
from zavandor_env.engine.outcome import game_outcome
from zavandor_env.envs.rewards import RewardConfig
from zavandor_env.train.config import TrainConfig

__all__ = ["Demonstrations", "collect", "fit", "imitate"]


@dataclass
class Demonstrations:
    """The teacher's decisions: one row per decision, any seat."""

    observations: np.ndarray  # float32 (n, OBS_SIZE)
    masks: np.ndarray  # bool (n, NUM_ACTIONS)
    actions: np.ndarray  # int64 (n,)
    returns: np.ndarray  # float32 (n,): what the deciding seat received from there on

    def __len__(self) -> int:
        return len(self.actions)


def collect(cfg: TrainConfig, decisions: int, seed: int) -> Demonstrations:
    """Play the teacher on every seat until ``decisions`` decisions are recorded."""
    encoder = ObservationEncoder()
    rewards = RewardConfig(**{k: v for k, v in cfg.env_options().items()
                              if k in RewardConfig.names()})
    teacher = make_agent(cfg.ppo.imitate_teacher, seed=seed)
    obs = np.zeros((decisions, OBS_SIZE), np.float32)
    masks = np.zeros((decisions, NUM_ACTIONS), bool)
    actions = np.zeros(decisions, np.int64)
    returns = np.zeros(decisions, np.float32)
    n, game_seed = 0, seed
    while n < decisions:
        game = Game.new(cfg.game_config(), seed=game_seed)
        game_seed += 1
        start, seats, vps = n, [], []
        while not game.is_over and n < decisions:
            seat = game.current_player
            legal = game.legal_actions()
            obs[n] = encoder.encode_game(game, seat)
            masks[n, list(legal)] = True
            actions[n] = teacher.act(None, game.view(seat), legal)
            seats.append(seat)
            vps.append(game.scores()[seat])
            game.apply(int(actions[n]))
            n += 1
        if game.is_over:
            returns[start:n] = _returns(game, rewards, seats, vps)
        else:  # the budget ran out mid-game: drop its unfinished tail
            n = start
            break
    return Demonstrations(obs[:n], masks[:n], actions[:n], returns[:n])


def _returns(game: Game, rewards: RewardConfig, seats: list[int],
             vps: list[int]) -> np.ndarray:
    """Each decision's return to go for its seat: the terminal reward (or the truncation
    reward), the VP it still gained times ``vp_delta`` and the cost of its later decisions."""
    outcome = game_outcome(game)
    final = rewards.final_rewards(outcome)
    scores = game.scores()
    left = {seat: seats.count(seat) for seat in set(seats)}
    out = np.zeros(len(seats), np.float32)
    for i, (seat, vp) in enumerate(zip(seats, vps, strict=True)):
        out[i] = (final[seat] + rewards.vp_delta * (scores[seat] - vp)
                  + rewards.step_reward * left[seat])
        left[seat] -= 1
    return out


def fit(model: Any, demos: Demonstrations, epochs: int, learning_rate: float,
        batch_size: int = 512, seed: int = 0) -> dict[str, float]:
    """Train ``model``'s (:class:`~zavandor_env.train.ppo.algorithm.MaskedPPO`) actor on the
    teacher's actions and its critic on the returns; the last epoch's mean losses and the
    actor's agreement with the teacher."""
    import torch

    from zavandor_env.train.ppo.algorithm import masked_log_probs

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    device = next(policy.parameters()).device
    tensors = [torch.as_tensor(a).to(device) for a in (demos.observations, demos.masks,
                                                       demos.actions, demos.returns)]
    figures: dict[str, float] = {}
    for _ in range(epochs):
        totals = np.zeros(3)
        for rows in np.array_split(rng.permutation(len(demos)),
                                   max(1, len(demos) // batch_size)):
            index = torch.from_numpy(rows).to(device)
            obs, mask, action, ret = (t[index] for t in tensors)
            log_p = masked_log_probs(policy.logits(obs), mask)
            actor_loss = -log_p.gather(1, action[:, None]).mean()
            critic_loss = torch.nn.functional.mse_loss(policy.values(obs), ret)
            optimizer.zero_grad()
            (actor_loss + 0.5 * critic_loss).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            agree = (log_p.argmax(-1) == action).float().mean()
            totals += np.array([actor_loss.item(), critic_loss.item(), agree.item()]) * len(rows)
        figures = dict(zip(("actor_loss", "critic_loss", "agreement"),
                           (totals / len(demos)).tolist(), strict=True))
    return figures


def imitate(model: Any, cfg: TrainConfig) -> dict[str, float]:
    """The imitation phase of a new run (see the module docstring); prints one line."""
    began = time.monotonic()
    demos = collect(cfg, cfg.ppo.imitate_decisions, seed=cfg.seed)
    figures = fit(model, demos, cfg.ppo.imitate_epochs, cfg.ppo.imitate_learning_rate,
                  seed=cfg.seed)
    figures.update(decisions=float(len(demos)), seconds=time.monotonic() - began)
    print(f"imitated {cfg.ppo.imitate_teacher} on {len(demos):,} decisions in "
          f"{figures['seconds']:.0f} s: agreement {figures['agreement']:.3f}, "
          f"value loss {figures['critic_loss']:.3f}", flush=True)
    return figures
