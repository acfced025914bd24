"""MCTS always returns: a legal decision within its budget, whatever the position.

* An auction the deciding seat opened but cannot pay (possible under the rulebook's overbid
  rule): the search plays in the game without overbids (``avoid_curse``), where that seat
  has no legal action at all.  The native flat search used to loop forever there, and the
  heuristic policy raised "heuristic_choose: no legal action"; now the policy decides.
* Budgets are capped (iterations, seconds, the hard wall-clock cap of every search), and a
  timed search returns within twice its budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import pytest

from zavandor_env.agents.heuristic import native_weights, resolve_weights
from zavandor_env.agents.mcts import MAX_ITERATIONS, MAX_SECONDS, MCTSAgent
from zavandor_env.agents.planner import native_planner_params, resolve_params
from zavandor_env.agents.registry import make_agent
from zavandor_env.engine import Game, Phase, action_to_string, string_to_action
from zavandor_env.engine.native import core_module

_native = core_module()


def _unpayable_opening(num_players: int = 2, seed: int = 0) -> Game:
    """Round 1 of a seeded game: the first player opens the Phoenix (minimum bid 120, which
    it cannot pay even by selling every gem) and must now make the opening bid."""
    game = Game.new(num_players=num_players, seed=seed)
    opener = game.current_player
    game.apply(string_to_action("open_phoenix"))
    assert game.phase == Phase.BID and game.current_player == opener
    return game


def _decide(game: Game, spec: str) -> tuple[int, float, MCTSAgent]:
    agent = make_agent(spec, seed=1)
    assert isinstance(agent, MCTSAgent)
    seat = game.current_player
    agent.reset(seat, game.num_players)
    start = time.perf_counter()
    action = agent.act(None, game.view(seat), game.legal_actions())
    return action, time.perf_counter() - start, agent


@pytest.mark.parametrize("budget", ["iterations=8", "seconds=0.05"])
@pytest.mark.parametrize("policy", ["planner", "heuristic"])
def test_an_unpayable_opening_bid_is_decided_by_the_policy_without_searching(
        budget: str, policy: str) -> None:
    game = _unpayable_opening()
    action, seconds, agent = _decide(game, f"mcts:{budget},policy={policy}")
    assert action in game.legal_actions()
    assert agent.last_iterations == 0 and seconds < 2.0


@pytest.mark.parametrize("num_players", [5, 6])
@pytest.mark.parametrize("algorithm", ["flat", "tree"])
@pytest.mark.parametrize("policy", ["heuristic", "planner"])
def test_the_search_of_an_unpayable_opening_bid_at_5_and_6_players_returns_a_legal_bid(
        num_players: int, algorithm: str, policy: str) -> None:
    # Where "heuristic_choose: no legal action" was raised (and the planner's search hung).
    game = _unpayable_opening(num_players, seed=3)
    legal = list(game.legal_actions())
    params = {"iterations": 8, "algorithm": algorithm, "policy": policy,
              "planner": native_planner_params(resolve_params(None))}
    weights = native_weights(resolve_weights(None))
    action, done = _native.mcts_search(game.native_core, game.current_player, legal, params,
                                       weights, 7)
    assert action in legal and done == 0


@pytest.mark.parametrize("algorithm", ["flat", "tree"])
def test_a_timed_search_returns_within_twice_its_budget(algorithm: str) -> None:
    game = Game.new(num_players=6, seed=5)
    action, seconds, _ = _decide(game, f"mcts:seconds=0.05,algorithm={algorithm}")
    assert action in game.legal_actions()
    assert seconds < 2 * 0.05 + 0.25


@pytest.mark.parametrize("spec, message", [
    (f"mcts:iterations={MAX_ITERATIONS + 1}", "iterations must be at most"),
    ("mcts:iterations=0", "iterations must be a positive integer"),
    (f"mcts:seconds={MAX_SECONDS * 2}", "seconds must be a number in"),
    ("mcts:seconds=nan", "seconds must be a number in"),
    ("mcts:seconds=-1", "seconds must be a number in"),
])
def test_a_budget_beyond_the_caps_is_refused_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as err:
        make_agent(spec)
    assert "\n" not in str(err.value)


def test_the_native_caps_are_the_agents() -> None:
    assert _native.MCTS_MAX_ITERATIONS == MAX_ITERATIONS
    assert _native.MCTS_MAX_SECONDS == MAX_SECONDS


def _native_search(game: Game, params: dict) -> tuple[int, int]:
    weights = native_weights(resolve_weights(None))
    return _native.mcts_search(game.native_core, game.current_player, list(game.legal_actions()),
                               {"policy": "heuristic", **params}, weights, 0)


@pytest.mark.parametrize("params, message", [
    ({"iterations": MAX_ITERATIONS + 1}, "iterations must be in"),
    ({"seconds": MAX_SECONDS + 1}, "seconds must be in"),
    ({"seconds": math.inf}, "seconds' must be finite"),
    ({"max_seconds": 0}, "max_seconds must be in"),
])
def test_native_budgets_beyond_the_caps_are_refused(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _native_search(Game.new(num_players=2, seed=0), params)


@pytest.mark.parametrize("algorithm", ["flat", "tree"])
def test_the_hard_wall_clock_cap_stops_an_iteration_budget(algorithm: str) -> None:
    game = Game.new(num_players=4, seed=2)
    start = time.perf_counter()
    action, done = _native_search(game, {"iterations": MAX_ITERATIONS, "max_seconds": 0.1,
                                         "algorithm": algorithm})
    assert time.perf_counter() - start < 1.0
    assert action in game.legal_actions() and 0 < done < MAX_ITERATIONS


def test_the_unpayable_opening_is_what_the_search_cannot_play() -> None:
    # The position the tests above rely on: the seat must bid, and no bid is affordable.
    game = _unpayable_opening()
    names = [action_to_string(a) for a in game.legal_actions()]
    assert "pass" not in names and names[0] == "bid_plus_0"
    state = game.state.clone()
    state.config = replace(state.config, allow_overbid=False)
    assert Game(state).legal_actions() == ()
