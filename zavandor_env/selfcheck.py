"""Differential check of the C++ core against its oracle, the Python rules: the same games on
both, compared after every decision (``zavandor selfcheck``;
``tests/engine/test_native_core.py`` runs
it in CI).

Each game is played on the oracle and on the core from the same config and seed.
Before the first decision and after every one, the check compares the legal actions, the whole
state (``to_dict()``: every field, the random generator included) and the scores; the first
difference stops the check with the decision, the path of the differing field and both values.
Along the way it also crosses the core's other entry points: the core's game is now and then
replaced by its clone, or by a copy loaded from the oracle game's JSON, and some round ends
stop (``stop_at_round_end``) and continue with ``advance()``.

Who plays: ``random`` (uniform legal actions), ``thrifty`` (mostly passes and ends turns, so
games last and reach the end by the rules) and ``heuristic`` (the heuristic agent, games as
people play them), seat by seat, under the rulebook's options and each option flipped.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.actions import END_TURN, PASS
from zavandor_env.engine.oracle import OracleGame

#: Rule-option variants every check cycles through (the first is the rulebook's defaults).
_CHOSEN_VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"allow_overbid": False},
    {"allow_overbid": False, "one_value_dust": True, "catchup_small_games": True},
    {"allow_overbid": False, "no_split_blocks": False, "no_undo_activation": False},
    {"sages_dust_substitution": False, "druid_l3_ruby": False, "allow_overbid": False},
    {"skip_forced_decisions": False, "allow_overbid": False},
)


def _every_option_flipped(chosen: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """``chosen`` plus one variant per boolean GameConfig option that none of them flips, so a
    new rule option is checked on both without being listed here."""
    flipped = {name for variant in chosen for name in variant}
    extra = tuple({f.name: not f.default} for f in fields(GameConfig)
                  if isinstance(f.default, bool) and f.name not in flipped)
    return chosen + extra


VARIANTS: tuple[dict[str, Any], ...] = _every_option_flipped(_CHOSEN_VARIANTS)
POLICIES = ("random", "thrifty", "heuristic")

Policy = Callable[[Game, random.Random], int]


class OracleMismatch(AssertionError):
    """The core and the oracle disagree; the message says where (game, decision, field, both
    values)."""


@dataclass
class SelfcheckReport:
    """What a check covered: games and decisions per player count, and the time taken."""

    games: dict[int, int] = field(default_factory=dict)
    decisions: dict[int, int] = field(default_factory=dict)
    ended_by_rules: int = 0
    seconds: float = 0.0

    def text(self) -> str:
        counts = ", ".join(f"{n}p {self.games[n]} games / {self.decisions[n]:,} decisions"
                           for n in sorted(self.games))
        total = sum(self.decisions.values())
        return (f"core and oracle identical: {counts}; {self.ended_by_rules} games ended by "
                f"the rules; {total:,} decisions compared in {self.seconds:.1f} s")


def first_difference(a: Any, b: Any, path: str = "state") -> str | None:
    """The path and values of the first difference between two plain-data trees, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}: present on one side only"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: lengths {len(a)} != {len(b)}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    if type(a) is not type(b) or a != b:
        return f"{path}: {a!r} ({type(a).__name__}) != {b!r} ({type(b).__name__})"
    return None


def _random_policy(game: Game, rng: random.Random) -> int:
    legal = game.legal_actions()
    return legal[int(rng.random() * len(legal))]


def _thrifty_policy(game: Game, rng: random.Random) -> int:
    legal = game.legal_actions()
    for quiet in (PASS, END_TURN):
        if quiet in legal and rng.random() < 0.8:
            return quiet
    return legal[int(rng.random() * len(legal))]


def _heuristic_policy() -> Policy:
    from zavandor_env.agents.heuristic import (  # the check is a top-level tool
        choose,
        resolve_weights,
    )

    weights = resolve_weights(None)

    def act(game: Game, _rng: random.Random) -> int:
        return choose(game.view(game.current_player), game.legal_actions(), weights)

    return act


def _policy(name: str) -> Policy:
    if name == "random":
        return _random_policy
    if name == "thrifty":
        return _thrifty_policy
    if name == "heuristic":
        return _heuristic_policy()
    raise ValueError(f"unknown policy {name!r}; choose from {list(POLICIES)}")


def _compare(oracle: Game, core: Game, where: str) -> None:
    legal_o, legal_c = oracle.legal_actions(), core.legal_actions()
    if legal_o != legal_c:
        raise OracleMismatch(f"{where}: legal actions differ: oracle {legal_o} core {legal_c}")
    saved_o, saved_c = oracle.to_dict(), core.to_dict()
    if saved_o != saved_c:  # the walk only runs to say where
        raise OracleMismatch(f"{where}: {first_difference(saved_o, saved_c)}")
    if oracle.scores() != core.scores():
        raise OracleMismatch(f"{where}: scores {oracle.scores()} != {core.scores()}")


def check_game(config: GameConfig, seed: int, policies: Sequence[Policy],
               rng: random.Random) -> tuple[int, bool]:
    """Play one game on the oracle and on the core, comparing after every decision; returns
    (decisions, ended by the rules).  Raises :class:`OracleMismatch` at the first difference."""
    oracle: Game = OracleGame.new(config, seed)
    core = Game.new(config, seed)
    label = f"{config.num_players}p seed {seed} {_options(config)}"
    _compare(oracle, core, f"{label}, start")
    decisions = 0
    while not oracle.is_over:
        action = policies[oracle.current_player](oracle, rng)
        stop = rng.random() < 0.2
        oracle.apply(action, stop_at_round_end=stop)
        core.apply(action, stop_at_round_end=stop)
        decisions += 1
        where = f"{label}, decision {decisions} (action {action})"
        _compare(oracle, core, where)
        if oracle.at_round_end:
            oracle.advance()
            core.advance()
            _compare(oracle, core, f"{where}, after advance()")
        crossing = rng.random()
        if crossing < 0.01:
            core = core.clone()
        elif crossing < 0.02:
            core = Game.from_json(oracle.to_json())
    return decisions, oracle.terminated


def _options(config: GameConfig) -> str:
    default = GameConfig(num_players=config.num_players)
    changed = {k: v for k, v in config.to_dict().items() if v != default.to_dict()[k]}
    return str(changed) if changed else "{rulebook defaults}"


def run_selfcheck(
    players: Sequence[int] = (2, 3, 4, 5, 6),
    games: int = 12,
    seed: int = 0,
    policies: Sequence[str] = POLICIES,
    progress: Callable[[Iterator[Any]], Iterator[Any]] | None = None,
    min_decisions: int = 0,
) -> SelfcheckReport:
    """``games`` games per player count on the oracle and the core (more, until
    ``min_decisions`` decisions per player count were compared), cycling through the rule
    :data:`VARIANTS` and the seat policies; raises :class:`OracleMismatch` at the first
    difference, else returns what was covered (``RuntimeError`` without the core)."""
    made = {name: _policy(name) for name in policies}
    report = SelfcheckReport()
    start = time.perf_counter()
    jobs = [(n, k) for n in players for k in range(games)]
    for n, k in (progress(iter(jobs)) if progress else jobs):
        _check_one(report, n, k, seed, policies, made)
    for n in players:  # top up to the decision target
        k = games
        while report.decisions.get(n, 0) < min_decisions:
            _check_one(report, n, k, seed, policies, made)
            k += 1
    report.seconds = time.perf_counter() - start
    return report


def _check_one(report: SelfcheckReport, n: int, k: int, seed: int, policies: Sequence[str],
               made: dict[str, Policy]) -> None:
    """Game ``k`` of the ``n``-player series, added to ``report``."""
    rng = random.Random(seed * 1_000_003 + n * 1_009 + k)
    options = VARIANTS[k % len(VARIANTS)]
    names = [policies[(k + seat) % len(policies)] for seat in range(n)]
    config = GameConfig(num_players=n, max_decisions=4000, **options)
    taken, by_rules = check_game(config, seed + k, [made[p] for p in names], rng)
    report.games[n] = report.games.get(n, 0) + 1
    report.decisions[n] = report.decisions.get(n, 0) + taken
    report.ended_by_rules += by_rules
