"""The opponent pool of a run: frozen learner snapshots on disk plus the weighted agent specs.

Snapshots are weights-only files (:mod:`zavandor_env.agents.policy_file`) under
``<run>/pool/``; the pool itself is plain data (labels and file names) saved with every
checkpoint, so ``--resume`` restores the exact pool the learner was training against.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zavandor_env.agents.policy_file import save_policy
from zavandor_env.envs.opponents import PoolSpec
from zavandor_env.io.folders import Folder, FolderError
from zavandor_env.train.common.checkpointing import CheckpointError, run_subfolder, saving
from zavandor_env.train.config import TrainConfig
from zavandor_env.train.ppo.export import policy_from_sb3


def snapshot_label(step: int) -> str:
    return f"snap@{step:09d}"


class OpponentPool:
    """Snapshots (oldest first, at most ``cfg.pool_size``) and the draw weights (per
    ``snapshot`` or agent spec)."""

    def __init__(self, directory: Path, cfg: TrainConfig) -> None:
        self.directory = directory
        self.cfg = cfg
        self.snapshots: list[tuple[str, str]] = []  # (label, file name inside directory)

    def spec(self) -> PoolSpec:
        """The plain-data description sent to every environment."""
        return PoolSpec(
            weights=dict(self.cfg.opponent_weights),
            snapshots=[(label, str(self.directory / name)) for label, name in self.snapshots],
            latest_share=self.cfg.latest_snapshot_share,
        )

    def add(self, model: Any, step: int) -> str:
        """Freeze the learner's current actor as a new snapshot; drop the oldest if full."""
        label = snapshot_label(step)
        name = f"{label.replace('@', '_')}.npz"
        with saving(self.directory.parent, f"pool snapshot of step {step}"):  # a full disk
            # pool/ checked at every write: a symlinked one is refused, never written through
            folder = run_subfolder(self.directory.parent, self.directory.name)
            save_policy(policy_from_sb3(model, {"step": step}), folder / name)
        self.snapshots = [s for s in self.snapshots if s[0] != label] + [(label, name)]
        del self.snapshots[: max(0, len(self.snapshots) - self.cfg.pool_size)]
        return label

    def prune_files(self, also_keep: set[str] | None = None) -> None:
        """Delete snapshot files that neither the pool nor ``also_keep`` (the files the kept
        checkpoints refer to) names; called after a checkpoint is saved, so no kept
        checkpoint's pool ever points at a deleted file."""
        keep = {name for _, name in self.snapshots} | set(also_keep or ())
        try:
            run = Folder.open(self.directory.parent, what="run folder")
            for name, kind in run.entries(self.directory.name):
                # regular files only: a symlink's target is never deleted
                if kind == "file" and name.startswith("snap_") and name.endswith(".npz") \
                        and name not in keep:
                    run.unlink(self.directory.name, name)
        except FolderError as exc:
            raise CheckpointError(str(exc)) from None

    def state_dict(self) -> dict[str, Any]:
        return {"snapshots": [list(s) for s in self.snapshots]}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        # read_checkpoint checked every name: a plain file name of the pool folder, present
        # and loadable.
        self.snapshots = [(str(label), str(name)) for label, name in data.get("snapshots", [])]
