"""Stable-Baselines3 on the native core: an SB3 ``VecEnv`` of C++-batched games.

SB3 takes its own ``VecEnv``, not Gymnasium's vector env, so
:class:`~zavandor_env.envs.vector.ZavandorVectorEnv` cannot be handed to it directly;
:func:`make_vec_env` builds the SB3 ``VecEnv`` that training itself uses
(:class:`NativeVecEnv`): all games live in one native object and
the opponents' moves are played in C++, so one learner step crosses into C++ once for every
game.  It has ``action_masks()``, so sb3-contrib's ``MaskablePPO`` trains on it as is::

    from sb3_contrib import MaskablePPO
    from zavandor_env.envs.sb3 import make_vec_env

    venv = make_vec_env(8, num_players=2, opponents="novice", seed=0)
    MaskablePPO("MlpPolicy", venv, seed=0).learn(2_048)

SB3's step conventions hold: ``dones = terminated | truncated``, the next game's first
observation in ``obs`` and the finished game's last in ``infos[i]["terminal_observation"]``;
``infos[i]["outcome"]`` is the finished game's
:class:`~zavandor_env.engine.outcome.Outcome` (SB3 never batches infos).  A game cut off by a
safety limit is over for good (priced with ``truncation_reward``), so it is not reported as a
time limit to bootstrap (``infos[i]["truncated"]`` holds the raw flag).  Every ``infos[i]``
holds the single env's info keys (``action_mask``, ``seat``, the result keys); the rewards
default to the environment's (``RewardConfig``: the rulebook outcome, no shaping), as
``gymnasium.make("Zavandor-v0")``; an illegal action ends that game with ``illegal_reward``
(``illegal_action="raise"`` raises instead).

What training itself sees: the opponents of each seat drawn per episode from a
:class:`~zavandor_env.envs.opponents.PoolSpec` (``env_method("set_pool", spec)`` changes it,
per env if wished).  ``random``, ``heuristic``, ``novice``, ``naive`` and ``planner`` (plain
specs) are played natively, and so is a pool **snapshot** (a
:class:`~zavandor_env.envs.vector_seats.NetworkOpponent`: the core evaluates its network and
samples its move, no round trip to Python); any other agent spec is played by its Python agent,
one decision at a time (the slow path).  ``env_method("pop_stats")`` gives one dict per game
(:mod:`zavandor_env.envs.training`): ``blocks``, ``illegal``, ``env_seconds`` (shared evenly
between the games, so the callback's sum is the total) and ``episodes``.

This module imports Stable-Baselines3 (the ``train`` extra).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from zavandor_env.extras import require

# Stable-Baselines3 comes with the [train] extra: without it, one line naming the install
# rather than a bare ModuleNotFoundError from deep inside the imports below.
require("train", "zavandor_env.envs.sb3 (the Stable-Baselines3 vector env)",
        only=("stable_baselines3",))

import numpy as np  # noqa: E402  (after the extra is known to be there)
from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from zavandor_env.agents.netsearch import cached_policy  # noqa: E402
from zavandor_env.agents.registry import parse_spec  # noqa: E402
from zavandor_env.envs.opponents import (  # noqa: E402
    DEFAULT_OPPONENTS,
    SNAPSHOT,
    PoolSpec,
)
from zavandor_env.envs.options import check_num_envs  # noqa: E402
from zavandor_env.envs.training import (  # noqa: E402
    ACTION_TO_BLOCK,
    BLOCK_NAMES,
    TrainingStats,
    episode_summary,
)
from zavandor_env.envs.vector import ZavandorVectorEnv  # noqa: E402
from zavandor_env.envs.vector_seats import NATIVE_KINDS, NetworkOpponent  # noqa: E402

__all__ = ["NativeVecEnv", "make_vec_env"]


class NativeVecEnv(VecEnv):
    """``num_envs`` training games on the native core, with pool opponents and the charts'
    statistics (see the module docstring).

    Args:
        num_envs: games stepped together.
        spec: the opponent pool to draw from (every env; ``set_pool`` changes it).
        num_players: 2 to 6.
        seed: seeds the games, the learner seats, the pool draws and the snapshots' sampling;
            ``seed()`` + ``reset()`` (what SB3 does) reseed.
        learner_seat: the learner's seat, or ``None`` to draw it per episode.
        bootstrap_truncated: report cut-off games as SB3 time limits (PPO then bootstraps
            them); default False.
        illegal_action: ``"terminate"`` (default) or ``"raise"`` (see the module docstring).
        **options: reward and rule options, as :class:`ZavandorVectorEnv` takes them.
    """

    def __init__(self, num_envs: int, spec: PoolSpec, num_players: int = 2, seed: int = 0,
                 learner_seat: int | None = None, bootstrap_truncated: bool = False,
                 illegal_action: str = "terminate", **options: Any) -> None:
        n = check_num_envs(num_envs)
        self.num_players = num_players
        self.bootstrap_truncated = bootstrap_truncated
        self._others = num_players - 1
        self._pool_specs: list[PoolSpec] = [spec] * n
        self._labels: list[list[str]] = [["random"] * self._others for _ in range(n)]
        self._opponents: dict[str, tuple[str, Any]] = {}  # pool key -> (label, env spec)
        self._snapshots: dict[str, NetworkOpponent] = {}  # file -> its network, in C++
        self._seed_streams(seed)
        self.venv = ZavandorVectorEnv(n, num_players, opponents=self._sample,
                                      seed=self._env_seed, learner_seat=learner_seat,
                                      copy=True, illegal_action=illegal_action, **options)
        self.render_mode = None
        self._rows = np.arange(n)
        self._actions = np.zeros(n, np.int64)
        self.stats = TrainingStats(n)
        self._taken: list[np.ndarray] = []  # learner actions not yet counted into the stats
        super().__init__(n, self.venv.single_observation_space, self.venv.single_action_space)

    # ---- seeding and opponents ------------------------------------------------------------
    def _seed_streams(self, seed: int) -> None:
        """One seed -> the env's seed (games, seats, the native players' draws, snapshots
        included) and the pool draws' generator."""
        env_seed, pool_seed = np.random.SeedSequence(int(seed)).generate_state(2)
        self._env_seed = int(env_seed)
        self._pool_rng = random.Random(int(pool_seed))

    def _sample(self, env: int, rng: np.random.Generator) -> list[Any]:
        """This episode's opponents of game ``env``, drawn from its pool; their labels go to
        ``self._labels[env]`` (a new list: the step's caller keeps the old)."""
        drawn = [(label, self._snapshot(path)) if path is not None else self._opponent(label)
                 for label, path in self._pool_specs[env].draw(self._pool_rng, self._others)]
        self._labels[env] = [label for label, _ in drawn]
        return [opponent for _, opponent in drawn]

    def _opponent(self, key: str) -> tuple[str, Any]:
        """The label and the ZavandorVectorEnv spec of pool key ``key``: the native kind of a
        plain random/heuristic/novice/naive/planner, a policy file as a network played in
        the core (:meth:`_policy_opponent`), else the key itself (played by its Python
        agent)."""
        found = self._opponents.get(key)
        if found is None:
            parsed = parse_spec(key)
            native = parsed.agent in NATIVE_KINDS and not parsed.params
            opponent = (parsed.agent if native else self._policy_opponent(parsed)
                        if parsed.agent == "policy" else None)
            found = self._opponents[key] = (parsed.label, key if opponent is None else opponent)
        return found

    def _policy_opponent(self, parsed: Any) -> NetworkOpponent | None:
        """A ``policy:path=...`` spec as the network played in the core, greedy unless
        ``deterministic=false`` -- as its :class:`~zavandor_env.agents.policy.PolicyAgent`
        plays wherever that agent's Curse filter (``avoid_curse``) changes nothing, that is
        under the affordability filter (``allow_overbid: false``, the training rules) or with
        ``avoid_curse=false``; otherwise None (the Python agent plays it)."""
        params = dict(parsed.params)
        if set(params) - {"path", "deterministic", "avoid_curse"} or "path" not in params:
            return None
        if self.venv.config.allow_overbid and params.get("avoid_curse", True):
            return None
        network = parsed.build(0).network  # the file found and checked as the agent does
        if network is None:
            return None
        return NetworkOpponent(network, parsed.label,
                               greedy=bool(params.get("deterministic", True)))

    def _snapshot(self, path: str) -> NetworkOpponent:
        """The snapshot file ``path`` as a network played inside the core (its weights
        loaded once per process, shared by every env and search in it)."""
        opponent = self._snapshots.get(path)
        if opponent is None:
            opponent = self._snapshots[path] = NetworkOpponent(cached_policy(path), SNAPSHOT)
        return opponent

    def set_pool(self, spec: PoolSpec, indices: Any = None) -> None:
        """Opponents of the games ``indices`` (default: all) are drawn from ``spec`` from
        their next episode on."""
        for i in self._get_indices(indices):
            self._pool_specs[i] = spec
        live = {path for s in self._pool_specs for _, path in s.snapshots}
        for path in [p for p in self._snapshots if p not in live]:
            del self._snapshots[path]

    # ---- statistics -----------------------------------------------------------------------
    def _count_actions(self) -> None:
        """Fold the learner actions taken since the last count into the statistics (counted
        in bulk, not per step)."""
        if self._taken:
            blocks = ACTION_TO_BLOCK[np.stack(self._taken)]  # [steps, N]
            self._taken = []
            width = len(BLOCK_NAMES)
            flat = blocks.T + width * self._rows[:, None]
            self.stats.blocks += np.bincount(flat.ravel(), minlength=self.num_envs * width
                                        ).reshape(self.num_envs, width)

    def pop_stats(self, indices: Any = None) -> list[dict[str, Any]]:
        """The statistics of each game ``indices`` since the last call (and reset them)."""
        self._count_actions()
        return [self.stats.pop(i) for i in self._get_indices(indices)]

    def _add_time(self, start: float) -> None:
        self.stats.env_seconds += (time.perf_counter() - start) / self.num_envs

    # ---- VecEnv ---------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """bool[N, A]: the legal learner actions of every game."""
        return self.venv.action_masks()

    def reset(self) -> np.ndarray:
        start = time.perf_counter()
        seed = self._seeds[0]
        if seed is not None:
            self._seed_streams(seed)
        obs, infos = self.venv.reset(seed=self._env_seed if seed is not None else None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = unbatch_info(infos, self.num_envs)
        self._add_time(start)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.array(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        start = time.perf_counter()
        obs, rewards, terminated, truncated, infos = self._step(self._actions)
        dones = terminated | truncated
        out = unbatch_info(infos, self.num_envs)
        if dones.any():
            final_obs = infos["final_obs"]
            final = unbatch_info(infos["final_info"], self.num_envs)
            outcomes = self.venv.final_outcomes
            for i in np.flatnonzero(dones).tolist():
                self.reset_infos[i] = out[i]  # the next game's, as DummyVecEnv keeps them
                out[i] = final[i]
                out[i].update({"terminal_observation": final_obs[i],
                               "TimeLimit.truncated": bool(truncated[i])
                               and self.bootstrap_truncated,
                               "outcome": outcomes[i]})
        self._add_time(start)
        return obs, rewards, dones, out

    def step_batch(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                       np.ndarray]:
        """One learner decision in every game without SB3's per-game info dicts (what the
        project's own PPO calls): ``(obs, rewards, terminated, truncated)``, the next games'
        first observations in ``obs`` where a game ended; the statistics are kept as by
        :meth:`step_wait`."""
        start = time.perf_counter()
        obs, rewards, terminated, truncated, _ = self._step(actions)
        self._add_time(start)
        return obs, rewards, terminated, truncated

    def _step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray, dict[str, Any]]:
        """The vector env's step, with each finished game's summary recorded for the
        charts (read from the batched infos, no per-game dicts)."""
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        self._taken.append(actions)
        if len(self._taken) >= 4096:
            self._count_actions()
        labels = list(self._labels)  # the sampler replaces a finished game's entry
        obs, rewards, terminated, truncated, infos = self.venv.step(actions)
        ended = terminated | truncated
        if ended.any():
            final = infos["final_info"]
            outcomes = self.venv.final_outcomes
            for i in np.flatnonzero(ended).tolist():
                outcome = outcomes[i]
                assert outcome is not None  # its game has just ended
                illegal = bool(final["illegal_action"][i])
                self.stats.illegal[i] += illegal
                self.stats.episodes[i].append(episode_summary(
                    outcome, int(final["seat"][i]), labels[i], illegal))
        return obs, rewards, terminated, truncated, infos

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        idx = self._get_indices(indices)
        if attr_name == "pool_spec":
            return [self._pool_specs[i] for i in idx]
        if attr_name == "labels":
            return [list(self._labels[i]) for i in idx]
        if attr_name == "seat":
            seats = self.venv.seats
            return [int(seats[i]) for i in idx]
        value = getattr(self, attr_name)  # AttributeError as a VecEnv raises it
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        if attr_name == "pool_spec":
            self.set_pool(value, indices)
            return
        if not hasattr(self, attr_name):
            raise AttributeError(f"NativeVecEnv has no attribute {attr_name!r}")
        setattr(self, attr_name, value)  # one object serves every game

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        idx = self._get_indices(indices)
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        if method_name == "pop_stats":
            return self.pop_stats(idx)
        if method_name == "set_pool":
            spec = method_args[0] if method_args else method_kwargs["spec"]
            self.set_pool(spec, idx)
            return [None for _ in idx]
        raise AttributeError(f"NativeVecEnv games have no method {method_name!r} (known: "
                             f"action_masks, pop_stats, set_pool)")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


def unbatch_info(infos: dict[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """SB3's one dict per game from a batched Gymnasium vector info (the keys present for
    that game; ``_key`` masks dropped): NumPy scalars become Python ones, array rows stay
    arrays (views of the step's own new arrays), as the single env's ``info`` holds them."""
    out: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, value in infos.items():
        if key.startswith("_") or not isinstance(value, np.ndarray) or value.dtype == object:
            continue
        present = infos.get(f"_{key}")
        rows = value.tolist() if value.ndim == 1 else list(value)
        for i, row in enumerate(rows):
            if present is None or present[i]:
                out[i][key] = row
    return out


def make_vec_env(
    num_envs: int = 8,
    num_players: int = 2,
    opponents: str | Mapping[str, float] = DEFAULT_OPPONENTS,
    seed: int = 0,
    learner_seat: int | None = None,
    illegal_action: str = "terminate",
    **options: Any,
) -> NativeVecEnv:
    """``num_envs`` games on the native core as an SB3 ``VecEnv`` with ``action_masks()``.

    Args:
        num_envs: games stepped together.
        num_players: 2 to 6.
        opponents: one agent spec for every opponent seat (``"novice"``, the default;
            ``"random"``, ``"heuristic"``, ``"naive"``, ``"planner"`` play natively; any other
            spec such as ``"mcts:iterations=16"`` plays in Python, slowly), or a mapping
            ``{spec: weight}`` drawn per seat and episode.
        seed: seeds the games, the learner seats and the opponents' draws (SB3's
            ``model.set_random_seed`` reseeds it, as for any ``VecEnv``).
        learner_seat: the learner's seat, or ``None`` to draw it per episode.
        illegal_action: ``"terminate"`` (default: an illegal action ends that game with
            ``illegal_reward``, ``infos[i]["illegal_action"]`` true) or ``"raise"``
            (``ValueError`` naming the game).
        **options: reward options (``reward``, ``vp_delta``, ``step_reward``,
            ``truncation_reward``, ``illegal_reward``; each defaults to
            :class:`~zavandor_env.envs.rewards.RewardConfig`'s, as ``gymnasium.make`` does:
            no shaping unless asked) and rule options (``max_rounds``, ...); an unknown one
            raises ``TypeError``.
    """
    weights = ({opponents: 1.0} if isinstance(opponents, str)
               else {str(k): float(v) for k, v in opponents.items()})
    for spec in weights:
        parse_spec(spec)  # an unknown agent is refused now, not at the first reset
    return NativeVecEnv(num_envs, PoolSpec(weights=weights), num_players, seed=seed,
                        learner_seat=learner_seat, illegal_action=illegal_action, **options)
