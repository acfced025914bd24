"""The ``zavandor`` command: play / train / eval / bench / replay."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _cmd_bench(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .bench import bench_clone, bench_engine

    players = args.players
    rows = []
    for n in tqdm(players, desc="engine", unit="config", disable=args.quiet):
        rows.append(bench_engine(n, seconds=args.seconds, seed=args.seed))
    print("Engine, uniformly random legal play (one process, one core):")
    for row in rows:
        print("  " + row.row())
    for n in players:
        print(f"  clone {n}p: {bench_clone(n, seconds=min(1.0, args.seconds)):,.0f} clones/s")
    if not args.engine_only:
        try:
            from .env.bench import bench_env_section
        except ImportError:
            return 0
        bench_env_section(args)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zavandor", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    bench = sub.add_parser("bench", help="speed of random play (engine, environment, peers)")
    bench.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    bench.add_argument("--seconds", type=float, default=3.0, help="time per row")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--engine-only", action="store_true", help="skip env and peer rows")
    bench.add_argument("--quiet", action="store_true", help="no progress bar")
    bench.set_defaults(func=_cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
