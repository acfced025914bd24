"""The Monte Carlo search (one implementation, ``native/src/mcts.cpp``) and its agent.

* The search returns a legal action, spends exactly its iteration budget (none when a single
  curse-free action is left), is deterministic for a seed and a budget and only reads the core;
* the flat search keeps its policy's choice without evidence and leaves it on clear evidence;
* ``avoid_curse`` keeps it to actions that cannot get the seat cursed;
* it is blind to hidden information: what the seat's view hides can change without changing
  the search;
* bad parameters are refused; the agent pickles, plays legal games deterministically, plays
  around the policy it is given, and is stronger than the scripted players it searches around.
"""

from __future__ import annotations

import pickle
import random

import pytest

from zavandor_env.agents.heuristic import HeuristicAgent, choose, native_weights, resolve_weights
from zavandor_env.agents.mcts import MCTSAgent, curse_free
from zavandor_env.agents.planner import PlannerAgent, native_planner_params, resolve_params
from zavandor_env.engine import Game, GameConfig, Phase
from zavandor_env.engine.actions import PASS
from zavandor_env.engine.data import ARTIFACTS, NUM_CARD_TOKENS, TOKEN_COLOUR
from zavandor_env.engine.native import core_module
from zavandor_env.engine.queries import item_price, max_payable
from zavandor_env.eval.match import play_game

_native = core_module()
W = resolve_weights(None)
NW = native_weights(W)
NP = native_planner_params(resolve_params(None))  # the shipped planner, natively
#: The tree search of before the flat one became the default (its old defaults).
OLD = {"algorithm": "tree", "horizon_rounds": 1, "policy": "heuristic"}
#: The same agent as measured (no_ruin filters the root in the agent, not in the search).
OLD_AGENT = {**OLD, "no_ruin": False}


# ---- positions ----------------------------------------------------------------------------
def _position(num_players: int, seed: int, decisions: int, phase: Phase | None = None,
              **config) -> Game | None:
    """A game played by the heuristic for about ``decisions`` decisions, stopped at the next
    real search decision (TURN or BID, or ``phase``); None if the game ended first."""
    game = Game.new(GameConfig(num_players=num_players, **config), seed=seed)
    phases = (phase,) if phase is not None else (Phase.TURN, Phase.BID)
    taken = 0
    while not game.is_over:
        legal = game.legal_actions()
        if taken >= decisions and game.phase in phases and len(legal) > 1:
            return game
        game.apply(choose(game.view(game.current_player), legal, NW))
        taken += 1
    return None


def _positions(phase: Phase | None = None, per_count: int = 3):
    for n in range(2, 7):
        for k in range(per_count):
            seed = 100 * n + k
            game = _position(n, seed, random.Random(seed).randrange(5, 250), phase)
            if game is not None:
                yield game


def _mcts_search(core, seat, legal, params, weights, seed):
    """_native.mcts_search around the heuristic unless params say otherwise (the native default
    is MCTSAgent's, the planner, which needs planner parameters)."""
    return _native.mcts_search(core, seat, legal, {"policy": "heuristic", **params}, weights, seed)


def _search(game: Game, seed: int = 0, **params) -> tuple[int, int]:
    params.setdefault("iterations", 16)
    seat = game.current_player
    return _mcts_search(game.native_core, seat, list(game.legal_actions()), params, NW, seed)


# ---- legal, deterministic, curse-free -----------------------------------------------------
@pytest.mark.parametrize("phase", [Phase.TURN, Phase.BID])
def test_the_search_returns_a_legal_action_and_spends_its_budget(phase):
    seen = 0
    for game in _positions(phase, per_count=3):
        assert game.phase == phase
        legal = game.legal_actions()
        for params in ({"iterations": 16}, {"iterations": 16, **OLD},
                       {"iterations": 8, "rollout": "random", **OLD},
                       {"iterations": 8, "avoid_curse": False, "algorithm": "tree"},
                       {"iterations": 8, "opponent_model": "heuristic", **OLD},
                       {"iterations": 8, "policy": "planner", "planner": NP},
                       {"iterations": 8, "policy": "naive", "rollout": "random"},
                       {"iterations": 8, "avoid_curse": False, "rollout": "random"}):
            action, done = _search(game, seed=seen, **params)
            assert action in legal
            allowed = legal if not params.get("avoid_curse", True) else curse_free(
                game.view(game.current_player), legal)
            assert done == (params["iterations"] if len(allowed) > 1 else 0)
        seen += 1
    assert seen >= 10


@pytest.mark.parametrize("algorithm", ["flat", "tree"])
def test_the_search_is_deterministic_for_a_seed_and_budget_and_only_reads_the_core(algorithm):
    params = {"iterations": 40, "algorithm": algorithm, "switch_z": 0.0, "min_pairs": 0}
    for game in list(_positions(per_count=1))[:4]:
        before = game.native_core.to_state_dict()
        first = _search(game, seed=5, **params)
        assert _search(game, seed=5, **params) == first and first[1] == 40
        assert game.native_core.to_state_dict() == before


def test_the_flat_search_keeps_the_policys_choice_without_evidence():
    """The flat search plays the policy's choice unless another action beats it on at least
    min_pairs paired samples by switch_z standard errors: with two samples per action it
    never leaves it; with switch_z=0 and min_pairs=0 it takes the best mean, which is
    sometimes another action."""
    checked = switched = 0
    for game in _positions(per_count=2):
        seat, legal = game.current_player, list(game.legal_actions())
        heuristic = choose(game.view(seat), legal, NW)
        base = {"avoid_curse": False, "horizon_rounds": 0}
        action, done = _search(game, seed=3, iterations=2 * len(legal), **base)
        assert action == heuristic and done == 2 * len(legal)
        greedy, _ = _search(game, seed=3, iterations=2 * len(legal), switch_z=0.0,
                            min_pairs=0, **base)
        switched += greedy != heuristic
        checked += 1
    assert checked >= 10 and switched >= 1


def test_a_timed_search_completes_a_playout():
    game = next(_positions(per_count=1))
    action, done = _search(game, seconds=0.02, iterations=None)
    assert action in game.legal_actions() and done >= 1


def _bid_decision_with_overbids(seed: int) -> tuple[Game, int]:
    """A bidding decision where some raises could not be paid even by selling every gem."""
    game = Game.new(num_players=2, seed=seed)
    agents = [HeuristicAgent(seed=s) for s in range(2)]
    for s, agent in enumerate(agents):
        agent.reset(s, 2, s)
    while not game.is_over:
        state, seat = game.state, game.current_player
        if state.phase == Phase.BID and PASS in game.legal_actions():
            player = state.players[seat]
            if item_price(state, player, state.auction_kind, state.auction_item,
                          state.high_bid + 50) > max_payable(player):
                return game, seat
        game.apply(agents[seat].act(None, game.view(seat), game.legal_actions()))
    raise AssertionError("no bidding decision with unaffordable raises")


@pytest.mark.parametrize("algorithm", ["flat", "tree"])
def test_the_search_respects_avoid_curse(algorithm):
    game, seat = _bid_decision_with_overbids(seed=1)
    legal = list(game.legal_actions())
    safe = curse_free(game.view(seat), legal)
    assert PASS in safe and set(safe) < set(legal)
    for seed in range(6):
        action, _ = _mcts_search(game.native_core, seat, legal,
                                 {"iterations": 24, "prior_weight": 0.0, "c": 3.0,
                                  "switch_z": 0.0, "min_pairs": 0, "algorithm": algorithm},
                                 NW, seed)
        assert action in safe
    agent = MCTSAgent(seed=0, iterations=24, algorithm=algorithm)
    agent.reset(seat, 2, 0)
    assert agent.act(None, game.view(seat), legal) in safe
    reckless = _mcts_search(game.native_core, seat, legal,
                            {"iterations": 24, "avoid_curse": False, "c": 3.0,
                             "algorithm": algorithm}, NW, 0)
    assert reckless[0] in legal


# ---- hidden information -------------------------------------------------------------------
def _scramble_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """The same position as ``seat`` sees it, with everything its view hides redrawn: other
    hands' card values and 9-Sages cards (colours kept), every deck order, the artifact deck
    order within its letters, and the generator."""
    state = game.state.clone()
    others = [p for p in state.players if p.seat != seat]
    for colour in range(4):
        pool = list(state.decks[colour])
        for p in others:
            pool += [t for t in range(NUM_CARD_TOKENS) if TOKEN_COLOUR[t] == colour
                     for _ in range(p.hand[t])]
            pool += [t for t in p.sages_tokens if TOKEN_COLOUR[t] == colour]
        rng.shuffle(pool)
        for p in others:
            n = 0
            for t in range(NUM_CARD_TOKENS):
                if TOKEN_COLOUR[t] == colour:
                    n += p.hand[t]
                    p.hand[t] = 0
            for _ in range(n):
                p.hand[pool.pop()] += 1
            p.sages_tokens = [pool.pop() if TOKEN_COLOUR[t] == colour else t
                              for t in p.sages_tokens]
        state.decks[colour] = pool
    deck = state.artifact_deck
    for letter in {ARTIFACTS[a].letter for a in deck}:
        positions = [i for i, a in enumerate(deck) if ARTIFACTS[a].letter == letter]
        items = [deck[i] for i in positions]
        rng.shuffle(items)
        for i, a in zip(positions, items):
            deck[i] = a
    state.rng.seed(rng.getrandbits(64))
    return Game(state)


@pytest.mark.parametrize("algorithm", ["flat", "tree"])
def test_the_search_never_reads_hidden_information(algorithm):
    """The search's choice (by the best mean, so that it follows the playouts' results) is
    the same when everything the seat's view hides is redrawn."""
    changed = 0
    for k, game in enumerate(_positions(per_count=2)):
        seat = game.current_player
        legal = list(game.legal_actions())
        params = {"iterations": 24, "algorithm": algorithm, "switch_z": 0.0, "min_pairs": 0,
                  "c": 3.0, "prior_weight": 0.0}
        base = _mcts_search(game.native_core, seat, legal, params, NW, k)
        for trial in range(2):
            other = _scramble_hidden(game, seat, random.Random(1000 * k + trial))
            before = game.state.to_dict()
            after = other.state.to_dict()
            changed += any(after["players"][p.seat]["hand"] != before["players"][p.seat]["hand"]
                           for p in game.state.players if p.seat != seat)
            assert other.view(seat).me.hand == game.view(seat).me.hand
            assert _mcts_search(other.native_core, seat, legal, params, NW, k) == base
    assert changed >= 10, "the scrambles did change hidden hands"


# ---- parameters and the agent ------------------------------------------------------------
def test_bad_parameters_are_refused():
    game = next(_positions(per_count=1))
    core, seat, legal = game.native_core, game.current_player, list(game.legal_actions())
    for params in ({"iterationz": 3}, {"iterations": 0}, {"seconds": -1.0},
                   {"rollout": "psychic"}, {"c": "x"}, {"iterations": 2.5},
                   {"algorithm": "deep"}, {"opponent_model": "psychic"}, {"switch_z": "x"},
                   {"min_pairs": -1}, {"max_depth": -1}, {"min_pairs": 1.5},
                   {"policy": "psychic"}, {"policy": "random"}, {"policy": "planner"},
                   {"rollout": "planner"}, {"policy": "planner", "planner": {"gem_cap": 1}}):
        with pytest.raises(ValueError):
            _mcts_search(core, seat, legal, params, NW, 0)
    with pytest.raises(ValueError):
        _mcts_search(core, (seat + 1) % game.num_players, legal, {}, NW, 0)
    illegal = next(a for a in range(_native.NUM_ACTIONS) if a not in legal)
    with pytest.raises(ValueError):
        _mcts_search(core, seat, [illegal], {}, NW, 0)
    for bad in ({"algorithm": "deep"}, {"opponent_model": "psychic"}, {"min_pairs": -1},
                {"max_depth": 1.5}, {"policy": "random"}, {"rollout": "psychic"},
                {"policy": "planner", "opponent_model": "heuristic"}):
        with pytest.raises(ValueError):
            MCTSAgent(**bad)


def test_the_agent_pickles_with_its_parameters_and_searches_after():
    copy = pickle.loads(pickle.dumps(MCTSAgent(seed=0, iterations=4)))
    assert copy.iterations == 4 and copy.algorithm == "flat"
    assert (copy.policy, copy.rollout, copy.planner) == ("planner", "planner", resolve_params(None))
    heuristic = MCTSAgent(seed=0, policy="heuristic")
    assert (heuristic.rollout, heuristic.planner) == ("heuristic", None)
    assert MCTSAgent(seed=0, policy="heuristic", rollout="planner").planner is not None
    planner = MCTSAgent(seed=0, iterations=4)
    game = next(_positions(per_count=1))
    seat, legal = game.current_player, list(game.legal_actions())
    first = planner.search(game.native_core, seat, legal)
    assert first in legal and planner.last_iterations == 4
    copy = pickle.loads(pickle.dumps(planner))
    assert (copy.policy, copy.rollout, copy.planner) == ("planner", "planner", planner.planner)
    assert copy.search(game.native_core, seat, legal) in legal


@pytest.mark.parametrize("num_players", [2, 4])
def test_the_agent_plays_legal_games(num_players):
    agents = [MCTSAgent(seed=s, iterations=8) for s in range(num_players)]
    searched = []

    def on_decision(game, seat, action):
        searched.append(agents[seat].last_iterations)

    result = play_game(agents, seed=3, config=GameConfig(num_players=num_players),
                       on_decision=on_decision)
    assert not result.truncated and result.decisions > 0
    assert max(searched) == 8


def test_the_agent_is_deterministic():
    def moves(seed):
        record = play_game([MCTSAgent(seed=seed, iterations=8), HeuristicAgent(seed=1)],
                           seed=11, record_replay=True)
        return record.replay["actions"]

    assert moves(4) == moves(4)


def _wins_losses(games: int, iterations: int, first_seed: int, opponent=HeuristicAgent,
                 **params) -> tuple[int, int]:
    """MCTS against ``opponent`` at 2 players, seats alternating: (wins, losses)."""
    wins = losses = 0
    for g in range(games):
        mcts_seat = g % 2
        agents = [None, None]
        agents[mcts_seat] = MCTSAgent(seed=g, iterations=iterations, **params)
        agents[1 - mcts_seat] = opponent(seed=g)
        result = play_game(agents, seed=first_seed + g)
        if result.winners == [mcts_seat]:
            wins += 1
        elif result.winners == [1 - mcts_seat]:
            losses += 1
    return wins, losses


@pytest.mark.slow  # a strength check over 16-20 games
def test_the_tree_mcts_is_at_least_as_strong_as_the_heuristic():
    """The old tree search at the budget of configs/eval/mcts_vs_heuristic_2p.yaml (16
    iterations, one-round horizon; docs/benchmarks.md measures the Python search at 0.78
    against the heuristic there).  Larger fixed budgets are not stronger with this algorithm:
    the search loses to the heuristic at 64 iterations (measured on these deals: 12 wins and
    28 losses over 40).  The progressive bias fades as 1 / (n + 1), and the search then follows the
    one-round evaluation instead of the heuristic's plan."""
    wins, losses = _wins_losses(20, 16, first_seed=500, **OLD_AGENT)
    assert wins >= losses, (wins, losses)


@pytest.mark.slow  # a strength check over 16-20 games
def test_the_flat_search_beats_the_heuristic():
    """The flat search around the heuristic (the default before the planner) at a small fixed
    budget (100 playouts a decision).  Measured with 40 games each (2 players, alternating
    seats, seeds 1000-1019): 0.93 at 64 playouts, 0.97 at 150 and 400; with 16 it keeps the
    heuristic's choices (0.5).  With ``no_ruin`` (the default since) these 16 games give 11
    wins and 5 losses (14 and 2 without it); at 0.05 s a decision it won 100 of 100
    (docs/benchmarks.md)."""
    wins, losses = _wins_losses(16, 100, first_seed=500, policy="heuristic")
    assert wins >= 10, (wins, losses)


@pytest.mark.slow  # a strength check over 16-20 games
def test_the_flat_search_around_the_planner_beats_the_planner():
    """The default search (around the planner: its prior, rollouts and opponent model) against
    the planner at 64 playouts a decision.  Measured: 15 wins, 0 losses on these 16 deals, 40
    and 0 on 40 others (seeds 1000+); around the heuristic the same search scores 6 and 9 here
    (0.16 at 0.05 s a move over 200 games, docs/benchmarks.md)."""
    wins, losses = _wins_losses(16, 64, first_seed=500, opponent=PlannerAgent)
    assert wins >= 13, (wins, losses)


def test_the_flat_search_plays_around_the_policy_it_is_given():
    """``policy`` picks the search's prior, rollouts and opponent model: on the same deal and
    seeds the search around the heuristic plays other moves than the one around the planner
    (how much weaker it is there is a measurement: docs/benchmarks.md)."""
    def actions(policy: str) -> list[int]:
        agents = [MCTSAgent(seed=0, iterations=64, policy=policy),
                  PlannerAgent(seed=0)]
        replay = play_game(agents, seed=500, record_replay=True).replay
        assert replay is not None
        return list(replay["actions"])

    assert actions("planner") != actions("heuristic")


@pytest.mark.slow
def test_the_mcts_beats_the_heuristic_over_100_games():
    wins, losses = _wins_losses(100, 16, first_seed=9000, **OLD_AGENT)
    assert wins > 1.5 * losses, (wins, losses)


@pytest.mark.slow
def test_the_flat_search_beats_the_heuristic_over_50_games():
    wins, losses = _wins_losses(50, 100, first_seed=9000, policy="heuristic")  # 48 wins, 2 losses
    assert wins >= 40, (wins, losses)
