"""Expert iteration's self-play: the games the search around the network plays (in worker
processes), and the policy targets of their searched decisions (see
:mod:`zavandor_env.train.exit.run` for a generation's steps)."""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

if TYPE_CHECKING:
    from zavandor_env.agents.policy_file import NumpyPolicy
    from zavandor_env.train.exit.config import ExitConfig

#: The arrays of one generation's decisions, in the replay file as ``g<generation>.<name>``.
BATCH_FIELDS: Final = ("obs", "mask", "target", "value")

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
    exit: ExitConfig
    """the trainer's section: the search, who plays, the temperature moves and the targets"""
    reward: str
    truncation_reward: float


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
    game = Game.new(config, seed=task.seed)
    search = make_search(task.policy, task.exit.search_params())
    rng = np.random.default_rng(task.seed)
    encoder = ObservationEncoder()
    searched = [0] * config.num_players
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []  # obs, mask, target, seat
    search_values: list[float] = []
    decisions = 0

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
            greedy = searched[seat] >= task.exit.temperature_moves
            action = sure if greedy else task.policy.act(observation, mask, rng)
            rows.append((observation, mask, np.eye(mask.shape[0], dtype=np.float32)[sure], seat))
            searched[seat] += 1
            game.apply(action)
            continue
        result = search.run(game, seat, int(rng.integers(2**31 - 1)))
        visits = visit_target(result.visits, mask, int(result.action))
        action = _move(task, visits, observation, mask, rng, searched[seat])
        target = _target(task, result, visits, observation, mask)
        rows.append((observation, mask, target, seat))
        searched[seat] += 1
        search_values.append(float(result.value))
        game.apply(action)
    outcome = game_outcome(game)
    rewards = RewardConfig(reward=task.reward,
                           truncation_reward=task.truncation_reward).final_rewards(outcome)
    batch = DecisionBatch.empty() if not rows else DecisionBatch(
        np.stack([r[0] for r in rows]).astype(np.float32), np.stack([r[1] for r in rows]),
        np.stack([r[2] for r in rows]), np.asarray([rewards[r[3]] for r in rows], np.float32))
    return GameRecord(batch, decisions, int(outcome.rounds), bool(outcome.truncated),
                      list(outcome.winners),
                      float(np.mean(search_values)) if search_values else 0.0,
                      time.perf_counter() - start, len(search_values))


def _move(task: GameTask, visits: np.ndarray, observation: np.ndarray, mask: np.ndarray,
          rng: np.random.Generator, searched: int) -> int:
    """The move played at a searched decision, the seat's ``searched``-th."""
    if task.exit.play == "network":
        # The network's own move: sampled early (diversity), then its most probable legal
        # action, the way it plays when evaluated.
        return int(task.policy.act(observation, mask, rng,
                                   deterministic=searched >= task.exit.temperature_moves))
    if searched < task.exit.temperature_moves:
        p = visits.astype(np.float64)  # float32 rounding would fail choice()'s sum check
        return int(rng.choice(p.shape[0], p=p / p.sum()))
    return int(np.argmax(visits))


def _target(task: GameTask, result: Any, visits: np.ndarray, observation: np.ndarray,
            mask: np.ndarray) -> np.ndarray:
    """The policy target of a searched decision (``exit.target``)."""
    if task.exit.target == "move":
        # The search's own choice (its most visited allowed action: the trainer runs it at
        # temperature 0), not a temperature move's draw.
        return np.eye(mask.shape[0], dtype=np.float32)[int(result.action)]
    if task.exit.target == "completed_q":
        if result.q is None:
            raise ValueError("exit.target completed_q needs the search's root action "
                             "values (SearchResult.q); this search gives none")
        return completed_q_target(task.policy.logits(observation), result.q, result.visits,
                                  mask, task.exit.q_scale, task.exit.q_visit)
    return visits


def _sure_move(task: GameTask, observation: np.ndarray, mask: np.ndarray) -> int | None:
    """The network's most probable legal action when ``exit_search_below`` leaves the
    decision unsearched (that action's probability is at least the threshold), else None."""
    section = task.exit
    if section.search_below >= 1.0 or section.play != "network" or section.target != "move":
        return None
    z = task.policy.masked_logits(observation, mask)
    top = int(np.argmax(z))
    return top if 1.0 / float(np.exp(z - z[top]).sum()) >= task.exit.search_below else None


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

