"""``zavandor bench``: speed of the engine and the environments beside their peers."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from zavandor_env.cli.common import (
    NON_NEGATIVE,
    PLAYERS,
    UsageError,
    add_quiet,
    check_writable_file,
    examples,
    fail,
    progress_wanted,
    seconds,
    write_json,
)

if TYPE_CHECKING:
    from zavandor_env.bench.engine import BenchRow, RecordedGame


def add_parser(sub: Any) -> None:
    """Register ``bench`` with the subcommands' action ``sub``."""
    bench = sub.add_parser(
        "bench", help="speed of the engine and environment: random play and games that end "
        "by the rules (heuristic self-play), beside PettingZoo peers",
        description="Times, per player count: uniformly random play; heuristic self-play "
        "(recorded once, agents included); the recorded games replayed through the engine; "
        "state cloning -- each on the Python engine and, when built, on the native core "
        "(through the Game API and in a C++ loop); then the AEC env (env() and raw_env, both "
        "backends) with random play and the recorded games, the batched vector env, MCTS "
        "iterations per second, and the peers (PettingZoo texas_holdem_v4 and "
        "connect_four_v3, OpenSpiel through pyspiel) when installed.  Every row shows the "
        "share of games cut off by a safety limit.",
        epilog=examples("# a quick look (about a minute)",
                        "zavandor bench --seconds 0.2",
                        "# the engine alone at 2 players, every row also written as JSON",
                        "zavandor bench --players 2 --engine-only --json bench.json"))
    bench.add_argument("--players", type=PLAYERS, nargs="+", default=[2, 4, 6],
                       help="player counts, 2-6 (default: 2 4 6)")
    bench.add_argument("--seconds", type=seconds, default=3.0,
                       help="time per row (default 3; about 8 rows per player count)")
    bench.add_argument("--seed", type=NON_NEGATIVE, default=0)
    bench.add_argument("--engine-only", action="store_true", help="skip env and peer rows")
    bench.add_argument("--python-only", action="store_true",
                       help="time only the Python engine (default: both backends when the "
                       "native core is built)")
    bench.add_argument("--json", metavar="FILE", help="also write every row to FILE as a list "
                       "of objects (name, players, per_second, unit, truncated_share, ...)")
    add_quiet(bench)
    bench.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor bench``; return the exit code."""
    from tqdm import tqdm

    from zavandor_env.bench.engine import engine_section
    from zavandor_env.engine import native_available, native_status

    if args.json:
        try:
            check_writable_file(args.json)
        except UsageError as exc:
            return fail("bench", exc)
    native = native_available() and not args.python_only
    rows: list[BenchRow] = []
    recorded: dict[int, list[RecordedGame]] = {}
    for n in tqdm(args.players, desc="engine", unit="config", disable=not progress_wanted(args)):
        section, recorded[n] = engine_section(n, args.seconds, args.seed, native)
        rows += section
    print("Engine (one process, one core; ratio: to the [python] row of the same kind):")
    if not native:
        print(f"  ({native_status() if not native_available() else 'native rows skipped'})")
    for row in rows:
        print("  " + row.text() + _ratio_to_python(row, rows))
    if not args.engine_only:
        rows += _env_rows(args, recorded, native)
    if args.json:
        try:
            write_json(args.json, [row.to_dict() for row in rows])
        except OSError as exc:
            return fail("bench", f"cannot write {args.json}: {exc.strerror or exc}")
        print(f"wrote {len(rows)} rows to {args.json}")
    return 0


def _env_rows(args: argparse.Namespace, recorded: dict[int, list[RecordedGame]],
              native: bool) -> list[BenchRow]:
    """The environment and peer rows (printed as they are timed), or none without
    PettingZoo."""
    try:
        from zavandor_env.bench.env import bench_env_section
    except ImportError as exc:  # pettingzoo not installed: engine rows only
        print(f"  (skipped the environment rows: {exc})")
        return []
    from functools import partial

    from zavandor_env.bench.engine import native_extras

    extras = partial(native_extras, seconds=args.seconds, seed=args.seed)
    rows: list[BenchRow] = bench_env_section(args.players, args.seconds, args.seed, recorded,
                                             native=native, extras=extras if native else None)
    return rows


def _ratio_to_python(row: BenchRow, rows: list[BenchRow]) -> str:
    """``  52.1x python`` for a native row beside its ``[python]`` twin (same name with the
    backend tag replaced, same player count)."""
    import re

    if "[native" not in row.name:
        return ""
    twin = re.sub(r"\[native[^\]]*\]", "[python]", row.name)
    for other in rows:
        if other.players == row.players and other.name == twin:
            return f"  {row.per_second / other.per_second:>7.1f}x python"
    return ""
