"""The trained 2-player checkpoint shipped in the repository loads and plays legally."""

from __future__ import annotations

import json
from pathlib import Path

from agents import PolicyAgent, RandomAgent
from agents.match import play_game
from zavandor_env.engine import GameConfig

CHECKPOINT = Path(__file__).parent.parent / "train" / "checkpoints" / "selfplay_2p"


def test_committed_checkpoint_plays_legal_games_against_random() -> None:
    policy = PolicyAgent(CHECKPOINT / "policy.npz", seed=0)
    for seed in range(3):
        # play_game raises IllegalActionError on any illegal action
        result = play_game([policy, RandomAgent(seed=seed)], seed=seed,
                           config=GameConfig(num_players=2))
        assert result.scores[0] > result.scores[1]


def test_committed_checkpoint_has_its_config_and_evaluation_figures() -> None:
    figures = json.loads((CHECKPOINT / "eval.json").read_text())
    rows = {(r["policy"], r["opponent"]): r for r in figures["results"]}
    assert rows[("sampled", "random")]["winrate"] >= 0.9
    assert rows[("sampled", "random")]["games"] >= 200
    assert (CHECKPOINT / "config.yaml").is_file()
