"""What runs around the PPO loop (:mod:`zavandor_env.train.ppo.selfplay`): the charts, the pool,
the evaluations, the checkpoints and the progress bar.

After every update (when the policy has just changed) :meth:`SelfPlayCallback.periodic` charts
what the learner did in the games just played, updates the rating, and -- at their configured
intervals -- adds a snapshot to the pool, evaluates against ``eval_opponents`` and writes a
checkpoint.  Every chart goes through one :class:`TensorBoardLog`, so the game's charts and
PPO's own (``rollout/``, ``train/``, ``time/``) share one event file and one step axis
(docs/tensorboard.md).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.io.printable import terminal_safe
from zavandor_env.train.common.charts import chart_games
from zavandor_env.train.common.evaluate import EvalResult, evaluate_all, spec_labels
from zavandor_env.train.common.pool import OpponentPool
from zavandor_env.train.common.rating import PoolRating
from zavandor_env.train.common.run import Schedule, progress_bar
from zavandor_env.train.common.timed import TimedPolicies
from zavandor_env.train.config import TrainConfig
from zavandor_env.train.ppo.export import policy_from_sb3

#: Finished games the ``rollout/ep_*_mean`` charts average over (SB3's window).
EPISODE_WINDOW = 100


class TensorBoardLog:
    """Scalars recorded by tag and written together at one step (the last value of a tag
    recorded since the last :meth:`dump` wins), and text."""

    def __init__(self, run_dir: Path) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(run_dir))
        self.pending: dict[str, float] = {}

    def record(self, tag: str, value: float) -> None:
        self.pending[tag] = float(value)

    def dump(self, step: int) -> None:
        for tag, value in self.pending.items():
            self.writer.add_scalar(tag, value, step)
        self.pending.clear()
        self.writer.flush()

    def text(self, tag: str, text: str) -> None:
        self.writer.add_text(tag, text, 0)

    def close(self) -> None:
        self.writer.close()


class Phases:
    """Wall seconds per phase of the run (``with phases("update"): ...``), charted as
    ``perf/share_<phase>`` (of the wall time since the run's loop started) at every dump: where
    a training run's time goes, without a profiler."""

    NAMES = ("env", "forward", "update", "evaluation", "checkpoint", "snapshot", "charts")

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(self.NAMES, 0.0)
        self.started = time.perf_counter()
        self.cores = core_times()
        self._name = ""
        self._since = 0.0

    def __call__(self, name: str) -> Phases:
        self._name = name
        return self

    def __enter__(self) -> None:
        self._since = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.seconds[self._name] += time.perf_counter() - self._since

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] += seconds

    def chart(self, record: Callable[[str, float], None]) -> None:
        wall = max(time.perf_counter() - self.started, 1e-9)
        for name, seconds in self.seconds.items():
            record(f"perf/share_{name}", seconds / wall)

    def summary(self, steps: int) -> str:
        """One line: learner steps per second of this invocation's loop, each phase's share
        of its wall time, and how busy each core was (the whole machine's, where the system
        says: other work counts too)."""
        wall = max(time.perf_counter() - self.started, 1e-9)
        shares = ", ".join(f"{name} {seconds / wall:.0%}" for name, seconds in
                           self.seconds.items() if seconds / wall >= 0.005)
        line = f"{steps:,} learner steps in {wall:.0f} s ({steps / wall:,.0f}/s): {shares}"
        busy = core_busy(self.cores, core_times())
        if busy:
            line += "; cores busy " + " ".join(f"{b:.0%}" for b in busy)
        return line


def core_times() -> list[tuple[int, int]]:
    """Each core's (total, idle) jiffies from ``/proc/stat`` (empty where there is none)."""
    try:
        with open("/proc/stat") as stat:
            rows = [line.split() for line in stat if line[:3] == "cpu" and line[3].isdigit()]
    except OSError:
        return []
    return [(sum(map(int, r[1:8])), int(r[4]) + int(r[5])) for r in rows]


def core_busy(before: list[tuple[int, int]], after: list[tuple[int, int]]) -> list[float]:
    """The busy share of each core between two :func:`core_times`."""
    if len(before) != len(after):
        return []
    return [1 - (idle1 - idle0) / max(1, total1 - total0)
            for (total0, idle0), (total1, idle1) in zip(before, after)]


class Episodes:
    """The learner's return and length in each game, and the last :data:`EPISODE_WINDOW`
    finished games' (the ``rollout/`` charts)."""

    def __init__(self, n_envs: int) -> None:
        self.returns = np.zeros(n_envs, np.float64)
        self.lengths = np.zeros(n_envs, np.int64)
        self.finished: deque[tuple[float, int]] = deque(maxlen=EPISODE_WINDOW)

    def add(self, rewards: np.ndarray, ended: np.ndarray) -> None:
        self.returns += rewards
        self.lengths += 1
        if ended.any():
            for i in np.flatnonzero(ended).tolist():
                self.finished.append((float(self.returns[i]), int(self.lengths[i])))
            self.returns[ended] = 0.0
            self.lengths[ended] = 0

    def chart(self, record: Callable[[str, float], None]) -> None:
        if self.finished:
            record("rollout/ep_rew_mean", float(np.mean([r for r, _ in self.finished])))
            record("rollout/ep_len_mean", float(np.mean([n for _, n in self.finished])))


class SelfPlayCallback:
    """Pool snapshots, statistics, rating, evaluation, checkpoints and the progress bar.

    Args:
        cfg: the run's config.
        model: the learner (:class:`~zavandor_env.train.ppo.algorithm.MaskedPPO`).
        games: the training games (:class:`~zavandor_env.envs.sb3.NativeVecEnv`).
        log: where the charts go.
        pool: the opponent pool (snapshots are added here and pushed to the games).
        rating: the learner's rating against the pool.
        save_checkpoint: ``save_checkpoint(step)`` writes model + pool + rating.
        totals: running totals kept across resumes (``illegal_actions``).
        timed: the policies kept at wall-clock marks.
        began: ``time.monotonic()`` when this invocation started (``max_minutes`` counts
            from there; default: now).
    """

    def __init__(self, cfg: TrainConfig, model: Any, games: Any, log: TensorBoardLog,
                 pool: OpponentPool, rating: PoolRating,
                 save_checkpoint: Callable[[int], None], totals: dict[str, Any],
                 timed: TimedPolicies | None = None, began: float | None = None) -> None:
        self.cfg = cfg
        self.model = model
        self.games = games
        self.log = log
        self.pool = pool
        self.rating = rating
        self.save_checkpoint = save_checkpoint
        self.totals = totals
        self.timed = timed
        start = int(model.num_timesteps)
        self.snapshots = Schedule(cfg.snapshot_every, start)
        self.evals = Schedule(cfg.eval_every, start)
        self.checkpoints = Schedule(cfg.ppo.checkpoint_every, start)
        self.last_eval: dict[str, EvalResult] = {}
        self.episodes = Episodes(games.num_envs)
        self.phases = Phases()
        began = time.monotonic() if began is None else began
        self.deadline = began + 60 * cfg.max_minutes if cfg.max_minutes is not None else None
        self._clock, self._clock_step = time.perf_counter(), start
        self._fps_clock, self._fps_step = time.perf_counter(), start
        #: True while PPO updates the weights (between a rollout's end and the next one's
        #: start): a model interrupted then is between two consistent states, not saved.
        self.updating = False
        self._labels = spec_labels(cfg)
        self.bar = progress_bar(cfg, start)

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def keep_timed(self) -> None:
        """Keep the current policy for the wall-clock marks passed (``keep_policy_minutes``)."""
        if self.timed is not None:
            self.timed.before_update(lambda info: policy_from_sb3(self.model, info),
                                     {"step": int(self.model.num_timesteps)})

    def after_update(self, figures: dict[str, float], last: bool = False) -> None:
        """PPO's diagnostics of the update just made, then the periodic work (after the
        ``last`` update of the run it is left to the final :meth:`periodic`)."""
        self.updating = False
        for tag, value in figures.items():
            self.log.record(tag, value)
        step = int(self.model.num_timesteps)
        self.episodes.chart(self.log.record)
        fps_wall = max(time.perf_counter() - self._fps_clock, 1e-9)
        self.log.record("time/fps", (step - self._fps_step) / fps_wall)
        self.log.record("time/total_timesteps", step)
        if not last:
            self.periodic(step)

    def periodic(self, step: int, final: bool = False) -> None:
        """Chart, snapshot, evaluate and checkpoint as due (all of them when ``final``)."""
        phases = self.phases
        with phases("charts"):
            self.log_statistics(step)
        if self.snapshots.due(step) and not final:
            with phases("snapshot"):
                self.add_snapshot(step)
        if (self.evals.due(step) or final) and self.cfg.eval_games > 0:
            with phases("evaluation"):
                self.run_evaluation()
        if self.checkpoints.due(step) or final:
            with phases("checkpoint"):
                self.save_checkpoint(step)
        with phases("charts"):
            phases.chart(self.log.record)
            self.log.dump(step)
        self._restart_clock()  # evaluation and saving are not training throughput

    def close(self) -> None:
        self.updating = False
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    # ---- pieces ---------------------------------------------------------------------------
    def add_snapshot(self, step: int) -> None:
        self.pool.add(self.model, step)
        self.games.set_pool(self.pool.spec())
        self.log.record("pool/snapshots", len(self.pool.snapshots))

    def run_evaluation(self) -> None:
        """Evaluate the current policy against each evaluation opponent; chart the results."""
        self.last_eval = evaluate_all(policy_from_sb3(self.model), self.cfg, self._labels,
                                      self.rating, self.log.record)
        if self.bar is not None and self.last_eval:
            # labels may come from a run folder: escaped before the terminal
            self.bar.set_postfix({f"win_{terminal_safe(self._labels[k][:4])}": f"{r.winrate:.2f}"
                                  for k, r in self.last_eval.items()}, refresh=False)

    def log_statistics(self, step: int) -> None:
        """Chart the games finished since the last update and the learner's action mix."""
        stats = self.games.pop_stats()
        illegal = sum(s["illegal"] for s in stats)
        self.totals["illegal_actions"] = self.totals.get("illegal_actions", 0) + illegal
        self.log.record("charts/illegal_actions", self.totals["illegal_actions"])
        if step > self._clock_step:  # (not the final call right after an update)
            wall = max(time.perf_counter() - self._clock, 1e-9)
            self.log.record("charts/env_steps_per_s", (step - self._clock_step) / wall)
            self.log.record("perf/env_time_share", sum(s["env_seconds"] for s in stats) / wall)
        chart_games(self.log.record, [e for s in stats for e in s["episodes"]],
                    np.sum([s["blocks"] for s in stats], axis=0), self.rating,
                    [label for label, _ in self.pool.snapshots], list(self._labels.values()))

    def _restart_clock(self) -> None:
        self._clock = time.perf_counter()
        self._clock_step = int(self.model.num_timesteps)
