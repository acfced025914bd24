"""``zavandor ladder``: the public leaderboard, every standard agent rated on one scale."""

from __future__ import annotations

import argparse
from typing import Any

from zavandor_env.cli import common
from zavandor_env.cli.exploit import minutes


def add_parser(sub: Any) -> None:
    """Register ``ladder`` with the subcommands' action ``sub``."""
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
        epilog=common.examples(
            "# a small ladder of the standard agents at 2 players (a few minutes)",
            "zavandor ladder --players 2 --games 4",
            "# chosen agents at 2 and 4 players, written to my_ladder",
            "zavandor ladder --agents random heuristic planner --players 2 4 --games 8 "
            "--out my_ladder"))
    common.add_run_options(lad, "table", ld.DEFAULT_GAMES)
    lad.add_argument("--agents", nargs="+", metavar="SPEC",
                     help="agents instead of the standard ones, as name or name:key=value,... "
                     "({n} stands for the player count; label=NAME names one); fixed "
                     "budgets only (iterations=, never seconds=)")
    common.add_folder_options(lad, "ladder", "ladder", "ladder.png", unchanged="ladder",
                              resume="continue the interrupted ladder in --out (same arguments)")
    lad.add_argument("--update-doc", metavar="MD", help="also replace the marked section of "
                     "this Markdown file (docs/leaderboard.md) with the leaderboard and its "
                     "cost table")
    lad.add_argument("--exploit", type=minutes, metavar="MINUTES",
                     help="also train a best response of MINUTES (from a clone of the "
                     "heuristic, as zavandor exploit --imitate) against every agent at every "
                     "player count, and write its win rate, the robustness column, to "
                     "exploit.json and exploit.md (BR run folders in OUT_best_responses); "
                     "the ladder's own files stay deterministic")
    lad.add_argument("--no-cost", action="store_true",
                     help="skip the per-decision cost probe (cost.json keeps the game times)")
    lad.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor ladder``; return the exit code."""
    from zavandor_env.eval import ladder as ld
    from zavandor_env.eval.ladder_report import LADDER_FOLDER, Ladder, check_doc, update_doc
    from zavandor_env.eval.run_settings import game_options_from_file

    try:
        config = ld.LadderConfig(
            players=tuple(args.players), games=args.games, seed=args.seed,
            agents=tuple(args.agents) if args.agents else None,
            game_options=game_options_from_file(args.game), workers=args.workers,
            game_file=args.game,
        )
        ld.plan(config)  # every agent built once: a bad spec or file fails before any game
        if args.update_doc:
            check_doc(args.update_doc)
        out, existed = common.prepare_folder(args, LADDER_FOLDER, "ladder", "ladder")
    except (OSError, ValueError) as exc:
        return common.fail("ladder", exc)

    def play() -> Ladder:
        return ld.run_ladder(config, progress=common.progress_wanted(args), out_dir=out,
                             resume=args.resume, probe=not args.no_cost)

    def write(ladder: Ladder) -> list[str]:
        paths = ladder.write(out, chart=not args.no_chart, replace=True)
        shown = [ladder.text()]
        if args.exploit:
            shown.append(_exploit_column(ladder, args, out))
        if not args.update_doc:
            return [*shown, f"wrote {len(paths)} file(s) to {out}"]
        update_doc(args.update_doc, ladder)
        return [*shown, f"wrote {len(paths)} file(s) to {out} and updated {args.update_doc}"]

    return common.play_into_folder("ladder", LADDER_FOLDER, out, existed, play, write, "ladder")


def _exploit_column(ladder: Any, args: argparse.Namespace, out: Any) -> str:
    """``--exploit``: a best response per agent and player count, written beside the ladder
    (``exploit.json``, ``exploit.md``); returns the tables."""
    import json
    from pathlib import Path

    from zavandor_env.io.files import write_atomic
    from zavandor_env.train.exploit import ladder_column, ladder_column_markdown

    folder = Path(out)
    rows = ladder_column(ladder, args.exploit, args.seed,
                         folder.parent / f"{folder.name}_best_responses", args.workers)
    text = ladder_column_markdown(rows)
    write_atomic(folder / "exploit.json", json.dumps(rows, indent=2) + "\n")
    write_atomic(folder / "exploit.md", text)
    return text
