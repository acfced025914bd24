"""The training games on the native core: an SB3 ``VecEnv`` over ``ZavandorVectorEnv``.

:class:`NativeVecEnv` is what ``vec_env: native`` (and ``auto`` where the C++ core is built)
hands MaskablePPO instead of a ``DummyVecEnv`` of
:class:`~zavandor_env.envs.training.TrainingEnv`\\ s.  All ``n_envs`` games live in
one native object (:class:`zavandor_env.envs.vector.ZavandorVectorEnv`), so one learner step
crosses into C++ once for every game, and the opponents' moves are played there too:

* ``random``, ``heuristic``, ``novice``, ``naive`` and ``planner`` (plain specs, no parameters
  but a label; the planner with its shipped parameters) are played natively;
* a pool **snapshot** becomes a batched policy callable: one NumPy forward answers every
  pending decision of that snapshot across the games (the weights come from
  :func:`train.opponents.cached_policy`, as :class:`~train.opponents.NumpyPolicyAgent` plays
  them, sampled within the mask);
* every other agent spec (``mcts:iterations=16``, ``heuristic:weights=...``,
  ``naive:seed=3``...) is played by the project's agent in Python, one decision at a time (the
  slow path).

Everything the trainer sees is what it sees from ``DummyVecEnv(TrainingEnv...)``:

* opponents drawn per seat and episode from the :class:`~train.opponents.PoolSpec` with the
  same weights and labels (``env_method("set_pool", spec)`` changes it, per env if wished);
* ``env_method("action_masks")``: one bool mask per game (sb3-contrib's ``get_action_masks``);
* ``env_method("pop_stats")``: one dict per game with TrainingEnv's keys -- ``blocks`` (learner
  actions per action block), ``illegal``, ``env_seconds`` (the time spent inside this env, the
  opponents' moves included, shared evenly between the games, so the callback's sum is the
  total) and ``episodes`` (one summary per finished game: seat, scores, ranks, labels, winners,
  terminated, rounds, decisions, illegal);
* SB3's step conventions: ``dones = terminated | truncated``, the next game's first observation
  in ``obs`` and the finished one's last in ``infos[i]["terminal_observation"]``.  As in
  TrainingEnv, a game cut off by ``max_rounds`` / ``max_decisions`` is over for good (the
  environment prices it with ``truncation_reward``), so ``infos[i]["TimeLimit.truncated"]`` is
  False and PPO does not bootstrap a future that never comes; the raw flag is
  ``infos[i]["truncated"]`` (``bootstrap_truncated=True`` reports it as SB3's time limit).

Every ``infos[i]`` holds, at every step, the single env's info keys (``action_mask``, ``seat``
and the result keys of :mod:`zavandor_env.envs.info`, Python scalars and NumPy arrays: the
contract of every face, :mod:`zavandor_env.envs.contract`); on the step that ends a game
they describe the finished game (its mask allowing ``FINISHED_ACTION`` alone), beside SB3's
keys.  An illegal learner action ends that game with ``illegal_reward``
(``illegal_action="terminate"``, the default; counted in ``illegal``) or raises ``ValueError``
(``"raise"``); MaskablePPO never takes one.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from zavandor_env.agents.policy_file import NumpyPolicy
from zavandor_env.agents.registry import parse_spec
from zavandor_env.envs.rewards import RewardConfig
from zavandor_env.envs.training import ACTION_TO_BLOCK, BLOCK_NAMES, episode_summary
from zavandor_env.train.config import SNAPSHOT, TrainConfig
from zavandor_env.train.opponents import PoolSpec, cached_policy

__all__ = ["NativeVecEnv", "SnapshotPolicy", "make_native_vec_env"]

#: Agents the native core plays itself (a plain spec without parameters).
NATIVE_AGENTS = ("random", "heuristic", "novice", "naive", "planner")


class SnapshotPolicy:
    """A frozen snapshot as a batched policy ``fn(obs[M, D], mask[M, A]) -> actions[M]``:
    one forward for all ``M`` decisions, each action sampled from the masked softmax (as
    :meth:`NumpyPolicy.act` samples one), with the env's shared generator."""

    def __init__(self, policy: NumpyPolicy, rng: np.random.Generator, name: str = SNAPSHOT
                 ) -> None:
        self.policy = policy
        self.rng = rng
        self.name = name
        self.calls = 0  # forwards so far
        self.decisions = 0  # decisions answered so far

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.calls += 1
        self.decisions += len(obs)
        z = self.policy.logits(obs).astype(np.float64)
        z = np.where(mask, z, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        cum = np.cumsum(np.exp(z), axis=1)
        # Inverse CDF: the first action whose cumulative weight passes u * total; an illegal
        # action adds no weight, so it is never the first to pass.
        threshold = self.rng.random(len(obs)) * cum[:, -1]
        return (cum > threshold[:, None]).argmax(axis=1)


class NativeVecEnv(VecEnv):
    """``num_envs`` training games on the native core, with TrainingEnv's pool opponents and
    statistics (see the module docstring).

    Args:
        cfg: the run's config (players, learner seat, reward settings, rule options).
        spec: the opponent pool to draw from (every env; ``set_pool`` changes it).
        num_envs: games stepped together (default ``cfg.n_envs``).
        seed: seeds the games, the learner seats, the pool draws and the snapshots' sampling;
            ``seed()`` + ``reset()`` (what SB3 does) reseed.
        bootstrap_truncated: report cut-off games as SB3 time limits (PPO then bootstraps
            them); default False, as TrainingEnv.
        illegal_action: ``"terminate"`` (default) or ``"raise"`` (see the module docstring).
        illegal_reward: what an illegal action that ends a game pays (default -1).
    """

    def __init__(self, cfg: TrainConfig, spec: PoolSpec, num_envs: int | None = None,
                 seed: int = 0, bootstrap_truncated: bool = False,
                 illegal_action: str = "terminate",
                 illegal_reward: float = RewardConfig.illegal_reward) -> None:
        from zavandor_env.envs.vector import ZavandorVectorEnv

        n = cfg.n_envs if num_envs is None else int(num_envs)
        self.num_players = cfg.num_players
        self.bootstrap_truncated = bootstrap_truncated
        self._others = cfg.num_players - 1
        self._pool_specs: list[PoolSpec] = [spec] * n
        self._labels: list[list[str]] = [["random"] * self._others for _ in range(n)]
        self._opponents: dict[str, tuple[str, str]] = {}  # pool key -> (label, env spec)
        self._snapshots: dict[str, SnapshotPolicy] = {}  # file -> its batched policy
        self._seed_streams(seed)
        self.venv = ZavandorVectorEnv(n, cfg.num_players, opponents=self._sample,
                                      seed=self._env_seed, learner_seat=cfg.learner_seat,
                                      copy=True, illegal_action=illegal_action,
                                      illegal_reward=illegal_reward, **cfg.env_options())
        self.render_mode = None
        self._rows = np.arange(n)
        self._actions = np.zeros(n, np.int64)
        self._blocks = np.zeros((n, len(BLOCK_NAMES)), np.int64)
        self._taken: list[np.ndarray] = []  # learner actions not yet counted into _blocks
        self._illegal = np.zeros(n, np.int64)
        self._env_seconds = np.zeros(n, np.float64)
        self._episodes: list[list[dict[str, Any]]] = [[] for _ in range(n)]
        super().__init__(n, self.venv.single_observation_space, self.venv.single_action_space)

    # ---- seeding and opponents ------------------------------------------------------------
    def _seed_streams(self, seed: int) -> None:
        """One seed -> the env's seed, the pool draws' and the snapshots' generators."""
        env_seed, pool_seed, policy_seed = np.random.SeedSequence(int(seed)).generate_state(3)
        self._env_seed = int(env_seed)
        self._pool_rng = random.Random(int(pool_seed))
        self._policy_rng = np.random.default_rng(int(policy_seed))
        for fn in self._snapshots.values():
            fn.rng = self._policy_rng

    def _sample(self, env: int, rng: np.random.Generator) -> list[Any]:
        """This episode's opponents of game ``env``, drawn as TrainingEnv draws them; their
        labels go to ``self._labels[env]`` (a new list: the step's caller keeps the old)."""
        spec = self._pool_specs[env]
        draw = self._pool_rng
        labels: list[str] = []
        opponents: list[Any] = []
        for _ in range(self._others):
            key = spec.draw_opponent(draw)
            if key == SNAPSHOT:
                label, path = spec.draw_snapshot(draw)
                opponents.append(self._snapshot(path))
            else:
                label, opponent = self._opponent(key)
                opponents.append(opponent)
            labels.append(label)
        self._labels[env] = labels
        return opponents

    def _opponent(self, key: str) -> tuple[str, str]:
        """The label and the ZavandorVectorEnv spec of pool key ``key``: the native kind of a
        plain random/heuristic/novice/naive/planner, else the key itself (played by its Python
        agent)."""
        found = self._opponents.get(key)
        if found is None:
            parsed = parse_spec(key)
            native = parsed.agent in NATIVE_AGENTS and not parsed.params
            found = self._opponents[key] = (parsed.label, parsed.agent if native else key)
        return found

    def _snapshot(self, path: str) -> SnapshotPolicy:
        policy = cached_policy(path)
        fn = self._snapshots.get(path)
        if fn is None:
            fn = self._snapshots[path] = SnapshotPolicy(policy, self._policy_rng)
        fn.policy = policy  # (the process cache may have reloaded it)
        return fn

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
        """Fold the learner actions taken since the last count into ``_blocks`` (counted in
        bulk, not per step)."""
        if self._taken:
            blocks = ACTION_TO_BLOCK[np.stack(self._taken)]  # [steps, N]
            self._taken = []
            width = len(BLOCK_NAMES)
            flat = blocks.T + width * self._rows[:, None]
            self._blocks += np.bincount(flat.ravel(), minlength=self.num_envs * width
                                        ).reshape(self.num_envs, width)

    def pop_stats(self, indices: Any = None) -> list[dict[str, Any]]:
        """TrainingEnv's statistics of each game ``indices`` since the last call (and reset)."""
        self._count_actions()
        out = []
        for i in self._get_indices(indices):
            out.append({"blocks": self._blocks[i].copy(), "illegal": int(self._illegal[i]),
                        "env_seconds": float(self._env_seconds[i]),
                        "episodes": self._episodes[i]})
            self._blocks[i] = 0
            self._illegal[i] = 0
            self._env_seconds[i] = 0.0
            self._episodes[i] = []
        return out

    def _add_time(self, start: float) -> None:
        self._env_seconds += (time.perf_counter() - start) / self.num_envs


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
        actions = self._actions
        self._taken.append(actions)
        if len(self._taken) >= 4096:
            self._count_actions()
        labels = list(self._labels)  # the sampler replaces a finished game's entry
        obs, rewards, terminated, truncated, infos = self.venv.step(actions)
        dones = terminated | truncated
        out = unbatch_info(infos, self.num_envs)
        if not dones.any():
            self._add_time(start)
            return obs, rewards, dones, out
        final_obs = infos["final_obs"]
        final = unbatch_info(infos["final_info"], self.num_envs)
        for i in np.flatnonzero(dones).tolist():
            outcome = self.venv.final_outcome(i)
            illegal = final[i]["illegal_action"]
            cut_off = bool(truncated[i])
            self.reset_infos[i] = out[i]  # the next game's, as DummyVecEnv keeps them
            out[i] = final[i]
            out[i].update({"terminal_observation": final_obs[i],
                           "TimeLimit.truncated": cut_off and self.bootstrap_truncated,
                           "outcome": outcome})
            self._illegal[i] += illegal
            self._episodes[i].append(episode_summary(outcome, final[i]["seat"], labels[i],
                                                     illegal))
        self._add_time(start)
        return obs, rewards, dones, out

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

    def _get_indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]


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


def make_native_vec_env(cfg: TrainConfig, spec: PoolSpec, start_step: int = 0) -> NativeVecEnv:
    """The run's ``n_envs`` games on the native core, seeded from ``cfg.seed`` and the step
    the run starts (or resumes) at (SB3 reseeds it with the model's seed before training)."""
    seed = int(np.random.SeedSequence([cfg.seed, start_step]).generate_state(1)[0])
    return NativeVecEnv(cfg, spec, seed=seed)
