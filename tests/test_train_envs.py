"""The training environment (pool opponents per episode, statistics, the env's own rewards)
and the evaluation on the one game driver."""

from __future__ import annotations

import numpy as np
import pytest

from zavandor_env.agents.policy_file import NumpyPolicy
from zavandor_env.encoding.observation import OBS_SIZE
from zavandor_env.engine import GameConfig
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.envs import SingleAgentEnv
from zavandor_env.envs.training import ACTION_TO_BLOCK, BLOCK_NAMES, make_training_env
from zavandor_env.train import evaluate as evaluate_module
from zavandor_env.train.config import TrainConfig
from zavandor_env.train.evaluate import evaluate
from zavandor_env.train.opponents import PoolSpec

# Cut off after 12 decisions; no overbidding, so no one is put out of the game before that.
SHORT_GAME = {"max_decisions": 12, "allow_overbid": False}


def run_episode(env, rng):
    env.reset()
    total = 0.0
    while True:
        mask = env.action_masks()
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        if terminated or truncated:
            return total, terminated, truncated, info


def test_truncated_game_is_priced_by_the_env_and_reported_as_terminal() -> None:
    cfg = TrainConfig(game=SHORT_GAME, vp_delta=0.0, truncation_reward=-1.0, step_reward=0.0,
                      opponent_weights={"random": 1.0})
    env = make_training_env(cfg, PoolSpec(cfg.opponent_weights), 0)()
    total, terminated, truncated, _ = run_episode(env, np.random.default_rng(0))
    assert (terminated, truncated) == (True, False)
    assert total == -1.0
    [episode] = env.pop_stats()["episodes"]
    assert not episode["terminated"] and episode["winners"] == []  # cut off: nobody won


def test_step_reward_reaches_every_learner_decision() -> None:
    cfg = TrainConfig(game=SHORT_GAME, vp_delta=0.0, step_reward=-0.25, truncation_reward=0.0,
                      opponent_weights={"random": 1.0})
    env = make_training_env(cfg, PoolSpec(cfg.opponent_weights), 0)()
    total, _, _, _ = run_episode(env, np.random.default_rng(0))
    decisions = int(env.pop_stats()["blocks"].sum())
    assert decisions > 0
    assert total == pytest.approx(-0.25 * decisions)


def test_training_env_adds_no_reward_of_its_own() -> None:
    """Training passes the reward settings to the env by name and never redefines them."""
    cfg = TrainConfig(game={"max_decisions": 60}, vp_delta=0.01, step_reward=-0.125,
                      truncation_reward=-3.0, opponent_weights={"random": 1.0}, learner_seat=0)
    training = make_training_env(cfg, PoolSpec(cfg.opponent_weights), 0)()
    bare = SingleAgentEnv(num_players=2, learner_seat=0, opponents=None,  # random, as the pool
                          **cfg.env_options())
    training.reset(seed=5)
    bare.reset(seed=5)
    rng = np.random.default_rng(3)
    while True:
        action = int(rng.choice(np.flatnonzero(bare.action_masks())))
        _, mine, done, _, _ = training.step(action)
        _, theirs, terminated, truncated, _ = bare.step(action)
        assert mine == theirs
        assert done == (terminated or truncated)
        if done:
            break


def test_opponents_are_redrawn_every_episode_and_labelled() -> None:
    cfg = TrainConfig(num_players=3, game={"max_decisions": 40},
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


def test_any_registry_agent_spec_is_a_training_opponent() -> None:
    """A spec string names the agent and its parameters; train/ needs no edit per agent."""
    cfg = TrainConfig(game={"max_decisions": 30}, opponent_weights={"pass": 1.0,
                                                                     "mcts:iterations=2": 1.0})
    env = make_training_env(cfg, PoolSpec(cfg.opponent_weights), 0)()
    rng = np.random.default_rng(2)
    for _ in range(8):
        run_episode(env, rng)
    labels = {lab for e in env.pop_stats()["episodes"] for lab in e["labels"]}
    assert labels == {"learner", "pass", "mcts(iterations=2)"}


def test_action_blocks_cover_every_action_and_split_the_two_auction_kinds() -> None:
    assert len(set(ACTION_TO_BLOCK.tolist())) == len(BLOCK_NAMES)
    assert {"open_artifact", "open_sentinel", "bid", "pass"} <= set(BLOCK_NAMES)


# ---- evaluation -----------------------------------------------------------------------------
def small_policy(seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    weights = [rng.normal(size=(8, OBS_SIZE)).astype(np.float32),
               rng.normal(size=(NUM_ACTIONS, 8)).astype(np.float32)]
    biases = [np.zeros(8, np.float32), np.zeros(NUM_ACTIONS, np.float32)]
    return NumpyPolicy(weights, biases)


def test_evaluation_plays_through_the_one_driver_with_rotating_seats_and_fixed_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[int, list[str]]] = []
    play_game = evaluate_module.play_game

    def recording(agents, seed, **kwargs):  # noqa: ANN001, ANN202
        calls.append((seed, [a.name for a in agents]))
        return play_game(agents, seed, **kwargs)

    monkeypatch.setattr(evaluate_module, "play_game", recording)
    config = GameConfig(num_players=3, max_decisions=60)
    first = evaluate(small_policy(), "random", 3, config, seed=4)
    assert [names.index("learner") for _, names in calls] == [0, 1, 2]
    assert all(names.count("random") == 2 for _, names in calls)
    again = evaluate(small_policy(), "random", 3, config, seed=4)
    assert [seed for seed, _ in calls[:3]] == [seed for seed, _ in calls[3:]]
    assert first.to_dict() == again.to_dict() and first.rankings == again.rankings


def test_evaluation_counts_a_cut_off_game_as_neither_win_nor_loss() -> None:
    config = GameConfig(num_players=2, max_decisions=10, allow_overbid=False)
    result = evaluate(small_policy(), "pass", 4, config)
    assert result.truncated == 1.0
    assert (result.wins, result.losses, result.winrate) == (0, 0, 0.0)
    assert len(result.rankings) == 4 and all(len(r) == 2 for r in result.rankings)


def test_evaluation_reads_wins_from_the_rules_outcome() -> None:
    result = evaluate(small_policy(), "random", 4, GameConfig(num_players=2), seed=1)
    finished = round((1 - result.truncated) * result.games)
    assert result.wins + result.losses == finished
    assert result.winrate == result.wins / result.games
