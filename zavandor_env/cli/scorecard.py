"""``zavandor scorecard``: the standard, deterministic evaluation of one agent."""

from __future__ import annotations

import argparse
from typing import Any

from zavandor_env.cli import common


def add_parser(sub: Any) -> None:
    """Register ``scorecard`` with the subcommands' action ``sub``."""
    from zavandor_env.eval.scorecard import STANDARD_OPPONENTS

    card = sub.add_parser(
        "scorecard", help="the standard, deterministic evaluation of one agent",
        description="Plays SPEC in one seat against n-1 copies of each reference opponent "
        "(random, naive, planner, heuristic, MCTS at a fixed iteration budget, the policy "
        "shipped for the player count), seats rotated, fixed seeds, at 2, 4 and 6 players; "
        "prints the table and writes scorecard.md, scorecard.json, scorecard.png and "
        "timing.json to --out (default: a new eval_out/<date-time>-scorecard-<spec>).  The "
        "same SPEC, seed, games and rules give byte-identical scorecard.json and scorecard.md.  "
        "By default the games use the affordability filter (allow_overbid: false), as the "
        "shipped policies were trained.",
        epilog=common.examples(
            "# a quick card of the heuristic at 2 players",
            "zavandor scorecard heuristic --players 2 --games 20",
            "# the shipped 4-player policy, the standard card at 4 players",
            "zavandor scorecard policy:path=train/checkpoints/selfplay_4p/policy.npz "
            "--players 4"))
    card.add_argument("spec", metavar="SPEC", help="the agent to score, as name or "
                      "name:key=value,... (e.g. policy:path=train/checkpoints/selfplay_2p/"
                      "policy.npz)")
    common.add_run_options(card, "row", 200)
    card.add_argument("--opponents", nargs="+", metavar="NAME",
                      choices=list(STANDARD_OPPONENTS), default=list(STANDARD_OPPONENTS),
                      help="reference opponents to play (default: all of "
                      f"{' '.join(STANDARD_OPPONENTS)})")
    card.add_argument("--mcts-iterations", type=common.POSITIVE, default=16,
                      help="the MCTS opponent's iterations per decision (default 16)")
    common.add_folder_options(card, "card", "scorecard-<spec>", "scorecard.png",
                              unchanged="card")
    common.add_trust_pickle(card)
    card.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor scorecard``; return the exit code."""
    from zavandor_env.eval import scorecard as sc
    from zavandor_env.eval.run_settings import game_options_from_file
    from zavandor_env.eval.scorecard_report import SCORECARD_FOLDER, Scorecard

    try:
        config = sc.ScorecardConfig(
            spec=args.spec, players=tuple(args.players), games=args.games, seed=args.seed,
            opponents=tuple(args.opponents), mcts_iterations=args.mcts_iterations,
            game_options=game_options_from_file(args.game), workers=args.workers,
            game_file=args.game, trust_pickle=args.trust_pickle,
        )
        sc.plan(config)  # every agent built once: a bad spec or file fails before any game
        out, existed = common.prepare_folder(args, SCORECARD_FOLDER, "card",
                                             f"scorecard-{args.spec}")
    except (OSError, ValueError) as exc:
        return common.fail("scorecard", exc)

    def write(card: Scorecard) -> list[str]:
        paths = card.write(out, chart=not args.no_chart, replace=args.overwrite)
        return [card.text(), f"wrote {len(paths)} file(s) to {out}"]

    def play() -> Scorecard:
        return sc.run_scorecard(config, progress=common.progress_wanted(args))

    return common.play_into_folder("scorecard", SCORECARD_FOLDER, out, existed, play, write,
                                   "card")
