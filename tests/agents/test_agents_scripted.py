"""The naive and planner players (one implementation each, ``native/src/naive.cpp``) as agents.

* mixed tables of naive, planner and random seats, under every rule option and with a druid,
  end by the rules, the players never need their safe fallback, and they meet the rare
  decisions (debts, free levels, lost gems, the fifth sentinel, a hand over its limit);
* any planner parameters play legal games;
* seeding: an agent reseeded by ``reset`` plays as one made with that seed, every bit of a wide
  seed counts, and a pickled or copied agent plays on;
* ``_native.PlannerParams`` refuses bad input in one line, and ``native_planner_params``
  carries every parameter across.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from tests.bot_helpers import new_game, play_out
from zavandor_env.agents.base import Agent, RandomAgent
from zavandor_env.agents.naive import NaiveAgent
from zavandor_env.agents.planner import (
    PlannerAgent,
    PlannerParams,
    native_planner_params,
    resolve_params,
)
from zavandor_env.engine import GameConfig, Phase, PlayerView
from zavandor_env.engine.data import FIELD_NAMES, GEM_NAMES, SENTINELS_TO_END
from zavandor_env.engine.native import core_module

_native = core_module()
DEFAULT_PARAMS = resolve_params(None)
KINDS = {"naive": NaiveAgent, "planner": PlannerAgent, "random": RandomAgent}


def random_params(rng: random.Random) -> PlannerParams:
    """A parameter set far from the shipped one: any cap, any (partial) order, factors
    around 1."""
    order = list(FIELD_NAMES)
    rng.shuffle(order)
    return PlannerParams(
        gem_cap=rng.choice(GEM_NAMES),
        knowledge_order=order[:rng.randint(1, len(order))],
        artifacts_first_round=rng.randint(1, 16),
        artifact_bid_factor={n: round(rng.uniform(0.5, 2.0), 3) for n in range(2, 7)},
        sentinel_bid_factor=rng.choice([0.8, 1.0, 1.15, 4 / 3, 1.7]),
    )


class Seen:
    """What the scripted seats of the games went through."""

    def __init__(self, scripted: set[int]) -> None:
        self.scripted = scripted
        self.phases: Counter[Phase] = Counter()
        self.fifth_sentinel = self.over_hand_limit = 0

    def __call__(self, view: PlayerView, legal: Sequence[int], action: int) -> None:
        if view.seat in self.scripted:
            self.phases[Phase(view.phase)] += 1
            self.fifth_sentinel += view.sentinels_acquired == SENTINELS_TO_END - 1
            self.over_hand_limit += (view.phase == Phase.TURN
                                     and view.me.hand_load > view.me.hand_limit)


def play_table(kinds: Sequence[str], seed: int, seen: Seen | None = None,
               params: PlannerParams | None = None, **options: Any) -> list[Agent]:
    """One game of ``kinds`` at ``seed`` (rule ``options``); its agents, after the game."""
    agents = [PlannerAgent(params=params) if kind == "planner" else KINDS[kind]()
              for kind in kinds]
    game = new_game(GameConfig(num_players=len(kinds), **options), seed)
    play_out(game, agents, seed, seen)
    assert game.terminated, (kinds, seed, options)
    return agents


TABLES = [["naive", "planner", "random"], ["planner", "naive", "planner", "naive"],
          ["naive", "naive"], ["random", "planner", "naive", "random", "planner"],
          ["planner", "random", "naive", "planner", "random", "naive"]]


@pytest.mark.parametrize("options", [
    {}, {"allow_overbid": False}, {"no_split_blocks": False}, {"no_undo_activation": False},
    {"one_value_dust": True}, {"catchup_small_games": True}, {"skip_forced_decisions": False},
    {"sages_dust_substitution": False, "druid_l3_ruby": False},
], ids=lambda options: "+".join(options) or "rulebook")
def test_mixed_tables_end_by_the_rules_without_fallbacks(options: dict[str, Any]) -> None:
    for k, kinds in enumerate(TABLES):
        agents = play_table(kinds, 70 + k, **options)
        for agent in agents:
            # Asked a forced decision (a lone `pass` in an auction it wants to raise), a
            # player falls back to it; the engine skips those unless told not to.
            if isinstance(agent, NaiveAgent | PlannerAgent) and options.get(
                    "skip_forced_decisions", True):
                assert agent.fallbacks == 0, (kinds, options)


def test_the_players_meet_the_rare_decisions() -> None:
    seen_all = Seen(set())
    for k in range(12):
        kinds = TABLES[k % len(TABLES)]
        seen = Seen({s for s, kind in enumerate(kinds) if kind != "random"})
        play_table(kinds, 900 + k, seen, allow_overbid=k % 3 == 0)
        seen_all.phases += seen.phases
        seen_all.fifth_sentinel += seen.fifth_sentinel
        seen_all.over_hand_limit += seen.over_hand_limit
    assert all(seen_all.phases[p] > 0 for p in (Phase.DEBT, Phase.FREE_LEVEL, Phase.LOSE_GEM))
    assert seen_all.fifth_sentinel > 0 and seen_all.over_hand_limit > 0


def test_a_druid_at_the_table() -> None:
    for k, characters in enumerate([("druid", "witch"), ("elf", "druid", "mage", "kobold")]):
        for kind in ("naive", "planner"):
            play_table([kind] * len(characters), 40 + k, characters=characters)


@pytest.mark.parametrize("k", range(4))
def test_any_planner_parameters_play_legal_games(k: int) -> None:
    params = random_params(random.Random(k))
    kinds = ["planner", "naive", "planner", "random"][:2 + k % 3]
    play_table(kinds, 300 + k, params=params, allow_overbid=False)


# ---- seeding ---------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [NaiveAgent, PlannerAgent])
def test_a_reseeded_agent_plays_as_one_made_with_that_seed(make: Any) -> None:
    config = GameConfig(num_players=3)
    made = play_out(new_game(config, 6), [make(seed=s) for s in (10, 11, 12)], None)
    reseeded = play_out(new_game(config, 6), [make(seed=7) for _ in range(3)], 1)
    assert made == reseeded  # play_out resets seat s with seed 10 + s


def test_every_bit_of_a_wide_seed_counts() -> None:
    config = GameConfig(num_players=4)
    wide = [NaiveAgent(seed=(s + 1) << 40 | 5) for s in range(4)]
    narrow = [NaiveAgent(seed=5) for _ in range(4)]
    first = play_out(new_game(config, 8), wide, None)
    assert first == play_out(new_game(config, 8), [NaiveAgent(seed=(s + 1) << 40 | 5)
                                                   for s in range(4)], None)
    assert first != play_out(new_game(config, 8), narrow, None)


@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))])
def test_a_copied_agent_plays_on(duplicate: Any) -> None:
    agents = [duplicate(PlannerAgent(seed=3, params={"gem_cap": "emerald"})),
              duplicate(NaiveAgent(seed=4))]
    assert agents[0].params.gem_cap == "emerald"
    game = new_game(GameConfig(num_players=2), 2)
    play_out(game, agents)
    assert game.terminated and agents[0].fallbacks == agents[1].fallbacks == 0


def test_fallbacks_is_read_only() -> None:
    for agent in (NaiveAgent(0), PlannerAgent(0)):
        assert agent.fallbacks == 0
        with pytest.raises(AttributeError):
            agent.fallbacks = 1  # type: ignore[misc]


# ---- parameters ------------------------------------------------------------------------------
def valid_native_arguments() -> dict[str, Any]:
    """The shipped parameters as ``_native.PlannerParams`` arguments, in their order."""
    return {
        "gem_cap": DEFAULT_PARAMS.gem_cap_kind,
        "field_order": list(DEFAULT_PARAMS.field_order),
        "artifacts_first_round": DEFAULT_PARAMS.artifacts_first_round,
        "artifact_bid_factor": [1.0, 1.0] + [DEFAULT_PARAMS.artifact_bid_factor[n]
                                             for n in range(2, 7)],
        "sentinel_bid_factor": DEFAULT_PARAMS.sentinel_bid_factor,
    }


def make_native_params(arguments: dict[str, Any]) -> Any:
    """``_native.PlannerParams`` from named arguments, passed positionally in their order."""
    return _native.PlannerParams(*(arguments[name] for name in valid_native_arguments()))


@pytest.mark.parametrize("bad", [
    {"gem_cap": len(GEM_NAMES)}, {"gem_cap": -1},
    {"field_order": [0, 1, len(FIELD_NAMES)]}, {"field_order": [-1, 2]},
    {"field_order": [3, 1, 3]}, {"field_order": []},
    {"artifacts_first_round": 0},
    {"artifact_bid_factor": [1.0, 1.0, 1.1, 1.0, 1.0, 1.0]},
    {"artifact_bid_factor": [1.0, 1.0, 1.1, 1.0, 1.0, 1.0, 1.0, 1.0]},
    {"artifact_bid_factor": [1.0, 1.0, 1.1, 0.0, 1.0, 1.0, 1.0]},
    {"artifact_bid_factor": [1.0, 1.0, 1.1, 1.0, 1.0, 1.0, -1.0]},
    {"sentinel_bid_factor": 0.0}, {"sentinel_bid_factor": -1.15},
], ids=repr)
def test_bad_native_parameters_are_one_line_errors(bad: dict[str, Any]) -> None:
    make_native_params(valid_native_arguments())  # the valid ones are accepted
    with pytest.raises(ValueError) as err:
        make_native_params({**valid_native_arguments(), **bad})
    assert str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("params", [
    DEFAULT_PARAMS,
    replace(DEFAULT_PARAMS, gem_cap="ruby", knowledge_order=["sages", "fire"],
            artifacts_first_round=1, sentinel_bid_factor=0.9,
            artifact_bid_factor={2: 1.6, 3: 0.75, 4: 1.3, 5: 0.9, 6: 2.0}),
], ids=["shipped", "other"])
def test_native_planner_params_carries_every_parameter(params: PlannerParams) -> None:
    native = native_planner_params(params)
    assert native.gem_cap == params.gem_cap_kind
    assert list(native.field_order) == list(params.field_order)
    assert native.artifacts_first_round == params.artifacts_first_round
    factors = list(native.artifact_bid_factor)
    assert len(factors) == 7
    assert factors[2:] == [params.artifact_bid_factor[n] for n in range(2, 7)]
    assert native.sentinel_bid_factor == params.sentinel_bid_factor
    unpickled = pickle.loads(pickle.dumps(native))
    assert (unpickled.gem_cap, list(unpickled.field_order), unpickled.artifacts_first_round,
            list(unpickled.artifact_bid_factor), unpickled.sentinel_bid_factor) == (
        native.gem_cap, list(native.field_order), native.artifacts_first_round, factors,
        native.sentinel_bid_factor)
