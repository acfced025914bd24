"""Files that ship inside the package: configs and trained policies.

The repository keeps ``configs/`` and ``train/checkpoints/`` at its top; an installed package
holds the same files under ``zavandor_env/configs`` and ``zavandor_env/train/checkpoints``.  A
path given by a user (``--config configs/selfplay_2p.yaml``,
``policy:path=train/checkpoints/selfplay_2p/policy.npz``) is read as given when it exists, and
otherwise, when it is relative, from the package, so the README's commands work from any folder
after ``pip install``.
"""

from __future__ import annotations

from pathlib import Path

#: The installed package's folder (its ``configs`` and ``train`` hold the shipped files).
PACKAGE_DIR = Path(__file__).resolve().parent


def data_path(path: str | Path) -> Path:
    """``path`` itself if it exists (or is absolute); else the same relative path inside the
    package if a file or folder is there; else ``path`` unchanged (the caller reports it)."""
    given = Path(path)
    if given.exists() or given.is_absolute():
        return given
    shipped = PACKAGE_DIR / given
    return shipped if shipped.exists() else given
