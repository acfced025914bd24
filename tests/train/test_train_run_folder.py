"""A run folder is claimed atomically: runs started together never share or delete one."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from zavandor_env.train.common import run as run_module
from zavandor_env.train.common.run import new_run_dir
from zavandor_env.train.config import load_config


def _claim(runs: str, barrier: object, out: object) -> None:
    cfg = load_config(None, [f"runs_dir={runs}", "name=sweep", "seed=3"])
    barrier.wait()  # type: ignore[attr-defined]  (every process starts at once)
    out.put(str(new_run_dir(cfg)))  # type: ignore[attr-defined]


def test_runs_started_in_the_same_second_each_get_their_own_folder(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    monkeypatch.setattr(run_module.time, "strftime", lambda _fmt: "20260101-000000")
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(6), ctx.Queue()
    procs = [ctx.Process(target=_claim, args=(str(tmp_path), barrier, out)) for _ in range(6)]
    for p in procs:
        p.start()
    folders = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert len(set(folders)) == 6
    assert sorted(Path(f).name for f in folders) == sorted(
        ["sweep__3__20260101-000000"] + [f"sweep__3__20260101-000000-{k}" for k in range(2, 7)])
    assert all((Path(f) / "checkpoints").is_dir() and (Path(f) / "pool").is_dir()
               for f in folders)


def test_a_folder_another_run_holds_is_never_taken_or_removed(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.setattr(run_module.time, "strftime", lambda _fmt: "20260101-000000")
    cfg = load_config(None, [f"runs_dir={tmp_path}", "name=sweep", "seed=3"])
    theirs = tmp_path / "sweep__3__20260101-000000"
    theirs.mkdir()
    (theirs / "config.yaml").write_text("theirs\n")
    real_mkdir = Path.mkdir

    def full_disk(self: Path, *args: object, **kwargs: object) -> None:
        if self.name == "pool":
            raise OSError(28, "No space left on device")
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", full_disk)
    with pytest.raises(OSError, match="No space"):
        new_run_dir(cfg)
    assert (theirs / "config.yaml").read_text() == "theirs\n"  # the other run's, untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == [theirs.name]  # ours cleaned up
