"""Tournaments between agents: fair seating, shared deals, parallel games, reports.

Fairness rules:

* **Lineups.**  With as many agents as seats, one lineup seats them all.  With fewer agents,
  the first agent plays against the others cycled over the remaining seats (``heuristic`` vs
  ``random`` in a 4-player game = one heuristic and three randoms).  With more agents than
  seats, every combination of ``num_players`` agents is a lineup.
* **Rotation.**  Each lineup is played in all of its cyclic rotations, so every agent sits in
  every seat equally often; ``games`` is rounded up to a multiple of the player count.
* **Shared deals.**  Deal ``d`` uses game seed ``seed + d`` for every lineup and rotation, so
  agents are compared on the same cards, characters and tie-breaks.

Games run in worker processes (``multiprocessing``; all cores by default) and stream back to a
progress bar; a tournament with an interactive agent (``human``) plays in this process, which
owns the terminal.  With ``use_ray=True`` the same games run as Ray tasks -- on a local Ray
started for the tournament, or on a running cluster (``address``) -- with the same task list,
the same per-game seeds and the same sorting, so the records, and every report file but the
wall-clock figures, are the same as the process pool's (``pip install -e ".[ray]"``).
Every agent spec is built once here before any game (:func:`check_agents`), so a missing
policy file or a bad parameter fails at once, not in a worker.  Every game is
reproducible from its record (``Game.replay_record()``).

Reports go to one directory per tournament: :func:`prepare_output_dir` checks it before any
game is played (writable; no files of an earlier run unless they may be replaced), and
:meth:`TournamentReport.write` replaces an earlier run's files, so an old replay never sits
beside a new summary; each file is written whole or not at all (a full disk leaves none cut
short).  While the games are played, each one is appended to the directory's journal
(``games.jsonl``, flushed and fsynced) as it finishes, so a run killed midway resumes
(``run_tournament(..., journal=..., resume=True)``, ``zavandor eval --resume``) by playing
only the missing games: the same per-game seeds make the records those of an uninterrupted
run.  The journal is removed once the report holds its games.  The directory is opened through
:class:`~zavandor_env.io.folders.Folder` (no write or delete of ours goes through a symlink
in it, nor through one at it) and locked from :func:`prepare_output_dir` to the report's
last write, so two runs never append to one journal; the journal is read back as a bounded
stream, each line checked against the schedule and the engine's limits as it is read.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zavandor_env.agents.registry import AgentSpec, AgentSpecError
from zavandor_env.engine import GameConfig
from zavandor_env.engine.config import MAX_DECISIONS, MAX_ROUNDS
from zavandor_env.engine.errors import PicklableError
from zavandor_env.engine.outcome import Outcome
from zavandor_env.eval.journal import (
    Journal,
    JournalError,
    read_journal_checked,
    read_journal_header,
)
from zavandor_env.eval.match import GameResult, play_game
from zavandor_env.eval.stats import AgentSummary, SeatRecord, seat_records, summarize
from zavandor_env.eval.tournament_file import (
    TournamentConfigError,
    check_config,
    read_tournament_file,
)
from zavandor_env.io.csvfiles import csv_text
from zavandor_env.io.files import write_atomic
from zavandor_env.io.folders import Folder, FolderError, hold, release
from zavandor_env.io.limits import MAX_GAME_SECONDS
from zavandor_env.io.saved_games import MAX_VP


@dataclass
class TournamentConfig:
    """What to play.  ``game_options`` are extra :class:`GameConfig` fields."""

    agents: list[AgentSpec]
    num_players: int = 2
    games: int = 100
    seed: int = 0
    workers: int | None = None  # None: all cores
    game_options: dict[str, Any] = field(default_factory=dict)
    save_replays: bool = False
    _lineups: tuple[Any, list[list[AgentSpec]]] | None = field(
        default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Types and ceilings first, lineups counted before any is built (tournament_file).
        check_config(self)

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> TournamentConfig:
        """Read a tournament file (see ``configs/eval/*.yaml``); ``overrides`` that are not
        None replace its values.  The file may come from anyone: it is read as plain data,
        bounded in size and depth, every field is type-checked and held to its ceiling, and
        every problem is one line
        (:class:`~zavandor_env.eval.tournament_file.TournamentConfigError`, a
        ``ValueError``; see :mod:`zavandor_env.eval.tournament_file`)."""
        data = read_tournament_file(path, overrides)
        try:
            return cls(**data)
        except ValueError as exc:
            raise TournamentConfigError(f"{path}: {exc}") from None

    def lineups(self) -> list[list[AgentSpec]]:
        """The lineups, built once (at most :data:`~zavandor_env.io.limits.MAX_LINEUPS`, as
        counted when the config was made); callers index it and must not change it."""
        key = (self.num_players, tuple(self.agents))
        if self._lineups is None or self._lineups[0] != key:
            self._lineups = (key, self._build_lineups())
        return self._lineups[1]

    def _build_lineups(self) -> list[list[AgentSpec]]:
        n, agents = self.num_players, self.agents
        if len(agents) == n:
            return [list(agents)]
        if len(agents) < n:
            if len(agents) == 1:
                return [[agents[0]] * n]
            others = agents[1:]
            return [[agents[0]] + [others[i % len(others)] for i in range(n - 1)]]
        return [list(c) for c in itertools.combinations(agents, n)]

    @property
    def deals(self) -> int:
        return -(-self.games // self.num_players)

    @property
    def interactive(self) -> bool:
        """Whether an agent asks a person (then every game runs in this process)."""
        return any(spec.interactive for spec in self.agents)


def check_agents(config: TournamentConfig) -> None:
    """Build every agent spec once in this process and close it, so a missing policy file or a
    parameter an agent rejects raises here (:class:`AgentSpecError`), before any worker."""
    for spec in config.agents:
        try:
            agent = spec.build(seed=0)
        except (ValueError, OSError, ImportError) as exc:
            if isinstance(exc, AgentSpecError):
                raise
            raise AgentSpecError(f"agent {spec.label!r}: {exc}") from None
        agent.close()


@dataclass(frozen=True)
class GameTask:
    """One game to play: lineup index, deal index, rotation."""

    lineup: int
    deal: int
    rotation: int


@dataclass
class GameRecord:
    """One tournament game: where it sits in the schedule and the driver's :class:`GameResult`
    (labels in seat order, the outcome, time, replay)."""

    task: GameTask
    result: GameResult

    @property
    def labels(self) -> list[str]:
        return self.result.labels

    @property
    def truncated(self) -> bool:
        return self.result.truncated

    @property
    def rounds(self) -> int:
        return self.result.rounds

    @property
    def decisions(self) -> int:
        return self.result.decisions

    @property
    def seconds(self) -> float:
        return self.result.seconds

    @property
    def replay(self) -> dict[str, Any] | None:
        return self.result.replay

    def seats(self) -> list[SeatRecord]:
        r = self.result
        return seat_records(r.labels, r.scores, r.ranks, r.winners)


# ---- workers ----------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _init_worker(config: TournamentConfig) -> None:
    _WORKER["config"] = config
    _WORKER["lineups"] = config.lineups()
    _WORKER["agents"] = {}


def _init_pool_worker(config: TournamentConfig) -> None:
    # Ctrl-C is the main process's to handle (it stops the pool): a worker that also raised
    # KeyboardInterrupt would print one traceback per process.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init_worker(config)


def _seated(lineup: list[AgentSpec], rotation: int) -> list[AgentSpec]:
    n = len(lineup)
    return [lineup[(s - rotation) % n] for s in range(n)]


def play_task(task: GameTask) -> GameRecord:
    """Play one game in this process (agents are built once per process and reused)."""
    config: TournamentConfig = _WORKER["config"]
    specs = _seated(_WORKER["lineups"][task.lineup], task.rotation)
    cache: dict[tuple[str, int], Any] = _WORKER["agents"]
    agents = []
    for seat, spec in enumerate(specs):
        key = (spec.label, seat)
        if key not in cache:
            cache[key] = spec.build(seed=0)
        agents.append(cache[key])
    game_seed = config.seed + task.deal
    agent_seeds = [
        (config.seed * 1_000_003 + task.deal * 7919 + task.rotation * 131 + seat) & 0x7FFFFFFF
        for seat in range(config.num_players)
    ]
    try:
        result = play_game(
            agents,
            seed=game_seed,
            config=GameConfig(num_players=config.num_players, **config.game_options),
            agent_seeds=agent_seeds,
            record_replay=config.save_replays,
            labels=[s.label for s in specs],
        )
    except Exception as exc:
        # Name the game so it can be replayed alone; the original traceback is chained.
        raise RuntimeError(
            f"game failed: lineup {[s.label for s in specs]}, deal {task.deal} "
            f"(seed {game_seed}), rotation {task.rotation}: {type(exc).__name__}: {exc}"
        ) from exc
    return GameRecord(task, result)


def schedule(config: TournamentConfig) -> list[GameTask]:
    """Every game of the tournament, in report order (lineup, deal, rotation)."""
    return [
        GameTask(li, d, r)
        for li in range(len(config.lineups()))
        for d in range(config.deals)
        for r in range(config.num_players)
    ]


def run_tournament(
    config: TournamentConfig,
    progress: bool = True,
    on_record: Callable[[GameRecord], None] | None = None,
    *,
    use_ray: bool = False,
    address: str | None = None,
    journal: str | Path | None = None,
    resume: bool = False,
) -> list[GameRecord]:
    """Play every game of the tournament; returns records sorted by (lineup, deal, rotation).

    ``workers=1`` plays in this process (no multiprocessing), useful for tests and debugging;
    so does a tournament with an interactive agent.  ``use_ray`` plays the games as Ray tasks
    instead (at most ``workers`` at a time when given), on a local Ray started and stopped
    here, or on the cluster at ``address`` ("auto", "ray://host:10001"); the records are the
    same.  Raises :class:`RayMissingError` when Ray is not installed and
    :class:`RayConnectionError` when the cluster cannot be joined.

    ``journal`` (a ``games.jsonl`` path) records every game on disk as it finishes (see
    :func:`open_journal`); with ``resume`` the games already there are not played again but
    returned with the new ones, so a run killed midway and resumed gives the records of an
    uninterrupted one (wall-clock seconds aside).  A journal of another tournament raises
    :class:`JournalError`.  A run stopped before any game finished removes its journal.

    The journal's folder is locked while the games are played (a second run writing there is
    refused in one :class:`OutputDirError` line), and released at the end unless it was
    held before (by :func:`prepare_output_dir`: then the report's :meth:`~TournamentReport.
    write` releases it) -- or when the run fails, which ends it.
    """
    folder = None if journal is None else Path(journal).parent
    taken = False
    if folder is not None:
        try:
            taken = hold(folder, what=f"--out {str(folder)!r}")
        except FolderError as exc:
            raise OutputDirError(str(exc)) from None
    try:
        records = _journaled(config, progress, on_record, use_ray, address, journal, resume)
    except BaseException:
        if folder is not None:
            release(folder)
        raise
    if taken and folder is not None:
        release(folder)
    return records


def _journaled(config: TournamentConfig, progress: bool,
               on_record: Callable[[GameRecord], None] | None, use_ray: bool,
               address: str | None, journal: str | Path | None,
               resume: bool) -> list[GameRecord]:
    """:func:`run_tournament` once its folder is locked."""
    log, done = (open_journal(journal, config, resume) if journal is not None
                 else (None, []))
    played = {rec.task for rec in done}
    tasks = [task for task in schedule(config) if task not in played]
    records = list(done)
    try:
        _play_tasks(config, tasks, records, log, on_record, progress, use_ray, address)
    except BaseException:
        if log is not None and len(records) == len(done) == 0:
            log.path.unlink(missing_ok=True)  # nothing to resume: leave no file behind
        raise
    finally:
        if log is not None:
            log.close()
    records.sort(key=lambda r: (r.task.lineup, r.task.deal, r.task.rotation))
    return records


def _play_tasks(config: TournamentConfig, tasks: list[GameTask], records: list[GameRecord],
                log: Journal | None, on_record: Callable[[GameRecord], None] | None,
                progress: bool, use_ray: bool, address: str | None) -> None:
    """Play ``tasks``, appending each record to ``records`` (and the journal) as it ends."""
    from tqdm import tqdm

    def finished(rec: GameRecord) -> None:
        if log is not None:
            log.append(_journal_entry(rec))  # durable before it counts as played
        records.append(rec)
        if on_record:
            on_record(rec)
        bar.update()

    workers = config.workers or os.cpu_count() or 1
    if config.interactive:
        workers = 1  # a worker has no terminal: the person would never be asked
    workers = max(1, min(workers, len(tasks)))
    if not tasks:
        return  # a resumed run whose games were all played: only the report is left to write
    session = ExitStack()  # Ray, when asked for: joined before the progress bar is drawn
    if use_ray:
        if config.interactive:
            raise ValueError("a tournament with an agent that asks a person cannot run on Ray")
        ray_module = session.enter_context(ray_session(address, num_cpus=config.workers))
    bar = tqdm(total=len(tasks), desc="games", unit="game", disable=not progress)
    try:
        if use_ray:
            for rec in _play_on_ray(ray_module, config, tasks):
                finished(rec)
        elif workers == 1:
            _init_worker(config)
            for task in tasks:
                finished(play_task(task))
        else:
            import multiprocessing as mp

            ctx = mp.get_context("spawn" if os.name == "nt" else "fork")
            with ctx.Pool(workers, initializer=_init_pool_worker, initargs=(config,)) as pool:
                for rec in pool.imap_unordered(play_task, tasks, chunksize=1):
                    finished(rec)
    finally:
        bar.close()
        session.close()


# ---- the journal: finished games on disk, for --resume ----------------------------------
#: The tournament's journal in its report directory (removed once the report is written).
JOURNAL_FILE = "games.jsonl"
_JOURNAL_FORMAT = "zavandor eval games"


def journal_spec(config: TournamentConfig) -> dict[str, Any]:
    """What decides the games of ``config`` (not ``workers`` or Ray: they change no result),
    as plain JSON data: a resumed run must have the same."""
    spec = {
        "agents": [{"label": a.label, "agent": a.agent, "params": dict(a.params)}
                   for a in config.agents],
        "num_players": config.num_players,
        "games": config.games,
        "seed": config.seed,
        "game_options": config.game_options,
        "save_replays": config.save_replays,
    }
    return dict(json.loads(json.dumps(spec, default=str)))  # as it reads back from the file


def open_journal(path: str | Path, config: TournamentConfig,
                 resume: bool) -> tuple[Journal, list[GameRecord]]:
    """The journal at ``path`` open for this tournament's games, and the games it holds.

    Without ``resume`` a new journal replaces any file there.  With ``resume`` the journal
    must exist and hold this very tournament (:func:`journal_spec`), else
    :class:`JournalError` names the first difference; a torn last line (a write cut short by
    ``kill -9`` or a full disk) is dropped, so that game is played again.
    """
    header = {"format": _JOURNAL_FORMAT, "version": 1, "spec": journal_spec(config)}
    if not resume:
        return Journal.create(path, header), []
    path = Path(path)
    if not path.is_file():
        raise JournalError(f"nothing to resume: {str(path.parent)!r} holds no {path.name} "
                           "(no game of an interrupted run); start without --resume")
    # Each line is checked as it is read (a junk line stops the read there), and the file is
    # checked whole before it is touched.
    _, records, intact = read_journal_checked(
        path, _entry_checker(path, config), lambda head, _where: _check_header(path, config,
                                                                                head))
    return Journal.append_after(path, intact), records


def _check_header(path: Path, config: TournamentConfig, header: dict[str, Any]) -> None:
    if header.get("format") != _JOURNAL_FORMAT or header.get("version") != 1:
        raise JournalError(f"{path} is not a journal of zavandor eval (format "
                           f"{str(header.get('format'))[:40]!r})")
    _check_same_spec(path, header.get("spec"), journal_spec(config))


def _entry_checker(path: Path, config: TournamentConfig,
                   ) -> Callable[[Any, str], GameRecord]:
    """The check of one journal line of ``config``'s tournament: a game of its schedule,
    seated as scheduled, not seen before, every number within the engine's limits."""
    seatings = {task: [s.label for s in _seated(config.lineups()[task.lineup], task.rotation)]
                for task in schedule(config)}
    seen: set[GameTask] = set()

    def check(entry: Any, where: str) -> GameRecord:
        rec = _journal_record(entry, config, seatings, where)
        if rec.task in seen:
            raise JournalError(f"{where} repeats game {_task_name(rec.task)}")
        seen.add(rec.task)
        return rec

    return check


def _check_same_spec(path: Path, recorded: Any, current: dict[str, Any]) -> None:
    if not isinstance(recorded, dict):
        raise JournalError(f"{path} has no tournament spec in its header")
    for key, value in current.items():
        if recorded.get(key) != value:
            def short(v: Any) -> str:
                text = json.dumps(v)
                return text if len(text) <= 60 else text[:57] + "..."

            raise JournalError(
                f"cannot resume: {str(path.parent)!r} holds games of another tournament "
                f"({key} {short(recorded.get(key))} there, {short(value)} now); give the "
                "interrupted run's agents, players, games, seed, rules and --save-replays, "
                "or a new --out")


def _task_name(task: GameTask) -> str:
    return f"lineup {task.lineup}, deal {task.deal}, rotation {task.rotation}"


def _journal_entry(rec: GameRecord) -> dict[str, Any]:
    """One finished game as a journal line (everything its report rows and replay need)."""
    r = rec.result
    return {"lineup": rec.task.lineup, "deal": rec.task.deal, "rotation": rec.task.rotation,
            "seed": r.seed, "labels": r.labels, "outcome": dataclasses.asdict(r.outcome),
            "seconds": r.seconds, "replay": r.replay}


def _journal_record(entry: Any, config: TournamentConfig,
                    seatings: dict[GameTask, list[str]], where: str) -> GameRecord:
    """A journal line back as a :class:`GameRecord`, checked against the schedule (the file
    is read back from disk: a hand-edited or foreign line is refused, not believed)."""
    def need(ok: bool, what: str) -> None:
        if not ok:
            raise JournalError(f"{where} is not a game of this tournament ({what})")

    need(isinstance(entry, dict), "not an object")
    try:
        place = [entry["lineup"], entry["deal"], entry["rotation"]]
        need(all(_is_int(v) for v in place), "lineup, deal, rotation")
        task = GameTask(*place)
        need(task in seatings, f"no game {_task_name(task)} in the schedule")
        labels = seatings[task]
        need(entry["labels"] == labels, f"seats {labels} expected")
        need(_is_int(entry["seed"]) and entry["seed"] == config.seed + task.deal, "seed")
        outcome = _outcome(entry["outcome"], len(labels), need)
        seconds = entry["seconds"]
        need(_is_number(seconds) and math.isfinite(seconds)
             and 0 <= seconds <= MAX_GAME_SECONDS, f"seconds (0 to {MAX_GAME_SECONDS:,.0f})")
        replay = entry["replay"]
        need(isinstance(replay, dict) if config.save_replays else replay is None, "replay")
    except (KeyError, TypeError) as exc:
        raise JournalError(f"{where} is not a game of this tournament "
                           f"({type(exc).__name__}: {exc})") from None
    return GameRecord(task, GameResult(entry["seed"], list(labels), outcome, float(seconds),
                                       replay))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _outcome(data: Any, n: int, need: Callable[[bool, str], None]) -> Outcome:
    """The :class:`Outcome` of a journal line, every field checked."""
    need(isinstance(data, dict), "outcome")
    seats = ("scores", "ranks", "eliminated")
    for key in seats:
        need(isinstance(data[key], list) and len(data[key]) == n, key)
    need(all(_is_int(v) and 0 <= v <= MAX_VP for v in data["scores"]),
         f"scores (0 to {MAX_VP})")
    need(all(_is_int(v) and 1 <= v <= n for v in data["ranks"]), f"ranks (1 to {n})")
    need(all(isinstance(v, bool) for v in data["eliminated"]), "eliminated")
    need(isinstance(data["winners"], list)
         and all(_is_int(w) and 0 <= w < n for w in data["winners"]), "winners")
    need(all(isinstance(data[k], bool) for k in ("terminated", "truncated")), "ended")
    need(_is_int(data["rounds"]) and 0 <= data["rounds"] <= MAX_ROUNDS,
         f"rounds (0 to {MAX_ROUNDS:,})")
    need(_is_int(data["decisions"]) and 0 <= data["decisions"] <= MAX_DECISIONS,
         f"decisions (0 to {MAX_DECISIONS:,})")
    return Outcome(tuple(data["scores"]), tuple(data["ranks"]), tuple(data["winners"]),
                   tuple(data["eliminated"]), data["terminated"], data["truncated"],
                   data["rounds"], data["decisions"])


# ---- Ray ----------------------------------------------------------------------------------
#: What to install for the Ray paths (``eval --ray``, training with ``backend: rllib``).
RAY_INSTALL = 'pip install -e ".[ray]"'


class RayMissingError(PicklableError, ImportError):
    """Ray cannot be imported here: ``RayMissingError("--ray")`` reads ``--ray needs the [ray]
    extra (missing: ray): pip install -e ".[ray]"``."""

    def __init__(self, what: str, detail: str = "missing: ray") -> None:
        super().__init__(f"{what} needs the [ray] extra ({detail}): {RAY_INSTALL}")


class RayConnectionError(ConnectionError):
    """The Ray cluster named by ``address`` cannot be joined; the message is one line."""


def import_ray(what: str) -> Any:
    """The ``ray`` module, or :class:`RayMissingError` saying what needs it."""
    try:
        import ray
    except ImportError as exc:
        raise RayMissingError(what, " ".join(str(exc).split())) from None
    return ray


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None,
                what: str = "--ray") -> Iterator[Any]:
    """Ray for the length of a command: join the cluster at ``address`` ("auto" on one of
    its nodes, "ray://head:10001" from anywhere) or start a local Ray (``num_cpus``, no
    dashboard) and stop it afterwards.  A session this process already holds (a test's, a
    notebook's) is used as it is and left open."""
    import logging

    ray = import_ray(what)
    if ray.is_initialized():
        yield ray
        return
    # The workers' own output would scramble the progress bar; their errors still reach
    # this process as exceptions.
    quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address:
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise RayConnectionError(f"cannot join the Ray cluster at {address!r}: {detail} "
                                     "(is it started? see docs/scaling.md)") from None
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)
    try:
        yield ray
    finally:
        ray.shutdown()


def _play_chunk(config: TournamentConfig, tasks: list[GameTask]) -> list[GameRecord]:
    """A Ray task: play some games in a Ray worker, as :func:`play_task` in a pool worker
    (agents are built once per worker process and tournament, then reused)."""
    if _WORKER.get("config") != config:
        _init_worker(config)
    return [play_task(task) for task in tasks]


def _play_on_ray(ray: Any, config: TournamentConfig,
                 tasks: list[GameTask]) -> Iterator[GameRecord]:
    """Records of ``tasks`` played as Ray tasks (in the session open), as they finish.  Games
    go out in chunks (a few per CPU, so agents are not rebuilt per game and the progress bar
    still moves); with ``workers`` set, at most that many chunks run at once."""
    slots = config.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    size = max(1, -(-len(tasks) // (4 * slots)))
    chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
    play = ray.remote(num_cpus=1, max_retries=0)(_play_chunk)
    shared = ray.put(config)
    pending: list[Any] = []
    try:
        while chunks or pending:
            while chunks and len(pending) < slots:
                pending.append(play.remote(shared, chunks.pop(0)))
            done, pending = ray.wait(pending, num_returns=1)
            yield from ray.get(done[0])
    finally:
        for ref in pending:  # Ctrl-C or a failed game: stop what is still running
            ray.cancel(ref, force=True)


# ---- output directory -------------------------------------------------------------------
class OutputDirError(ValueError):
    """The report directory cannot be used (not writable, or holds other files)."""


REPORT_FILES = ("summary.json", "summary.csv", "games.csv", "chart.png")
REPLAY_DIR = "replays"
_REPLAY_FILE = re.compile(r"game_l\d+_d\d+_r\d+\.json")


def out_folder(out_dir: str | Path) -> Folder | None:
    """The report folder ``out_dir`` checked (:class:`~zavandor_env.io.folders.Folder`: no
    symlink at it), or None when it does not exist yet; else one :class:`OutputDirError`."""
    out = Path(out_dir)
    if not os.path.lexists(out):
        return None
    try:
        return Folder.open(out, what=f"--out {str(out)!r}")
    except FolderError as exc:
        raise OutputDirError(str(exc)) from None


def previous_outputs(out_dir: str | Path) -> tuple[list[Path], list[Path]]:
    """``(files an earlier tournament wrote, other entries)`` in ``out_dir``, as ``lstat``
    sees them: a symlink is never ours (it is listed with the others, which are never
    touched), so no write or delete of ours goes through one."""
    folder = out_folder(out_dir)
    ours: list[Path] = []
    others: list[Path] = []
    if folder is None:
        return ours, others
    for name, kind in folder.entries():
        entry = folder.root / name
        if name in (*REPORT_FILES, JOURNAL_FILE) and kind == "file":
            ours.append(entry)
        elif name == REPLAY_DIR and kind == "dir":
            for replay, replay_kind in folder.entries(REPLAY_DIR):
                (ours if _REPLAY_FILE.fullmatch(replay) and replay_kind == "file"
                 else others).append(entry / replay)
        else:
            others.append(entry)
    return ours, others


def clear_previous_outputs(out_dir: str | Path, keep: Path | None = None) -> list[Path]:
    """Delete the files an earlier tournament wrote in ``out_dir`` (regular files only,
    nothing else; not ``keep``); returns them."""
    folder = out_folder(out_dir)
    ours = [path for path in previous_outputs(out_dir)[0] if path != keep]
    if folder is None:
        return []
    try:
        for path in ours:
            folder.unlink(*path.relative_to(folder.root).parts)
        replays = folder.dir(REPLAY_DIR)
        if replays.is_dir() and not folder.entries(REPLAY_DIR):
            replays.rmdir()
    except FolderError as exc:
        raise OutputDirError(str(exc)) from None
    return ours


def prepare_output_dir(out_dir: str | Path, overwrite: bool = False,
                       resume: bool = False) -> Path:
    """Make sure the tournament can write its report to ``out_dir`` before it is played.

    Creates the directory, refuses one that is not empty unless ``overwrite`` (and even then
    one holding files this tool did not write: they are never deleted), and writes and
    removes a probe file.  ``resume`` continues the interrupted run there instead: its
    journal (``games.jsonl``) must be there; whether it holds this very tournament is
    :func:`open_journal`'s to check.  Raises :class:`OutputDirError` with one line.
    """
    out = Path(out_dir)
    ours, others = previous_outputs(out)  # refuses a file or a symlink at --out
    if resume:
        if out / JOURNAL_FILE not in (*ours, *others):  # a symlinked one: refused below
            raise OutputDirError(f"nothing to resume in --out {str(out)!r}: it holds no "
                                 f"{JOURNAL_FILE} (the games of an interrupted eval); "
                                 "a finished run's is removed once its report is written")
        overwrite = True  # the interrupted run's own files
    elif out / JOURNAL_FILE in ours and not overwrite and not others:
        raise OutputDirError(f"--out {str(out)!r} holds the games of an interrupted eval "
                             f"({JOURNAL_FILE}): give --resume to continue it (same agents, "
                             "players, games, seed and rules), or --overwrite to start again")
    return claim_output_dir(out, ours, others, overwrite, tool="eval",
                            report="a tournament report")


def lock_output_dir(out: Path) -> None:
    """Hold ``out``'s lock for this process until :func:`release_output_dir` (or its end): a
    second writer of the folder is refused in one :class:`OutputDirError` line."""
    try:
        hold(out, what=f"--out {str(out)!r}")
    except FolderError as exc:
        raise OutputDirError(str(exc)) from None


def release_output_dir(out: Path) -> None:
    """Give back the lock :func:`lock_output_dir` took (a no-op when not held)."""
    release(out)


def claim_output_dir(out: Path, ours: Sequence[Path], others: Sequence[Path], overwrite: bool,
                     tool: str, report: str) -> Path:
    """The checks every report-writing command makes before its work starts: ``others``
    (files ``tool`` did not write) are never overwritten, ``ours`` (an earlier ``report``)
    only with ``overwrite``; then the directory is created, locked (:func:`lock_output_dir`:
    a second writer is refused first, in one line) and probed for writing."""
    try:
        if os.path.lexists(out):
            lock_output_dir(out)
        _claim(out, ours, others, overwrite, tool, report)
    except BaseException:
        release_output_dir(out)
        raise
    return out


def _claim(out: Path, ours: Sequence[Path], others: Sequence[Path], overwrite: bool,
           tool: str, report: str) -> None:
    if others:
        names = ", ".join(str(p.relative_to(out)) for p in others[:3])
        more = f" and {len(others) - 3} more" if len(others) > 3 else ""
        raise OutputDirError(f"--out {str(out)!r} holds files {tool} did not write "
                             f"({names}{more}); choose an empty or new directory")
    if ours and not overwrite:
        raise OutputDirError(f"--out {str(out)!r} already holds {report}; give "
                             "--overwrite to replace it, or choose a new directory")
    try:
        Folder.open(out, what=f"--out {str(out)!r}", create=True)
        lock_output_dir(out)  # held until the report is written (or this process ends)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except FolderError as exc:
        raise OutputDirError(str(exc)) from None
    except OSError as exc:
        raise OutputDirError(f"cannot write to --out {str(out)!r}: "
                             f"{exc.strerror or exc}") from None


def default_output_dir(name: str, root: str | Path = "eval_out") -> Path:
    """Create and return a new directory ``root/<YYYYmmdd-HHMMSS>-<name>`` (``-2``, ``-3``...
    appended when one of that name exists: two runs never share a directory)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "eval"
    base = Path(root) / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug[:60]}"
    for attempt in itertools.count(1):
        path = base if attempt == 1 else base.with_name(f"{base.name}-{attempt}")
        try:
            path.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputDirError(f"cannot create {str(path)!r}: {exc.strerror or exc}") from None
        return path
    raise AssertionError("unreachable")


# ---- reports ----------------------------------------------------------------------------
@dataclass
class TournamentReport:
    config: TournamentConfig
    records: list[GameRecord]
    agents: dict[str, AgentSummary]
    head_to_head: dict[str, dict[str, float]]
    meetings: dict[str, dict[str, int]]

    @classmethod
    def build(cls, config: TournamentConfig, records: Sequence[GameRecord]) -> TournamentReport:
        agents, h2h, meetings = summarize(r.seats() for r in records)
        return cls(config, list(records), agents, h2h, meetings)

    def ordered(self) -> list[AgentSummary]:
        return sorted(self.agents.values(), key=lambda a: (-a.win_rate, a.mean_rank, a.label))

    def to_dict(self) -> dict[str, Any]:
        n = len(self.records)
        return {
            "num_players": self.config.num_players,
            "games": n,
            "seed": self.config.seed,
            "game_options": self.config.game_options,
            "agents_spec": [
                {"label": a.label, "agent": a.agent, "params": dict(a.params)}
                for a in self.config.agents
            ],
            "truncated_games": sum(r.truncated for r in self.records),
            "mean_rounds": round(sum(r.rounds for r in self.records) / max(1, n), 3),
            "mean_seconds_per_game": round(sum(r.seconds for r in self.records) / max(1, n), 4),
            "agents": [a.to_dict() for a in self.ordered()],
            "head_to_head": {
                x: {y: round(v, 4) for y, v in row.items()} for x, row in self.head_to_head.items()
            },
            "head_to_head_meetings": self.meetings,
        }

    def text(self) -> str:
        d = self.to_dict()
        lines = [
            (f"{d['games']} games, {d['num_players']} players, "
             f"{d['mean_rounds']:.1f} rounds and {d['mean_seconds_per_game']:.2f} s per game "
             f"(one core), {d['truncated_games']} truncated"),
            (f"{'agent':<28} {'seats':>6} {'win rate':>9} {'95% CI':>17} {'rank':>6} "
             f"{'VP':>7} {'rating':>8}"),
        ]
        for a in self.ordered():
            lo, hi = a.win_ci
            lines.append(
                f"{a.label:<28} {a.seats:>6} {a.win_rate:>9.3f} "
                f"{f'[{lo:.3f}, {hi:.3f}]':>17} {a.mean_rank:>6.2f} {a.mean_vp:>7.1f} "
                f"{a.ordinal:>8.2f}"
            )
        labels = [a.label for a in self.ordered()]
        if len(labels) > 1:
            lines.append("head-to-head (row finishes ahead of column; ties 0.5):")
            width = max(8, max(len(x) for x in labels) + 1)
            lines.append(" " * width + "".join(f"{x[:10]:>11}" for x in labels))
            for x in labels:
                row = self.head_to_head.get(x, {})
                cells = "".join(
                    f"{row[y]:>11.3f}" if y in row else f"{'-':>11}" for y in labels
                )
                lines.append(f"{x[:width - 1]:<{width}}" + cells)
        return "\n".join(lines)

    def write(self, out_dir: str | Path, chart: bool = True, replace: bool = False) -> list[Path]:
        """Write ``summary.json``, ``summary.csv``, ``games.csv``, ``chart.png`` and (when
        recorded) ``replays/*.json``; returns the paths written.

        Each file is replaced at once (:func:`~zavandor_env.io.files.write_atomic`): a
        full disk leaves the file as it was or absent, never empty or cut short.  A
        directory holding an earlier report raises :class:`OutputDirError` unless
        ``replace``, which first deletes the earlier report's files (only those), so no old
        replay or chart stays beside the new summary.  The journal of this very tournament
        (``games.jsonl``, :func:`run_tournament`) is not an earlier report: it is removed
        last, once every game it holds is in ``games.csv``.
        """
        out = Path(out_dir)
        try:
            folder = Folder.open(out, what=f"--out {str(out)!r}", create=True)
            lock_output_dir(out)
            return self._write(folder, chart, replace)
        except FolderError as exc:
            raise OutputDirError(str(exc)) from None
        finally:
            release_output_dir(out)  # the tournament's last write to its folder

    def _write(self, folder: Folder, chart: bool, replace: bool) -> list[Path]:
        out = folder.root
        journal = out / JOURNAL_FILE
        own_journal = journal if self._is_own_journal(folder) else None
        if [path for path in previous_outputs(out)[0] if path != own_journal]:
            if not replace:
                raise OutputDirError(f"{str(out)!r} already holds a tournament report "
                                     "(replace=True deletes it first)")
            clear_previous_outputs(out, keep=own_journal)
        written = [folder.write("summary.json",
                                content=json.dumps(self.to_dict(), indent=2) + "\n"),
                   folder.write("summary.csv", content=self._summary_csv()),
                   folder.write("games.csv", content=self._games_csv())]
        for r in self.records:
            if r.replay is None:
                continue
            t = r.task
            record = {**r.replay, "agents": r.labels}
            written.append(folder.write(
                REPLAY_DIR, f"game_l{t.lineup}_d{t.deal:04d}_r{t.rotation}.json",
                content=json.dumps(record) + "\n"))
        if chart:
            written.append(self.chart(folder.file("chart.png")))
        if own_journal is not None:
            folder.unlink(JOURNAL_FILE)  # every game it held is in the report now
        return written

    def _is_own_journal(self, folder: Folder) -> bool:
        """Whether the folder's journal is this report's tournament's (not an older one's)."""
        try:
            header = read_journal_header(folder.file(JOURNAL_FILE)) \
                if folder.is_file(JOURNAL_FILE) else {}
        except JournalError:
            return False
        return header.get("spec") == journal_spec(self.config)

    def _summary_csv(self) -> str:
        fields = ["label", "seats_played", "wins", "win_rate", "ci95_low", "ci95_high",
                  "mean_rank", "mean_vp", "rating_mu", "rating_sigma", "rating_ordinal"]
        rows = []
        for agent in self.ordered():
            row = agent.to_dict()
            row["ci95_low"], row["ci95_high"] = row["win_rate_ci95"]
            rows.append([row.get(f, "") for f in fields])  # as DictWriter did
        return csv_text(fields, rows)

    def _games_csv(self) -> str:
        fields = ["lineup", "deal", "rotation", "seed", "seat", "agent", "vp", "rank",
                  "win_share", "rounds", "decisions", "truncated", "seconds"]
        rows = [[r.task.lineup, r.task.deal, r.task.rotation, self.config.seed + r.task.deal,
                 s, rec.label, rec.vp, rec.rank, round(rec.win_share, 4), r.rounds,
                 r.decisions, int(r.truncated), round(r.seconds, 4)]
                for r in self.records for s, rec in enumerate(r.seats())]
        return csv_text(fields, rows)

    def chart(self, path: Path) -> Path:
        """Win rate with 95% intervals and mean VP per agent (matplotlib, Agg backend)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        agents = self.ordered()
        labels = [a.label for a in agents]
        rates = [a.win_rate for a in agents]
        err = [[max(0.0, a.win_rate - a.win_ci[0]) for a in agents],
               [max(0.0, a.win_ci[1] - a.win_rate) for a in agents]]
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        ax1.bar(labels, rates, yerr=err, capsize=4, color="#4c72b0")
        ax1.set_ylim(0, 1)
        ax1.set_ylabel("win rate (95% Wilson CI)")
        ax1.axhline(1 / self.config.num_players, color="grey", linestyle="--", linewidth=1)
        ax2.bar(labels, [a.mean_vp for a in agents], color="#dd8452")
        ax2.set_ylabel("mean VP")
        for ax in (ax1, ax2):
            ax.tick_params(axis="x", rotation=30)
        fig.suptitle(f"{len(self.records)} games, {self.config.num_players} players")
        fig.tight_layout()
        try:
            write_atomic(path, lambda fh: fig.savefig(fh, format="png", dpi=100))
        finally:
            plt.close(fig)
        return path
