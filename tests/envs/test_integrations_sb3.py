"""The public SB3 ``VecEnv`` over the native vector env (``zavandor_env.envs.sb3.make_vec_env``):
SB3's ``VecEnv`` contract with masks, one-line errors for bad options, and MaskablePPO
training on it without an illegal action (the training itself: docs/integrations.md)."""

from __future__ import annotations

import numpy as np
import pytest
from stable_baselines3.common.vec_env import VecEnv, VecNormalize

from zavandor_env.agents.registry import AgentSpecError
from zavandor_env.encoding.observation import OBS_SIZE
from zavandor_env.engine.outcome import Outcome
from zavandor_env.envs.sb3 import make_vec_env


def test_make_vec_env_is_an_sb3_vec_env_with_action_masks() -> None:
    venv = make_vec_env(4, num_players=3, opponents="heuristic", seed=1)
    assert isinstance(venv, VecEnv) and venv.num_envs == 4
    obs = venv.reset()
    assert obs.shape == (4, OBS_SIZE)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        masks = venv.action_masks()
        assert masks.shape == (4, 67) and masks.any(axis=1).all()
        scores = rng.random(masks.shape) + masks
        obs, rewards, dones, infos = venv.step(scores.argmax(axis=1))
        for i in np.flatnonzero(dones):
            assert isinstance(infos[i]["outcome"], Outcome) and infos[i]["outcome"].is_over
            assert infos[i]["terminal_observation"].shape == (OBS_SIZE,)
            finished += 1
    assert finished > 0


def test_sb3_wrappers_take_it() -> None:
    venv = VecNormalize(make_vec_env(2, seed=0))
    obs = venv.reset()
    obs, *_ = venv.step(venv.venv.action_masks().argmax(axis=1))  # type: ignore[attr-defined]
    assert np.isfinite(obs).all()


def test_unknown_options_are_type_errors_and_bad_specs_value_errors() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        make_vec_env(2, frameskip=4)
    with pytest.raises(ValueError, match="illegal_action must be"):
        make_vec_env(2, illegal_action="ignore")
    with pytest.raises(AgentSpecError):
        make_vec_env(2, opponents="no_such_agent")
    with pytest.raises(ValueError, match="num_envs"):
        make_vec_env(0)


def test_rule_and_reward_options_reach_the_games() -> None:
    venv = make_vec_env(2, seed=0, max_rounds=3, truncation_reward=-0.5, vp_delta=0.0)
    assert venv.venv.config.max_rounds == 3
    assert venv.venv.reward_config.truncation_reward == -0.5
