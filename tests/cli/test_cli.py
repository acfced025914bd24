"""The ``zavandor`` command as a new user meets it: no hangs, no mixed results, one-line errors.

Most tests run ``python -m zavandor_env.cli`` in a subprocess with a timeout (a hang fails the
test instead of the suite), in a temporary directory (so default output lands there).
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.interrupt import terminal_sigint
from tests.outputs_helpers import child_env
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.cli import main
from zavandor_env.engine import Game
from zavandor_env.eval.match import play_game

TINY_GAME = "max_rounds: 3\nnum_players: 2\n"


def zavandor(*args: str, cwd: Path, timeout: float = 60,
             stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the command line in a subprocess; a hang raises TimeoutExpired (the test fails)."""
    return subprocess.run(
        [sys.executable, "-m", "zavandor_env.cli", *args], cwd=cwd, capture_output=True,
        text=True, timeout=timeout, input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        env=child_env(),  # this checkout's code, not an installed copy's
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A game file whose games stop after 3 rounds (fast tournaments)."""
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_GAME)
    return path


def eval_args(tiny: Path, *extra: str) -> list[str]:
    return ["eval", "--agents", "heuristic", "random", "--games", "2", "--game", str(tiny),
            "--workers", "1", "--quiet", "--no-chart", *extra]


# ---- 1. hangs -----------------------------------------------------------------------------
def test_eval_refuses_an_interactive_agent_instead_of_hanging(tmp_path):
    proc = zavandor("eval", "--agents", "human", "random", "--games", "2", cwd=tmp_path,
                    timeout=30)
    assert_one_line_error(proc, "human", "zavandor play")
    assert not (tmp_path / "eval_out").exists()


@pytest.mark.parametrize("seconds", ["nan", "inf", "-inf", "0", "-1"])
def test_bench_refuses_seconds_that_would_never_end_a_row(tmp_path, seconds):
    proc = zavandor("bench", "--seconds", seconds, "--players", "2", "--quiet", cwd=tmp_path,
                    timeout=30)
    assert_one_line_error(proc, "--seconds")


# ---- 2. silent data mixing ----------------------------------------------------------------
def test_eval_writes_to_a_new_default_directory_and_prints_it(tmp_path, tiny):
    first = zavandor(*eval_args(tiny), cwd=tmp_path)
    second = zavandor(*eval_args(tiny), cwd=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    dirs = sorted((tmp_path / "eval_out").iterdir())
    assert len(dirs) == 2 and all("-heuristic-random" in d.name for d in dirs)
    assert all((folder / "summary.json").is_file() for folder in dirs)
    printed = {first.stdout.strip().splitlines()[-1], second.stdout.strip().splitlines()[-1]}
    assert printed == {f"wrote 3 file(s) to {Path('eval_out') / d.name}" for d in dirs}


def test_a_second_eval_into_the_same_out_is_refused_without_overwrite(tmp_path, tiny):
    out = tmp_path / "out"
    first = zavandor(*eval_args(tiny, "--out", str(out), "--seed", "1"), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    before = (out / "summary.json").read_text()
    proc = zavandor(*eval_args(tiny, "--out", str(out), "--seed", "2"), cwd=tmp_path)
    assert_one_line_error(proc, "--overwrite")
    assert (out / "summary.json").read_text() == before  # the first result is intact


def test_overwrite_leaves_no_old_replays_beside_the_new_summary(tmp_path, tiny):
    out = tmp_path / "out"
    old = zavandor(*eval_args(tiny, "--out", str(out), "--save-replays", "--games", "4"),
                   cwd=tmp_path)
    assert old.returncode == 0 and len(list((out / "replays").glob("*.json"))) == 4
    new = zavandor(*eval_args(tiny, "--out", str(out), "--overwrite", "--seed", "5"),
                   cwd=tmp_path)
    assert new.returncode == 0, new.stderr
    assert not (out / "replays").exists()
    assert sorted(p.name for p in out.iterdir()) == ["games.csv", "summary.csv", "summary.json"]
    assert json.loads((out / "summary.json").read_text())["seed"] == 5


def test_eval_never_deletes_files_it_did_not_write(tmp_path, tiny):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    proc = zavandor(*eval_args(tiny, "--out", str(out), "--overwrite"), cwd=tmp_path)
    assert_one_line_error(proc, "notes.txt")
    assert (out / "notes.txt").read_text() == "mine"


def test_eval_checks_the_output_directory_before_playing(tmp_path, tiny):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    start = time.perf_counter()
    # 100,000 games would take minutes: the error must come first.
    proc = zavandor("eval", "--agents", "heuristic", "random", "--games", "100000", "--quiet",
                    "--out", str(blocker / "out"), cwd=tmp_path, timeout=60)
    assert_one_line_error(proc, "cannot write")
    assert time.perf_counter() - start < 30


# ---- 3. one-line errors -------------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (["eval", "--agents", "heuristic", "random", "--seed", "-1"], ["--seed"]),
    (["eval", "--agents", "heuristic", "random", "--players", "0"], ["--players"]),
    (["eval", "--agents", "heuristic", "random", "--games", "0"], ["--games"]),
    (["eval", "--agents", "heuristic", "random", "--workers", "-1"], ["--workers"]),
    (["eval", "--agents", "heuristic", "wizard"], ["wizard", "known agents"]),
    (["eval", "--agents", "mcts:iterationz=3", "random"], ["'mcts'", "iterationz", "iterations"]),
    (["eval", "--agents", "mcts:iterations", "random"], ["key=value"]),
    (["eval", "--agents", "heuristic", "policy:path=missing.zip"], ["missing.zip"]),
    (["bench", "--players", "7"], ["--players"]),
    (["play", "--seed", "-3"], ["--seed"]),
    (["play", "--seat", "5"], ["--seat", "0..1"]),
    (["play", "wizard"], ["wizard"]),
    (["replay", "absent.json"], ["absent.json"]),
])
def test_user_errors_end_in_one_line_and_exit_code_2(tmp_path, args, words):
    assert_one_line_error(zavandor(*args, cwd=tmp_path, timeout=30), *words)


def test_a_bad_policy_path_fails_before_any_worker_starts(tmp_path):
    proc = zavandor("eval", "--agents", "heuristic", "policy:path=nope.npz", "--workers", "2",
                    "--games", "100000", "--quiet", cwd=tmp_path, timeout=30)
    assert_one_line_error(proc, "nope.npz", "does not exist")
    assert not (tmp_path / "eval_out").exists()


def _long_replay(tmp_path: Path) -> Path:
    result = play_game([HeuristicAgent(seed=1), HeuristicAgent(seed=2)], seed=3,
                       record_replay=True)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(result.replay))
    return path


def test_replay_into_a_closed_pipe_exits_quietly(tmp_path):
    path = _long_replay(tmp_path)  # --every-decision prints far more than a pipe buffer
    proc = subprocess.Popen(
        [sys.executable, "-m", "zavandor_env.cli", "replay", str(path), "--every-decision"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(200)  # like `| head`: read a little, then go away
    proc.stdout.close()
    rc = proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    assert "Traceback" not in err and "BrokenPipe" not in err and err.strip() == ""
    assert rc == 0


# ---- 4. play ------------------------------------------------------------------------------
def test_play_quit_saves_the_game_and_exits_0(tmp_path):
    save = tmp_path / "quit.json"
    proc = zavandor("play", "random", "--no-colour", "--save", str(save), cwd=tmp_path,
                    stdin="table\nquit\n", timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "saved to" in proc.stdout
    record = json.loads(save.read_text())
    assert not Game.from_replay_record(record).is_over and record["agents"][0] == "human"
    shown = zavandor("replay", str(save), cwd=tmp_path, timeout=30)
    assert shown.returncode == 0 and "Saved before the end" in shown.stdout


def test_ctrl_c_during_play_saves_the_game_so_far(tmp_path):
    save = tmp_path / "interrupted.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "zavandor_env.cli", "play", "random", "--no-colour",
         "--save", str(save)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=terminal_sigint,
    )
    seen: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        while chunk := proc.stdout.read(1):
            seen.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 30
    while "your decision>" not in "".join(seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "your decision>" in "".join(seen)
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=30)
    reader.join(timeout=5)
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert rc == 130 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "saved to" in err
    assert Game.from_replay_record(json.loads(save.read_text())).state.round >= 1


def test_eof_at_the_prompt_saves_the_game_so_far_in_process(tmp_path, monkeypatch, capsys):
    answers = iter(["table"])

    def fake_input(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)
    save = tmp_path / "eof.json"
    assert main(["play", "random", "--no-colour", "--save", str(save)]) == 130
    assert "saved to" in capsys.readouterr().err
    assert Game.from_replay_record(json.loads(save.read_text())).config.num_players == 2


def test_play_announces_who_won_each_auction_and_the_price(monkeypatch, capsys):
    printed: list[str] = []
    real_print = builtins.print

    def spy_print(*args, **kwargs):
        printed.append(" ".join(str(a) for a in args))
        real_print(*args, **kwargs)

    calls = iter(range(5000))

    def fake_input(prompt: str) -> str:
        if next(calls, None) is None:
            raise EOFError  # bounded: a regression fails the test instead of looping
        if sum("won the" in p for p in printed) >= 2:
            return "quit"
        menu = next(p for p in reversed(printed) if p.startswith("Legal actions:"))
        for name in ("end_turn", "pass"):
            if f" {name} " in menu:
                return name
        return menu.splitlines()[1].split()[0]  # the first legal action's number

    monkeypatch.setattr(builtins, "input", fake_input)
    monkeypatch.setattr(builtins, "print", spy_print)
    assert main(["play", "heuristic", "--no-colour", "--seed", "1"]) == 0
    news = [p for p in printed if "auction:" in p and "won the" in p]
    assert news and "player_1 (heuristic) won the" in news[0] and " energy" in news[0]


# ---- 5. bench -----------------------------------------------------------------------------
def test_bench_json_rows_include_games_that_end_by_the_rules(tmp_path):
    out = tmp_path / "bench.json"
    proc = zavandor("bench", "--players", "2", "--seconds", "0.05", "--quiet", "--json",
                    str(out), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(out.read_text())
    assert isinstance(rows, list) and rows
    for row in rows:
        assert {"name", "players", "per_second", "unit"} <= set(row)
        assert row["per_second"] > 0 and row["players"] >= 2
    names = [r["name"] for r in rows]
    assert any("random" in n for n in names)
    ended = [r for r in rows if "heuristic games" in r["name"] or "self-play" in r["name"]]
    assert len(ended) >= 3 and all(r["truncated_share"] == 0.0 for r in ended)
    assert any(r["name"].startswith("zavandor_v0 env(), heuristic") for r in ended)
    for kind in ("uniformly random play", "replayed heuristic games", "clone a mid-game"):
        for tag in ("[Game API]", "[C++ loop]"):  # each Game API row beside its C++ loop twin
            assert any(n.startswith(f"engine {tag}, {kind}") for n in names), (tag, kind)
    assert any(n.startswith("vector env") for n in names)
    assert any(n.startswith("mcts, ") for n in names)
    frames = [r for r in rows if "rgb_array frames" in r["name"]]
    assert importlib.util.find_spec("PIL") is None or (
        len(frames) == 1 and frames[0]["unit"] == "frames/s")
    if importlib.util.find_spec("rlcard") is None:  # the peers' extra: pip install .[bench]
        return
    assert any("texas_holdem_v4" in n for n in names) and any("connect_four" in n for n in names)


def test_bench_checks_the_json_path_before_timing(tmp_path):
    proc = zavandor("bench", "--players", "2", "--seconds", "100", "--quiet", "--json",
                    str(tmp_path / "no_such_dir" / "b.json"), cwd=tmp_path, timeout=30)
    assert_one_line_error(proc, "no_such_dir")


# ---- 6. every subcommand: --help, and a wrong argument ------------------------------------
SUBCOMMANDS = ["bench", "eval", "ladder", "play", "replay", "train"]


@pytest.mark.parametrize("command", [[], *[[c] for c in SUBCOMMANDS]])
def test_help_works_and_exits_0(tmp_path, command):
    proc = zavandor(*command, "--help", cwd=tmp_path, timeout=30)
    assert proc.returncode == 0 and "usage: zavandor" in proc.stdout and not proc.stderr


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_a_wrong_argument_gives_a_one_line_usage_error(tmp_path, command):
    needed = ["game.json"] if command == "replay" else []  # its one required argument
    proc = zavandor(command, *needed, "--no-such-option", cwd=tmp_path, timeout=30)
    assert_one_line_error(proc, "--no-such-option")


def test_bench_help_describes_the_rows_of_games_that_end(tmp_path):
    proc = zavandor("bench", "--help", cwd=tmp_path, timeout=30)
    text = " ".join(proc.stdout.split())
    assert "heuristic self-play" in text and "--json" in text and "truncated" in text


def test_ctrl_c_during_eval_stops_every_worker_with_one_line(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "zavandor_env.cli", "eval", "--agents", "heuristic",
         "mcts:iterations=4", "--games", "100000", "--workers", "2", "--quiet",
         "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C reaches
        preexec_fn=terminal_sigint, env=child_env(),
    )
    time.sleep(3)
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    [line] = err.strip().splitlines()
    assert line.startswith("zavandor eval: interrupted"), line
    out = tmp_path / "out"
    if out.exists():  # games finished before Ctrl-C: kept for --resume, nothing else
        assert [p.name for p in out.iterdir()] == ["games.jsonl"] and "--resume" in line
    else:  # none had: no empty report directory left behind
        assert line == "zavandor eval: interrupted"
