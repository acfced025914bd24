"""The native heuristic player (``_native.heuristic_action``) against agents/heuristic.py.

The Python heuristic is the reference.  Games run on the pure-Python engine; at every decision
the Python choice (``choose(PlayerView(state, seat), legal, weights)``, what
``HeuristicAgent.act`` returns) is compared with the native one on a ``Core`` loaded from the
same state, and every few decisions all the intermediate valuations (horizon, gem, slot, field,
artifact and sentinel values, bid limits, storable/excess/budget) are compared exactly, for
every seat's view:

* 2..6 players, both ``allow_overbid`` values, pure heuristic games and mixed games where some
  seats play at random (so unusual positions appear);
* a non-default weights file, and random weight sets (ints, zeros, a sentinel horizon);
* ``NativeNovice`` against ``NoviceAgent``; ``play_heuristic`` against a Python loop;
  ``HeuristicWeights`` construction errors.

``pytest -m slow`` runs a larger comparison.
"""

from __future__ import annotations

import pickle
import random
from dataclasses import fields
from typing import Any

import pytest

from zavandor_env.agents import heuristic as H
from zavandor_env.agents.novice import NoviceAgent
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.data import NUM_ARTIFACT_TYPES, NUM_FIELDS, NUM_GEMS, NUM_SENTINELS
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL, Phase
from zavandor_env.engine.view import PlayerView

_native = pytest.importorskip("zavandor_env.engine._native")
if not hasattr(_native, "heuristic_action"):
    pytest.skip("the native module was built without register_heuristic (bindings.cpp must "
                "call it)", allow_module_level=True)
Core = _native.Core


# ---- helpers ---------------------------------------------------------------------------------
def py_game(config: GameConfig, seed: int) -> Game:
    game = Game.new(config, seed, backend="python")
    assert game.backend == "python"
    return game


def native_weights(w: H.HeuristicWeights) -> Any:
    return _native.HeuristicWeights(w.to_dict())


def py_probe(state: Any, w: H.HeuristicWeights, seat: int) -> dict[str, Any]:
    """The valuations _native._heuristic_probe returns, computed by agents/heuristic.py."""
    v = PlayerView(state, seat)
    r = H.horizon(v, w)
    seats = v.players
    return {
        "horizon": r,
        "storable": H.storable(v),
        "excess": H.excess(v),
        "spend_budget": H.spend_budget(v),
        "gem_value": [H.gem_value(g, r, w) for g in range(NUM_GEMS)],
        "slot_value": [H.slot_value(v, p, r, w) for p in seats],
        "field_plan_value": [
            [H.field_plan_value(v, p, f, r, w) for f in range(NUM_FIELDS)] for p in seats
        ],
        "field_plan_value_free": [
            [H.field_plan_value(v, p, f, r, w, free=True) for f in range(NUM_FIELDS)]
            for p in seats
        ],
        "artifact_value": [
            [H.artifact_value(v, p, a, r, w) for a in range(NUM_ARTIFACT_TYPES)] for p in seats
        ],
        "sentinel_value": [
            [H.sentinel_value(v, p, k, r, w) for k in range(NUM_SENTINELS)] for p in seats
        ],
        "bid_limit_artifact": [
            H.bid_limit(v, ITEM_ARTIFACT, a, w) for a in range(NUM_ARTIFACT_TYPES)
        ],
        "bid_limit_sentinel": [H.bid_limit(v, ITEM_SENTINEL, k, w) for k in range(NUM_SENTINELS)],
    }


def compare_game(config: GameConfig, seed: int, w: H.HeuristicWeights, random_seats: set[int],
                 probe_every: int = 12) -> int:
    """Play one game on the Python engine, comparing every decision; returns the count."""
    nw = native_weights(w)
    game = py_game(config, seed)
    rng = random.Random(seed)
    decisions = 0
    while not game.is_over:
        state = game.read_state()
        seat = state.current_player
        legal = game.legal_actions()
        expected = H.choose(PlayerView(state, seat), legal, w)
        core = Core.from_state_dict(state.to_dict())
        assert tuple(core.legal_actions()) == tuple(legal)
        got = _native.heuristic_action(core, nw)
        where = (f"{config.num_players}p overbid={config.allow_overbid} seed={seed} "
                 f"decision {decisions} round {state.round} {Phase(state.phase).name} "
                 f"seat {seat} legal {legal}")
        assert got == expected, where
        if decisions % probe_every == 0:
            for s in range(config.num_players):
                assert _native._heuristic_probe(core, nw, s) == py_probe(state, w, s), (
                    f"{where}: valuations from seat {s}")
        decisions += 1
        game.apply(rng.choice(legal) if seat in random_seats else expected)
    return decisions


def random_weights(rng: random.Random) -> H.HeuristicWeights:
    """A weight set far from the defaults: ints, zeros, odd fractions, a sentinel horizon."""
    out: dict[str, Any] = {}
    for key, value in H.resolve_weights(None).to_dict().items():
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


DEFAULT = H.resolve_weights(None)


# ---- weights ---------------------------------------------------------------------------------
def test_weights_fields_match_the_dataclass() -> None:
    names = [f.name for f in fields(H.HeuristicWeights)]
    assert list(_native.HeuristicWeights.FIELDS) == names
    nw = native_weights(DEFAULT)
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


# ---- differential games ----------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4, pytest.param(5, marks=pytest.mark.slow),
                                         pytest.param(6, marks=pytest.mark.slow)])
@pytest.mark.parametrize("allow_overbid", [True, False])
def test_decisions_match(num_players: int, allow_overbid: bool) -> None:
    config = GameConfig(num_players=num_players, allow_overbid=allow_overbid)
    total = 0
    # seed 0: every seat heuristic; seed 1: some seats random (unusual positions)
    total += compare_game(config, 10 * num_players + allow_overbid, DEFAULT, set())
    mixed = {s for s in range(num_players) if s % 2 == 1} or {0}
    total += compare_game(config, 100 + 10 * num_players + allow_overbid, DEFAULT, mixed)
    assert total > 50


@pytest.mark.parametrize("options", [
    {"one_value_dust": True, "catchup_small_games": True},
    {"no_split_blocks": False, "no_undo_activation": False, "skip_forced_decisions": False},
    {"sages_dust_substitution": False, "druid_l3_ruby": False},
])
def test_decisions_match_with_rule_options(options: dict[str, Any]) -> None:
    compare_game(GameConfig(num_players=3, **options), 77, DEFAULT, {2}, probe_every=15)


def test_weights_file(tmp_path: Any) -> None:
    path = tmp_path / "weights.yaml"
    path.write_text(
        "weights:\n"
        "  expected_rounds: {2: 12, 3: 20, 4: 10, 5: 18, 6: 9}\n"
        "  rounds_per_sentinel: 3\n"
        "  income_efficiency: 0.45\n"
        "  vp_energy: 15\n"
        "  lead_margin: 0\n"
        "  deny_weight: 0.55\n"
        "  sentinel_min_horizon: 4.0\n"
        "  big_raise_fraction: 0.5\n"
        "  win_bonus: 250\n",
        encoding="utf-8",
    )
    agent = H.HeuristicAgent(config=path)
    w = agent.w
    assert w.vp_energy == 15 and w.expected_rounds[3] == 20
    for n in (2, 4, 6):
        compare_game(GameConfig(num_players=n), 7 + n, w, {0} if n > 2 else set())


@pytest.mark.slow  # test_weights_file checks other weights in the fast tier
def test_random_weight_sets() -> None:
    for k in range(5):
        rng = random.Random(k)
        w = random_weights(rng)
        config = GameConfig(num_players=2 + k % 5, allow_overbid=bool(k % 2))
        compare_game(config, 300 + k, w, {1} if k % 3 == 0 else set(), probe_every=8)


# ---- novice, play_heuristic, errors ----------------------------------------------------------
def test_native_novice_matches_novice_agent() -> None:
    nw = native_weights(DEFAULT)
    for n, seed in ((2, 0), (4, 1)):
        game = py_game(GameConfig(num_players=n), seed)
        py_agents = [NoviceAgent(seed=100 * seed + s, blunder=0.15) for s in range(n)]
        native = [_native.NativeNovice(nw, 0.15, 100 * seed + s) for s in range(n)]
        while not game.is_over:
            state = game.read_state()
            seat = state.current_player
            legal = game.legal_actions()
            expected = py_agents[seat].act(None, PlayerView(state, seat), legal)
            assert native[seat].act(Core.from_state_dict(state.to_dict())) == expected
            game.apply(expected)
    with pytest.raises(ValueError):
        _native.NativeNovice(nw, 1.5, 0)


def reference_playout(config: GameConfig, seed: int, mask: int, rng_seed: int,
                      blunder: float = 0.0) -> Game:
    """What play_heuristic does, in Python (random seats: legal[randbelow(len)], which is
    randrange(len) in CPython)."""
    game = py_game(config, seed)
    rng = random.Random(rng_seed)
    while not game.is_over:
        state = game.read_state()
        seat = state.current_player
        legal = game.legal_actions()
        if (mask >> seat) & 1:
            if blunder > 0.0 and state.phase == Phase.TURN and rng.random() < blunder:
                action = legal[rng.randrange(len(legal))]
            else:
                action = H.choose(PlayerView(state, seat), legal, DEFAULT)
        else:
            action = legal[rng.randrange(len(legal))]
        game.apply(action)
    return game


@pytest.mark.parametrize(("num_players", "mask", "blunder"),
                         [(3, 0b111, 0.0), (4, 0b0101, 0.0), (2, 0b01, 0.1)])
def test_play_heuristic_matches_python(num_players: int, mask: int, blunder: float) -> None:
    config = GameConfig(num_players=num_players)
    seed, rng_seed = 40 + num_players, 9 + mask
    ref = reference_playout(config, seed, mask, rng_seed, blunder)
    core = Core.from_state_dict(py_game(config, seed).read_state().to_dict())
    taken = _native.play_heuristic(core, native_weights(DEFAULT), mask, rng_seed,
                                   blunder=blunder)
    assert taken == len(ref.history)
    assert core.to_state_dict() == ref.read_state().to_dict()


def test_play_heuristic_limits_and_random_seats() -> None:
    nw = native_weights(DEFAULT)
    config = GameConfig(num_players=4)
    start = py_game(config, 3).read_state().to_dict()
    # no heuristic seat: the native random player's game
    a, b = Core.from_state_dict(start), Core.from_state_dict(start)
    assert _native.play_heuristic(a, nw, 0, 77) == b.play_random(77)
    assert a.to_state_dict() == b.to_state_dict()
    # max_decisions, then going on
    c = Core.from_state_dict(start)
    assert _native.play_heuristic(c, nw, 0b1111, 1, max_decisions=25) == 25
    assert not (c.terminated or c.truncated)
    assert len(c.legal_actions()) > 0
    rest = _native.play_heuristic(c, nw, 0b1111, 1)
    assert rest > 0 and (c.terminated or c.truncated)
    assert c.legal_actions() == ()
    with pytest.raises(ValueError):
        _native.heuristic_action(c, nw)
    assert _native.play_heuristic(c, nw, 0b1111, 1) == 0


# ---- the larger run --------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_many_decisions_match(num_players: int) -> None:
    total, seed = 0, 0
    while total < 20_000:
        rng = random.Random(seed)
        w = DEFAULT if seed % 3 else random_weights(rng)
        config = GameConfig(num_players=num_players, allow_overbid=bool(seed % 2))
        randoms = {s for s in range(num_players) if rng.random() < 0.25}
        total += compare_game(config, 1000 + seed, w, randoms, probe_every=25)
        seed += 1
