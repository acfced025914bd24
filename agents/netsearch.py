"""Search guided by a policy network: a determinized PUCT search (AlphaZero / Expert
Iteration style), run natively (``native/src/netmcts.cpp``; its header explains the
algorithm step by step).

Each iteration draws a determinization (a full game consistent with what the searching seat
knows, as the other searches of :mod:`~zavandor_env.agents.mcts`).  The tree holds only the
searching seat's decisions; the other seats' decisions are played in each determinization by
the network itself (sampled from its masked softmax at ``opponent_temperature``; 0: its
argmax).  A new node takes the network's masked softmax over the seat's observation as its
prior and the critic as its value: the critic estimates the training return (about -1 for a
loss, +1 for a win), mapped to a win estimate ``(v + 1) / 2`` in [0, 1]; a finished game
scores its real result (the seat's win share).  Optional short rollouts (``rollout``,
``rollout_steps``) play on before the critic is read.  Selection is PUCT,
``Q + c_puct * P * sqrt(N) / (1 + n)``, over the actions legal in the determinization (priors
renormalised over them), an unvisited action valued at its node's value less
``fpu_reduction``.  At the root, ``avoid_curse`` keeps to curse-free actions (as MCTSAgent),
Dirichlet noise (``root_noise`` = alpha, ``noise_fraction``) and a visit-count ``temperature``
serve self-play training; the move is the most visited root action.

The public API, used by :class:`~zavandor_env.agents.mcts.MCTSAgent` (``policy="network"``)
and by the expert-iteration trainer::

    from zavandor_env.agents.netsearch import NetworkSearch, SearchResult
    search = NetworkSearch(policy, iterations=200, root_noise=0.3)
    result = search.run(game, seat, seed)     # game: a native-backend Game
    result.action, result.visits, result.value, result.iterations

Budgets are MCTSAgent's: ``iterations``, or ``seconds`` (wall clock, overrides iterations;
the search returns within twice it), capped at ``MAX_ITERATIONS`` / ``MAX_SECONDS``.  For a
seed and an iteration budget the search is deterministic.  The network is evaluated in C++
(:func:`~zavandor_env.agents.policy_file.native_network`); the policy file's weights are
converted once per :class:`NetworkSearch`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from zavandor_env.agents.base import EngineUnavailableError
from zavandor_env.agents.heuristic import HeuristicWeights, native_weights, resolve_weights
from zavandor_env.agents.mcts import MAX_ITERATIONS, MAX_SECONDS, ROLLOUTS, budget
from zavandor_env.agents.policy_file import NumpyPolicy, PolicyFileError, native_network
from zavandor_env.encoding.observation import OBS_SIZE
from zavandor_env.engine import Game
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.io.params import Choice, Flag, Int, Number, Schema, check_params

#: The network of MCTSAgent(policy="network") without ``net``: the shipped policy of the game's
#: player count (``n``).
DEFAULT_NET = "train/checkpoints/selfplay_{n}p/policy.npz"
#: Decisions of one rollout before the critic is read.
MAX_ROLLOUT_STEPS = 100_000
#: What each parameter of :class:`NetworkSearch` allows (budgets capped as MCTSAgent's).
SEARCH_PARAMS: Schema = {
    "iterations": Int(low=1, high=MAX_ITERATIONS),
    "seconds": Number(low=0.0, high=MAX_SECONDS, open_low=True, optional=True),
    "c_puct": Number(low=0.0), "fpu_reduction": Number(low=-1.0, high=1.0),
    "root_noise": Number(low=0.0), "noise_fraction": Number(low=0.0, high=1.0),
    "temperature": Number(low=0.0), "opponent_temperature": Number(low=0.0),
    "rollout": Choice(options=ROLLOUTS), "rollout_steps": Int(low=0, high=MAX_ROLLOUT_STEPS),
    "avoid_curse": Flag(),
}


@dataclass(frozen=True)
class SearchResult:
    """One search's outcome for the deciding seat.

    Attributes:
        action: the move (the most visited allowed root action, or sampled by visit counts
            with a ``temperature`` > 0).
        visits: int32 ``[NUM_ACTIONS]``, the root visit counts (0 for unsearched actions).
        value: the root's mean value for the seat, a win estimate in [0, 1].
        iterations: iterations completed.
        q: float64 ``[NUM_ACTIONS]``, each visited root action's mean value for the seat (a
            win estimate in [0, 1]; 0 where unvisited): what expert iteration's
            ``completed_q`` target is built from.
    """

    action: int
    visits: np.ndarray
    value: float
    iterations: int
    q: np.ndarray | None = None


def native_search() -> Any:
    """The native module with the network search, or a one-line
    :class:`~zavandor_env.agents.base.EngineUnavailableError` naming what is missing."""
    from zavandor_env.engine import native

    if not native.native_available():
        raise EngineUnavailableError(f"the network search needs the native core "
                                     f"({native.native_status()})")
    return native.core_module()


class NetworkSearch:
    """A determinized PUCT search around a policy network (see the module docstring).

    Args:
        policy: the network: prior, leaf value (its critic; without one, the heuristic
            evaluation) and the model of the other seats.
        iterations: iterations per search (used when ``seconds`` is None).
        seconds: wall-clock budget per search (overrides ``iterations``).
        c_puct: PUCT exploration constant.
        fpu_reduction: an unvisited action is valued at its node's value less this.
        root_noise: Dirichlet alpha of the root noise (0: none; self-play training uses it).
        noise_fraction: weight of the noise in the root prior.
        temperature: the move is sampled from ``visits ** (1 / temperature)`` (0: the most
            visited).
        opponent_temperature: softmax temperature of the network playing the other seats
            (0: greedy).
        rollout: ``"none"`` (the critic at once), ``"network"`` or ``"heuristic"``: who
            plays ``rollout_steps`` decisions (every seat) before the critic is read.
        rollout_steps: the length of those rollouts, in decisions.
        avoid_curse: search without overbids and play only curse-free actions (MCTSAgent's
            ``avoid_curse``).
    """

    def __init__(self, policy: NumpyPolicy, *, iterations: int = 64,
                 seconds: float | None = None, c_puct: float = 1.5,
                 fpu_reduction: float = 0.1, root_noise: float = 0.0,
                 noise_fraction: float = 0.25, temperature: float = 0.0,
                 opponent_temperature: float = 1.0, rollout: str = "none",
                 rollout_steps: int = 0, avoid_curse: bool = True) -> None:
        if not isinstance(policy, NumpyPolicy):
            raise TypeError(f"policy must be a NumpyPolicy (load_policy), got "
                            f"{type(policy).__name__}")
        if policy.obs_dim != OBS_SIZE or policy.num_actions != NUM_ACTIONS:
            raise PolicyFileError(
                f"the network takes observations of size {policy.obs_dim} and has "
                f"{policy.num_actions} actions; this game has {OBS_SIZE} and {NUM_ACTIONS}")
        check_params("network search", SEARCH_PARAMS, {
            "iterations": iterations, "seconds": seconds, "c_puct": c_puct,
            "fpu_reduction": fpu_reduction, "root_noise": root_noise,
            "noise_fraction": noise_fraction, "temperature": temperature,
            "opponent_temperature": opponent_temperature, "rollout": rollout,
            "rollout_steps": rollout_steps, "avoid_curse": avoid_curse})
        self.policy, self.iterations, self.seconds = policy, iterations, seconds
        self.c_puct, self.fpu_reduction = float(c_puct), float(fpu_reduction)
        self.root_noise, self.noise_fraction = float(root_noise), float(noise_fraction)
        self.temperature = float(temperature)
        self.opponent_temperature = float(opponent_temperature)
        self.rollout, self.rollout_steps, self.avoid_curse = rollout, rollout_steps, avoid_curse
        self.weights: HeuristicWeights = resolve_weights(None)
        self.last_profile: dict[str, float] | None = None
        self.module = native_search()
        self._network = native_network(policy)
        self._native_weights = native_weights(self.weights)

    def params(self) -> dict[str, Any]:
        """The native search's parameters (``netmcts_search``)."""
        keys = [key for key in SEARCH_PARAMS if key not in ("iterations", "seconds")]
        return {**{key: getattr(self, key) for key in keys},
                **budget(self.iterations, self.seconds)}

    def run(self, game: Game, seat: int, seed: int, legal: list[int] | None = None,
            profile: bool = False) -> SearchResult:
        """Search the decision of ``seat`` (the deciding player) of ``game``.

        Args:
            game: a native-backend game with a decision pending; it is only read.
            seat: the deciding seat.
            seed: an integer in [0, 2**64): seeds determinizations, opponents' samples and
                the root noise.
            legal: the actions the search may choose (default: all legal ones).
            profile: time the parts of the search (``last_profile``: seconds spent in
                determinization, observation encoding, forward passes and the rules).
        """
        core = game.native_core
        if core is None:
            raise ValueError("the network search runs on native games only "
                             "(a Game, not an OracleGame)")
        if game.is_over:
            raise ValueError("the game is over: no decision is pending")
        if seat != game.current_player:
            raise ValueError(f"seat {seat} is not the deciding player {game.current_player}")
        actions = list(game.legal_actions()) if legal is None else list(legal)
        return self.run_core(core, seat, actions, seed, profile)

    def run_core(self, core: Any, seat: int, legal: list[int], seed: int,
                 profile: bool = False) -> SearchResult:
        """:meth:`run` on a native ``Core`` (``_native.Core``) and the actions allowed."""
        if type(seed) is not int or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
        params = self.params()
        if profile:
            params["profile"] = True
        action, visits, value, done, q = self.module.netmcts_search(
            core, seat, list(legal), self._network, params, self._native_weights, seed)
        if profile:
            self.last_profile = dict(self.module._netmcts_profile())
        return SearchResult(action=int(action), visits=visits, value=float(value),
                            iterations=int(done), q=q)

    def network_choice(self, core: Any, seat: int, legal: Sequence[int]) -> int:
        """The network's own choice for ``seat`` of ``core``: its best legal logit."""
        obs = np.empty(OBS_SIZE, np.float32)
        self.module.observe(core, seat, obs)
        logits, _ = self._network.forward(obs)
        return max(legal, key=lambda a: float(logits[a]))


# Loaded policies by path, for MCTSAgent(policy="network"): one NumpyPolicy per file.
_POLICIES: dict[str, NumpyPolicy] = {}
#: Policies kept loaded per process (each snapshot of a 4-player network is about 1 MB).
MAX_CACHED_POLICIES = 64
_LOCK = threading.Lock()


def cached_policy(path: str) -> NumpyPolicy:
    """The policy file at ``path`` through :func:`load_policy` (so a hostile file is one
    :class:`PolicyFileError` line), loaded once per path.  The cache is bounded: a long
    self-play run keeps adding snapshots to its pool and drops old ones."""
    from zavandor_env.agents.policy_file import load_policy

    with _LOCK:
        policy = _POLICIES.get(path)
        if policy is None:
            if len(_POLICIES) >= MAX_CACHED_POLICIES:
                _POLICIES.clear()
            policy = load_policy(path, obs_dim=OBS_SIZE, num_actions=NUM_ACTIONS)
            _POLICIES[path] = policy
        return policy


__all__ = ["DEFAULT_NET", "MAX_ITERATIONS", "MAX_SECONDS", "ROLLOUTS", "SEARCH_PARAMS",
           "NetworkSearch", "SearchResult", "cached_policy"]
