"""The zavandor command: bench / eval / scorecard / ladder / play / selfcheck / replay / serve /
train / publish / exploit.

One module per command (``zavandor_env.cli.<command>``: its parser and its driver); the
shared parts (one-line errors with "did you mean", argument types, examples in ``--help``,
progress only on a terminal) are in :mod:`zavandor_env.cli.common`.

Errors a user can make (a bad value, a missing file, an unknown agent, a mistyped command or
option) end with one line on stderr, ``zavandor COMMAND: message``, and exit code 2, never a
traceback; Ctrl-C ends with one line and exit code 130.  ``zavandor`` alone prints the help.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from zavandor_env.cli import (
    bench,
    evaluate,
    exploit,
    ladder,
    play,
    replay,
    scorecard,
    selfcheck,
    serve,
)
from zavandor_env.cli.common import Parser, UsageError, examples, fail
from zavandor_env.cli.train import add_publish_parser, add_train_parser

__all__ = ["UsageError", "build_parser", "main", "package_version"]

#: Each command's ``add_parser(sub)``, in the order ``zavandor --help`` lists them.
COMMANDS = (
    ("bench", bench.add_parser), ("eval", evaluate.add_parser),
    ("scorecard", scorecard.add_parser), ("ladder", ladder.add_parser),
    ("play", play.add_parser), ("selfcheck", selfcheck.add_parser),
    ("replay", replay.add_parser), ("serve", serve.add_parser),
    ("train", add_train_parser), ("publish", add_publish_parser),
    ("exploit", exploit.add_parser),
)


def package_version() -> str:
    """The installed zavandor-env's version (the package's ``__version__``, the one source
    the build reads too)."""
    from zavandor_env import __version__

    return __version__


def build_parser() -> Parser:
    """The ``zavandor`` parser with every command."""
    parser = Parser(
        prog="zavandor", description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog=examples("# a tournament, then one of its games in the browser",
                        "zavandor eval --agents heuristic random --games 4 --save-replays "
                        "--out my_eval",
                        "zavandor replay my_eval/replays/game_l0_d0000_r0.json --html game.html",
                        "# play in the terminal; train a policy (the short quick run)",
                        "zavandor play heuristic",
                        "zavandor train",
                        "# each command's options and examples",
                        "zavandor eval --help"))
    parser.add_argument("--version", action="version", version=f"zavandor {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=Parser)
    for name, add in COMMANDS:
        add(sub)
        parser.commands[name] = sub.choices[name]
    return parser


def _quiet_broken_pipe() -> int:
    """The reader went away (``zavandor replay FILE | head``): stop without a traceback, and
    keep Python's exit-time flush of stdout from failing again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file descriptor (embedded use): nothing will flush to the pipe
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``zavandor ARGS`` (``argv``, default ``sys.argv[1:]``); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:  # a first look: what the commands are, not an error
        parser.print_help()
        return 0
    args, extras = parser.parse_known_args(argv)
    if extras:  # named by the command that refused them, with its nearest options
        parser.commands[args.command].unrecognized(extras)
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:  # a value refused by a check the parser cannot make
        return fail(args.command, exc)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print(f"\nzavandor {args.command}: interrupted", file=sys.stderr)
        return 130
