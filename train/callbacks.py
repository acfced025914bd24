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

from zavandor_env.agents.registry import parse_spec
from zavandor_env.envs.training import BLOCK_NAMES
from zavandor_env.train.config import SNAPSHOT, TrainConfig
from zavandor_env.train.evaluate import LEARNER, EvalResult, evaluate
from zavandor_env.train.export import policy_from_sb3
from zavandor_env.train.pool import OpponentPool
from zavandor_env.train.rating import ANCHOR, PoolRating
from zavandor_env.train.timed import TimedPolicies


class Schedule:
    """Fires every ``every`` steps; ``next`` survives a resume through the checkpoint state."""

    def __init__(self, every: int, start: int = 0) -> None:
        self.every = every
        self.next = (start // every + 1) * every if every > 0 else -1

    def due(self, step: int) -> bool:
        if self.every <= 0 or step < self.next:
            return False
        self.next = (step // self.every + 1) * self.every
        return True


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
                 start_step: int = 0, timed: TimedPolicies | None = None) -> None:
        super().__init__(verbose=0)
        self.cfg = cfg
        self.pool = pool
        self.rating = rating
        self.save_checkpoint = save_checkpoint
        self.totals = totals
        self.timed = timed
        self.snapshots = Schedule(cfg.snapshot_every, start_step)
        self.evals = Schedule(cfg.eval_every, start_step)
        self.checkpoints = Schedule(cfg.checkpoint_every, start_step)
        self.last_eval: dict[str, EvalResult] = {}
        self._bar: Any = None
        # The wall-clock budget (max_minutes) counts from the callback's creation, i.e. the
        # start of this invocation; returning False from _on_step ends learn() cleanly.
        self._deadline = (time.monotonic() + 60 * cfg.max_minutes
                          if cfg.max_minutes is not None else None)
        self._clock = time.perf_counter()
        self._clock_step = start_step
        #: True while PPO updates the weights (between a rollout's end and the next one's
        #: start): a model interrupted then is between two consistent states, not saved.
        self.updating = False
        self._game_config = cfg.game_config()
        self._labels = {spec: parse_spec(spec).label
                        for spec in [*cfg.opponent_weights, *cfg.eval_opponents]
                        if spec != SNAPSHOT}

    # ---- SB3 hooks ------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        self._clock = time.perf_counter()
        self._clock_step = self.num_timesteps
        if self.cfg.progress_bar:
            from tqdm import tqdm

            self._bar = tqdm(total=self.cfg.total_timesteps, initial=self.num_timesteps,
                             unit="step", desc=self.cfg.name, dynamic_ncols=True,
                             disable=None)  # None: no bar when stderr is no terminal (a log)

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
            self.run_evaluation(step)
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

    def run_evaluation(self, step: int) -> dict[str, EvalResult]:
        """Evaluate the current policy against each evaluation opponent; chart the results."""
        policy = policy_from_sb3(self.model)
        results: dict[str, EvalResult] = {}
        for k, opponent in enumerate(self.cfg.eval_opponents):
            result = evaluate(policy, opponent, self.cfg.eval_games, self._game_config,
                              seed=self.cfg.seed * 7 + k, deterministic=self.cfg.eval_deterministic)
            results[opponent] = result
            label = self._labels[opponent]
            self.logger.record(f"eval/winrate_vs_{label}", result.winrate)
            self.logger.record(f"eval/mean_vp_vs_{label}", result.mean_vp)
            self.logger.record(f"eval/opponent_vp_vs_{label}", result.mean_opponent_vp)
            self.logger.record(f"eval/mean_rounds_vs_{label}", result.mean_rounds)
            self.logger.record(f"eval/truncated_vs_{label}", result.truncated)
            labels = [LEARNER] + [label] * (self.cfg.num_players - 1)
            for ranks in result.rankings:
                self.rating.update(labels, ranks)
        self.last_eval = results
        if self._bar is not None and results:
            self._bar.set_postfix({f"win_{self._labels[k][:4]}": f"{r.winrate:.2f}"
                                   for k, r in results.items()}, refresh=False)
        return results

    def log_statistics(self, step: int) -> None:
        """Chart the games finished since the last rollout and the learner's action mix."""
        stats = self.training_env.env_method("pop_stats")
        blocks = np.sum([s["blocks"] for s in stats], axis=0)
        episodes = [e for s in stats for e in s["episodes"]]
        illegal = sum(s["illegal"] for s in stats)
        env_seconds = sum(s["env_seconds"] for s in stats)
        self.totals["illegal_actions"] = self.totals.get("illegal_actions", 0) + illegal
        total = max(int(blocks.sum()), 1)
        for name, count in zip(BLOCK_NAMES, blocks):
            self.logger.record(f"actions/share_{name}", count / total)
        self.logger.record("charts/illegal_actions", self.totals["illegal_actions"])
        now = time.perf_counter()
        wall = max(now - self._clock, 1e-9)
        self.logger.record("charts/env_steps_per_s", (step - self._clock_step) / wall)
        self.logger.record("perf/env_time_share", env_seconds / wall)
        if episodes:
            vp = [e["scores"][e["seat"]] for e in episodes]
            opp = [np.mean([v for i, v in enumerate(e["scores"]) if i != e["seat"]])
                   for e in episodes]
            self.logger.record("charts/mean_vp", float(np.mean(vp)))
            self.logger.record("charts/mean_opponent_vp", float(np.mean(opp)))
            self.logger.record("charts/mean_rounds",
                               float(np.mean([e["rounds"] for e in episodes])))
            self.logger.record("charts/truncated", float(np.mean([not e["terminated"]
                                                                 for e in episodes])))
            won = [e["seat"] in e["winners"] for e in episodes]  # no winner when cut off
            self.logger.record("charts/winrate_train", float(np.mean(won)))
            by_kind: dict[str, list[bool]] = {}
            for e, w in zip(episodes, won):  # 2-player games: one opponent kind per game
                kinds = {lab.split("@")[0] for lab in e["labels"] if lab != "learner"}
                if len(kinds) == 1:
                    by_kind.setdefault(kinds.pop(), []).append(w)
            for kind, ws in by_kind.items():
                self.logger.record(f"charts/winrate_train_vs_{kind}", float(np.mean(ws)))
            for e in episodes:
                self.rating.update(e["labels"], e["ranks"])
        mu, ordinal = self.rating.learner()
        self.logger.record("rating/learner_mu", mu)
        self.logger.record("rating/learner_ordinal", ordinal)
        snaps = [self.rating.get(label).mu for label, _ in self.pool.snapshots]
        if snaps:
            self.logger.record("rating/pool_mean_mu", float(np.mean(snaps)))
        for label in sorted(set(self._labels.values()) - {ANCHOR}):
            self.logger.record(f"rating/{label}_mu", float(self.rating.get(label).mu))

    def _restart_clock(self) -> None:
        self._clock = time.perf_counter()
        self._clock_step = self.num_timesteps
