"""``zavandor replay``: step through a saved game, or write it as one offline page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from zavandor_env.cli import common

REPLAY = "my_eval/replays/game_l0_d0000_r0.json"


def add_parser(sub: Any) -> None:
    """Register ``replay`` with the subcommands' action ``sub``."""
    replay = sub.add_parser(
        "replay", help="step through a saved game (replay JSON)",
        description="Prints a saved game (from zavandor play --save, zavandor eval "
        "--save-replays or the browser's download) decision by decision, or writes it as one "
        "self-contained page to open offline.  The file is checked whole before anything is "
        "shown.",
        epilog=common.examples(
            "# save a game first (eval keeps every game's replay)",
            "zavandor eval --agents heuristic random --games 2 --save-replays --out my_eval",
            f"zavandor replay {REPLAY}",
            f"zavandor replay {REPLAY} --every-decision",
            f"zavandor replay {REPLAY} --html game.html"))
    replay.add_argument("file", help="the replay JSON file")
    replay.add_argument("--every-decision", action="store_true",
                        help="print the table before every decision")
    replay.add_argument("--step", action="store_true", help="wait for Enter after each decision")
    replay.add_argument("--html", metavar="OUT", help="write a self-contained page instead "
                        "(board at every decision, controls, action log, VP chart, the "
                        "policy's view when recorded) to open offline in a browser")
    replay.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor replay``; return the exit code."""
    from zavandor_env.engine import ACTION_NAMES, Game, ReplayError
    from zavandor_env.engine.outcome import game_outcome
    from zavandor_env.io.files import UntrustedInputError, load_json
    from zavandor_env.io.printable import terminal_safe
    from zavandor_env.render.text import describe

    try:  # bounded: a deeply nested or huge file is refused in one line, not a RecursionError
        record = load_json(args.file, what="replay")
    except UntrustedInputError as exc:
        return common.fail("replay", exc)
    try:
        final = Game.from_replay_record(record)  # validates the whole file before showing it
    except (ValueError, ReplayError) as exc:
        return common.fail("replay", f"cannot read {args.file}: {exc}")
    if args.html:
        return _html(args, record)
    game = Game.new(final.config, final.seed)
    names = ([terminal_safe(str(name), one_line=True) for name in record["agents"]]
             if isinstance(record.get("agents"), list) else None)
    step_mode = args.step and sys.stdin.isatty()
    for i, action in enumerate(record["actions"]):
        seat = game.current_player
        if args.every_decision or i == 0:
            print(describe(game))
        who = f"player_{seat}" + (f" ({names[seat]})" if names and seat < len(names) else "")
        print(f"[{i + 1}/{len(record['actions'])}] round {game.round}: {who} -> "
              f"{ACTION_NAMES[action]}")
        game.apply(action)
        if step_mode and input("Enter: next decision, q: quit> ").strip().lower() == "q":
            return 0
    print(describe(game))
    outcome = game_outcome(game).describe()
    print(f"Final VP: {game.scores()}; {outcome}" if game.is_over
          else f"Saved before the end: {outcome}")
    return 0


def _html(args: argparse.Namespace, record: dict[str, Any]) -> int:
    """``zavandor replay FILE --html OUT``: the browser viewer, one offline page."""
    from zavandor_env.io.files import write_atomic
    from zavandor_env.web.viewer import render_html

    common.check_writable_file(args.html)
    page = render_html(record, title=f"Zavandor replay: {Path(args.file).name}")
    try:  # at once: a full disk leaves the old page or none, never half of one
        write_atomic(args.html, page)
    except OSError as exc:
        return common.fail("replay", f"cannot write {args.html}: {exc.strerror or exc}")
    print(f"wrote {args.html} ({len(record['actions'])} decisions, "
          f"{len(page.encode()) / 1e6:.1f} MB); open it in a browser (works offline)")
    return 0

