"""The native observation encoder (``_native.observe``) against the Python one, bit for bit.

At every decision of many seeded games (uniform, thrifty and heuristic play, 2-6 players,
with and without overbidding) and for every seat, the native observation of the same state
(``Core.from_state_dict(state.to_dict())``) must equal the Python reference's
(``observation_reference.encode_reference``) exactly (``np.array_equal`` on the float32
vectors), its unscaled values ``observation_reference.raw_values``,
and the native action mask ``mask_array(game.legal_actions())``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

_native = pytest.importorskip("zavandor_env.engine._native")
if not hasattr(_native, "observe") or not hasattr(_native, "Core"):
    pytest.skip("the native module has no observation encoder", allow_module_level=True)

from tests.encoding.observation_reference import encode_reference, raw_values  # noqa: E402
from tests.policies import ThriftyPolicy, UniformPolicy  # noqa: E402
from tests.tiers import players  # noqa: E402
from zavandor_env.encoding.observation import (  # noqa: E402
    _SCALE,
    OBS_BOUND,
    OBS_FINGERPRINT,
    OBS_SIZE,
    layout_entries,
    mask_array,
)
from zavandor_env.engine import NUM_ACTIONS, Game, GameConfig  # noqa: E402
from zavandor_env.engine.oracle import OracleGame  # noqa: E402
from zavandor_env.engine.view import PlayerView  # noqa: E402

Core = _native.Core


def _python_game(config: GameConfig, seed: int) -> Game:
    """The reference: a game on the Python engine, whose live ``state`` the encoder reads."""
    return OracleGame.new(config, seed=seed)


def _core(game: Game):
    return Core.from_state_dict(game.state.to_dict())


class _Checker:
    """Compares native and Python observations of every seat, and the masks."""

    def __init__(self, raw: bool = False) -> None:
        self.raw = raw  # also compare the unscaled values (observe_raw with raw_values)
        self.out = np.empty(OBS_SIZE, np.float32)
        self.mask = np.empty(NUM_ACTIONS, np.int8)
        self.checked = 0

    def check(self, game: Game, where: str) -> None:
        state = game.state
        core = _core(game)
        for seat in range(state.config.num_players):
            expected = encode_reference(state, seat)
            self.out.fill(np.nan)
            _native.observe(core, seat, self.out)
            if not np.array_equal(self.out, expected):
                self._explain(game, core, seat, where)
            if self.raw:
                raw = np.asarray(raw_values(state, seat), dtype=np.float64)
                if not np.array_equal(_native.observe_raw(core, seat), raw):
                    self._explain(game, core, seat, where)
            self.checked += 1
        _native.action_mask(core, self.mask)
        expected_mask = mask_array(game.legal_actions())
        assert np.array_equal(self.mask, expected_mask), (
            f"{where}: native mask {np.flatnonzero(self.mask).tolist()} != "
            f"{list(game.legal_actions())}")

    def _explain(self, game: Game, core, seat: int, where: str) -> None:
        raw = np.asarray(raw_values(game.state, seat), dtype=np.float64)
        native_raw = _native.observe_raw(core, seat)
        names = [name for name, size, _ in layout_entries() for _ in range(size)]
        bad = np.flatnonzero(raw != native_raw)
        details = [f"{names[i]}[{i}]: python {raw[i]!r} native {native_raw[i]!r}"
                   for i in bad[:8]]
        if not details:  # same raw values, different scaling
            expected = encode_reference(game.state, seat)
            bad = np.flatnonzero(self.out != expected)
            details = [f"{names[i]}[{i}]: python {expected[i]!r} native {self.out[i]!r}"
                       for i in bad[:8]]
        pytest.fail(f"{where}, seat {seat}: observations differ: " + "; ".join(details))


def _play(game: Game, choose, checker: _Checker, label: str, max_decisions: int) -> None:
    checker.check(game, f"{label} start")
    for step in range(max_decisions):
        if game.is_over:
            break
        game.apply(choose(game))
        checker.check(game, f"{label} decision {step}")


# ---- layout and scale -------------------------------------------------------------------------
def test_native_layout_is_the_python_layout() -> None:
    assert _native.observation_size() == OBS_SIZE
    assert _native.observation_layout() == [(name, size) for name, size, _ in layout_entries()]
    assert _native.observation_fingerprint() == OBS_FINGERPRINT


def test_a_different_python_layout_is_refused() -> None:
    entries = layout_entries()
    moved = [entries[1], entries[0], *entries[2:]]
    with pytest.raises(RuntimeError, match="differs from the native one"):
        _native.set_observation_scale(_SCALE, OBS_BOUND, "x", moved)
    rescaled = [*entries[:-1], (entries[-1][0], entries[-1][1], 1.0)]
    with pytest.raises(RuntimeError, match="does not match"):
        _native.set_observation_scale(_SCALE, OBS_BOUND, "x", rescaled)
    with pytest.raises(ValueError, match="shape"):
        _native.set_observation_scale(_SCALE[:-1], OBS_BOUND, "x", None)
    # The refused calls changed nothing.
    assert _native.observation_fingerprint() == OBS_FINGERPRINT
    _native.set_observation_scale(_SCALE, OBS_BOUND, OBS_FINGERPRINT, entries)
    assert _native.observation_fingerprint() == OBS_FINGERPRINT


_CONFIGURED_BY_THE_ENV_LAYER = """
import sys
import numpy as np
from zavandor_env.engine import GameConfig, _native
core = _native.Core(GameConfig(num_players=2).to_dict(), 1)
out = np.empty(_native.observation_size(), np.float32)
try:
    _native.observe(core, 0, out)
except RuntimeError as exc:
    print("refused:", exc)
assert "zavandor_env.encoding.observation" not in sys.modules  # the core did not import it
import zavandor_env.encoding.observation
_native.observe(core, 0, out)
print("encoded")
"""


def test_the_env_layer_installs_the_layout_the_core_never_imports_it() -> None:
    """The engine imports only downward: until zavandor_env.encoding.observation is imported (it
    installs its layout), a native observation is a one-line error, not an upward import."""
    result = subprocess.run([sys.executable, "-c", _CONFIGURED_BY_THE_ENV_LAYER], check=True,
                            capture_output=True, text=True, timeout=120,
                            cwd=Path(__file__).resolve().parents[2])
    refused, encoded = result.stdout.strip().splitlines()
    assert refused.startswith("refused: the native observation encoder has no layout: "
                              "importing zavandor_env.encoding.observation installs it")
    assert encoded == "encoded"


# ---- bit-identical observations over whole games -----------------------------------------------
@pytest.mark.parametrize("n", players())
def test_uniform_games_without_overbid(n: int) -> None:
    # Without overbidding nobody is cursed, so uniform games run to the max_rounds truncation
    # (debts, gem sales, empty hands, many rounds).
    checker = _Checker()
    for seed in range(6):
        config = GameConfig(num_players=n, allow_overbid=False)
        game = _python_game(config, 100 * n + seed)
        _play(game, UniformPolicy(seed), checker, f"uniform n={n} seed={seed}", 2000)
    assert checker.checked > 500


@pytest.mark.parametrize("n", players())
def test_uniform_games_with_the_default_rules(n: int) -> None:
    # With overbidding, uniform bidders are soon cursed: short games, eliminations, debts.
    checker = _Checker()
    for seed in range(12):
        game = _python_game(GameConfig(num_players=n), 1000 * n + seed)
        _play(game, UniformPolicy(seed), checker, f"default n={n} seed={seed}", 2000)
    assert checker.checked > 200


@pytest.mark.parametrize("n", players())
def test_thrifty_games_to_the_end(n: int) -> None:
    # Thrifty play reaches sentinels, level-4 fields, concentrated cards, reshuffled decks and
    # the real game end (>= 5 sentinels).
    checker = _Checker(raw=True)
    for seed, overbid in ((n, False), (n + 20, True)):
        game = _python_game(GameConfig(num_players=n, allow_overbid=overbid), seed)
        _play(game, ThriftyPolicy(seed), checker, f"thrifty n={n} seed={seed}", 3000)
    assert checker.checked > 300


@pytest.mark.parametrize("n", players())
def test_heuristic_games(n: int) -> None:
    from zavandor_env.agents.heuristic import HeuristicAgent

    checker = _Checker()
    game = _python_game(GameConfig(num_players=n), 11 * n)
    agents = [HeuristicAgent(seed=s) for s in range(n)]
    for s, agent in enumerate(agents):
        agent.reset(s, n, s)

    def choose(g: Game) -> int:
        seat = g.current_player
        return agents[seat].act(None, PlayerView(g.state, seat), g.legal_actions())

    _play(game, choose, checker, f"heuristic n={n}", 3000)
    assert checker.checked > 200


@pytest.mark.parametrize("options", [
    {"one_value_dust": True, "catchup_small_games": True},
    {"no_split_blocks": False, "no_undo_activation": False, "max_rounds": 15},
    {"skip_forced_decisions": False, "sages_dust_substitution": False, "druid_l3_ruby": False},
    {"characters": ("fairy", "druid", "kobold", "witch"), "allow_overbid": False},
])
def test_rule_variants(options: dict) -> None:
    checker = _Checker()
    n = len(options.get("characters", ())) or 3
    for seed in range(2):
        config = GameConfig(num_players=n, **options)
        game = _python_game(config, 7 + seed)
        policy = ThriftyPolicy(seed) if seed else UniformPolicy(seed)
        _play(game, policy, checker, f"{options} seed={seed}", 1500)
    assert checker.checked > 100


def test_odd_states() -> None:
    # Counts beyond 255 (the Python encoder's slow path), a negative balance, a sale credit,
    # an observer outside the turn order.
    checker = _Checker(raw=True)
    game = _python_game(GameConfig(num_players=4, allow_overbid=False), 5)
    policy = ThriftyPolicy(5)
    for _ in range(40):
        game.apply(policy(game))
    state = game.state
    state.players[1].hand[28] = 300
    state.players[2].hand[27] = 260  # dust 5: counts past 255, within the save ceilings
    state.players[0].balance = -37
    state.players[3].balance = 1234
    state.players[2].vp = 999
    checker.check(game, "odd counts")
    assert state.turn_player != 2 and state.current_player != 2
    state.turn_order = [s for s in state.turn_order if s != 2]  # as a cursed player leaves
    state.turn_index = state.turn_order.index(state.turn_player)
    state.players[2].eliminated = True
    checker.check(game, "seat 2 outside the turn order")


def test_round_ends_and_finished_games() -> None:
    checker = _Checker()
    game = _python_game(GameConfig(num_players=3, allow_overbid=False, max_rounds=4), 3)
    policy = UniformPolicy(3)
    ends = 0
    while not game.is_over:
        game.apply(policy(game), stop_at_round_end=True)
        if game.at_round_end:  # nobody decides: no phase, no deciding player, empty mask
            checker.check(game, f"round end {game.state.round}")
            ends += 1
            game.advance(stop_at_round_end=True)
    checker.check(game, "truncated game")
    assert ends >= 3 and game.truncated


@pytest.mark.parametrize("n", (2, 4, 6))
def test_a_native_core_playing_the_same_actions_observes_the_same(n: int) -> None:
    # The production path: the environment encodes the native core's own state.
    out = np.empty(OBS_SIZE, np.float32)
    mask = np.empty(NUM_ACTIONS, np.int8)
    checked = 0
    for seed, overbid in ((n, False), (n + 50, True)):
        config = GameConfig(num_players=n, allow_overbid=overbid)
        game = _python_game(config, seed)
        core = Core(config.to_dict(), seed)
        policy = ThriftyPolicy(seed)
        for step in range(600):
            for seat in range(n):
                _native.observe(core, seat, out)
                assert np.array_equal(out, encode_reference(game.state, seat)), (
                    f"n={n} seed={seed} decision {step} seat {seat}")
                checked += 1
            _native.action_mask(core, mask)
            assert np.array_equal(mask, mask_array(game.legal_actions()))
            if game.is_over:
                break
            action = policy(game)
            game.apply(action)
            core.apply(action)
    assert checked > 200


# ---- the API -----------------------------------------------------------------------------------
def test_bad_arguments_raise_one_line_value_errors() -> None:
    core = _core(_python_game(GameConfig(num_players=2), 5))
    good = np.empty(OBS_SIZE, np.float32)
    bad_outputs = [
        np.empty(OBS_SIZE, np.float64),
        np.empty(OBS_SIZE + 1, np.float32),
        np.empty((1, OBS_SIZE), np.float32),
        np.empty(2 * OBS_SIZE, np.float32)[::2],
        np.empty(OBS_SIZE, np.float32).astype(">f4"),
        [0.0] * OBS_SIZE,
    ]
    readonly = np.empty(OBS_SIZE, np.float32)
    readonly.flags.writeable = False
    bad_outputs.append(readonly)
    for out in bad_outputs:
        with pytest.raises(ValueError) as info:
            _native.observe(core, 0, out)
        assert "\n" not in str(info.value)
    for seat in (-1, 2, 7):
        with pytest.raises(ValueError, match="seat"):
            _native.observe(core, seat, good)
    with pytest.raises(ValueError, match="out"):
        _native.action_mask(core, np.empty(NUM_ACTIONS, np.float32))
    with pytest.raises(ValueError, match="out"):
        _native.action_mask(core, np.empty(NUM_ACTIONS - 1, np.int8))
    for dtype in (np.int8, np.uint8, np.bool_):
        mask = np.zeros(NUM_ACTIONS, dtype)
        _native.action_mask(core, mask)
        assert mask.astype(np.int8).sum() >= 2
    with pytest.raises(TypeError):
        _native.observe(object(), 0, good)
