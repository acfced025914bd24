"""Checkpoints that survive a kill, and resuming that runs no code from the files.

Layout of ``<run>/checkpoints/``::

    step_<N>/            model.zip (SB3: weights + optimizer) and state.json (step, pool,
                         rating, totals); ``step_<N>-2`` etc. when a step is saved twice
    LATEST               name of the newest complete checkpoint
    .partial-step_<N>/   a checkpoint being written (never read; removed by the next save)

**Writing** is write-then-rename: a checkpoint is written into a ``.partial-`` folder, every
file is flushed to disk (fsync), and the folder is renamed to its final name, which is atomic.
The new checkpoint is read back (as ``--resume`` would) before ``LATEST`` names it, and only
then are older checkpoints deleted, keeping the previous complete one too: at most two exist,
and a kill at any moment leaves at least one complete checkpoint.

**Reading** never calls ``MaskablePPO.load``: the ``data`` entry of an SB3 zip holds
cloudpickled objects (policy class, schedules, spaces, buffers) that it would unpickle, i.e.
run code from the file.  Here the model is rebuilt from the run's own config, ``data`` is never
opened, and only the tensors are read (``policy.pth``, ``policy.optimizer.pth``), with
``torch.load(..., weights_only=True)``: a ``.pth`` entry holding anything but tensors and plain
containers is refused.  The step counter and everything else come from the
plain JSON ``state.json``.  ``--resume`` takes the newest checkpoint that passes every check
(files present and non-empty, state readable, pool files present, tensors loadable) and warns,
in one line each, about the broken ones it skipped.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LATEST = "LATEST"
MODEL = "model.zip"
STATE = "state.json"
PARTIAL = ".partial-"
#: Tensor groups of a MaskablePPO zip that a resume needs.
REQUIRED_PARAMS = ("policy", "policy.optimizer")
_NAME = re.compile(r"step_(\d+)(?:-(\d+))?")


class CheckpointError(ValueError):
    """A checkpoint is missing, broken or does not fit the run; the message names it."""


@dataclass
class Checkpoint:
    """A checkpoint read back and checked: its folder, plain state and tensors."""

    path: Path
    state: dict[str, Any]
    params: dict[str, Any]
    """SB3 parameter groups (``policy``, ``policy.optimizer``): state dicts of tensors"""

    @property
    def step(self) -> int:
        return int(self.state["step"])

    def snapshot_files(self) -> set[str]:
        """Pool snapshot files this checkpoint's pool refers to."""
        return {str(name) for _, name in self.state.get("pool", {}).get("snapshots", [])}


# ---- names ----------------------------------------------------------------------------------
def checkpoint_order(path: Path) -> tuple[int, int] | None:
    """``(step, k)`` of a checkpoint folder name, or None for anything else."""
    match = _NAME.fullmatch(path.name)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 1)


def list_checkpoints(run_dir: Path) -> list[Path]:
    """Checkpoint folders of a run, newest first (partial folders are not checkpoints)."""
    folder = Path(run_dir) / "checkpoints"
    if not folder.is_dir():
        return []
    found = [(order, p) for p in folder.iterdir()
             if p.is_dir() and (order := checkpoint_order(p)) is not None]
    return [p for _, p in sorted(found, reverse=True)]


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The folder ``LATEST`` names, if its files are there and not empty."""
    pointer = Path(run_dir) / "checkpoints" / LATEST
    if not pointer.is_file():
        return None
    path = pointer.parent / pointer.read_text().strip()
    ok = all((path / f).is_file() and (path / f).stat().st_size > 0 for f in (MODEL, STATE))
    return path if ok else None


# ---- reading --------------------------------------------------------------------------------
def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def read_state(path: Path) -> dict[str, Any]:
    """The checked ``state.json`` of checkpoint folder ``path``."""
    try:
        state = json.loads((path / STATE).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{STATE} is unreadable ({_one_line(exc)})") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"{STATE} is not a JSON object")
    step = state.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise CheckpointError(f"{STATE} has no valid step")
    for key in ("pool", "rating"):
        if not isinstance(state.get(key), dict):
            raise CheckpointError(f"{STATE} lacks {key!r}")
    return state


def read_params(path: Path) -> dict[str, Any]:
    """The tensors of ``model.zip``, read without unpickling anything but tensors."""
    import torch

    params: dict[str, Any] = {}
    try:
        with zipfile.ZipFile(path / MODEL) as archive:
            names = set(archive.namelist())
            for group in REQUIRED_PARAMS:
                if f"{group}.pth" not in names:
                    raise CheckpointError(f"{MODEL} lacks {group}.pth")
                # weights_only: torch's restricted unpickler admits tensors and plain
                # containers only, so a crafted .pth cannot run code.  Called here rather
                # than through SB3, whose older releases did not ask for it.
                params[group] = torch.load(io.BytesIO(archive.read(f"{group}.pth")),
                                           map_location="cpu", weights_only=True)
    except CheckpointError:
        raise
    except Exception as exc:  # noqa: BLE001 -- zip, pickle, torch, OS errors: all "broken"
        raise CheckpointError(f"{MODEL} cannot be loaded ({_one_line(exc)})") from None
    return params


def read_checkpoint(path: Path, pool_dir: Path) -> Checkpoint:
    """Read and check one checkpoint folder; :class:`CheckpointError` says what is wrong."""
    for name in (MODEL, STATE):
        file = path / name
        if not file.is_file():
            raise CheckpointError(f"checkpoint {path.name} is broken: {name} is missing")
        if file.stat().st_size == 0:
            raise CheckpointError(f"checkpoint {path.name} is broken: {name} is empty")
    try:
        state = read_state(path)
        missing = sorted(n for n in Checkpoint(path, state, {}).snapshot_files()
                         if not (pool_dir / n).is_file())
        if missing:
            raise CheckpointError(f"pool snapshot file(s) {missing} are missing")
        fingerprint = state.get("obs_fingerprint")
        current = obs_fingerprint()
        if fingerprint is not None and current is not None and fingerprint != current:
            raise CheckpointError(f"it was trained on observation layout {fingerprint}, this "
                                  f"code's layout is {current}")
        params = read_params(path)
    except CheckpointError as exc:
        raise CheckpointError(f"checkpoint {path.name} is broken: {exc}") from None
    return Checkpoint(path, state, params)


def obs_fingerprint() -> str | None:
    """The running code's observation-layout fingerprint (recorded in every checkpoint)."""
    try:
        from zavandor_env.envs.observation import OBS_FINGERPRINT
    except ImportError:  # an environment without layout fingerprints
        return None
    return str(OBS_FINGERPRINT)


def find_resumable(run_dir: Path, warn: Callable[[str], None]) -> Checkpoint:
    """The newest intact checkpoint of ``run_dir``; ``warn`` gets one line per broken
    checkpoint skipped on the way.  Raises :class:`CheckpointError` when none is intact."""
    run_dir = Path(run_dir)
    candidates = list_checkpoints(run_dir)
    if not candidates:
        raise CheckpointError(f"{str(run_dir)!r} has no complete checkpoint to resume from")
    problems: list[str] = []
    for path in candidates:
        try:
            checkpoint = read_checkpoint(path, run_dir / "pool")
        except CheckpointError as exc:
            problems.append(str(exc))
            continue
        for problem in problems:
            warn(f"warning: {problem}; resuming from {path.name} instead")
        return checkpoint
    raise CheckpointError(f"{str(run_dir)!r} has no intact checkpoint to resume from: "
                          + "; ".join(problems))


# ---- writing --------------------------------------------------------------------------------
def _fsync(path: Path) -> None:
    """Flush a file's (or a folder's entries') data to disk.  Folders are best effort: some
    systems (Windows) cannot open one, and a rename there is durable without it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        if path.is_dir():
            return
        raise
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` all at once: a reader sees the old or the new file."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync(path.parent)


class CheckpointWriter:
    """Writes a run's checkpoints (see the module docstring) and keeps the newest two.

    Args:
        run_dir: the run folder.
        previous: the newest complete checkpoint already there (the one resumed from).
    """

    def __init__(self, run_dir: Path, previous: Checkpoint | None = None) -> None:
        self.folder = Path(run_dir) / "checkpoints"
        self.pool_dir = Path(run_dir) / "pool"
        self.previous = previous
        #: pool snapshot files the kept checkpoints refer to (they must not be deleted)
        self.kept_snapshot_files: set[str] = previous.snapshot_files() if previous else set()

    def _new_name(self, step: int) -> str:
        name, k = f"step_{step:09d}", 1
        while (self.folder / name).exists():  # a step saved again (e.g. a final save)
            k += 1
            name = f"step_{step:09d}-{k}"
        return name

    def write(self, step: int, write_model: Callable[[Path], Any],
              state: dict[str, Any]) -> Checkpoint:
        """Write, check and publish a checkpoint of ``step``; return it read back.

        ``write_model(path)`` writes the SB3 zip.  Nothing older is touched until the new
        checkpoint is complete, read back and named by ``LATEST``.
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in self.folder.glob(PARTIAL + "*"):  # left by a killed save
            shutil.rmtree(stale, ignore_errors=True)
        name = self._new_name(step)
        partial = self.folder / (PARTIAL + name)
        partial.mkdir()
        write_model(partial / MODEL)
        (partial / STATE).write_text(json.dumps({**state, "step": step}))
        for file in (partial / MODEL, partial / STATE, partial):
            _fsync(file)
        final = self.folder / name
        os.rename(partial, final)
        _fsync(self.folder)
        try:
            checkpoint = read_checkpoint(final, self.pool_dir)
        except CheckpointError:
            shutil.rmtree(final, ignore_errors=True)  # never leave a bad one to resume from
            raise
        write_text_atomic(self.folder / LATEST, name)
        self._prune(keep={final} | ({self.previous.path} if self.previous else set()))
        self.previous, kept = checkpoint, self.previous
        self.kept_snapshot_files = checkpoint.snapshot_files() | (
            kept.snapshot_files() if kept is not None else set())
        return checkpoint

    def _prune(self, keep: set[Path]) -> None:
        for path in list_checkpoints(self.folder.parent):
            if path not in keep:
                shutil.rmtree(path, ignore_errors=True)
