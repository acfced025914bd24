"""``gymnasium.make("Zavandor-v0")`` out of the box: opponents that finish their games, episodes
that end by the rules, the agents-layer entry point and the quickstart script."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import zavandor_env
from zavandor_env.agents.base import RandomAgent
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.novice import NoviceAgent
from zavandor_env.engine.actions import END_TURN, PASS
from zavandor_env.engine.agent import FunctionAgent
from zavandor_env.envs import SingleAgentEnv
from zavandor_env.envs.gym_entry import DEFAULT_OPPONENTS, make_env
from zavandor_env.eval.match import play_game

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "docs" / "quickstart.py"


def _episodes(env: gymnasium.Env, episodes: int, choose, seed: int = 0):
    """Play whole episodes with ``choose(mask, rng)``; yields each game's outcome and the
    learner's seat."""
    rng = np.random.default_rng(seed)
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            _, _, terminated, truncated, info = env.step(choose(mask, rng))
            done = terminated or truncated
        yield env.unwrapped.outcome(), info["seat"]


def _random(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _passive(mask: np.ndarray, rng: np.random.Generator) -> int:
    """End the turn or pass whenever allowed: never buys, never bids."""
    for action in (END_TURN, PASS):
        if mask[action]:
            return action
    return int(np.flatnonzero(mask)[0])


def test_gymnasium_make_plays_two_players_against_novice_opponents() -> None:
    env = gymnasium.make("Zavandor-v0")
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, SingleAgentEnv) and unwrapped.num_players == 2
    assert DEFAULT_OPPONENTS == "novice"
    assert [type(o) for o in unwrapped.opponents] == [NoviceAgent]


def test_random_learner_episodes_in_the_default_env_end_by_the_rules() -> None:
    # Measured: 300 of 300 (the random learner opens auctions it cannot pay: the Curse).
    results = list(_episodes(gymnasium.make("Zavandor-v0"), 300, _random))
    ended = sum(outcome.terminated for outcome, _ in results)
    assert ended >= 0.95 * len(results)


def test_default_opponents_finish_games_against_a_learner_that_never_buys() -> None:
    # The novice ends the game itself: by owning five sentinels, or by cursing itself.
    # Measured over 200 games: 98% end by the rules, 60% with five sentinels owned.
    results = list(_episodes(gymnasium.make("Zavandor-v0"), 60, _passive, seed=100))
    assert sum(outcome.terminated for outcome, _ in results) >= 0.9 * len(results)
    by_sentinels = sum(outcome.terminated and not any(outcome.eliminated)
                       for outcome, _ in results)
    assert by_sentinels >= 0.4 * len(results)


def test_random_play_almost_never_beats_the_default_opponents() -> None:
    results = list(_episodes(gymnasium.make("Zavandor-v0"), 100, _random, seed=7))
    assert sum(outcome.won(seat) for outcome, seat in results) <= 5


def test_make_env_builds_one_agent_per_seat_from_specs() -> None:
    env = make_env(num_players=3, opponents="heuristic")
    first, second = env.opponents
    assert isinstance(first, HeuristicAgent) and isinstance(second, HeuristicAgent)
    assert first is not second
    env = make_env(num_players=4, opponents=["random", None, {"agent": "novice",
                                                               "params": {"blunder": 0.5}}])
    random_agent, none, novice = env.opponents
    assert isinstance(random_agent, RandomAgent) and none is None
    assert isinstance(novice, NoviceAgent) and novice.blunder == 0.5


def test_make_env_passes_env_reward_and_rule_options_through() -> None:
    env = make_env(learner_seat=1, truncation_reward=-0.5, max_rounds=7)
    assert env.learner_seat == 1 and env.aec.reward_config.truncation_reward == -0.5
    assert env.aec.config.max_rounds == 7
    env = gymnasium.make("Zavandor-v0", num_players=3, opponents="random", vp_delta=0)
    assert env.unwrapped.aec.reward_config.vp_delta == 0


def test_make_env_refuses_bad_opponents_in_one_line() -> None:
    with pytest.raises(ValueError, match="one opponent per other seat"):
        make_env(num_players=3, opponents=["novice"])
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        make_env(opponents="nobody")
    with pytest.raises(TypeError, match="FunctionAgent"):
        make_env(opponents=lambda observation: 0)
    env = make_env(opponents=FunctionAgent(lambda obs, view, legal: legal[0]))
    assert isinstance(env.opponents[0], FunctionAgent)


def test_check_env_passes_twice_on_the_registered_env() -> None:
    for _ in range(2):
        check_env(gymnasium.make("Zavandor-v0").unwrapped)


def test_novice_without_blunders_plays_like_the_heuristic() -> None:
    plain = play_game([HeuristicAgent(seed=1), HeuristicAgent(seed=2)], seed=3)
    novice = play_game([NoviceAgent(seed=1, blunder=0), NoviceAgent(seed=2, blunder=0)], seed=3)
    assert novice.outcome == plain.outcome


def test_novice_games_are_reproducible_from_the_seeds() -> None:
    def run():
        return play_game([NoviceAgent(seed=1, blunder=0.3), HeuristicAgent(seed=2)], seed=5)

    assert run().outcome == run().outcome


@pytest.mark.parametrize("blunder", (-0.1, 1.5, float("nan"), True, "0.1"))
def test_novice_blunder_must_be_a_probability(blunder: object) -> None:
    with pytest.raises(ValueError, match="blunder must be a"):
        NoviceAgent(blunder=blunder)  # type: ignore[arg-type]


def test_quickstart_is_readmes_script_on_the_registered_id() -> None:
    text = QUICKSTART.read_text(encoding="utf-8")
    # docs/tutorials/train.md: "docs/quickstart.py is the same script" (the file adds only its
    # docstring), so tests/encoding/test_env_docs.py's run of that block (with its `# test:`
    # budgets)
    # runs this file.
    code = text.split('"""', 2)[2].strip()
    readme = (ROOT / "docs" / "tutorials" / "train.md").read_text(encoding="utf-8")
    assert f"```python\n{code}\n```" in readme
    assert 'gymnasium.make("Zavandor-v0")' in text and 'MaskablePPO("MlpPolicy", env' in text
    assert re.search(r"^STEPS = 50_000  # test: \d+$", text, re.M)


def test_the_gymnasium_id_entry_point_is_the_agents_layer_factory() -> None:
    zavandor_env.register_gymnasium()
    spec = gymnasium.spec("Zavandor-v0")
    assert spec.entry_point == "zavandor_env.envs.gym_entry:make_env"


@pytest.mark.parametrize("imports", ["import zavandor_env, pettingzoo",
                                     "import pettingzoo, zavandor_env",
                                     "import gymnasium, zavandor_env, pettingzoo"])
def test_pettingzoo_make_builds_the_aec_env_whichever_is_imported_first(imports: str) -> None:
    """PettingZoo 1.27's tutorials build envs with ``pettingzoo.make("aec", id)``: our id is
    registered on ``import zavandor_env``, before or after PettingZoo loads (and Gymnasium's
    id still is)."""
    import subprocess
    import sys

    code = (f"{imports}\nimport gymnasium, pettingzoo\n"
            "env = pettingzoo.make('aec', 'zavandor-v0', num_players=3)\n"
            "env.reset(seed=0)\n"
            "assert env.num_agents == 3 and env.unwrapped.metadata['name'] == 'zavandor_v0'\n"
            "assert gymnasium.spec('Zavandor-v0').id == 'Zavandor-v0'\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
