"""Journals read back from a folder someone sent (``eval --resume``, ``ladder --resume``): read
as a bounded stream, each line checked as it is read, every number within the engine's
limits; any problem is one line naming the file and line, and nothing outside the folder is
written or deleted.  Also the fuzz of folder layouts (symlinks, files and folders swapped)."""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.fuzz_budget import FUZZ_EXAMPLES, FUZZ_SETTINGS
from zavandor_env.agents.registry import parse_spec
from zavandor_env.eval.journal import JournalError
from zavandor_env.eval.run_folder import OutputDirError
from zavandor_env.eval.tournament import TournamentConfig
from zavandor_env.eval.tournament_journal import JOURNAL_FILE
from zavandor_env.eval.tournament_report import TournamentReport, prepare_output_dir
from zavandor_env.eval.tournament_run import run_tournament
from zavandor_env.io.folders import FolderError, release


def config(games: int = 4) -> TournamentConfig:
    return TournamentConfig([parse_spec("heuristic"), parse_spec("random")], games=games,
                            seed=0, workers=1, game_options={"max_rounds": 2})


class Stop(BaseException):
    pass


@pytest.fixture(scope="module")
def journal_lines(tmp_path_factory) -> list[str]:
    """The lines of a real journal of :func:`config` holding two of its four games."""
    path = tmp_path_factory.mktemp("j") / JOURNAL_FILE
    count = [0]

    def stop(_rec) -> None:
        count[0] += 1
        if count[0] == 2:
            raise Stop

    with pytest.raises(Stop):
        run_tournament(config(), progress=False, on_record=stop, journal=path)
    return path.read_text().splitlines()


def resume(journal: Path) -> list:
    return run_tournament(config(), progress=False, journal=journal, resume=True)


# ---- junk after a valid header ---------------------------------------------------------------
def test_junk_after_the_header_stops_at_its_first_line_without_reading_the_rest(
        tmp_path, journal_lines):
    journal = tmp_path / JOURNAL_FILE
    junk = ('{"lineup": 0, "junk": [' + ",".join(["1"] * 2000) + "]}\n").encode()
    with open(journal, "wb") as fh:
        fh.write((journal_lines[0] + "\n").encode())
        for _ in range(4000):  # 32 MB: every line valid JSON, none a game
            fh.write(junk)
    tracemalloc.start()
    try:
        with pytest.raises(JournalError) as info:
            resume(journal)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"{journal} line 2 " in str(info.value) and "\n" not in str(info.value)
    assert peak < 8 << 20, f"{peak:,} bytes held to refuse the journal"


def test_a_journal_over_its_size_ceiling_is_refused_before_it_is_read(tmp_path,
                                                                      journal_lines):
    from zavandor_env.io.journals import JournalReadError, read_journal_stream

    journal = tmp_path / JOURNAL_FILE
    journal.write_text("\n".join(journal_lines) + "\n")
    seen = []
    with pytest.raises(JournalReadError, match="larger than 100 bytes"):
        read_journal_stream(journal, lambda value, where: seen.append(where), max_bytes=100)
    assert not seen
    with pytest.raises(JournalReadError, match="more than 1 entries"):
        read_journal_stream(journal, lambda value, where: value, max_lines=1)


# ---- numbers --------------------------------------------------------------------------------
@pytest.mark.parametrize("field, value, problem", [
    ("scores", "[" + "9" * 400 + ",0]", "out of range"),
    ("ranks", "[" + "1" + "0" * 400 + ",1]", "out of range"),
    ("scores", "[1001,0]", "scores"),
    ("ranks", "[3,1]", "ranks"),
    ("rounds", "1001", "rounds"),
    ("decisions", "50001", "decisions"),
    ("seconds", "1.7e308", "seconds"),
    ("seconds", "604801", "seconds"),
])
def test_a_number_past_the_engines_limits_is_one_line_naming_the_line(
        tmp_path, journal_lines, field, value, problem):
    lines = list(journal_lines)
    entry = json.loads(lines[1])
    target = entry if field == "seconds" else entry["outcome"]
    target[field] = "@@"
    lines[1] = json.dumps(target if target is entry else entry).replace('"@@"', value)
    journal = tmp_path / JOURNAL_FILE
    journal.write_text("\n".join(lines) + "\n")
    with pytest.raises(JournalError, match=problem) as info:
        resume(journal)
    assert f"{journal} line 2" in str(info.value) and "\n" not in str(info.value)


def test_a_report_of_in_range_numbers_has_no_infinity(tmp_path, journal_lines):
    lines = list(journal_lines)
    entry = json.loads(lines[1])
    entry["seconds"] = 7 * 24 * 3600.0
    lines[1] = json.dumps(entry)
    journal = tmp_path / JOURNAL_FILE
    journal.write_text("\n".join(lines) + "\n")
    records = resume(journal)
    TournamentReport.build(config(), records).write(tmp_path, chart=False)
    assert "Infinity" not in (tmp_path / "summary.json").read_text()


# ---- the fuzz: journals ---------------------------------------------------------------------
_junk = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    st.integers().map(lambda n: str(n).encode()),
    st.sampled_from([b"1e400", b"-1e400", b"NaN", b"Infinity", b"9" * 500, b"[" * 5000,
                     b"{}", b"[]", b"null", b'"x"', b"\xff\xfe"]),
)


@FUZZ_EXAMPLES
def test_every_mutated_journal_is_refused_in_one_line_or_resumed(examples, tmp_path,
                                                                 journal_lines):
    sentinel = tmp_path / "sentinel"
    sentinel.mkdir()
    (sentinel / "keep.txt").write_text("keep")

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(line=st.integers(0, 2), cut=st.integers(0, 400), junk=_junk,
           how=st.sampled_from(["replace", "insert", "truncate", "splice"]))
    def attack(line: int, cut: int, junk: bytes, how: str) -> None:
        out = tmp_path / "out"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        lines = [x.encode() for x in journal_lines]
        if how == "replace":
            lines[line] = junk
        elif how == "insert":
            lines.insert(line + 1, junk)
        elif how == "splice":
            lines[line] = lines[line][:cut] + junk + lines[line][cut:]
        data = b"\n".join(lines) + b"\n"
        if how == "truncate":
            data = data[:cut * 5]
        (out / JOURNAL_FILE).write_bytes(data)
        try:
            records = resume(out / JOURNAL_FILE)
        except (JournalError, OutputDirError) as exc:
            assert "\n" not in str(exc) and str(exc)
        else:
            assert len(records) == 4
        assert sorted(os.listdir(sentinel)) == ["keep.txt"]

    attack()


# ---- the fuzz: folder layouts ---------------------------------------------------------------
_ENTRIES = [JOURNAL_FILE, "summary.json", "summary.csv", "games.csv", "replays",
            "replays/game_l0_d0000_r0.json"]


@FUZZ_EXAMPLES
def test_every_hostile_eval_folder_layout_is_refused_in_one_line_or_used_inside_it(
        examples, tmp_path, journal_lines):
    sentinel = tmp_path / "sentinel"

    def reset_sentinel() -> dict[str, bytes]:
        shutil.rmtree(sentinel, ignore_errors=True)
        (sentinel / "replays").mkdir(parents=True)
        for name in _ENTRIES:
            if name != "replays":
                (sentinel / name).write_text("sentinel")
        return {str(p): p.read_bytes() for p in sentinel.rglob("*") if p.is_file()}

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(layout=st.dictionaries(st.sampled_from(_ENTRIES),
                                  st.sampled_from(["file", "dir", "symlink", "journal"]),
                                  max_size=4),
           out_link=st.booleans(), resume_run=st.booleans())
    @example(layout={"replays": "symlink"}, out_link=False, resume_run=False)
    @example(layout={JOURNAL_FILE: "symlink"}, out_link=False, resume_run=True)
    def attack(layout: dict[str, str], out_link: bool, resume_run: bool) -> None:
        before = reset_sentinel()
        out = tmp_path / "out"
        if out.is_symlink():
            out.unlink()
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        for name, kind in sorted(layout.items()):
            path = out / name
            if not path.parent.is_dir() or path.parent.is_symlink():
                continue
            if kind == "dir":
                path.mkdir(exist_ok=True)
            elif kind == "symlink":
                path.symlink_to(sentinel / name)
            elif kind == "journal":
                path.write_text("\n".join(journal_lines) + "\n")
            else:
                path.write_text("x")
        target = out
        if out_link:
            target = tmp_path / "link"
            if target.is_symlink():
                target.unlink()
            target.symlink_to(out)
        try:
            prepared = prepare_output_dir(target, overwrite=not resume_run, resume=resume_run)
            records = run_tournament(config(), progress=False,
                                     journal=prepared / JOURNAL_FILE, resume=resume_run)
            TournamentReport.build(config(), records).write(prepared, chart=False,
                                                            replace=True)
        except (OutputDirError, JournalError, FolderError) as exc:
            assert "\n" not in str(exc) and str(exc)
        finally:
            release(target)
        after = {str(p): p.read_bytes() for p in sentinel.rglob("*") if p.is_file()}
        assert after == before  # nothing beside the folder written or deleted

    attack()


_RUN_ENTRIES = ["checkpoints", "pool", "config.yaml", "checkpoints/LATEST",
                "checkpoints/step_000000128", "pool/snap_000000001.npz"]


@FUZZ_EXAMPLES
def test_every_hostile_run_folder_layout_is_refused_in_one_line_or_used_inside_it(
        examples, tmp_path):
    from tests.train.test_train_trust import STEP, crafted_run, tensors_zip
    from zavandor_env.train.common.checkpointing import (
        CheckpointError,
        CheckpointWriter,
        find_resumable,
    )
    from zavandor_env.train.common.pool import OpponentPool
    from zavandor_env.train.config import TrainConfig

    sentinel = crafted_run(tmp_path / "sentinel")
    (sentinel / "pool" / "snap_000000001.npz").write_bytes(b"sentinel")
    before = {str(p): p.read_bytes() for p in sentinel.rglob("*") if p.is_file()}

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(layout=st.dictionaries(st.sampled_from(_RUN_ENTRIES),
                                  st.sampled_from(["file", "dir", "symlink", "absent"]),
                                  max_size=3))
    @example(layout={"checkpoints": "symlink"})
    @example(layout={"pool": "symlink"})
    def attack(layout: dict[str, str]) -> None:
        shutil.rmtree(tmp_path / "r", ignore_errors=True)
        run = crafted_run(tmp_path / "r")
        for name, kind in sorted(layout.items()):
            path = run / name
            if not path.parent.is_dir() or path.parent.is_symlink():
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif os.path.lexists(path):
                path.unlink()
            if kind == "dir":
                path.mkdir()
            elif kind == "symlink":
                path.symlink_to(sentinel / name)
            elif kind == "file":
                path.write_text(STEP if name.endswith("LATEST") else "x")
        try:
            previous = find_resumable(run, lambda line: None)
            writer = CheckpointWriter(run, previous)
            state = {"pool": {"snapshots": []}, "rating": {"games": 0, "ratings": {}}}
            writer.write(256, tensors_zip, state)
            OpponentPool(run / "pool", TrainConfig()).prune_files()
        except (CheckpointError, FolderError) as exc:
            assert "\n" not in str(exc) and str(exc)
        after = {str(p): p.read_bytes() for p in sentinel.rglob("*") if p.is_file()}
        assert after == before  # nothing of the run beside it written or deleted

    attack()
