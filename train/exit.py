"""Expert iteration (``backend: exit``): the search around the network plays, the network
learns the search's moves, and the improved network guides the next round of search.

One **generation**:

1. *Self-play*: ``exit_games`` games on the native core, played in ``exit_workers``
   processes, in which every decision of every seat is searched by
   :class:`~zavandor_env.agents.netsearch.NetworkSearch` around the current network with a
   fixed budget of ``exit_iterations`` and Dirichlet noise at the root (``exit_root_noise``,
   ``exit_noise_fraction``).  Who moves is ``exit_play``: the search (AlphaZero's way), or
   the network itself, the search only labelling the states its play reaches (a DAgger-style
   imitation: the states the network meets when it plays alone).  Each seat's first
   ``exit_temperature_moves`` searched decisions play a move drawn in proportion to the root
   visits (with the network playing: from its masked softmax), later ones the most visited
   move (the network's most probable one): diversity early, strength after.  A
   decision with one legal action is played without a search and not recorded (it teaches
   nothing).  Every searched decision records the deciding seat's observation and mask, the
   policy target (``exit_target``: by default the search's move with certainty; or the
   network's prior shifted by the search's root action values, :func:`completed_q_target`;
   or the root visit distribution) and, once
   the game is over, that seat's final
   reward (the value target) from :class:`~zavandor_env.envs.rewards.RewardConfig` -- the
   environment's one definition of rewards, with the config's ``reward`` and
   ``truncation_reward``, so the critic learns on the PPO critic's win/loss scale (no
   per-step shaping: the search scores whole games).
2. *Training*: the replay window (the searched decisions of the last
   ``exit_replay_generations`` generations) trains a torch actor-critic of the ``.npz``
   architecture (``net_arch``, ``activation``; actor and critic separate MLPs): cross-entropy
   of the masked policy to the target (the search's corrections of the network, the targets
   whose most probable action the network before this training would not have chosen,
   weighted ``exit_deviation_weight``), plus ``exit_anchor_kl`` times the KL divergence from
   that network (a trust region), plus ``vf_coef`` times the value MSE, Adam
   (``learning_rate``), ``n_epochs`` passes of minibatches of ``batch_size``, gradients clipped
   at ``max_grad_norm``.  With ``exit_retrain_from_init`` the network trained is a fresh
   copy of ``init_policy`` each generation (a new optimizer too), so "the network before this
   training" is the warm start.
3. *Export and checkpoint*: ``policy.npz`` (weights only, with the critic), which the next
   generation's search uses; a checkpoint of the generation (below); the evaluation every
   ``exit_eval_every`` generations (win rates against ``eval_opponents``, the rating).

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
written and read by :mod:`train.checkpointing` (atomic, read back before ``LATEST`` names
them, tensors loaded with ``weights_only``); the replay file is read without pickles, its
declared sizes bounded before anything is inflated.  Ctrl-C stops the run; the checkpoint of
the last finished generation is the one to resume from (a generation's half-played games are
not kept).
"""

from __future__ import annotations

import io
import json
import math
import multiprocessing
import os
import shlex
import signal
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import numpy as np

from zavandor_env.train.checkpointing import (
    Checkpoint,
    CheckpointError,
    CheckpointWriter,
    SaveError,
    check_shape,
    latest_checkpoint,
    list_checkpoints,
    model_shape,
    obs_fingerprint,
    read_checkpoint,
    record_resume,
    saving,
    write_text_atomic,
)
from zavandor_env.train.config import TrainConfig, exit_search_params, load_config
from zavandor_env.train.exit_checkpoint import (
    check_exit_state,
    check_optimizer_tensors,
    check_replay_arrays,
)
from zavandor_env.train.timed import STATE_KEY as TIMED_STATE_KEY
from zavandor_env.train.timed import TimedPolicies

if TYPE_CHECKING:
    import torch

    from zavandor_env.agents.policy_file import NumpyPolicy

__all__ = ["DecisionBatch", "ExitModel", "GameTask", "SelfPlayError", "SelfPlayPool",
           "make_search",
           "play_selfplay_game", "train_exit", "train_step", "visit_target"]

#: The replay window's file inside a checkpoint folder.
REPLAY = "replay.npz"
#: The arrays of one generation's decisions, in the replay file as ``g<generation>.<name>``.
BATCH_FIELDS: Final = ("obs", "mask", "target", "value")
#: Largest replay file as its zip directory declares it (checked before inflating): about
#: 700,000 decisions.
MAX_REPLAY_BYTES: Final = 4 << 30
#: Logit of an illegal action in the loss: finite (a -inf times a zero target is NaN), far
#: below any legal logit.
_MASKED_LOGIT: Final = -1e9


# ---- the search ------------------------------------------------------------------------------
def make_search(policy: NumpyPolicy, params: dict[str, Any]) -> Any:
    """The self-play search around ``policy``: ``NetworkSearch(policy, **params)``.

    One indirection so tests can play a stand-in search (this module's only use of the
    search's API is ``run(game, seat, seed)`` -> ``.action``, ``.visits``, ``.value``)."""
    from zavandor_env.agents.netsearch import NetworkSearch

    return NetworkSearch(policy, **params)


# ---- self-play (runs in the worker processes) -----------------------------------------------
@dataclass
class DecisionBatch:
    """Searched decisions as arrays: ``obs`` float32 [N, OBS_SIZE], ``mask`` bool [N, A],
    ``target`` float32 [N, A] (the root visit distribution: sums to 1, 0 off the mask),
    ``value`` float32 [N] (the deciding seat's final reward)."""

    obs: np.ndarray
    mask: np.ndarray
    target: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return int(self.value.shape[0])

    @staticmethod
    def empty() -> DecisionBatch:
        from zavandor_env.encoding.observation import OBS_SIZE
        from zavandor_env.engine.actions import NUM_ACTIONS

        return DecisionBatch(np.zeros((0, OBS_SIZE), np.float32),
                             np.zeros((0, NUM_ACTIONS), bool),
                             np.zeros((0, NUM_ACTIONS), np.float32), np.zeros(0, np.float32))

    @staticmethod
    def concat(batches: Sequence[DecisionBatch]) -> DecisionBatch:
        if not batches:
            return DecisionBatch.empty()
        return DecisionBatch(*(np.concatenate([getattr(b, f) for b in batches])
                               for f in BATCH_FIELDS))


@dataclass
class GameTask:
    """One self-play game for a worker (plain data: it crosses a process boundary)."""

    policy: NumpyPolicy
    game: dict[str, Any]
    """GameConfig as a dict"""
    seed: int
    search: dict[str, Any]
    temperature_moves: int
    reward: str
    truncation_reward: float
    target: str = "move"
    """``exit_target``: ``move``, ``completed_q`` or ``visits``"""
    q_scale: float = 1.0
    q_visit: int = 50
    play: Literal["search", "network"] = "search"
    """``exit_play``: who moves, ``search`` or ``network`` (the search then only labels)"""
    search_below: float = 1.0
    """``exit_search_below``: with ``play`` network and ``target`` move, decisions the network
    plays with at least this probability are labelled with its move, unsearched"""


@dataclass
class GameRecord:
    """What a worker sends back: the game's searched decisions and its summary."""

    batch: DecisionBatch
    decisions: int
    """every decision of the game, searched or forced"""
    rounds: int
    truncated: bool
    winners: list[int]
    search_value: float
    """mean root value the search reported (0..1), over the searched decisions"""
    seconds: float
    searched: int
    """decisions the search labelled (the others of ``batch`` were left to the network by
    ``exit_search_below``)"""


def visit_target(visits: Any, mask: np.ndarray, action: int | None = None) -> np.ndarray:
    """The policy target of one decision: the root visits as a distribution over the legal
    actions.  A search that visited nothing (one allowed action, say) yields its move
    ``action`` with certainty, or without one the uniform distribution over the legal
    actions; a visit to an illegal action is a bug of the search and fails loudly."""
    counts = np.asarray(visits, dtype=np.float64).reshape(-1)
    if counts.shape != mask.shape:
        raise ValueError(f"the search returned {counts.shape[0]} visit counts, the game has "
                         f"{mask.shape[0]} actions")
    if (counts < 0).any() or not np.isfinite(counts).all():
        raise ValueError("the search returned negative or non-finite visit counts")
    if counts[~mask].any():
        raise ValueError("the search visited an illegal action: "
                         f"{np.flatnonzero(counts * ~mask).tolist()}")
    total = counts.sum()
    if total <= 0:
        if action is not None and 0 <= action < mask.shape[0] and mask[action]:
            return np.eye(mask.shape[0], dtype=np.float32)[action]
        return (mask / mask.sum()).astype(np.float32)
    return (counts / total).astype(np.float32)


def completed_q_target(logits: np.ndarray, q: np.ndarray, visits: np.ndarray,
                       mask: np.ndarray, scale: float = 1.0, c_visit: int = 50) -> np.ndarray:
    """The ``completed_q`` policy target: the prior shifted towards the searched values.

    ``softmax(logits + (c_visit + max visits) * scale * q_hat)`` over the legal actions,
    where ``q_hat`` is each visited action's mean value (a win estimate in [0, 1]) shrunk by
    one pseudo-visit towards ``v_mix``, the prior-weighted mean value of the visited actions,
    and unvisited legal actions get ``v_mix`` itself (Danihelka et al. 2022, "Policy
    improvement by planning with Gumbel": the completed Q-values).  The shrinkage keeps an
    action seen once from taking over on one lucky sample.  Unlike the visit distribution it
    is as sharp as the prior where the search found nothing, and the root noise of self-play
    (which moves visits, not values) never reaches it.  Nothing visited: the prior.
    """
    legal = np.asarray(mask, dtype=bool)
    z = np.where(legal, np.asarray(logits, np.float64), -np.inf)
    prior = np.exp(z - z.max())
    prior /= prior.sum()
    n = np.asarray(visits, np.float64)
    visited = legal & (n > 0)
    if not visited.any():
        return prior.astype(np.float32)
    values = np.asarray(q, np.float64)
    v_mix = float((prior[visited] * values[visited]).sum() / max(prior[visited].sum(), 1e-12))
    q_hat = np.where(visited, (n * np.where(visited, values, 0.0) + v_mix) / (n + 1.0), v_mix)
    z = z + (c_visit + n.max()) * scale * q_hat
    target = np.exp(z - z.max())
    return (target / target.sum()).astype(np.float32)


def play_selfplay_game(task: GameTask) -> GameRecord:
    """Play one self-play game with the search in every seat; return its searched decisions
    with their targets.  Deterministic in ``task`` (the search is seeded per decision from a
    generator seeded by the game's seed)."""
    from zavandor_env.encoding.observation import ObservationEncoder, mask_array
    from zavandor_env.engine import Game, GameConfig
    from zavandor_env.engine.outcome import game_outcome
    from zavandor_env.envs.rewards import RewardConfig

    start = time.perf_counter()
    config = GameConfig.from_dict(task.game)
    game = Game.new(config, seed=task.seed, backend="native")
    search = make_search(task.policy, task.search)
    rng = np.random.default_rng(task.seed)
    encoder = ObservationEncoder()
    searched = [0] * config.num_players
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    seats: list[int] = []
    search_values: list[float] = []
    decisions = 0

    def _record(observation: np.ndarray, mask: np.ndarray, target: np.ndarray,
                seat: int) -> None:
        searched[seat] += 1
        obs.append(observation)
        masks.append(mask)
        targets.append(target)
        seats.append(seat)

    while not game.is_over:
        legal = game.legal_actions()
        decisions += 1
        if len(legal) == 1:
            game.apply(legal[0])
            continue
        seat = game.current_player
        mask = mask_array(legal).astype(bool)
        observation = encoder.encode_game(game, seat)  # before the search: it sees this state
        sure = _sure_move(task, observation, mask)
        if sure is not None:
            # The network is sure: its move is the label (the search would agree), unsearched.
            greedy = searched[seat] >= task.temperature_moves
            action = sure if greedy else task.policy.act(observation, mask, rng)
            _record(observation, mask, np.eye(mask.shape[0], dtype=np.float32)[sure], seat)
            game.apply(action)
            continue
        result = search.run(game, seat, int(rng.integers(2**31 - 1)))
        visits = visit_target(result.visits, mask, int(result.action))
        if task.play == "network":
            # The network's own move: sampled early (diversity), then its most probable legal
            # action, the way it plays when evaluated.
            action = task.policy.act(observation, mask, rng,
                                     deterministic=searched[seat] >= task.temperature_moves)
        elif searched[seat] < task.temperature_moves:
            p = visits.astype(np.float64)  # float32 rounding would fail choice()'s sum check
            action = int(rng.choice(p.shape[0], p=p / p.sum()))
        else:
            action = int(np.argmax(visits))
        if task.target == "move":
            # The search's own choice (its most visited allowed action: the trainer runs it at
            # temperature 0), not a temperature move's draw.
            target = np.eye(mask.shape[0], dtype=np.float32)[int(result.action)]
        elif task.target == "completed_q":
            if result.q is None:
                raise ValueError("exit_target completed_q needs the search's root action "
                                 "values (SearchResult.q); this search gives none")
            target = completed_q_target(task.policy.logits(observation), result.q,
                                        result.visits, mask, task.q_scale, task.q_visit)
        else:
            target = visits
        _record(observation, mask, target, seat)
        search_values.append(float(result.value))
        game.apply(action)
    outcome = game_outcome(game)
    rewards = RewardConfig(reward=task.reward,
                           truncation_reward=task.truncation_reward).final_rewards(outcome)
    batch = DecisionBatch.empty() if not obs else DecisionBatch(
        np.stack(obs).astype(np.float32), np.stack(masks), np.stack(targets),
        np.asarray([rewards[s] for s in seats], np.float32))
    return GameRecord(batch, decisions, int(outcome.rounds), bool(outcome.truncated),
                      list(outcome.winners),
                      float(np.mean(search_values)) if search_values else 0.0,
                      time.perf_counter() - start, len(search_values))


def _sure_move(task: GameTask, observation: np.ndarray, mask: np.ndarray) -> int | None:
    """The network's most probable legal action when ``exit_search_below`` leaves the
    decision unsearched (that action's probability is at least the threshold), else None."""
    if task.search_below >= 1.0 or task.play != "network" or task.target != "move":
        return None
    z = task.policy.masked_logits(observation, mask)
    top = int(np.argmax(z))
    return top if 1.0 / float(np.exp(z - z[top]).sum()) >= task.search_below else None


def _worker_init() -> None:
    """A self-play worker leaves Ctrl-C to the trainer, which ends the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class SelfPlayError(RuntimeError):
    """A self-play worker process died (killed, out of memory); the message says what is
    kept."""


def _child_pids() -> set[int]:
    """The ids of this process's live child processes."""
    return {p.pid for p in multiprocessing.active_children() if p.pid is not None}


class SelfPlayPool:
    """Plays a generation's games: in this process (``workers`` 1) or in a pool of spawned
    processes (spawn, not fork: the trainer's torch threads do not survive a fork).

    A worker that dies is noticed (a ``multiprocessing.Pool`` would wait for its lost game
    forever) and raises :class:`SelfPlayError`."""

    def __init__(self, workers: int,
                 play: Callable[[GameTask], GameRecord] = play_selfplay_game) -> None:
        self.workers = workers
        #: plays one task; a module-level function (the pool pickles it by name)
        self.play_one = play
        self._pool: Any = None
        #: the worker processes' ids (the pool replaces none unless one dies)
        self.worker_pids: set[int] = set()
        if workers > 1:
            context = multiprocessing.get_context("spawn")
            before = _child_pids()
            self._pool = context.Pool(workers, initializer=_worker_init)
            self.worker_pids = _child_pids() - before

    def play(self, tasks: list[GameTask]) -> list[GameRecord]:
        """The records of ``tasks``, in their order."""
        if self._pool is None:
            return [self.play_one(t) for t in tasks]
        pending = self._pool.map_async(self.play_one, tasks, chunksize=1)
        while True:  # a bounded wait keeps the trainer responsive to Ctrl-C
            try:
                return list(pending.get(timeout=0.5))
            except multiprocessing.TimeoutError:
                if not self.worker_pids <= _child_pids():
                    raise SelfPlayError("a self-play worker process died (killed, or out of "
                                        "memory?)") from None

    def close(self, terminate: bool = False) -> None:
        if self._pool is not None:
            if terminate:
                self._pool.terminate()
            else:
                self._pool.close()
            self._pool.join()
            self._pool = None


# ---- the network ------------------------------------------------------------------------------
def _mlp(sizes: Sequence[int], activation: str) -> Any:
    from torch import nn

    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[Any] = []
    for i, (inp, out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(inp, out))
        if i < len(sizes) - 2:
            layers.append(act())
    return nn.Sequential(*layers)


def _linears(seq: Any) -> list[Any]:
    from torch import nn

    return [m for m in seq if isinstance(m, nn.Linear)]


class ExitModel:
    """The actor-critic of the ``.npz`` format in torch: two separate MLPs of ``net_arch``
    hidden sizes (actor: observation -> one logit per action; critic: observation -> value).

    Random initialisation follows SB3's (orthogonal, gain sqrt(2) for hidden layers, 0.01 for
    the logits, 1 for the value), so a cold start's prior is near uniform, as PPO's is."""

    def __init__(self, net_arch: Sequence[int], activation: str) -> None:
        import torch
        from torch import nn

        from zavandor_env.encoding.observation import OBS_SIZE
        from zavandor_env.engine.actions import NUM_ACTIONS

        self.activation = activation
        self.net = nn.ModuleDict({
            "actor": _mlp([OBS_SIZE, *net_arch, NUM_ACTIONS], activation),
            "critic": _mlp([OBS_SIZE, *net_arch, 1], activation)})
        for name, last_gain in (("actor", 0.01), ("critic", 1.0)):
            linears = _linears(self.net[name])
            for k, layer in enumerate(linears):
                gain = last_gain if k == len(linears) - 1 else math.sqrt(2)
                nn.init.orthogonal_(layer.weight, gain=gain)
                nn.init.zeros_(layer.bias)
        self._torch = torch

    def parameters(self) -> Any:
        return self.net.parameters()

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net["actor"](obs)  # type: ignore[no-any-return]

    def values(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net["critic"](obs).squeeze(-1)  # type: ignore[no-any-return]

    def to_policy(self, info: dict[str, Any] | None = None) -> NumpyPolicy:
        """The weights-only policy (actor and critic) of the current weights."""
        from zavandor_env.agents.policy_file import NumpyPolicy

        def arrays(name: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
            layers = _linears(self.net[name])
            return ([layer.weight.detach().cpu().numpy().astype(np.float32).copy()
                     for layer in layers],
                    [layer.bias.detach().cpu().numpy().astype(np.float32).copy()
                     for layer in layers])

        weights, biases = arrays("actor")
        value_weights, value_biases = arrays("critic")
        return NumpyPolicy(weights, biases, self.activation, dict(info or {}),
                           obs_fingerprint(), value_weights, value_biases)

    def load_policy(self, policy: NumpyPolicy) -> bool:
        """Copy a policy file's actor, and its critic when it has one, into the network (the
        shapes were checked by ``init_policy.read_init_policy``); return whether the critic
        was copied."""
        def copy(name: str, weights: list[np.ndarray], biases: list[np.ndarray]) -> None:
            with self._torch.no_grad():
                for layer, w, b in zip(_linears(self.net[name]), weights, biases, strict=True):
                    layer.weight.copy_(self._torch.from_numpy(np.asarray(w, np.float32)))
                    layer.bias.copy_(self._torch.from_numpy(np.asarray(b, np.float32)))

        copy("actor", policy.weights, policy.biases)
        if policy.has_value:
            copy("critic", policy.value_weights or [], policy.value_biases or [])
        return policy.has_value


def make_optimizer(model: ExitModel, cfg: TrainConfig) -> Any:
    import torch

    return torch.optim.Adam(model.parameters(), lr=cfg.learning_rate)


def _tensors(batch: DecisionBatch, rows: np.ndarray | slice) -> tuple[Any, Any, Any, Any]:
    import torch

    return (torch.from_numpy(batch.obs[rows]), torch.from_numpy(batch.mask[rows]),
            torch.from_numpy(batch.target[rows]), torch.from_numpy(batch.value[rows]))


def batch_losses(model: ExitModel, batch: DecisionBatch,
                 rows: np.ndarray | slice = slice(None), anchor: Any = None,
                 deviation_weight: float = 1.0) -> dict[str, Any]:
    """The loss terms of ``rows`` of ``batch`` as torch scalars: ``policy`` (cross-entropy of
    the masked policy to the target), ``value`` (MSE to the final reward), ``entropy`` (of the
    masked policy), ``target_entropy`` (of the target; ``policy - target_entropy`` is the KL
    divergence the policy still has to close) and, given an ``anchor`` actor (a frozen copy:
    observation -> logits), ``anchor_kl``, the KL divergence from the anchor's masked policy
    to the network's, and ``deviations``, the share of rows whose target's most probable
    action is not the anchor's; those rows weigh ``deviation_weight`` in ``policy``, the
    others 1 (``target_entropy`` stays unweighted)."""
    import torch

    obs, mask, target, value = _tensors(batch, rows)
    logits = model.logits(obs).masked_fill(~mask, _MASKED_LOGIT)
    logp = torch.log_softmax(logits, dim=-1)
    probs = logp.exp()
    cross_entropy = -(target * logp).sum(-1)
    policy = cross_entropy.mean()
    entropy = -(probs * logp).sum(-1).mean()
    target_entropy = -(target * torch.log(target.clamp_min(1e-12))).sum(-1).mean()
    value_loss = torch.nn.functional.mse_loss(model.values(obs), value)
    terms = {"policy": policy, "value": value_loss, "entropy": entropy,
             "target_entropy": target_entropy}
    if anchor is not None:
        with torch.no_grad():
            anchor_logp = torch.log_softmax(anchor(obs).masked_fill(~mask, _MASKED_LOGIT), -1)
            deviates = target.argmax(-1) != anchor_logp.argmax(-1)
        terms["anchor_kl"] = (anchor_logp.exp() * (anchor_logp - logp)).sum(-1).mean()
        terms["deviations"] = deviates.float().mean()
        if deviation_weight != 1.0:
            weight = 1.0 + (deviation_weight - 1.0) * deviates.float()
            terms["policy"] = (cross_entropy * weight).sum() / weight.sum()
    return terms


def train_step(model: ExitModel, optimizer: Any, batch: DecisionBatch, cfg: TrainConfig,
               rng: np.random.Generator) -> dict[str, float]:
    """``n_epochs`` passes of shuffled minibatches of ``batch_size`` over ``batch``; return the
    mean loss terms of the passes (plus ``updates``, the optimizer steps taken)."""
    import copy

    import torch

    n = len(batch)
    sums: dict[str, float] = {}
    updates = 0
    # The trust region's anchor: the actor before this training, i.e. the one that played.
    anchored = cfg.exit_anchor_kl > 0 or cfg.exit_deviation_weight != 1.0
    anchor = copy.deepcopy(model.net["actor"]).requires_grad_(False) if anchored else None
    for _ in range(cfg.n_epochs):
        order = rng.permutation(n)
        for begin in range(0, n, cfg.batch_size):
            rows = np.sort(order[begin:begin + cfg.batch_size])
            terms = batch_losses(model, batch, rows, anchor, cfg.exit_deviation_weight)
            # A frozen critic gets no gradient at all (Adam would move it even on a tiny one).
            loss = terms["policy"] + (cfg.vf_coef * terms["value"] if cfg.exit_train_critic
                                      else 0.0)
            if cfg.exit_anchor_kl:
                loss = loss + cfg.exit_anchor_kl * terms["anchor_kl"]
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(list(model.parameters()), cfg.max_grad_norm)
            optimizer.step()
            updates += 1
            terms["total"] = loss
            for key, term in terms.items():
                sums[key] = sums.get(key, 0.0) + float(term.detach())
    means = {key: total / max(updates, 1) for key, total in sums.items()}
    means["updates"] = float(updates)
    return means


# ---- the replay window in a checkpoint ---------------------------------------------------------
def write_replay(path: Path, window: list[tuple[int, DecisionBatch]]) -> None:
    """The replay window as one ``.npz`` (arrays ``g<generation>.<field>``), flushed to disk."""
    arrays = {f"g{gen}.{name}": getattr(batch, name)
              for gen, batch in window for name in BATCH_FIELDS}
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]  # numpy stubs miss **
        fh.flush()
        os.fsync(fh.fileno())


def read_replay(path: Path, generations: Sequence[int]) -> list[tuple[int, DecisionBatch]]:
    """The replay window of a checkpoint: the batches of ``generations`` (as its state says),
    read without pickles, each array's declared size bounded first, shapes and values checked
    (a target is a distribution over the mask, values are finite)."""
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    name = REPLAY
    try:
        with zipfile.ZipFile(path) as archive:
            total = sum(info.file_size for info in archive.infolist())
            if total > MAX_REPLAY_BYTES:
                raise CheckpointError(f"{name} would inflate to {total:,} bytes")
        with np.load(path, allow_pickle=False) as data:
            loaded = [(gen, {f: data[f"g{gen}.{f}"] for f in BATCH_FIELDS})
                      for gen in generations]
    except CheckpointError:
        raise
    except Exception as exc:  # noqa: BLE001 -- zip, npy, KeyError, OSError: all "broken"
        raise CheckpointError(f"{name} is unreadable ({' '.join(str(exc).split())})") from None
    window = []
    for gen, arrays in loaded:
        try:  # every shape and type first: a 0-d or 2-D value would fail only later
            check_replay_arrays(gen, arrays, OBS_SIZE, NUM_ACTIONS)
        except CheckpointError as exc:
            raise CheckpointError(f"{name}: {exc}") from None
        batch = DecisionBatch(**arrays)
        if not all(np.isfinite(getattr(batch, f)).all() for f in ("obs", "target", "value")):
            raise CheckpointError(f"{name}: generation {gen} holds NaN or infinite values")
        if len(batch) and ((batch.target[~batch.mask] != 0).any() or (batch.target < 0).any()
                           or not np.allclose(batch.target.sum(1), 1.0, atol=1e-4)):
            raise CheckpointError(f"{name}: generation {gen}'s targets are not distributions "
                                  "over the legal actions")
        window.append((gen, batch))
    return window


# ---- the run ---------------------------------------------------------------------------------
def _warn(message: str) -> None:
    print(message, file=sys.stderr)


def _tag(label: str) -> str:
    """A TensorBoard tag part from an agent label (``policy(path=a/b.npz)`` -> readable)."""
    return "".join(c if c.isalnum() or c in "_.-" else "_" for c in label).strip("_")


def train_exit(cfg: TrainConfig | None = None, resume: str | Path | None = None,
               overrides: list[str] | None = None,
               warn: Callable[[str], None] = _warn) -> Path:
    """Run (or continue) expert iteration; return the run folder.

    Arguments and errors as :func:`train.selfplay.train`: ``cfg`` for a new run (its
    ``init_policy`` is read and checked before the run folder exists), or ``resume``, a run
    folder to continue from its newest intact checkpoint with ``overrides`` applied to its
    config (e.g. ``--set exit_generations=40`` to run longer).

    Raises:
        TrainConfigError, CheckpointError: one line, nothing trained.
        TrainingInterrupted: Ctrl-C; the last finished generation's checkpoint is kept.
    """
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from zavandor_env.agents.policy_file import save_policy
    from zavandor_env.io.folders import release
    from zavandor_env.io.printable import terminal_safe
    from zavandor_env.train.init_policy import read_init_policy
    from zavandor_env.train.rating import PoolRating
    from zavandor_env.train.selfplay import (
        TrainingInterrupted,
        _start_or_resume,
        load_run_config,
        lock_run_folder,
    )

    init = None
    if resume is None:
        if cfg is None:
            cfg = load_config()
        if cfg.init_policy is not None:
            init = read_init_policy(cfg)
    window: list[tuple[int, DecisionBatch]] = []
    checkpoint: Checkpoint | None = None
    if resume is not None:
        run_dir = Path(resume)
        cfg = load_run_config(run_dir, overrides)
        if cfg.backend != "exit":
            raise CheckpointError(f"{str(run_dir)!r} is a {cfg.backend} run, not an exit run")
        lock_run_folder(run_dir)  # before anything is written or pruned there
        checkpoint, window = find_resumable(run_dir, warn)
        check_shape(checkpoint, cfg)
    else:
        cfg, run_dir, _ = _start_or_resume(cfg, None, None, warn)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    model = ExitModel(cfg.net_arch, cfg.activation)
    optimizer = make_optimizer(model, cfg)
    rating = PoolRating()
    rng = np.random.default_rng(cfg.seed)
    totals: dict[str, Any] = {"games": 0, "decisions": 0, "searched": 0,
                              "selfplay_seconds": 0.0}
    generation = 0
    last_eval: dict[str, Any] = {}
    # exit_retrain_from_init: the network every generation starts its training from (a
    # resume reads it again; the config check made sure there is one).
    retrain_from = None
    if cfg.exit_retrain_from_init:
        retrain_from = (init if init is not None else read_init_policy(cfg))[1]
    if checkpoint is not None:
        generation = checkpoint.step
        _restore(checkpoint, model, optimizer, rating, rng, totals)
        # The optimizer's saved state carries the learning rate it ran with; a resume's
        # ``--set learning_rate=...`` is the one to use from here on.
        for group in optimizer.param_groups:
            group["lr"] = cfg.learning_rate
        last_eval = dict(checkpoint.state.get("eval", {}))
        record_resume(run_dir, checkpoint.step, overrides)  # once everything it needs loaded
    writer = SummaryWriter(str(run_dir))
    if checkpoint is None:
        writer.add_text("config", cfg.to_markdown(), 0)
    if init is not None:
        with_critic = model.load_policy(init[1])
        line = f"initialised from {init[0]}" + ("" if with_critic else " (actor only)")
        writer.add_text("init_policy", line, 0)
        print(line)
    checkpoints = CheckpointWriter(run_dir, checkpoint, shape=model_shape(cfg))
    timed = TimedPolicies(run_dir, cfg.keep_policy_minutes)
    if checkpoint is not None:  # the run's clock goes on from the checkpoint's minutes
        timed.resume_at(float(checkpoint.state.get(TIMED_STATE_KEY, 0.0)))

    def save(gen: int) -> None:
        payload = {"pool": {}, "rating": rating.state_dict(), "totals": totals,
                   "obs_fingerprint": obs_fingerprint(), "generation": gen,
                   "replay_generations": [g for g, _ in window],
                   "rng": rng.bit_generator.state, "eval": last_eval,
                   TIMED_STATE_KEY: timed.elapsed_minutes()}

        def write_model(path: Path) -> None:
            write_model_zip(path, model, optimizer)
            write_replay(path.parent / REPLAY, window)
            read_replay(path.parent / REPLAY, [g for g, _ in window])  # read back, as resumed

        with saving(run_dir, f"checkpoint of generation {gen}"):
            checkpoints.write(gen, write_model, payload)
            figures = {"generation": gen, "step": int(totals["searched"]), "illegal_actions": 0,
                       "eval": last_eval}
            save_policy(model.to_policy({**figures, "config": cfg.to_dict()}),
                        run_dir / "policy.npz")
            write_text_atomic(run_dir / "eval.json", json.dumps(figures, indent=2))

    game_config = cfg.game_config()
    labels = {spec: _parse_label(spec) for spec in cfg.eval_opponents}

    def evaluate_now(gen: int) -> None:
        from zavandor_env.train.evaluate import LEARNER, evaluate

        policy = model.to_policy()
        results = {}
        for k, opponent in enumerate(cfg.eval_opponents):
            result = evaluate(policy, opponent, cfg.eval_games, game_config,
                              seed=cfg.seed * 7 + k, deterministic=cfg.eval_deterministic)
            results[opponent] = result.to_dict()
            tag = _tag(labels[opponent])
            writer.add_scalar(f"eval/winrate_vs_{tag}", result.winrate, gen)
            writer.add_scalar(f"eval/mean_vp_vs_{tag}", result.mean_vp, gen)
            writer.add_scalar(f"eval/opponent_vp_vs_{tag}", result.mean_opponent_vp, gen)
            writer.add_scalar(f"eval/truncated_vs_{tag}", result.truncated, gen)
            for ranks in result.rankings:
                rating.update([LEARNER] + [labels[opponent]] * (cfg.num_players - 1), ranks)
        mu, ordinal = rating.learner()
        writer.add_scalar("rating/learner_mu", mu, gen)
        writer.add_scalar("rating/learner_ordinal", ordinal, gen)
        last_eval.clear()
        last_eval.update(results)
        # A label comes from the run's config.yaml (a run folder may be someone's): escaped.
        print(f"generation {gen}: " + ", ".join(
            f"vs {terminal_safe(labels[k], one_line=True)} {r['winrate']:.2f}"
            for k, r in results.items()), flush=True)

    if checkpoint is None:
        save(0)  # the starting network: a kill from here on can be resumed
    saved = generation  # the newest generation on disk (what a Ctrl-C leaves to resume)
    pool = SelfPlayPool(1)  # spawns nothing: the workers start inside the try below
    started = time.monotonic()
    budget = None if cfg.max_minutes is None else cfg.max_minutes * 60.0
    last_duration = 0.0
    phase = "self-play"
    try:
        # Started here, so a Ctrl-C while the workers spawn still names the checkpoint.
        pool = SelfPlayPool(cfg.exit_workers)
        while generation < cfg.exit_generations:
            elapsed = time.monotonic() - started
            if budget is not None and elapsed + last_duration > budget:
                print(f"max_minutes reached after generation {generation}", flush=True)
                break
            gen_start = time.monotonic()
            phase = "self-play"
            policy = model.to_policy()
            tasks = [GameTask(policy, game_config.to_dict(), _game_seed(cfg, generation, g),
                              exit_search_params(cfg), cfg.exit_temperature_moves, cfg.reward,
                              cfg.truncation_reward, cfg.exit_target, cfg.exit_q_scale,
                              cfg.exit_q_visit, cfg.exit_play, cfg.exit_search_below)
                     for g in range(cfg.exit_games)]
            records = pool.play(tasks)
            play_seconds = time.monotonic() - gen_start
            phase = "training"
            batch = DecisionBatch.concat([r.batch for r in records])
            window = [*window, (generation + 1, batch)][-cfg.exit_replay_generations:]
            data = DecisionBatch.concat([b for _, b in window])
            timed.before_update(model.to_policy, {"generation": generation})
            if retrain_from is not None:  # a fresh apprentice: the warm start, a new optimizer
                model.load_policy(retrain_from)
                optimizer = make_optimizer(model, cfg)
            train_start = time.monotonic()
            losses = train_step(model, optimizer, data, cfg, rng) if len(data) else {}
            train_seconds = time.monotonic() - train_start
            generation += 1
            totals["games"] += len(records)
            totals["decisions"] += sum(r.decisions for r in records)
            totals["searched"] += len(batch)
            totals["selfplay_seconds"] += play_seconds
            _chart(writer, generation, records, batch, data, losses, play_seconds,
                   train_seconds, totals)
            phase = "saving"
            if cfg.exit_eval_every and generation % cfg.exit_eval_every == 0:
                evaluate_now(generation)
            save(generation)
            saved = generation
            last_duration = time.monotonic() - gen_start
            print(f"generation {generation}: {len(records)} games, {len(batch)} searched "
                  f"decisions in {play_seconds:.0f} s, policy loss "
                  f"{losses.get('policy', float('nan')):.3f}, value loss "
                  f"{losses.get('value', float('nan')):.3f}", flush=True)
        if not cfg.exit_eval_every or generation % cfg.exit_eval_every or not last_eval:
            evaluate_now(generation)  # the final figures, if the last generation had none
            save(generation)
        timed.before_update(model.to_policy, {"generation": generation})
    except KeyboardInterrupt:
        pool.close(terminate=True)
        latest = latest_checkpoint(run_dir)
        exc = TrainingInterrupted(run_dir, saved, latest is not None, saved)
        resume_cmd = f"zavandor train --resume {shlex.quote(str(run_dir))}"
        # The network changes only in a generation's training, after its games: what is on
        # disk is the last finished generation, and a generation's games are not kept.
        exc.args = (f"interrupted in generation {saved + 1} ({phase}); the checkpoint "
                    f"of generation {saved} is kept; continue with: {resume_cmd}"
                    if latest is not None else "interrupted before any checkpoint",)
        raise exc from None
    except SaveError:
        pool.close(terminate=True)
        raise
    except SelfPlayError as exc:
        pool.close(terminate=True)
        raise SelfPlayError(f"{exc}; the checkpoint of generation {saved} is kept; continue "
                            f"with: zavandor train --resume {shlex.quote(str(run_dir))}"
                            ) from None
    finally:
        pool.close()
        writer.flush()
        writer.close()
        release(run_dir)
    return run_dir


def _parse_label(spec: str) -> str:
    from zavandor_env.agents.registry import parse_spec

    return str(parse_spec(spec).label)


def _game_seed(cfg: TrainConfig, generation: int, game: int) -> int:
    """Game ``game`` of generation ``generation`` (0-based): distinct, fixed by the config."""
    return (cfg.seed * 1_000_003 + generation * 10_007 + game) % (2**31 - 1)


def _chart(writer: Any, gen: int, records: list[GameRecord], batch: DecisionBatch,
           data: DecisionBatch, losses: dict[str, float], play_seconds: float,
           train_seconds: float, totals: dict[str, Any]) -> None:
    for key in ("policy", "value", "total", "entropy", "target_entropy", "anchor_kl",
                "deviations"):
        if key in losses:
            writer.add_scalar(f"loss/{key}" if key in ("policy", "value", "total")
                              else f"policy/{key}", losses[key], gen)
    if "policy" in losses:
        writer.add_scalar("policy/kl_to_target", losses["policy"] - losses["target_entropy"], gen)
    minutes = max(play_seconds, 1e-9) / 60.0
    writer.add_scalar("selfplay/games_per_min", len(records) / minutes, gen)
    writer.add_scalar("selfplay/decisions_per_min", sum(r.decisions for r in records) / minutes,
                      gen)
    writer.add_scalar("selfplay/searched_per_min", sum(r.searched for r in records) / minutes,
                      gen)
    writer.add_scalar("selfplay/labelled_per_min", len(batch) / minutes, gen)
    writer.add_scalar("selfplay/mean_rounds", float(np.mean([r.rounds for r in records])), gen)
    writer.add_scalar("selfplay/truncated", float(np.mean([r.truncated for r in records])), gen)
    writer.add_scalar("selfplay/seat0_wins",
                      float(np.mean([0 in r.winners for r in records])), gen)
    writer.add_scalar("selfplay/search_value", float(np.mean([r.search_value for r in records])),
                      gen)
    writer.add_scalar("train/replay_decisions", len(data), gen)
    writer.add_scalar("train/seconds", train_seconds, gen)
    writer.add_scalar("train/total_searched", totals["searched"], gen)


# ---- checkpoint contents ---------------------------------------------------------------------
def write_model_zip(path: Path, model: ExitModel, optimizer: Any) -> None:
    """``model.zip`` in the layout :func:`train.checkpointing.read_params` reads: the network's
    tensors as ``policy.pth``, Adam's state as ``policy.optimizer.pth``."""
    import torch

    with zipfile.ZipFile(path, "w") as archive:
        for name, state in (("policy", model.net.state_dict()),
                            ("policy.optimizer", optimizer.state_dict())):
            buffer = io.BytesIO()
            torch.save(state, buffer)
            archive.writestr(f"{name}.pth", buffer.getvalue())


def _restore(checkpoint: Checkpoint, model: ExitModel, optimizer: Any, rating: Any,
             rng: np.random.Generator, totals: dict[str, Any]) -> None:
    """Load a checkpoint's network, optimizer, rating, random state and totals."""
    state = checkpoint.state
    # Adam's settings are the config's, not the file's (a crafted betas or eps would only
    # fail, or poison the weights, at the first step); the file gives the moments.
    settings = [{k: v for k, v in group.items() if k != "params"}
                for group in optimizer.param_groups]
    try:
        model.net.load_state_dict(checkpoint.params["policy"], strict=True)
        optimizer.load_state_dict(checkpoint.params["policy.optimizer"])
        for group, kept in zip(optimizer.param_groups, settings, strict=True):
            group.update(kept)
        rng.bit_generator.state = state["rng"]
    except (RuntimeError, ValueError, KeyError, TypeError) as exc:
        detail = " ".join(str(exc).split())[:300]
        raise CheckpointError(f"checkpoint {checkpoint.path.name} does not fit the run "
                              f"(an exit run's checkpoint?): {detail}") from None
    rating.load_state_dict(state["rating"])
    totals.update(state.get("totals", {}))


def find_resumable(run_dir: Path, warn: Callable[[str], None],
                   ) -> tuple[Checkpoint, list[tuple[int, DecisionBatch]]]:
    """The newest checkpoint of ``run_dir`` whose tensors, state and replay window are all
    intact, and that window; ``warn`` gets one line per broken checkpoint skipped (as
    :func:`train.checkpointing.find_resumable`, which does not know the replay file)."""
    candidates = list_checkpoints(run_dir)
    if not candidates:
        raise CheckpointError(f"{str(run_dir)!r} has no complete checkpoint to resume from")
    problems: list[str] = []
    for path in candidates:
        try:
            checkpoint = read_checkpoint(path, Path(run_dir) / "pool")
            window = read_replay_checked(checkpoint)
        except CheckpointError as exc:
            problems.append(str(exc))
            continue
        for problem in problems:
            warn(f"warning: {problem}; resuming from {path.name} instead")
        return checkpoint, window
    raise CheckpointError(f"{str(run_dir)!r} has no intact checkpoint to resume from: "
                          + "; ".join(problems))


def read_replay_checked(checkpoint: Checkpoint) -> list[tuple[int, DecisionBatch]]:
    """The replay window of ``checkpoint``, after every field of its exit state and its Adam
    state are checked (:mod:`train.exit_checkpoint`); one broken-checkpoint line else."""
    try:
        check_exit_state(checkpoint.state)
        try:
            check_optimizer_tensors(checkpoint.params)
        except CheckpointError as exc:
            raise CheckpointError(f"model.zip: {exc}") from None
        path = checkpoint.path / REPLAY
        if not path.is_file() or path.is_symlink():
            raise CheckpointError(f"{REPLAY} is missing")
        return read_replay(path, checkpoint.state.get("replay_generations", []))
    except CheckpointError as exc:
        raise CheckpointError(f"checkpoint {checkpoint.path.name} is broken: {exc}") from None
