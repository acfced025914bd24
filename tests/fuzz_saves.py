"""Seeded mutation fuzz of saved games: a stranger's save is refused in one line or plays on.

Saves are taken from seeded games of 2-6 players with mixed seats (uniform and thrifty
policies: auctions, debts, free levels, Mirror/Cloak victims, round ends and game ends all
occur), one at the first occurrence of each phase and others along the way.  Each is mutated
(1-3 mutations: ints to boundary, huge or negative values, small deltas, wrong types, list
lengths, swapped phases, deleted and added keys) and must then either

* be **refused** by ``from_dict`` on the C++ core and on the oracle (the Python rules) with a
  one-line ``ReplayError`` (a ``ValueError``; no other exception type), or
* **play to the end** (or to :data:`DECISION_BUDGET` decisions) on BOTH with the same
  seeded random choices, the same legal actions at every decision, and the same final state
  and scores,

within :data:`SECONDS_PER_SAVE` seconds.  ``tests/io/test_fuzz_saves.py`` runs a bounded sample
in the normal suite; the long run is one command::

    python -m tests.fuzz_saves --saves 20000 --seed 0

It prints saves tried, refused, played, failures (crashes, hangs, divergences: must be 0),
peak RSS and wall time, and exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import copy
import random
import resource
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.policies import ThriftyPolicy, UniformPolicy
from zavandor_env.engine import Game, GameConfig, Phase, ReplayError
from zavandor_env.engine.oracle import OracleGame

#: Decisions played from a loaded save before the core and the oracle are compared (a mutated
#: ``max_rounds`` may make a random game long; real games end within ~900 decisions).
DECISION_BUDGET = 3_000
#: A save that takes longer than this (load and play, core and oracle) is a hang.
SECONDS_PER_SAVE = 20
#: Values an int is set to: boundaries of every table, int32, int64 and beyond.
BOUNDARY_INTS = (-(2**63), -(2**31) - 1, -(2**31), -2, -1, 0, 1, 2, 3, 5, 6, 8, 9, 10, 11, 12,
                 13, 20, 28, 29, 67, 100, 1000, 1001, 100_000, 400_000, 2**31 - 1, 2**31,
                 2**32, 2**63, 10**30)
WRONG_TYPES: tuple[object, ...] = (None, "x", "3", 1.5, float("nan"), True, False, [], {},
                                   [1, 2], [[-5]], {"a": 1})

Path = tuple[str | int, ...]


class FuzzFailure(AssertionError):
    """A mutated save crashed, hung or made the core and the oracle diverge."""


class _Hang(Exception):
    pass


# ---- seed saves --------------------------------------------------------------------------------
def seed_saves(num_players: int, seed: int, every: int = 40) -> list[dict[str, Any]]:
    """Saves of one seeded game of mixed seats (on the oracle; a save loads on either): the
    first of each phase, one in four of the other rarer decisions (auctions and their
    resolution, round ends) and one turn decision in ``every``."""
    rng = random.Random(seed * 31 + num_players)
    policies: list[Callable[[Game], int]] = [
        UniformPolicy(seed + seat) if rng.random() < 0.5 else ThriftyPolicy(seed + seat)
        for seat in range(num_players)
    ]
    game: Game = OracleGame.new(GameConfig(num_players=num_players), seed=seed)
    saves: list[dict[str, Any]] = []
    seen: set[Phase] = set()
    decisions = 0
    while True:
        phase = game.phase
        rare = phase != Phase.TURN and rng.random() < 0.25
        if phase not in seen or rare or decisions % every == 0:
            seen.add(phase)
            saves.append(game.to_dict())
        if game.is_over:
            return saves
        if game.at_round_end:
            game.advance(stop_at_round_end=True)
            continue
        game.apply(policies[game.current_player](game), stop_at_round_end=True)
        decisions += 1


def corpus(seed: int, games_per_count: int = 2, max_games: int = 40) -> list[dict[str, Any]]:
    """Seed saves of at least ``games_per_count`` games for each player count 2-6, and more
    (up to ``max_games``) until every phase has been saved at that count."""
    saves: list[dict[str, Any]] = []
    for n in range(2, 7):
        phases: set[int] = set()
        for g in range(max_games):
            if g >= games_per_count and len(phases) == len(Phase):
                break
            game_saves = seed_saves(n, seed * 1000 + g)
            new = {s["state"]["phase"] for s in game_saves} - phases
            if g < games_per_count or new:
                saves.extend(game_saves if g < games_per_count else
                             [s for s in game_saves if s["state"]["phase"] in new])
                phases |= new
    return saves


# ---- mutations ---------------------------------------------------------------------------------
def _paths(value: Any, path: Path = ()) -> Iterator[Path]:
    """Every key and list index of a save (the generator's 625 words counted as one)."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield path + (key,)
            yield from _paths(sub, path + (key,))
    elif isinstance(value, list) and len(value) < 100:
        for i, sub in enumerate(value):
            yield path + (i,)
            yield from _paths(sub, path + (i,))


def _parent(data: Any, path: Path) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


def _new_int(rng: random.Random, old: Any) -> object:
    if type(old) is int and rng.random() < 0.5:
        return old + rng.choice((-3, -2, -1, 1, 1, 2, 3, 10))  # plausible: passes more checks
    return rng.choice(BOUNDARY_INTS)


def _move_component(data: dict[str, Any], rng: random.Random) -> str:
    """A mutation that keeps the box's totals: more saves pass validation and play, so the
    rules meet odd but conserved holdings (dust, VP, cards, gems in unusual places)."""
    state = data["state"]
    player = rng.choice(state["players"])
    choice = rng.randrange(4)
    if choice == 0:  # dust is unbounded by the box: any count up to (and past) the ceiling
        token = rng.randrange(25, 29)
        player["hand"][token] = rng.choice((0, 1, 7, 50, 999, 1000, 1001, 100_000))
        return f"hand[{token}] = {player['hand'][token]}"
    if choice == 1:
        name = rng.choice(("vp", "gem_vp", "sages_dust", "balance"))
        player[name] = rng.choice((0, 1, 5, 60, 200, 1000, 1001, -1))
        return f"{name} = {player[name]}"
    if choice == 2:  # a card from a deck or discard pile into the hand
        piles = [p for p in state["decks"] + state["discards"] if p]
        if not piles:
            return "no card to move"
        token = rng.choice(piles).pop()
        player["hand"][token] += 1
        return f"card {token} into a hand"
    gem = rng.randrange(5)  # a gem from the supply to a player
    if state["gem_supply"][gem]:
        state["gem_supply"][gem] -= 1
        player[rng.choice(("active", "inactive"))][gem] += 1
    return f"gem {gem} to a player"


def mutate(data: dict[str, Any], rng: random.Random) -> str:
    """Apply one random mutation to ``data`` in place; returns what it did."""
    try:
        if rng.random() < 0.3:
            return _move_component(data, rng)
        if rng.random() < 0.05:
            phase = rng.randrange(7)
            data["state"]["phase"] = phase
            return f"state.phase = {phase}"
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        return "no change: an earlier mutation broke the structure it needs"
    return _mutate_any(data, rng)


def _mutate_any(data: dict[str, Any], rng: random.Random) -> str:
    """Mutate one random key or list entry of ``data``: its value, its type, its length."""
    paths = list(_paths(data))
    path = rng.choice(paths)
    parent = _parent(data, path)
    key = path[-1]
    old = parent[key]
    roll = rng.random()
    if roll < 0.10 and isinstance(parent, dict):
        del parent[key]
        return f"del {path}"
    if roll < 0.13 and isinstance(parent, dict):
        parent[f"extra{rng.randrange(3)}"] = rng.choice(BOUNDARY_INTS)
        return f"add a key beside {path}"
    if isinstance(old, list) and roll < 0.35:
        choice = rng.randrange(4)
        if choice == 0 and old:
            old.pop(rng.randrange(len(old)))
        elif choice == 1:
            old.append(copy.deepcopy(rng.choice(old)) if old else rng.choice(BOUNDARY_INTS))
        elif choice == 2:
            old.clear()
        else:
            old.extend([rng.choice(BOUNDARY_INTS)] * rng.choice((1, 5, 100)))
        return f"resize {path}"
    if roll < 0.45:
        parent[key] = copy.deepcopy(rng.choice(WRONG_TYPES))
        return f"{path} = {parent[key]!r}"
    if type(old) is bool:
        parent[key] = not old
    else:
        parent[key] = _new_int(rng, old)
    return f"{path} = {parent[key]!r} (was {old!r})" if not isinstance(old, list) else f"{path}"


# ---- one save ----------------------------------------------------------------------------------
#: Where a save is loaded: ``core`` (:class:`Game`) or ``oracle`` (:class:`OracleGame`).
RULES = {"core": Game, "oracle": OracleGame}


def _load(data: dict[str, Any], rules: str) -> Game | str:
    """The loaded game, or the one-line refusal (any other exception propagates)."""
    try:
        return RULES[rules].from_dict(copy.deepcopy(data))
    except ReplayError as exc:
        message = str(exc)
        if "\n" in message or not message:
            raise FuzzFailure(f"refusal is not one line: {message!r}") from None
        return message


def _play(game: Game, seed: int) -> tuple[list[tuple[int, ...]], Game]:
    """Play ``game`` with seeded random choices to its end or the decision budget; the legal
    actions met at every decision."""
    rng = random.Random(seed)
    seen: list[tuple[int, ...]] = []
    for _ in range(DECISION_BUDGET):
        if game.is_over:
            break
        if game.at_round_end:
            game.advance()
            continue
        legal = game.legal_actions()
        seen.append(legal)
        game.apply(legal[rng.randrange(len(legal))])
    return seen, game


def check_save(data: dict[str, Any], seed: int, rules: tuple[str, ...]) -> str:
    """``"refused"`` or ``"played"``; raises :class:`FuzzFailure` on anything else."""
    loaded = [_load(data, name) for name in rules]
    if all(isinstance(g, str) for g in loaded):
        return "refused"
    if any(isinstance(g, str) for g in loaded):
        raise FuzzFailure(f"one refused, the other loaded: {dict(zip(rules, loaded))}")
    results = [_play(g, seed) for g in loaded if isinstance(g, Game)]
    (legal0, game0), *others = results
    for legal, game in others:
        if legal != legal0:
            step = next(i for i, (a, b) in enumerate(zip(legal, legal0)) if a != b) \
                if any(a != b for a, b in zip(legal, legal0)) else min(len(legal), len(legal0))
            raise FuzzFailure(f"legal actions diverge at decision {step}")
        if game.to_dict() != game0.to_dict() or game.scores() != game0.scores():
            raise FuzzFailure("final states differ between the core and the oracle")
    game0.to_json()
    return "played"


@contextmanager
def memory_cap(extra_mib: int) -> Iterator[None]:
    """Cap the address space at what the process uses now plus ``extra_mib`` (0: no cap), so a
    save that would take gigabytes fails with ``MemoryError`` (a finding) instead of taking
    the machine; the soft limit is restored afterwards."""
    if not extra_mib:
        yield
        return
    with open("/proc/self/statm") as fh:
        used = int(fh.read().split()[0]) * resource.getpagesize()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = used + (extra_mib << 20)
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard < 0 else min(cap, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _alarm(signum: int, frame: object) -> None:
    raise _Hang()


@dataclass
class Report:
    """What a fuzz run met."""

    tried: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    phases: Counter[str] = field(default_factory=Counter)
    players: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def line(self) -> str:
        rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return (f"saves tried {self.tried}, refused {self.outcomes['refused']}, played "
                f"{self.outcomes['played']}, failures {len(self.failures)}; players "
                f"{dict(sorted(self.players.items()))}; phases {dict(sorted(self.phases.items()))}"
                f"; peak RSS {rss_mib:.0f} MiB")


def _set_fields(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def apply(state: dict[str, Any]) -> None:
        state.update(fields)
    return apply


def _max_hand(state: dict[str, Any]) -> None:
    state["players"][0]["hand"][28] = 2**31 - 1


#: Saves once reported as crashes, checked first in every run (as name, players, phase, edit of
#: the state): on a build that lost a check they reach the engines, where the sanitizers see them.
REGRESSIONS: tuple[tuple[str, int, Phase, Callable[[dict[str, Any]], None]], ...] = (
    ("FREE_LEVEL save with phase DEBT and auction_item 10", 2, Phase.FREE_LEVEL,
     _set_fields(phase=int(Phase.DEBT), auction_item=10)),
    ("2^31-1 ten-chits", 2, Phase.TURN, _max_hand),
    ("round 2^31", 3, Phase.TURN, _set_fields(round=2**31)),
)


def _check_regressions(base: list[dict[str, Any]], seed: int, rules: tuple[str, ...],
                       report: Report) -> None:
    for name, players, phase, edit in REGRESSIONS:
        save = next(s for s in base if s["state"]["phase"] == phase
                    and s["state"]["config"]["num_players"] == players)
        data = copy.deepcopy(save)
        edit(data["state"])
        report.tried += 1
        try:
            report.outcomes[check_save(data, seed, rules)] += 1
        except Exception as exc:  # noqa: BLE001 - any exception is a finding
            report.failures.append(f"regression {name}: {type(exc).__name__}: {exc}")


def run(saves: int, seed: int, rules: tuple[str, ...] = ("core", "oracle"),
        progress: Callable[[Report], None] | None = None, memory_mib: int = 2048) -> Report:
    """Mutate ``saves`` saves (seeded) and check each on ``rules`` (the core first: under the
    sanitizers its run happens even if the oracle then fails), in at most ``memory_mib`` more
    memory (:func:`memory_cap`); failures are collected, not raised."""
    base = corpus(seed)
    rng = random.Random(seed)
    report = Report()
    use_alarm = hasattr(signal, "SIGALRM")
    previous = signal.signal(signal.SIGALRM, _alarm) if use_alarm else None
    try:
        with memory_cap(memory_mib):
            _check_regressions(base, seed, rules, report)
            for i in range(saves):
                _check_one(base, rng, seed * 1_000_003 + i, rules, report, use_alarm)
                if progress and (i + 1) % 1000 == 0:
                    progress(report)
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, previous)
    return report


def _check_one(base: list[dict[str, Any]], rng: random.Random, seed: int,
               rules: tuple[str, ...], report: Report, use_alarm: bool) -> None:
    """Mutate one seed save and record what became of it in ``report``."""
    original = rng.choice(base)
    data = copy.deepcopy(original)
    what = "; ".join(mutate(data, rng) for _ in range(rng.choice((1, 1, 1, 2, 3))))
    index = report.tried
    report.tried += 1
    report.players[original["state"]["config"]["num_players"]] += 1
    report.phases[Phase(original["state"]["phase"]).name] += 1
    if use_alarm:
        signal.alarm(SECONDS_PER_SAVE)
    try:
        report.outcomes[check_save(data, seed, rules)] += 1
    except _Hang:
        report.failures.append(f"save {index} ({what}): hang past {SECONDS_PER_SAVE} s")
    except FuzzFailure as exc:
        report.failures.append(f"save {index} ({what}): {exc}")
    except Exception as exc:  # noqa: BLE001 - any other exception is a finding
        report.failures.append(f"save {index} ({what}): {type(exc).__name__}: {exc}")
    finally:
        if use_alarm:
            signal.alarm(0)


#: Agents of the seeded native games (``--games``): every seat kind the native core serves.
GAME_AGENTS = ("random", "heuristic", "naive", "planner")


def play_native_games(games: int, seed: int) -> int:
    """Play ``games`` seeded games of 2-6 players, mixed agents, on the core (for the
    sanitizer build: every rule path of the core runs); returns the decisions taken."""
    from zavandor_env.agents.registry import make_agent
    from zavandor_env.eval.match import play_game

    rng = random.Random(seed)
    decisions = 0
    for i in range(games):
        n = 2 + i % 5
        agents = [make_agent(rng.choice(GAME_AGENTS), seed=seed + i * 7 + seat)
                  for seat in range(n)]
        result = play_game(agents, seed=seed * 100_003 + i)
        decisions += result.outcome.decisions
    return decisions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="core,oracle",
                        help="comma-separated: core, oracle (default: both)")
    parser.add_argument("--games", type=int, default=0,
                        help="also play this many seeded native games of mixed agents")
    parser.add_argument("--max-memory-mb", type=int, default=2048,
                        help="memory the saves may add (0: no cap, e.g. under AddressSanitizer)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    report = run(args.saves, args.seed, tuple(args.rules.split(",")),
                 progress=lambda r: print(f"... {r.line()}", flush=True),
                 memory_mib=args.max_memory_mb)
    for failure in report.failures[:50]:
        print("FAIL", failure)
    print(f"{report.line()}; wall {time.monotonic() - start:.0f} s", flush=True)
    if args.games:
        start = time.monotonic()
        decisions = play_native_games(args.games, args.seed)
        print(f"native games {args.games}, decisions {decisions}, "
              f"wall {time.monotonic() - start:.0f} s")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
