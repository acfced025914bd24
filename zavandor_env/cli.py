"""The zavandor command: play / serve / train / eval / scorecard / ladder / bench / selfcheck /
replay.

Errors a user can make (a bad value, a missing file, an unknown agent) end with one line on
stderr and exit code 2, never a traceback; Ctrl-C ends with one line and exit code 130.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bench import BenchRow, RecordedGame
    from .engine import Game


class UsageError(ValueError):
    """A command-line value the command refuses (reported on one line, exit code 2)."""


# ---- argument types (argparse turns ArgumentTypeError into a one-line usage error) ---------
def _int_range(low: int, high: int | None = None) -> Callable[[str], int]:
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

    parse.__name__ = "integer"
    return parse


def _seconds(text: str) -> float:
    """An argparse type: a finite time above 0 (NaN or infinity would never end a row)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, "
                                         f"got {text}")
    return value


PLAYERS = _int_range(2, 6)
NON_NEGATIVE = _int_range(0)
POSITIVE = _int_range(1)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (the usage itself is one ``--help`` away)."""

    def error(self, message: str) -> Any:  # argparse's signature returns NoReturn
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _fail(command: str, message: object) -> int:
    """One line on stderr (the message may quote a file: its control characters are shown
    escaped, never sent to the terminal) and exit code 2."""
    from .engine.printable import terminal_safe

    print(f"zavandor {command}: {terminal_safe(str(message), one_line=True)}", file=sys.stderr)
    return 2


def _show(text: str) -> None:
    """Print a report or a line that holds labels from a file, its control characters escaped."""
    from .engine.printable import terminal_safe

    print(terminal_safe(text))


# ---- bench ------------------------------------------------------------------------------
def _cmd_bench(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .bench import engine_section
    from .engine import native_available, native_status

    if args.json:
        try:
            _check_writable_file(args.json)
        except UsageError as exc:
            return _fail("bench", exc)
    native = native_available() and not args.python_only
    rows: list[BenchRow] = []
    recorded: dict[int, list[RecordedGame]] = {}
    for n in tqdm(args.players, desc="engine", unit="config", disable=args.quiet):
        section, recorded[n] = engine_section(n, args.seconds, args.seed, native)
        rows += section
    print("Engine (one process, one core; ratio: to the [python] row of the same kind):")
    if not native:
        print(f"  ({native_status() if not native_available() else 'native rows skipped'})")
    for row in rows:
        print("  " + row.text() + _ratio_to_python(row, rows))
    if not args.engine_only:
        try:
            from .envs.bench import bench_env_section
        except ImportError as exc:  # pettingzoo not installed: engine rows only
            print(f"  (skipped the environment rows: {exc})")
        else:
            from functools import partial

            from .bench import native_extras

            extras = partial(native_extras, seconds=args.seconds, seed=args.seed)
            rows += bench_env_section(args.players, args.seconds, args.seed, recorded,
                                      native=native, extras=extras if native else None)
    if args.json:
        try:
            _write_json(args.json, [row.to_dict() for row in rows])
        except OSError as exc:
            return _fail("bench", f"cannot write {args.json}: {exc.strerror or exc}")
        print(f"wrote {len(rows)} rows to {args.json}")
    return 0


def _ratio_to_python(row: BenchRow, rows: list[BenchRow]) -> str:
    """``  52.1x python`` for a native row beside its ``[python]`` twin (same name with the
    backend tag replaced, same player count)."""
    import re

    if "[native" not in row.name:
        return ""
    twin = re.sub(r"\[native[^\]]*\]", "[python]", row.name)
    for other in rows:
        if other.players == row.players and other.name == twin:
            return f"  {row.per_second / other.per_second:>7.1f}x python"
    return ""


def _check_writable_file(path: str) -> None:
    """Refuse, before any work, a path that cannot take a file."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise UsageError(f"{path!r} is a directory")
    if not parent.is_dir():
        raise UsageError(f"cannot write {path!r}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"cannot write {path!r}: directory {str(parent)!r} is not writable")


def _write_json(path: str, data: Any) -> None:
    """Write ``data`` to ``path`` at once: a full disk leaves the old file or none, never
    one cut short."""
    import json

    from .io.files import write_atomic

    write_atomic(path, json.dumps(data, indent=2) + "\n")


# ---- eval -------------------------------------------------------------------------------
def _cmd_eval(args: argparse.Namespace) -> int:
    from zavandor_env.agents.tournament import (
        JOURNAL_FILE,
        JournalError,
        RayConnectionError,
        TournamentReport,
        check_agents,
        prepare_output_dir,
        run_tournament,
    )

    try:
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
        return _fail("eval", exc)
    journal = out / JOURNAL_FILE
    try:  # every finished game is in the journal at once: a killed run loses none
        records = run_tournament(config, progress=not args.quiet, use_ray=args.ray,
                                 address=args.address, journal=journal, resume=args.resume)
    except BaseException as exc:
        if not existed:
            _remove_if_empty(out)  # leave no empty directory behind a failed run
        if isinstance(exc, (RayConnectionError, JournalError)):  # no cluster; not this run's
            return _fail("eval", exc)
        kept = _resume_hint(journal)
        if isinstance(exc, OSError):  # the journal cannot grow: a full disk
            return _fail("eval", f"cannot record the games in {str(journal)!r}: "
                         f"{exc.strerror or exc}{kept}")
        if isinstance(exc, KeyboardInterrupt):
            print(f"\nzavandor eval: interrupted{kept}", file=sys.stderr)
            return 130
        raise
    report = TournamentReport.build(config, records)
    try:  # written before printing: a closed pipe (| head) must not lose the results
        paths = report.write(out, chart=not args.no_chart, replace=args.overwrite or args.resume)
    except OSError as exc:
        return _fail("eval", f"cannot write the report to {str(out)!r}: "
                     f"{exc.strerror or exc}{_resume_hint(journal)}")
    _show(report.text())
    _show(f"wrote {len(paths)} file(s) to {out}")
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
    from zavandor_env.agents.tournament import RayMissingError, import_ray

    if args.address and not args.ray:
        raise UsageError("--address names the Ray cluster to play on: give --ray too")
    if args.ray:
        try:
            import_ray("--ray")
        except RayMissingError as exc:
            raise UsageError(str(exc)) from None


def _eval_config(args: argparse.Namespace) -> Any:
    from zavandor_env.agents.registry import parse_spec
    from zavandor_env.agents.tournament import TournamentConfig

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
    from zavandor_env.agents.tournament import default_output_dir, prepare_output_dir

    name = Path(args.config).stem if args.config else "-".join(s.label for s in config.agents)
    return prepare_output_dir(default_output_dir(name))


def _remove_if_empty(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass  # not empty (or already gone): nothing to tidy


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


# ---- scorecard --------------------------------------------------------------------------
def _cmd_scorecard(args: argparse.Namespace) -> int:
    from zavandor_env.agents import scorecard as sc
    from zavandor_env.agents.tournament import default_output_dir

    try:
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
        return _fail("scorecard", exc)
    try:
        card = sc.run_scorecard(config, progress=not args.quiet)
    except BaseException:
        if not existed:
            _remove_if_empty(out)  # leave no empty directory behind a failed run
        raise
    try:  # written before printing: a closed pipe (| head) must not lose the card
        paths = card.write(out, chart=not args.no_chart, replace=args.overwrite)
    except OSError as exc:
        return _fail("scorecard", f"cannot write the card to {str(out)!r}: {exc}")
    _show(card.text())
    _show(f"wrote {len(paths)} file(s) to {out}")
    return 0


# ---- ladder -----------------------------------------------------------------------------
def _cmd_ladder(args: argparse.Namespace) -> int:
    from zavandor_env.agents import ladder as ld
    from zavandor_env.agents import scorecard as sc
    from zavandor_env.agents.tournament import JournalError, default_output_dir

    try:
        if args.resume and not args.out:
            raise UsageError("--resume continues the interrupted ladder in --out DIR: give --out")
        if args.resume and args.overwrite:
            raise UsageError("give --resume (continue the ladder in --out) or --overwrite "
                             "(start it again), not both")
        config = ld.LadderConfig(
            players=tuple(args.players), games=args.games, seed=args.seed,
            agents=tuple(args.agents) if args.agents else None,
            game_options=(sc.game_options_from_file(args.game) if args.game
                          else dict(sc.DEFAULT_GAME_OPTIONS)),
            workers=args.workers, game_file=args.game,
        )
        ld.plan(config)  # every agent built once: a bad spec or file fails before any game
        if args.update_doc:
            ld.check_doc(args.update_doc)
        existed = args.out is not None and Path(args.out).exists()
        out = (ld.prepare_ladder_dir(args.out, overwrite=args.overwrite, resume=args.resume)
               if args.out else ld.prepare_ladder_dir(default_output_dir("ladder")))
    except (OSError, ValueError) as exc:
        return _fail("ladder", exc)
    try:
        ladder = ld.run_ladder(config, progress=not args.quiet, out_dir=out,
                               resume=args.resume, probe=not args.no_cost)
    except JournalError as exc:
        return _fail("ladder", exc)
    except BaseException as exc:
        if not existed:
            _remove_if_empty(out)
        if isinstance(exc, KeyboardInterrupt):
            print(f"\nzavandor ladder: interrupted; the finished games are kept in "
                  f"{str(out)!r}: the same command with --resume --out {str(out)!r} plays "
                  "only the missing ones", file=sys.stderr)
            return 130
        raise
    try:  # written before printing: a closed pipe (| head) must not lose the ladder
        paths = ladder.write(out, chart=not args.no_chart, replace=True)
        if args.update_doc:
            paths.append(ld.update_doc(args.update_doc, ladder))
    except (OSError, ValueError) as exc:
        return _fail("ladder", f"cannot write the ladder: {exc}")
    _show(ladder.text())
    _show(f"wrote {len(paths)} file(s) to {out}" if not args.update_doc
          else f"wrote {len(paths) - 1} file(s) to {out} and updated {args.update_doc}")
    return 0


# ---- play -------------------------------------------------------------------------------
def _cmd_play(args: argparse.Namespace) -> int:
    from zavandor_env.agents.human import AuctionWatcher, HumanAgent, QuitGame
    from zavandor_env.agents.match import play_game
    from zavandor_env.agents.registry import make_agent

    from .engine import ACTION_NAMES, Game, GameConfig

    n = 1 + len(args.opponents)
    try:
        if not 2 <= n <= 6:
            raise UsageError(f"give 1 to 5 opponents, got {n - 1}")
        if args.seat >= n:
            raise UsageError(f"--seat must be 0..{n - 1} in a {n}-player game, got {args.seat}")
        if args.save:
            _check_writable_file(args.save)
        opponents = [make_agent(spec, seed=args.seed + i, trust_pickle=args.trust_pickle)
                     for i, spec in enumerate(args.opponents)]
    except (OSError, ValueError) as exc:
        return _fail("play", exc)
    seat = args.seat
    agents = opponents[:seat] + [HumanAgent(colour=not args.no_colour)] + opponents[seat:]
    labels = [a.name for a in agents]
    config = GameConfig(num_players=n)
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
            return _fail("play", f"could not save the replay to {args.save}: {exc}")
        print(f"replay saved to {args.save}")
    return 0


def _save_replay(path: str, game: Game, labels: list[str]) -> None:
    """Write the game as played so far as a replay record ``zavandor replay`` reads."""
    _write_json(path, {**game.replay_record(), "agents": labels})


# ---- replay -----------------------------------------------------------------------------
def _cmd_replay(args: argparse.Namespace) -> int:
    from .engine import ACTION_NAMES, Game, ReplayError
    from .io.files import UntrustedInputError, load_json
    from .engine.outcome import game_outcome
    from .engine.printable import terminal_safe
    from .engine.text import describe

    try:  # bounded: a deeply nested or huge file is refused in one line, not a RecursionError
        record = load_json(args.file, what="replay")
    except UntrustedInputError as exc:
        return _fail("replay", exc)
    try:
        final = Game.from_replay_record(record)  # validates the whole file before showing it
    except (ValueError, ReplayError) as exc:
        return _fail("replay", f"cannot read {args.file}: {exc}")
    if args.html:
        return _replay_html(args, record)
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


def _replay_html(args: argparse.Namespace, record: dict[str, Any]) -> int:
    """``zavandor replay FILE --html OUT``: the browser viewer, one offline page."""
    from zavandor_env.web.viewer import render_html

    from .io.files import write_atomic

    try:
        _check_writable_file(args.html)
    except UsageError as exc:
        return _fail("replay", exc)
    page = render_html(record, title=f"Zavandor replay: {Path(args.file).name}")
    try:  # at once: a full disk leaves the old page or none, never half of one
        write_atomic(args.html, page)
    except OSError as exc:
        return _fail("replay", f"cannot write {args.html}: {exc.strerror or exc}")
    print(f"wrote {args.html} ({len(record['actions'])} decisions, "
          f"{len(page.encode()) / 1e6:.1f} MB); open it in a browser (works offline)")
    return 0


# ---- selfcheck --------------------------------------------------------------------------
def _cmd_selfcheck(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .engine import native_available, native_status
    from .selfcheck import BackendMismatch, run_selfcheck

    if not native_available():
        return _fail("selfcheck", native_status())

    def progress(jobs: Any) -> Any:
        total = len(args.players) * args.games
        return tqdm(jobs, total=total, desc="selfcheck", unit="game", disable=args.quiet)

    try:
        report = run_selfcheck(args.players, args.games, args.seed, progress=progress)
    except BackendMismatch as exc:
        print(f"zavandor selfcheck: BACKENDS DIFFER: {exc}", file=sys.stderr)
        return 1
    print(report.text())
    return 0


# ---- serve ------------------------------------------------------------------------------
def _host_name(text: str) -> str:
    """An ``--allow-host`` name: a host name or address as a URL writes it, without a port."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]", text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a host name (no port, no scheme; an IPv6 address in brackets)")
    return text


def _cmd_serve(args: argparse.Namespace) -> int:
    from zavandor_env.web.server import AppServer, Table

    try:
        table = Table(args.agents, seat=args.seat, seed=args.seed)
    except ValueError as exc:  # a bad agent spec, seat or player count
        return _fail("serve", exc)
    try:
        server = AppServer(table, host=args.host, port=args.port, verbose=args.verbose,
                           allow_hosts=args.allow_host)
    except OSError as exc:  # port taken, address not local...
        return _fail("serve", f"cannot listen on {args.host}:{args.port}: "
                     f"{exc.strerror or exc}")
    with server:
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            # The server answers only the names it knows (DNS rebinding): say which.
            names = ("this machine's name or address, given with --allow-host"
                     if args.host in ("0.0.0.0", "::") else
                     f"{server.url} or a name given with --allow-host")
            print(f"note: --host {args.host} lets other machines reach this game; "
                  f"they open it as {names}")
        print(f"Zavandor at {server.url} (you are player_{args.seat} against "
              f"{', '.join(args.agents)}); Ctrl-C stops", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("\nzavandor serve: stopped")
    return 0


# ---- train ------------------------------------------------------------------------------
def _cmd_train(args: argparse.Namespace) -> int:
    from zavandor_env.train.cli import run

    return run(args)


def _add_trust_pickle(parser: argparse.ArgumentParser) -> None:
    """The one way to let agents unpickle their files: typed by the user, never read from a
    spec (a tournament file or a spec may come from someone else; see agents.registry)."""
    parser.add_argument("--trust-pickle", action="store_true",
                        help="let policy agents load SB3 .zip checkpoints, which are unpickled "
                        "and can run code from the file: only for files you trust (agent "
                        "specs cannot ask for this; convert instead with python -m "
                        "zavandor_env.train.export FILE.zip)")


def build_parser() -> argparse.ArgumentParser:
    from zavandor_env.agents.registry import ENGINE_HELP

    parser = _Parser(prog="zavandor", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    bench = sub.add_parser(
        "bench", help="speed of the engine and environment: random play and games that end "
        "by the rules (heuristic self-play), beside PettingZoo peers",
        description="Times, per player count: uniformly random play; heuristic self-play "
        "(recorded once, agents included); the recorded games replayed through the engine; "
        "state cloning -- each on the Python engine and, when built, on the native core "
        "(through the Game API and in a C++ loop); then the AEC env (env() and raw_env, both "
        "backends) with random play and the recorded games, the batched vector env, MCTS "
        "iterations per second, and the peers (PettingZoo texas_holdem_v4 and "
        "connect_four_v3, OpenSpiel through pyspiel) when installed.  Every row shows the "
        "share of games cut off by a safety limit.")
    bench.add_argument("--players", type=PLAYERS, nargs="+", default=[2, 4, 6],
                       help="player counts, 2-6 (default: 2 4 6)")
    bench.add_argument("--seconds", type=_seconds, default=3.0,
                       help="time per row (default 3; about 8 rows per player count)")
    bench.add_argument("--seed", type=NON_NEGATIVE, default=0)
    bench.add_argument("--engine-only", action="store_true", help="skip env and peer rows")
    bench.add_argument("--python-only", action="store_true",
                       help="time only the Python engine (default: both backends when the "
                       "native core is built)")
    bench.add_argument("--json", metavar="FILE", help="also write every row to FILE as a list "
                       "of objects (name, players, per_second, unit, truncated_share, ...)")
    bench.add_argument("--quiet", action="store_true", help="no progress bar")
    bench.set_defaults(func=_cmd_bench)

    ev = sub.add_parser(
        "eval", help="tournament between agents (win rates, CIs, ratings)",
        description="Plays a tournament and writes summary.json/csv, games.csv, chart.png "
        "(and replays) to --out, by default to a new eval_out/<date-time>-<lineup> directory. "
        "Each finished game is kept in --out/games.jsonl as it ends, so an interrupted run "
        "continues with the same command and --resume --out DIR. "
        "Agents that ask a person (human) cannot sit in a tournament: use zavandor play.")
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
    ev.add_argument("--workers", type=POSITIVE, default=None,
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
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.add_argument("--ray", action="store_true", help="play the games as Ray tasks (same "
                    "seeds, same results as the process pool; needs the [ray] extra): on a "
                    "local Ray started for the run, or on the cluster at --address")
    ev.add_argument("--address", metavar="ADDR", default=None, help="with --ray: join this "
                    "Ray cluster ('auto' on one of its nodes, or ray://HEAD:10001)")
    _add_trust_pickle(ev)
    ev.set_defaults(func=_cmd_eval)

    card = sub.add_parser(
        "scorecard", help="the standard, deterministic evaluation of one agent",
        description="Plays SPEC in one seat against n-1 copies of each reference opponent "
        "(random, naive, planner, heuristic, MCTS at a fixed iteration budget, the policy "
        "shipped for the player count), seats rotated, fixed seeds, at 2, 4 and 6 players; "
        "prints the table and writes scorecard.md, scorecard.json, scorecard.png and "
        "timing.json to --out (default: a new eval_out/<date-time>-scorecard-<spec>).  The "
        "same SPEC, seed, games and rules give byte-identical scorecard.json and scorecard.md.  "
        "By default the games use the affordability filter (allow_overbid: false), as the "
        "shipped policies were trained.")
    card.add_argument("spec", metavar="SPEC", help="the agent to score, as name or "
                      "name:key=value,... (e.g. policy:path=train/checkpoints/selfplay_2p/"
                      f"policy.npz); {ENGINE_HELP}")
    card.add_argument("--players", type=PLAYERS, nargs="+", default=[2, 4, 6],
                      help="player counts, 2-6 (default: 2 4 6)")
    card.add_argument("--games", type=POSITIVE, default=200,
                      help="games per row, rounded up to a multiple of the player count "
                      "(default 200)")
    card.add_argument("--seed", type=NON_NEGATIVE, default=0, help="first deal seed (default 0)")
    from zavandor_env.agents.scorecard import STANDARD_OPPONENTS

    card.add_argument("--opponents", nargs="+", metavar="NAME",
                      choices=list(STANDARD_OPPONENTS), default=list(STANDARD_OPPONENTS),
                      help="reference opponents to play (default: all of "
                      f"{' '.join(STANDARD_OPPONENTS)})")
    card.add_argument("--mcts-iterations", type=POSITIVE, default=16,
                      help="the MCTS opponent's iterations per decision (default 16)")
    card.add_argument("--game", metavar="YAML", help="game config file for the rules "
                      "(configs/game/*.yaml; its player count is ignored); default: the "
                      "rulebook with allow_overbid: false")
    card.add_argument("--workers", type=POSITIVE, default=None,
                      help="processes (default: all cores); does not change the card")
    card.add_argument("--out", metavar="DIR", help="card directory, new or empty (default: a "
                      "new eval_out/<YYYYmmdd-HHMMSS>-scorecard-<spec>)")
    card.add_argument("--overwrite", action="store_true",
                      help="replace the card an earlier scorecard wrote to --out")
    card.add_argument("--no-chart", action="store_true", help="skip scorecard.png")
    card.add_argument("--quiet", action="store_true", help="no progress")
    _add_trust_pickle(card)
    card.set_defaults(func=_cmd_scorecard)

    from zavandor_env.agents import ladder as ld

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
        "--out/games_<n>p.jsonl, so an interrupted ladder continues with --resume --out DIR.")
    lad.add_argument("--players", type=PLAYERS, nargs="+", default=list(ld.DEFAULT_PLAYERS),
                     help="player counts, 2-6 (default: 2 4 6)")
    lad.add_argument("--games", type=POSITIVE, default=ld.DEFAULT_GAMES,
                     help="games per table, rounded up to a multiple of the player count "
                     f"(default {ld.DEFAULT_GAMES})")
    lad.add_argument("--seed", type=NON_NEGATIVE, default=ld.DEFAULT_SEED,
                     help="first deal seed (default 0)")
    lad.add_argument("--agents", nargs="+", metavar="SPEC",
                     help="agents instead of the standard ones, as name or name:key=value,... "
                     "({n} stands for the player count; label=NAME names one); fixed "
                     f"budgets only (iterations=, never seconds=); {ENGINE_HELP}")
    lad.add_argument("--game", metavar="YAML", help="game config file for the rules "
                     "(configs/game/*.yaml; its player count is ignored); default: the "
                     "rulebook with allow_overbid: false, as the shipped policies were trained")
    lad.add_argument("--workers", type=POSITIVE, default=None,
                     help="processes (default: all cores); does not change the ladder")
    lad.add_argument("--out", metavar="DIR", help="ladder directory, new or empty (default: "
                     "a new eval_out/<YYYYmmdd-HHMMSS>-ladder)")
    lad.add_argument("--overwrite", action="store_true",
                     help="replace the ladder an earlier run wrote to --out")
    lad.add_argument("--resume", action="store_true",
                     help="continue the interrupted ladder in --out (same arguments)")
    lad.add_argument("--update-doc", metavar="MD", help="also replace the marked section of "
                     "this Markdown file (docs/leaderboard.md) with the leaderboard and its "
                     "cost table")
    lad.add_argument("--no-cost", action="store_true",
                     help="skip the per-decision cost probe (cost.json keeps the game times)")
    lad.add_argument("--no-chart", action="store_true", help="skip ladder.png")
    lad.add_argument("--quiet", action="store_true", help="no progress")
    lad.set_defaults(func=_cmd_ladder)

    play = sub.add_parser(
        "play", help="play against agents in the terminal",
        description="Your seat's view of the table; answer each decision with its number or "
        "name ('help' explains the actions, 'table' reprints the table, 'quit' stops). Other "
        "players' decisions and every won auction (winner and price) are shown as they happen.")
    play.add_argument("opponents", nargs="*", default=["heuristic"], metavar="SPEC",
                      help=f"opponent agents (default: one heuristic); {ENGINE_HELP}")
    play.add_argument("--seat", type=NON_NEGATIVE, default=0, help="your seat (0 = first)")
    play.add_argument("--seed", type=NON_NEGATIVE, default=0, help="deal seed (default 0)")
    play.add_argument("--save", metavar="FILE", help="write the game's replay JSON here (also "
                      "when you quit or press Ctrl-C)")
    play.add_argument("--no-colour", action="store_true")
    _add_trust_pickle(play)
    play.set_defaults(func=_cmd_play)

    check = sub.add_parser(
        "selfcheck", help="play games on the native and the Python engine and compare them "
        "after every decision",
        description="Plays --games games per player count on both engine backends (random, "
        "thrifty and heuristic players; the rulebook's options and each option flipped) and "
        "compares the legal actions, the whole state (random generator included) and the "
        "scores after every decision.  Exit 0: identical; exit 1: the first difference, "
        "with the game, the decision and the field.")
    check.add_argument("--games", type=POSITIVE, default=12,
                       help="games per player count (default 12)")
    check.add_argument("--players", type=PLAYERS, nargs="+", default=[2, 3, 4, 5, 6],
                       help="player counts, 2-6 (default: all)")
    check.add_argument("--seed", type=NON_NEGATIVE, default=0)
    check.add_argument("--quiet", action="store_true", help="no progress bar")
    check.set_defaults(func=_cmd_selfcheck)

    replay = sub.add_parser("replay", help="step through a saved game (replay JSON)")
    replay.add_argument("file")
    replay.add_argument("--every-decision", action="store_true",
                        help="print the table before every decision")
    replay.add_argument("--step", action="store_true", help="wait for Enter after each decision")
    replay.add_argument("--html", metavar="OUT", help="write a self-contained page instead "
                        "(board at every decision, controls, action log, VP chart, the "
                        "policy's view when recorded) to open offline in a browser")
    replay.set_defaults(func=_cmd_replay)

    serve = sub.add_parser(
        "serve", help="play against agents in the browser (a local web app)",
        description="Serves one game at a time to a browser: the table from your seat, your "
        "legal actions as buttons, every won auction with its price, a new-game button and "
        "the replay as a download.  Listens on 127.0.0.1 only unless --host says otherwise.  "
        "It answers only requests that name it (Host: the address it listens on, localhost, "
        "127.0.0.1, [::1] or an --allow-host name) and acts only on its own page's requests, "
        "so another web page cannot play or start a game.")
    serve.add_argument("--agents", nargs="+", default=["heuristic"], metavar="SPEC",
                       help=f"opponent agents, 1 to 5 (default: one heuristic); {ENGINE_HELP}")
    serve.add_argument("--seat", type=NON_NEGATIVE, default=0, help="your seat (0 = first)")
    serve.add_argument("--seed", type=NON_NEGATIVE, default=None,
                       help="the first game's deal seed (default: random)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on "
                       "(default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=_int_range(0, 65535), default=8765,
                       help="port (default 8765; 0: any free port)")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       type=_host_name,
                       help="another name the page may be opened under (this machine's name "
                       "or LAN address, with --host 0.0.0.0); repeatable")
    serve.add_argument("--verbose", action="store_true", help="log every request")
    serve.set_defaults(func=_cmd_serve)

    from zavandor_env.train.cli import add_arguments as add_train_arguments  # argparse only: light

    train = sub.add_parser("train", help="self-play training (MaskablePPO, RLlib PPO with "
                           "backend: rllib, or expert iteration with backend: exit; "
                           "TensorBoard, checkpoints, --resume); no arguments: a short quick "
                           "run")
    add_train_arguments(train)
    train.set_defaults(func=_cmd_train)
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
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print(f"\nzavandor {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
