"""``zavandor scorecard``: the standard, deterministic evaluation of one agent."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zavandor_env.cli.common import (
    NON_NEGATIVE,
    PLAYERS,
    POSITIVE,
    WORKERS,
    add_quiet,
    add_trust_pickle,
    examples,
    fail,
    progress_wanted,
    remove_if_empty,
    show,
)
from zavandor_env.extras import require


def add_parser(sub: Any) -> None:
    """Register ``scorecard`` with the subcommands' action ``sub``."""
    from zavandor_env.agents.registry import ENGINE_HELP
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
        epilog=examples(
            "# a quick card of the heuristic at 2 players",
            "zavandor scorecard heuristic --players 2 --games 20",
            "# the shipped 4-player policy, the standard card at 4 players",
            "zavandor scorecard policy:path=train/checkpoints/selfplay_4p/policy.npz "
            "--players 4"))
    card.add_argument("spec", metavar="SPEC", help="the agent to score, as name or "
                      "name:key=value,... (e.g. policy:path=train/checkpoints/selfplay_2p/"
                      f"policy.npz); {ENGINE_HELP}")
    card.add_argument("--players", type=PLAYERS, nargs="+", default=[2, 4, 6],
                      help="player counts, 2-6 (default: 2 4 6)")
    card.add_argument("--games", type=POSITIVE, default=200,
                      help="games per row, rounded up to a multiple of the player count "
                      "(default 200)")
    card.add_argument("--seed", type=NON_NEGATIVE, default=0, help="first deal seed (default 0)")
    card.add_argument("--opponents", nargs="+", metavar="NAME",
                      choices=list(STANDARD_OPPONENTS), default=list(STANDARD_OPPONENTS),
                      help="reference opponents to play (default: all of "
                      f"{' '.join(STANDARD_OPPONENTS)})")
    card.add_argument("--mcts-iterations", type=POSITIVE, default=16,
                      help="the MCTS opponent's iterations per decision (default 16)")
    card.add_argument("--game", metavar="YAML", help="game config file for the rules "
                      "(configs/game/*.yaml; its player count is ignored); default: the "
                      "rulebook with allow_overbid: false")
    card.add_argument("--workers", type=WORKERS, default=None,
                      help="processes (default: all cores); does not change the card")
    card.add_argument("--out", metavar="DIR", help="card directory, new or empty (default: a "
                      "new eval_out/<YYYYmmdd-HHMMSS>-scorecard-<spec>)")
    card.add_argument("--overwrite", action="store_true",
                      help="replace the card an earlier scorecard wrote to --out")
    card.add_argument("--no-chart", action="store_true", help="skip scorecard.png")
    add_quiet(card, "no progress")
    add_trust_pickle(card)
    card.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from zavandor_env.eval import scorecard as sc
    from zavandor_env.eval.tournament import default_output_dir

    try:
        if not args.no_chart:  # before any game is played: the chart needs matplotlib
            require("eval", "the chart (--no-chart skips it)", only=["matplotlib"])
        config = sc.ScorecardConfig(
            spec=args.spec, players=tuple(args.players), games=args.games, seed=args.seed,
            opponents=tuple(args.opponents), mcts_iterations=args.mcts_iterations,
            game_options=(sc.game_options_from_file(args.game) if args.game
                          else dict(sc.DEFAULT_GAME_OPTIONS)),
            workers=args.workers, game_file=args.game, trust_pickle=args.trust_pickle,
        )
        sc.plan(config)  # every agent built once: a bad spec or file fails before any game
        existed = args.out is not None and Path(args.out).exists()
        out = (sc.prepare_scorecard_dir(args.out, overwrite=args.overwrite) if args.out
               else sc.prepare_scorecard_dir(default_output_dir(f"scorecard-{args.spec}")))
    except (OSError, ValueError) as exc:
        return fail("scorecard", exc)
    try:
        card = sc.run_scorecard(config, progress=progress_wanted(args))
    except BaseException:
        if not existed:
            remove_if_empty(out)  # leave no empty directory behind a failed run
        raise
    try:  # written before printing: a closed pipe (| head) must not lose the card
        paths = card.write(out, chart=not args.no_chart, replace=args.overwrite)
    except OSError as exc:
        return fail("scorecard", f"cannot write the card to {str(out)!r}: {exc}")
    show(card.text())
    show(f"wrote {len(paths)} file(s) to {out}")
    return 0

