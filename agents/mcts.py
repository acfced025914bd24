"""Monte Carlo search over determinized engine states: flat (the default) or IS-MCTS.

Both algorithms draw **determinizations**: full games consistent with what the searching
seat knows (:func:`zavandor_env.engine.determinize.determinize`: opponents' card values,
9-Sages cards and deck orders redrawn, generator reseeded, so the real draws stay unknown).

Both are built around a **scripted policy** (``policy``): the ``planner`` (the default),
``naive`` or the ``heuristic``.  Its choice is the prior, it decides what is not searched, and
it (or ``rollout``, another scripted player or ``"random"``) plays the rollouts -- so it is
also the search's model of the opponents.  The model matters: a search whose rollouts play
unlike its real opponents misjudges their auctions, which is why the planner, the strongest
scripted player, is the default (docs/benchmarks.md, "MCTS around the planner").

``algorithm="flat"`` (the default; a flat Monte Carlo / PIMC search around the policy):

1. Each determinization is played out once from **every** allowed root action (common random
   numbers: the same sample and the same generator for all of them, the policy's own choice
   first); after the root action every seat, the searching one included, plays the rollout
   policy -- to the end of the game with ``horizon_rounds=0``.  An iteration is one such
   playout.
2. The action with the best mean reward is played -- but only if it beats the policy's
   choice on the paired differences of the same samples by more than ``switch_z`` standard
   errors over at least ``min_pairs`` samples; otherwise the policy's choice stays.  This is
   one step of policy improvement over the policy, with the rollout policy as the model of the
   opponents, and it never leaves the policy's plan on noise: small budgets play like the
   policy, larger ones switch where the difference is clear.

``algorithm="tree"`` (single-observer IS-MCTS, Cowling, Powley & Whitehouse 2012, with UCT):

1. Each iteration draws a determinization.
2. **Selection** walks one tree shared by all determinizations; a node's children are
   actions, and only those legal in this determinization compete, by UCB1 with
   *availability* counts (how often the action was legal when its parent was visited).  With
   ``opponent_model="search"`` every seat's decisions are in the tree and each edge keeps the
   reward of the seat that chose it; with ``opponent_model="policy"`` only the searching
   seat's decisions are nodes and the other seats play the policy in every
   determinization.  ``max_depth`` > 0 caps the tree edges per iteration.
   The policy's own choice gets a progressive bias ``prior_weight / (n + 1)``, so small
   budgets fall back on the policy instead of on noise.
3. **Expansion** adds one untried action (the policy's first).
4. **Rollout** plays on with the rollout policy (``rollout``: a scripted player, by default
   the ``policy``, or ``"random"``: uniformly random legal actions) for every seat, and is
   **truncated** once ``horizon_rounds`` further round boundaries have passed (or the game
   ends).
5. The most visited root action is played.

**Evaluation** (both): a finished game scores half the win share (1 for each winner, shared)
and half a logistic of the VP margin over the best other seat; a truncated rollout scores each
seat by a logistic of its *evaluation* minus the best other seat's, where evaluation = current
VP + (expected income x remaining rounds x efficiency + liquid energy) / vp_energy -- the
heuristic's own exchange rate between energy and VP.  ``eval_scale`` VP of lead is worth about
0.73.

Why the flat search is the default: the tree search with truncated rollouts does not get
stronger with more iterations (the truncated evaluation ignores long-term investments and the
progressive bias fades), while the flat search with full rollouts plays like its policy at
small budgets and improves on it as the budget grows.  The earlier defaults stay reachable:
``MCTSAgent(policy="heuristic")`` and ``MCTSAgent(algorithm="tree", horizon_rounds=1,
policy="heuristic", no_ruin=False)`` (figures: docs/benchmarks-history.md).

``policy="network"`` (native only): the search is the network-guided PUCT search of
:mod:`~zavandor_env.agents.netsearch` (``native/src/netmcts.cpp``) around a policy file,
``net`` (default: the shipped ``train/checkpoints/selfplay_{n}p/policy.npz`` of the game's
player count, loaded once per path through ``load_policy``): the network is its prior, its
leaf value (the critic) and its model of the other seats; ``c_puct``,
``opponent_temperature``, ``fpu_reduction``, ``rollout`` (``"none"``, ``"network"`` or
``"heuristic"``) and ``rollout_steps`` are that search's (None: its defaults), the budgets
and ``avoid_curse``, ``no_ruin`` and ``search_all`` this agent's; decisions it does not search
are the network's best legal choice.  ``engine="python"`` is refused with one line.

Budget: ``iterations`` per decision, or ``seconds`` (whichever is given; seconds wins), at
most ``MAX_ITERATIONS`` or ``MAX_SECONDS``.  A timed search starts playouts while its budget
lasts (the first one always) and drops one still running at twice the budget, so it returns
within twice its budget plus the setup (the policy's choice when nothing completed); every
search stops at ``MAX_SECONDS``.  A sample in which no allowed root action is legal still
spends an iteration, and when none is legal in the searched game at all (an auction the seat
opened but cannot pay, under ``avoid_curse``) the policy decides without a search.  The
native search checks for Ctrl-C about every 10 ms (KeyboardInterrupt).
Decisions outside phase 3 and bidding (debts, lost gems, free levels) are left to the
policy when ``search_all`` is false, which saves most of the time for little loss.

Engines: the search runs in C++ (``engine="native"``: ``native/src/mcts.cpp``, the same
algorithms on the native rules engine and heuristic, much faster: docs/benchmarks.md) or in this
module (``engine="python"``, the readable reference).  The default takes the native search when
the extension is built with it.  The native search seeded with ``s`` makes the draws of this
module's search from ``random.Random(s)`` and gets the same root statistics (the native
determinizer only puts the hidden artifact deck in a canonical order before shuffling it, so
that no sample depends on that order); the agent seeds it from its own generator at each
decision.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from os import PathLike
from typing import TYPE_CHECKING, Any

from zavandor_env.engine import Game, GameConfig, Phase
from zavandor_env.engine.actions import BID, BID_RAISES, OPEN_ARTIFACT, OPEN_SENTINEL, PASS
from zavandor_env.engine.data import ARTIFACTS, SENTINEL_MIN_BID
from zavandor_env.engine.determinize import determinize
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL
from zavandor_env.engine.view import PlayerView
from zavandor_env.resources import data_path

from .base import Agent
from .heuristic import (
    ENGINES,
    GEM_INCOME,
    EngineUnavailableError,
    HeuristicWeights,
    choose,
    horizon,
    resolve_weights,
    spend_budget,
)
from .naive import naive_decision, safe_default
from .params_file import check_flags
from .planner import PlannerParams, native_planner_params, planner_decision, resolve_params
from .spec_params import check_agent_params

if TYPE_CHECKING:  # imported when used: the network search loads the observation module
    from .netsearch import NetworkSearch

_SEARCH_PHASES = (Phase.TURN, Phase.BID)
POLICIES = ("heuristic", "naive", "planner")
#: The largest budgets of one decision (the native search's MCTS_MAX_ITERATIONS and
#: MCTS_MAX_SECONDS): larger ones are refused, and no search runs longer than MAX_SECONDS.
MAX_ITERATIONS = 1_000_000
MAX_SECONDS = 3600.0


def native_search_module() -> Any:
    """The extension module when it is built with the native search, else None."""
    from zavandor_env.engine import native

    if not native.native_available():
        return None
    module = native.core_module()
    if not (hasattr(module, "mcts_search") and hasattr(module, "HeuristicWeights")):
        return None
    return module


class _Node:
    """A tree node: per action [visits, reward sum, availability, child node]."""

    __slots__ = ("edges",)

    def __init__(self) -> None:
        self.edges: dict[int, list[Any]] = {}


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    """One-line ``ValueError`` unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        options = " or ".join(repr(a) for a in allowed)
        raise ValueError(f"{name} must be {options}, got {value!r}")


def _check_count(name: str, value: object, minimum: int, maximum: int | None = None) -> None:
    """One-line ``ValueError`` unless ``value`` is an integer of at least ``minimum`` (and at
    most ``maximum``)."""
    if type(value) is not int or value < minimum:
        kind = "a positive integer" if minimum == 1 else "a non-negative integer"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {value!r}")


def _check_budget(iterations: object, seconds: object) -> None:
    """One-line ``ValueError`` unless the budget is within the caps: ``seconds`` a number in
    (0, MAX_SECONDS], or None and ``iterations`` an integer in [1, MAX_ITERATIONS]."""
    if seconds is None:
        _check_count("iterations", iterations, 1, MAX_ITERATIONS)
    elif (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
          or not 0 < seconds <= MAX_SECONDS):
        raise ValueError(f"seconds must be a number in (0, {MAX_SECONDS:g}], got {seconds!r}")


class _Clock:
    """When a Python search must stop (the native search's MctsSearch::must_stop).

    A timed search starts playouts until its budget is spent (the first one always) and
    drops a playout still running once the budget is spent and another has completed, or at
    twice the budget: it returns within twice its budget plus the setup.  Every search stops
    at MAX_SECONDS."""

    __slots__ = ("done", "hard", "soft")

    def __init__(self, seconds: float | None) -> None:
        start = time.perf_counter()
        self.soft = None if seconds is None else start + seconds
        self.hard = start + (MAX_SECONDS if seconds is None else min(2 * seconds, MAX_SECONDS))
        self.done = 0  # playouts completed

    def must_stop(self) -> bool:
        now = time.perf_counter()
        if now >= self.hard:
            return True
        return self.soft is not None and self.done > 0 and now >= self.soft


class MCTSAgent(Agent):
    """Flat Monte Carlo search or IS-MCTS around a scripted policy (planner, naive or
    heuristic); see the module docstring.  The defaults are the flat search around the planner
    with rollouts to the end of the game.

    Args:
        seed: seeds determinizations, rollouts and tie-breaks.
        iterations: iterations per decision (used when ``seconds`` is None).
        seconds: wall-clock budget per decision (overrides ``iterations``).
        policy: ``"network"``: the network-guided search (module docstring); otherwise
            the scripted player the search is built around -- ``"planner"`` (the
            shipped ``planner.yaml`` parameters), ``"naive"`` or ``"heuristic"`` (the default
            before 2026-12-01): its choice is the prior (flat: kept unless beaten
            significantly; tree: the progressive bias and the first expansion), it decides
            what is not searched (``search_all``), and with ``opponent_model="policy"`` it
            plays the other seats.
        rollout: who plays every seat in the rollouts: ``"heuristic"``, ``"naive"``,
            ``"planner"`` or ``"random"``; None (the default): the ``policy``.
        horizon_rounds: truncate rollouts after this many round boundaries (0: never, the
            default; the tree search used 1).
        c: UCB exploration constant (tree).
        prior_weight: progressive bias towards the policy's choice (tree).
        eval_scale: VP lead that maps to a win estimate of about 0.73.
        search_all: search every decision, not only phase-3 and bidding decisions.
        avoid_curse: never choose a bid or an opening it could not pay, even by selling every
            gem (under the rulebook's Curse of the 9 Sages such a move can end its game), and
            search as if nobody did: simulated players that curse themselves make the search
            expect opponents to throw their games away (docs/benchmarks-history.md, "design
            measurements behind the MCTS options").
        weights: heuristic weights (rollout policy and evaluation), as in HeuristicAgent.
        engine: ``"auto"`` (the default; None too): the C++ search when the extension
            provides it, else this module; ``"native"``: the C++ search (a one-line
            :class:`~.heuristic.EngineUnavailableError` without it); ``"python"``: this
            module (its rollouts and prior too).
        algorithm: ``"flat"`` (every root action played out from each determinization, the
            policy's choice kept unless beaten significantly) or ``"tree"`` (IS-MCTS).
        switch_z: flat: how many standard errors of the paired differences the best action's
            advantage over the policy's choice must exceed to replace it.
        min_pairs: flat: the fewest paired samples on which the policy's choice may be
            replaced.
        opponent_model: tree: ``"search"`` (every seat's decisions are tree nodes, chosen by
            UCB) or ``"policy"`` (only this seat's decisions are searched; the others play the
            policy in every determinization; ``"heuristic"`` is its old name, for the
            heuristic policy only).
        max_depth: tree: at most this many tree edges per iteration (0: unlimited).
        net: policy="network": the policy file (default: the shipped one of the game's
            player count).
        c_puct, opponent_temperature, fpu_reduction, rollout_steps: policy="network": the
            network search's parameters (agents/netsearch.py; None: its defaults); refused
            with any other policy.
        no_ruin: never choose a bid or an opening whose price exceeds what the seat can pay
            without selling an active gem (its hand plus its inactive gems), as the heuristic
            never does.  When the rollouts model the opponents wrongly (heuristic rollouts
            against players that let an auction go at the minimum, as naive and the planner
            do) a bid the rollouts expect to be outbid is won and paid by selling gems
            (docs/benchmarks-history.md, "MCTS no_ruin").
            None (the default): on around a scripted policy, off with ``policy="network"``,
            whose prior and opponent model are the network itself (there the filter only
            removes moves the network plays well: docs/benchmarks.md, "network-guided
            search").
    """

    name = "mcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 64,
        seconds: float | None = None,
        rollout: str | None = None,
        horizon_rounds: int = 0,
        c: float = 0.7,
        prior_weight: float = 1.0,
        eval_scale: float = 5.0,
        search_all: bool = False,
        avoid_curse: bool = True,
        weights: HeuristicWeights | Mapping[str, Any] | None = None,
        engine: str | None = "auto",
        algorithm: str = "flat",
        switch_z: float = 2.0,
        min_pairs: int = 4,
        opponent_model: str = "search",
        max_depth: int = 0,
        no_ruin: bool | None = None,
        policy: str = "planner",
        net: str | None = None,
        c_puct: float | None = None,
        opponent_temperature: float | None = None,
        fpu_reduction: float | None = None,
        rollout_steps: int | None = None,
    ) -> None:
        # The values only a search reads, against their declarations (agents/spec_params.py):
        # a bad c or eval_scale is one line now, not an error at the first searched decision.
        check_agent_params("mcts", {"c": c, "prior_weight": prior_weight,
                                    "eval_scale": eval_scale, "switch_z": switch_z,
                                    "horizon_rounds": horizon_rounds, "weights": weights,
                                    "net": net})
        super().__init__(seed)
        _check_choice("policy", policy, (*POLICIES, "network"))
        network_options = {"net": net, "c_puct": c_puct,
                           "opponent_temperature": opponent_temperature,
                           "fpu_reduction": fpu_reduction, "rollout_steps": rollout_steps}
        if policy == "network":
            from .netsearch import ROLLOUTS

            if engine == "python":
                raise ValueError("mcts: policy='network' runs natively only (the search and "
                                 "the network are C++); use engine=auto or engine=native")
            rollout = "none" if rollout is None else rollout
            _check_choice("rollout", rollout, ROLLOUTS)
            if net is not None and not isinstance(net, (str, PathLike)):
                raise ValueError(f"net must be a path to a policy .npz, got {net!r}")
        else:
            given = [k for k, v in network_options.items() if v is not None]
            if given:
                raise ValueError(f"mcts: {', '.join(given)} only apply with policy='network'")
            rollout = policy if rollout is None else rollout
            _check_choice("rollout", rollout, (*POLICIES, "random"))
        _check_choice("algorithm", algorithm, ("flat", "tree"))
        _check_choice("opponent_model", opponent_model, ("search", "policy", "heuristic"))
        if opponent_model == "heuristic" and policy != "heuristic":
            raise ValueError(f"opponent_model='heuristic' is the old name of 'policy' and "
                             f"means the heuristic; with policy={policy!r} say 'policy'")
        _check_budget(iterations, seconds)
        _check_count("max_depth", max_depth, 0)
        _check_count("min_pairs", min_pairs, 0)
        if no_ruin is None:  # see the argument's doc: on around a scripted policy only
            no_ruin = policy != "network"
        check_flags(search_all=search_all, avoid_curse=avoid_curse, no_ruin=no_ruin)
        self.iterations = iterations
        self.seconds = seconds
        self.rollout = rollout
        self.horizon_rounds = horizon_rounds
        self.c = c
        self.prior_weight = prior_weight
        self.eval_scale = eval_scale
        self.search_all = search_all
        self.avoid_curse = avoid_curse
        self.w = resolve_weights(weights)
        self.opponent_model = opponent_model
        self.max_depth = max_depth
        self.algorithm = algorithm
        self.switch_z = switch_z
        self.min_pairs = min_pairs
        self.no_ruin = no_ruin
        self.policy = policy
        self.planner: PlannerParams | None = (
            resolve_params(None) if "planner" in (policy, rollout) else None)
        self.net = None if net is None else str(data_path(net))
        # The network search's own parameters (None: NetworkSearch's defaults).
        self.network_params = {k: v for k, v in network_options.items()
                               if k != "net" and v is not None}
        self._net_searches: dict[str, NetworkSearch] = {}  # by policy path, built lazily
        if policy == "network":  # a bad parameter is a one-line error now, not at the 1st move
            from .netsearch import NetworkSearch

            NetworkSearch.check_params(rollout=rollout, avoid_curse=avoid_curse,
                                       iterations=iterations, seconds=seconds,
                                       **self.network_params)
            self._check_network()
        self.last_iterations = 0
        if engine is not None and engine not in ENGINES:
            raise ValueError(f"mcts: engine must be 'auto', 'native' or 'python', "
                             f"got {engine!r}")
        self._engine_asked = "auto" if engine is None else engine
        self._native: Any = None  # the extension module, when searching natively
        self._native_weights: Any = None  # _native.HeuristicWeights of _native_weights_of
        self._native_weights_of: HeuristicWeights | None = None
        self._native_planner: Any = None  # _native.PlannerParams of self.planner
        self._attach_native()

    def _check_network(self) -> None:
        """policy="network": the native network search exists and ``net`` (when given) loads,
        or one line now (the default network depends on the game's player count: it is loaded
        at the first decision, from the shipped files)."""
        from .netsearch import cached_policy, native_search

        native_search()
        if self.net is not None:
            cached_policy(self.net)

    def _attach_native(self) -> None:
        """Pick the engine (see ``engine``): the native search when asked or available."""
        self._native = None if self._engine_asked == "python" else native_search_module()
        if self._native is None and self._engine_asked == "native":
            from zavandor_env.engine import native_status

            raise EngineUnavailableError(
                f"mcts: engine='native' needs the native search, which is unavailable "
                f"({native_status()}; or the extension was built without mcts_search); "
                "use engine=python")
        self.engine = "native" if self._native is not None else "python"
        self._native_weights = self._native_weights_of = self._native_planner = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()  # the module and the native weights do not pickle
        state["_native"] = state["_native_weights"] = state["_native_weights_of"] = None
        state["_native_planner"] = None
        state["_net_searches"] = {}  # native networks do not pickle: rebuilt on demand
        state.pop("last_root", None)  # the last Python search tree: kept for tests only
        state.pop("last_result", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # An agent pickled before the flat search existed was a tree search.
        self.__dict__.update({"algorithm": "tree", "switch_z": 2.0, "min_pairs": 4,
                              "opponent_model": "search", "max_depth": 0,
                              "policy": "heuristic", "planner": None, "net": None,
                              "network_params": {}, "_net_searches": {}})
        self.__dict__.update(state)
        self._attach_native()

    def act(
        self,
        observation: dict[str, Any] | None,
        view: PlayerView,
        legal_actions: Sequence[int],
    ) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        if not self.search_all and view.phase not in _SEARCH_PHASES:
            return self._scripted(self.policy, view, legal_actions)
        if self.avoid_curse:
            legal_actions = curse_free(view, legal_actions)
        if self.no_ruin:
            legal_actions = within_budget(view, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        return self.search(view, legal_actions)

    def _scripted(self, who: str, view: PlayerView, legal_actions: Sequence[int]) -> int:
        """The choice of the scripted player ``who`` (a legal action; naive and the planner
        draw from this agent's generator, as the native search draws from its own)."""
        if who == "heuristic":
            return choose(view, legal_actions, self.w)
        if who == "network":  # outside the searched phases: the network's own best choice
            search = self.network_search(view.config.num_players)
            data = view._state.to_dict()
            data["history"] = []
            core = search.module.Core.from_state_dict(data)
            return search.network_choice(core, view.seat, legal_actions)
        if who == "naive":
            action = naive_decision(view, legal_actions, self.rng)
        else:
            assert self.planner is not None
            action = planner_decision(view, legal_actions, self.planner, self.rng)
        return action if action in legal_actions else safe_default(legal_actions)

    # ---- search -------------------------------------------------------------------------
    def search(self, view: PlayerView, legal_actions: Sequence[int]) -> int:
        """The searched choice among ``legal_actions`` (legal for the deciding seat)."""
        if self.policy == "network":
            return self._search_network(view, legal_actions)
        if self._native is not None:
            return self._search_native(view, legal_actions)
        if not self._searchable(view, legal_actions):
            # Every bid of an auction the seat opened but cannot pay is ruled out in the
            # searched game (avoid_curse): no sample would complete.  The policy decides.
            self.last_iterations = 0
            return self._scripted(self.policy, view, legal_actions)
        return self._search_python(view, legal_actions)

    def _searchable(self, view: PlayerView, legal_actions: Sequence[int]) -> bool:
        """Whether any of ``legal_actions`` is legal in the searched game (the real one,
        without overbids under ``avoid_curse``)."""
        if not (self.avoid_curse and view.config.allow_overbid):
            return True
        return not set(_legal_without_overbids(view)).isdisjoint(legal_actions)

    def _search_native(self, view: PlayerView, legal_actions: Sequence[int]) -> int:
        """The C++ search (native/src/mcts.cpp) on a core built from the view's state: the
        core holds the whole state, but the search takes only what the seat may know (it
        redraws everything hidden, as :func:`determinize` does)."""
        native = self._native
        if self._native_weights_of is not self.w:
            self._native_weights = native.HeuristicWeights(self.w.to_dict())
            self._native_weights_of = self.w
        params = {
            "rollout": self.rollout, "horizon_rounds": self.horizon_rounds, "c": self.c,
            "prior_weight": self.prior_weight, "eval_scale": self.eval_scale,
            "avoid_curse": self.avoid_curse, "opponent_model": self.opponent_model,
            "max_depth": self.max_depth, "algorithm": self.algorithm, "switch_z": self.switch_z,
            "min_pairs": self.min_pairs, "policy": self.policy,
        }
        if self.planner is not None:
            if self._native_planner is None:
                self._native_planner = native_planner_params(self.planner)
            params["planner"] = self._native_planner
        if self.seconds is None:
            params["iterations"] = self.iterations
        else:
            params["seconds"] = self.seconds
        data = view._state.to_dict()
        data["history"] = []  # a log the rules never read: not worth converting
        core = native.Core.from_state_dict(data)
        action, done = native.mcts_search(core, view.seat, list(legal_actions), params,
                                          self._native_weights, self.rng.getrandbits(64))
        self.last_iterations = done
        return action

    def network_search(self, num_players: int) -> NetworkSearch:
        """The network search this agent runs at ``num_players`` (policy="network"): around
        ``net``, by default the shipped policy of that player count, loaded once per path."""
        from .netsearch import DEFAULT_NET, NetworkSearch, cached_policy

        path = self.net or str(data_path(DEFAULT_NET.format(n=num_players)))
        search = self._net_searches.get(path)
        if search is None:
            params: dict[str, Any] = dict(self.network_params)
            params.update(rollout=self.rollout, avoid_curse=self.avoid_curse)
            if self.seconds is None:
                params["iterations"] = self.iterations
            else:
                params["seconds"] = self.seconds
            search = NetworkSearch(cached_policy(path), **params)
            self._net_searches[path] = search
        return search

    def _search_network(self, view: PlayerView, legal_actions: Sequence[int]) -> int:
        """The network-guided search (agents/netsearch.py) on a core built from the view's
        state (the search reads only what the seat may know)."""
        search = self.network_search(view.config.num_players)
        data = view._state.to_dict()
        data["history"] = []
        core = search.module.Core.from_state_dict(data)
        result = search.run_core(core, view.seat, list(legal_actions),
                                 self.rng.getrandbits(64))
        self.last_iterations = result.iterations
        self.last_result = result
        return result.action

    def _search_python(self, view: PlayerView, legal_actions: Sequence[int]) -> int:
        if self.algorithm == "flat":
            return self._search_flat(view, legal_actions)
        root = _Node()
        clock = _Clock(self.seconds)
        while not clock.must_stop() and (self.seconds is not None
                                         or clock.done < self.iterations):
            game = determinize(view, self.rng)
            if self.avoid_curse:
                game.state.config = _without_overbids(game.state.config)
            if not self._iterate(root, game, view.round, view.seat, clock):
                break
            clock.done += 1
        self.last_iterations = clock.done
        self.last_root = root  # for tests (the native search's twin: _native._mcts_root_stats)
        edges = root.edges
        legal = set(legal_actions)
        # Most visits wins, ties by the better mean (breaking ties towards the heuristic's
        # choice measured worse: docs/benchmarks-history.md).  An edge whose only playout was
        # dropped has no visit and never wins.
        best = max(
            (a for a in edges if a in legal and edges[a][0] > 0),
            key=lambda a: (edges[a][0], edges[a][1] / max(1, edges[a][0])),
            default=None,
        )
        return best if best is not None else self._scripted(self.policy, view, legal_actions)

    def _search_flat(self, view: PlayerView, legal_actions: Sequence[int]) -> int:
        """``algorithm="flat"``: every sample played out once from each root action (common
        random numbers), the policy's choice first; see the module docstring."""
        seat = view.seat
        state = view._state.clone()
        if self.avoid_curse:
            state.config = _without_overbids(state.config)
        searched = Game(state).legal_actions()  # none: search() decides without searching
        prior = self._scripted(self.policy, PlayerView(state, seat), searched) if searched else -1
        legal = list(legal_actions)
        order = [prior] if prior in legal else []
        order += [a for a in legal if a != prior]
        has_prior = bool(order) and order[0] == prior
        root = _Node()
        for a in order:
            root.edges[a] = [0, 0.0, 0, None]  # visits, reward sum, availability
        pairs = [0] * len(order)
        dsum = [0.0] * len(order)
        dsq = [0.0] * len(order)
        clock = _Clock(self.seconds)
        stop = False
        while not stop:
            sample = determinize(view, self.rng)
            if self.avoid_curse:
                sample.state.config = _without_overbids(sample.state.config)
            legal_here = set(sample.legal_actions())
            prior_reward = None
            played = False
            for k, a in enumerate(order):
                if clock.must_stop() or (self.seconds is None
                                         and clock.done >= self.iterations):
                    stop = True
                    break
                if a not in legal_here:
                    continue
                edge = root.edges[a]
                edge[2] += 1
                game = sample.clone()
                game.apply(a)
                views = [PlayerView(game.state, s) for s in range(game.num_players)]
                if not game.is_over and not self._rollout(game, views, view.round, clock):
                    stop = True  # dropped: out of time
                    break
                played = True
                r = self._evaluate(game, views)[seat]
                edge[0] += 1
                edge[1] += r
                if k == 0 and has_prior:
                    prior_reward = r
                elif prior_reward is not None:
                    d = r - prior_reward
                    pairs[k] += 1
                    dsum[k] += d
                    dsq[k] += d * d
                clock.done += 1
            # A sample in which no root action is legal still spends an iteration, so that
            # the budget ends (search() already decides when none is legal in any sample).
            if not played and not stop:
                clock.done += 1
        self.last_iterations = clock.done
        self.last_root = root
        best, best_mean = -1, 0.0
        for k, a in enumerate(order):
            visits, total = root.edges[a][0], root.edges[a][1]
            if visits == 0:
                continue
            mean = total / visits
            if best < 0 or mean > best_mean:
                best, best_mean = k, mean
        if best < 0:
            return order[0]
        if has_prior and best != 0 and root.edges[prior][0] > 0:
            # Keep the policy's choice unless the challenger's paired advantage over it is
            # significant (switch_z standard errors).
            m = pairs[best]
            switch = m > 0 and m >= self.min_pairs
            if switch:
                mean_d = dsum[best] / m
                var = max(0.0, (dsq[best] - m * mean_d * mean_d) / (m - 1)) if m > 1 else 0.0
                switch = mean_d > self.switch_z * math.sqrt(var / m) and mean_d > 0
            if not switch:
                best = 0
        return order[best]

    def _iterate(self, root: _Node, game: Game, root_round: int, root_seat: int = -1,
                 clock: _Clock | None = None) -> bool:
        """One tree iteration on the determinization ``game``; False if its rollout was
        dropped (``clock`` ran out)."""
        state = game.state
        n = game.num_players
        views = [PlayerView(state, s) for s in range(n)]
        path: list[tuple[list[Any], int]] = []  # (edge, seat that chose it)
        node = root
        # Selection and expansion (a dead end, which the rules never reach, ends it).
        while not game.is_over and game.legal_actions():
            seat = game.current_player
            legal = game.legal_actions()
            prior = self._scripted(self.policy, views[seat], legal)
            if self.opponent_model != "search" and seat != root_seat:
                game.apply(prior)  # the opponent model: no node
                continue
            if self.max_depth > 0 and len(path) >= self.max_depth:
                break
            edges = node.edges
            untried = [a for a in legal if a not in edges]
            for a in legal:
                if a in edges:
                    edges[a][2] += 1
            if untried:
                action = (prior if prior in untried
                          else untried[int(self.rng.random() * len(untried))])
                edge: list[Any] = [0, 0.0, 1, _Node()]
                edges[action] = edge
                path.append((edge, seat))
                game.apply(action)
                break
            action = self._select(edges, legal, prior)
            edge = edges[action]
            path.append((edge, seat))
            game.apply(action)
            node = edge[3]
        # Rollout.
        if not game.is_over and not self._rollout(game, views, root_round, clock):
            return False
        rewards = self._evaluate(game, views)
        for edge, seat in path:
            edge[0] += 1
            edge[1] += rewards[seat]
        return True

    def _select(self, edges: dict[int, list[Any]], legal: Sequence[int], prior: int) -> int:
        best, best_score = legal[0], -math.inf
        c, pw = self.c, self.prior_weight
        for a in legal:
            visits, total, avail, _ = edges[a]
            score = total / visits + c * math.sqrt(math.log(max(avail, 1)) / visits)
            if a == prior:
                score += pw / (visits + 1)
            if score > best_score:
                best, best_score = a, score
        return best

    def _rollout(self, game: Game, views: list[PlayerView], root_round: int,
                 clock: _Clock | None = None) -> bool:
        """Play ``game`` on to the horizon or the end; False if it was dropped (``clock``
        ran out).  A position without a legal action (the rules never reach one) ends it,
        scored like a truncated rollout."""
        state = game.state
        stop_round = root_round + self.horizon_rounds if self.horizon_rounds > 0 else None
        scripted = self.rollout != "random"
        rng = self.rng
        while not game.is_over:
            if stop_round is not None and state.round > stop_round:
                return True
            legal = game.legal_actions()
            if not legal:
                return True
            if clock is not None and clock.must_stop():
                return False
            if scripted:
                action = self._scripted(self.rollout, views[game.current_player], legal)
            else:
                action = legal[int(rng.random() * len(legal))]
            game.apply(action)
        return True

    def _evaluate(self, game: Game, views: list[PlayerView]) -> list[float]:
        n = game.num_players
        if game.terminated:
            # Half the win itself, half the VP margin: a margin separates good lines from
            # lucky ones far better than 0/1 over few iterations.
            winners = game.winners()
            share = 1.0 / len(winners) if winners else 0.0
            values = [float(v) for v in game.scores()]
            win = [share if s in winners else 0.0 for s in range(n)]
        else:
            values = [evaluate_seat(v, self.w) for v in views]
            win = None
        out = []
        for s in range(n):
            best_other = max(values[o] for o in range(n) if o != s)
            z = max(-50.0, min(50.0, (values[s] - best_other) / self.eval_scale))
            margin = 1.0 / (1.0 + math.exp(-z))
            out.append(margin if win is None else 0.5 * (win[s] + margin))
        return out


@lru_cache(maxsize=32)
def _without_overbids(config: GameConfig) -> GameConfig:
    return config if not config.allow_overbid else replace(config, allow_overbid=False)


def curse_free(view: PlayerView, legal_actions: Sequence[int]) -> list[int]:
    """The seat's legal actions that cannot get it cursed: those the affordability filter
    (``allow_overbid=False``) allows, which depend only on the seat's own hand and gems and on
    public prices.  All of them if the filter would leave none (it never does: passing or
    opening at the minimum one can pay stays)."""
    if not view.config.allow_overbid:
        return list(legal_actions)
    safe = set(_legal_without_overbids(view))
    return [a for a in legal_actions if a in safe] or list(legal_actions)


def _legal_without_overbids(view: PlayerView) -> tuple[int, ...]:
    """The seat's legal actions under the affordability filter (``allow_overbid=False``):
    its own decision, so its own hand is what counts."""
    state = view._state.clone()
    state.config = _without_overbids(state.config)
    return Game(state).legal_actions()


def within_budget(view: PlayerView, legal_actions: Sequence[int]) -> list[int]:
    """The seat's legal actions less the bids and openings whose price exceeds its hand plus
    the sale value of its inactive gems (what it can pay without selling an active gem).  All
    of them if that would leave none (passing, or an opening it cannot afford otherwise)."""
    budget = spend_budget(view)
    seat = view.seat
    keep = []
    for a in legal_actions:
        if OPEN_ARTIFACT <= a < OPEN_SENTINEL:
            item = a - OPEN_ARTIFACT
            price = view.price(seat, ITEM_ARTIFACT, item, ARTIFACTS[item].min_bid)
        elif OPEN_SENTINEL <= a < BID:
            price = view.price(seat, ITEM_SENTINEL, a - OPEN_SENTINEL, SENTINEL_MIN_BID)
        elif BID <= a < PASS and view.phase == Phase.BID:
            price = view.price(seat, view.auction_kind, view.auction_item,
                               view.high_bid + BID_RAISES[a - BID])
        else:
            price = 0
        if price <= budget:
            keep.append(a)
    return keep or list(legal_actions)


def evaluate_seat(view: PlayerView, w: HeuristicWeights) -> float:
    """Heuristic worth of a seat in VP: VP now plus its economy converted at ``vp_energy``."""
    me = view.me
    if me.eliminated:
        return -1e6
    r = max(0.0, horizon(view, w) - 1)
    active = me.active
    arts = me.artifacts
    income = sum(GEM_INCOME[g] * active[g] for g in range(5))
    income += GEM_INCOME[2] * arts[5] + GEM_INCOME[4] * arts[9]  # Crystal of Protection, Chalice
    energy = income * r * w.income_efficiency + max(0, me.liquid) * 0.5
    return me.current_vp + energy / w.vp_energy


__all__ = ["ENGINES", "MAX_ITERATIONS", "MAX_SECONDS", "MCTSAgent", "curse_free", "evaluate_seat",
           "native_search_module", "within_budget"]
