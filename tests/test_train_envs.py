"""The training environment: pool opponents per episode, statistics, the truncation penalty."""

from __future__ import annotations

import numpy as np

from zavandor_env.train.config import TrainConfig
from zavandor_env.train.envs import ACTION_TO_BLOCK, BLOCK_NAMES, make_training_env
from zavandor_env.train.opponents import PoolSpec


def run_episode(env, rng):
    env.reset()
    total = 0.0
    while True:
        mask = env.action_masks()
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        if terminated or truncated:
            return total, terminated, truncated, info


def test_truncated_game_is_charged_and_reported_as_terminal() -> None:
    cfg = TrainConfig(game={"max_decisions": 12}, env_kwargs={}, truncation_reward=-1.0,
                      step_reward=0.0,
                      opponent_weights={"random": 1.0})
    env = make_training_env(cfg, PoolSpec(cfg.opponent_weights), 0)()
    total, terminated, truncated, _ = run_episode(env, np.random.default_rng(0))
    assert (terminated, truncated) == (True, False)
    assert total == -1.0
    [episode] = env.pop_stats()["episodes"]
    assert not episode["terminated"]  # the statistics still know it was cut off


def test_opponents_are_redrawn_every_episode_and_labelled() -> None:
    cfg = TrainConfig(num_players=3, game={"max_decisions": 40}, env_kwargs={},
                      opponent_weights={"random": 1.0, "heuristic": 1.0})
    env = make_training_env(cfg, PoolSpec(cfg.opponent_weights), 0)()
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(12):
        run_episode(env, rng)
    for episode in env.pop_stats()["episodes"]:
        labels = episode["labels"]
        assert labels[episode["seat"]] == "learner" and labels.count("learner") == 1
        seen.add(tuple(sorted(set(labels) - {"learner"})))
    assert {("random",), ("heuristic",), ("heuristic", "random")} <= seen


def test_action_blocks_cover_every_action_and_split_the_two_auction_kinds() -> None:
    assert len(set(ACTION_TO_BLOCK.tolist())) == len(BLOCK_NAMES)
    assert {"open_artifact", "open_sentinel", "bid", "pass"} <= set(BLOCK_NAMES)


def test_step_reward_is_added_to_every_learner_decision() -> None:
    cfg = TrainConfig(game={"max_decisions": 12}, env_kwargs={}, step_reward=-0.25,
                      truncation_reward=0.0,
                      opponent_weights={"random": 1.0})
    env = make_training_env(cfg, PoolSpec(cfg.opponent_weights), 0)()
    total, _, _, _ = run_episode(env, np.random.default_rng(0))
    decisions = int(env.pop_stats()["blocks"].sum())
    assert decisions > 0
    assert total == -0.25 * decisions
