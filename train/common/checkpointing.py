"""Checkpoints that survive a kill, and resuming that runs no code from the files.

Layout of ``<run>/checkpoints/``::

    step_<N>/            model.zip (weights + optimizer, SB3's tensor layout) and state.json
                         (step, pool, rating, totals); ``step_<N>-2`` etc. when a step is
                         saved twice
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
plain JSON ``state.json``, read by :func:`~zavandor_env.io.files.load_json` (bounded size
and depth) and checked field by field (a step beyond :data:`MAX_STEP`, a malformed pool or
rating is a broken checkpoint, not a traceback later).  Every name a checkpoint holds stays
inside the run folder: ``LATEST``, the checkpoint folders and files, and the pool's snapshot
files are plain names (no ``..``, no separator, not absolute) and are not symlinks pointing out
of their folder; and the folders a run writes in and prunes -- the run folder itself,
``checkpoints/`` and ``pool/`` -- are no symlinks at all (:func:`run_folder`, checked again at
every save), so a crafted folder cannot carry a resume's writes, ``LATEST`` or prunes into
another run.  A run holds its folder's lock (:func:`zavandor_env.io.folders.hold`) while it
writes there.  ``--resume`` takes the newest checkpoint that passes every check (files
present and non-empty, state readable, pool files present, tensors loadable) and warns, in one
line each, about the broken ones it skipped.  A checkpoint records the model's shape
(:func:`model_shape`: player count, network, observation and action sizes); a config changed
since (``--set num_players=4``, an edited ``config.yaml``) is refused by :func:`check_shape`
in one line naming the field.

**A full disk** (any ``OSError`` while saving) leaves no ``.partial-`` folder and no temporary
file: the save is undone and the previous complete checkpoint stays the one to resume from.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import shlex
import shutil
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from zavandor_env.io.files import UntrustedInputError, load_json, read_bounded, write_atomic
from zavandor_env.io.folders import Folder, FolderError
from zavandor_env.io.params import one_line

LATEST = "LATEST"
MODEL = "model.zip"
STATE = "state.json"
PARTIAL = ".partial-"
#: Tensor groups of a MaskablePPO zip that a resume needs.
REQUIRED_PARAMS = ("policy", "policy.optimizer")
_NAME = re.compile(r"step_(\d+)(?:-(\d+))?")
#: Largest step a checkpoint may record: seeds are ``cfg.seed + step`` and NumPy's must stay
#: below 2**32 (config.MAX_SEED bounds the other term).
MAX_STEP: Final = 2**31 - 1
#: Largest ``state.json`` (ours are a few KiB).
MAX_STATE_BYTES: Final = 1 << 20
#: A name a checkpoint may hold for a file of the run: no separator, no leading dot (so no
#: ``..``), printable ASCII.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]{0,127}")
#: Largest entry of a ``model.zip`` as its zip directory declares it, checked before it is
#: decompressed (a 64 x 64 model's tensors take about 0.5 MB).
MAX_ENTRY_BYTES: Final = 256 << 20
#: The model's shape fields of the config: a resumed run must keep them.
SHAPE_FIELDS = ("num_players", "net_arch", "activation")


class CheckpointError(ValueError):
    """A checkpoint is missing, broken or does not fit the run; the message names it."""


def does_not_fit(checkpoint: Checkpoint, exc: BaseException,
                 why: str = "the run's config (were net_arch or activation changed with --set?)",
                 ) -> CheckpointError:
    """A checkpoint's tensors that a model built from the run's config refuses (one line:
    ``why`` and the first 300 characters of the loader's complaint)."""
    return CheckpointError(f"checkpoint {checkpoint.path.name} does not fit {why}: "
                           f"{one_line(exc)[:300]}")


class SaveError(CheckpointError):
    """The run folder could not be written (a full disk...); the save was undone and the
    message says what is left to resume from."""


@contextmanager
def saving(run_dir: Path, what: str) -> Iterator[None]:
    """Turn an ``OSError`` while saving ``what`` into one :class:`SaveError` line (the
    writers have already removed their partial and temporary files)."""
    try:
        yield
    except OSError as exc:
        latest = latest_checkpoint(run_dir)
        kept = (f"the last complete checkpoint ({latest.name}) is kept: make room, then "
                f"continue with: zavandor train --resume {shlex.quote(str(run_dir))}"
                if latest is not None else "no checkpoint was saved yet")
        raise SaveError(f"cannot save the {what} in {str(run_dir)!r} "
                        f"({exc.strerror or one_line(exc)}); {kept}") from None


@dataclass
class Checkpoint:
    """A checkpoint read back and checked: its folder, plain state and tensors."""

    path: Path
    state: dict[str, Any]
    params: dict[str, Any]
    """SB3 parameter groups (``policy``, ``policy.optimizer``): state dicts of tensors"""
    extra: Any = None
    """what the trainer's own ``read_extra`` read besides (expert iteration: the replay
    window)"""

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


def plain_name(name: object, what: str) -> str:
    """``name`` if it is a plain file name (no ``..``, no separator, not absolute), else a
    one-line :class:`CheckpointError`."""
    if not isinstance(name, str) or not _PLAIN_NAME.fullmatch(name):
        raise CheckpointError(f"{what} {name!r} is not a plain file name inside the run folder")
    return name


def inside(folder: Path, name: object, what: str) -> Path:
    """``folder / name`` for a plain file name that stays inside ``folder``: refused in one
    line (:class:`CheckpointError`) when it is no :func:`plain_name` or a symlink that points
    out of ``folder``."""
    path = folder / plain_name(name, what)
    if path.is_symlink() and not path.resolve().is_relative_to(folder.resolve()):
        raise CheckpointError(f"{what} {name!r} is a symlink pointing out of {folder.name}/")
    return path


#: The folders of a run folder that a run writes in and prunes: never symlinks.
RUN_SUBFOLDERS = ("checkpoints", "pool")


def run_folder(run_dir: str | Path) -> Folder:
    """The run folder ``run_dir`` checked before anything in it is read, written or pruned
    (:class:`~zavandor_env.io.folders.Folder`): the folder itself, ``checkpoints/``,
    ``pool/``, ``checkpoints/LATEST`` and ``config.yaml`` are no symlinks (one would carry
    a resume's writes and prunes into another run) and have their kinds; else one
    :class:`CheckpointError` line."""
    try:
        folder = Folder.open(run_dir, what=f"run folder {str(run_dir)!r}")
        for sub in RUN_SUBFOLDERS:
            folder.dir(sub)
        folder.file("config.yaml")  # what a run reads: never a symlink, never a folder
        folder.file("checkpoints", LATEST)
    except FolderError as exc:
        raise CheckpointError(str(exc)) from None
    return folder


def run_subfolder(run_dir: str | Path, name: str) -> Path:
    """``run_dir/name`` (``checkpoints`` or ``pool``) checked and created: see
    :func:`run_folder`."""
    try:
        return Folder.open(run_dir, what=f"run folder {str(run_dir)!r}").dir(name, create=True)
    except FolderError as exc:
        raise CheckpointError(str(exc)) from None


def list_checkpoints(run_dir: Path) -> list[Path]:
    """Checkpoint folders of a run, newest first (partial folders are not checkpoints, nor
    are symlinks: a checkpoint lives inside its run folder).  A symlinked ``checkpoints/``
    is refused (:class:`CheckpointError`)."""
    folder = run_folder(run_dir)
    found = [(order, folder.root / "checkpoints" / name)
             for name, kind in folder.entries("checkpoints")
             if kind == "dir" and (order := checkpoint_order(Path(name))) is not None]
    return [p for _, p in sorted(found, reverse=True)]


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The folder ``LATEST`` names, if it is a checkpoint of this run (a plain name inside
    ``checkpoints/``) whose files are there and not empty."""
    folder = Path(run_dir) / "checkpoints"
    try:
        run_folder(run_dir)
        name = read_bounded(folder / LATEST, what=LATEST, max_bytes=256).decode().strip()
        path = inside(folder, name, LATEST)
    except (UntrustedInputError, UnicodeDecodeError, CheckpointError):
        return None
    if checkpoint_order(path) is None or path.is_symlink():
        return None
    ok = all((path / f).is_file() and (path / f).stat().st_size > 0 for f in (MODEL, STATE))
    return path if ok else None


# ---- reading --------------------------------------------------------------------------------
def read_state(path: Path) -> dict[str, Any]:
    """The checked ``state.json`` of checkpoint folder ``path``: every field a resume uses
    has the type and range it needs, so a crafted or damaged file is one line here."""
    try:
        state = load_json(path / STATE, what=STATE, max_bytes=MAX_STATE_BYTES)
    except UntrustedInputError as exc:
        raise CheckpointError(f"{STATE} is unreadable ({one_line(exc)})") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"{STATE} is not a JSON object")
    if not integer_in(state.get("step"), 0, MAX_STEP):
        raise CheckpointError(f"{STATE} has no valid step (an integer 0..{MAX_STEP:,})")
    for key in ("pool", "rating"):
        if not isinstance(state.get(key), dict):
            raise CheckpointError(f"{STATE} lacks {key!r}")
    _check_pool(state["pool"])
    _check_rating(state["rating"])
    _check_plain(state)
    return state


def integer_in(value: object, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a bool) in ``low..high``."""
    return type(value) is int and low <= value <= high


def _pairs(value: object) -> bool:
    """Whether ``value`` is a list of ``[string, string]`` pairs."""
    return isinstance(value, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
        for p in value)


def _check_pool(pool: dict[str, Any]) -> None:
    """The pool of either backend: ``snapshots`` (sb3: label and file name, the name a plain
    file name of the pool folder) or ``filled`` (rllib: slot and label)."""
    for key in ("snapshots", "filled"):
        if key in pool and not _pairs(pool[key]):
            raise CheckpointError(f"{STATE}: pool {key!r} must be a list of [name, name] pairs")
    for _, name in pool.get("snapshots", []):
        plain_name(name, "pool snapshot")  # its folder's symlinks: read_checkpoint


def _check_rating(rating: dict[str, Any]) -> None:
    if "games" in rating and not integer_in(rating["games"], 0, MAX_STEP):
        raise CheckpointError(f"{STATE}: rating 'games' must be an integer 0..{MAX_STEP:,}")
    ratings = rating.get("ratings", {})
    if not isinstance(ratings, dict) or not all(
            isinstance(r, list) and len(r) == 2 and all(finite(x) for x in r) and r[1] > 0
            for r in ratings.values()):
        raise CheckpointError(f"{STATE}: rating 'ratings' must map labels to [mu, sigma] "
                              "(finite numbers, sigma > 0)")


def _check_plain(state: dict[str, Any]) -> None:
    """The other fields: counters, totals, the layout fingerprint, the model's shape."""
    if "n_updates" in state and not integer_in(state["n_updates"], 0, MAX_STEP):
        raise CheckpointError(f"{STATE}: n_updates must be an integer 0..{MAX_STEP:,}")
    totals = state.get("totals", {})
    if not isinstance(totals, dict) or not all(finite(v) for v in totals.values()):
        raise CheckpointError(f"{STATE}: totals must map names to finite numbers")
    if not isinstance(state.get("obs_fingerprint", ""), (str, type(None))):
        raise CheckpointError(f"{STATE}: obs_fingerprint must be a string")
    if not isinstance(state.get("model_shape", {}), dict):
        raise CheckpointError(f"{STATE}: model_shape must be a mapping")
    minutes = state.get("elapsed_minutes", 0.0)  # the run's clock (zavandor_env.train.common.timed)
    if not finite(minutes) or minutes < 0:
        raise CheckpointError(f"{STATE}: elapsed_minutes must be a finite number >= 0")


def finite(value: object) -> bool:
    """Whether ``value`` is a finite int or float (not a bool)."""
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def model_shape(cfg: Any) -> dict[str, Any]:
    """What a checkpoint's model was built for: the config's :data:`SHAPE_FIELDS` and the
    environment's observation and action sizes (``cfg``: a ``TrainConfig``)."""
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    shape = {key: getattr(cfg, key) for key in SHAPE_FIELDS}
    return {**shape, "obs_size": int(OBS_SIZE), "num_actions": int(NUM_ACTIONS)}


def check_shape(checkpoint: Checkpoint, cfg: Any) -> None:
    """Refuse, naming the field, a config whose model shape differs from the checkpoint's
    (a checkpoint written before shapes were recorded passes: nothing to compare)."""
    recorded = checkpoint.state.get("model_shape")
    if not recorded:
        return
    for key, now in model_shape(cfg).items():
        if key in recorded and recorded[key] != now:
            where = "the run's config" if key in SHAPE_FIELDS else "this code"
            raise CheckpointError(
                f"checkpoint {checkpoint.path.name} was trained with {key}={recorded[key]!r}, "
                f"{where} says {key}={now!r}: a resumed run must keep it (start a new run, "
                f"or use init_policy to warm-start one)")


def read_entry(archive: zipfile.ZipFile, name: str, max_bytes: int = MAX_ENTRY_BYTES) -> bytes:
    """Entry ``name`` of a zip, refused (:class:`CheckpointError`) when missing or declared
    larger than ``max_bytes``: checked before decompressing, and zipfile never inflates an
    entry past its declared size, so a zip bomb costs nothing."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        archive_name = Path(archive.filename or MODEL).name
        raise CheckpointError(f"{archive_name} lacks {name}") from None
    if info.file_size > max_bytes:
        raise CheckpointError(f"{name} would inflate to {info.file_size:,} bytes "
                              f"(at most {max_bytes:,})")
    return archive.read(info)


def read_params(path: Path) -> dict[str, Any]:
    """The tensors of ``model.zip``, read without unpickling anything but tensors, bounded
    in size, and finite (NaN weights or optimizer moments would poison every update)."""
    import torch

    params: dict[str, Any] = {}
    try:
        with zipfile.ZipFile(path / MODEL) as archive:
            for group in REQUIRED_PARAMS:
                # weights_only: torch's restricted unpickler admits tensors and plain
                # containers only, so a crafted .pth cannot run code.  Called here rather
                # than through SB3, whose older releases did not ask for it.
                params[group] = torch.load(io.BytesIO(read_entry(archive, f"{group}.pth")),
                                           map_location="cpu", weights_only=True)
                _check_finite_tensors(f"{group}.pth", params[group])
    except CheckpointError:
        raise
    except Exception as exc:  # noqa: BLE001 -- zip, pickle, torch, OS errors: all "broken"
        raise CheckpointError(f"{MODEL} cannot be loaded ({one_line(exc)})") from None
    return params


def _check_finite_tensors(what: str, value: Any) -> None:
    """Refuse a floating tensor holding NaN or infinity anywhere in ``value`` (walked without
    recursion: the containers come from the file)."""
    import torch

    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            if item.is_floating_point() and not bool(torch.isfinite(item).all()):
                raise CheckpointError(f"{what} holds NaN or infinite values")
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def read_checkpoint(path: Path, pool_dir: Path) -> Checkpoint:
    """Read and check one checkpoint folder; :class:`CheckpointError` says what is wrong."""
    try:
        if os.path.islink(pool_dir):
            raise CheckpointError(f"{pool_dir.name}/ is a symlink: a run's pool lives inside "
                                  "its run folder")
        for name in (MODEL, STATE):
            file = inside(path, name, "file")
            if not file.is_file():
                raise CheckpointError(f"{name} is missing")
            if file.stat().st_size == 0:
                raise CheckpointError(f"{name} is empty")
        state = read_state(path)
        snapshots = Checkpoint(path, state, {}).snapshot_files()
        missing = sorted(n for n in snapshots
                         if not inside(pool_dir, n, "pool snapshot").is_file())
        if missing:
            raise CheckpointError(f"pool snapshot file(s) {missing} are missing")
        _check_snapshots(pool_dir, snapshots)
        fingerprint, current = state.get("obs_fingerprint"), obs_fingerprint()
        if fingerprint is not None and fingerprint != current:
            raise CheckpointError(f"it was trained on observation layout {fingerprint}, this "
                                  f"code's layout is {current}")
        params = read_params(path)
    except CheckpointError as exc:
        raise CheckpointError(f"checkpoint {path.name} is broken: {exc}") from None
    return Checkpoint(path, state, params)


def _check_snapshots(pool_dir: Path, names: set[str]) -> None:
    """Load every pool snapshot now, so a corrupt one (NaN weights, another layout...) is a
    broken checkpoint here, not a crash in an environment when it is first drawn."""
    from zavandor_env.agents.policy_file import PolicyFileError, load_policy

    for name in sorted(names):
        try:
            load_policy(pool_dir / name)
        except PolicyFileError as exc:
            raise CheckpointError(f"pool snapshot {name}: {exc}") from None


def obs_fingerprint() -> str:
    """The running code's observation-layout fingerprint (recorded in every checkpoint)."""
    from zavandor_env.encoding.observation import OBS_FINGERPRINT

    return str(OBS_FINGERPRINT)


def find_resumable(run_dir: Path, warn: Callable[[str], None],
                   read_extra: Callable[[Checkpoint], Any] | None = None) -> Checkpoint:
    """The newest intact checkpoint of ``run_dir``; ``warn`` gets one line per broken
    checkpoint skipped on the way.  ``read_extra(checkpoint)`` reads and checks a trainer's
    own files (its result: ``checkpoint.extra``; a :class:`CheckpointError` there makes the
    checkpoint a broken one too).  Raises :class:`CheckpointError` when none is intact."""
    run_dir = Path(run_dir)
    candidates = list_checkpoints(run_dir)  # the run folder checked first (run_folder)
    if not candidates:
        raise CheckpointError(f"{str(run_dir)!r} has no complete checkpoint to resume from")
    problems: list[str] = []
    for path in candidates:
        try:
            checkpoint = read_checkpoint(path, run_dir / "pool")
            if read_extra is not None:
                checkpoint.extra = read_extra(checkpoint)
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
    """Replace ``path`` by ``text`` all at once (:func:`~zavandor_env.io.files.
    write_atomic`: a reader sees the old or the new file, a failure leaves no temporary one),
    then make the rename itself durable."""
    write_atomic(path, text)
    _fsync(path.parent)


#: ``<run>/resumes.jsonl``: one JSON line per ``--resume`` (``config.yaml`` stays the config
#: the run started with, so the ``--set`` changes of its continuations are recorded here).
RESUMES = "resumes.jsonl"
MAX_RESUMES_BYTES = 1_000_000


def record_resume(run_dir: Path, step: int, overrides: list[str] | None) -> None:
    """Add this resume (the checkpoint's ``step`` and the ``--set`` overrides) to the run's
    :data:`RESUMES`, written anew atomically.  Earlier lines are kept only from a plain file
    within :data:`MAX_RESUMES_BYTES` (a run folder may come from anyone: a symlink or an
    oversized file is replaced, never followed or grown)."""
    path = run_dir / RESUMES
    earlier = ""
    if path.is_file() and not path.is_symlink():
        try:
            earlier = read_bounded(path, what=RESUMES, max_bytes=MAX_RESUMES_BYTES).decode()
        except (UntrustedInputError, UnicodeDecodeError):
            earlier = ""
    if earlier and not earlier.endswith("\n"):
        earlier += "\n"  # a line cut short stays a line of its own
    line = json.dumps({"resumed_from_step": int(step), "overrides": list(overrides or [])})
    write_text_atomic(path, earlier + line + "\n")


def write_model_zip(path: Path, policy: Any, optimizer: Any,
                    data: dict[str, Any] | None = None) -> None:
    """``model.zip`` in the layout :func:`read_params` reads, without pickled objects: the
    network's state (plain containers of tensors) as ``policy.pth``, the optimizer's as
    ``policy.optimizer.pth``, and ``data`` (plain JSON: what the export reads of the network)
    when given."""
    import torch

    with zipfile.ZipFile(path, "w") as archive:
        if data is not None:
            archive.writestr("data", json.dumps(data))
        for name, state in (("policy", policy), ("policy.optimizer", optimizer)):
            buffer = io.BytesIO()
            torch.save(state, buffer)
            archive.writestr(f"{name}.pth", buffer.getvalue())


class CheckpointWriter:
    """Writes a run's checkpoints (see the module docstring) and keeps the newest two.

    Args:
        run_dir: the run folder.
        previous: the newest complete checkpoint already there (the one resumed from).
    """

    def __init__(self, run_dir: Path, previous: Checkpoint | None = None,
                 shape: dict[str, Any] | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.folder = Path(run_dir) / "checkpoints"
        self.pool_dir = Path(run_dir) / "pool"
        self.previous = previous
        #: :func:`model_shape` of the run, recorded in every checkpoint (None: not recorded)
        self.shape = shape
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
        checkpoint is complete, read back and named by ``LATEST``.  An ``OSError`` on the way
        (a full disk) undoes this save, folder and ``LATEST`` alike, and propagates.
        """
        # Checked at every save: a checkpoints/ that is (or became) a symlink is refused,
        # never written through; stale partial folders are removed without following links.
        run = run_folder(self.run_dir)
        run_subfolder(self.run_dir, "checkpoints")
        for name, kind in run.entries("checkpoints"):
            if kind == "dir" and name.startswith(PARTIAL):  # left by a killed save
                run.rmtree("checkpoints", name)
        name = self._new_name(step)
        partial, final = self.folder / (PARTIAL + name), self.folder / name
        shape = {} if self.shape is None else {"model_shape": self.shape}
        try:
            partial.mkdir()
            write_model(partial / MODEL)
            (partial / STATE).write_text(json.dumps({**state, **shape, "step": step}))
            for file in (partial / MODEL, partial / STATE, partial):
                _fsync(file)
            os.rename(partial, final)
            _fsync(self.folder)
            checkpoint = read_checkpoint(final, self.pool_dir)
            write_text_atomic(self.folder / LATEST, name)
        except (OSError, CheckpointError):
            # Never leave half a save, nor a checkpoint LATEST does not name, to resume from.
            shutil.rmtree(partial, ignore_errors=True)
            shutil.rmtree(final, ignore_errors=True)
            raise
        self._prune(keep={final} | ({self.previous.path} if self.previous else set()))
        self.previous, kept = checkpoint, self.previous
        self.kept_snapshot_files = checkpoint.snapshot_files() | (
            kept.snapshot_files() if kept is not None else set())
        return checkpoint

    def _prune(self, keep: set[Path]) -> None:
        run = run_folder(self.run_dir)
        for path in list_checkpoints(self.run_dir):
            if path not in keep:
                run.rmtree("checkpoints", path.name)
