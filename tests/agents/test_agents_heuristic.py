"""The heuristic player (one implementation, ``native/src/heuristic.cpp``) and its novice.

* ``HeuristicWeights`` and the core's copy of them hold the same fields, and the core refuses
  a missing, unknown or non-numeric weight in one line;
* the heuristic plays every table (2-6 players, either overbid rule, beside random seats that
  reach unusual positions) to the end by the rules;
* it never goes into ruinous debt: no opening or raise it chooses costs more than its hand plus
  its inactive gems (what it can pay without selling an active gem);
* a weights file, or any valid weight set, reaches its play;
* offered fewer actions than the game's legal ones, it never answers outside them;
* the novice is the heuristic with seeded lapses.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import pytest

from tests.bot_helpers import new_game, play_out
from zavandor_env.agents import heuristic as H
from zavandor_env.agents.base import RandomAgent
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.mcts import within_budget
from zavandor_env.agents.novice import NoviceAgent
from zavandor_env.engine import GameConfig, Phase, PlayerView
from zavandor_env.engine.actions import END_TURN, OPEN_ARTIFACT, PASS
from zavandor_env.engine.native import core_module

_native = core_module()
DEFAULT = H.resolve_weights(None)


def random_weights(rng: random.Random) -> H.HeuristicWeights:
    """A weight set far from the defaults: ints, zeros, odd fractions, a sentinel horizon."""
    out: dict[str, Any] = {}
    for key, value in DEFAULT.to_dict().items():
        if key == "expected_rounds":
            out[key] = {n: rng.randint(3, 25) for n in range(2, 7) if rng.random() < 0.8}
        elif rng.random() < 0.4:
            out[key] = value
        elif rng.random() < 0.3:
            small = key in ("income_efficiency", "deny_weight", "big_raise_fraction")
            out[key] = rng.randint(0, 1) if small else rng.randint(0, 40)
        else:
            out[key] = value * rng.choice([0.0, 0.3, 0.77, 1.3, 2.1, 1 / 3])
    if rng.random() < 0.4:
        out["sentinel_min_horizon"] = rng.choice([2, 3.5, 6])
    return H.HeuristicWeights.from_mapping(out)


# ---- weights ---------------------------------------------------------------------------------
def test_weights_fields_match_the_dataclass() -> None:
    names = [f.name for f in fields(H.HeuristicWeights)]
    assert list(_native.HeuristicWeights.FIELDS) == names
    nw = H.native_weights(DEFAULT)
    assert nw.to_dict() == DEFAULT.to_dict()
    assert pickle.loads(pickle.dumps(nw)).to_dict() == DEFAULT.to_dict()


def test_weights_refuse_missing_and_unknown_keys() -> None:
    data = DEFAULT.to_dict()
    for key in list(data):
        partial = {k: v for k, v in data.items() if k != key}
        with pytest.raises(ValueError, match=key):
            _native.HeuristicWeights(partial)
    with pytest.raises(ValueError, match="no_such_weight"):
        _native.HeuristicWeights({**data, "no_such_weight": 1.0})
    with pytest.raises(ValueError):
        _native.HeuristicWeights({**data, "vp_energy": "twelve"})
    # expected_rounds keys and values go through int(), as HeuristicWeights.from_mapping
    odd = _native.HeuristicWeights({**data, "expected_rounds": {"3": 12.0, 4: 9}})
    assert odd.to_dict()["expected_rounds"] == {3: 12, 4: 9}


# ---- play ------------------------------------------------------------------------------------
def _check_no_ruin(heuristic_seats: set[int]) -> Any:
    """A watcher: every opening or raise of a heuristic seat is within what it can pay
    without selling an active gem (``within_budget``, the MCTS agent's ``no_ruin`` filter)."""

    def watch(view: PlayerView, legal: Sequence[int], action: int) -> None:
        if view.seat not in heuristic_seats or not OPEN_ARTIFACT <= action < PASS:
            return
        if view.phase == Phase.BID and view.high_bidder < 0:
            return  # its own opening bid, the price it checked when it opened
        assert action in within_budget(view, legal), (view.round, view.phase, action)

    return watch


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("allow_overbid", [True, False])
def test_the_heuristic_ends_its_games_by_the_rules_without_ruinous_debt(
        num_players: int, allow_overbid: bool) -> None:
    config = GameConfig(num_players=num_players, allow_overbid=allow_overbid)
    for seed, random_seats in ((num_players, set()), (50 + num_players, {1})):
        agents = [RandomAgent() if s in random_seats else HeuristicAgent()
                  for s in range(num_players)]
        game = new_game(config, seed)
        play_out(game, agents, seed,
                 _check_no_ruin(set(range(num_players)) - random_seats))
        assert game.terminated, (num_players, seed)


def test_a_weights_file_reaches_the_play(tmp_path: Any) -> None:
    path = tmp_path / "weights.yaml"
    path.write_text("weights:\n  expected_rounds: {2: 12, 3: 20, 4: 10, 5: 18, 6: 9}\n"
                    "  vp_energy: 15\n  deny_weight: 0.55\n  sentinel_min_horizon: 4.0\n",
                    encoding="utf-8")
    agent = HeuristicAgent(config=path)
    assert agent.w.vp_energy == 15 and agent.w.expected_rounds[3] == 20
    config = GameConfig(num_players=2)
    tuned = play_out(new_game(config, 4), [agent, HeuristicAgent()])
    plain = play_out(new_game(config, 4), [HeuristicAgent(), HeuristicAgent()])
    assert tuned != plain


def test_any_valid_weight_set_plays_legal_games_to_the_end() -> None:
    for k in range(3):
        w = random_weights(random.Random(k))
        game = new_game(GameConfig(num_players=2 + k, allow_overbid=bool(k % 2)), 300 + k)
        play_out(game, [HeuristicAgent(weights=w) for _ in range(2 + k)])
        assert game.is_over


def test_offered_fewer_actions_it_never_answers_outside_them() -> None:
    game = new_game(GameConfig(num_players=2), 8)
    agent = HeuristicAgent()
    agent.reset(game.current_player, 2)
    checked = 0
    while not game.is_over and checked < 40:
        view, legal = game.view(game.current_player), game.legal_actions()
        choice = agent.act(None, view, legal)
        fewer = [a for a in legal if a != choice]
        if fewer:
            other = agent.act(None, view, fewer)
            assert other in fewer
            assert other in (END_TURN, PASS) or other == fewer[0]
            checked += 1
        game.apply(choice)
    assert checked > 0


def test_a_pickled_heuristic_plays_as_the_original() -> None:
    agent = HeuristicAgent(weights={"vp_energy": 9.0})
    copy = pickle.loads(pickle.dumps(agent))
    config = GameConfig(num_players=2)
    assert play_out(new_game(config, 2), [copy, HeuristicAgent()]) == play_out(
        new_game(config, 2), [agent, HeuristicAgent()])


# ---- the novice ------------------------------------------------------------------------------
def test_a_novice_without_lapses_plays_the_heuristic() -> None:
    config = GameConfig(num_players=3)
    assert play_out(new_game(config, 6), [NoviceAgent(blunder=0.0) for _ in range(3)]) == \
        play_out(new_game(config, 6), [HeuristicAgent() for _ in range(3)])


def test_the_novices_lapses_come_from_its_seed_and_only_on_its_turns() -> None:
    config = GameConfig(num_players=2)

    def game(agent_seed: int) -> list[int]:
        lapses: list[tuple[Phase, int]] = []
        plain = HeuristicAgent()

        def watch(view: PlayerView, legal: Sequence[int], action: int) -> None:
            plain.reset(view.seat, 2)
            if action != plain.act(None, view, legal):
                lapses.append((view.phase, action))

        taken = play_out(new_game(config, 9),
                         [NoviceAgent(blunder=0.3), NoviceAgent(blunder=0.3)], agent_seed, watch)
        assert lapses and all(phase == Phase.TURN for phase, _ in lapses)
        return taken

    assert game(1) == game(1)
    assert game(1) != game(2)
    with pytest.raises(ValueError, match="blunder"):
        NoviceAgent(blunder=1.5)
