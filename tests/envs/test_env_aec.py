"""The PettingZoo AEC environment: API conformance, agent selection, masks, rewards, rendering."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from zavandor_env.engine import Game, IllegalActionError, Phase, string_to_action
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.data import DUST_TOKEN, Art
from zavandor_env.engine.outcome import Outcome, competition_ranks, game_outcome
from zavandor_env.envs import env, raw_env
from zavandor_env.envs.info import RESULT_KEYS
from zavandor_env.envs.rewards import RewardConfig, terminal_rewards

PLAYER_COUNTS = (2, 3, 4, 5, 6)
#: api_test's advice for Box or Discrete spaces, given to every Dict space with an action mask
#: (PettingZoo's own convention for masks, which ours follows): expected, so not shown.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_api_test_passes_for_each_player_count(n: int) -> None:
    api_test(env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_seed_test_passes_for_each_player_count(n: int) -> None:
    seed_test(lambda: env(num_players=n), num_cycles=200)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_tests_pass_repeatedly_in_one_process_through_every_entry(n: int) -> None:
    import gymnasium

    import zavandor_env
    from zavandor_env import zavandor_v0
    from zavandor_env.envs import SingleAgentEnv

    # Use the Gymnasium side first: it must leave nothing behind that the AEC env depends on.
    SingleAgentEnv(num_players=n).reset(seed=n)
    gymnasium.make("Zavandor-v0", num_players=n).reset(seed=n)
    for _ in range(2):
        for make in (zavandor_env.env, zavandor_v0.env, env):
            api_test(make(num_players=n), num_cycles=100)
            seed_test(lambda make=make: make(num_players=n), num_cycles=100)


def test_pettingzoo_tests_pass_in_a_fresh_process_before_and_after_the_adapters() -> None:
    code = (
        "from pettingzoo.test import api_test, seed_test\n"
        "from zavandor_env import zavandor_v0\n"
        "api_test(zavandor_v0.env(), num_cycles=100); seed_test(zavandor_v0.env, num_cycles=100)\n"
        "import gymnasium, zavandor_env, zavandor_env.envs\n"
        "zavandor_env.SingleAgentEnv().reset(seed=0); gymnasium.make('Zavandor-v0').reset(seed=0)\n"
        "for n in (2, 6):\n"
        "    api_test(zavandor_env.env(num_players=n), num_cycles=100)\n"
        "    seed_test(lambda: zavandor_v0.env(num_players=n), num_cycles=100)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300,
                   capture_output=True)


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
    saved = e.game.to_dict()  # a state edited by hand, loaded back as a saved game
    state = saved["state"]
    opener = state["turn_player"]
    deck, display = state["artifact_deck"], state["display"]
    k = deck.index(int(Art.MIRROR))  # swap a Mirror from the deck into the display
    deck[k], display[0] = display[0], deck[k]
    state["players"][opener]["hand"][DUST_TOKEN[10]] += 10  # rich enough to win the Mirror
    e._game = Game.from_dict(saved)
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
        assert "action_mask" not in e.infos[agent]  # only in the observation (TorchRL)
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
    pattern = rf"{e.agent_selection} cannot play that.*legal actions are"
    with pytest.raises(IllegalActionError, match=pattern):
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


def test_a_truncated_game_pays_truncation_reward_to_every_seat() -> None:
    # Without the Curse, random players never finish: max_rounds cuts the game off.
    e = raw_env(num_players=2, max_rounds=2, allow_overbid=False, vp_delta=0)
    totals = _play_out(e, seed=5)
    assert e.game.truncated and not e.game.terminated and e.game.state.round == 2
    assert totals == {"player_0": -1.0, "player_1": -1.0}
    e = raw_env(num_players=3, max_rounds=2, allow_overbid=False, vp_delta=0,
                truncation_reward=-0.25)
    assert set(_play_out(e, seed=5).values()) == {-0.25}
    assert all(e.truncations.values()) and not any(e.terminations.values())


def _finished_game(num_players: int, seed: int, **options):
    """A random game played to its end by the rules (the Curse ends random games early)."""
    e = raw_env(num_players=num_players, **options)
    totals = _play_out(e, seed=seed)
    assert e.game.terminated
    return e, totals


@pytest.mark.parametrize("scheme", ("win", "rank", "vp_margin"))
def test_every_agent_receives_its_terminal_reward_from_the_outcome(scheme: str) -> None:
    e, totals = _finished_game(4, seed=11, reward=scheme, vp_delta=0)
    outcome = game_outcome(e.game)
    expected = terminal_rewards(scheme, outcome)
    assert [totals[f"player_{i}"] for i in range(4)] == pytest.approx(expected)
    if scheme == "win":
        assert [totals[f"player_{w}"] > 0 for w in range(4)] == [
            w in outcome.winners for w in range(4)
        ]


def test_final_infos_carry_the_result_as_arrays_and_outcome_is_on_the_env() -> None:
    e = raw_env(num_players=3)
    e.reset(seed=4)
    rng = random.Random(4)
    final_infos = {}
    for agent in e.agent_iter():
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            final_infos[agent] = info
            e.step(None)
        else:
            assert set(info) == set(RESULT_KEYS) and not info["game_over"]
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
    outcome = game_outcome(e.game)
    assert outcome.terminated and outcome.winners and e.outcome() == outcome
    assert set(final_infos) == set(e.possible_agents)
    for info in final_infos.values():
        assert set(info) == set(RESULT_KEYS)
        assert info["game_over"] and info["terminated"] and not info["truncated"]
        assert info["scores"].tolist() == list(outcome.scores)
        assert info["ranks"].tolist() == list(outcome.ranks)
        assert np.flatnonzero(info["winners"]).tolist() == list(outcome.winners)
        assert info["rounds"] == outcome.rounds


def test_an_illegal_action_through_env_gives_the_same_final_info_keys() -> None:
    e = env(num_players=2)
    e.reset(seed=0)
    obs, *_ = e.last()
    offender = e.agent_selection
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    infos = {agent: e.infos[agent] for agent in e.possible_agents}
    for agent, info in infos.items():
        assert set(info) == set(RESULT_KEYS)
        assert info["game_over"] and info["illegal_action"] == (agent == offender)
        assert not info["terminated"] and not info["winners"].any()
    assert not e.unwrapped.outcome().is_over  # the rules never ended this game


def test_vp_delta_shaping_sums_to_the_vp_gained() -> None:
    e = raw_env(num_players=3, max_rounds=8, vp_delta=0.1, allow_overbid=False,
                truncation_reward=0)
    e.reset(seed=2)
    start = e.game.scores()
    totals = _play_out(e, seed=2)
    gained = [0.1 * (end - begin) for end, begin in zip(e.game.scores(), start)]
    assert any(gained)
    assert [totals[f"player_{i}"] for i in range(3)] == pytest.approx(gained)


def test_step_reward_is_paid_to_each_agent_for_its_own_decisions() -> None:
    e = raw_env(num_players=3, max_rounds=4, allow_overbid=False, vp_delta=0,
                truncation_reward=0, step_reward=-0.01)
    decisions = dict.fromkeys(e.possible_agents, 0)
    e.reset(seed=3)
    rng = random.Random(3)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        decisions[agent] += 1
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    assert all(decisions.values())
    assert totals == pytest.approx({a: -0.01 * n for a, n in decisions.items()})


def _outcome(scores, eliminated=None, terminated=True) -> Outcome:
    n = len(scores)
    eliminated = tuple(eliminated or (False,) * n)
    points = [-1 if out else vp for vp, out in zip(scores, eliminated)]
    best = max(points)
    winners = tuple(i for i, p in enumerate(points) if p == best) if terminated else ()
    return Outcome(tuple(scores), tuple(competition_ranks(points)), winners, eliminated,
                   terminated, not terminated, 10, 100)


def test_win_rewards_sole_shared_and_lost() -> None:
    assert terminal_rewards("win", _outcome([30, 20])) == [1.0, -1.0]
    assert terminal_rewards("win", _outcome([30, 20, 10, 5])) == pytest.approx(
        [1, -1 / 3, -1 / 3, -1 / 3])
    assert terminal_rewards("win", _outcome([30, 30, 10, 5])) == pytest.approx(
        [0.5, 0.5, -0.5, -0.5])
    assert terminal_rewards("win", _outcome([7, 7, 7])) == [0.0, 0.0, 0.0]


def test_win_rewards_come_from_the_rules_winners_not_from_vp() -> None:
    # An eliminated player loses whatever its VP; the winners are the outcome's, not the leaders.
    assert terminal_rewards("win", _outcome([0, 0], eliminated=[False, True])) == [1.0, -1.0]
    assert RewardConfig().final_rewards(_outcome([40, 10], terminated=False)) == [-1.0, -1.0]


def test_rank_rewards_are_linear_and_ties_share_the_average() -> None:
    assert terminal_rewards("rank", _outcome([40, 30, 20, 10])) == pytest.approx(
        [1, 1 / 3, -1 / 3, -1])
    assert terminal_rewards("rank", _outcome([40, 40, 20])) == pytest.approx([0.5, 0.5, -1])
    assert sum(terminal_rewards("rank", _outcome([9, 9, 9, 2]))) == pytest.approx(0)


def test_rank_rewards_put_eliminated_players_last() -> None:
    rewards = terminal_rewards("rank", _outcome([0, 12, 30], eliminated=[False, False, True]))
    assert rewards == pytest.approx([0.0, 1.0, -1.0])


def test_vp_margin_rewards_compare_with_the_best_other_player() -> None:
    assert terminal_rewards("vp_margin", _outcome([60, 35, 10])) == pytest.approx(
        [0.5, -0.5, -1.0])


@pytest.mark.parametrize("name", ("vp_delta", "step_reward", "truncation_reward",
                                  "illegal_reward"))
@pytest.mark.parametrize("value", (float("nan"), float("inf"), -float("inf")))
def test_non_finite_reward_options_are_refused_in_one_line(name: str, value: float) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be a finite number, got") as info:
        raw_env(**{name: value})
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ("vp_delta", "step_reward", "truncation_reward",
                                  "illegal_reward"))
def test_non_numeric_reward_options_are_refused(name: str) -> None:
    for value in (True, "0.1", None):
        with pytest.raises(ValueError, match=rf"^{name} must be a number"):
            RewardConfig(**{name: value})


def test_reward_defaults_are_documented_values() -> None:
    config = raw_env().reward_config
    assert config == RewardConfig()
    assert config.to_dict() == {"reward": "win", "vp_delta": 0.0, "step_reward": 0.0,
                                "truncation_reward": -1.0, "illegal_reward": -1.0}


def test_score_truncated_is_refused_with_a_pointer_to_truncation_reward() -> None:
    with pytest.raises(TypeError, match="truncation_reward"):
        raw_env(score_truncated=True)


def test_a_misspelt_option_is_a_type_error_naming_the_known_options() -> None:
    for factory in (raw_env, env):
        with pytest.raises(TypeError,
                           match=r"^got an unexpected keyword argument 'vp_detla'; reward options"):
            factory(vp_detla=0.1)


def test_wrapped_env_pays_the_illegal_reward_option() -> None:
    e = env(num_players=2, illegal_reward=-2.5)
    e.reset(seed=1)
    offender = e.agent_selection
    e.step(int(np.flatnonzero(e.observe(offender)["action_mask"] == 0)[0]))
    assert e.rewards[offender] == -2.5


def test_constructor_rejects_bad_options_with_clear_errors() -> None:
    with pytest.raises(ValueError, match="reward must be one of"):
        raw_env(reward="score")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="svg")
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


@pytest.mark.parametrize("seed", [np.int64(3), np.uint32(3), np.int8(3), 3])
def test_reset_accepts_numpy_integer_seeds_as_the_same_game(seed: object) -> None:
    env = raw_env(num_players=3)
    env.reset(seed=seed)  # type: ignore[arg-type]
    reference = raw_env(num_players=3)
    reference.reset(seed=3)
    assert env.game.to_json() == reference.game.to_json()


@pytest.mark.parametrize("seed", [-1, 1.5, True, "3"])
def test_reset_refuses_a_bad_seed_in_one_line(seed: object) -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        raw_env().reset(seed=seed)  # type: ignore[arg-type]
