"""Self-play training with RLlib PPO on Ray: :func:`train_rllib`, the ``backend: rllib`` twin of
:func:`zavandor_env.train.ppo.selfplay.train` (same config, same run folder, same charts and
exports).

Run layout (``<runs_dir>/<name>__<seed>__<time>/``), as the SB3 backend's::

    config.yaml                  the resolved config (``--resume`` reads it back)
    events.out.tfevents.*        TensorBoard: the SB3 backend's tags (see stats.py)
    checkpoints/step_<N>/        model.zip (tensors only: policy.pth = every module's weights,
                                 policy.optimizer.pth = the learner's optimizer) and
                                 state.json (step, league slots, rating, totals)
    checkpoints/LATEST           name of the newest complete checkpoint (written last)
    policy.npz                   weights-only export of ``main`` (agents.PolicyAgent)
    eval.json                    the newest evaluation figures

One training iteration is RLlib's ``Algorithm.train()``: the env runners play ``n_steps *
n_envs`` decisions each (every seat's), the learner updates ``main`` on its own decisions.
Between iterations -- when the weights are consistent -- the trainer charts the finished games,
fills a snapshot slot, evaluates and checkpoints at their intervals, counted in ``main``'s
decisions as the SB3 backend counts its learner's.  Checkpoints are the project's kill-safe
ones (:mod:`zavandor_env.train.common.checkpointing`): RLlib's own checkpoint format pickles its
config and
states, so resuming rebuilds the algorithm from ``config.yaml`` and loads only tensors.

Ray: with ``address=None`` a local Ray is started for the run and stopped after it (a session
already open in this process, e.g. a test's, is used as it is); ``"auto"`` or
``"ray://host:10001"`` joins a running cluster, whose nodes need this package installed.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.io.params import one_line
from zavandor_env.io.printable import terminal_safe
from zavandor_env.train.common.checkpointing import (
    Checkpoint,
    CheckpointError,
    CheckpointWriter,
    does_not_fit,
    model_shape,
    write_model_zip,
)
from zavandor_env.train.common.pool import snapshot_label
from zavandor_env.train.common.run import (
    close_quietly,
    interrupted,
    league_state,
    load_run_config,
    open_run,
    progress_bar,
    save_step,
    seed_everything,
    warn,
)
from zavandor_env.train.config import TrainConfig, load_config
from zavandor_env.train.rllib import RayMissingError, ray_session
from zavandor_env.train.rllib.league import MAIN, League, scripted_id

#: Where the RLlib backend's TensorBoard scalars from the learner go, by SB3's names.
LEARNER_TAGS = {"policy_loss": "train/policy_gradient_loss", "vf_loss": "train/value_loss",
                "entropy": "train/entropy", "mean_kl_loss": "train/approx_kl",
                "vf_explained_var": "train/explained_variance", "total_loss": "train/loss"}


# ---- the algorithm ----------------------------------------------------------------------------
def train_batch_size(cfg: TrainConfig) -> int:
    """Decisions (every seat's) per training iteration: ``n_steps`` per game in play."""
    return cfg.ppo.n_steps * cfg.ppo.n_envs * max(1, cfg.rllib.num_env_runners)


def algorithm_config(cfg: TrainConfig, league: Any, start_step: int = 0) -> Any:
    """RLlib's PPO config of a run: the league's modules, SB3-equivalent hyper-parameters."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from zavandor_env.engine.actions import NUM_ACTIONS
    from zavandor_env.envs.rllib import ZavandorMultiAgentEnv
    from zavandor_env.train.rllib.module import MaskedActorCritic, ScriptedModule
    from zavandor_env.train.rllib.stats import GameStatsCallback

    net = {"hidden": list(cfg.net_arch), "activation": cfg.activation}
    specs = {module: RLModuleSpec(module_class=MaskedActorCritic, model_config=net)
             for module in [MAIN, *league.slot_ids()]}
    for k, _spec in enumerate(league.specs):
        specs[scripted_id(k)] = RLModuleSpec(module_class=ScriptedModule,
                                             model_config={"delegate": NUM_ACTIONS + k})
    env_config = {"num_players": cfg.num_players, "options": cfg.env_options(),
                  "scripted": list(league.specs), "seed": cfg.seed, "start_step": start_step}
    return (
        PPOConfig()
        .environment(ZavandorMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=cfg.rllib.num_env_runners,
                     num_envs_per_env_runner=cfg.ppo.n_envs,
                     rollout_fragment_length="auto")
        # A failing env runner stops the run with its error: RLlib's default restarts it
        # quietly, which turns a bug in an agent into an endless loop of restarts.
        .fault_tolerance(restart_failed_env_runners=False)
        .learners(num_learners=0)  # the learner runs in this process (CPU)
        .multi_agent(policies=set(specs), policy_mapping_fn=league.mapping(),
                     policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(train_batch_size_per_learner=train_batch_size(cfg),
                  minibatch_size=cfg.ppo.batch_size, num_epochs=cfg.ppo.n_epochs,
                  lr=cfg.ppo.learning_rate, gamma=cfg.ppo.gamma, lambda_=cfg.ppo.gae_lambda,
                  clip_param=cfg.ppo.clip_range, entropy_coeff=cfg.ppo.ent_coef,
                  vf_loss_coeff=cfg.ppo.vf_coef, grad_clip=cfg.ppo.max_grad_norm,
                  grad_clip_by="global_norm",
                  # As MaskablePPO: no KL penalty, no clipping of the value loss.
                  use_kl_loss=False, vf_clip_param=math.inf)
        .callbacks(GameStatsCallback)
        .debugging(seed=cfg.seed + start_step, log_level="ERROR")
    )


def module_states(algo: Any, optimizer: bool = False) -> dict[str, Any]:
    """The learner's module weights (module id -> name -> array) and, when asked, its
    optimizer state, as plain containers of NumPy arrays."""
    components = ["learner/rl_module"] + (["learner/optimizer"] if optimizer else [])
    state = algo.learner_group.get_state(components=components)["learner"]
    return state if optimizer else state["rl_module"]


def _tree_map(leaf: Callable[[Any], Any], value: Any) -> Any:
    """``value`` with ``leaf`` applied to everything inside its dicts, lists and tuples."""
    if isinstance(value, dict):
        return {k: _tree_map(leaf, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_tree_map(leaf, v) for v in value)
    return leaf(value)


def _to_torch(value: Any) -> Any:
    """NumPy leaves as tensors, NumPy scalars as Python numbers: what ``torch.load(...,
    weights_only=True)`` reads back without unpickling any other object."""
    import torch

    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    return value.item() if isinstance(value, np.generic) else value


def _to_numpy(value: Any) -> Any:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else value


def write_model(algo: Any, path: Path) -> None:
    """``model.zip`` of a checkpoint: the weights of every module and the learner's
    optimizer, tensors and plain containers only."""
    state = module_states(algo, optimizer=True)
    write_model_zip(path, _tree_map(_to_torch, state["rl_module"]),
                    _tree_map(_to_torch, state["optimizer"]))


def restore(algo: Any, checkpoint: Checkpoint) -> None:
    """Load a checkpoint's weights and optimizer into an algorithm built from the run's
    config; the env runners get the new weights."""
    modules = checkpoint.params["policy"]
    expected = set(module_states(algo))
    if set(modules) != expected:
        raise CheckpointError(
            f"checkpoint {checkpoint.path.name} holds modules {sorted(modules)}, the run's "
            f"config builds {sorted(expected)} (was pool_size or opponent_weights changed "
            "with --set?)")
    state = {"learner": {"rl_module": _tree_map(_to_numpy, modules),
                         "optimizer": _tree_map(_to_numpy, checkpoint.params["policy.optimizer"])}}
    try:
        algo.set_state({"learner_group": state})
    except (RuntimeError, ValueError, KeyError) as exc:
        raise does_not_fit(checkpoint, exc) from None


def push_mapping(algo: Any, mapping: Any) -> None:
    """Use ``mapping`` as the policy mapping function from the next episode on, here and on
    every env runner (each reads it from its config when an episode starts)."""

    def assign(config: Any) -> None:
        frozen = getattr(config, "_is_frozen", False)
        config._is_frozen = False  # RLlib's own add_module() edits a built config so too
        config.multi_agent(policy_mapping_fn=mapping)
        config._is_frozen = frozen

    assign(algo.config)
    algo.env_runner_group.foreach_env_runner(lambda runner: assign(runner.config))


def add_snapshot(algo: Any, league: Any, step: int) -> str:
    """Copy ``main``'s weights into the next snapshot slot and start drawing it."""
    slot = league.next_slot()
    main = module_states(algo)[MAIN]
    algo.set_state({"learner_group": {"learner": {"rl_module": {slot: main}}}})
    league.add(slot, snapshot_label(step))
    push_mapping(algo, league.mapping())
    return slot


def export_main(algo: Any, cfg: TrainConfig, info: dict[str, Any] | None = None) -> Any:
    """``main``'s weights-only policy (actor and critic), from the learner."""
    from zavandor_env.train.rllib.export import policy_from_module_state

    return policy_from_module_state(module_states(algo)[MAIN], cfg.activation, info)


def _main_steps(result: dict[str, Any]) -> int:
    """``main``'s decisions sampled since the algorithm was built."""
    sampled = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    value = sampled.get("main", 0) if isinstance(sampled, dict) else 0
    return int(float(value))


# ---- the run ----------------------------------------------------------------------------------
class _Trainer:
    """The state of one invocation: algorithm, league, rating, charts, schedules."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, checkpoint: Checkpoint | None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        from zavandor_env.train.common.evaluate import spec_labels
        from zavandor_env.train.common.run import Schedule

        self.cfg = cfg
        self.run_dir = run_dir
        self.start_step = checkpoint.step if checkpoint is not None else 0
        self.step = self.start_step
        seed_everything(cfg.seed + self.start_step, cfg.torch_threads)
        self.league = League(cfg)
        self.rating, self.totals = league_state(checkpoint, self.league)
        # RLlib's config check warns on every build that PPO now runs on its new API stack,
        # which is the one this backend is written for.
        logging.getLogger("ray.rllib.algorithms.algorithm_config").setLevel(logging.ERROR)
        self.algo = algorithm_config(cfg, self.league, self.start_step).build_algo()
        if checkpoint is not None:
            try:
                restore(self.algo, checkpoint)
            except CheckpointError:
                self.algo.stop()
                raise
        self.writer = SummaryWriter(str(run_dir))
        if checkpoint is None:
            self.writer.add_text("config", cfg.to_markdown(), 0)
        self.checkpoints = CheckpointWriter(run_dir, checkpoint, shape=model_shape(cfg))
        self.snapshots = Schedule(cfg.snapshot_every, self.start_step)
        self.evals = Schedule(cfg.eval_every, self.start_step)
        self.saves = Schedule(cfg.ppo.checkpoint_every, self.start_step)
        self.last_eval: dict[str, Any] = {}
        self.evaluated = self.saved = -1  # the steps of the last evaluation and checkpoint
        self.labels = spec_labels(cfg)
        self.updating = False
        self.clock = time.perf_counter()
        self.clock_step = self.step

    def record(self, tag: str, value: float) -> None:
        self.writer.add_scalar(tag, value, self.step)

    def iterate(self) -> None:
        """One RLlib iteration, then the charts and whatever is due."""
        self.updating = True
        result = self.algo.train()
        self.updating = False
        self.step = self.start_step + _main_steps(result)
        learner = result.get("learners", {}).get("main", {})
        for key, tag in LEARNER_TAGS.items():
            value = learner.get(key)
            if value is not None and np.isfinite(float(value)):
                self.record(tag, float(value))
        self.periodic()

    def periodic(self, final: bool = False) -> None:
        """Chart, snapshot, evaluate and checkpoint as due (all of them when ``final``)."""
        from zavandor_env.train.rllib.stats import chart_games, pop_summaries

        summaries = [s for batch in self.algo.env_runner_group.foreach_env_runner(pop_summaries)
                     for s in batch]
        chart_games(self.record, summaries, self.league, self.rating, self.totals,
                    rated=list(self.labels.values()))
        if self.step > self.clock_step:  # (a final call right after an iteration has none)
            speed = (self.step - self.clock_step) / max(time.perf_counter() - self.clock, 1e-9)
            self.record("charts/env_steps_per_s", speed)
            self.record("time/fps", speed)
        if self.snapshots.due(self.step) and not final:
            add_snapshot(self.algo, self.league, self.step)
            self.record("pool/snapshots", len(self.league.filled))
        # The final call follows an iteration's own: what that one just did is not redone.
        if (self.evals.due(self.step) or (final and self.evaluated != self.step)) \
                and self.cfg.eval_games > 0:
            self.evaluate()
        if self.saves.due(self.step) or (final and self.saved != self.step):
            self.save()
        self.writer.flush()
        self.clock, self.clock_step = time.perf_counter(), self.step

    def evaluate(self) -> None:
        """``main`` (exported) against every evaluation opponent, on the one game driver."""
        from zavandor_env.train.common.evaluate import evaluate_all

        self.last_eval = evaluate_all(export_main(self.algo, self.cfg), self.cfg, self.labels,
                                      self.rating, self.record)
        self.evaluated = self.step

    def save(self) -> None:
        step = self.step
        figures = {"step": step, "illegal_actions": self.totals["illegal_actions"],
                   "eval": {k: r.to_dict() for k, r in self.last_eval.items()}}
        save_step(self.run_dir, self.checkpoints, step, f"checkpoint of step {step}",
                  lambda path: write_model(self.algo, path),
                  {"pool": self.league.state_dict(), "rating": self.rating.state_dict(),
                   "totals": self.totals, "backend": "rllib"},
                  lambda info: export_main(self.algo, self.cfg, info), figures, self.cfg)
        self.saved = step

    def close(self) -> None:
        close_quietly(self.writer.flush, self.writer.close, self.algo.stop)


def train_rllib(cfg: TrainConfig | None = None, resume: str | Path | None = None,
                overrides: list[str] | None = None, address: str | None = None,
                warn: Callable[[str], None] = warn) -> Path:
    """Train (or continue training) with RLlib and return the run folder.

    Args:
        cfg: the config of a new run (ignored when resuming); ``backend`` should be rllib.
        resume: a run folder to continue from its newest intact checkpoint.
        overrides: ``key=value`` changes applied to the resumed run's config.
        address: a Ray cluster to join ("auto", "ray://host:10001"); None: a local Ray.
        warn: receives one line per broken checkpoint skipped when resuming.

    Raises:
        RayMissingError: Ray / RLlib are not installed.
        TrainConfigError, CheckpointError: as :func:`zavandor_env.train.ppo.selfplay.train`.
        TrainingInterrupted: Ctrl-C (a checkpoint is saved first when that is safe).
    """
    try:  # RLlib has dependencies of its own (dm-tree, pyarrow...): say which one is missing
        import ray.rllib  # noqa: F401
    except ImportError as exc:
        raise RayMissingError("backend rllib", one_line(exc)) from None
    # Ray first: a cluster that cannot be joined must not leave an empty run folder behind.
    planned = (cfg or load_config()) if resume is None else load_run_config(Path(resume),
                                                                            overrides)
    num_cpus = max(os.cpu_count() or 1, planned.rllib.num_env_runners)  # never wait for a CPU
    with ray_session(address, num_cpus, what="backend rllib"):
        cfg, run_dir, checkpoint, _ = open_run(planned if resume is None else None, resume,
                                               overrides, warn, "rllib")
        trainer = _Trainer(cfg, run_dir, checkpoint)
        deadline = (time.monotonic() + 60 * cfg.max_minutes
                    if cfg.max_minutes is not None else None)
        bar = progress_bar(cfg, trainer.step)
        try:
            while trainer.step < cfg.ppo.total_timesteps and (
                    deadline is None or time.monotonic() < deadline):
                before = trainer.step
                trainer.iterate()
                if bar is not None:
                    bar.update(trainer.step - before)
                    # labels may come from a run folder: escaped before the terminal
                    bar.set_postfix({f"win_{terminal_safe(trainer.labels[k][:4])}":
                                     f"{r.winrate:.2f}"
                                     for k, r in trainer.last_eval.items()}, refresh=False)
            trainer.periodic(final=True)
        except KeyboardInterrupt:
            raise interrupted(run_dir, trainer.step, trainer.updating,
                              lambda _: trainer.save()) from None
        finally:
            if bar is not None:
                bar.close()
            trainer.close()
    return run_dir

