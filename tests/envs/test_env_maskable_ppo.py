"""A short MaskablePPO run on the single-agent adapter never plays an illegal action."""

from __future__ import annotations

import numpy as np
import pytest

from zavandor_env.envs import SingleAgentEnv

sb3_contrib = pytest.importorskip("sb3_contrib")


def test_maskable_ppo_trains_without_illegal_actions() -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv

    envs = DummyVecEnv([lambda: SingleAgentEnv(num_players=2, max_rounds=4) for _ in range(2)])
    # One rollout (2 envs x 64 steps) and one update: a training step, not a training run.
    model = sb3_contrib.MaskablePPO("MlpPolicy", envs, n_steps=64, batch_size=64, n_epochs=1,
                                    seed=0, device="cpu", verbose=0)
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128
    assert [env.illegal_actions for env in envs.envs] == [0, 0]
    obs = envs.reset()
    actions, _ = model.predict(obs, action_masks=np.stack(envs.env_method("action_masks")))
    assert all(envs.envs[i].action_masks()[a] for i, a in enumerate(actions))


def test_maskable_ppo_finds_the_masks_through_gymnasium_make_wrappers() -> None:
    # The quickstart hands MaskablePPO the wrapped env from gymnasium.make: the masks must be
    # reachable through Gymnasium's wrappers, or MaskablePPO refuses the env.
    import gymnasium

    import zavandor_env  # noqa: F401  (registers Zavandor-v0)

    env = gymnasium.make("Zavandor-v0")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1,
                                    seed=0, device="cpu", verbose=0)
    model.learn(total_timesteps=128)
    assert env.unwrapped.illegal_actions == 0
