"""The native naive and planner players (``_native.NativeNaive``, ``_native.NativePlanner``)
against agents/naive.py and agents/planner.py.

The Python agents are the reference.  Games run on the pure-Python engine.  Each naive or
planner seat has one Python agent and one native agent, both seeded ``seed * 10 + seat``; at
every decision of such a seat the Python agent's ``act`` gives the action, the native agent's
``act`` is asked on a ``Core`` loaded from the same state, and the two must be equal.  The
Python action is then applied.  Both generators draw together (bid jitter, sentinel choice), so
a draw made by one side only shows up as a later mismatch.  After each game both sides must
report the same ``fallbacks`` count, 0.

* pure naive and pure planner tables at 2..6 players, tables mixing naive and planner seats,
  and mixed tables where some seats play uniformly random legal actions, which reach unusual
  positions (debts, Mirror/Cloak losses, free levels, the fifth sentinel, a hand over its
  limit, eliminated opponents; one test checks that they are reached);
* rule options flipped (overbid, no-split, no-undo, one-value dust and the others);
* planner parameters away from the shipped ones (gem caps, knowledge orders, a partial order,
  artifacts from round 1, other bid factors, random parameter sets);
* ``NativeNaive.seed`` and ``NativePlanner.seed`` reseeding, read-only ``fallbacks``;
* ``_native.PlannerParams`` refusing bad input with a one-line ``ValueError``, and
  ``native_planner_params`` carrying every parameter across.

``pytest -m slow`` runs a larger comparison.
"""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

import pytest

from tests.agent_helpers import rule_variant
from tests.tiers import players, spread
from zavandor_env.agents.naive import NaiveAgent
from zavandor_env.agents.planner import PlannerAgent, PlannerParams, resolve_params
from zavandor_env.engine import Game, GameConfig, Phase, PlayerView, action_to_string
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.data import FIELD_NAMES, GEM_NAMES, SENTINELS_TO_END

_native = pytest.importorskip("zavandor_env.engine._native")
if not hasattr(_native, "NativePlanner"):
    pytest.skip("the native module was built without the naive/planner port (NativePlanner)",
                allow_module_level=True)

from zavandor_env.agents.planner import native_planner_params  # noqa: E402

Core = _native.Core
SeatKind = Literal["naive", "planner", "random"]
DEFAULT_PARAMS = resolve_params(None)


# ---- helpers ---------------------------------------------------------------------------------
@dataclass
class SeatAgents:
    """The Python reference and the native port playing one seat."""

    kind: SeatKind
    python: NaiveAgent
    native: Any


@dataclass
class GameRecord:
    """What one compared game went through (the decisions of naive/planner seats only)."""

    decisions: int = 0
    phases: Counter[Phase] = field(default_factory=Counter)
    fifth_sentinel: int = 0  # decisions while four sentinels are taken
    over_hand_limit: int = 0  # turn decisions with a hand over its limit
    eliminated_opponent: int = 0  # decisions with an opponent out of the game

    def note(self, view: PlayerView) -> None:
        self.decisions += 1
        self.phases[Phase(view.phase)] += 1
        self.fifth_sentinel += view.sentinels_acquired == SENTINELS_TO_END - 1
        self.over_hand_limit += (view.phase == Phase.TURN
                                 and view.me.hand_load > view.me.hand_limit)
        self.eliminated_opponent += any(p.eliminated for p in view.players)

    def __iadd__(self, other: GameRecord) -> GameRecord:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self


def agent_seed(game_seed: int, seat: int) -> int:
    return game_seed * 10 + seat


def seat_agents(kind: SeatKind, seed: int, params: PlannerParams,
                native_seed: int | None = None) -> SeatAgents | None:
    """One seat's pair of agents (None for a random seat).  ``native_seed``, if given, seeds the
    native agent first, and ``seed(seed)`` then reseeds it."""
    first = seed if native_seed is None else native_seed
    if kind == "naive":
        pair = SeatAgents(kind, NaiveAgent(seed), _native.NativeNaive(first))
    elif kind == "planner":
        pair = SeatAgents(kind, PlannerAgent(seed, params=params),
                          _native.NativePlanner(native_planner_params(params), first))
    else:
        return None
    if native_seed is not None:
        pair.native.seed(seed)
    return pair


def action_name(action: int) -> str:
    return action_to_string(action) if 0 <= action < NUM_ACTIONS else f"<{action}>"


def describe_table(config: GameConfig, seed: int, seats: Sequence[SeatKind],
                   params: PlannerParams) -> str:
    default = GameConfig(num_players=config.num_players)
    options = {f.name: getattr(config, f.name) for f in fields(GameConfig)
               if getattr(config, f.name) != getattr(default, f.name)}
    text = f"{config.num_players}p seed={seed} seats={list(seats)} options={options}"
    if "planner" in seats and params != DEFAULT_PARAMS:
        text += f" params={params.to_dict()}"
    return text


def compare_game(config: GameConfig, seed: int, seats: Sequence[SeatKind],
                 params: PlannerParams = DEFAULT_PARAMS, reseed_native: bool = False,
                 seat_seed: Callable[[int, int], int] = agent_seed) -> GameRecord:
    """Play one game on the Python engine, comparing every naive/planner decision with the
    native agent of that seat (seeded ``seat_seed(seed, seat)``; ``reseed_native``: made with
    another seed, then reseeded); random seats draw from ``random.Random(seed)``."""
    assert len(seats) == config.num_players
    game = Game.new(config, seed, backend="python")
    assert game.backend == "python"
    players = [seat_agents(kind, seat_seed(seed, s), params,
                           native_seed=seat_seed(seed, s) + 7919 if reseed_native else None)
               for s, kind in enumerate(seats)]
    random_choice = random.Random(seed)
    record = GameRecord()
    while not game.is_over:
        state = game.read_state()
        seat = state.current_player
        legal = game.legal_actions()
        pair = players[seat]
        if pair is None:
            game.apply(random_choice.choice(legal))
            continue
        core = Core.from_state_dict(state.to_dict())
        view = PlayerView(state, seat)
        where = (f"{describe_table(config, seed, seats, params)}: decision {record.decisions}, "
                 f"round {state.round} {Phase(state.phase).name}, seat {seat} ({pair.kind})")
        assert tuple(core.legal_actions()) == tuple(legal), f"{where}: legal actions differ"
        expected = pair.python.act(None, view, legal)
        got = pair.native.act(core)
        assert got == expected, (
            f"{where}: python {action_name(expected)} ({expected}), native {action_name(got)} "
            f"({got}); legal {[action_name(a) for a in legal]}")
        record.note(view)
        game.apply(expected)
    for s, pair in enumerate(players):
        if pair is None:
            continue
        counts = (f"seat {s} fallbacks: python {pair.python.fallbacks}, "
                  f"native {pair.native.fallbacks}")
        assert pair.native.fallbacks == pair.python.fallbacks, (
            f"{describe_table(config, seed, seats, params)}: {counts}")
        # Asked a forced decision (a lone `pass` in an auction it wants to raise), the Python
        # agents fall back to it; the engine skips those unless skip_forced_decisions is off.
        if config.skip_forced_decisions:
            assert pair.python.fallbacks == 0, f"{describe_table(config, seed, seats, params)}"
    return record


def mixed_seats(num_players: int, pattern: int) -> list[SeatKind]:
    """Seats of a mixed table: random seats among naive and planner ones (at least one of
    each kind of agent where there is room)."""
    cycles: tuple[tuple[SeatKind, ...], ...] = (
        ("naive", "random", "planner", "random"),
        ("random", "planner", "naive"),
        ("planner", "naive"),
        ("random", "random", "naive", "planner", "random"),
    )
    cycle = cycles[pattern % len(cycles)]
    seats = [cycle[s % len(cycle)] for s in range(num_players)]
    if all(kind == "random" for kind in seats):
        seats[-1] = "planner"
    return seats


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


# ---- differential games ----------------------------------------------------------------------
@pytest.mark.parametrize("num_players", players())
@pytest.mark.parametrize("kind", ["naive", "planner"])
def test_pure_tables_match(kind: SeatKind, num_players: int) -> None:
    config = GameConfig(num_players=num_players)
    total = sum(compare_game(config, 10 * num_players + k, [kind] * num_players).decisions
                for k in range(3))
    assert total > 300


@pytest.mark.parametrize("num_players", players())
def test_mixed_tables_match(num_players: int) -> None:
    """Random seats among naive and planner ones; with ``allow_overbid`` a random bidder is
    soon cursed, so half the games filter overbids out and keep the random seats in play."""
    total = 0
    for k in range(4):
        config = GameConfig(num_players=num_players, allow_overbid=bool(k % 2))
        total += compare_game(config, 500 + 10 * num_players + k,
                              mixed_seats(num_players, k)).decisions
    assert total > 100


def test_mixed_tables_reach_unusual_positions() -> None:
    """The mixed tables put the agents in the positions their rarer rules are for."""
    seen = GameRecord()
    for k in range(12):
        num_players = 3 + k % 4
        config = GameConfig(num_players=num_players, allow_overbid=k % 3 == 0)
        seen += compare_game(config, 900 + k, mixed_seats(num_players, k))
    assert all(seen.phases[p] > 0 for p in (Phase.DEBT, Phase.FREE_LEVEL, Phase.LOSE_GEM)), (
        seen.phases)
    assert seen.fifth_sentinel > 0
    assert seen.over_hand_limit > 0
    assert seen.eliminated_opponent > 0


@pytest.mark.parametrize("options", [
    {"allow_overbid": False},
    {"no_split_blocks": False},
    {"no_undo_activation": False},
    {"one_value_dust": True},
    {"catchup_small_games": True},
    {"skip_forced_decisions": False},
    {"sages_dust_substitution": False, "druid_l3_ruby": False},
    {"no_split_blocks": False, "no_undo_activation": False, "one_value_dust": True,
     "allow_overbid": False},
], ids=lambda options: "+".join(options))
def test_rule_options_match(options: dict[str, Any]) -> None:
    tables: list[list[SeatKind]] = [
        ["naive", "planner", "random"],
        ["planner", "naive", "planner", "naive"],
        ["naive"] * 2,
        ["random", "planner", "naive", "random", "planner"],
    ]
    for k, seats in enumerate(tables):
        compare_game(GameConfig(num_players=len(seats), **options), 70 + k, seats)


def test_druid_tables_match() -> None:
    """The druid's Fire rules differ between the two agents (naive freezes below Fire 4, the
    planner does not): a druid at every table."""
    for k, characters in enumerate([("druid", "witch"), ("elf", "druid", "mage", "kobold")]):
        config = GameConfig(num_players=len(characters), characters=characters)
        for kind in ("naive", "planner"):
            compare_game(config, 40 + k, [kind] * len(characters))
        compare_game(config, 45 + k, mixed_seats(len(characters), 2))


@pytest.mark.parametrize("overrides", [
    {"gem_cap": "ruby"},
    {"gem_cap": "opal"},
    {"gem_cap": "emerald", "artifacts_first_round": 1},
    {"knowledge_order": list(reversed(DEFAULT_PARAMS.knowledge_order))},
    {"knowledge_order": ["sages", "artifacts"]},
    {"artifacts_first_round": 1},
    {"artifact_bid_factor": {2: 1.6, 3: 0.75, 4: 1.3, 5: 0.9, 6: 2.0},
     "sentinel_bid_factor": 1.6},
    {"sentinel_bid_factor": 0.7},
    {"gem_cap": "diamond", "knowledge_order": ["fire", "gemstones", "accumulation"],
     "artifacts_first_round": 4, "artifact_bid_factor": {2: 0.8, 3: 1.25, 4: 1.5, 5: 1.05,
                                                          6: 1.2}},
], ids=lambda overrides: "+".join(overrides))
@pytest.mark.parametrize("num_players", spread((2, 4, 6), fast=(4,)))
def test_planner_parameters_match(overrides: dict[str, Any], num_players: int) -> None:
    params = replace(DEFAULT_PARAMS, **overrides)
    compare_game(GameConfig(num_players=num_players), 200 + (num_players - 2) // 2,
                 ["planner"] * num_players, params)
    if num_players == 4:  # and a table with a random seat, without overbids
        compare_game(GameConfig(num_players=3, allow_overbid=False), 210,
                     ["planner", "random", "planner"], params)


def test_random_planner_parameter_sets() -> None:
    for k in range(6):
        params = random_params(random.Random(k))
        num_players = 2 + k % 5
        seats: list[SeatKind] = mixed_seats(num_players, k) if k % 2 else ["planner"] * num_players
        config = GameConfig(num_players=num_players, allow_overbid=k % 3 != 0)
        compare_game(config, 300 + k, seats, params)


def test_reseeded_native_agents_match() -> None:
    """Native agents made with another seed and then ``seed(...)`` play as if made with it."""
    for num_players in (2, 5):
        config = GameConfig(num_players=num_players)
        compare_game(config, 60 + num_players, mixed_seats(num_players, 2), reseed_native=True)


def test_seeds_beyond_32_bits_match() -> None:
    """Seeds of several 32-bit words seed the generators as ``random.Random`` does."""
    def wide_seed(game_seed: int, seat: int) -> int:
        return (seat + 1) << (32 * (seat + 1)) | game_seed

    compare_game(GameConfig(num_players=4), 81, ["naive", "planner", "naive", "planner"],
                 seat_seed=wide_seed)


def test_fallbacks_is_read_only() -> None:
    for native in (_native.NativeNaive(0),
                   _native.NativePlanner(native_planner_params(DEFAULT_PARAMS), 0)):
        assert native.fallbacks == 0
        with pytest.raises(AttributeError):
            native.fallbacks = 1


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


def test_valid_native_arguments_are_accepted() -> None:
    make_native_params(valid_native_arguments())


@pytest.mark.parametrize("bad", [
    {"gem_cap": len(GEM_NAMES)},
    {"gem_cap": -1},
    {"field_order": [0, 1, len(FIELD_NAMES)]},
    {"field_order": [-1, 2]},
    {"field_order": [3, 1, 3]},
    {"field_order": []},
    {"artifacts_first_round": 0},
    {"artifact_bid_factor": [1.0, 1.0, 1.1, 1.0, 1.0, 1.0]},
    {"artifact_bid_factor": [1.0, 1.0, 1.1, 1.0, 1.0, 1.0, 1.0, 1.0]},
    {"artifact_bid_factor": [1.0, 1.0, 1.1, 0.0, 1.0, 1.0, 1.0]},
    {"artifact_bid_factor": [1.0, 1.0, 1.1, 1.0, 1.0, 1.0, -1.0]},
    {"sentinel_bid_factor": 0.0},
    {"sentinel_bid_factor": -1.15},
], ids=repr)
def test_bad_native_parameters_are_one_line_errors(bad: dict[str, Any]) -> None:
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
    assert isinstance(native, _native.PlannerParams)
    assert native.gem_cap == params.gem_cap_kind
    assert list(native.field_order) == list(params.field_order)
    assert native.artifacts_first_round == params.artifacts_first_round
    factors = list(native.artifact_bid_factor)
    assert len(factors) == 7
    assert factors[2:] == [params.artifact_bid_factor[n] for n in range(2, 7)]
    assert native.sentinel_bid_factor == params.sentinel_bid_factor
    # and back: the same arguments make the same parameters
    again = make_native_params({"gem_cap": native.gem_cap, "field_order": native.field_order,
                                "artifacts_first_round": native.artifacts_first_round,
                                "artifact_bid_factor": factors,
                                "sentinel_bid_factor": native.sentinel_bid_factor})
    assert list(again.field_order) == list(params.field_order)
    assert list(again.artifact_bid_factor) == factors
    unpickled = pickle.loads(pickle.dumps(native))
    assert (unpickled.gem_cap, list(unpickled.field_order), unpickled.artifacts_first_round,
            list(unpickled.artifact_bid_factor), unpickled.sentinel_bid_factor) == (
        native.gem_cap, list(native.field_order), native.artifacts_first_round, factors,
        native.sentinel_bid_factor)


# ---- the larger run --------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_many_decisions_match(num_players: int) -> None:
    total, seed = 0, 0
    while total < 30_000:
        rng = random.Random(seed)
        params = DEFAULT_PARAMS if seed % 3 else random_params(rng)
        config = rule_variant(seed, num_players)
        if seed % 5 == 4:
            config = replace(config, one_value_dust=True)
        choices: tuple[SeatKind, ...] = ("naive", "planner", "random")
        weights = (2, 2, 1 if seed % 2 else 0)
        seats = rng.choices(choices, weights, k=num_players)
        if all(kind == "random" for kind in seats):
            seats[0] = "naive"
        total += compare_game(config, 2000 + seed, seats, params).decisions
        seed += 1
