"""The folder a report-writing command writes (``zavandor eval``, ``ladder`` and ``scorecard``
``--out``): one implementation of checking it, continuing an interrupted run in it, and
replacing an earlier report.

A :class:`ReportFolder` names the files one command writes (its report files, its journals
of finished games, a subfolder of replays).  :meth:`ReportFolder.prepare` checks the folder
before any game is played: it is created, a folder holding files the command did not write is
refused (they are never deleted), an earlier report only replaced with ``--overwrite``, and an
interrupted run's journals only continued with ``--resume``; then the folder is locked (a
second writer is refused in one line) and probed for writing.  :meth:`ReportFolder.write`
writes the report, each file at once (a full disk leaves none cut short), first deleting an
earlier report's files (only those) when asked, and last the journals of this run, whose games
the report now holds.  Every folder is opened through :class:`~zavandor_env.io.folders.Folder`:
no write or delete of ours goes through a symlink in it, nor through one at it.  Every problem
is one :class:`OutputDirError` line.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from zavandor_env.io.folders import Folder, FolderError, hold, release


class OutputDirError(ValueError):
    """The report directory cannot be used (not writable, or holds other files)."""


@dataclass(frozen=True)
class ReportFolder:
    """What one command writes in its folder.

    Args:
        tool: the command, as messages name it (``eval``).
        report: what it writes, as messages name it (``a tournament report``).
        files: the report's files.
        journals: the names of its journals of finished games (a pattern), if any.
        journal_text: how messages name the journals (``games.jsonl``).
        subdir: a subfolder of report files (``replays``) and the pattern of their names.
    """

    tool: str
    report: str
    files: tuple[str, ...]
    journals: str | None = None
    journal_text: str = ""
    subdir: tuple[str, str] | None = None

    def is_journal(self, name: str) -> bool:
        return self.journals is not None and re.fullmatch(self.journals, name) is not None

    def previous(self, out_dir: str | Path) -> tuple[list[Path], list[Path]]:
        """``(files an earlier run of the command wrote, other entries)`` in ``out_dir``, as
        ``lstat`` sees them: a symlink is never ours (it is listed with the others, which are
        never touched), so no write or delete of ours goes through one."""
        ours: list[Path] = []
        others: list[Path] = []
        if not os.path.lexists(out_dir):
            return ours, others
        try:
            folder = Folder.open(out_dir, what=f"--out {str(out_dir)!r}")
        except FolderError as exc:
            raise OutputDirError(str(exc)) from None
        for name, kind in folder.entries():
            entry = folder.root / name
            if kind == "file" and (name in self.files or self.is_journal(name)):
                ours.append(entry)
            elif self.subdir is not None and name == self.subdir[0] and kind == "dir":
                for inner, inner_kind in folder.entries(name):
                    mine = re.fullmatch(self.subdir[1], inner) and inner_kind == "file"
                    (ours if mine else others).append(entry / inner)
            else:
                others.append(entry)
        return ours, others

    def prepare(self, out_dir: str | Path, overwrite: bool = False,
                resume: bool = False) -> Path:
        """Make sure the command can write its report to ``out_dir`` before any game: creates
        it, refuses a folder holding other files, an earlier report unless ``overwrite``, an
        interrupted run's journals unless ``resume`` (continue them: whether they hold this
        very run is the journal's check) or ``overwrite``; then locks and probes it."""
        out = Path(out_dir)
        ours, others = self.previous(out)  # refuses a file or a symlink at --out
        journals = any(path.parent == out and self.is_journal(path.name) for path in ours)
        if resume and not journals:
            raise OutputDirError(f"nothing to resume in --out {str(out)!r}: it holds no "
                                 f"{self.journal_text} (the games of an interrupted "
                                 f"{self.tool}); a finished run's is removed once its report "
                                 "is written")
        if journals and not (overwrite or resume or others):
            raise OutputDirError(f"--out {str(out)!r} holds the games of an interrupted "
                                 f"{self.tool} ({self.journal_text}): give --resume to "
                                 "continue it (the same arguments), or --overwrite to start "
                                 "again")
        try:  # a second writer is refused first, in one line
            if os.path.lexists(out):
                lock_output_dir(out)
            self._claim(out, ours, others, overwrite or resume)
        except BaseException:
            release(out)
            raise
        return out

    def _claim(self, out: Path, ours: Sequence[Path], others: Sequence[Path],
               overwrite: bool) -> None:
        """``others`` (files the command did not write) are never overwritten, ``ours`` (an
        earlier report) only with ``overwrite``; then the folder is created, locked and
        probed for writing."""
        if others:
            names = ", ".join(str(p.relative_to(out)) for p in others[:3])
            more = f" and {len(others) - 3} more" if len(others) > 3 else ""
            raise OutputDirError(f"--out {str(out)!r} holds files {self.tool} did not write "
                                 f"({names}{more}); choose an empty or new directory")
        if ours and not overwrite:
            raise OutputDirError(f"--out {str(out)!r} already holds {self.report}; give "
                                 "--overwrite to replace it, or choose a new directory")
        try:
            Folder.open(out, what=f"--out {str(out)!r}", create=True)
            lock_output_dir(out)  # held until the report is written (or this process ends)
            with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
                pass
        except FolderError as exc:
            raise OutputDirError(str(exc)) from None
        except OSError as exc:
            raise OutputDirError(f"cannot write to --out {str(out)!r}: "
                                 f"{exc.strerror or exc}") from None

    def write(self, out_dir: str | Path, contents: Mapping[str, str], replace: bool = False,
              chart: tuple[str, Callable[[Path], Path]] | None = None,
              own_journal: Callable[[Folder, str], bool] = lambda folder, name: True,
              ) -> list[Path]:
        """Write ``contents`` (``{"name": text}``, ``"subdir/name"`` for the subfolder) and
        ``chart`` (its name and the function drawing it to a path), each at once; returns the
        paths written.  An earlier report raises :class:`OutputDirError` unless ``replace``,
        which first deletes its files (only those).  The journals that ``own_journal`` says
        are this run's are not an earlier report: they are removed last, once every game they
        held is in the report."""
        out = Path(out_dir)
        try:
            folder = Folder.open(out, what=f"--out {str(out)!r}", create=True)
            lock_output_dir(out)
            ours = self.previous(out)[0]
            own = [p for p in ours if self.is_journal(p.name) and own_journal(folder, p.name)]
            earlier = [p for p in ours if p not in own]
            if earlier:
                if not replace:
                    raise OutputDirError(f"{str(out)!r} already holds {self.report} "
                                         "(replace=True deletes it first)")
                self._delete(folder, earlier)
            written = [folder.write(*name.split("/"), content=text)
                       for name, text in contents.items()]
            if chart is not None:
                written.append(chart[1](folder.file(chart[0])))
            for path in own:  # every game it held is in the report now
                folder.unlink(path.name)
            return written
        except FolderError as exc:
            raise OutputDirError(str(exc)) from None
        finally:
            release(out)  # the run's last write to its folder

    def _delete(self, folder: Folder, paths: Sequence[Path]) -> None:
        """Delete an earlier report's ``paths`` (regular files only) and its emptied
        subfolder."""
        for path in paths:
            folder.unlink(*path.relative_to(folder.root).parts)
        if self.subdir is not None:
            sub = folder.dir(self.subdir[0])
            if sub.is_dir() and not folder.entries(self.subdir[0]):
                sub.rmdir()


def lock_output_dir(out: Path) -> bool:
    """Hold ``out``'s lock for this process until :func:`~zavandor_env.io.folders.release`
    (or its end); True when taken now, False when held already.  A second writer of the
    folder is refused in one :class:`OutputDirError` line."""
    try:
        return hold(out, what=f"--out {str(out)!r}")
    except FolderError as exc:
        raise OutputDirError(str(exc)) from None


def default_output_dir(name: str, root: str | Path = "eval_out") -> Path:
    """Create and return a new directory ``root/<YYYYmmdd-HHMMSS>-<name>`` (``-2``, ``-3``...
    appended when one of that name exists: two runs never share a directory)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "eval"
    base = Path(root) / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug[:60]}"
    path, attempt = base, 1
    while True:
        try:
            path.mkdir(parents=True, exist_ok=False)
            return path
        except FileExistsError:
            attempt += 1
            path = base.with_name(f"{base.name}-{attempt}")
        except OSError as exc:
            raise OutputDirError(f"cannot create {str(path)!r}: {exc.strerror or exc}") from None
