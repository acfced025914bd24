"""The training environment (the native SB3 VecEnv with pool opponents per episode, the
charts' statistics, the env's own rewards), the config's way to it, and the evaluation on the
one game driver."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from zavandor_env.agents.policy_file import NumpyPolicy  # noqa: E402
from zavandor_env.encoding.observation import OBS_SIZE  # noqa: E402
from zavandor_env.engine import GameConfig  # noqa: E402
from zavandor_env.engine.actions import NUM_ACTIONS  # noqa: E402
from zavandor_env.envs.opponents import PoolSpec  # noqa: E402
from zavandor_env.envs.sb3 import NativeVecEnv  # noqa: E402
from zavandor_env.envs.training import ACTION_TO_BLOCK, BLOCK_NAMES  # noqa: E402
from zavandor_env.train.common import evaluate as evaluate_module  # noqa: E402
from zavandor_env.train.common.evaluate import evaluate  # noqa: E402
from zavandor_env.train.config import TrainConfig  # noqa: E402
from zavandor_env.train.ppo.config import PPOConfig  # noqa: E402
from zavandor_env.train.ppo.selfplay import make_vec_env  # noqa: E402

# Cut off after 12 decisions; no overbidding, so no one is put out of the game before that.
SHORT_GAME = {"max_decisions": 12, "allow_overbid": False}


def one_game_env(weights: dict[str, float], seed: int = 0, **options) -> NativeVecEnv:  # noqa: ANN003
    return NativeVecEnv(1, PoolSpec(weights), seed=seed, **options)


def run_episodes(env: NativeVecEnv, episodes: int, seed: int = 0) -> list[float]:
    """Random legal learner moves until ``episodes`` games ended; each game's total reward."""
    rng = np.random.default_rng(seed)
    env.reset()
    totals, total = [], 0.0
    while len(totals) < episodes:
        mask = env.action_masks()[0]
        _, rewards, dones, _ = env.step(np.array([rng.choice(np.flatnonzero(mask))]))
        total += float(rewards[0])
        if dones[0]:
            totals.append(total)
            total = 0.0
    return totals


def test_step_reward_reaches_every_learner_decision() -> None:
    env = one_game_env({"random": 1.0}, step_reward=-0.25, truncation_reward=0.0, **SHORT_GAME)
    [total] = run_episodes(env, 1)
    decisions = int(env.pop_stats()[0]["blocks"].sum())
    assert decisions > 0
    assert total == pytest.approx(-0.25 * decisions)


def test_the_configs_reward_and_rule_options_reach_the_training_env() -> None:
    cfg = TrainConfig(game={"max_decisions": 60}, vp_delta=0.01, step_reward=-0.125,
                      truncation_reward=-3.0, opponent_weights={"random": 1.0}, learner_seat=1,
                      ppo=PPOConfig(n_envs=2))
    env = make_vec_env(cfg, PoolSpec(cfg.opponent_weights))  # the training games
    assert env.num_envs == 2 and env.num_players == cfg.num_players
    assert env.venv.reward_config.to_dict() == {"reward": "win", "vp_delta": 0.01,
                                                "step_reward": -0.125,
                                                "truncation_reward": -3.0,
                                                "illegal_reward": -1.0}
    assert env.venv.config.max_decisions == 60 and env.venv.learner_seat == 1


def test_opponents_are_redrawn_every_episode_and_labelled() -> None:
    env = one_game_env({"random": 1.0, "heuristic": 1.0}, num_players=3, max_decisions=40)
    run_episodes(env, 12, seed=1)
    seen = set()
    for episode in env.pop_stats()[0]["episodes"]:
        labels = episode["labels"]
        assert labels[episode["seat"]] == "learner" and labels.count("learner") == 1
        seen.add(tuple(sorted(set(labels) - {"learner"})))
    assert {("random",), ("heuristic",), ("heuristic", "random")} <= seen


def test_any_registry_agent_spec_is_a_training_opponent() -> None:
    """A spec string names the agent and its parameters; train/ needs no edit per agent."""
    env = one_game_env({"pass": 1.0, "mcts:iterations=2": 1.0}, max_decisions=30)
    run_episodes(env, 8, seed=2)
    labels = {lab for e in env.pop_stats()[0]["episodes"] for lab in e["labels"]}
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
