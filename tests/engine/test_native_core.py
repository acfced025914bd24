"""The native (C++) core against the pure-Python engine, decision by decision.

``zavandor_env.engine._native.Core`` is a port of the Python rules; the Python engine is the
reference.  These tests drive both with the same actions and, after every decision, compare
the legal actions, the whole state dict (``to_state_dict() == GameState.to_dict()``, types
included: the random generator's state too, so every draw matched) and the scores:

* uniformly random play for 2..6 players, with each rule option flipped;
* the "thrifty" policy with the affordability filter (``allow_overbid=False``), whose games
  last dozens of rounds and end by the rules (sentinels bought, level 4, reshuffles...);
* the heuristic agent;
* edited states for the rare corners (exhausted decks and supplies, the 5-ruby cap, every
  sentinel owned, cursed players holding 9-Sages cards, a victim without active gems);
* the automatic payment and dust change against economy.py;
* the Core API: state dicts, clones, reseeding, round-end stops, truncation, illegal actions,
  the native random player and the benchmarks.

The larger run (``-m slow``) plays more than 100,000 decisions per player count.
"""

from __future__ import annotations

import json
import random

import pytest

from tests.tiers import players  # noqa: E402
from zavandor_env.engine import Game, GameConfig, Phase
from zavandor_env.engine.oracle import OracleGame

_native = pytest.importorskip("zavandor_env.engine._native")
Core = _native.Core

from tests.policies import ThriftyPolicy  # noqa: E402


# ---- helpers ---------------------------------------------------------------------------------
def py_game(config: GameConfig, seed: int) -> Game:
    """A game on the pure-Python engine (the reference), whatever the default backend is."""
    return OracleGame.new(config, seed)


def strict(data: object) -> str:
    """Canonical text of plain data: equal texts mean equal values *and* types (True != 1)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def assert_same(game: Game, core, where: str = "") -> None:
    expected = game.state.to_dict()
    got = core.to_state_dict()
    if strict(expected) != strict(got):
        diffs = [k for k in expected if strict(expected[k]) != strict(got.get(k))]
        diffs += [k for k in got if k not in expected]
        detail = "; ".join(
            f"{k}: python {str(expected.get(k))[:200]} native {str(got.get(k))[:200]}"
            for k in diffs[:4]
        )
        raise AssertionError(f"state differs {where}: {detail}")
    assert core.legal_actions() == game.legal_actions(), where
    assert core.scores() == game.scores(), where
    assert core.phase == int(game.phase)
    assert core.current_player == game.current_player
    assert core.turn_player == game.turn_player
    assert core.round == game.state.round
    assert core.terminated == game.terminated and core.truncated == game.truncated
    assert core.history() == game.history
    assert core.winners() == game.winners()


class Uniform:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, game: Game) -> int:
        return self.rng.choice(game.legal_actions())


class Heuristic:
    """The heuristic agent in every seat (as ``zavandor_env.eval.match.play_game`` drives it)."""

    def __init__(self, seed: int, num_players: int) -> None:
        from zavandor_env.agents.heuristic import HeuristicAgent
        from zavandor_env.engine.view import PlayerView

        self.view = PlayerView
        self.agents = [HeuristicAgent(seed=seed * 7919 + i) for i in range(num_players)]
        for seat, agent in enumerate(self.agents):
            agent.reset(seat, num_players, seed * 7919 + seat)

    def __call__(self, game: Game) -> int:
        seat = game.current_player
        return self.agents[seat].act(None, self.view(game.state, seat), game.legal_actions())


def play_both(config: GameConfig, seed: int, policy, limit: int | None = None,
              check_every: int = 1) -> tuple[Game, object, int]:
    """Play one game on both engines with ``policy`` (reading the Python game); compare the
    two after every ``check_every`` decisions and at the end.  Returns (game, core, decisions)."""
    game = py_game(config, seed)
    core = Core(config.to_dict(), seed)
    assert_same(game, core, f"at the start (seed {seed})")
    steps = 0
    while not game.is_over and (limit is None or steps < limit):
        action = policy(game)
        game.apply(action)
        core.apply(action)
        steps += 1
        if steps % check_every == 0:
            assert_same(game, core, f"after decision {steps} (seed {seed}, action {action})")
    assert_same(game, core, f"at the end (seed {seed})")
    return game, core, steps


# ---- the start of a game -----------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_new_game_matches(num_players: int) -> None:
    for seed in [0, 1, 2, 3, 17, 2**31 - 1, 2**32, 2**32 + 5, 2**64 + 3, 10**30 + 7, 2**200 + 1]:
        config = GameConfig(num_players=num_players)
        assert_same(py_game(config, seed), Core(config.to_dict(), seed), f"seed {seed}")


def test_fixed_characters_and_options_at_the_start() -> None:
    names = ["kobold", "fairy", "druid", "mage", "elf", "witch"]
    for n in range(2, 7):
        for seed in range(3):
            config = GameConfig(num_players=n, characters=names[:n], one_value_dust=True,
                                skip_forced_decisions=False)
            assert_same(py_game(config, seed), Core(config.to_dict(), seed))


# ---- differential play -------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", players())
def test_uniform_play_matches(num_players: int) -> None:
    total = 0
    for seed in range(8):
        config = GameConfig(num_players=num_players, allow_overbid=seed % 2 == 1)
        total += play_both(config, 1000 * num_players + seed, Uniform(seed), limit=600)[2]
    assert total > 100


OPTION_FLIPS = [
    {"allow_overbid": False},
    {"one_value_dust": True},
    {"catchup_small_games": True},
    {"no_split_blocks": False},
    {"sages_dust_substitution": False},
    {"druid_l3_ruby": False},
    {"skip_forced_decisions": False},
    {"no_undo_activation": False},
    {"characters": ("druid", "fairy", "witch", "kobold")},
    {"allow_overbid": False, "one_value_dust": True, "catchup_small_games": True,
     "no_split_blocks": False, "sages_dust_substitution": False, "druid_l3_ruby": False,
     "skip_forced_decisions": False, "no_undo_activation": False},
]


@pytest.mark.parametrize("options", OPTION_FLIPS, ids=lambda o: ",".join(o))
def test_options_match(options: dict) -> None:
    for n, seed in ((4, 11), (3, 12)):
        opts = dict(options)
        if "characters" in opts:
            opts["characters"] = opts["characters"][:n]
        config = GameConfig(num_players=n, **opts)
        play_both(config, seed, Uniform(seed), limit=300)
        thrifty = GameConfig(num_players=n, **{"allow_overbid": False, **opts})
        play_both(thrifty, seed + 100, ThriftyPolicy(seed), limit=500, check_every=3)


@pytest.mark.parametrize("num_players", players())
def test_thrifty_games_to_the_end(num_players: int) -> None:
    """Long games that end by the rules: sentinels, level 4, reshuffles, concentrated cards."""
    config = GameConfig(num_players=num_players, allow_overbid=False)
    game, core, steps = play_both(config, 77 + num_players, ThriftyPolicy(num_players),
                                  check_every=2)
    assert game.terminated and core.terminated
    assert sum(1 for o in game.state.sentinel_owner if o != -1) >= 5
    assert core.to_state_dict()["purchases"]


def test_heuristic_games_match() -> None:
    for n, seed in ((2, 5), (4, 6)):
        config = GameConfig(num_players=n)
        game, core, _ = play_both(config, seed, Heuristic(seed, n), check_every=5)
        assert game.is_over


# ---- rare corners: exhausted supplies, rubies at the cap, cursed players holding 9-Sages cards --
def _mutate(data: dict, rng: random.Random, every: bool = False,
            all_sentinels: bool = False) -> dict:
    """A copy of a state dict with things moved around (conserving every card and gem) so the
    rare branches run: empty decks and discard piles (draws give dust instead), no concentrated
    cards left, no diamonds left, rubies at the 5-ruby cap, 9-Sages cards waiting.
    ``every``: make every change (else each one at random); ``all_sentinels``: every sentinel
    is owned (so none can be opened; the game ends at this round's phase 4)."""
    from zavandor_env.engine.data import Field, Gem

    def chance(p: float) -> bool:
        return every or rng.random() < p

    d = json.loads(json.dumps(data))
    alive = [p for p in d["players"] if not p["eliminated"]]
    for colour in range(4):
        if chance(0.5):
            p = rng.choice(alive)
            for t in d["decks"][colour] + d["discards"][colour]:
                p["hand"][t] += 1
            d["decks"][colour], d["discards"][colour] = [], []
    if chance(0.5):
        p = rng.choice(alive)
        for colour in range(4):
            p["hand"][21 + colour] += d["concentrated_supply"][colour]
            d["concentrated_supply"][colour] = 0
    if chance(0.5):
        p = rng.choice(alive)
        p["inactive"][Gem.DIAMOND] += d["gem_supply"][Gem.DIAMOND]
        d["gem_supply"][Gem.DIAMOND] = 0
    if chance(0.7):
        p = rng.choice(alive)
        if p["levels"][Field.FIRE] == 0:  # a new field needs a chip: one bought and placed
            free = [i for i, b in enumerate(p["chips_bought"]) if not b]
            if free:
                p["chips_bought"][free[0]] = True
                p["levels"][Field.FIRE] = 4
        else:
            p["levels"][Field.FIRE] = 4
        owned = p["active"][Gem.RUBY] + p["inactive"][Gem.RUBY]
        take = min(d["gem_supply"][Gem.RUBY], max(0, 5 - owned) - rng.randrange(2))
        if take > 0:
            p["inactive"][Gem.RUBY] += take
            d["gem_supply"][Gem.RUBY] -= take
    if chance(0.6):  # four active sapphires: a concentrated card at income, if any left
        p = rng.choice(alive)
        need = max(0, 4 - p["active"][Gem.SAPPHIRE])
        take = min(need, d["gem_supply"][Gem.SAPPHIRE])
        p["active"][Gem.SAPPHIRE] += take
        d["gem_supply"][Gem.SAPPHIRE] -= take
        while sum(p["active"]) > 5 and p["active"][Gem.OPAL]:
            p["active"][Gem.OPAL] -= 1
            p["inactive"][Gem.OPAL] += 1
    if all_sentinels:
        for sen, owner in enumerate(d["sentinel_owner"]):
            if owner == -1:
                p = rng.choice(alive)
                p["sentinels"].append(sen)
                d["sentinel_owner"][sen] = p["seat"]
    for p in alive:
        if rng.random() < 0.5:
            for colour in range(4):
                if d["decks"][colour] and rng.random() < 0.5:
                    p["sages_tokens"].append(d["decks"][colour].pop())
    return d


def _python_game_from(data: dict) -> Game:
    from zavandor_env.engine.state import GameState

    return Game(GameState.from_dict(json.loads(json.dumps(data))))


@pytest.mark.parametrize("num_players", players())
def test_rare_corners_match(num_players: int) -> None:
    for seed in range(6):
        config = GameConfig(num_players=num_players, allow_overbid=seed % 3 == 0,
                            one_value_dust=seed == 3)
        game = py_game(config, 900 + seed)
        policy = ThriftyPolicy(seed)
        at_round_end = seed % 2 == 1  # mutate just before phases 1-2 (income) or mid-round
        for _ in range(random.Random(seed).randrange(10, 120)):
            if game.is_over:
                break
            if game.at_round_end:
                game.advance(stop_at_round_end=True)
            else:
                game.apply(policy(game), stop_at_round_end=at_round_end)
        while at_round_end and not game.is_over and not game.at_round_end:
            game.apply(policy(game), stop_at_round_end=True)
        if game.is_over:
            continue
        data = _mutate(game.state.to_dict(), random.Random(seed), every=seed == 5,
                       all_sentinels=seed == 4)
        game = _python_game_from(data)
        core = Core.from_state_dict(data)
        assert_same(game, core, "after the mutation")
        if at_round_end:
            game.advance()
            core.advance()
            assert_same(game, core, "after the income")
        play = Uniform(seed) if seed % 2 == 0 else ThriftyPolicy(seed + 1)
        steps = 0
        while not game.is_over and steps < 400:
            action = play(game)
            game.apply(action)
            core.apply(action)
            steps += 1
            assert_same(game, core, f"after decision {steps} (seed {seed})")


def test_victim_without_active_gems_is_skipped() -> None:
    """A Mirror/Cloak victim who has no active gem when his turn to lose one comes is skipped
    (reachable only through an edited state, but both engines must agree)."""
    found = 0
    for seed in range(200):
        config = GameConfig(num_players=4, allow_overbid=False)
        game = py_game(config, seed)
        policy = ThriftyPolicy(seed)
        while not game.is_over and game.phase != Phase.LOSE_GEM:
            game.apply(policy(game))
        if game.is_over or len(game.state.victims) < 2:
            continue
        data = game.state.to_dict()
        later = data["players"][data["victims"][1]]
        for g in range(5):
            later["inactive"][g] += later["active"][g]
            later["active"][g] = 0
        game = _python_game_from(data)
        core = Core.from_state_dict(data)
        action = game.legal_actions()[0]
        game.apply(action)
        core.apply(action)
        assert_same(game, core)
        found += 1
        if found == 3:
            break
    assert found


# ---- the Core API ------------------------------------------------------------------------------
def _midgame(n: int = 4, seed: int = 3, steps: int = 80) -> Game:
    config = GameConfig(num_players=n, allow_overbid=False)
    game = py_game(config, seed)
    policy = ThriftyPolicy(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(policy(game))
    return game


def test_from_state_dict_continues_identically() -> None:
    config = GameConfig(num_players=3, allow_overbid=False)
    game = py_game(config, 21)
    policy = ThriftyPolicy(21)
    cores = []
    steps = 0
    while not game.is_over:
        if steps % 97 == 0:
            core = Core.from_state_dict(game.state.to_dict())
            assert_same(game, core, f"loaded at decision {steps}")
            cores.append(core)
        action = policy(game)
        game.apply(action)
        for core in cores:
            core.apply(action)
        steps += 1
    for core in cores:
        assert_same(game, core, "at the end")
    # A JSON round trip too (tuples become lists, as in a saved game).
    data = json.loads(json.dumps(game.state.to_dict()))
    assert strict(Core.from_state_dict(data).to_state_dict()) == strict(game.state.to_dict())


def test_clone_is_independent() -> None:
    game = _midgame()
    core = Core.from_state_dict(game.state.to_dict())
    copy = core.clone()
    before = strict(core.to_state_dict())
    copy.play_random(5)
    assert strict(core.to_state_dict()) == before
    assert strict(copy.to_state_dict()) != before
    # Same future as the original (random generator copied).
    twin = core.clone()
    a = core.play_random(9)
    b = twin.play_random(9)
    assert a == b and strict(core.to_state_dict()) == strict(twin.to_state_dict())


def test_reseed_matches_python() -> None:
    for seed in (0, 5, 2**40 + 3, 2**100 + 9):
        game = _midgame(steps=40)
        core = Core.from_state_dict(game.state.to_dict())
        game.reseed(seed)
        core.reseed(seed)
        assert_same(game, core, f"reseed {seed}")
        policy = ThriftyPolicy(seed % 1000)
        for _ in range(200):
            if game.is_over:
                break
            action = policy(game)
            game.apply(action)
            core.apply(action)
        assert_same(game, core, f"after reseed {seed}")


def test_round_end_stop_and_advance() -> None:
    config = GameConfig(num_players=3, allow_overbid=False)
    game = py_game(config, 8)
    core = Core(config.to_dict(), 8)
    policy = ThriftyPolicy(8)
    stops = 0
    while not game.is_over and stops < 6:
        action = policy(game)
        game.apply(action, stop_at_round_end=True)
        core.apply(action, stop_at_round_end=True)
        assert_same(game, core)
        if game.at_round_end:
            stops += 1
            assert core.phase == int(Phase.ROUND_END) and core.legal_actions() == ()
            with pytest.raises(ValueError):
                core.apply(0)
            assert_same(game, core)
            game.advance(stop_at_round_end=True)
            core.advance(stop_at_round_end=True)
            assert_same(game, core)
    assert stops == 6
    with pytest.raises(ValueError):
        core.advance()
    # A game saved at a round end loads stopped there.
    game2 = py_game(config, 9)
    policy2 = ThriftyPolicy(9)
    while not game2.at_round_end:
        game2.apply(policy2(game2), stop_at_round_end=True)
    core2 = Core.from_state_dict(game2.state.to_dict())
    assert core2.legal_actions() == ()
    game2.advance()
    core2.advance()
    assert_same(game2, core2)


@pytest.mark.parametrize("max_decisions", [1, 7, 60, 150])
def test_max_decisions_truncation(max_decisions: int) -> None:
    for stop in (False, True):
        config = GameConfig(num_players=3, max_decisions=max_decisions, allow_overbid=False)
        game = py_game(config, 4)
        core = Core(config.to_dict(), 4)
        policy = ThriftyPolicy(4)
        while not game.is_over:
            if game.at_round_end:
                game.advance(stop_at_round_end=stop)
                core.advance(stop_at_round_end=stop)
            else:
                action = policy(game)
                game.apply(action, stop_at_round_end=stop)
                core.apply(action, stop_at_round_end=stop)
            assert_same(game, core)
        assert core.truncated and core.to_state_dict()["num_decisions"] == max_decisions


def test_max_rounds_truncation() -> None:
    config = GameConfig(num_players=2, max_rounds=2)
    play_both(config, 3, Uniform(3))
    config = GameConfig(num_players=4, max_rounds=3, allow_overbid=False)
    game, core, _ = play_both(config, 3, ThriftyPolicy(3))
    assert core.truncated and core.round == 3


def test_illegal_actions_leave_the_state_untouched() -> None:
    game = _midgame(steps=30)
    core = Core.from_state_dict(game.state.to_dict())
    before = strict(core.to_state_dict())
    legal = set(core.legal_actions())
    for bad in [-1, 67, 10**20, 2.0, True, "end_turn", None]:
        with pytest.raises((ValueError, TypeError)):
            core.apply(bad)
    for action in range(67):
        if action not in legal:
            with pytest.raises(ValueError):
                core.apply(action)
    assert strict(core.to_state_dict()) == before
    np = pytest.importorskip("numpy")
    action = next(iter(sorted(legal)))
    core.apply(np.int64(action))
    game.apply(action)
    assert_same(game, core)


def test_bad_seeds_are_refused() -> None:
    config = GameConfig(num_players=2).to_dict()
    for bad in (-1, 1.5, True, "3", None):
        with pytest.raises((ValueError, TypeError)):
            Core(config, bad)
    core = Core(config, 1)
    with pytest.raises((ValueError, TypeError)):
        core.reseed(-5)
    np = pytest.importorskip("numpy")
    game = py_game(GameConfig(num_players=2), 12)
    assert strict(Core(config, np.int64(12)).to_state_dict()) == strict(game.state.to_dict())


def test_play_random_replays_in_python() -> None:
    for n in (2, 4, 6):
        config = GameConfig(num_players=n, allow_overbid=False, max_rounds=8)
        core = Core(config.to_dict(), 31 + n)
        taken = core.play_random(99)
        assert taken == len(core.history())
        assert core.terminated or core.truncated
        game = py_game(config, 31 + n)
        for action in core.history():
            game.apply(action)
        assert_same(game, core)
    # max_decisions stops early; a second call goes on.
    core = Core(GameConfig(num_players=3, allow_overbid=False).to_dict(), 1)
    assert core.play_random(5, 10) == 10 and len(core.history()) == 10
    assert core.play_random(6, 10) == 10 and len(core.history()) == 20


def test_benchmarks_run() -> None:
    config = GameConfig(num_players=3, allow_overbid=False, max_rounds=6).to_dict()
    decisions, seconds = _native.bench_random(config, 0, 3)
    assert decisions > 0 and seconds > 0
    core = Core(config, 0)
    assert _native.bench_clones(core, 1000) > 0


# ---- the automatic money handling --------------------------------------------------------------
def test_dust_change_matches() -> None:
    from zavandor_env.engine.economy import dust_chits

    for one in (False, True):
        for amount in list(range(0, 600)) + [999, 1001, 12345]:
            assert _native._dust_chits(amount, one) == dust_chits(amount, one), (amount, one)


def test_payment_matches() -> None:
    from zavandor_env.engine.data import NUM_TOKENS
    from zavandor_env.engine.economy import choose_payment, hand_value

    rng = random.Random(5)
    for trial in range(3000):
        hand = [0] * NUM_TOKENS
        for _ in range(rng.randrange(1, 14)):
            hand[rng.randrange(NUM_TOKENS)] += 1
        value = hand_value(hand)
        amount = rng.randrange(1, value + 1)
        one = trial % 3 == 0
        assert _native._choose_payment(hand, amount, one) == choose_payment(hand, amount, one)
    with pytest.raises(ValueError):
        _native._choose_payment([0] * NUM_TOKENS, 1, False)


def test_hostile_calls_of_the_exported_hooks_are_refused_not_crashing() -> None:
    """Out-of-range amounts, hands of the wrong length or of billions of tokens, NaN scales:
    each is one line of ValueError, in a child process so a crash fails this test (.ci/sanitize
    runs the same calls under ASan and UBSan)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-m", "tests.native_attacks"], cwd=root,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert "0 not refused cleanly" in result.stdout


# ---- the larger run ----------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 6])
def test_backends_agree_in_a_short_selfcheck(num_players: int) -> None:
    """The fast tier's sample of the run below: a few games of ``zavandor selfcheck``."""
    from zavandor_env.selfcheck import run_selfcheck

    report = run_selfcheck([num_players], games=2, seed=num_players)
    assert report.decisions[num_players] > 0


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_backends_agree_over_100k_decisions(num_players: int) -> None:
    """The differential check of ``zavandor selfcheck`` (random, thrifty and heuristic
    seats, every rule variant, clones and JSON crossings): more than 100,000 decisions per
    player count, every one compared.  Runs in CI."""
    from zavandor_env.selfcheck import run_selfcheck

    report = run_selfcheck([num_players], games=6, seed=num_players, min_decisions=100_000)
    assert report.decisions[num_players] >= 100_000
