"""Who plays the opponent seats of :class:`~zavandor_env.envs.vector.ZavandorVectorEnv`'s
games: the native kinds, batched policies and Python agents (the specs are described in
:mod:`zavandor_env.envs.vector`), drawn per episode and answered in batches."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from copy import deepcopy
from typing import Any

import numpy as np

from zavandor_env.encoding.observation import OBS_SIZE
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.agent import Agent
from zavandor_env.engine.native import core_module
from zavandor_env.envs.opponents import per_seat

KIND_LEARNER, KIND_RANDOM, KIND_HEURISTIC, KIND_EXTERNAL, KIND_NOVICE = -1, 0, 1, 2, 3
KIND_NAIVE, KIND_PLANNER, KIND_NETWORK, KIND_GREEDY_NETWORK = 4, 5, 6, 7
#: The opponent specs played natively (the bare names only: a spec with parameters is external).
NATIVE_KINDS = {"random": KIND_RANDOM, "heuristic": KIND_HEURISTIC, "novice": KIND_NOVICE,
                "naive": KIND_NAIVE, "planner": KIND_PLANNER}
_AGENT = -1  # handler id of a seat played by a Python Agent (one decision at a time)

#: A sampler of opponents: ``(env_index, rng) -> one spec per opponent seat``.
Sampler = Callable[[int, np.random.Generator], Sequence[Any]]
#: A batched policy: ``(obs float32[M, D], mask bool[M, A]) -> actions int[M]``.
PolicyFn = Callable[[np.ndarray, np.ndarray], Any]


class NetworkOpponent:
    """A policy network that plays an opponent seat inside the native core: at each of the
    seat's decisions the core encodes the seat's observation, evaluates the actor and samples
    an action from the softmax of its logits over the legal actions, with one draw of the game
    slot's own generator (or, ``greedy``, plays the legal action of the highest logit, the first
    of equal ones, as :class:`~zavandor_env.agents.policy.PolicyAgent` plays greedily).  No
    decision crosses into Python, so a frozen self-play snapshot costs about what a scripted
    bot costs.

    Args:
        policy: a :class:`~zavandor_env.agents.policy_file.NumpyPolicy` (or an already built
            ``_native.Network``) reading this game's observation and actions.
        name: the label of the seat (charts, ``opponent_labels``).
        greedy: play the most probable legal action instead of sampling.
    """

    def __init__(self, policy: Any, name: str = "network", greedy: bool = False) -> None:
        from zavandor_env.agents.policy_file import NumpyPolicy, native_network

        self.network = native_network(policy) if isinstance(policy, NumpyPolicy) else policy
        if not isinstance(self.network, core_module().Network):
            raise TypeError(f"NetworkOpponent takes a NumpyPolicy or a _native.Network, got "
                            f"{type(policy).__name__}")
        self.name = name
        self.greedy = greedy

    def __repr__(self) -> str:
        return f"NetworkOpponent({self.name!r}{', greedy=True' if self.greedy else ''})"


def native_weights(weights: Any) -> Any:
    """``heuristic_weights`` as a ``_native.HeuristicWeights`` (None: the agents' defaults,
    ``configs/agents/heuristic.yaml``, as ``HeuristicAgent()`` plays; resolved here because
    the native core does not import the agents layer)."""
    native = core_module()
    if isinstance(weights, native.HeuristicWeights):
        return weights
    from zavandor_env.agents.heuristic import resolve_weights  # None, weights or overrides

    return native.HeuristicWeights(resolve_weights(weights).to_dict())


def native_planner(params: Any) -> Any:
    """``planner_params`` as a ``_native.PlannerParams`` (None: the shipped parameters,
    ``configs/agents/planner.yaml``, as ``PlannerAgent()`` plays)."""
    native = core_module()
    if isinstance(params, native.PlannerParams):
        return params
    from zavandor_env.agents.planner import native_planner_params, resolve_params

    return native_planner_params(resolve_params(params))


def kind_of(spec: Any) -> int:
    """The native kind of one opponent spec (``KIND_EXTERNAL``: answered in Python); a bad
    spec is refused (``TypeError``, or the registry's ``AgentSpecError``)."""
    if spec is None:
        return KIND_RANDOM
    if isinstance(spec, NetworkOpponent):
        return KIND_GREEDY_NETWORK if spec.greedy else KIND_NETWORK
    if isinstance(spec, str) and spec in NATIVE_KINDS:
        return NATIVE_KINDS[spec]
    if (isinstance(spec, str) and spec == "policy") or callable(spec) or isinstance(spec, Agent):
        return KIND_EXTERNAL
    if isinstance(spec, (str, Mapping)):
        from zavandor_env.agents.registry import parse_spec

        parse_spec(spec)  # AgentSpecError (a ValueError) for an unknown agent
        return KIND_EXTERNAL
    raise TypeError(f"an opponent must be None, 'random', 'heuristic', 'novice', 'naive', "
                    f"'planner', 'policy', a policy fn(obs, mask), a NetworkOpponent, an Agent "
                    f"or an agent spec, got {spec!r}")


def _label(spec: Any) -> str:
    if spec is None:
        return "random"
    if isinstance(spec, str):
        return spec
    return str(getattr(spec, "name", None) or getattr(spec, "__name__", "policy"))


def _as_actions(out: Any, m: int) -> np.ndarray:
    actions = np.asarray(out)
    if actions.shape != (m,) and actions.size != m:
        raise ValueError(f"a policy returned {actions.shape} actions for {m} decisions")
    return actions.reshape(m)


class VectorSeats:
    """The opponents of ``num_envs`` games of ``num_players``: their specs (or a sampler),
    who answers each external seat this episode, and the buffers of pending decisions."""

    def __init__(self, num_envs: int, num_players: int, opponents: Any,
                 policy_fn: PolicyFn | None) -> None:
        n, p = num_envs, num_players
        self.num_players = p
        self.policy_fn = policy_fn
        self.specs = self.check(opponents)
        self.labels: list[list[str]] = [["random"] * (p - 1) for _ in range(n)]
        # Who answers each external seat: index into _handlers, or _AGENT.
        self._handler_id = np.zeros((n, p), np.int32)
        self._policy_slot = self._call_policy  # one object: its handler is found again
        self._handlers: list[PolicyFn | None] = [None]
        self._handler_index: dict[int, int] = {}
        self._agents: list[list[Agent | None]] = [[None] * p for _ in range(n)]
        # Python agents per (game slot, opponent index, spec): (the spec, its agent).
        self._built: dict[tuple[int, int, str], tuple[Any, Agent]] = {}
        # Pending decisions, written by the native side (no allocation per step).
        self._obs = np.zeros((n, OBS_SIZE), np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), np.bool_)
        self._env = np.zeros(n, np.int32)
        self._seat = np.zeros(n, np.int32)
        self._act = np.zeros(n, np.int64)

    def check(self, opponents: Any) -> Any:
        """``opponents`` as one spec per opponent seat (each checked now), or a sampler."""
        if callable(opponents) and not isinstance(opponents, Agent):
            return opponents  # a sampler, checked at each draw
        if not (opponents is None or isinstance(opponents, (str, Agent, Mapping, Sequence,
                                                            NetworkOpponent))):
            raise TypeError(f"opponents must be a spec, a list of specs or a sampler, "
                            f"got {opponents!r}")
        specs = per_seat(opponents, self.num_players - 1)
        for spec in specs:
            kind_of(spec)  # refuse a bad spec now
        return specs

    def _call_policy(self, obs: np.ndarray, mask: np.ndarray) -> Any:
        if self.policy_fn is None:
            raise ValueError("a 'policy' opponent needs policy_fn (constructor or set_policy_fn)")
        return self.policy_fn(obs, mask)

    def _handler(self, fn: PolicyFn) -> int:
        key = id(fn)
        index = self._handler_index.get(key)
        if index is None or self._handlers[index] is not fn:
            self._handlers.append(fn)
            index = self._handler_index[key] = len(self._handlers) - 1
        return index

    def draw(self, env: int, rng: np.random.Generator, learner_seat: int | None
             ) -> tuple[int, list[int], list[Any] | None]:
        """Seat, kinds and networks (one per seat, or None when no seat is a network) of
        game ``env``'s next episode; records who answers its external seats."""
        p = self.num_players
        seat = int(rng.integers(p)) if learner_seat is None else learner_seat
        specs = self.specs
        if callable(specs):
            specs = list(specs(env, rng))
            if len(specs) != p - 1:
                raise ValueError(f"the opponent sampler must return one spec per other seat "
                                 f"({p - 1}), got {len(specs)}")
        kinds = [KIND_LEARNER] * p
        handler_ids = self._handler_id[env]
        handler_ids[:] = 0
        agents = self._agents[env]
        agents[:] = [None] * p
        networks: list[Any] | None = None
        for k, spec in enumerate(specs):
            s = (seat + 1 + k) % p
            kinds[s] = kind = kind_of(spec)
            self.labels[env][k] = _label(spec)
            if kind in (KIND_NETWORK, KIND_GREEDY_NETWORK):
                networks = networks or [None] * p
                networks[s] = spec.network
            if kind != KIND_EXTERNAL:
                continue
            if isinstance(spec, str) and spec == "policy":
                handler_ids[s] = self._handler(self._policy_slot)
            elif isinstance(spec, (Agent, str, Mapping)):
                agent = agents[s] = self._build_agent(env, k, spec, rng)
                agent.reset(s, p, int(rng.integers(2**31)))
                handler_ids[s] = _AGENT
            else:
                handler_ids[s] = self._handler(spec)
        return seat, kinds, networks

    def _build_agent(self, env: int, k: int, spec: Any, rng: np.random.Generator) -> Agent:
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

            agent = parse_spec(spec).build(int(rng.integers(2**31)))
        self._built[key] = (spec, agent)
        return agent

    def resolve(self, vec: Any) -> None:
        """Answer every external decision of the native games ``vec``, batched per policy,
        until none is pending."""
        while True:
            m = vec.pending(self._env, self._seat)
            if m == 0:
                return
            obs, mask, actions = self._obs[:m], self._mask[:m], self._act[:m]
            vec.observe_pending(obs, mask)
            ids = self._handler_id[self._env[:m], self._seat[:m]]
            for h in np.unique(ids):  # one call per batched policy
                sel = np.flatnonzero(ids == h)
                if h != _AGENT:
                    actions[sel] = _as_actions(self._handlers[h](obs[sel], mask[sel]), len(sel))
                    continue
                for k in sel:
                    actions[k] = self._agent_action(vec, int(self._env[k]), int(self._seat[k]),
                                                    obs[k], mask[k])
            vec.act_pending(actions)

    def _agent_action(self, vec: Any, env: int, seat: int, obs: np.ndarray,
                      mask: np.ndarray) -> int:
        from zavandor_env.engine.state import GameState
        from zavandor_env.engine.view import PlayerView

        agent = self._agents[env][seat]
        assert agent is not None
        core = vec.core(env)
        state = GameState.from_dict(core.to_state_dict())
        observation = ({"observation": obs.copy(), "action_mask": mask.astype(np.int8)}
                       if agent.needs_observation else None)
        return int(agent.act(observation, PlayerView(state, seat), core.legal_actions()))

    def close(self) -> None:
        for _spec, agent in self._built.values():
            agent.close()
