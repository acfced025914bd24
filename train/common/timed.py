"""Policies kept at wall-clock marks (``keep_policy_minutes``): learning curves at equal time.

Comparing two training methods at equal wall-clock (PPO self-play against expert iteration,
say) needs each learner as it stood after 15, 30 and 60 minutes, evaluated afterwards the same
way (``zavandor eval``).  A run's checkpoints are pruned to the newest two, so this keeps a
weights-only copy per mark instead: ``policy_<M>min.npz`` in the run folder.

The policy kept for a mark is the one *in force* at that moment: the trainer offers its
current policy just before each update (:meth:`TimedPolicies.before_update`), and every mark
passed since the last update gets the policy that was playing while the mark went by.

Marks count on the **run's clock**: it starts with the run and continues across ``--resume``
from the minutes recorded in the checkpoint resumed from (:data:`STATE_KEY` of its
``state.json``, written by the sb3 and exit backends; :meth:`TimedPolicies.resume_at`).  Work
done after that checkpoint and lost to an interruption is done again, and its minutes are not
counted twice.  A mark already kept is never kept again: a file ``policy_<M>min.npz`` already
in the run folder (from an invocation that went past the checkpoint before it was stopped) is
never replaced, so a learning curve never silently mixes two timelines.  ``max_minutes`` is
different: it budgets one invocation and counts from its start.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["STATE_KEY", "TimedPolicies", "timed_policy_name"]

#: The checkpoint state's key of the run's clock: training minutes when it was saved.
STATE_KEY = "elapsed_minutes"


def timed_policy_name(minutes: float) -> str:
    """The file name of the policy kept at ``minutes`` (``policy_15min.npz``,
    ``policy_7.5min.npz``)."""
    return f"policy_{minutes:g}min.npz"


class TimedPolicies:
    """Writes the learner's policy at each of ``minutes`` into ``run_dir``.

    Args:
        run_dir: the run folder.
        minutes: the marks, in minutes of the run's clock (this invocation starts it at 0;
            :meth:`resume_at` moves it on to a resumed checkpoint's minutes).
        clock: seconds, monotonic (tests pass a fake one).
    """

    def __init__(self, run_dir: Path, minutes: Sequence[float],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.run_dir = Path(run_dir)
        self.clock = clock
        self.started = clock()
        #: the run's minutes when this invocation started (:meth:`resume_at`)
        self.offset = 0.0
        self.pending = [m for m in sorted(set(float(m) for m in minutes)) if not self._kept(m)]

    def _kept(self, mark: float) -> bool:
        path = self.run_dir / timed_policy_name(mark)
        return path.exists() or path.is_symlink()

    def resume_at(self, state: dict[str, Any]) -> None:
        """Continue the run's clock at a resumed checkpoint's minutes (:data:`STATE_KEY` of
        its ``state``; none: 0): the marks at or before them passed in the run already and are
        not kept again."""
        self.offset = float(state.get(STATE_KEY, 0.0))
        self.pending = [m for m in self.pending if m > self.offset]

    def state(self) -> dict[str, float]:
        """The run's clock for a checkpoint's state (what :meth:`resume_at` reads back)."""
        return {STATE_KEY: self.elapsed_minutes()}

    def elapsed_minutes(self) -> float:
        """The run's clock: minutes before this invocation plus those since it started."""
        return self.offset + (self.clock() - self.started) / 60.0

    def before_update(self, make_policy: Callable[[dict[str, Any]], Any],
                      info: dict[str, Any] | None = None) -> list[Path]:
        """Write the policy about to be replaced for every mark passed since the last call
        (``make_policy(info)`` builds the :class:`NumpyPolicy`, only when one is due); return
        the files written.  Call it also when the run ends, with the final policy."""
        from zavandor_env.agents.policy_file import save_policy

        elapsed = self.elapsed_minutes()
        written = []
        for mark in [m for m in self.pending if m <= elapsed]:  # passed, not yet written
            self.pending.remove(mark)
            if self._kept(mark):  # kept by an invocation that went further: never replaced
                continue
            policy = make_policy({**(info or {}), "kept_at_minutes": mark,
                                  "written_at_minutes": round(elapsed, 3)})
            written.append(save_policy(policy, self.run_dir / timed_policy_name(mark)))
        return written
