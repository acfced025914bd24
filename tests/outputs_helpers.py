"""Shared by the output tests: the command line in a child process, optionally with a full
disk (``RLIMIT_FSIZE``: a write past the limit fails with EFBIG, as on a full disk), and the
checks that nothing half-written was left behind."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child_env() -> dict[str, str]:
    """The environment of a child that must import this checkout's code, not an installed
    copy (``python -m zavandor_env.cli`` from another folder would find the latter)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def file_size_limit(limit: int) -> Callable[[], None]:
    """``preexec_fn``: no file of the child may grow past ``limit`` bytes (Python ignores
    SIGXFSZ, so the write fails with an OSError instead of killing the process)."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def zavandor(*args: str, cwd: Path, file_limit: int | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m zavandor_env.cli ARGS`` in a child, files capped at ``file_limit`` bytes."""
    return subprocess.run(
        [sys.executable, "-m", "zavandor_env.cli", *args], cwd=cwd, capture_output=True,
        text=True, timeout=timeout, stdin=subprocess.DEVNULL, env=child_env(),
        preexec_fn=file_size_limit(file_limit) if file_limit is not None else None,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def assert_nothing_half_written(folder: Path) -> None:
    """No temporary file and no empty file anywhere under ``folder``."""
    for path in folder.rglob("*"):
        if path.is_file():
            assert not path.name.endswith(".tmp"), f"temporary file left: {path}"
            assert path.stat().st_size > 0, f"empty file left: {path}"
