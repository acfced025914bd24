"""Policies kept at wall-clock marks (``keep_policy_minutes``): learning curves at equal time.

Comparing two training methods at equal wall-clock (PPO self-play against expert iteration,
say) needs each learner as it stood after 15, 30 and 60 minutes, evaluated afterwards the same
way (``zavandor eval``).  A run's checkpoints are pruned to the newest two, so this keeps a
weights-only copy per mark instead: ``policy_<M>min.npz`` in the run folder.

The policy kept for a mark is the one *in force* at that moment: the trainer offers its
current policy just before each update (:meth:`TimedPolicies.before_update`), and every mark
passed since the last update gets the policy that was playing while the mark went by.  Marks
count from this invocation's start, as ``max_minutes`` does; a resumed run starts its clock
again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["TimedPolicies", "timed_policy_name"]


def timed_policy_name(minutes: float) -> str:
    """The file name of the policy kept at ``minutes`` (``policy_15min.npz``,
    ``policy_7.5min.npz``)."""
    return f"policy_{minutes:g}min.npz"


class TimedPolicies:
    """Writes the learner's policy at each of ``minutes`` into ``run_dir``.

    Args:
        run_dir: the run folder.
        minutes: the marks, in minutes from now (the trainer builds this when it starts).
        clock: seconds, monotonic (tests pass a fake one).
    """

    def __init__(self, run_dir: Path, minutes: Sequence[float],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.run_dir = Path(run_dir)
        self.pending = sorted(set(float(m) for m in minutes))
        self.clock = clock
        self.started = clock()

    def elapsed_minutes(self) -> float:
        return (self.clock() - self.started) / 60.0

    def due(self) -> list[float]:
        """The marks passed and not yet written."""
        now = self.elapsed_minutes()
        return [m for m in self.pending if m <= now]

    def before_update(self, make_policy: Callable[[dict[str, Any]], Any],
                      info: dict[str, Any] | None = None) -> list[Path]:
        """Write the policy about to be replaced for every mark passed since the last call
        (``make_policy(info)`` builds the :class:`NumpyPolicy`, only when one is due); return
        the files written.  Call it also when the run ends, with the final policy."""
        from zavandor_env.agents.policy_file import save_policy

        due = self.due()
        if not due:
            return []
        written = []
        elapsed = self.elapsed_minutes()
        for mark in due:
            policy = make_policy({**(info or {}), "kept_at_minutes": mark,
                                  "written_at_minutes": round(elapsed, 3)})
            written.append(save_policy(policy, self.run_dir / timed_policy_name(mark)))
            self.pending.remove(mark)
        return written
