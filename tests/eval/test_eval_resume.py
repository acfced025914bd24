"""A killed ``zavandor eval`` keeps every finished game (``games.jsonl``, fsynced per game) and
``--resume`` plays only the missing ones, to the result of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.outputs_helpers import assert_nothing_half_written, child_env
from zavandor_env.agents.registry import parse_spec
from zavandor_env.cli import main
from zavandor_env.eval.journal import JournalError
from zavandor_env.eval.tournament import GameRecord, TournamentConfig
from zavandor_env.eval.tournament_journal import JOURNAL_FILE
from zavandor_env.eval.tournament_report import TournamentReport
from zavandor_env.eval.tournament_run import run_tournament


def config(seed: int = 0, games: int = 6, replays: bool = False) -> TournamentConfig:
    return TournamentConfig([parse_spec("heuristic"), parse_spec("random")], games=games,
                            seed=seed, workers=1, save_replays=replays,
                            game_options={"max_rounds": 2})


class Killed(BaseException):
    """Stands for ``kill -9`` in the in-process tests: nothing after it runs."""


def interrupted(cfg: TournamentConfig, journal: Path, after: int) -> None:
    """Play ``cfg`` until ``after`` games are journaled, then stop as if killed."""
    count = [0]

    def stop(_rec: GameRecord) -> None:
        count[0] += 1
        if count[0] == after:
            raise Killed

    with pytest.raises(Killed):
        run_tournament(cfg, progress=False, on_record=stop, journal=journal)


def without_seconds(records: list[GameRecord]) -> list[tuple]:
    return [(r.task, r.seed, r.labels, r.outcome, r.replay) for r in records]


def game_lines(journal: Path) -> list[str]:
    return journal.read_text().splitlines()[1:]


def test_resume_plays_only_the_missing_games_to_the_uninterrupted_result(tmp_path):
    cfg, journal = config(replays=True), tmp_path / JOURNAL_FILE
    interrupted(cfg, journal, after=2)
    assert len(game_lines(journal)) == 2  # each game on disk as soon as it ended
    played: list[GameRecord] = []
    resumed = run_tournament(cfg, progress=False, on_record=played.append, journal=journal,
                             resume=True)
    assert len(played) == 4 and len(resumed) == 6
    clean = run_tournament(cfg, progress=False)
    assert without_seconds(resumed) == without_seconds(clean)
    assert len(game_lines(journal)) == 6


def test_a_torn_last_line_is_dropped_and_its_game_played_again(tmp_path):
    cfg, journal = config(), tmp_path / JOURNAL_FILE
    interrupted(cfg, journal, after=3)
    with open(journal, "ab") as fh:  # killed in the middle of writing the fourth game
        fh.write(b'{"lineup":0,"deal":1,"rotat')
    played: list[GameRecord] = []
    resumed = run_tournament(cfg, progress=False, on_record=played.append, journal=journal,
                             resume=True)
    assert len(played) == 3 and len(resumed) == 6
    assert without_seconds(resumed) == without_seconds(run_tournament(cfg, progress=False))
    assert all(json.loads(line) for line in game_lines(journal))  # the torn bytes were cut


@pytest.mark.parametrize("damage, problem", [
    (lambda lines: lines[:1] + ["{oops"] + lines[1:], "not valid JSON"),
    (lambda lines: lines + [lines[1]], "repeats game"),
    (lambda lines: lines[:1] + [lines[1].replace('"heuristic"', '"mallory"')] + lines[2:],
     "seats"),
    (lambda lines: lines[:1] + [lines[1].replace('"lineup":0', '"lineup":0.0')] + lines[2:],
     "lineup"),
    (lambda lines: lines[:1] + [lines[1].replace('"scores":[', '"scores":[1e400,')] + lines[2:],
     "out of range"),
    (lambda lines: ["[]"] + lines[1:], "no header"),
])
def test_a_damaged_or_foreign_journal_is_refused_in_one_line(tmp_path, damage, problem):
    cfg, journal = config(), tmp_path / JOURNAL_FILE
    interrupted(cfg, journal, after=2)
    journal.write_text("\n".join(damage(journal.read_text().splitlines())) + "\n")
    with pytest.raises(JournalError, match=problem) as info:
        run_tournament(cfg, progress=False, journal=journal, resume=True)
    assert "\n" not in str(info.value)


def test_a_resume_of_another_tournament_is_refused_in_one_line(tmp_path, capsys):
    out, game = tmp_path / "out", tmp_path / "game.yaml"
    out.mkdir()
    game.write_text("num_players: 2\nmax_rounds: 2\n")
    interrupted(config(seed=1), out / JOURNAL_FILE, after=2)
    before = (out / JOURNAL_FILE).read_bytes()
    args = ["eval", "--agents", "heuristic", "random", "--games", "6", "--workers", "1",
            "--quiet", "--no-chart", "--out", str(out), "--resume", "--game", str(game)]
    for changed, what in ((["--seed", "2"], "seed 1 there, 2 now"),
                          (["--seed", "1", "--players", "3"], "num_players"),
                          (["--seed", "1", "--games", "8"], "games"),
                          (["--seed", "1", "--save-replays"], "save_replays")):
        assert main([*args, *changed]) == 2
        err = capsys.readouterr().err
        assert "another tournament" in err and what in err, err
        assert len(err.strip().splitlines()) == 1
    assert (out / JOURNAL_FILE).read_bytes() == before  # refused before anything was touched
    assert main([*args, "--seed", "1"]) == 0  # the same tournament: resumed


def test_a_new_run_into_an_interrupted_runs_folder_points_to_resume(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    interrupted(config(), out / JOURNAL_FILE, after=2)
    assert main(["eval", "--agents", "heuristic", "random", "--quiet", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "interrupted eval" in err and "--resume" in err and "--overwrite" in err


def test_resume_needs_the_folder_of_an_interrupted_run(tmp_path, capsys):
    base = ["eval", "--agents", "heuristic", "random", "--quiet", "--resume"]
    assert main(base) == 2 and "give --out" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path), "--overwrite"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "new")]) == 2
    assert "nothing to resume" in capsys.readouterr().err


def test_the_journal_is_removed_once_the_report_holds_its_games(tmp_path):
    cfg, out = config(), tmp_path / "out"
    out.mkdir()
    records = run_tournament(cfg, progress=False, journal=out / JOURNAL_FILE)
    assert (out / JOURNAL_FILE).is_file()
    TournamentReport.build(cfg, records).write(out, chart=False)
    assert sorted(p.name for p in out.iterdir()) == ["games.csv", "summary.csv", "summary.json"]


# ---- the real thing: kill -9 of `zavandor eval --workers 2` midway ---------------------------
def report_without_wall_clock(out: Path) -> tuple[dict, list[str]]:
    summary = json.loads((out / "summary.json").read_text())
    del summary["mean_seconds_per_game"]
    games = [line.rsplit(",", 1)[0] for line in (out / "games.csv").read_text().splitlines()]
    return summary, games


@pytest.mark.slow  # three tournaments of tree-search games, one of them in a child process
def test_eval_killed_midway_resumes_to_the_result_of_a_clean_run(tmp_path):
    args = ["eval", "--agents", "heuristic", "mcts:iterations=4,label=m4", "--games", "10",
            "--workers", "2", "--quiet", "--no-chart", "--save-replays"]
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "zavandor_env.cli", *args, "--out",
                             str(killed)], cwd=tmp_path, env=child_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    journal = killed / JOURNAL_FILE
    try:
        deadline = time.monotonic() + 120
        while not journal.is_file() or len(journal.read_text().splitlines()) < 3:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no two games within 2 minutes"
            time.sleep(0.02)
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGKILL)  # the eval process itself, as kill -9 does
        proc.wait(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its orphaned pool workers
        except ProcessLookupError:
            pass
    finished = len(game_lines(journal))
    assert 2 <= finished < 10 and not (killed / "summary.json").exists()
    assert main([*args, "--out", str(killed), "--resume"]) == 0
    assert main([*args, "--out", str(tmp_path / "clean")]) == 0
    assert report_without_wall_clock(killed) == report_without_wall_clock(tmp_path / "clean")
    replays = sorted(p.name for p in (killed / "replays").iterdir())
    assert replays == sorted(p.name for p in (tmp_path / "clean" / "replays").iterdir())
    for name in replays:
        assert (killed / "replays" / name).read_text() == (
            tmp_path / "clean" / "replays" / name).read_text()
    assert not journal.exists()
    assert_nothing_half_written(killed)
