"""The project's masked PPO (train/ppo/algorithm.py): sampling within the mask, GAE, the
update's direction, the device, and SB3's layout (the rest is held end to end by
test_train_selfplay.py and, against a real MaskablePPO checkpoint, test_train_export.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from zavandor_env.train.ppo.algorithm import (
    MaskedPPO,
    Rollout,
    UpdateSettings,
    resolve_device,
)

OBS, ACTIONS = 6, 5
SETTINGS = UpdateSettings(n_epochs=4, batch_size=32, clip_range=0.2, ent_coef=0.0,
                          vf_coef=0.5, max_grad_norm=0.5, target_kl=None, gamma=1.0,
                          gae_lambda=0.95)


def model(seed: int = 0) -> MaskedPPO:
    return MaskedPPO(OBS, ACTIONS, [8], "tanh", 3e-3, seed=seed)


def test_sampled_actions_are_legal_and_follow_the_policy() -> None:
    ppo = model()
    obs = np.zeros((20_000, OBS), np.float32)
    mask = np.zeros((20_000, ACTIONS), bool)
    mask[:, [1, 3]] = True
    mask[::2, 4] = True
    actions, log_probs, values = ppo.act(obs, mask)
    assert mask[np.arange(len(actions)), actions].all()
    # A fresh network is nearly uniform over the legal actions (logit gain 0.01).
    assert np.mean(actions[1::2] == 1) == pytest.approx(0.5, abs=0.02)
    assert np.mean(actions[::2] == 4) == pytest.approx(1 / 3, abs=0.02)
    assert np.allclose(np.exp(log_probs[1::2]), 0.5, atol=0.05)
    assert values.shape == (20_000,)
    again = MaskedPPO(OBS, ACTIONS, [8], "tanh", 3e-3, seed=0).act(obs[:50], mask[:50])[0]
    assert np.array_equal(again, actions[:50])  # seeded: the same draws


def test_gae_matches_the_textbook_recursion_and_stops_at_a_game_end() -> None:
    rng = np.random.default_rng(0)
    steps, envs, gamma, lam = 7, 3, 0.9, 0.8
    rollout = Rollout(steps, envs, OBS, ACTIONS)
    rollout.rewards[:] = rng.normal(size=(steps, envs))
    rollout.values[:] = rng.normal(size=(steps, envs))
    rollout.ended[:] = rng.random((steps, envs)) < 0.3
    last = rng.normal(size=envs).astype(np.float32)
    rollout.finish(last, gamma, lam)
    for e in range(envs):
        adv, expected = 0.0, np.zeros(steps)
        for t in reversed(range(steps)):
            next_value = last[e] if t == steps - 1 else rollout.values[t + 1, e]
            alive = 0.0 if rollout.ended[t, e] else 1.0
            delta = rollout.rewards[t, e] + gamma * next_value * alive - rollout.values[t, e]
            adv = delta + gamma * lam * alive * adv
            expected[t] = adv
        np.testing.assert_allclose(rollout.advantages[:, e], expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rollout.returns, rollout.advantages + rollout.values)


def test_an_update_makes_the_advantaged_action_likelier() -> None:
    ppo = model(1)
    n = 256
    rollout = Rollout(n, 1, OBS, ACTIONS)
    rollout.masks[:] = True
    obs = np.zeros((n, OBS), np.float32)
    actions, log_probs, values = ppo.act(obs, np.ones((n, ACTIONS), bool))
    rollout.actions[:, 0], rollout.log_probs[:, 0], rollout.values[:, 0] = (actions, log_probs,
                                                                           values)
    rollout.rewards[:, 0] = (actions == 2).astype(np.float32)  # action 2 pays, nothing else
    rollout.ended[:] = True
    rollout.finish(np.zeros(1, np.float32), SETTINGS.gamma, SETTINGS.gae_lambda)
    with torch.no_grad():
        before = torch.softmax(ppo.policy.logits(torch.zeros(1, OBS)), -1)[0, 2].item()
    figures = ppo.update(rollout, SETTINGS)
    with torch.no_grad():
        after = torch.softmax(ppo.policy.logits(torch.zeros(1, OBS)), -1)[0, 2].item()
    assert after > before + 0.05
    assert figures["train/approx_kl"] > 0 and ppo._n_updates == 4 * (n // 32)
    assert {"train/clip_fraction", "train/value_loss", "train/explained_variance"} <= set(figures)


def test_target_kl_stops_the_update_early() -> None:
    ppo = model(2)
    rollout = Rollout(64, 1, OBS, ACTIONS)
    rollout.masks[:] = True
    rollout.actions[:, 0] = 2
    rollout.log_probs[:] = np.log(0.9)  # far from the network's: the KL is large at once
    rollout.advantages[:] = 1.0
    settings = UpdateSettings(**{**SETTINGS.__dict__, "target_kl": 1e-6})
    ppo.update(rollout, settings)
    assert ppo._n_updates == 0


def test_auto_device_is_the_cpu_without_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda" and resolve_device("cpu") == "cpu"


def test_the_device_key_is_checked() -> None:
    from zavandor_env.train.config import TrainConfigError, load_config

    assert load_config(None, []).device == "auto"
    with pytest.raises(TrainConfigError, match="device"):
        load_config(None, ["device=tpu"])
