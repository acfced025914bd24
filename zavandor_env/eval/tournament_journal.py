"""The journal of a tournament's finished games (``games.jsonl``), for ``--resume``.

While the games are played, each one is appended to the report folder's journal (one line,
flushed and fsynced, :class:`~zavandor_env.eval.journal.Journal`) as it finishes, so a run
killed midway resumes by playing only the missing games: the same per-game seeds make the
records those of an uninterrupted run.  The header records what decides the games
(:func:`journal_spec`): a resumed run must be the same tournament.  The journal is read back
as a bounded stream, each line checked against the schedule and the engine's limits as it is
read (a hand-edited or foreign line is refused in one :class:`JournalError` line, not
believed).  The report removes the journal once it holds its games.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zavandor_env.engine.config import MAX_DECISIONS, MAX_ROUNDS
from zavandor_env.engine.outcome import Outcome
from zavandor_env.eval.journal import Journal, JournalError, read_journal_checked
from zavandor_env.eval.tournament import (
    GameRecord,
    GameTask,
    TournamentConfig,
    schedule,
    seated,
)
from zavandor_env.io.limits import MAX_GAME_SECONDS
from zavandor_env.io.saved_games import MAX_VP

#: The tournament's journal in its report directory (removed once the report is written).
JOURNAL_FILE = "games.jsonl"
_JOURNAL_FORMAT = "zavandor eval games"


def journal_spec(config: TournamentConfig) -> dict[str, Any]:
    """What decides the games of ``config`` (not ``workers`` or Ray: they change no result),
    as plain JSON data: a resumed run must have the same."""
    spec = {
        "agents": config.agents_data(),
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
    if not resume:
        return Journal.create(path, {"format": _JOURNAL_FORMAT, "version": 1,
                                     "spec": journal_spec(config)}), []
    path = Path(path)
    if not path.is_file():
        raise JournalError(f"nothing to resume: {str(path.parent)!r} holds no {path.name} "
                           "(no game of an interrupted run); start without --resume")
    # Each line is checked as it is read (a junk line stops the read there), and the file is
    # checked whole before it is touched.
    _, records, intact = read_journal_checked(
        path, _entry_checker(path, config),
        lambda header, _where: _check_header(path, header, journal_spec(config)))
    return Journal.append_after(path, intact), records


def _entry_checker(path: Path, config: TournamentConfig,
                   ) -> Callable[[Any, str], GameRecord]:
    """The check of one journal line of ``config``'s tournament: a game of its schedule,
    seated as scheduled, not seen before, every number within the engine's limits."""
    seatings = {task: [s.label for s in seated(config.lineups()[task.lineup], task.rotation)]
                for task in schedule(config)}
    seen: set[GameTask] = set()

    def check(entry: Any, where: str) -> GameRecord:
        rec = _journal_record(entry, config, seatings, where)
        if rec.task in seen:
            raise JournalError(f"{where} repeats game {_task_name(rec.task)}")
        seen.add(rec.task)
        return rec

    return check


def _check_header(path: Path, header: dict[str, Any], current: dict[str, Any]) -> None:
    """Refuse a journal that is not of zavandor eval, or holds another tournament's games."""
    if header.get("format") != _JOURNAL_FORMAT or header.get("version") != 1:
        raise JournalError(f"{path} is not a journal of zavandor eval (format "
                           f"{str(header.get('format'))[:40]!r})")
    recorded = header.get("spec")
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


def journal_entry(rec: GameRecord) -> dict[str, Any]:
    """One finished game as a journal line (everything its report rows and replay need)."""
    return {"lineup": rec.task.lineup, "deal": rec.task.deal, "rotation": rec.task.rotation,
            "seed": rec.seed, "labels": rec.labels, "outcome": dataclasses.asdict(rec.outcome),
            "seconds": rec.seconds, "replay": rec.replay}


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
    return GameRecord(entry["seed"], list(labels), outcome, float(seconds), replay, task=task)


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
