"""MCTS decides from every phase: a corpus of states from seeded games at 2-6 players between
mixed agents (random, heuristic, naive, planner, novice) holds every phase (TURN, BID, DEBT,
FREE_LEVEL, LOSE_GEM) and the unpayable opening bid (a seat that opened an auction it cannot
pay, which only the rulebook's overbid rule allows); from each, the MCTS agent at 8
iterations and at 0.02 s (the default policy and the heuristic) must return a
legal action within its budget.

The default run takes one state per situation; the slow one every (situation, player count)
of forty games."""

from __future__ import annotations

import time
from dataclasses import replace
from functools import lru_cache

import pytest

from zavandor_env.agents.mcts import MCTSAgent
from zavandor_env.agents.registry import make_agent
from zavandor_env.engine import Game, Phase
from zavandor_env.engine.state import GameState

MIX = ("random", "heuristic", "naive", "planner", "novice")
UNPAYABLE = "UNPAYABLE_BID"
SITUATIONS = ("TURN", "BID", "DEBT", "FREE_LEVEL", "LOSE_GEM", UNPAYABLE)
SEARCHED = ("TURN", "BID", UNPAYABLE)  # the others are searched only with search_all
SECONDS = 0.02
#: Setup and timer slack on top of a timed search's bound (twice its budget), for a loaded
#: machine.
MARGIN = 0.5

BUDGETS = ["iterations=8", f"seconds={SECONDS}"]
POLICIES = ["planner", "heuristic"]  # the default, and the one the scorecard pins


def situation(state: GameState) -> str:
    """The phase's name, or UNPAYABLE_BID for a bid the deciding seat must make although no
    bid is affordable (none is legal without overbids)."""
    if state.phase == Phase.BID and state.config.allow_overbid:
        strict = state.clone()
        strict.config = replace(strict.config, allow_overbid=False)
        if not Game(strict).legal_actions():
            return UNPAYABLE
    return Phase(state.phase).name


@lru_cache(maxsize=2)
def corpus(seeds: range) -> dict[tuple[str, int], GameState]:
    """The first state of each (situation, player count) with a real choice, from native
    games of ``2 + seed % 5`` players between the MIX agents."""
    found: dict[tuple[str, int], GameState] = {}
    for seed in seeds:
        n = 2 + seed % 5
        agents = [make_agent(MIX[(seed + k) % len(MIX)], seed=seed + k) for k in range(n)]
        for k, agent in enumerate(agents):
            agent.reset(k, n)
        game = Game.new(num_players=n, seed=seed)
        while not game.is_over:
            seat, legal = game.current_player, game.legal_actions()
            if len(legal) > 1:
                state = game.state
                found.setdefault((situation(state), n), state)
            game.apply(agents[seat].act(None, game.view(seat), legal))
    return found


def _most_players(name: str) -> tuple[str, int]:
    """The default run's state of a situation: the one at the most players in seeds 0-4."""
    return max((k for k in corpus(range(5)) if k[0] == name), key=lambda k: k[1])


def _decide(state: GameState, spec: str) -> tuple[int, float, MCTSAgent, tuple[int, ...]]:
    game = Game(state.clone())
    seat = game.current_player
    agent = make_agent(spec, seed=3)
    assert isinstance(agent, MCTSAgent)
    agent.reset(seat, game.num_players)
    legal = game.legal_actions()
    start = time.perf_counter()
    action = agent.act(None, game.view(seat), legal)
    return action, time.perf_counter() - start, agent, legal


def _check(key: tuple[str, int], budget: str, policy: str) -> None:
    name, _ = key
    spec = f"mcts:{budget},policy={policy}"
    if name not in SEARCHED:
        spec += ",search_all=true"
    action, seconds, agent, legal = _decide(corpus_state(key), spec)
    assert action in legal, (key, spec)
    if budget.startswith("seconds"):
        assert seconds < 2 * SECONDS + MARGIN, (key, spec, seconds)
    else:
        assert agent.last_iterations <= 8, (key, spec)


def corpus_state(key: tuple[str, int]) -> GameState:
    for seeds in (range(5), range(40)):
        if key in corpus(seeds):
            return corpus(seeds)[key]
    raise KeyError(key)


def test_the_corpus_holds_every_phase_and_the_unpayable_bid() -> None:
    assert {name for name, _ in corpus(range(5))} == set(SITUATIONS)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("name", SITUATIONS)
def test_mcts_returns_a_legal_action_within_its_budget_from_every_phase(
        name: str, budget: str, policy: str) -> None:
    _check(_most_players(name), budget, policy)


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("budget", BUDGETS)
def test_mcts_returns_a_legal_action_within_its_budget_from_forty_games(
        budget: str, policy: str) -> None:
    keys = sorted(corpus(range(40)))
    assert {name for name, _ in keys} == set(SITUATIONS) and len(keys) >= 25
    for key in keys:
        _check(key, budget, policy)
