"""The trained checkpoints shipped in the repository load and play legally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zavandor_env.agents import PolicyAgent, RandomAgent
from zavandor_env.agents.policy_file import load_policy
from zavandor_env.encoding.observation import OBS_FINGERPRINT, OBS_SIZE
from zavandor_env.engine import GameConfig
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.eval.match import play_game

CHECKPOINTS = Path(__file__).parents[2] / "train" / "checkpoints"
SHIPPED = [("selfplay_2p", 2), ("selfplay_4p", 4)]


@pytest.mark.parametrize("name,players", SHIPPED)
def test_committed_checkpoint_plays_legal_games_against_random(name: str, players: int) -> None:
    policy = PolicyAgent(CHECKPOINTS / name / "policy.npz", seed=0)
    for seed in range(2):
        # play_game raises IllegalActionError on any illegal action
        others = [RandomAgent(seed=seed * 10 + i) for i in range(players - 1)]
        result = play_game([policy, *others], seed=seed, config=GameConfig(num_players=players))
        assert result.scores[0] > max(result.scores[1:])


@pytest.mark.parametrize("name,players", SHIPPED)
def test_committed_checkpoint_has_its_config_and_evaluation_figures(
    name: str, players: int
) -> None:
    checkpoint = CHECKPOINTS / name
    figures = json.loads((checkpoint / "eval.json").read_text())
    rows = {(r["policy"], r["opponent"]): r for r in figures["results"]}
    assert rows[("sampled", "random")]["winrate"] >= 0.9
    assert rows[("sampled", "random")]["games"] >= 200
    assert (checkpoint / "config.yaml").is_file()
    assert f"num_players: {players}" in (checkpoint / "config.yaml").read_text()


@pytest.mark.parametrize("name,players", SHIPPED)
def test_committed_checkpoint_records_the_current_observation_fingerprint(
    name: str, players: int
) -> None:
    """A layout change must come with retrained (or knowingly re-stamped) checkpoints."""
    policy = load_policy(CHECKPOINTS / name / "policy.npz", obs_dim=OBS_SIZE,
                         num_actions=NUM_ACTIONS)
    assert policy.fingerprint == OBS_FINGERPRINT
    assert policy.info["config"]["num_players"] == players
