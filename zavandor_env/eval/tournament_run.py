"""Playing a tournament's games (the one driver of seat-rotated games: ``zavandor eval``, the
ladder and the scorecard play theirs here).

Games run in worker processes (``multiprocessing``; all cores by default) and stream back to a
progress bar; a tournament with an interactive agent (``human``) plays in this process, which
owns the terminal.  With ``use_ray=True`` the same games run as Ray tasks -- on a local Ray
started for the tournament, or on a running cluster (``address``) -- with the same task list,
the same per-game seeds and the same sorting, so the records, and every report file but the
wall-clock figures, are the same as the process pool's (``pip install -e ".[ray]"``).  Every
game is reproducible from its record (``Game.replay_record()``).

Each finished game can be appended to a journal as it ends
(:mod:`zavandor_env.eval.tournament_journal`), so a run killed midway resumes by playing only
the missing games.  The journal's folder is locked while the games are played, so two runs
never append to one journal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from zavandor_env.engine import GameConfig
from zavandor_env.eval.journal import Journal
from zavandor_env.eval.match import play_game
from zavandor_env.eval.ray_cluster import ray_session
from zavandor_env.eval.run_folder import lock_output_dir
from zavandor_env.eval.tournament import (
    GameRecord,
    GameTask,
    TournamentConfig,
    schedule,
    seated,
)
from zavandor_env.eval.tournament_journal import journal_entry, open_journal
from zavandor_env.io.folders import release

# ---- workers: agents built once per process, reused for every game it plays -----------
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
    torch = sys.modules.get("torch")
    if torch is not None:
        # A forked child inherits torch's thread pool in a state it cannot use: its first
        # parallel op (copying a module's weights, a forward pass) would wait forever.  One
        # thread: a worker plays one game at a time, and the pool has a process per core.
        torch.set_num_threads(1)
    _init_worker(config)


def play_task(task: GameTask) -> GameRecord:
    """Play one game in this process (agents are built once per process and reused)."""
    config: TournamentConfig = _WORKER["config"]
    specs = seated(_WORKER["lineups"][task.lineup], task.rotation)
    cache: dict[tuple[str, int], Any] = _WORKER["agents"]
    for seat, spec in enumerate(specs):
        if (spec.label, seat) not in cache:
            cache[spec.label, seat] = spec.build(seed=0)
    agents = [cache[spec.label, seat] for seat, spec in enumerate(specs)]
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
    return GameRecord(**vars(result), task=task)


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
    same.  Raises :class:`~zavandor_env.eval.ray_cluster.RayMissingError` when Ray is not
    installed and :class:`~zavandor_env.eval.ray_cluster.RayConnectionError` when the cluster
    cannot be joined.

    ``journal`` (a ``games.jsonl`` path) records every game on disk as it finishes (see
    :func:`~zavandor_env.eval.tournament_journal.open_journal`); with ``resume`` the games
    already there are not played again but returned with the new ones, so a run killed midway
    and resumed gives the records of an uninterrupted one (wall-clock seconds aside).  A
    journal of another tournament raises :class:`~zavandor_env.eval.journal.JournalError`.  A
    run stopped before any game finished removes its journal.

    The journal's folder is locked while the games are played (a second run writing there is
    refused in one :class:`OutputDirError` line), and released at the end unless it was
    held before (by :meth:`~zavandor_env.eval.run_folder.ReportFolder.prepare`: then the
    report's ``write`` releases it) -- or when the run fails, which ends it.
    """
    folder = None if journal is None else Path(journal).parent
    taken = folder is not None and lock_output_dir(folder)
    try:
        log, records = (None, []) if journal is None else open_journal(journal, config, resume)
        played = {rec.task for rec in records}
        try:
            _play_tasks(config, [task for task in schedule(config) if task not in played],
                        records, log, on_record, progress, use_ray, address)
        except BaseException:
            if log is not None and not records:
                log.path.unlink(missing_ok=True)  # nothing to resume: leave no file behind
            raise
        finally:
            if log is not None:
                log.close()
    except BaseException:
        if folder is not None:
            release(folder)
        raise
    if taken and folder is not None:
        release(folder)
    records.sort(key=lambda r: (r.task.lineup, r.task.deal, r.task.rotation))
    return records


def _play_tasks(config: TournamentConfig, tasks: list[GameTask], records: list[GameRecord],
                log: Journal | None, on_record: Callable[[GameRecord], None] | None,
                progress: bool, use_ray: bool, address: str | None) -> None:
    """Play ``tasks``, appending each record to ``records`` (and the journal) as it ends."""
    from tqdm import tqdm

    def finished(rec: GameRecord) -> None:
        if log is not None:
            log.append(journal_entry(rec))  # durable before it counts as played
        records.append(rec)
        if on_record:
            on_record(rec)
        bar.update()

    if not tasks:
        return  # a resumed run whose games were all played: only the report is left to write
    # An interactive agent plays here: a worker has no terminal, the person would not be asked.
    workers = 1 if config.interactive else min(config.workers or os.cpu_count() or 1, len(tasks))
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

