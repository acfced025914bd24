"""``zavandor eval``: a tournament between agents, its report written to a new directory."""

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
    add_trust_pickle,
    examples,
    fail,
    progress_wanted,
    remove_if_empty,
    show,
)
from zavandor_env.extras import require

POLICY_2P = "policy:path=train/checkpoints/selfplay_2p/policy.npz"


def add_parser(sub: Any) -> None:
    """Register ``eval`` with the subcommands' action ``sub``."""
    from zavandor_env.agents.registry import ENGINE_HELP

    ev = sub.add_parser(
        "eval", help="tournament between agents (win rates, CIs, ratings)",
        description="Plays a tournament and writes summary.json/csv, games.csv, chart.png "
        "(and replays) to --out, by default to a new eval_out/<date-time>-<lineup> directory. "
        "Each finished game is kept in --out/games.jsonl as it ends, so an interrupted run "
        "continues with the same command and --resume --out DIR. "
        "Agents that ask a person (human) cannot sit in a tournament: use zavandor play.",
        epilog=examples(
            "# two rule-based agents, 20 games at 2 players",
            "zavandor eval --agents heuristic random --games 20",
            "# the shipped 2-player policy against the heuristic, replays kept",
            f"zavandor eval --agents {POLICY_2P} heuristic --games 20 --save-replays "
            "--out my_eval",
            "# a shipped tournament file",
            "zavandor eval configs/eval/heuristic_vs_random_2p.yaml --games 8"))
    ev.add_argument("config", nargs="?", help="tournament YAML file (configs/eval/*.yaml)")
    ev.add_argument("--agents", nargs="+", metavar="SPEC",
                    help="agents as name or name:key=value,... (e.g. mcts:iterations=32, "
                    f"random:label=r2); {ENGINE_HELP}")
    ev.add_argument("--players", type=PLAYERS, default=None,
                    help="players per game, 2-6 (default: the YAML's, else 2)")
    ev.add_argument("--games", type=POSITIVE, default=None,
                    help="games per lineup, rounded up to a multiple of the player count "
                    "(default: the YAML's, else 100)")
    ev.add_argument("--seed", type=NON_NEGATIVE, default=None,
                    help="first deal seed, 0 or more (default: the YAML's, else 0)")
    ev.add_argument("--game", metavar="YAML", help="game config file (configs/game/*.yaml): "
                    "rule options and, unless --players is given, the player count")
    ev.add_argument("--workers", type=WORKERS, default=None,
                    help="processes (default: all cores)")
    ev.add_argument("--out", metavar="DIR", help="report directory, new or empty (default: a "
                    "new eval_out/<YYYYmmdd-HHMMSS>-<lineup>)")
    ev.add_argument("--overwrite", action="store_true",
                    help="replace the report an earlier eval wrote to --out")
    ev.add_argument("--resume", action="store_true",
                    help="continue the interrupted eval in --out: the games it finished "
                    "(kept in games.jsonl as each ends) are not played again; give the same "
                    "agents, players, games, seed and rules (refused otherwise)")
    ev.add_argument("--save-replays", action="store_true", help="write every game's replay")
    ev.add_argument("--no-chart", action="store_true", help="skip chart.png")
    add_quiet(ev)
    ev.add_argument("--ray", action="store_true", help="play the games as Ray tasks (same "
                    "seeds, same results as the process pool; needs the [ray] extra): on a "
                    "local Ray started for the run, or on the cluster at --address")
    ev.add_argument("--address", metavar="ADDR", default=None, help="with --ray: join this "
                    "Ray cluster ('auto' on one of its nodes, or ray://HEAD:10001)")
    add_trust_pickle(ev)
    ev.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from zavandor_env.eval.tournament import (
        JOURNAL_FILE,
        JournalError,
        RayConnectionError,
        TournamentReport,
        check_agents,
        prepare_output_dir,
        run_tournament,
    )

    try:
        if not args.no_chart:  # before any game is played: the chart needs matplotlib
            require("eval", "the chart (--no-chart skips it)", only=["matplotlib"])
        config = _eval_config(args)
        human = [spec.label for spec in config.agents if spec.interactive]
        if human:
            raise UsageError(
                f"agent {human[0]!r} asks a person for every decision and cannot sit in a "
                "tournament; to play against agents use `zavandor play AGENT...`"
            )
        _check_ray_options(args)  # before any directory or game: --ray without Ray
        _check_resume_options(args)
        check_agents(config)  # a missing policy file fails here, not in a worker
        existed = args.out is not None and Path(args.out).exists()
        out = (prepare_output_dir(args.out, overwrite=args.overwrite, resume=args.resume)
               if args.out else _new_output_dir(args, config))
    except (OSError, ValueError) as exc:
        return fail("eval", exc)
    journal = out / JOURNAL_FILE
    try:  # every finished game is in the journal at once: a killed run loses none
        records = run_tournament(config, progress=progress_wanted(args), use_ray=args.ray,
                                 address=args.address, journal=journal, resume=args.resume)
    except BaseException as exc:
        if not existed:
            remove_if_empty(out)  # leave no empty directory behind a failed run
        if isinstance(exc, (RayConnectionError, JournalError)):  # no cluster; not this run's
            return fail("eval", exc)
        kept = _resume_hint(journal)
        if isinstance(exc, OSError):  # the journal cannot grow: a full disk
            return fail("eval", f"cannot record the games in {str(journal)!r}: "
                         f"{exc.strerror or exc}{kept}")
        if isinstance(exc, KeyboardInterrupt):
            print(f"\nzavandor eval: interrupted{kept}", file=sys.stderr)
            return 130
        raise
    report = TournamentReport.build(config, records)
    try:  # written before printing: a closed pipe (| head) must not lose the results
        paths = report.write(out, chart=not args.no_chart, replace=args.overwrite or args.resume)
    except OSError as exc:
        return fail("eval", f"cannot write the report to {str(out)!r}: "
                     f"{exc.strerror or exc}{_resume_hint(journal)}")
    show(report.text())
    show(f"wrote {len(paths)} file(s) to {out}")
    return 0


def _check_resume_options(args: argparse.Namespace) -> None:
    """``--resume`` continues the run in ``--out``: it needs one, and replaces nothing."""
    if args.resume and not args.out:
        raise UsageError("--resume continues the interrupted run in --out DIR: give --out")
    if args.resume and args.overwrite:
        raise UsageError("give --resume (continue the run in --out) or --overwrite (start "
                         "it again), not both")


def _resume_hint(journal: Path) -> str:
    """What to say about the games kept in ``journal`` after a failed or stopped run."""
    if not journal.is_file():
        return ""
    return (f"; the finished games are kept in {str(journal)!r}: the same command with "
            f"--resume --out {str(journal.parent)!r} plays only the missing ones and writes "
            "the report")


def _check_ray_options(args: argparse.Namespace) -> None:
    """Refuse ``--address`` without ``--ray``, and ``--ray`` where Ray is not installed."""
    from zavandor_env.eval.tournament import RayMissingError, import_ray

    if args.address and not args.ray:
        raise UsageError("--address names the Ray cluster to play on: give --ray too")
    if args.ray:
        try:
            import_ray("--ray")
        except RayMissingError as exc:
            raise UsageError(str(exc)) from None


def _eval_config(args: argparse.Namespace) -> Any:
    from zavandor_env.agents.registry import parse_spec
    from zavandor_env.eval.tournament import TournamentConfig

    if args.config:
        if args.agents:
            raise UsageError("give either a tournament YAML file or --agents, not both")
        config = TournamentConfig.from_yaml(
            args.config, num_players=args.players, games=args.games, seed=args.seed,
            workers=args.workers, save_replays=args.save_replays or None,
        )
    elif not args.agents:
        raise UsageError("give --agents or a tournament YAML file")
    else:
        config = TournamentConfig(
            agents=[parse_spec(a) for a in args.agents],
            num_players=2 if args.players is None else args.players,
            games=100 if args.games is None else args.games,
            seed=0 if args.seed is None else args.seed,
            workers=args.workers, save_replays=args.save_replays,
        )
    if args.game:
        config = _with_game_file(config, args.game, players_given=args.players is not None)
    if args.trust_pickle:  # the caller's consent, for every agent (no spec can give it)
        import dataclasses

        config = dataclasses.replace(config, agents=[s.trusting() for s in config.agents])
    return config


def _new_output_dir(args: argparse.Namespace, config: Any) -> Path:
    """``eval_out/<YYYYmmdd-HHMMSS>-<lineup>``, new for this run."""
    from zavandor_env.eval.tournament import default_output_dir, prepare_output_dir

    name = Path(args.config).stem if args.config else "-".join(s.label for s in config.agents)
    return prepare_output_dir(default_output_dir(name))


def _with_game_file(config, path: str, players_given: bool):  # noqa: ANN001, ANN202
    """The tournament with the rule options (and, unless --players is given, the player
    count) of a game config file."""
    import dataclasses

    from zavandor_env.engine import GameConfig

    game = GameConfig.from_yaml(path).to_dict()
    players = game.pop("num_players")
    options = {k: v for k, v in game.items() if v != getattr(GameConfig, k, None)}
    return dataclasses.replace(  # re-validated: e.g. chosen characters must fit --players
        config,
        num_players=config.num_players if players_given else players,
        game_options={**config.game_options, **options},
    )

