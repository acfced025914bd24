"""A full disk mid-write leaves the old file or none: never an empty or cut-short report,
replay page, chart or bench file, never a temporary file, and the error is one line.

The disk is "full" for a child process whose files may not grow past a few kilobytes
(``RLIMIT_FSIZE``): its writes then fail midway with EFBIG, as they would with ENOSPC.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.outputs_helpers import (
    assert_nothing_half_written,
    assert_one_line_error,
    child_env,
    file_size_limit,
    zavandor,
)
from zavandor_env.agents.base import RandomAgent
from zavandor_env.cli import main
from zavandor_env.engine import GameConfig
from zavandor_env.eval.match import play_game

TINY_GAME = "max_rounds: 2\nnum_players: 2\n"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_GAME)
    return path


def test_eval_on_a_full_disk_leaves_no_partial_report_and_keeps_its_games(tmp_path, tiny):
    out = tmp_path / "out"
    args = ["eval", "--agents", "heuristic", "random", "--games", "2", "--game", str(tiny),
            "--workers", "1", "--quiet", "--no-chart", "--out", str(out)]
    # Room for the journal of two games (~800 bytes), not for summary.json (~1,400).
    proc = zavandor(*args, cwd=tmp_path, file_limit=1_024)
    line = assert_one_line_error(proc, "cannot write the report", "--resume")
    assert "File too large" in line
    assert not (out / "summary.json").exists()  # not a summary cut short
    assert (out / "games.jsonl").is_file()  # every game is kept: no need to play them again
    assert_nothing_half_written(out)
    assert main([*args, "--resume"]) == 0  # space freed: the report is written
    assert sorted(p.name for p in out.iterdir()) == ["games.csv", "summary.csv", "summary.json"]
    assert json.loads((out / "summary.json").read_text())["games"] == 2


def test_eval_whose_journal_cannot_grow_stops_in_one_line_and_resumes(tmp_path, tiny):
    out = tmp_path / "out"
    args = ["eval", "--agents", "heuristic", "random", "--games", "8", "--game", str(tiny),
            "--workers", "1", "--quiet", "--no-chart", "--out", str(out)]
    proc = zavandor(*args, cwd=tmp_path, file_limit=1_200)  # the header and about two games
    assert_one_line_error(proc, "cannot record the games", "--resume")
    torn = (out / "games.jsonl").read_bytes()
    assert not torn.endswith(b"\n")  # the game being written when the disk filled: torn
    assert main([*args, "--resume"]) == 0
    assert main([*args[:-1], str(tmp_path / "clean")]) == 0
    assert _without_seconds(out / "games.csv") == _without_seconds(tmp_path / "clean" /
                                                                   "games.csv")


def _without_seconds(path: Path) -> list[str]:
    return [line.rsplit(",", 1)[0] for line in path.read_text().splitlines()]


def short_replay() -> dict:
    result = play_game([RandomAgent(seed=1), RandomAgent(seed=2)], seed=3, record_replay=True,
                       config=GameConfig(num_players=2, max_rounds=1))
    assert result.replay is not None
    return {**result.replay, "agents": ["a", "b"]}


def test_replay_html_on_a_full_disk_keeps_the_old_page(tmp_path):
    game = tmp_path / "game.json"
    game.write_text(json.dumps(short_replay()))
    page = tmp_path / "game.html"
    page.write_text("the old page")
    proc = zavandor("replay", str(game), "--html", str(page), cwd=tmp_path, file_limit=20_000)
    assert_one_line_error(proc, "cannot write", "File too large")
    assert page.read_text() == "the old page"
    assert_nothing_half_written(tmp_path)


def test_bench_json_on_a_full_disk_keeps_the_old_file_in_one_line(tmp_path):
    rows = tmp_path / "rows.json"
    rows.write_text("[]\n")
    proc = zavandor("bench", "--players", "2", "--seconds", "0.05", "--engine-only",
                    "--python-only", "--quiet", "--json", str(rows), cwd=tmp_path,
                    file_limit=100)
    assert_one_line_error(proc, "cannot write", "File too large")
    assert rows.read_text() == "[]\n"
    assert_nothing_half_written(tmp_path)


def test_scorecard_on_a_full_disk_leaves_no_partial_card(tmp_path, tiny):
    out = tmp_path / "card"
    proc = zavandor("scorecard", "random", "--players", "2", "--games", "2", "--opponents",
                    "random", "--game", str(tiny), "--workers", "1", "--quiet", "--out",
                    str(out), cwd=tmp_path, file_limit=2_000)  # scorecard.json is ~2,400
    assert_one_line_error(proc, "cannot write the card", "File too large")
    assert not (out / "scorecard.json").exists()  # not a card cut short
    assert_nothing_half_written(out)


def test_the_live_page_of_human_rendering_on_a_full_disk_leaves_nothing_half_written(tmp_path):
    code = ("from zavandor_env.engine import Game\n"
            "from zavandor_env.render.modes import Renderer\n"
            "try:\n"
            "    Renderer('human')(Game.new(seed=1))\n"
            "except OSError as exc:\n"
            "    print('refused:', exc.strerror)\n")
    env = {**child_env(), "TMPDIR": str(tmp_path), "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=60, preexec_fn=file_size_limit(2_000))
    assert "refused: File too large" in proc.stdout, proc.stdout + proc.stderr
    assert_nothing_half_written(tmp_path)
