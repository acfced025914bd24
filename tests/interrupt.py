"""Shared by the training tests: start ``zavandor train``, press Ctrl-C once it has written a
checkpoint, and collect what the user sees."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def interrupt_after_first_checkpoint(
    command: list[str], cwd: Path, preexec_fn: Callable[[], object] | None = None,
) -> tuple[Path, int, str]:
    """Run ``command`` in ``cwd``, send SIGINT after its first checkpoint; return the run
    folder, the exit code and stderr."""
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=preexec_fn)
    try:
        deadline = time.monotonic() + 120
        while not list(cwd.glob("runs/*/checkpoints/LATEST")):
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "no checkpoint within 2 minutes"
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    [run_dir] = (cwd / "runs").iterdir()
    return run_dir, proc.returncode, err
