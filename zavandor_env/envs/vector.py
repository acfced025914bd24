"""A batched Gymnasium vector environment on the native core: ``ZavandorVectorEnv``.

``N`` games run side by side in one C++ object (``zavandor_env.engine._native.VecLearner``,
``native/src/vec.hpp``), each with one **learner** seat.  The opponents' moves are played
natively -- uniformly random, or the C++ bots of ``agents/``: the rule-based heuristic, the
novice, the naive player or the planner -- until every game needs its learner again, so one
:meth:`ZavandorVectorEnv.step` crosses into C++ once per batch, not once per move (the
EnvPool / PufferLib design).  Opponent seats decided in Python (a batched policy, e.g. a frozen
self-play snapshot) are answered for all games at once: one call ``fn(obs[M, D], mask[M, A])``
per policy and round of pending decisions.

It plays the same game as :class:`~zavandor_env.envs.SingleAgentEnv` (same rules, same
observation vector and mask, same rewards), with Gymnasium's vector API:

* ``reset(seed=None) -> (obs float32[N, D], infos)``
* ``step(actions int[N]) -> (obs, rewards float32[N], terminated bool[N], truncated bool[N],
  infos)``
* ``action_masks() -> bool[N, A]`` (sb3-contrib's MaskablePPO convention)

**Autoreset** (``autoreset_mode``, reported in ``metadata["autoreset_mode"]``):

* ``AutoresetMode.SAME_STEP`` (this class's default, as SB3's ``VecEnv`` does): the step that
  ends a game returns its final reward with ``terminated`` / ``truncated`` set, and already the
  *next* game's first observation and mask; the finished game's last observation is in
  ``infos["final_obs"][i]`` and its result in ``infos["final_info"]``, each with Gymnasium's
  boolean ``"_key"`` mask saying which games finished;
* ``AutoresetMode.NEXT_STEP`` (Gymnasium's default, which its vector wrappers such as
  ``NormalizeObservation`` require; ``gymnasium.make_vec("Zavandor-v0",
  vectorization_mode="vector_entry_point")`` builds that): the ending step returns the finished
  game's last observation in ``obs`` and its result directly in ``infos`` (with ``_key``
  masks); the next
  ``step`` ignores that game's action and returns the new game's first observation, reward 0.

The result is the keys of :mod:`zavandor_env.envs.info`, batched: ``game_over``,
``terminated``, ``truncated``, ``illegal_action`` bool[N], ``scores`` / ``ranks`` int32[N, P],
``winners`` int8[N, P] (1: that seat won by the rules), ``rounds`` int32[N], plus ``seat``
(the learner's) -- only arrays, so every library can batch them.  The rich
:class:`~zavandor_env.engine.outcome.Outcome` of each game slot's last finished game is
:attr:`ZavandorVectorEnv.final_outcomes` (``None`` before its first).

Rewards come only from :class:`~zavandor_env.envs.rewards.RewardConfig`: a learner step pays
``step_reward + vp_delta * (learner VP now - learner VP at its previous decision)`` and, when
the game ends, ``RewardConfig.final_rewards(outcome)[learner seat]`` -- exactly what
``SingleAgentEnv`` pays (everything since the learner's last decision).

Opponents, one spec per opponent seat in seat order after the learner (as ``SingleAgentEnv``):

* ``None`` / ``"random"``: uniform random legal play (native);
* ``"heuristic"``: the rule-based heuristic (native; ``heuristic_weights`` sets its weights);
* ``"novice"``: the heuristic with a random lapse on 2% of its turn decisions (native);
* ``"naive"``: sozav's computer player, :class:`~zavandor_env.agents.naive.NaiveAgent` (native);
* ``"planner"``: :class:`~zavandor_env.agents.planner.PlannerAgent` (native; ``planner_params``
  sets its parameters, by default the shipped ``configs/agents/planner.yaml``);
* a :class:`~zavandor_env.envs.vector_seats.NetworkOpponent`: a policy network played inside
  the core (actions sampled from its masked softmax with the slot's generator, or greedily;
  how training plays its frozen snapshots and a fixed policy target);
* ``"policy"``: the batched ``policy_fn`` given to the constructor (or :meth:`set_policy_fn`);
* a callable ``fn(obs float32[M, D], mask bool[M, A]) -> actions int[M]``: a batched policy;
* an :class:`~zavandor_env.engine.agent.Agent`, or any other agent spec string / mapping
  (``"mcts:iterations=50"``, ``"planner:config=my.yaml"``, ``"naive:seed=3"``: a spec with
  parameters is never mapped to a native kind; :func:`zavandor_env.agents.make_agent`): played
  in Python one decision at a time through a ``PlayerView`` (the slow path, for agents without
  a native port).

The native random, novice, naive and planner opponents of one game slot draw their coin flips
from that slot's own generator (seeded from ``seed``, running on across its episodes), not from
a generator per agent as their Python counterparts do: the same decisions for the same draws,
but not the same games as Python agents seeded per episode.

``opponents`` is one spec for every opponent seat, a list of ``num_players - 1`` specs, or a
callable ``sampler(env_index, rng) -> list of specs`` called at the start of every episode of
every game (``rng``: this env's seeded ``numpy.random.Generator``), so training can draw each
episode's opponents from a pool.  The learner's seat is drawn per episode from the same
generator unless ``learner_seat`` is given.

**Infos** follow the contract of every face (:mod:`zavandor_env.envs.contract`): every
``reset`` and ``step`` returns the keys of the single env's ``info``, batched as Gymnasium's
``SyncVectorEnv`` batches them (``action_mask`` int8[N, A], ``seat`` and ``rounds`` int64[N],
flags bool[N], ``scores`` / ``ranks`` int32[N, P], ``winners`` int8[N, P], each with its ``_key``
mask).  A slot whose game is over and not yet restarted (``NEXT_STEP``) has a mask allowing
:data:`~zavandor_env.envs.contract.FINISHED_ACTION` alone (its next action is ignored): a mask
here is never all-False.

**Illegal actions**: ``illegal_action="terminate"`` (default, as ``gymnasium.make``) ends that
game with ``illegal_reward`` (``terminated``, ``info["illegal_action"]`` true, the unfinished
game's scores in the result keys), the other games stepping on; ``"raise"`` raises
``ValueError`` naming the game, before any game changes.

A copy or pickle is refused in one line (``TypeError``): the games live in the native core,
which cannot hand a game slot's state, opponents' generator included, back.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from zavandor_env.encoding.observation import OBS_SIZE
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.game import check_seed
from zavandor_env.engine.native import core_module
from zavandor_env.engine.outcome import Outcome, make_outcome
from zavandor_env.envs.contract import FINISHED_ACTION, check_illegal_action, observation_space
from zavandor_env.envs.info import batched_values, fill_result, with_presence
from zavandor_env.envs.opponents import DEFAULT_OPPONENTS
from zavandor_env.envs.options import check_learner_seat, check_num_envs, env_settings
from zavandor_env.envs.vector_seats import (
    KIND_EXTERNAL,
    KIND_GREEDY_NETWORK,
    KIND_HEURISTIC,
    KIND_LEARNER,
    KIND_NAIVE,
    KIND_NETWORK,
    KIND_NOVICE,
    KIND_PLANNER,
    KIND_RANDOM,
    NetworkOpponent,
    PolicyFn,
    Sampler,
    VectorSeats,
    native_planner,
    native_weights,
)

__all__ = ["KIND_EXTERNAL", "KIND_GREEDY_NETWORK", "KIND_HEURISTIC", "KIND_LEARNER",
           "KIND_NAIVE", "KIND_NETWORK", "KIND_NOVICE", "KIND_PLANNER", "KIND_RANDOM",
           "NetworkOpponent", "PolicyFn",
           "Sampler", "ZavandorVectorEnv", "make_vector_env", "outcome_from_arrays"]

READY, PENDING, DONE = 0, 1, 2  # VecLearner.status
_MAX_EMPTY_RESETS = 1000  # games that end before the learner decides, in a row


def outcome_from_arrays(
    scores: Sequence[int],
    eliminated: Sequence[bool],
    winners_mask: int,
    terminated: bool,
    truncated: bool,
    rounds: int,
    decisions: int,
) -> Outcome:
    """The :class:`Outcome` of one game from the native arrays, through the engine's one
    builder (:func:`~zavandor_env.engine.outcome.make_outcome`); ``winners_mask`` bit ``s``
    is seat ``s``; ``decisions`` = decisions applied (``len(history)``)."""
    winners = [s for s in range(len(scores)) if (int(winners_mask) >> s) & 1]
    return make_outcome(scores, eliminated, winners, terminated, truncated, rounds, decisions)


def _autoreset_mode(mode: object) -> AutoresetMode:
    """``mode`` as an ``AutoresetMode`` (SAME_STEP or NEXT_STEP; the enum or its value)."""
    for known in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP):
        if mode in (known, known.value):
            return known
    raise ValueError(f"autoreset_mode must be one of ['SameStep', 'NextStep'], got {mode!r}")


class ZavandorVectorEnv(VectorEnv):
    """``num_envs`` games with one learner seat each, opponents played natively (see the
    module docstring).

    Args:
        num_envs: games played side by side (N).
        num_players: 2 to 6.
        opponents: one spec for every opponent seat, a list of ``num_players - 1`` specs, or a
            sampler ``(env_index, rng) -> specs`` called at every episode.
        seed: seeds the game seeds, the learner seats, the random opponents and the sampler's
            generator (``None``: a random seed); ``reset(seed=...)`` reseeds.
        learner_seat: the learner's seat in every game, or ``None`` to draw it per episode.
        policy_fn: the batched policy of ``"policy"`` opponent specs.
        heuristic_weights: weights of the native heuristic and novice (a
            ``_native.HeuristicWeights``, an ``agents.heuristic.HeuristicWeights``, a mapping
            of overrides, or ``None`` for the defaults).
        planner_params: parameters of the native ``"planner"`` opponents (a
            ``_native.PlannerParams``, an ``agents.planner.PlannerParams``, a mapping of
            overrides, or ``None`` for the shipped ones).
        copy: return copies of the observation buffer (default) or the buffer itself (valid
            until the next ``step`` / ``reset``).
        autoreset_mode: ``AutoresetMode.SAME_STEP`` (default) or ``NEXT_STEP`` (or their
            names, ``"SameStep"`` / ``"NextStep"``), see the module docstring.
        illegal_action: ``"terminate"`` (default: an illegal learner action ends that game
            with ``illegal_reward``) or ``"raise"`` (``ValueError`` naming the game, before
            any game changes).
        **options: the :class:`~zavandor_env.envs.rewards.RewardConfig` fields (``reward``,
            ``vp_delta``, ``step_reward``, ``truncation_reward``, ``illegal_reward``) and
            :class:`~zavandor_env.engine.GameConfig` fields (``max_rounds``, ...).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        opponents: Any = "random",
        seed: int | None = None,
        learner_seat: int | None = None,
        policy_fn: PolicyFn | None = None,
        heuristic_weights: Any = None,
        planner_params: Any = None,
        copy: bool = True,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        illegal_action: str = "terminate",
        **options: Any,
    ) -> None:
        self.reward_config, self.config = env_settings(num_players, options)
        self.illegal_action = check_illegal_action(illegal_action)
        n, p = check_num_envs(num_envs), num_players
        check_learner_seat(learner_seat, p)
        self.num_envs = n
        self.num_players = p
        self.learner_seat = learner_seat
        self.copy = copy
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.single_observation_space = observation_space()
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self._seed = (random.SystemRandom().randrange(2**63) if seed is None
                      else check_seed(seed, or_none=True))
        self._rng = np.random.default_rng(self._seed)
        self._vec = core_module().VecLearner(self.config.to_dict(), n, self._seed,
                                             native_weights(heuristic_weights),
                                             planner_params=native_planner(planner_params))
        self._seats_of = VectorSeats(n, p, opponents, policy_fn)
        # Buffers written by the native side (no allocation per step).
        self._obs = np.zeros((n, OBS_SIZE), np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), np.bool_)
        self._vp = np.zeros((n, p), np.int32)
        self._status = np.zeros(n, np.int8)
        self._seats = np.zeros(n, np.int32)
        self._rows = np.arange(n)
        self._last_vp = np.zeros(n, np.float64)  # learner VP at its last decision
        self._actions = np.zeros(n, np.int64)
        self._final_outcomes: list[Outcome | None] = [None] * n
        self._to_restart = np.zeros(n, bool)  # NEXT_STEP: games that ended on the last step
        self._started = False
        self.episodes = 0  # games finished since construction

    # ---- opponents ------------------------------------------------------------------------
    def set_opponents(self, opponents: Any) -> None:
        """Use these opponents (a spec, a list or a sampler) from each game's next episode."""
        self._seats_of.specs = self._seats_of.check(opponents)

    def set_policy_fn(self, policy_fn: PolicyFn | None) -> None:
        """The batched policy of ``"policy"`` specs, from the next decision on."""
        self._seats_of.policy_fn = policy_fn

    # ---- episodes -------------------------------------------------------------------------
    def _start(self, env: int, game_seed: int | None = None,
               learner_seat: int | None = None) -> None:
        seat, kinds, networks = self._seats_of.draw(
            env, self._rng, self.learner_seat if learner_seat is None else learner_seat)
        self._vec.reset_env(env, seat, kinds, game_seed, networks)

    def _start_all(self, envs: Sequence[int]) -> None:
        """New games in ``envs`` (played up to their learner's first decision)."""
        todo = list(envs)
        for _ in range(_MAX_EMPTY_RESETS):
            for env in todo:
                self._start(env)
            self._seats_of.resolve(self._vec)
            self._vec.status(self._status)
            todo = [env for env in todo if self._status[env] == DONE]
            if not todo:
                return
        raise RuntimeError("games keep ending before the learner decides")

    # ---- Gymnasium vector API -------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every slot.  A seed reseeds everything (see ``seed`` above)."""
        if seed is not None:
            if isinstance(seed, (list, tuple)):
                raise ValueError("give one integer seed for the whole vector env")
            self._seed = check_seed(seed, or_none=True)
            self._rng = np.random.default_rng(self._seed)
            self._vec.reseed(self._seed)
        self._start_all(range(self.num_envs))
        self._to_restart[:] = False
        self._started = True
        self._after_decision_point(np.ones(self.num_envs, bool))
        self._vec.observe(self._obs, self._mask)
        return self._out_obs(), self._running_info()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        buf = self._actions
        given = np.asarray(actions)
        if given.dtype.kind not in "iu" or given.size != self.num_envs:
            raise ValueError(f"actions must be {self.num_envs} integers, got {given.dtype} "
                             f"{given.shape}")
        buf[:] = given.reshape(self.num_envs)
        if self._to_restart.any():
            self._stand_in_for_ignored(buf)
        vec = self._vec
        illegal, last_obs = np.zeros(self.num_envs, bool), self._obs
        try:
            vec.step(buf)  # ValueError naming the game for an illegal action; nothing changed
        except ValueError:
            illegal = self._illegal_slots(buf)
            if not illegal.any() or self.illegal_action == "raise":
                raise
            last_obs = self._obs.copy()  # the games as the illegal actions found them
            for slot, unfinished in self._outcomes(illegal, final=False).items():
                self._final_outcomes[slot] = unfinished
            buf[illegal] = self._mask[illegal].argmax(axis=1)  # stand-ins: games dropped
            vec.step(buf)
        self._seats_of.resolve(self._vec)
        restarted = self._restart_ended()
        vec.status(self._status)
        vec.vp(self._vp)
        cfg = self.reward_config
        learner_vp = self._vp[self._rows, self._seats]
        rewards = cfg.step_reward + cfg.vp_delta * (learner_vp - self._last_vp)
        done = self._status == DONE
        terminated = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        if restarted is not None:
            rewards[restarted] = 0.0  # a new game's first observation: nothing paid yet
            learner_vp[restarted] = self._last_vp[restarted]
        done &= ~illegal  # (a stand-in move may have ended that game: it is over anyway)
        rewards[illegal] = cfg.illegal_reward
        self._last_vp[:] = learner_vp
        ended = done | illegal
        # Every game's observation now: the finished ones' last (final_obs), the others'
        # current one (resetting the finished games does not touch them).
        vec.observe(self._obs, self._mask)
        if not ended.any():
            return (self._out_obs(), rewards.astype(np.float32), terminated, truncated,
                    self._running_info())
        self._obs[illegal] = last_obs[illegal]  # the game as the illegal action found it
        result = self._finish(done, rewards, terminated, truncated, illegal)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._to_restart |= ended  # restarted by the next step
            return (self._out_obs(), rewards.astype(np.float32), terminated, truncated,
                    result)
        final_obs = self._final_obs(ended)
        finished = np.flatnonzero(ended)
        self._start_all(finished.tolist())
        self._after_decision_point(ended)
        for env in finished:  # the next games' first observations
            vec.observe_env(int(env), self._obs[env], self._mask[env])
        infos = self._running_info()
        infos.update({"final_obs": final_obs, "_final_obs": ended.copy(),
                      "final_info": result, "_final_info": ended.copy()})
        return (self._out_obs(), rewards.astype(np.float32), terminated, truncated, infos)

    def _stand_in_for_ignored(self, buf: np.ndarray) -> None:
        """NEXT_STEP: a slot whose episode ended on the last step has its action ignored;
        if its native game still waits (an episode ended by an illegal action), it gets a
        stand-in legal move (that game is dropped when the slot restarts)."""
        native_mask = self._mask
        waiting = self._to_restart & native_mask.any(axis=1)
        if waiting.any():
            buf[waiting] = native_mask[waiting].argmax(axis=1)

    def _illegal_slots(self, buf: np.ndarray) -> np.ndarray:
        """bool[N]: the slots whose learner action is illegal now."""
        in_range = (buf >= 0) & (buf < NUM_ACTIONS)
        legal = in_range & self._mask[self._rows, np.where(in_range, buf, 0)]
        return ~legal & ~self._to_restart

    def _outcomes(self, envs: np.ndarray, final: bool = True) -> dict[int, Outcome]:
        """The outcome of each game ``envs`` (bool[N]) as the native core holds it now: as the
        rules or a safety limit ended it (``final``), or unfinished (no winner, neither flag:
        an illegal learner action ended its episode)."""
        n, p = self.num_envs, self.num_players
        arrays = {"vp": np.zeros((n, p), np.int32), "eliminated": np.zeros((n, p), np.bool_),
                  "winners": np.zeros(n, np.int32), "terminated": np.zeros(n, np.bool_),
                  "truncated": np.zeros(n, np.bool_), "rounds": np.zeros(n, np.int32),
                  "decisions": np.zeros(n, np.int32)}
        for name, array in arrays.items():
            getattr(self._vec, name)(array)
        rows = {name: array.tolist() for name, array in arrays.items()}
        return {env: outcome_from_arrays(
                    rows["vp"][env], rows["eliminated"][env], rows["winners"][env] if final else 0,
                    final and rows["terminated"][env], final and rows["truncated"][env],
                    rows["rounds"][env], rows["decisions"][env])
                for env in np.flatnonzero(envs).tolist()}

    def _restart_ended(self) -> np.ndarray | None:
        """NEXT_STEP: start new games in the slots whose game ended on the previous step (the
        native step skipped them, their actions unread); bool[N] of those, or None."""
        if not self._to_restart.any():
            return None
        restarted = self._to_restart.copy()
        self._to_restart[:] = False
        self._start_all(np.flatnonzero(restarted).tolist())
        self._after_decision_point(restarted)
        return restarted

    def action_masks(self) -> np.ndarray:
        """bool[N, A]: each game's legal learner actions now (MaskablePPO); a slot whose game
        is over and waits for its restart (``NEXT_STEP``) allows ``FINISHED_ACTION`` alone."""
        masks = self._mask.copy()
        waiting = self._to_restart
        if waiting.any():
            masks[waiting] = False
            masks[waiting, FINISHED_ACTION] = True
        return masks

    def _running_info(self) -> dict[str, Any]:
        """Every slot's info as running games (the contract's keys, batched)."""
        values = batched_values(self.action_masks(), self._seats, self.num_players)
        return with_presence(values, np.ones(self.num_envs, bool))

    # ---- Gymnasium's per-env calls (SyncVectorEnv / AsyncVectorEnv have them; skrl calls
    # ``call("render")`` every step) ----------------------------------------------------------
    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """One result per game, as ``SyncVectorEnv.call``: ``render`` (``None``: the games
        do not render) and ``action_masks`` (each game's bool[A])."""
        if name == "render":
            return (None,) * self.num_envs
        if name == "action_masks":
            return tuple(self.action_masks())
        raise AttributeError(f"ZavandorVectorEnv games have no method {name!r} to call "
                             f"(known: render, action_masks)")

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """One value per game, as ``SyncVectorEnv.get_attr``: ``seat`` (each game's learner
        seat) or an attribute shared by every game (``render_mode``, ``num_players``...)."""
        if name == "seat":
            return tuple(int(s) for s in self._seats)
        return (getattr(self, name),) * self.num_envs

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("ZavandorVectorEnv cannot be copied or pickled: its games live in the "
                        "native core; copy a SingleAgentEnv, or build the vector env anew")

    # ---- internals ------------------------------------------------------------------------
    def _out_obs(self) -> np.ndarray:
        return self._obs.copy() if self.copy else self._obs

    def _after_decision_point(self, envs: np.ndarray) -> None:
        """Record seats and learner VP of (newly started) games ``envs`` (bool[N])."""
        self._vec.learner_seat(self._seats)
        self._vec.vp(self._vp)
        vp = self._vp[self._rows, self._seats]
        self._last_vp[envs] = vp[envs]

    def _finish(self, done: np.ndarray, rewards: np.ndarray, terminated: np.ndarray,
                truncated: np.ndarray, illegal: np.ndarray) -> dict[str, Any]:
        """Final rewards, flags and infos of the games that just ended by the rules or a
        safety limit (``done``, bool[N]) or by an illegal learner action (``illegal``, their
        outcomes already recorded), in Gymnasium's vector-info layout (the contract's keys,
        ``_key`` masks true for the ended games)."""
        ended = done | illegal
        info = batched_values(self._mask, self._seats, self.num_players)
        seats = self._seats.tolist()
        for env, outcome in self._outcomes(done).items():
            terminated[env], truncated[env] = outcome.terminated, outcome.truncated
            rewards[env] += self.reward_config.final_rewards(outcome)[seats[env]]
            self._final_outcomes[env] = outcome
            fill_result(info, env, outcome)
        terminated |= illegal  # the episode ended (the game itself did not)
        for env in np.flatnonzero(illegal).tolist():
            unfinished = self._final_outcomes[env]
            assert unfinished is not None  # recorded before the stand-in moves
            fill_result(info, env, unfinished, illegal_action=True)
        info["action_mask"][ended] = 0
        info["action_mask"][ended, FINISHED_ACTION] = 1
        self.episodes += int(ended.sum())
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            # every slot's info (the running ones' too), all keys present
            return with_presence(info, np.ones(self.num_envs, bool))
        return with_presence(info, ended)

    def _final_obs(self, done: np.ndarray) -> np.ndarray:
        """The last observation of each game that just ended (an object array, ``None``
        elsewhere), as Gymnasium's vector info lays it out."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        for env in np.flatnonzero(done).tolist():
            final_obs[env] = self._obs[env].copy()
        return final_obs

    @property
    def final_outcomes(self) -> tuple[Outcome | None, ...]:
        """Each game slot's last finished game's :class:`~zavandor_env.engine.outcome.Outcome`
        (``None`` before the slot's first game ends)."""
        return tuple(self._final_outcomes)

    # ---- inspection -----------------------------------------------------------------------
    @property
    def seats(self) -> np.ndarray:
        """The learner's seat in each game (a copy)."""
        return self._seats.copy()

    @property
    def opponent_labels(self) -> list[list[str]]:
        """Who plays each opponent seat of each game (seat order after the learner)."""
        return [list(labels) for labels in self._seats_of.labels]

    @property
    def native(self) -> Any:
        """The ``_native.VecLearner`` (game copies with ``.core(i)``, raw accessors)."""
        return self._vec

    def reset_game(self, env: int, game_seed: int, learner_seat: int | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Restart game ``env`` with a fixed game seed (``Game.new(config, game_seed)``), for
        tests and reproductions; returns its first observation and mask.  ``learner_seat``
        overrides the env's setting once."""
        self._start(env, game_seed, learner_seat)
        self._seats_of.resolve(self._vec)
        self._started = True
        mask = np.zeros(self.num_envs, bool)
        mask[env] = True
        self._after_decision_point(mask)
        self._vec.observe_env(env, self._obs[env], self._mask[env])
        return self._obs[env].copy(), self._mask[env].copy()

    def close_extras(self, **kwargs: Any) -> None:
        if hasattr(self, "_seats_of"):  # (not when the constructor failed before it)
            self._seats_of.close()


def make_vector_env(
    num_envs: int = 1,
    num_players: int = 2,
    opponents: Any = DEFAULT_OPPONENTS,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    render_mode: None = None,
    **options: Any,
) -> ZavandorVectorEnv:
    """``Zavandor-v0``'s vector entry point: ``gymnasium.make_vec("Zavandor-v0", num_envs,
    vectorization_mode="vector_entry_point", **options)``.

    The games of ``gymnasium.make("Zavandor-v0")`` (novice opponents by default, see
    :mod:`zavandor_env.envs.gym_entry`), ``num_envs`` of them batched natively, with
    Gymnasium's default autoreset (``NEXT_STEP``, which its vector wrappers require).
    ``options`` are :class:`ZavandorVectorEnv`'s (``seed``, ``learner_seat``, reward and rule
    options); an unknown one raises ``TypeError``."""
    if render_mode is not None:
        raise ValueError(f"the vector env does not render (render_mode must be None, got "
                         f"{render_mode!r})")
    return ZavandorVectorEnv(num_envs, num_players, opponents=opponents,
                             autoreset_mode=autoreset_mode, **options)
