"""The PettingZoo AEC environment: API conformance, agent selection, masks, rewards, rendering."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from zavandor_env.engine import IllegalActionError, Phase, string_to_action
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.data import DUST_TOKEN, Art
from zavandor_env.envs import env, raw_env
from zavandor_env.envs.rewards import terminal_rewards

PLAYER_COUNTS = (2, 3, 4, 5, 6)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_api_test_passes_for_each_player_count(n: int) -> None:
    api_test(env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_seed_test_passes_for_each_player_count(n: int) -> None:
    seed_test(lambda: env(num_players=n), num_cycles=200)


def test_metadata_and_agents_follow_pettingzoo_conventions() -> None:
    e = raw_env(num_players=3)
    assert e.metadata["name"] == "zavandor_v0"
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    e.reset(seed=0)
    assert e.observation_space("player_1")["action_mask"].shape == (NUM_ACTIONS,)
    assert e.action_space("player_1").n == NUM_ACTIONS


def _random_games(num_players: int, seeds: range, **options):
    """Yield (env, legal actions) at every decision of random games played through raw_env."""
    for seed in seeds:
        e = raw_env(num_players=num_players, **options)
        e.reset(seed=seed)
        rng = random.Random(seed)
        while not e.game.is_over:
            yield e
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))


def test_agent_selection_follows_the_deciding_player_including_out_of_turn_bidders() -> None:
    out_of_turn = set()
    for e in _random_games(4, range(6)):
        game = e.game
        assert e.agent_selection == f"player_{game.current_player}"
        if game.current_player != game.turn_player:
            out_of_turn.add(game.phase)
    assert Phase.BID in out_of_turn


def test_mirror_victims_are_selected_out_of_turn_to_choose_their_gem() -> None:
    e = raw_env(num_players=3)
    e.reset(seed=4)
    state = e.game.state
    opener = state.turn_player
    state.display[0] = Art.MIRROR
    state.players[opener].hand[DUST_TOKEN[10]] += 10  # rich enough to win the Mirror
    e.game._legal = None  # the state was edited by hand: recompute the legal actions
    e._select()
    e.step(string_to_action("open_magic_mirror"))
    e.step(string_to_action("bid_plus_0"))
    while e.game.phase == Phase.BID:
        e.step(string_to_action("pass"))
    victims = []
    while e.game.phase == Phase.LOSE_GEM:
        victim = e.game.current_player
        assert victim != opener and e.agent_selection == f"player_{victim}"
        mask = e.observe(e.agent_selection)["action_mask"]
        assert set(np.flatnonzero(mask)) == set(e.game.legal_actions())
        victims.append(victim)
        e.step(int(np.flatnonzero(mask)[0]))
    assert sorted(victims) == sorted(s for s in range(3) if s != opener)
    assert e.agent_selection == f"player_{opener}"


@pytest.mark.parametrize("n", (2, 4, 6))
def test_masked_in_actions_apply_and_masked_out_actions_raise(n: int) -> None:
    rng = random.Random(n)
    for step, e in enumerate(_random_games(n, range(8))):
        agent = e.agent_selection
        mask = e.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        assert np.array_equal(mask, e.infos[agent]["action_mask"])
        assert set(np.flatnonzero(mask)) == set(e.game.legal_actions())
        if step % 5 == 0:  # every masked-out action is refused and leaves the game untouched
            before = e.game.to_json()
            for action in np.flatnonzero(mask == 0)[:: rng.randrange(1, 4)]:
                with pytest.raises(IllegalActionError):
                    e.step(int(action))
            assert e.game.to_json() == before
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()


def test_raw_env_illegal_action_error_names_the_agent_and_the_legal_actions() -> None:
    e = raw_env(num_players=2)
    e.reset(seed=3)
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"{e.agent_selection} cannot play that.*legal actions are"):
        e.step(illegal)


def test_wrapped_env_illegal_action_ends_the_game_with_minus_one_for_the_offender() -> None:
    e = env(num_players=3)
    e.reset(seed=1)
    offender = e.agent_selection
    illegal = int(np.flatnonzero(e.observe(offender)["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[offender] == -1


def _play_out(e, seed: int) -> dict[str, float]:
    """Random play through the AEC loop; returns each agent's total reward from last()."""
    e.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
    return totals


def test_truncation_after_max_rounds_gives_no_reward_by_default() -> None:
    e = raw_env(num_players=2, max_rounds=2)
    totals = _play_out(e, seed=5)
    assert e.game.truncated and not e.game.terminated and e.game.state.round == 2
    assert totals == {"player_0": 0.0, "player_1": 0.0}


@pytest.mark.parametrize("scheme", ("win", "rank", "vp_margin"))
def test_every_agent_receives_its_terminal_reward_through_last(scheme: str) -> None:
    e = raw_env(num_players=4, max_rounds=6, score_truncated=True, reward=scheme)
    totals = _play_out(e, seed=11)
    alive = [not p.eliminated for p in e.game.state.players]
    expected = terminal_rewards(scheme, e.game.scores(), alive)
    assert [totals[f"player_{i}"] for i in range(4)] == pytest.approx(expected)


def test_vp_delta_shaping_sums_to_the_vp_gained() -> None:
    e = raw_env(num_players=3, max_rounds=8, vp_delta=0.1)
    e.reset(seed=2)
    start = e.game.scores()
    totals = _play_out(e, seed=2)
    gained = [0.1 * (end - begin) for end, begin in zip(e.game.scores(), start)]
    assert any(gained)
    assert [totals[f"player_{i}"] for i in range(3)] == pytest.approx(gained)


def test_win_rewards_sole_shared_and_lost() -> None:
    assert terminal_rewards("win", [30, 20], [True, True]) == [1.0, -1.0]
    assert terminal_rewards("win", [30, 20, 10, 5], [True] * 4) == pytest.approx([1, -1 / 3, -1 / 3, -1 / 3])
    assert terminal_rewards("win", [30, 30, 10, 5], [True] * 4) == pytest.approx([0.5, 0.5, -0.5, -0.5])
    assert terminal_rewards("win", [7, 7, 7], [True] * 3) == [0.0, 0.0, 0.0]


def test_win_rewards_rank_an_eliminated_player_below_everyone() -> None:
    assert terminal_rewards("win", [0, 0], [True, False]) == [1.0, -1.0]


def test_rank_rewards_are_linear_and_ties_share_the_average() -> None:
    assert terminal_rewards("rank", [40, 30, 20, 10], [True] * 4) == pytest.approx([1, 1 / 3, -1 / 3, -1])
    assert terminal_rewards("rank", [40, 40, 20], [True] * 3) == pytest.approx([0.5, 0.5, -1])


def test_vp_margin_rewards_compare_with_the_best_other_player() -> None:
    assert terminal_rewards("vp_margin", [60, 35, 10], [True] * 3) == pytest.approx([0.5, -0.5, -1.0])


def test_constructor_rejects_bad_options_with_clear_errors() -> None:
    with pytest.raises(ValueError, match="reward must be one of"):
        raw_env(reward="score")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="num_players"):
        raw_env(num_players=7)


def test_render_ansi_returns_text_naming_every_player() -> None:
    e = raw_env(num_players=3, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str) and "\033[" not in text
    for i in range(3):
        assert f"player_{i}" in text


def test_render_human_prints_a_coloured_table(capsys: pytest.CaptureFixture[str]) -> None:
    e = raw_env(num_players=2, render_mode="human")
    e.reset(seed=0)
    assert e.render() is None
    assert "\033[" in capsys.readouterr().out
