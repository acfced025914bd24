"""Folders someone sends us (eval and ladder ``--out``, training run folders): no write or
delete of ours goes through a symlink or leaves the folder, one writer at a time holds a
folder, labels from a folder print escaped, and CSV cells never become formulas."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.outputs_helpers import child_env
from zavandor_env.agents.registry import parse_spec
from zavandor_env.eval.run_folder import OutputDirError
from zavandor_env.eval.tournament import TournamentConfig
from zavandor_env.eval.tournament_journal import JOURNAL_FILE
from zavandor_env.eval.tournament_report import REPLAY_DIR, TournamentReport, prepare_output_dir
from zavandor_env.eval.tournament_run import run_tournament
from zavandor_env.io.csvfiles import csv_text
from zavandor_env.io.folders import Folder, FolderError, FolderInUseError, hold, release


def tiny(replays: bool = True) -> TournamentConfig:
    agents = [parse_spec("heuristic"), parse_spec("random")]
    return TournamentConfig(agents, games=2, seed=0, workers=1, save_replays=replays,
                            game_options={"max_rounds": 2})


def eval_folder(root: Path, name: str) -> Path:
    """A finished eval folder with its replays (made by the tournament itself)."""
    out = root / name
    prepare_output_dir(out)
    records = run_tournament(tiny(), progress=False, journal=out / JOURNAL_FILE)
    TournamentReport.build(tiny(), records).write(out, chart=False)
    assert list((out / REPLAY_DIR).iterdir())
    return out


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- symlinks in an eval folder ------------------------------------------------------------
def test_overwrite_never_deletes_replays_through_a_symlinked_replays_folder(tmp_path):
    other = eval_folder(tmp_path, "other")
    mine = eval_folder(tmp_path, "mine")
    before = snapshot(other)
    for path in (mine / REPLAY_DIR).iterdir():
        path.unlink()
    (mine / REPLAY_DIR).rmdir()
    (mine / REPLAY_DIR).symlink_to(other / REPLAY_DIR)
    with pytest.raises(OutputDirError, match="did not write") as info:
        prepare_output_dir(mine, overwrite=True)
    assert "\n" not in str(info.value)
    with pytest.raises(OutputDirError, match="symlink"):
        TournamentReport.build(tiny(), []).write(mine, chart=False, replace=True)
    assert snapshot(other) == before  # not one replay of the other eval deleted


def test_resume_never_appends_through_a_symlinked_journal(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    cfg = tiny(replays=False)
    prepare_output_dir(other)
    run_tournament(cfg, progress=False, journal=other / JOURNAL_FILE)  # a journal to aim at
    release_all(other)
    before = (other / JOURNAL_FILE).read_bytes()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / JOURNAL_FILE).symlink_to(other / JOURNAL_FILE)
    with pytest.raises(OutputDirError):
        prepare_output_dir(mine, resume=True)
    with pytest.raises(ValueError, match="symlink"):
        run_tournament(cfg, progress=False, journal=mine / JOURNAL_FILE, resume=True)
    assert (other / JOURNAL_FILE).read_bytes() == before


def test_an_out_folder_that_is_a_symlink_is_refused_in_one_line(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(OutputDirError, match="is a symlink") as info:
        prepare_output_dir(tmp_path / "link")
    assert "\n" not in str(info.value)


def release_all(*folders: Path) -> None:
    for folder in folders:
        release(folder)


# ---- the Folder itself -----------------------------------------------------------------------
def test_a_folder_refuses_symlinks_files_in_place_of_folders_and_plain_name_escapes(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (root / "sub").symlink_to(outside)
    (root / "file").write_text("x")
    folder = Folder.open(root)
    for parts in (("sub", "keep.txt"), ("file", "x"), ("..", "outside"), ("a/b",)):
        with pytest.raises(FolderError):
            folder.unlink(*parts)
    with pytest.raises(FolderError, match="symlink"):
        folder.write("sub", "new.txt", content="x")
    with pytest.raises(FolderError, match="symlink"):
        folder.rmtree("sub")
    with pytest.raises(FolderError, match="file where a folder"):
        folder.dir("file", create=True)
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    (root / "link.txt").symlink_to(outside / "keep.txt")
    with pytest.raises(FolderError, match="symlink"):
        folder.unlink("link.txt")
    assert (outside / "keep.txt").read_text() == "keep"


# ---- one writer per folder -----------------------------------------------------------------
HOLD_IN_CHILD = textwrap.dedent("""
    import sys, time
    from zavandor_env.io.folders import hold
    hold(sys.argv[1])
    print("held", flush=True)
    time.sleep(60)
""")


def test_a_second_writer_of_a_folder_is_refused_naming_the_holder(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", HOLD_IN_CHILD, str(tmp_path)],
                             stdout=subprocess.PIPE, text=True, env=child_env())
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        with pytest.raises(FolderInUseError) as info:
            hold(tmp_path)
        assert str(info.value) == f"{tmp_path} is in use by another run (pid {child.pid})"
        with pytest.raises(OutputDirError, match="in use by another run"):
            prepare_output_dir(tmp_path, overwrite=True)
    finally:
        child.kill()
        child.wait()
    # The holder was killed: its lock died with it (a stale pid file does not block).
    assert hold(tmp_path)
    release(tmp_path)
    assert not (tmp_path / ".zavandor-lock").exists()


def test_two_evals_resuming_one_folder_at_once_cannot_interleave(tmp_path):
    """The second ``eval --resume`` of a folder whose first is still running is refused
    before it touches the journal (the first holds the lock for its whole run)."""
    out = tmp_path / "out"
    script = textwrap.dedent(f"""
        import sys, time
        from zavandor_env.eval.tournament_report import prepare_output_dir
        out = prepare_output_dir({str(out)!r})
        (out / "games.jsonl").write_text('{{"format": "zavandor eval games"}}\\n')
        print("ready", flush=True)
        time.sleep(60)
    """)
    first = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             text=True, env=child_env())
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "ready"
        second = subprocess.run(
            [sys.executable, "-m", "zavandor_env.cli", "eval", "--agents", "heuristic",
             "random", "--games", "2", "--workers", "1", "--quiet", "--no-chart",
             "--out", str(out), "--resume"],
            capture_output=True, text=True, env=child_env(), timeout=120)
        assert second.returncode == 2, second.stderr
        assert second.stderr.strip() == (f"zavandor eval: {out} is in use by another run "
                                         f"(pid {first.pid})")
    finally:
        first.kill()
        first.wait()


# ---- run folders -----------------------------------------------------------------------------
def crafted_run(root: Path) -> Path:
    from tests.train.test_train_trust import crafted_run as make

    return make(root)


def test_a_second_train_resume_of_a_run_folder_in_use_is_refused_in_one_line(tmp_path,
                                                                             capsys):
    from zavandor_env.cli import main

    run = crafted_run(tmp_path)
    before = snapshot(run)
    child = subprocess.Popen([sys.executable, "-c", HOLD_IN_CHILD, str(run)],
                             stdout=subprocess.PIPE, text=True, env=child_env())
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        assert main(["train", "--resume", str(run)]) == 2
        err = capsys.readouterr().err
        assert err == (f"zavandor train: {run} is in use by another run (pid {child.pid})\n")
    finally:
        child.kill()
        child.wait()
    after = snapshot(run)
    after.pop(".zavandor-lock", None)  # the killed holder's pid, left as kill -9 leaves it
    assert after == before  # nothing recorded, written or pruned by the refused resume


@pytest.mark.parametrize("sub", ["checkpoints", "pool"])
def test_resume_refuses_a_run_folder_whose_checkpoints_or_pool_is_a_symlink(tmp_path, sub,
                                                                          capsys):
    from zavandor_env.cli import main

    victim = crafted_run(tmp_path / "victim")
    before = snapshot(victim)
    attacker = crafted_run(tmp_path / "attacker")
    import shutil

    shutil.rmtree(attacker / sub)
    (attacker / sub).symlink_to(victim / sub)
    assert main(["train", "--resume", str(attacker)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "symlink" in err and sub in err, err
    assert snapshot(victim) == before


def test_a_checkpoint_writer_never_prunes_or_rewrites_latest_through_a_symlink(tmp_path):
    from zavandor_env.train.common.checkpointing import CheckpointError, CheckpointWriter

    victim = crafted_run(tmp_path / "victim")
    before = snapshot(victim)
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoints").symlink_to(victim / "checkpoints")
    with pytest.raises(CheckpointError, match="symlink"):
        CheckpointWriter(run).write(1, lambda path: path.write_bytes(b"x"), {})
    assert snapshot(victim) == before


def test_pool_pruning_deletes_only_regular_snapshot_files_of_its_own_folder(tmp_path):
    from zavandor_env.train.common.checkpointing import CheckpointError
    from zavandor_env.train.common.pool import OpponentPool
    from zavandor_env.train.config import TrainConfig

    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "snap_000000001.npz").write_bytes(b"victim's")
    run = tmp_path / "run"
    run.mkdir()
    (run / "pool").symlink_to(victim)
    with pytest.raises(CheckpointError, match="symlink"):
        OpponentPool(run / "pool", TrainConfig()).prune_files()
    assert (victim / "snap_000000001.npz").exists()


def test_labels_from_a_run_folder_print_escaped_in_the_run_report(tmp_path, capsys):
    from zavandor_env.cli.train import report

    run = tmp_path / "run"
    run.mkdir()
    figures = {"wins": 1, "games": 2, "winrate": 0.5, "mean_vp": 1.0, "mean_opponent_vp": 1.0,
               "mean_rounds": 2.0, "truncated": 0.0}
    (run / "eval.json").write_text(json.dumps({"eval": {"x\x1b[2Jy": figures}}))
    report(run)
    out = capsys.readouterr().out
    assert "\x1b" not in out and "x\\x1b[2Jy" in out


# ---- CSV ---------------------------------------------------------------------------------------
def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised():
    text = csv_text(["label", "vp"], [["=HYPERLINK(\"http://x\")", -3], ["+1", 2], ["-a", 0],
                                      ["@SUM(A1)", 1], ["\t=1", 1], ["plain", -1]])
    rows = [line.split(",", 1) for line in text.splitlines()[1:]]
    assert [r[0] for r in rows] == ['"\'=HYPERLINK(""http://x"")"', "'+1", "'-a", "'@SUM(A1)",
                                    "'\t=1", "plain"]
    assert [r[1] for r in rows] == ["-3", "2", "0", "1", "1", "-1"]  # numbers stay numbers


def test_the_tournament_csv_files_neutralise_a_formula_label(tmp_path):
    agents = [parse_spec("heuristic:label==cmd|x!A0"), parse_spec("random:label=@x")]
    cfg = TournamentConfig(agents, games=2, seed=0, workers=1, game_options={"max_rounds": 2})
    TournamentReport.build(cfg, run_tournament(cfg, progress=False)).write(tmp_path,
                                                                           chart=False)
    for name in ("summary.csv", "games.csv"):
        cells = [line.split(",") for line in (tmp_path / name).read_text().splitlines()[1:]]
        labels = {c for row in cells for c in row if "cmd" in c or "@x" in c}
        assert labels and all(c.lstrip('"').startswith("'") for c in labels), (name, labels)


def test_nothing_is_left_in_a_folder_after_a_clean_eval(tmp_path):
    out = eval_folder(tmp_path, "out")
    assert not (out / ".zavandor-lock").exists()
    assert os.listdir(out) and all(not n.startswith(".") for n in os.listdir(out))
