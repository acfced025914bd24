"""Folders we read, write and delete in: eval and ladder ``--out``, training run folders.

A folder a user points us at may have come from someone else (a run folder sent for
``--resume``, an eval folder unpacked from an archive), and a symlink in it would carry our
writes and deletes somewhere else: ``replays/`` linked to another eval's replays (which
``--overwrite`` would delete), ``checkpoints/`` linked to another run (whose ``LATEST`` a
``--resume`` would rewrite and whose checkpoints it would prune).  So every folder we write
in is opened through :class:`Folder`, which holds that

* the folder itself is a real directory, not a symlink (the folders *above* it are the
  user's own path and are taken as given);
* every component below it that we touch -- a subfolder, a file -- is checked with
  ``lstat`` (never followed): a symlink, a file where a folder belongs or a folder where a
  file belongs is refused in one line (:class:`FolderError`), so nothing resolves outside;
* subfolders are created one component at a time and checked again;
* deleting removes only regular files (a symlink's target is never touched), and a subtree
  is removed by :func:`shutil.rmtree`, which does not follow the symlinks inside it.

A writer also holds the folder's **lock** (:func:`hold`): an advisory ``flock`` on the
folder itself, taken without waiting, so a second writer of the same folder (two ``eval
--resume --out DIR`` at once, two ``train --resume RUN``) is refused in one line,
``DIR is in use by another run (pid N)``.  The kernel drops the lock when its process dies,
so a killed run never blocks the next one; a forked worker closes its inherited copy at once,
so only the process that took the lock holds it.  The holder's pid is kept in :data:`LOCK_FILE`
beside it, only to be named in that line; it is removed on release and a stale one (left by
``kill -9``) is simply overwritten.  Where ``fcntl`` is missing (Windows) there is no lock.

The checks are made when a path is asked for, so they see the folder as it is then; a
process racing us with renames inside the folder is not in the threat model (the lock keeps
our own writers apart).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from zavandor_env.io.files import UntrustedInputError, open_regular, write_atomic

#: The pid of a folder's writer (only to name it when a second writer is refused).
LOCK_FILE: Final = ".zavandor-lock"
#: Names of our own bookkeeping in a folder: never a file of the user's or of an earlier run.
BOOKKEEPING: Final = frozenset({LOCK_FILE})


class FolderError(UntrustedInputError):
    """A folder cannot be used as it is (a symlink in it, a file where a folder belongs...)."""


class FolderInUseError(FolderError):
    """Another process holds the folder's lock."""


def _plain_part(part: str, what: str) -> str:
    if not part or part in (".", "..") or "/" in part or os.sep in part or (
            os.altsep and os.altsep in part):
        raise FolderError(f"{what}: {part!r} is not a plain name inside the folder")
    return part


def _kind(path: Path) -> str | None:
    """``"dir"``, ``"file"``, ``"symlink"``, ``"other"`` or None (absent), never following."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # absent, or below a file: cannot exist
        return None
    except OSError as exc:
        raise FolderError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "other"


@dataclass(frozen=True)
class Folder:
    """A folder checked as described in the module docstring; ``what`` names it in errors
    (e.g. ``"--out 'x'"``, ``"run folder 'runs/a'"``)."""

    root: Path
    what: str

    @classmethod
    def open(cls, path: str | Path, *, what: str | None = None,
             create: bool = False) -> Folder:
        """The folder at ``path``: a real directory (created with its parents when
        ``create`` and absent), else one :class:`FolderError` line."""
        root = Path(path)
        name = what or f"folder {str(root)!r}"
        kind = _kind(root)
        if kind is None and create:
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise FolderError(f"cannot write to {name}: {exc.strerror or exc}") from None
            kind = _kind(root)
        if kind is None:
            raise FolderError(f"{name} does not exist")
        if kind == "symlink":
            raise FolderError(f"{name} is a symlink: give the folder itself (a folder we "
                              "write in must not lead somewhere else)")
        if kind != "dir":
            raise FolderError(f"{name} is a file, not a folder")
        return cls(root, name)

    def path(self, *parts: str) -> Path:
        """``root/parts...`` after checking that no existing component below the root is a
        symlink and that every one but the last is a folder (absent ones are fine)."""
        path = self.root
        for i, part in enumerate(parts):
            path = path / _plain_part(part, self.what)
            kind = _kind(path)
            shown = "/".join(parts[: i + 1])
            if kind == "symlink":
                raise FolderError(f"{self.what} holds a symlink ({shown}): a folder we write "
                                  "in must hold none where we read, write or delete")
            if kind is None:
                continue
            if i < len(parts) - 1 and kind != "dir":
                raise FolderError(f"{self.what}: {shown} is a file where a folder belongs")
        return path

    def dir(self, *parts: str, create: bool = False) -> Path:
        """The subfolder ``parts`` (checked; created one component at a time when
        ``create``); a file there is refused."""
        for i in range(1, len(parts) + 1):
            path = self.path(*parts[:i])  # refuses a symlink, naming it
            if create and _kind(path) is None:
                try:
                    os.mkdir(path)
                except FileExistsError:
                    self.path(*parts[:i])  # made meanwhile: checked like any other
                except OSError as exc:
                    raise FolderError(f"cannot create {path}: {exc.strerror or exc}") from None
            if _kind(path) not in (None, "dir"):
                raise FolderError(f"{self.what}: {'/'.join(parts[:i])} is a file where a "
                                  "folder belongs")
        return self.root.joinpath(*parts)

    def file(self, *parts: str) -> Path:
        """The file ``parts`` (checked; it may be absent); a folder there is refused."""
        path = self.path(*parts)
        if _kind(path) not in (None, "file"):
            raise FolderError(f"{self.what}: {'/'.join(parts)} is a folder or a special file "
                              "where a file belongs")
        return path

    def is_file(self, *parts: str) -> bool:
        """Whether ``parts`` is a regular file (a symlink is not: it is refused)."""
        return _kind(self.file(*parts)) == "file"

    def unlink(self, *parts: str) -> bool:
        """Delete the regular file ``parts`` (a symlink on the way refuses); False when it
        was absent."""
        path = self.file(*parts)
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        return True

    def rmtree(self, *parts: str) -> None:
        """Delete the subfolder ``parts`` and what it holds, never following a symlink (one
        inside it is removed as a link; its target is not touched).  Errors are ignored, as
        a prune is best effort; an absent folder is fine."""
        path = self.path(*parts)
        if _kind(path) == "dir":
            shutil.rmtree(path, ignore_errors=True)

    def write(self, *parts: str, content: str | bytes) -> Path:
        """:func:`~zavandor_env.io.files.write_atomic` of ``content`` to ``parts`` (its
        folders created and checked; a symlink at the file itself is replaced, not
        followed)."""
        if len(parts) > 1:
            self.dir(*parts[:-1], create=True)
        return write_atomic(self.file(*parts), content)

    def entries(self, *parts: str) -> list[tuple[str, str]]:
        """``(name, kind)`` of every entry of the subfolder ``parts`` (sorted; our
        :data:`BOOKKEEPING` left out), kinds as ``lstat`` sees them: ``dir``, ``file``,
        ``symlink`` or ``other``."""
        folder = self.dir(*parts)
        if _kind(folder) != "dir":
            return []
        found = [(name, _kind(folder / name) or "other") for name in os.listdir(folder)
                 if parts or name not in BOOKKEEPING]
        return sorted(found)


# ---- the lock ---------------------------------------------------------------------------------
@dataclass
class _Held:
    fd: int
    root: Path


#: Folders this process holds, by (device, inode): taking one again is a no-op.
_HELD: dict[tuple[int, int], _Held] = {}


def _forget_in_child() -> None:
    """In a forked child (a worker process): close the inherited lock descriptors without
    unlocking, so the lock stays the parent's alone and dies with it (a worker outliving a
    killed parent must not keep the folder locked)."""
    for held in _HELD.values():
        try:
            os.close(held.fd)
        except OSError:
            pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def _identity(root: Path) -> tuple[int, int]:
    st = os.stat(root)
    return st.st_dev, st.st_ino


def _holder_pid(root: Path) -> str:
    """The pid written in ``root``'s :data:`LOCK_FILE`, or ``?`` (read without following a
    symlink or blocking on a FIFO: the folder may be someone's)."""
    try:
        fd = open_regular(root / LOCK_FILE, what="lock file")
    except UntrustedInputError:
        return "?"
    try:
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    return text if text.isdigit() else "?"


def hold(path: str | Path, *, what: str | None = None) -> bool:
    """Take ``path``'s lock for this process (see the module docstring); True when taken
    now, False when this process held it already.  :class:`FolderInUseError` when another
    process holds it."""
    folder = Folder.open(path, what=what)
    try:
        import fcntl
    except ImportError:  # Windows: no advisory lock
        return False
    key = _identity(folder.root)
    if key in _HELD:
        if os.fstat(_HELD[key].fd).st_nlink > 0:
            return False
        os.close(_HELD.pop(key).fd)  # a folder deleted since, whose inode was reused
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(folder.root, flags)
    except OSError as exc:
        raise FolderError(f"cannot open {folder.what}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise FolderInUseError(f"{folder.root} is in use by another run "
                                   f"(pid {_holder_pid(folder.root)})") from None
        return False  # a file system without flock: go on unlocked, as on Windows
    _HELD[key] = _Held(fd, folder.root)
    try:
        write_atomic(folder.root / LOCK_FILE, f"{os.getpid()}\n", sync=False)
    except OSError:
        pass  # only names the holder to a refused writer
    return True


def release(path: str | Path) -> None:
    """Give back ``path``'s lock if this process holds it (and remove its pid file)."""
    try:
        key: tuple[int, int] | None = _identity(Path(path))
    except OSError:  # removed meanwhile: find it by its path
        key = next((k for k, h in _HELD.items() if h.root == Path(path)), None)
    held = _HELD.pop(key, None) if key is not None else None
    if held is None:
        return
    try:
        if _holder_pid(held.root) == str(os.getpid()):
            os.unlink(held.root / LOCK_FILE)
    except OSError:
        pass
    import fcntl

    try:
        fcntl.flock(held.fd, fcntl.LOCK_UN)  # also for forked children sharing the fd
    finally:
        os.close(held.fd)

