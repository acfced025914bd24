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
            from .envs.bench import bench_env_section
        except ImportError:
            return 0
        bench_env_section(args)
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from zavandor_env.agents.registry import parse_spec
    from zavandor_env.agents.tournament import TournamentConfig, TournamentReport, run_tournament

    try:
        if args.config:
            config = TournamentConfig.from_yaml(
                args.config, num_players=args.players, games=args.games, seed=args.seed,
                workers=args.workers, save_replays=args.save_replays or None,
            )
        else:
            if not args.agents:
                print("zavandor eval: give --agents or a tournament YAML file", file=sys.stderr)
                return 2
            config = TournamentConfig(
                agents=[parse_spec(a) for a in args.agents], num_players=args.players or 2,
                games=args.games or 100, seed=args.seed or 0, workers=args.workers,
                save_replays=args.save_replays,
            )
        if args.game:
            config = _with_game_file(config, args.game, players_given=args.players is not None)
    except (OSError, ValueError) as exc:
        print(f"zavandor eval: {exc}", file=sys.stderr)
        return 2
    records = run_tournament(config, progress=not args.quiet)
    report = TournamentReport.build(config, records)
    print(report.text())
    if args.out:
        paths = report.write(args.out, chart=not args.no_chart)
        print(f"wrote {len(paths)} file(s) to {args.out}")
    return 0


def _with_game_file(config, path: str, players_given: bool):  # noqa: ANN001, ANN202
    """The tournament with the rule options (and, unless --players is given, the player
    count) of a game config file."""
    import dataclasses

    from .engine import GameConfig

    game = GameConfig.from_yaml(path).to_dict()
    players = game.pop("num_players")
    options = {k: v for k, v in game.items() if v != getattr(GameConfig, k, None)}
    return dataclasses.replace(  # re-validated: e.g. chosen characters must fit --players
        config,
        num_players=config.num_players if players_given else players,
        game_options={**config.game_options, **options},
    )


def _cmd_play(args: argparse.Namespace) -> int:
    from zavandor_env.agents.human import HumanAgent
    from zavandor_env.agents.match import play_game
    from zavandor_env.agents.registry import make_agent

    from .engine import ACTION_NAMES, GameConfig

    n = 1 + len(args.opponents)
    if not 2 <= n <= 6:
        print("zavandor play: give 1 to 5 opponents", file=sys.stderr)
        return 2
    try:
        opponents = [make_agent(spec, seed=args.seed + i) for i, spec in enumerate(args.opponents)]
    except ValueError as exc:
        print(f"zavandor play: {exc}", file=sys.stderr)
        return 2
    seat = args.seat % n
    agents = opponents[:seat] + [HumanAgent(colour=not args.no_colour)] + opponents[seat:]

    def announce(game: object, who: int, action: int) -> None:
        if who != seat:
            print(f"  player_{who} ({agents[who].name}): {ACTION_NAMES[action]}")

    print(f"You are player_{seat}. Type 'help' at any prompt. Decisions are final.")
    try:
        result = play_game(agents, seed=args.seed, config=GameConfig(num_players=n),
                           on_decision=announce, record_replay=bool(args.save))
    except KeyboardInterrupt:
        print("\ngame abandoned")
        return 130
    print(f"Final VP: {result.scores}; winners: {[f'player_{w}' for w in result.winners]}")
    if args.save:
        import json

        with open(args.save, "w", encoding="utf-8") as fh:
            json.dump(result.replay, fh)
        print(f"replay saved to {args.save}")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    import json

    from .engine import ACTION_NAMES, Game, ReplayError
    from .engine.text import describe

    try:
        with open(args.file, encoding="utf-8") as fh:
            record = json.load(fh)
        final = Game.from_replay_record(record)  # validates the whole file before showing it
    except (OSError, json.JSONDecodeError, ReplayError) as exc:
        print(f"zavandor replay: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    game = Game.new(final.config, final.seed)
    names = record.get("agents") if isinstance(record.get("agents"), list) else None
    step_mode = args.step and sys.stdin.isatty()
    for i, action in enumerate(record["actions"]):
        seat = game.current_player
        if args.every_decision or i == 0:
            print(describe(game))
        who = f"player_{seat}" + (f" ({names[seat]})" if names and seat < len(names) else "")
        print(f"[{i + 1}/{len(record['actions'])}] round {game.state.round}: {who} -> "
              f"{ACTION_NAMES[action]}")
        game.apply(action)
        if step_mode and input("Enter: next decision, q: quit> ").strip().lower() == "q":
            return 0
    print(describe(game))
    print(f"Final VP: {game.scores()}; winners: {game.winners()}")
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    from zavandor_env.train.cli import run

    return run(args)


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

    ev = sub.add_parser("eval", help="tournament between agents (win rates, CIs, ratings)")
    ev.add_argument("config", nargs="?", help="tournament YAML file (configs/eval/*.yaml)")
    ev.add_argument("--agents", nargs="+", metavar="SPEC",
                    help="agents as name or name:key=value,... (e.g. mcts:iterations=32)")
    ev.add_argument("--players", type=int, default=None, help="players per game (2-6)")
    ev.add_argument("--games", type=int, default=None, help="games per lineup")
    ev.add_argument("--seed", type=int, default=None, help="first deal seed")
    ev.add_argument("--game", metavar="YAML", help="game config file (configs/game/*.yaml): "
                    "rule options and, unless --players is given, the player count")
    ev.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    ev.add_argument("--out", help="directory for summary.json/csv, games.csv, chart.png")
    ev.add_argument("--save-replays", action="store_true", help="write every game to --out")
    ev.add_argument("--no-chart", action="store_true")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(func=_cmd_eval)

    play = sub.add_parser("play", help="play against agents in the terminal")
    play.add_argument("opponents", nargs="*", default=["heuristic"], metavar="SPEC",
                      help="opponent agents (default: one heuristic)")
    play.add_argument("--seat", type=int, default=0, help="your seat")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--save", help="write the game's replay JSON here")
    play.add_argument("--no-colour", action="store_true")
    play.set_defaults(func=_cmd_play)

    replay = sub.add_parser("replay", help="step through a saved game (replay JSON)")
    replay.add_argument("file")
    replay.add_argument("--every-decision", action="store_true",
                        help="print the table before every decision")
    replay.add_argument("--step", action="store_true", help="wait for Enter after each decision")
    replay.set_defaults(func=_cmd_replay)

    from zavandor_env.train.cli import add_arguments as add_train_arguments  # argparse only: light

    train = sub.add_parser("train", help="self-play MaskablePPO training (TensorBoard, "
                           "checkpoints, --resume); no arguments: a short quick run")
    add_train_arguments(train)
    train.set_defaults(func=_cmd_train)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
