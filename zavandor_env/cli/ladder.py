"""``zavandor ladder``: the public leaderboard, every standard agent rated on one scale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from zavandor_env.cli.common import (
    NON_NEGATIVE,
    PLAYERS,
    POSITIVE,
    WORKERS,
    UsageError,
    add_quiet,
    examples,
    fail,
    progress_wanted,
    remove_if_empty,
    show,
)
from zavandor_env.extras import require


def add_parser(sub: Any) -> None:
    """Register ``ladder`` with the subcommands' action ``sub``."""
    from zavandor_env.agents.registry import ENGINE_HELP
    from zavandor_env.eval import ladder as ld

    lad = sub.add_parser(
        "ladder", help="the public leaderboard: every standard agent against every other, "
        "rated on one scale",
        description="Plays the standard agents (random, novice, heuristic, naive, planner, "
        "MCTS around the planner, the shipped policy of each player count, and the network "
        "search and OpenSpiel's IS-MCTS where available; every search on a fixed iteration "
        "budget) or --agents at each player count: a round robin of pairs at 2 players, a "
        "balanced cyclic schedule of tables at more, every table on the same deals in every "
        "seat rotation.  Writes ladder.json (specs, schedule, OpenSkill ratings, the pairwise "
        "win matrix, every game), leaderboard.md, ladder.png and cost.json to --out (default: "
        "a new eval_out/<date-time>-ladder).  The same inputs give byte-identical ladder.json "
        "and leaderboard.md; times go to cost.json only.  Each finished game is kept in "
        "--out/games_<n>p.jsonl, so an interrupted ladder continues with --resume --out DIR.",
        epilog=examples(
            "# a small ladder of the standard agents at 2 players (a few minutes)",
            "zavandor ladder --players 2 --games 4",
            "# chosen agents at 2 and 4 players, written to my_ladder",
            "zavandor ladder --agents random heuristic planner --players 2 4 --games 8 "
            "--out my_ladder"))
    lad.add_argument("--players", type=PLAYERS, nargs="+", default=list(ld.DEFAULT_PLAYERS),
                     help="player counts, 2-6 (default: 2 4 6)")
    lad.add_argument("--games", type=POSITIVE, default=ld.DEFAULT_GAMES,
                     help="games per table, rounded up to a multiple of the player count "
                     f"(default {ld.DEFAULT_GAMES})")
    lad.add_argument("--seed", type=NON_NEGATIVE, default=ld.DEFAULT_SEED,
                     help="first deal seed (default 0)")
    lad.add_argument("--agents", nargs="+", metavar="SPEC",
                     help="agents instead of the standard ones, as name or name:key=value,... "
                     "({n} stands for the player count; label=NAME names one); fixed "
                     f"budgets only (iterations=, never seconds=); {ENGINE_HELP}")
    lad.add_argument("--game", metavar="YAML", help="game config file for the rules "
                     "(configs/game/*.yaml; its player count is ignored); default: the "
                     "rulebook with allow_overbid: false, as the shipped policies were trained")
    lad.add_argument("--workers", type=WORKERS, default=None,
                     help="processes (default: all cores); does not change the ladder")
    lad.add_argument("--out", metavar="DIR", help="ladder directory, new or empty (default: "
                     "a new eval_out/<YYYYmmdd-HHMMSS>-ladder)")
    lad.add_argument("--overwrite", action="store_true",
                     help="replace the ladder an earlier run wrote to --out")
    lad.add_argument("--resume", action="store_true",
                     help="continue the interrupted ladder in --out (same arguments)")
    lad.add_argument("--update-doc", metavar="MD", help="also replace the marked section of "
                     "this Markdown file (docs/leaderboard.md) with the leaderboard and its "
                     "cost table")
    lad.add_argument("--no-cost", action="store_true",
                     help="skip the per-decision cost probe (cost.json keeps the game times)")
    lad.add_argument("--no-chart", action="store_true", help="skip ladder.png")
    add_quiet(lad, "no progress")
    lad.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from zavandor_env.eval import ladder as ld
    from zavandor_env.eval import scorecard as sc
    from zavandor_env.eval.tournament import JournalError, default_output_dir

    try:
        if not args.no_chart:  # before any game is played: the chart needs matplotlib
            require("eval", "the chart (--no-chart skips it)", only=["matplotlib"])
        if args.resume and not args.out:
            raise UsageError("--resume continues the interrupted ladder in --out DIR: give --out")
        if args.resume and args.overwrite:
            raise UsageError("give --resume (continue the ladder in --out) or --overwrite "
                             "(start it again), not both")
        config = ld.LadderConfig(
            players=tuple(args.players), games=args.games, seed=args.seed,
            agents=tuple(args.agents) if args.agents else None,
            game_options=(sc.game_options_from_file(args.game) if args.game
                          else dict(sc.DEFAULT_GAME_OPTIONS)),
            workers=args.workers, game_file=args.game,
        )
        ld.plan(config)  # every agent built once: a bad spec or file fails before any game
        if args.update_doc:
            ld.check_doc(args.update_doc)
        existed = args.out is not None and Path(args.out).exists()
        out = (ld.prepare_ladder_dir(args.out, overwrite=args.overwrite, resume=args.resume)
               if args.out else ld.prepare_ladder_dir(default_output_dir("ladder")))
    except (OSError, ValueError) as exc:
        return fail("ladder", exc)
    try:
        ladder = ld.run_ladder(config, progress=progress_wanted(args), out_dir=out,
                               resume=args.resume, probe=not args.no_cost)
    except JournalError as exc:
        return fail("ladder", exc)
    except BaseException as exc:
        if not existed:
            remove_if_empty(out)
        if isinstance(exc, KeyboardInterrupt):
            print(f"\nzavandor ladder: interrupted; the finished games are kept in "
                  f"{str(out)!r}: the same command with --resume --out {str(out)!r} plays "
                  "only the missing ones", file=sys.stderr)
            return 130
        raise
    try:  # written before printing: a closed pipe (| head) must not lose the ladder
        paths = ladder.write(out, chart=not args.no_chart, replace=True)
        if args.update_doc:
            paths.append(ld.update_doc(args.update_doc, ladder))
    except (OSError, ValueError) as exc:
        return fail("ladder", f"cannot write the ladder: {exc}")
    show(ladder.text())
    show(f"wrote {len(paths)} file(s) to {out}" if not args.update_doc
          else f"wrote {len(paths) - 1} file(s) to {out} and updated {args.update_doc}")
    return 0

