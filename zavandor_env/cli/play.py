"""``zavandor play``: a game against agents in the terminal."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from zavandor_env.cli import common

if TYPE_CHECKING:
    from zavandor_env.agents.base import Agent
    from zavandor_env.engine import Game


def add_parser(sub: Any) -> None:
    """Register ``play`` with the subcommands' action ``sub``."""
    play = sub.add_parser(
        "play", help="play against agents in the terminal",
        description="Your seat's view of the table; answer each decision with its number or "
        "name ('help' explains the actions, 'table' reprints the table, 'quit' stops). Other "
        "players' decisions and every won auction (winner and price) are shown as they happen. "
        "The table is in colour on a terminal, unless --no-colour or the NO_COLOR variable "
        "says otherwise.",
        epilog=common.examples(
            "# you against one heuristic player",
            "zavandor play heuristic",
            "# a 3-player game in the second seat, saved for zavandor replay",
            "zavandor play heuristic random --seat 1 --save game.json",
            "# against the shipped 2-player policy",
            "zavandor play policy:path=train/checkpoints/selfplay_2p/policy.npz"))
    play.add_argument("opponents", nargs="*", default=["heuristic"], metavar="SPEC",
                      help="opponent agents (default: one heuristic)")
    play.add_argument("--seat", type=common.NON_NEGATIVE, default=0, help="your seat (0 = first)")
    play.add_argument("--seed", type=common.NON_NEGATIVE, default=0, help="deal seed (default 0)")
    play.add_argument("--save", metavar="FILE", help="write the game's replay JSON here (also "
                      "when you quit or press Ctrl-C)")
    play.add_argument("--no-colour", "--no-color", dest="no_colour", action="store_true",
                      help="no ANSI colours (there are none when stdout is not a terminal or "
                      "NO_COLOR is set)")
    common.add_trust_pickle(play)
    play.set_defaults(func=run)


def _seats(args: argparse.Namespace) -> list[Agent]:
    """Every seat's agent, the person's at ``--seat``; a bad count, seat or spec raises."""
    from zavandor_env.agents.human import HumanAgent
    from zavandor_env.agents.registry import make_agent
    from zavandor_env.io.printable import colour_wanted

    n = 1 + len(args.opponents)
    if not 2 <= n <= 6:
        raise common.UsageError(f"give 1 to 5 opponents, got {n - 1}")
    if args.seat >= n:
        raise common.UsageError(f"--seat must be 0..{n - 1} in a {n}-player game, got {args.seat}")
    if args.save:
        common.check_writable_file(args.save)
    opponents = [make_agent(spec, seed=args.seed + i, trust_pickle=args.trust_pickle)
                 for i, spec in enumerate(args.opponents)]
    human = HumanAgent(colour=colour_wanted(sys.stdout, refused=args.no_colour))
    return opponents[:args.seat] + [human] + opponents[args.seat:]


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor play``; return the exit code."""
    from zavandor_env.agents.human import AuctionWatcher, QuitGame
    from zavandor_env.engine import ACTION_NAMES, Game, GameConfig
    from zavandor_env.eval.match import play_game

    try:
        agents = _seats(args)
    except (OSError, ValueError) as exc:
        return common.fail("play", exc)
    seat = args.seat
    labels = [a.name for a in agents]
    config = GameConfig(num_players=len(agents))
    watcher = AuctionWatcher(labels)
    latest: list[Game] = []

    def announce(game: Game, who: int, action: int) -> None:
        latest[:] = [game]
        if who != seat:
            print(f"  player_{who} ({labels[who]}): {ACTION_NAMES[action]}")
        for line in watcher.after(game):
            print(f"  {line}")

    def save_so_far() -> str:
        if not args.save:
            return ""
        game = latest[0] if latest else Game.new(config, seed=args.seed)
        try:
            _save_replay(args.save, game, labels)
        except OSError as exc:
            return f"; could not save the game to {args.save}: {exc.strerror or exc}"
        return f"; the game so far is saved to {args.save} (zavandor replay {args.save})"

    print(f"You are player_{seat}. Type 'help' at any prompt, 'quit' to stop. "
          "Decisions are final.")
    try:
        result = play_game(agents, seed=args.seed, config=config, on_decision=announce,
                           labels=labels)
    except QuitGame:
        print(f"game stopped at your request{save_so_far()}")
        return 0
    except KeyboardInterrupt:
        print(file=sys.stderr)  # end the prompt's line
        print(f"zavandor play: interrupted{save_so_far()}", file=sys.stderr)
        return 130
    print(result.outcome.describe())
    if args.save:
        try:
            _save_replay(args.save, latest[0], labels)
        except OSError as exc:
            return common.fail("play", f"could not save the replay to {args.save}: {exc}")
        print(f"replay saved to {args.save}")
    return 0


def _save_replay(path: str, game: Game, labels: list[str]) -> None:
    """Write the game as played so far as a replay record ``zavandor replay`` reads."""
    common.write_json(path, {**game.replay_record(), "agents": labels})
