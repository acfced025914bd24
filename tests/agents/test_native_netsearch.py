"""The network-guided search (native/src/netmcts.cpp, agents/netsearch.py) and
``mcts:policy=network``: deterministic for a seed and an iteration budget, within its budgets,
always legal, its root visits summing to its iterations, following a strong prior at a tiny
budget, and refusing bad input with one line."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from zavandor_env.agents import PolicyAgent
from zavandor_env.agents.mcts import MCTSAgent, curse_free
from zavandor_env.agents.netsearch import NetworkSearch, SearchResult, cached_policy
from zavandor_env.agents.policy_file import NumpyPolicy, PolicyFileError, load_policy
from zavandor_env.agents.registry import AgentSpecError, parse_spec
from zavandor_env.engine import Game, GameConfig, native_available
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.oracle import OracleGame
from zavandor_env.eval.match import play_game

pytestmark = pytest.mark.skipif(not native_available(), reason="needs the native core")

CHECKPOINTS = Path(__file__).parents[2] / "train" / "checkpoints"


def shipped(players: int) -> NumpyPolicy:
    return cached_policy(str(CHECKPOINTS / f"selfplay_{players}p" / "policy.npz"))


def midgame(players: int, seed: int, moves: int = 30) -> Game:
    """A native game some decisions in, every seat playing the shipped policy greedily."""
    game = Game.new(GameConfig(num_players=players), seed=seed)
    policy = shipped(players)
    from zavandor_env.encoding.observation import ObservationEncoder

    encoder = ObservationEncoder()
    for _ in range(moves):
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[list(game.legal_actions())] = True
        game.apply(policy.act(encoder.encode_game(game, game.current_player), mask))
    while len(game.legal_actions()) < 2:  # a real choice
        game.apply(game.legal_actions()[0])
    return game


def test_a_search_is_deterministic_for_a_seed_and_an_iteration_budget() -> None:
    game = midgame(3, 1)
    search = NetworkSearch(shipped(3), iterations=60, root_noise=0.3)
    a = search.run(game, game.current_player, 12345)
    b = search.run(game, game.current_player, 12345)
    assert isinstance(a, SearchResult)
    assert (a.action, a.value, a.iterations) == (b.action, b.value, b.iterations)
    assert np.array_equal(a.visits, b.visits)
    c = search.run(game, game.current_player, 999)
    assert not np.array_equal(a.visits, c.visits) or a.value != c.value


@pytest.mark.parametrize("players", [2, 4, 6])
def test_root_visits_sum_to_the_iterations_and_the_move_is_the_most_visited(
        players: int) -> None:
    game = midgame(players, players)
    result = NetworkSearch(shipped(players), iterations=50).run(game, game.current_player, 7)
    assert result.visits.dtype == np.int32 and result.visits.shape == (NUM_ACTIONS,)
    assert result.iterations == 50 and int(result.visits.sum()) == 50
    assert result.visits[result.action] == result.visits.max()
    assert set(np.flatnonzero(result.visits)) <= set(game.legal_actions())
    assert 0.0 <= result.value <= 1.0


def test_a_timed_search_keeps_to_its_budget() -> None:
    game = midgame(2, 3)
    search = NetworkSearch(shipped(2), seconds=0.05)
    start = time.perf_counter()
    result = search.run(game, game.current_player, 1)
    spent = time.perf_counter() - start
    assert result.iterations >= 1
    assert spent < 2 * 0.05 + 0.05  # within twice the budget plus the setup
    assert int(result.visits.sum()) == result.iterations


def test_a_strong_prior_is_played_at_a_tiny_budget() -> None:
    game = midgame(2, 5)
    legal = curse_free(game.view(game.current_player), list(game.legal_actions()))
    favourite = legal[-1]
    base = shipped(2)
    biases = [b.copy() for b in base.biases]
    biases[-1][favourite] += 50.0  # the prior puts all its mass on `favourite`
    strong = NumpyPolicy(base.weights, biases, base.activation, fingerprint=base.fingerprint,
                         value_weights=base.value_weights, value_biases=base.value_biases)
    result = NetworkSearch(strong, iterations=3).run(game, game.current_player, 0)
    assert result.action == favourite


def test_temperature_samples_a_visited_move_and_noise_keeps_it_deterministic() -> None:
    game = midgame(2, 8)
    search = NetworkSearch(shipped(2), iterations=40, temperature=1.0, root_noise=0.5,
                           noise_fraction=0.5)
    results = [search.run(game, game.current_player, s) for s in range(6)]
    for r in results:
        assert r.visits[r.action] > 0
    again = search.run(game, game.current_player, 3)
    assert again.action == results[3].action and np.array_equal(again.visits, results[3].visits)


@pytest.mark.parametrize("rollout", ["network", "heuristic"])
def test_rollouts_before_the_critic_search_legally(rollout: str) -> None:
    game = midgame(4, 2)
    result = NetworkSearch(shipped(4), iterations=20, rollout=rollout, rollout_steps=8).run(
        game, game.current_player, 4)
    assert result.action in game.legal_actions() and int(result.visits.sum()) == 20


def test_a_profiled_search_says_where_the_time_goes() -> None:
    game = midgame(2, 4)
    search = NetworkSearch(shipped(2), iterations=30)
    search.run(game, game.current_player, 0, profile=True)
    profile = search.last_profile
    assert profile is not None and profile["forwards"] > 30
    parts = profile["determinize"] + profile["encode"] + profile["forward"] + profile["rules"]
    assert 0 < parts <= profile["total"] * 1.05


def test_the_network_agent_plays_legal_games_at_2_and_4_players() -> None:
    for players in (2, 4):
        agent = MCTSAgent(seed=0, policy="network", iterations=6)
        others = [PolicyAgent(CHECKPOINTS / f"selfplay_{players}p" / "policy.npz", seed=i)
                  for i in range(players - 1)]
        result = play_game([agent, *others], seed=players, config=GameConfig(num_players=players))
        assert len(result.scores) == players  # play_game raises on an illegal action
        assert agent.last_iterations >= 1


def test_the_spec_parses_and_builds_the_network_search() -> None:
    spec = parse_spec("mcts:policy=network,seconds=0.05,c_puct=2.0,opponent_temperature=0.5")
    agent = spec.build(seed=1)
    assert isinstance(agent, MCTSAgent) and agent.policy == "network"
    search = agent.network_search(2)
    assert (search.seconds, search.c_puct, search.opponent_temperature) == (0.05, 2.0, 0.5)
    assert agent.network_search(2) is search  # one per path, built once
    with pytest.raises(AgentSpecError):
        parse_spec("mcts:policy=network,c_puct_typo=1").build(seed=0)


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> None:
    assert "\n" not in str(exc.value)


def test_network_options_without_policy_network_are_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="only apply with policy='network'") as info:
        MCTSAgent(c_puct=1.0)
    one_line(info)


def test_bad_network_parameters_are_one_line_errors() -> None:
    for kwargs, match in [({"c_puct": -1.0}, "c_puct"), ({"rollout": "random"}, "rollout"),
                          ({"iterations": 0}, "iterations"), ({"seconds": 0.0}, "seconds"),
                          ({"opponent_temperature": float("nan")}, "opponent_temperature")]:
        with pytest.raises(ValueError, match=match) as info:
            MCTSAgent(policy="network", **kwargs)
        one_line(info)


def test_a_bad_net_path_is_a_one_line_policy_file_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyFileError, match="does not exist") as info:  # when built
        MCTSAgent(policy="network", net=str(tmp_path / "missing.npz"), iterations=2)
    one_line(info)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(PolicyFileError, match="not a readable") as info:
        MCTSAgent(policy="network", net=str(junk), iterations=2)
    one_line(info)


def test_a_network_of_another_observation_size_is_refused_with_one_line() -> None:
    rng = np.random.default_rng(0)
    small = NumpyPolicy([rng.normal(size=(8, 5)).astype(np.float32),
                         rng.normal(size=(NUM_ACTIONS, 8)).astype(np.float32)],
                        [np.zeros(8, np.float32), np.zeros(NUM_ACTIONS, np.float32)])
    with pytest.raises(PolicyFileError, match="observations of size 5") as info:
        NetworkSearch(small)
    one_line(info)
    # The C++ checks it too, whatever the caller did.
    from zavandor_env.agents.policy_file import native_network
    from zavandor_env.engine import native

    module = native.core_module()
    game = midgame(2, 0, moves=0)
    weights = module.HeuristicWeights(NetworkSearch(shipped(2)).weights.to_dict())
    with pytest.raises(ValueError, match="the network takes 5 observations") as info:
        module.netmcts_search(game.native_core, game.current_player,
                              list(game.legal_actions()), native_network(small), {}, weights, 0)
    one_line(info)
    with pytest.raises(ValueError, match="unknown parameter 'bogus'") as info:
        module.netmcts_search(game.native_core, game.current_player,
                              list(game.legal_actions()), native_network(shipped(2)),
                              {"bogus": 1}, weights, 0)
    one_line(info)


def test_run_refuses_a_python_game_and_a_seat_that_is_not_deciding() -> None:
    search = NetworkSearch(shipped(2), iterations=2)
    game = OracleGame.new(GameConfig(num_players=2), seed=0)
    with pytest.raises(ValueError, match="native games only"):
        search.run(game, game.current_player, 0)
    native_game = Game.new(GameConfig(num_players=2), seed=0)
    with pytest.raises(ValueError, match="not the deciding player"):
        search.run(native_game, 1 - native_game.current_player, 0)


def test_load_policy_is_what_the_cache_returns() -> None:
    path = str(CHECKPOINTS / "selfplay_2p" / "policy.npz")
    assert cached_policy(path) is cached_policy(path)
    assert np.array_equal(cached_policy(path).weights[0], load_policy(path).weights[0])


def test_the_network_agent_pickles_and_plays_after_unpickling() -> None:
    import pickle

    agent = MCTSAgent(seed=3, policy="network", iterations=4)
    game = midgame(2, 6)
    view = game.view(game.current_player)
    before = agent.act(None, view, list(game.legal_actions()))
    clone = pickle.loads(pickle.dumps(agent))
    assert clone._net_searches == {}  # native objects are rebuilt, not pickled
    fresh = MCTSAgent(seed=3, policy="network", iterations=4)
    assert clone.act(None, view, list(game.legal_actions())) in game.legal_actions()
    assert fresh.act(None, view, list(game.legal_actions())) == before


def test_no_ruin_is_on_around_a_scripted_policy_and_off_around_the_network() -> None:
    assert MCTSAgent().no_ruin is True
    assert MCTSAgent(policy="network").no_ruin is False
    assert MCTSAgent(policy="network", no_ruin=True).no_ruin is True
