"""``zavandor bench``: speed of the engine and the environments beside their peers."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from zavandor_env.cli import common

if TYPE_CHECKING:
    from zavandor_env.bench.engine import BenchRow, RecordedGame


def add_parser(sub: Any) -> None:
    """Register ``bench`` with the subcommands' action ``sub``."""
    bench = sub.add_parser(
        "bench", help="speed of the engine and environment: random play and games that end "
        "by the rules (heuristic self-play), beside PettingZoo peers",
        description="Times, per player count: uniformly random play; heuristic self-play "
        "(recorded once, agents included); the recorded games replayed through the engine; "
        "state cloning -- each on the C++ core through the Game API and in a C++ loop (the "
        "replays also on the oracle, the Python rules); then "
        "the AEC env (env() and raw_env) with random play and the recorded games, the "
        "batched vector env, MCTS "
        "iterations per second, and the peers (PettingZoo texas_holdem_v4 and "
        "connect_four_v3, OpenSpiel through pyspiel) when installed.  Every row shows the "
        "share of games cut off by a safety limit.",
        epilog=common.examples("# a quick look (about a minute)",
                               "zavandor bench --seconds 0.2",
                               "# the engine alone at 2 players, every row also written as JSON",
                               "zavandor bench --players 2 --engine-only --json bench.json"))
    bench.add_argument("--players", type=common.PLAYERS, nargs="+", default=[2, 4, 6],
                       help="player counts, 2-6 (default: 2 4 6)")
    bench.add_argument("--seconds", type=common.seconds, default=3.0,
                       help="time per row (default 3; about 8 rows per player count)")
    bench.add_argument("--seed", type=common.NON_NEGATIVE, default=0)
    bench.add_argument("--engine-only", action="store_true", help="skip env and peer rows")
    # Kept so that old command lines still run: there is no Python engine to time any more.
    bench.add_argument("--python-only", action="store_true", help=argparse.SUPPRESS)
    bench.add_argument("--json", metavar="FILE", help="also write every row to FILE as a list "
                       "of objects (name, players, per_second, unit, truncated_share, ...)")
    common.add_quiet(bench)
    bench.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor bench``; return the exit code."""
    from tqdm import tqdm

    from zavandor_env.bench.engine import engine_section
    from zavandor_env.engine import native_available, native_status

    if not native_available():
        return common.fail("bench", native_status())
    if args.python_only:
        print("(--python-only: every game runs on the C++ core now; timing it)")
    if args.json:
        common.check_writable_file(args.json)
    rows: list[BenchRow] = []
    recorded: dict[int, list[RecordedGame]] = {}
    quiet = not common.progress_wanted(args)
    for n in tqdm(args.players, desc="engine", unit="config", disable=quiet):
        section, recorded[n] = engine_section(n, args.seconds, args.seed)
        rows += section
    print("Engine (one process, one core):")
    for row in rows:
        print("  " + row.text())
    if not args.engine_only:
        rows += _env_rows(args, recorded)
    if args.json:
        try:
            common.write_json(args.json, [row.to_dict() for row in rows])
        except OSError as exc:
            return common.fail("bench", f"cannot write {args.json}: {exc.strerror or exc}")
        print(f"wrote {len(rows)} rows to {args.json}")
    return 0


def _env_rows(args: argparse.Namespace,
              recorded: dict[int, list[RecordedGame]]) -> list[BenchRow]:
    """The environment and peer rows (printed as they are timed), or none without
    PettingZoo."""
    try:
        from zavandor_env.bench.env import bench_env_section
    except ImportError as exc:  # pettingzoo not installed: engine rows only
        print(f"  (skipped the environment rows: {exc})")
        return []
    from functools import partial

    from zavandor_env.bench.engine import search_and_vector_rows

    extras = partial(search_and_vector_rows, seconds=args.seconds, seed=args.seed)
    return bench_env_section(args.players, args.seconds, args.seed, recorded, extras=extras)
