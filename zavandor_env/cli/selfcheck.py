"""``zavandor selfcheck``: the C++ core against its oracle (the Python rules), decision by
decision."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from zavandor_env.cli import common


def add_parser(sub: Any) -> None:
    """Register ``selfcheck`` with the subcommands' action ``sub``."""
    check = sub.add_parser(
        "selfcheck", help="play games on the C++ core and on its oracle (the Python rules) "
        "and compare them after every decision",
        description="Plays --games games per player count on the C++ core and on the oracle "
        "(random, "
        "thrifty and heuristic players; the rulebook's options and each option flipped) and "
        "compares the legal actions, the whole state (random generator included) and the "
        "scores after every decision.  Exit 0: identical; exit 1: the first difference, "
        "with the game, the decision and the field.",
        epilog=common.examples("# a quick check (seconds)",
                               "zavandor selfcheck --games 2",
                               "# more games at 2 and 4 players from another seed",
                               "zavandor selfcheck --players 2 4 --games 20 --seed 7"))
    check.add_argument("--games", type=common.POSITIVE, default=12,
                       help="games per player count (default 12)")
    check.add_argument("--players", type=common.PLAYERS, nargs="+", default=[2, 3, 4, 5, 6],
                       help="player counts, 2-6 (default: all)")
    check.add_argument("--seed", type=common.NON_NEGATIVE, default=0)
    common.add_quiet(check)
    check.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor selfcheck``; exit 0 when the core and the oracle agree, 1 when they
    differ."""
    from tqdm import tqdm

    from zavandor_env.engine import native_available, native_status
    from zavandor_env.selfcheck import OracleMismatch, run_selfcheck

    if not native_available():
        return common.fail("selfcheck", native_status())

    def progress(jobs: Any) -> Any:
        total = len(args.players) * args.games
        return tqdm(jobs, total=total, desc="selfcheck", unit="game",
                    disable=not common.progress_wanted(args))

    try:
        report = run_selfcheck(args.players, args.games, args.seed, progress=progress)
    except OracleMismatch as exc:
        print(f"zavandor selfcheck: CORE AND ORACLE DIFFER: {exc}", file=sys.stderr)
        return 1
    print(report.text())
    return 0

