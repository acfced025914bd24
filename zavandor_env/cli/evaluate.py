"""``zavandor eval``: a tournament between agents, its report written to a new directory."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zavandor_env.cli import common

POLICY_2P = "policy:path=train/checkpoints/selfplay_2p/policy.npz"


def add_parser(sub: Any) -> None:
    """Register ``eval`` with the subcommands' action ``sub``."""
    ev = sub.add_parser(
        "eval", help="tournament between agents (win rates, CIs, ratings)",
        description="Plays a tournament and writes summary.json/csv, games.csv, chart.png "
        "(and replays) to --out, by default to a new eval_out/<date-time>-<lineup> directory. "
        "Each finished game is kept in --out/games.jsonl as it ends, so an interrupted run "
        "continues with the same command and --resume --out DIR. "
        "Agents that ask a person (human) cannot sit in a tournament: use zavandor play.",
        epilog=common.examples(
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
                    "random:label=r2), or a class of your own as python:module:Class[,key=value"
                    "...] (the module must be importable; only here, never from a file)")
    ev.add_argument("--players", type=common.PLAYERS, default=None,
                    help="players per game, 2-6 (default: the YAML's, else 2)")
    ev.add_argument("--games", type=common.POSITIVE, default=None,
                    help="games per lineup, rounded up to a multiple of the player count "
                    "(default: the YAML's, else 100)")
    ev.add_argument("--seed", type=common.NON_NEGATIVE, default=None,
                    help="first deal seed, 0 or more (default: the YAML's, else 0)")
    ev.add_argument("--game", metavar="YAML", help="game config file (configs/game/*.yaml): "
                    "rule options and, unless --players is given, the player count")
    ev.add_argument("--save-replays", action="store_true", help="write every game's replay")
    common.add_folder_options(ev, "report", "<lineup>", "chart.png", resume="continue the "
                              "interrupted eval in --out: the games it finished (kept in "
                              "games.jsonl as each ends) are not played again; give the same "
                              "agents, players, games, seed and rules (refused otherwise)")
    ev.add_argument("--ray", action="store_true", help="play the games as Ray tasks (same "
                    "seeds, same results as the process pool; needs the [ray] extra): on a "
                    "local Ray started for the run, or on the cluster at --address")
    ev.add_argument("--address", metavar="ADDR", default=None, help="with --ray: join this "
                    "Ray cluster ('auto' on one of its nodes, or ray://HEAD:10001)")
    common.add_trust_pickle(ev)
    ev.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor eval``; return the exit code."""
    from zavandor_env.eval.tournament import check_agents
    from zavandor_env.eval.tournament_journal import JOURNAL_FILE
    from zavandor_env.eval.tournament_report import EVAL_FOLDER, TournamentReport
    from zavandor_env.eval.tournament_run import run_tournament

    try:
        config = _eval_config(args)
        human = [spec.label for spec in config.agents if spec.interactive]
        if human:
            raise common.UsageError(
                f"agent {human[0]!r} asks a person for every decision and cannot sit in a "
                "tournament; to play against agents use `zavandor play AGENT...`"
            )
        _check_ray_options(args)  # before any directory or game: --ray without Ray
        check_agents(config)  # a missing policy file fails here, not in a worker
        name = Path(args.config).stem if args.config else "-".join(s.label for s in config.agents)
        out, existed = common.prepare_folder(args, EVAL_FOLDER, "run", name)
    except (OSError, ValueError) as exc:
        return common.fail("eval", exc)

    def play() -> TournamentReport:  # every finished game is in the journal at once
        records = run_tournament(config, progress=common.progress_wanted(args), use_ray=args.ray,
                                 address=args.address, journal=out / JOURNAL_FILE,
                                 resume=args.resume)
        return TournamentReport.build(config, records)

    def write(report: TournamentReport) -> list[str]:
        paths = report.write(out, chart=not args.no_chart, replace=args.overwrite or args.resume)
        return [report.text(), f"wrote {len(paths)} file(s) to {out}"]

    return common.play_into_folder("eval", EVAL_FOLDER, out, existed, play, write, "report")


def _check_ray_options(args: argparse.Namespace) -> None:
    """Refuse ``--address`` without ``--ray``, and ``--ray`` where Ray is not installed."""
    from zavandor_env.eval.ray_cluster import RayMissingError, import_ray

    if args.address and not args.ray:
        raise common.UsageError("--address names the Ray cluster to play on: give --ray too")
    if args.ray:
        try:
            import_ray("--ray")
        except RayMissingError as exc:
            raise common.UsageError(str(exc)) from None


def _eval_config(args: argparse.Namespace) -> Any:
    """The tournament of the command line: a tournament file or ``--agents``, the flags given
    replacing its values, the rule options (and, unless ``--players`` is given, the player
    count) of ``--game``, and ``--trust-pickle`` for every agent."""
    import dataclasses

    from zavandor_env.agents.registry import parse_spec
    from zavandor_env.engine import GameConfig
    from zavandor_env.eval.tournament import TournamentConfig

    given = {"num_players": args.players, "games": args.games, "seed": args.seed,
             "workers": args.workers, "save_replays": args.save_replays or None}
    if args.config and args.agents:
        raise common.UsageError("give either a tournament YAML file or --agents, not both")
    if not (args.config or args.agents):
        raise common.UsageError("give --agents or a tournament YAML file")
    config = (TournamentConfig.from_yaml(args.config, **given) if args.config else
              TournamentConfig([parse_spec(a, allow_import=True) for a in args.agents],
                               **{k: v for k, v in given.items() if v is not None}))
    changes: dict[str, Any] = {}
    if args.game:
        game = GameConfig.from_yaml(args.game).to_dict()
        players = game.pop("num_players")
        changes["game_options"] = {**config.game_options, **{
            k: v for k, v in game.items() if v != getattr(GameConfig, k, None)}}
        if args.players is None:
            changes["num_players"] = players
    if args.trust_pickle:  # the caller's consent, for every agent (no spec can give it)
        changes["agents"] = [s.trusting() for s in config.agents]
    # Re-validated: e.g. chosen characters must fit --players.
    return dataclasses.replace(config, **changes)
