"""Shared by the Ctrl-C tests: a child process that receives Ctrl-C as a terminal's foreground
process does, and ``zavandor train`` interrupted once it has written a checkpoint."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def terminal_sigint() -> None:
    """``preexec_fn`` for a child that must react to Ctrl-C: SIGINT back to its default.

    A child inherits an *ignored* SIGINT from its parent, and Python then never raises
    KeyboardInterrupt; a test worker can carry one (Ray and multiprocessing code run in the
    same pytest process), and the Ctrl-C tests then hung until their timeout, only in full
    parallel runs.  A terminal's foreground process always starts with the default.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_after_first_checkpoint(
    command: list[str], cwd: Path, preexec_fn: Callable[[], object] | None = terminal_sigint,
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
