"""What every ``zavandor`` command shares: the parser with one-line errors and "did you mean",
argument types, the one-line failure, examples in ``--help``, and where progress goes."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zavandor_env.io.files import write_atomic
from zavandor_env.io.limits import MAX_WORKERS
from zavandor_env.io.printable import is_terminal, terminal_safe

if TYPE_CHECKING:
    from zavandor_env.eval.run_folder import ReportFolder

#: The exit code of an error the user can fix (a bad value, a missing file).
EXIT_USAGE = 2


class UsageError(ValueError):
    """A command-line value the command refuses (reported on one line, exit code 2)."""


# ---- argument types (argparse turns ArgumentTypeError into a one-line usage error) ---------
def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in ``[low, high]`` (no upper bound when ``high`` is None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low or (high is not None and value > high):
            bounds = f"{low}..{high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bounds}, got {value}")
        return value

    return parse


def seconds(text: str) -> float:
    """An argparse type: a finite time above 0 (NaN or infinity would never end a row)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, "
                                         f"got {text}")
    return value


PLAYERS = int_range(2, 6)
NON_NEGATIVE = int_range(0)
POSITIVE = int_range(1)
#: ``--workers``: processes, at most :data:`zavandor_env.io.limits.MAX_WORKERS`.
WORKERS = int_range(1, MAX_WORKERS)


# ---- "did you mean" -------------------------------------------------------------------------
def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` (or ``'x' or 'y'``) for a typo of a known word (the nearest
    three by difflib's ratio, best first), else ``""``."""
    near = difflib.get_close_matches(word, list(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(k) for k in near)}?" if near else ""


_INVALID_CHOICE = re.compile(r"argument (?P<arg>[^:]+): invalid choice: '?(?P<word>[^' ]*)'? "
                             r"\(choose from (?P<choices>.*)\)$")


def _shorter_choice_error(message: str) -> str:
    """argparse's ``invalid choice: 'evl' (choose from 'bench', ...)`` with the closest choices
    first; a mistyped command reads ``unknown command 'evl'; did you mean 'eval'?``."""
    match = _INVALID_CHOICE.match(message)
    if not match:
        return message
    word = match["word"]
    choices = [c.strip().strip("'\"") for c in match["choices"].split(",")]
    hint = did_you_mean(word, choices)
    if match["arg"].lower() == "command":
        return f"unknown command {word!r}{hint or '; the commands: ' + ', '.join(choices)}"
    listed = hint or "; choose from " + ", ".join(choices)
    return f"argument {match['arg']}: invalid choice {word!r}{listed}"


class ExamplesFormatter(argparse.HelpFormatter):
    """argparse's formatter, but an indented block of the description or epilog (the
    ``examples:``) keeps its lines; prose paragraphs are wrapped as usual."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        filled = []
        for para in text.split("\n\n"):
            kept = any(line.startswith(" ") for line in para.splitlines())
            filled.append(para if kept else super()._fill_text(para, width, indent))
        return "\n\n".join(filled)


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors ``zavandor CMD: message (see 'zavandor CMD
    --help')``, "did you mean" for a mistyped command, choice or option, and examples kept
    as written."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", ExamplesFormatter)
        super().__init__(*args, **kwargs)
        #: The top-level parser's commands by name (filled by ``build_parser``).
        self.commands: dict[str, Parser] = {}

    def error(self, message: str) -> Any:  # argparse's signature returns NoReturn
        self.exit(EXIT_USAGE, f"{self.prog}: {_shorter_choice_error(message)} "
                              f"(see '{self.prog} --help')\n")

    def unrecognized(self, extras: list[str]) -> Any:
        """Refuse the arguments this command does not know, with the nearest of its options."""
        options = [s for action in self._actions for s in action.option_strings]
        hints = [did_you_mean(word.partition("=")[0], options) for word in extras
                 if word.startswith("-")]
        hint = next((h for h in hints if h), "")
        self.error(f"unrecognized argument{'s' if len(extras) > 1 else ''} "
                   f"{' '.join(extras)}{hint}")


def examples(*lines: str) -> str:
    """An ``examples:`` epilog: ``# comment`` lines and commands, each shown as written."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


# ---- output ----------------------------------------------------------------------------------
def fail(command: str, message: object) -> int:
    """One line on stderr (the message may quote a file: its control characters are shown
    escaped, never sent to the terminal) and exit code 2."""
    print(f"zavandor {command}: {terminal_safe(str(message), one_line=True)}", file=sys.stderr)
    return EXIT_USAGE


def show(text: str) -> None:
    """Print a report or a line that holds labels from a file, its control characters escaped."""
    print(terminal_safe(text))


def progress_wanted(args: argparse.Namespace) -> bool:
    """Progress bars only for a person at a terminal: never with ``--quiet``, and never into a
    redirected log (stderr a file or a pipe), which would fill with redrawn bars."""
    return not getattr(args, "quiet", False) and is_terminal(sys.stderr)


def add_quiet(parser: argparse.ArgumentParser, what: str = "no progress bar") -> None:
    """``--quiet``; progress is drawn only on a terminal anyway."""
    parser.add_argument("--quiet", action="store_true",
                        help=f"{what} (none is drawn when stderr is not a terminal)")


def add_trust_pickle(parser: argparse.ArgumentParser) -> None:
    """The one way to let agents unpickle their files: typed by the user, never read from a
    spec (a tournament file or a spec may come from someone else; see agents.registry)."""
    parser.add_argument("--trust-pickle", action="store_true",
                        help="let policy agents load SB3 .zip checkpoints, which are unpickled "
                        "and can run code from the file: only for files you trust (agent "
                        "specs cannot ask for this; convert instead with python -m "
                        "zavandor_env.train.ppo.export FILE.zip)")


# ---- files -----------------------------------------------------------------------------------
def check_writable_file(path: str) -> None:
    """Refuse, before any work, a path that cannot take a file."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise UsageError(f"{path!r} is a directory")
    if not parent.is_dir():
        raise UsageError(f"cannot write {path!r}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"cannot write {path!r}: directory {str(parent)!r} is not writable")


def write_json(path: str, data: Any) -> None:
    """Write ``data`` to ``path`` at once: a full disk leaves the old file or none, never
    one cut short."""
    write_atomic(path, json.dumps(data, indent=2) + "\n")


# ---- commands that play games into a report folder (eval, ladder, scorecard) ---------------
def add_run_options(parser: argparse.ArgumentParser, games: str, default_games: int) -> None:
    """``--players`` (several), ``--games``, ``--seed`` and ``--game`` of a run over several
    player counts (the ladder, the scorecard)."""
    parser.add_argument("--players", type=PLAYERS, nargs="+", default=[2, 4, 6],
                        help="player counts, 2-6 (default: 2 4 6)")
    parser.add_argument("--games", type=POSITIVE, default=default_games,
                        help=f"games per {games}, rounded up to a multiple of the player count "
                        f"(default {default_games})")
    parser.add_argument("--seed", type=NON_NEGATIVE, default=0,
                        help="first deal seed (default 0)")
    parser.add_argument("--game", metavar="YAML", help="game config file for the rules "
                        "(configs/game/*.yaml; its player count is ignored); default: the "
                        "rulebook with allow_overbid: false, as the shipped policies were "
                        "trained")


def add_folder_options(parser: argparse.ArgumentParser, report: str, out_name: str, chart: str,
                       resume: str | None = None, unchanged: str | None = None) -> None:
    """``--workers``, ``--out``, ``--overwrite``, ``--resume`` (when ``resume`` is its help),
    ``--no-chart`` and ``--quiet`` of a command writing ``report`` to a folder, by default a
    new ``eval_out/<YYYYmmdd-HHMMSS>-<out_name>``."""
    parser.add_argument("--workers", type=WORKERS, default=None,
                        help="processes (default: all cores)"
                        + (f"; does not change the {unchanged}" if unchanged else ""))
    parser.add_argument("--out", metavar="DIR", help=f"{report} directory, new or empty "
                        f"(default: a new eval_out/<YYYYmmdd-HHMMSS>-{out_name})")
    parser.add_argument("--overwrite", action="store_true",
                        help=f"replace the {report} an earlier run wrote to --out")
    if resume:
        parser.add_argument("--resume", action="store_true", help=resume)
    parser.add_argument("--no-chart", action="store_true", help=f"skip {chart}")
    add_quiet(parser)


def prepare_folder(args: argparse.Namespace, folder: ReportFolder, run: str,
                   out_name: str) -> tuple[Path, bool]:
    """Before any game: the chart's library, ``--resume`` beside ``--out`` and without
    ``--overwrite``, and ``--out`` (or a new ``eval_out/<date-time>-<out_name>``) checked and
    locked (:meth:`~zavandor_env.eval.run_folder.ReportFolder.prepare`); returns the folder
    and whether it existed before."""
    from zavandor_env.eval.run_folder import default_output_dir
    from zavandor_env.extras import require

    if not args.no_chart:  # the chart needs matplotlib
        require("eval", "the chart (--no-chart skips it)", only=["matplotlib"])
    resume = getattr(args, "resume", False)
    if resume and not args.out:
        raise UsageError(f"--resume continues the interrupted {run} in --out DIR: give --out")
    if resume and args.overwrite:
        raise UsageError(f"give --resume (continue the {run} in --out) or --overwrite (start "
                         "it again), not both")
    existed = args.out is not None and Path(args.out).exists()
    out = folder.prepare(args.out or default_output_dir(out_name), overwrite=args.overwrite,
                         resume=resume)
    return out, existed


def play_into_folder(command: str, folder: ReportFolder, out: Path, existed: bool,
                     play: Callable[[], Any], write: Callable[[Any], list[str]],
                     report: str) -> int:
    """Run ``play()`` for the prepared folder ``out``, then ``write(result)`` (it writes the
    report, before anything is printed: a closed pipe must not lose it, and returns the lines
    to show).  A failure is one line (naming the kept games when ``--resume`` can continue
    them), Ctrl-C exit code 130, and a folder made for the run is not left empty."""
    try:
        result = play()
    except BaseException as exc:
        if not existed:  # leave no empty directory behind a failed run
            with contextlib.suppress(OSError):  # not empty (or already gone): left as it is
                out.rmdir()
        kept = resume_hint(out, folder)
        if isinstance(exc, (ValueError, ConnectionError)):  # a foreign journal; no cluster
            return fail(command, exc)
        if isinstance(exc, OSError):  # a journal cannot grow: a full disk
            return fail(command, f"cannot record the games in {str(out)!r}: "
                        f"{exc.strerror or exc}{kept}")
        if isinstance(exc, KeyboardInterrupt):
            print(f"\nzavandor {command}: interrupted{kept}", file=sys.stderr)
            return 130
        raise
    try:
        lines = write(result)
    except (OSError, ValueError) as exc:
        return fail(command, f"cannot write the {report} to {str(out)!r}: "
                    f"{getattr(exc, 'strerror', None) or exc}{resume_hint(out, folder)}")
    for line in lines:
        show(line)
    return 0


def resume_hint(out: Path, folder: ReportFolder) -> str:
    """What to say about the games kept in ``out`` after a failed or stopped run."""
    kept = sorted(p for p in out.glob("*") if folder.is_journal(p.name) and p.is_file())
    if not kept:
        return ""
    where = kept[0] if len(kept) == 1 else out
    return (f"; the finished games are kept in {str(where)!r}: the same command with "
            f"--resume --out {str(out)!r} plays only the missing ones and writes the report")
