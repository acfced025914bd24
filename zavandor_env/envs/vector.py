"""A batched Gymnasium vector environment on the native core: ``ZavandorVectorEnv``.

``N`` games run side by side in one C++ object (``zavandor_env.engine._native.VecLearner``,
``native/src/vec.hpp``), each with one **learner** seat.  The opponents' moves are played
natively -- uniformly random, the rule-based heuristic (a bit-exact port of
``agents/heuristic.py``), the novice, the naive player or the planner (bit-exact ports of
``agents/naive.py`` and ``agents/planner.py``) -- until every game needs its learner again, so one
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
import time
from collections.abc import Callable, Mapping, Sequence
from copy import deepcopy
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from zavandor_env.encoding.observation import OBS_BOUND, OBS_SIZE
from zavandor_env.engine import GameConfig
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.agent import Agent
from zavandor_env.engine.game import check_seed
from zavandor_env.engine.native import core_module
from zavandor_env.engine.outcome import Outcome, make_outcome
from zavandor_env.envs.aec import _check_option_names
from zavandor_env.envs.contract import FINISHED_ACTION, check_illegal_action
from zavandor_env.envs.info import (
    batched_running_info,
    batched_values,
    fill_result,
    with_presence,
)
from zavandor_env.envs.rewards import RewardConfig
from zavandor_env.envs.single_agent import check_learner_seat

__all__ = ["ZavandorVectorEnv", "bench_vector", "bench_vector_row", "make_vector_env",
           "outcome_from_arrays"]

READY, PENDING, DONE = 0, 1, 2  # VecLearner.status
KIND_LEARNER, KIND_RANDOM, KIND_HEURISTIC, KIND_EXTERNAL, KIND_NOVICE = -1, 0, 1, 2, 3
KIND_NAIVE, KIND_PLANNER = 4, 5
#: The opponent specs played natively (the bare names only: a spec with parameters is external).
_NATIVE_KINDS = {"random": KIND_RANDOM, "heuristic": KIND_HEURISTIC, "novice": KIND_NOVICE,
                 "naive": KIND_NAIVE, "planner": KIND_PLANNER}
_AGENT = -1  # handler id of a seat played by a Python Agent (one decision at a time)
_MAX_EMPTY_RESETS = 1000  # games that end before the learner decides, in a row

#: A sampler of opponents: ``(env_index, rng) -> one spec per opponent seat``.
Sampler = Callable[[int, np.random.Generator], Sequence[Any]]
#: A batched policy: ``(obs float32[M, D], mask bool[M, A]) -> actions int[M]``.
PolicyFn = Callable[[np.ndarray, np.ndarray], Any]


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
    supported = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
    for known in supported:
        if mode == known or mode == known.value:
            return known
    raise ValueError(f"autoreset_mode must be one of {[m.value for m in supported]}, "
                     f"got {mode!r}")


def _native_weights(weights: Any) -> Any:
    """``heuristic_weights`` as a ``_native.HeuristicWeights`` (None: the agents' defaults,
    ``configs/agents/heuristic.yaml``, as ``HeuristicAgent()`` plays; resolved here because
    the native core does not import the agents layer)."""
    native = core_module()
    if isinstance(weights, native.HeuristicWeights):
        return weights
    from zavandor_env.agents.heuristic import (
        resolve_weights,  # None, a HeuristicWeights or overrides
    )

    return native.HeuristicWeights(resolve_weights(weights).to_dict())


def _native_planner(params: Any) -> Any:
    """``planner_params`` as a ``_native.PlannerParams`` (None: the shipped parameters,
    ``configs/agents/planner.yaml``, as ``PlannerAgent()`` plays)."""
    native = core_module()
    if isinstance(params, native.PlannerParams):
        return params
    from zavandor_env.agents.planner import (  # a PlannerParams or overrides
        native_planner_params,
        resolve_params,
    )

    return native_planner_params(resolve_params(params))


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
        reward, vp_delta, step_reward, truncation_reward, illegal_reward: the
            :class:`~zavandor_env.envs.rewards.RewardConfig` fields.
        illegal_action: ``"terminate"`` (default: an illegal learner action ends that game
            with ``illegal_reward``) or ``"raise"`` (``ValueError`` naming the game, before
            any game changes).
        **rule_options: :class:`~zavandor_env.engine.GameConfig` fields (``max_rounds``, ...).
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
        reward: str = RewardConfig.reward,
        vp_delta: float = RewardConfig.vp_delta,
        step_reward: float = RewardConfig.step_reward,
        truncation_reward: float = RewardConfig.truncation_reward,
        illegal_reward: float = RewardConfig.illegal_reward,
        illegal_action: str = "terminate",
        **rule_options: Any,
    ) -> None:
        _check_option_names(rule_options)
        self.illegal_action = check_illegal_action(illegal_action)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.reward_config = RewardConfig(
            reward=reward, vp_delta=vp_delta, step_reward=step_reward,
            truncation_reward=truncation_reward, illegal_reward=illegal_reward,
        )
        self.config = GameConfig(num_players=num_players, **rule_options)
        n, p = num_envs, num_players
        check_learner_seat(learner_seat, p)
        self.num_envs = n
        self.num_players = p
        self.learner_seat = learner_seat
        self.copy = copy
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.single_observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (OBS_SIZE,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)

        self._seed = (random.SystemRandom().randrange(2**63) if seed is None
                      else check_seed(seed, or_none=True))
        self._rng = np.random.default_rng(self._seed)
        self._weights = _native_weights(heuristic_weights)
        self._planner = _native_planner(planner_params)
        self._vec = core_module().VecLearner(self.config.to_dict(), n, self._seed,
                                             self._weights, planner_params=self._planner)
        self._policy_fn = policy_fn
        self._policy_slot = _PolicySlot(self)  # calls the current policy_fn
        self._opponents = self._check_opponents(opponents)

        # Buffers written by the native side (no allocation per step).
        self._obs = np.zeros((n, OBS_SIZE), np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), np.bool_)
        self._pobs = np.zeros((n, OBS_SIZE), np.float32)
        self._pmask = np.zeros((n, NUM_ACTIONS), np.bool_)
        self._penv = np.zeros(n, np.int32)
        self._pseat = np.zeros(n, np.int32)
        self._pact = np.zeros(n, np.int64)
        self._vp = np.zeros((n, p), np.int32)
        self._status = np.zeros(n, np.int8)
        self._seats = np.zeros(n, np.int32)
        self._rows = np.arange(n)
        self._last_vp = np.zeros(n, np.float64)  # learner VP at its last decision
        self._actions = np.zeros(n, np.int64)
        # Who answers each external seat: index into _handlers, or _AGENT.
        self._handler_id = np.zeros((n, p), np.int32)
        self._handlers: list[PolicyFn | None] = [None]
        self._handler_index: dict[int, int] = {}
        self._agents: list[list[Agent | None]] = [[None] * p for _ in range(n)]
        # Python agents per (game slot, opponent index, spec): (the spec, its agent).
        self._built: dict[tuple[int, int, str], tuple[Any, Agent]] = {}
        self._labels: list[list[str]] = [["random"] * (p - 1) for _ in range(n)]
        self._final_outcomes: list[Outcome | None] = [None] * n
        self._to_restart = np.zeros(n, bool)  # NEXT_STEP: games that ended on the last step
        self._started = False
        self.episodes = 0  # games finished since construction

    # ---- opponents ------------------------------------------------------------------------
    def _check_opponents(self, opponents: Any) -> Any:
        others = self.num_players - 1
        if callable(opponents) and not isinstance(opponents, Agent):
            return opponents  # a sampler, checked at each draw
        if opponents is None or isinstance(opponents, (str, Agent, Mapping)):
            specs = [opponents] * others
        elif isinstance(opponents, Sequence):
            specs = list(opponents)
        else:
            raise TypeError(f"opponents must be a spec, a list of specs or a sampler, "
                            f"got {opponents!r}")
        if len(specs) != others:
            raise ValueError(f"give one opponent per other seat ({others}), got {len(specs)}")
        for spec in specs:
            self._kind_of(spec)  # refuse a bad spec now
        return specs

    def set_opponents(self, opponents: Any) -> None:
        """Use these opponents (a spec, a list or a sampler) from each game's next episode."""
        self._opponents = self._check_opponents(opponents)

    def set_policy_fn(self, policy_fn: PolicyFn | None) -> None:
        """The batched policy of ``"policy"`` specs, from the next decision on."""
        self._policy_fn = policy_fn

    def _kind_of(self, spec: Any) -> int:
        if spec is None:
            return KIND_RANDOM
        if isinstance(spec, str) and spec in _NATIVE_KINDS:
            return _NATIVE_KINDS[spec]
        if isinstance(spec, str) and spec == "policy":
            return KIND_EXTERNAL
        if isinstance(spec, Agent):
            return KIND_EXTERNAL
        if callable(spec):
            return KIND_EXTERNAL
        if isinstance(spec, (str, Mapping)):
            from zavandor_env.agents.registry import parse_spec

            parse_spec(spec)  # AgentSpecError (a ValueError) for an unknown agent
            return KIND_EXTERNAL
        raise TypeError(f"an opponent must be None, 'random', 'heuristic', 'novice', 'naive', "
                        f"'planner', 'policy', a policy fn(obs, mask), an Agent or an agent "
                        f"spec, got {spec!r}")

    def _handler(self, fn: PolicyFn) -> int:
        key = id(fn)
        index = self._handler_index.get(key)
        if index is None or self._handlers[index] is not fn:
            self._handlers.append(fn)
            index = self._handler_index[key] = len(self._handlers) - 1
        return index

    def _draw(self, env: int) -> tuple[int, list[int]]:
        """Seat and kinds of env's next episode; records who answers its external seats."""
        p = self.num_players
        rng = self._rng
        seat = int(rng.integers(p)) if self.learner_seat is None else self.learner_seat
        specs = self._opponents(env, rng) if callable(self._opponents) else self._opponents
        if callable(self._opponents):
            specs = list(specs)
            if len(specs) != p - 1:
                raise ValueError(f"the opponent sampler must return one spec per other seat "
                                 f"({p - 1}), got {len(specs)}")
        kinds = [KIND_LEARNER] * p
        handler_ids = self._handler_id[env]
        handler_ids[:] = 0
        agents = self._agents[env]
        for s in range(p):
            agents[s] = None
        labels = self._labels[env]
        for k, spec in enumerate(specs):
            s = (seat + 1 + k) % p
            kind = self._kind_of(spec)
            kinds[s] = kind
            labels[k] = (spec if isinstance(spec, str) else
                         str(getattr(spec, "name", None) or getattr(spec, "__name__", "policy")))
            if kind != KIND_EXTERNAL:
                if spec is None:
                    labels[k] = "random"
                continue
            if isinstance(spec, str) and spec == "policy":
                if self._policy_fn is None:
                    raise ValueError("a 'policy' opponent needs policy_fn (constructor or "
                                     "set_policy_fn)")
                handler_ids[s] = self._handler(self._policy_slot)
            elif isinstance(spec, Agent) or isinstance(spec, (str, Mapping)):
                agent = self._build_agent(env, k, spec)
                agent.reset(s, p, int(rng.integers(2**31)))
                agents[s] = agent
                handler_ids[s] = _AGENT
            else:
                handler_ids[s] = self._handler(spec)
        return seat, kinds

    def _build_agent(self, env: int, k: int, spec: Any) -> Agent:
        """The agent of opponent ``k`` of game ``env`` for ``spec``: built from a spec string
        or mapping, or a copy of a given :class:`Agent` (an agent plays one seat of one game
        at a time), made once per game slot and reused across its episodes."""
        key = (env, k, f"agent:{id(spec)}" if isinstance(spec, Agent) else repr(spec))
        cached = self._built.get(key)
        if cached is not None and (not isinstance(spec, Agent) or cached[0] is spec):
            return cached[1]
        if isinstance(spec, Agent):
            agent = deepcopy(spec)
        else:
            from zavandor_env.agents.registry import parse_spec

            agent = parse_spec(spec).build(int(self._rng.integers(2**31)))
        self._built[key] = (spec, agent)
        return agent

    # ---- episodes -------------------------------------------------------------------------
    def _start(self, env: int, game_seed: int | None = None) -> None:
        seat, kinds = self._draw(env)
        self._vec.reset_env(env, seat, kinds, game_seed)

    def _start_all(self, envs: Sequence[int]) -> None:
        """New games in ``envs`` (played up to their learner's first decision)."""
        todo = list(envs)
        for _ in range(_MAX_EMPTY_RESETS):
            for env in todo:
                self._start(env)
            self._resolve_pending()
            self._vec.status(self._status)
            todo = [env for env in todo if self._status[env] == DONE]
            if not todo:
                return
        raise RuntimeError("games keep ending before the learner decides")

    def _resolve_pending(self) -> None:
        """Answer every external decision, batched per policy, until none is pending."""
        vec = self._vec
        while True:
            m = vec.pending(self._penv, self._pseat)
            if m == 0:
                return
            obs, mask, actions = self._pobs[:m], self._pmask[:m], self._pact[:m]
            vec.observe_pending(obs, mask)
            ids = self._handler_id[self._penv[:m], self._pseat[:m]]
            first = ids[0]
            if first != _AGENT and (ids == first).all():
                actions[:] = _as_actions(self._handlers[first](obs, mask), m)
            else:
                for h in np.unique(ids):
                    sel = np.flatnonzero(ids == h)
                    if h == _AGENT:
                        for k in sel:
                            actions[k] = self._agent_action(int(self._penv[k]),
                                                            int(self._pseat[k]), obs[k], mask[k])
                    else:
                        actions[sel] = _as_actions(self._handlers[h](obs[sel], mask[sel]),
                                                   len(sel))
            vec.act_pending(actions)

    def _agent_action(self, env: int, seat: int, obs: np.ndarray, mask: np.ndarray) -> int:
        from zavandor_env.engine.state import GameState
        from zavandor_env.engine.view import PlayerView

        agent = self._agents[env][seat]
        assert agent is not None
        core = self._vec.core(env)
        state = GameState.from_dict(core.to_state_dict())
        observation = ({"observation": obs.copy(), "action_mask": mask.astype(np.int8)}
                       if agent.needs_observation else None)
        return int(agent.act(observation, PlayerView(state, seat), core.legal_actions()))

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
        illegal, last_obs = None, self._obs
        try:
            vec.step(buf)  # ValueError naming the game for an illegal action; nothing changed
        except ValueError:
            illegal = self._illegal_slots(buf)
            if illegal is None or self.illegal_action == "raise":
                raise
            last_obs = self._obs.copy()  # the games as the illegal actions found them
            self._unfinished_outcomes(illegal)
            buf[illegal] = self._mask[illegal].argmax(axis=1)  # stand-ins: games dropped
            vec.step(buf)
        self._resolve_pending()
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
        if illegal is not None:
            done &= ~illegal  # (the stand-in move may have ended that game: it is over anyway)
            rewards[illegal] = cfg.illegal_reward
        self._last_vp[:] = learner_vp
        ended = done if illegal is None else done | illegal
        if not ended.any():
            vec.observe(self._obs, self._mask)
            return (self._out_obs(), rewards.astype(np.float32), terminated, truncated,
                    self._running_info())
        # Every game's observation now: the finished ones' last (final_obs), the others'
        # current one (resetting the finished games does not touch them).
        vec.observe(self._obs, self._mask)
        if illegal is not None:
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

    def _illegal_slots(self, buf: np.ndarray) -> np.ndarray | None:
        """bool[N]: the slots whose learner action is illegal now (None if none)."""
        in_range = (buf >= 0) & (buf < NUM_ACTIONS)
        legal = in_range & self._mask[self._rows, np.where(in_range, buf, 0)]
        illegal = ~legal & ~self._to_restart
        return illegal if illegal.any() else None

    def _unfinished_outcomes(self, envs: np.ndarray) -> None:
        """Record the outcome of the unfinished games ``envs`` (bool[N]), ended by an illegal
        learner action now, before the native step moves them."""
        n, p = self.num_envs, self.num_players
        vp, eliminated = np.zeros((n, p), np.int32), np.zeros((n, p), np.bool_)
        rounds, decisions = np.zeros(n, np.int32), np.zeros(n, np.int32)
        self._vec.vp(vp)
        self._vec.eliminated(eliminated)
        self._vec.rounds(rounds)
        self._vec.decisions(decisions)
        for env in np.flatnonzero(envs).tolist():
            self._final_outcomes[env] = outcome_from_arrays(
                vp[env].tolist(), eliminated[env].tolist(), 0, False, False, int(rounds[env]),
                int(decisions[env]))

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
        return batched_running_info(self.action_masks(), self._seats, self.num_players)

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
                truncated: np.ndarray, illegal: np.ndarray | None) -> dict[str, Any]:
        """Final rewards, flags and infos of the games that just ended by the rules or a
        safety limit (``done``, bool[N]) or by an illegal learner action (``illegal``, their
        outcomes already recorded), in Gymnasium's vector-info layout (the contract's keys,
        ``_key`` masks true for the ended games)."""
        n, p = self.num_envs, self.num_players
        vec, cfg = self._vec, self.reward_config
        eliminated = np.zeros((n, p), np.bool_)
        winners, rounds, decisions = (np.zeros(n, np.int32) for _ in range(3))
        vec.eliminated(eliminated)
        vec.winners(winners)
        vec.terminated(terminated)
        vec.truncated(truncated)
        vec.rounds(rounds)
        vec.decisions(decisions)
        terminated &= done
        truncated &= done
        ended = done.copy()
        info = batched_values(self._mask, self._seats, p)
        vp, seats = self._vp.tolist(), self._seats.tolist()
        for env in np.flatnonzero(done).tolist():
            outcome = outcome_from_arrays(vp[env], eliminated[env].tolist(), winners[env],
                                          terminated[env], truncated[env], rounds[env],
                                          decisions[env])
            rewards[env] += cfg.final_rewards(outcome)[seats[env]]
            self._final_outcomes[env] = outcome
            fill_result(info, env, outcome)
        if illegal is not None:
            terminated |= illegal  # the episode ended (the game itself did not)
            ended |= illegal
            for env in np.flatnonzero(illegal).tolist():
                unfinished = self._final_outcomes[env]
                assert unfinished is not None  # recorded by _unfinished_outcomes
                fill_result(info, env, unfinished, illegal_action=True)
        info["action_mask"][ended] = 0
        info["action_mask"][ended, FINISHED_ACTION] = 1
        self.episodes += int(ended.sum())
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            # every slot's info (the running ones' too), all keys present
            return with_presence(info, np.ones(n, bool))
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

    def final_outcome(self, env: int) -> Outcome:
        """The :class:`~zavandor_env.engine.outcome.Outcome` of game slot ``env``'s last
        finished game (``ValueError`` before its first game ends)."""
        outcome = self._final_outcomes[env]
        if outcome is None:
            raise ValueError(f"game slot {env} has not finished a game yet")
        return outcome

    # ---- inspection -----------------------------------------------------------------------
    @property
    def seats(self) -> np.ndarray:
        """The learner's seat in each game (a copy)."""
        return self._seats.copy()

    @property
    def opponent_labels(self) -> list[list[str]]:
        """Who plays each opponent seat of each game (seat order after the learner)."""
        return [list(labels) for labels in self._labels]

    @property
    def native(self) -> Any:
        """The ``_native.VecLearner`` (game copies with ``.core(i)``, raw accessors)."""
        return self._vec

    def reset_game(self, env: int, game_seed: int, learner_seat: int | None = None,
                   opponents: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Restart game ``env`` with a fixed game seed (``Game.new(config, game_seed)``), for
        tests and reproductions; returns its first observation and mask.  ``learner_seat``
        and ``opponents`` (specs for this episode) override the env's settings once."""
        saved = (self.learner_seat, self._opponents)
        try:
            if learner_seat is not None:
                self.learner_seat = learner_seat
            if opponents is not None:
                self._opponents = self._check_opponents(opponents)
            seat, kinds = self._draw(env)
        finally:
            self.learner_seat, self._opponents = saved
        self._vec.reset_env(env, seat, kinds, game_seed)
        self._resolve_pending()
        self._started = True
        mask = np.zeros(self.num_envs, bool)
        mask[env] = True
        self._after_decision_point(mask)
        self._vec.observe_env(env, self._obs[env], self._mask[env])
        return self._obs[env].copy(), self._mask[env].copy()

    def close_extras(self, **kwargs: Any) -> None:
        for _spec, agent in getattr(self, "_built", {}).values():
            agent.close()


def make_vector_env(
    num_envs: int = 1,
    num_players: int = 2,
    opponents: Any = "novice",
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


class _PolicySlot:
    """The handler of ``"policy"`` specs: calls the env's current ``policy_fn``."""

    def __init__(self, env: ZavandorVectorEnv) -> None:
        self.env = env

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> Any:
        fn = self.env._policy_fn
        if fn is None:
            raise ValueError("a 'policy' opponent needs policy_fn (constructor or set_policy_fn)")
        return fn(obs, mask)


def _as_actions(out: Any, m: int) -> np.ndarray:
    actions = np.asarray(out)
    if actions.shape != (m,) and actions.size != m:
        raise ValueError(f"a policy returned {actions.shape} actions for {m} decisions")
    return actions.reshape(m)


# ---- benchmark ------------------------------------------------------------------------------
def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask`` (argmax of random scores)."""
    scores = rng.random(mask.shape)
    scores[~mask] = -1.0
    return scores.argmax(axis=1)


def _bench(num_players: int, num_envs: int, seconds: float, opponents: Any,
           seed: int, **options: Any) -> tuple[float, int, int, float, int, float]:
    env = ZavandorVectorEnv(num_envs, num_players, opponents=opponents, seed=seed, copy=False,
                            **options)
    rng = np.random.default_rng(seed)
    env.reset()
    steps = games = truncated = rounds = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(16):
            _obs, _rew, term, trunc, infos = env.step(_random_actions(env._mask, rng))
            steps += num_envs
            if "final_info" in infos:
                finished = infos["_final_info"]
                games += int(finished.sum())
                truncated += int(trunc.sum())
                rounds += int(np.asarray(infos["final_info"]["rounds"])[finished].sum())
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    env.close()
    return steps / elapsed, steps, games, truncated / games if games else 0.0, rounds, elapsed


def bench_vector(num_players: int, num_envs: int = 64, seconds: float = 3.0,
                 opponents: Any = "random", seed: int = 0, **options: Any) -> float:
    """Learner steps per second of :class:`ZavandorVectorEnv` (``num_envs`` games, uniformly
    random legal learner actions from the mask, ``opponents`` played natively, ``options``
    as the env's), measured for ``seconds`` in this process."""
    return _bench(num_players, num_envs, seconds, opponents, seed, **options)[0]


def bench_vector_row(num_players: int, num_envs: int = 64, seconds: float = 3.0,
                     opponents: Any = "random", seed: int = 0, **options: Any) -> Any:
    """:func:`bench_vector` as a ``zavandor bench`` row (with games, truncated share, rounds);
    rule ``options`` that differ from the rulebook's are named in the row."""
    from zavandor_env.bench.records import BenchRow

    rate, steps, games, trunc_share, rounds, elapsed = _bench(num_players, num_envs, seconds,
                                                              opponents, seed, **options)
    return BenchRow(
        name=f"vector env N={num_envs} vs {opponents} (native)"
             + "".join(f", {k}={v}" for k, v in sorted(options.items())),
        players=num_players, per_second=rate, unit="steps/s", games=games,
        truncated_share=trunc_share if games else None,
        rounds_per_game=rounds / games if games else None,
        per_game=steps / games if games else None, seconds=elapsed,
    )
