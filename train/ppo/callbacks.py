"""The SB3 callback that runs self-play around ``MaskablePPO.learn``.

Once per rollout (when the policy has just changed) it: charts what the learner did in the
games just played, updates the rating, and -- at their configured intervals -- adds a snapshot
to the pool, evaluates against ``eval_opponents`` and writes a checkpoint.  Per step it only
advances the progress bar.  Every chart goes through SB3's logger, so ours and SB3's own
(``rollout/``, ``train/``, ``time/``) share one TensorBoard event file and one step axis.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from zavandor_env.io.printable import terminal_safe
from zavandor_env.train.common.charts import chart_games
from zavandor_env.train.common.evaluate import EvalResult, evaluate_all, spec_labels
from zavandor_env.train.common.pool import OpponentPool
from zavandor_env.train.common.rating import PoolRating
from zavandor_env.train.common.run import Schedule, progress_bar
from zavandor_env.train.common.timed import TimedPolicies
from zavandor_env.train.config import TrainConfig
from zavandor_env.train.ppo.export import policy_from_sb3


class SelfPlayCallback(BaseCallback):
    """Pool snapshots, statistics, rating, evaluation, checkpoints and the progress bar.

    Args:
        cfg: the run's config.
        pool: the opponent pool (snapshots are added here and pushed to the environments).
        rating: the learner's rating against the pool.
        save_checkpoint: ``save_checkpoint(step)`` writes model + pool + rating.
        totals: running totals kept across resumes (``illegal_actions``).
    """

    def __init__(self, cfg: TrainConfig, pool: OpponentPool, rating: PoolRating,
                 save_checkpoint: Callable[[int], None], totals: dict[str, Any],
                 start_step: int = 0, timed: TimedPolicies | None = None,
                 began: float | None = None) -> None:
        super().__init__(verbose=0)
        self.cfg = cfg
        self.pool = pool
        self.rating = rating
        self.save_checkpoint = save_checkpoint
        self.totals = totals
        self.timed = timed
        self.snapshots = Schedule(cfg.snapshot_every, start_step)
        self.evals = Schedule(cfg.eval_every, start_step)
        self.checkpoints = Schedule(cfg.ppo.checkpoint_every, start_step)
        self.last_eval: dict[str, EvalResult] = {}
        self._bar: Any = None
        # The wall-clock budget (max_minutes) counts from the start of this invocation
        # (``began``, time.monotonic(); default: now); returning False from _on_step ends
        # learn() cleanly.
        began = time.monotonic() if began is None else began
        self._deadline = began + 60 * cfg.max_minutes if cfg.max_minutes is not None else None
        self._clock = time.perf_counter()
        self._clock_step = start_step
        #: True while PPO updates the weights (between a rollout's end and the next one's
        #: start): a model interrupted then is between two consistent states, not saved.
        self.updating = False
        self._labels = spec_labels(cfg)

    # ---- SB3 hooks ------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        self._restart_clock()
        self._bar = progress_bar(self.cfg, self.num_timesteps)

    def _on_step(self) -> bool:
        if self._bar is not None:
            self._bar.update(self.training_env.num_envs)
        return self._deadline is None or time.monotonic() < self._deadline

    def _on_rollout_end(self) -> None:
        self.keep_timed()  # the policy that played the rollout, about to be updated
        self.updating = True

    def keep_timed(self) -> None:
        """Keep the current policy for the wall-clock marks passed (``keep_policy_minutes``)."""
        if self.timed is not None:
            self.timed.before_update(lambda info: policy_from_sb3(self.model, info),
                                     {"step": int(self.num_timesteps)})

    def _on_rollout_start(self) -> None:
        self.updating = False
        # At a rollout's start the policy has just been updated and num_timesteps counts every
        # step it was trained on, so snapshots, evaluations and checkpoints all see the same,
        # consistent model.
        if self.num_timesteps > self._clock_step:
            self.periodic(self.num_timesteps)

    def periodic(self, step: int, final: bool = False) -> None:
        """Chart, snapshot, evaluate and checkpoint as due (all of them when ``final``)."""
        self.log_statistics(step)
        if self.snapshots.due(step) and not final:
            self.add_snapshot(step)
        if (self.evals.due(step) or final) and self.cfg.eval_games > 0:
            self.run_evaluation()
        if self.checkpoints.due(step) or final:
            self.save_checkpoint(step)
        self.logger.dump(step)
        self._restart_clock()  # evaluation and saving are not training throughput

    def _on_training_end(self) -> None:
        self.updating = False
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    # ---- pieces ---------------------------------------------------------------------------
    def add_snapshot(self, step: int) -> None:
        self.pool.add(self.model, step)
        self.training_env.env_method("set_pool", self.pool.spec())
        self.logger.record("pool/snapshots", len(self.pool.snapshots))

    def run_evaluation(self) -> None:
        """Evaluate the current policy against each evaluation opponent; chart the results."""
        self.last_eval = evaluate_all(policy_from_sb3(self.model), self.cfg, self._labels,
                                      self.rating, self.logger.record)
        if self._bar is not None and self.last_eval:
            # labels may come from a run folder: escaped before the terminal
            self._bar.set_postfix({f"win_{terminal_safe(self._labels[k][:4])}": f"{r.winrate:.2f}"
                                   for k, r in self.last_eval.items()}, refresh=False)

    def log_statistics(self, step: int) -> None:
        """Chart the games finished since the last rollout and the learner's action mix."""
        stats = self.training_env.env_method("pop_stats")
        illegal = sum(s["illegal"] for s in stats)
        self.totals["illegal_actions"] = self.totals.get("illegal_actions", 0) + illegal
        self.logger.record("charts/illegal_actions", self.totals["illegal_actions"])
        wall = max(time.perf_counter() - self._clock, 1e-9)
        self.logger.record("charts/env_steps_per_s", (step - self._clock_step) / wall)
        self.logger.record("perf/env_time_share", sum(s["env_seconds"] for s in stats) / wall)
        chart_games(self.logger.record, [e for s in stats for e in s["episodes"]],
                    np.sum([s["blocks"] for s in stats], axis=0), self.rating,
                    [label for label, _ in self.pool.snapshots], list(self._labels.values()))

    def _restart_clock(self) -> None:
        self._clock = time.perf_counter()
        self._clock_step = self.num_timesteps
