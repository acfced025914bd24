"""Expert iteration (``trainer: exit``): the search around the network plays, the network
learns the search's moves, and the improved network guides the next round of search.

One **generation**:

1. *Self-play*: ``exit.games`` games on the native core, played in ``exit.workers``
   processes, in which every decision of every seat is searched by
   :class:`~zavandor_env.agents.netsearch.NetworkSearch` around the current network with a
   fixed budget of ``exit.iterations`` and Dirichlet noise at the root (``exit.root_noise``,
   ``exit.noise_fraction``).  Who moves is ``exit.play``: the search (AlphaZero's way), or
   the network itself, the search only labelling the states its play reaches (a DAgger-style
   imitation: the states the network meets when it plays alone).  Each seat's first
   ``exit.temperature_moves`` searched decisions play a move drawn in proportion to the root
   visits (with the network playing: from its masked softmax), later ones the most visited
   move (the network's most probable one): diversity early, strength after.  A
   decision with one legal action is played without a search and not recorded (it teaches
   nothing).  Every searched decision records the deciding seat's observation and mask, the
   policy target (``exit.target``: by default the search's move with certainty; or the
   network's prior shifted by the search's root action values, :func:`completed_q_target`;
   or the root visit distribution) and, once
   the game is over, that seat's final
   reward (the value target) from :class:`~zavandor_env.envs.rewards.RewardConfig` -- the
   environment's one definition of rewards, with the config's ``reward`` and
   ``truncation_reward``, so the critic learns on the PPO critic's win/loss scale (no
   per-step shaping: the search scores whole games).
2. *Training*: the replay window (the searched decisions of the last
   ``exit.replay_generations`` generations) trains a torch actor-critic of the ``.npz``
   architecture (``net_arch``, ``activation``; actor and critic separate MLPs): cross-entropy
   of the masked policy to the target (the search's corrections of the network, the targets
   whose most probable action the network before this training would not have chosen,
   weighted ``exit.deviation_weight``), plus ``exit.anchor_kl`` times the KL divergence from
   that network (a trust region), plus ``vf_coef`` times the value MSE, Adam
   (``learning_rate``), ``n_epochs`` passes of minibatches of ``batch_size``, gradients clipped
   at ``max_grad_norm``.  With ``exit.retrain_from_init`` the network trained is a fresh
   copy of ``init_policy`` each generation (a new optimizer too), so "the network before this
   training" is the warm start.
3. *Export and checkpoint*: ``policy.npz`` (weights only, with the critic), which the next
   generation's search uses; a checkpoint of the generation (below); the evaluation every
   ``exit.eval_every`` generations (win rates against ``eval_opponents``, the rating).

A new run starts from ``init_policy`` (a warm start, checked like PPO's) or from a random
network.  Run layout (``<runs_dir>/<name>__<seed>__<time>/``), as a PPO run's::

    config.yaml                  the resolved config (``--resume`` reads it back)
    resumes.jsonl                one line per ``--resume``: the step and its ``--set`` changes
    events.out.tfevents.*        TensorBoard scalars (losses, entropy, throughput, evaluation)
    checkpoints/step_<G>/        model.zip (torch tensors: the network and Adam's state),
                                 replay.npz (the replay window), state.json (generation,
                                 random generator state, rating, totals); the newest two kept
    checkpoints/LATEST           name of the newest complete checkpoint (written last)
    policy.npz                   weights-only export of the newest generation
    eval.json                    the newest evaluation figures

``step`` of a checkpoint is the number of finished generations; generation 0 (the starting
network) is saved before the first game, so a kill at any moment can be resumed, and
``--resume`` continues exactly: the game seeds derive from the config's seed and the
generation, and the trainer's random generator state is in the checkpoint.  Checkpoints are
written and read by :mod:`zavandor_env.train.common.checkpointing` (atomic, read back before
``LATEST`` names
them, tensors loaded with ``weights_only``); the replay file is read without pickles, its
declared sizes bounded before anything is inflated.  Ctrl-C stops the run; the checkpoint of
the last finished generation is the one to resume from (a generation's half-played games are
not kept).
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.train.common.checkpointing import (
    Checkpoint,
    CheckpointWriter,
    SaveError,
    latest_checkpoint,
    model_shape,
    record_resume,
    write_model_zip,
)
from zavandor_env.train.common.run import (
    TrainingInterrupted,
    open_run,
    save_step,
    seed_everything,
    warn,
)
from zavandor_env.train.common.timed import TimedPolicies
from zavandor_env.train.config import TrainConfig
from zavandor_env.train.exit.checkpoint import (
    REPLAY,
    read_replay,
    read_replay_checked,
    restore,
    write_replay,
)
from zavandor_env.train.exit.model import ExitModel, make_optimizer, train_step
from zavandor_env.train.exit.selfplay import (
    DecisionBatch,
    GameRecord,
    GameTask,
    SelfPlayError,
    SelfPlayPool,
)

__all__ = ["SelfPlayError", "train_exit"]


class _Run:
    """One invocation of expert iteration: the network, its optimizer, the replay window,
    the rating and totals, the charts and the checkpoints."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, checkpoint: Checkpoint | None,
                 init: Any, window: list[tuple[int, DecisionBatch]],
                 overrides: list[str] | None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        from zavandor_env.train.common.evaluate import spec_labels
        from zavandor_env.train.common.init_policy import read_init_policy
        from zavandor_env.train.common.rating import PoolRating

        self.cfg, self.run_dir, self.window = cfg, run_dir, window
        seed_everything(cfg.seed, cfg.torch_threads)
        self.model = ExitModel(cfg.net_arch, cfg.activation)
        self.optimizer = make_optimizer(self.model, cfg)
        self.rating = PoolRating()
        self.rng = np.random.default_rng(cfg.seed)
        self.totals: dict[str, Any] = {"games": 0, "decisions": 0, "searched": 0,
                                       "selfplay_seconds": 0.0}
        self.generation = 0
        self.last_eval: dict[str, Any] = {}
        # exit.retrain_from_init: the network every generation starts its training from (a
        # resume reads it again; the config check made sure there is one).
        self.retrain_from = None
        if cfg.exit.retrain_from_init:
            self.retrain_from = (init if init is not None else read_init_policy(cfg))[1]
        if checkpoint is not None:
            self.generation = checkpoint.step
            restore(checkpoint, self.model, self.optimizer, self.rating, self.rng, self.totals)
            # The optimizer's saved state carries the learning rate it ran with; a resume's
            # ``--set exit.learning_rate=...`` is the one to use from here on.
            for group in self.optimizer.param_groups:
                group["lr"] = cfg.exit.learning_rate
            self.last_eval = dict(checkpoint.state.get("eval", {}))
            record_resume(run_dir, checkpoint.step, overrides)  # once everything it needs loaded
        self.writer = SummaryWriter(str(run_dir))
        if checkpoint is None:
            self.writer.add_text("config", cfg.to_markdown(), 0)
        if init is not None:
            with_critic = self.model.load_policy(init[1])
            line = f"initialised from {init[0]}" + ("" if with_critic else " (actor only)")
            self.writer.add_text("init_policy", line, 0)
            print(line)
        self.checkpoints = CheckpointWriter(run_dir, checkpoint, shape=model_shape(cfg))
        self.timed = TimedPolicies(run_dir, cfg.keep_policy_minutes)
        self.timed.resume_at(checkpoint.state if checkpoint is not None else {})  # clock goes on
        self.game_config = cfg.game_config()
        self.labels = spec_labels(cfg)

    def save(self, gen: int) -> None:
        """The checkpoint of generation ``gen``, its policy and its figures."""
        generations = [g for g, _ in self.window]

        def write_model(path: Path) -> None:
            write_model_zip(path, self.model.net.state_dict(), self.optimizer.state_dict())
            write_replay(path.parent / REPLAY, self.window)
            read_replay(path.parent / REPLAY, generations)  # read back, as resumed

        state = {"pool": {}, "rating": self.rating.state_dict(), "totals": self.totals,
                 "generation": gen, "replay_generations": generations,
                 "rng": self.rng.bit_generator.state, "eval": self.last_eval,
                 **self.timed.state()}
        figures = {"generation": gen, "step": int(self.totals["searched"]),
                   "illegal_actions": 0, "eval": self.last_eval}
        save_step(self.run_dir, self.checkpoints, gen, f"checkpoint of generation {gen}",
                  write_model, state, self.model.to_policy, figures, self.cfg)

    def evaluate(self, gen: int) -> None:
        from zavandor_env.io.printable import terminal_safe
        from zavandor_env.train.common.evaluate import evaluate_all

        results = evaluate_all(self.model.to_policy(), self.cfg, self.labels, self.rating,
                               lambda tag, value: self.writer.add_scalar(tag, value, gen))
        self.last_eval.clear()
        self.last_eval.update({k: r.to_dict() for k, r in results.items()})
        # A label comes from the run's config.yaml (a run folder may be someone's): escaped.
        print(f"generation {gen}: " + ", ".join(
            f"vs {terminal_safe(self.labels[k], one_line=True)} {r.winrate:.2f}"
            for k, r in results.items()), flush=True)

    def play(self, pool: SelfPlayPool) -> list[GameRecord]:
        """The self-play games of the next generation."""
        cfg, policy = self.cfg, self.model.to_policy()
        tasks = [GameTask(policy, self.game_config.to_dict(), _game_seed(cfg, self.generation, g),
                          cfg.exit, cfg.reward, cfg.truncation_reward)
                 for g in range(cfg.exit.games)]
        return pool.play(tasks)

    def learn(self, records: list[GameRecord], play_seconds: float) -> dict[str, float]:
        """Train on the replay window with the new games' decisions; chart the generation."""
        cfg = self.cfg
        batch = DecisionBatch.concat([r.batch for r in records])
        self.window = [*self.window, (self.generation + 1, batch)][-cfg.exit.replay_generations:]
        data = DecisionBatch.concat([b for _, b in self.window])
        self.timed.before_update(self.model.to_policy, {"generation": self.generation})
        if self.retrain_from is not None:  # a fresh apprentice: the warm start, a new optimizer
            self.model.load_policy(self.retrain_from)
            self.optimizer = make_optimizer(self.model, cfg)
        start = time.monotonic()
        losses = train_step(self.model, self.optimizer, data, cfg, self.rng) if len(data) else {}
        self.generation += 1
        self.totals["games"] += len(records)
        self.totals["decisions"] += sum(r.decisions for r in records)
        self.totals["searched"] += len(batch)
        self.totals["selfplay_seconds"] += play_seconds
        _chart(self.writer, self.generation, records, batch, data, losses, play_seconds,
               time.monotonic() - start, self.totals)
        return losses

    def close(self) -> None:
        self.writer.close()  # flushes first


def train_exit(cfg: TrainConfig | None = None, resume: str | Path | None = None,
               overrides: list[str] | None = None,
               warn: Callable[[str], None] = warn) -> Path:
    """Run (or continue) expert iteration; return the run folder.

    Arguments and errors as :func:`zavandor_env.train.ppo.selfplay.train`: ``cfg`` for a new
    run (its ``init_policy`` is read and checked before the run folder exists), or
    ``resume``, a run folder to continue from its newest intact checkpoint with ``overrides``
    applied to its config (e.g. ``--set exit.generations=40`` to run longer).

    Raises:
        TrainConfigError, CheckpointError: one line, nothing trained.
        TrainingInterrupted: Ctrl-C; the last finished generation's checkpoint is kept.
    """
    from zavandor_env.io.folders import release

    cfg, run_dir, checkpoint, init = open_run(cfg, resume, overrides, warn, "exit",
                                              read_extra=read_replay_checked)
    window = checkpoint.extra if checkpoint is not None else []
    run = _Run(cfg, run_dir, checkpoint, init, window, overrides)
    if checkpoint is None:
        run.save(0)  # the starting network: a kill from here on can be resumed
    saved = run.generation  # the newest generation on disk (what a Ctrl-C leaves to resume)
    pool = SelfPlayPool(1)  # spawns nothing: the workers start inside the try below
    phase = ["self-play"]
    try:
        # Started here, so a Ctrl-C while the workers spawn still names the checkpoint.
        pool = SelfPlayPool(cfg.exit.workers)
        for on_disk in _generations(run, pool, phase):
            saved = on_disk
        saved = run.generation
        every = cfg.exit.eval_every
        if not every or run.generation % every or not run.last_eval:
            run.evaluate(run.generation)  # the final figures, if the last generation had none
            run.save(run.generation)
        run.timed.before_update(run.model.to_policy, {"generation": run.generation})
    except (KeyboardInterrupt, SaveError, SelfPlayError) as exc:
        pool.close(terminate=True)
        if isinstance(exc, SaveError):
            raise
        resume_cmd = f"zavandor train --resume {shlex.quote(str(run_dir))}"
        if isinstance(exc, SelfPlayError):
            raise SelfPlayError(f"{exc}; the checkpoint of generation {saved} is kept; "
                                f"continue with: {resume_cmd}") from None
        stop = TrainingInterrupted(run_dir, saved, latest_checkpoint(run_dir) is not None, saved)
        # The network changes only in a generation's training, after its games: what is on
        # disk is the last finished generation, and a generation's games are not kept.
        stop.args = (f"interrupted in generation {saved + 1} ({phase[0]}); the checkpoint "
                     f"of generation {saved} is kept; continue with: {resume_cmd}"
                     if stop.resumable else "interrupted before any checkpoint",)
        raise stop from None
    finally:
        pool.close()
        run.close()
        release(run_dir)
    return run_dir


def _generations(run: _Run, pool: SelfPlayPool, phase: list[str]) -> Any:
    """Play, train, evaluate and save generations until ``exit.generations`` or
    ``max_minutes``; yield the generation on disk before each (``phase[0]`` says what runs)."""
    cfg = run.cfg
    started, last_duration = time.monotonic(), 0.0
    budget = None if cfg.max_minutes is None else cfg.max_minutes * 60.0
    while run.generation < cfg.exit.generations:
        yield run.generation
        if budget is not None and time.monotonic() - started + last_duration > budget:
            print(f"max_minutes reached after generation {run.generation}", flush=True)
            return
        gen_start = time.monotonic()
        phase[0] = "self-play"
        records = run.play(pool)
        play_seconds = time.monotonic() - gen_start
        phase[0] = "training"
        losses = run.learn(records, play_seconds)
        phase[0] = "saving"
        if cfg.exit.eval_every and run.generation % cfg.exit.eval_every == 0:
            run.evaluate(run.generation)
        run.save(run.generation)
        last_duration = time.monotonic() - gen_start
        print(f"generation {run.generation}: {len(records)} games, "
              f"{sum(len(r.batch) for r in records)} searched decisions in "
              f"{play_seconds:.0f} s, policy loss {losses.get('policy', float('nan')):.3f}, "
              f"value loss {losses.get('value', float('nan')):.3f}", flush=True)


def _game_seed(cfg: TrainConfig, generation: int, game: int) -> int:
    """Game ``game`` of generation ``generation`` (0-based): distinct, fixed by the config."""
    return (cfg.seed * 1_000_003 + generation * 10_007 + game) % (2**31 - 1)


def _chart(writer: Any, gen: int, records: list[GameRecord], batch: DecisionBatch,
           data: DecisionBatch, losses: dict[str, float], play_seconds: float,
           train_seconds: float, totals: dict[str, Any]) -> None:
    scalars: dict[str, Any] = {
        f"{'loss' if key in ('policy', 'value', 'total') else 'policy'}/{key}": losses[key]
        for key in ("policy", "value", "total", "entropy", "target_entropy", "anchor_kl",
                    "deviations") if key in losses}
    if "policy" in losses:
        scalars["policy/kl_to_target"] = losses["policy"] - losses["target_entropy"]
    minutes = max(play_seconds, 1e-9) / 60.0
    scalars.update({
        "selfplay/games_per_min": len(records) / minutes,
        "selfplay/decisions_per_min": sum(r.decisions for r in records) / minutes,
        "selfplay/searched_per_min": sum(r.searched for r in records) / minutes,
        "selfplay/labelled_per_min": len(batch) / minutes,
        "selfplay/mean_rounds": np.mean([r.rounds for r in records]),
        "selfplay/truncated": np.mean([r.truncated for r in records]),
        "selfplay/seat0_wins": np.mean([0 in r.winners for r in records]),
        "selfplay/search_value": np.mean([r.search_value for r in records]),
        "train/replay_decisions": len(data),
        "train/seconds": train_seconds,
        "train/total_searched": totals["searched"],
    })
    for name, value in scalars.items():
        writer.add_scalar(name, float(value), gen)

