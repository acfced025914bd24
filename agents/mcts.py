"""Monte Carlo search over determinized engine states: flat (the default) or IS-MCTS.

The search is implemented once, in C++ (``native/src/mcts.cpp``, around the native rules and
scripted players); :class:`MCTSAgent` holds its parameters, checks them, applies the agent's
own filters (``avoid_curse``, ``no_ruin``) and hands each searched decision to the native core.

Both algorithms draw **determinizations**: full games consistent with what the searching
seat knows (as :func:`zavandor_env.engine.determinize.determinize` samples them: opponents'
card values, 9-Sages cards and deck orders redrawn, generator reseeded, so the real draws stay
unknown).

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
are the network's best legal choice.

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

The agent seeds the native search from its own generator at each decision, so the same seed,
seat, game and iteration budget give the same decisions.  ``engine`` is accepted and ignored
(deprecated: the search has one implementation).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from zavandor_env.agents.base import Agent, decision_core, safe_default
from zavandor_env.agents.heuristic import HeuristicWeights, native_weights, resolve_weights
from zavandor_env.agents.planner import PlannerParams, native_planner_params, resolve_params
from zavandor_env.agents.spec_params import check_agent_params, drop_engine
from zavandor_env.engine import Phase
from zavandor_env.engine.actions import BID, BID_RAISES, OPEN_ARTIFACT, OPEN_SENTINEL, PASS
from zavandor_env.engine.data import ARTIFACTS, GEM_SALE_TABLE, SENTINEL_MIN_BID, Field
from zavandor_env.engine.native import core_module
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL
from zavandor_env.engine.view import PlayerView
from zavandor_env.io import limits
from zavandor_env.resources import data_path

if TYPE_CHECKING:  # imported when used: the network search loads the observation module
    from zavandor_env.agents.netsearch import NetworkSearch

_SEARCH_PHASES = (Phase.TURN, Phase.BID)
POLICIES = ("heuristic", "naive", "planner")
#: Who plays the rollouts of the network search (agents/netsearch.py).
ROLLOUTS = ("none", "network", "heuristic")
#: The largest budgets of one decision (the native search's MCTS_MAX_ITERATIONS and
#: MCTS_MAX_SECONDS): larger ones are refused, and no search runs longer than MAX_SECONDS.
MAX_ITERATIONS = limits.MAX_SEARCH_ITERATIONS
MAX_SECONDS = limits.MAX_SEARCH_SECONDS
#: What a pickled agent leaves out (native objects, rebuilt; the last network search's result).
_UNPICKLED = ("_native_w", "_native_planner", "_player", "_net_searches", "last_result")
#: The keys of the native search's parameters that are this agent's attributes.
_SEARCH_KEYS = ("rollout", "horizon_rounds", "c", "prior_weight", "eval_scale", "avoid_curse",
                "opponent_model", "max_depth", "algorithm", "switch_z", "min_pairs", "policy")


def budget(iterations: int, seconds: float | None) -> dict[str, Any]:
    """A search's budget as its native parameters: ``seconds`` when given, else
    ``iterations``."""
    return {"iterations": iterations} if seconds is None else {"seconds": seconds}


def _rollout(policy: str, rollout: str | None, opponent_model: str,
             network_options: dict[str, Any]) -> str:
    """The rollout player ``rollout`` stands for (None: the policy's), after one-line
    ``ValueError`` checks of what goes only with some policies (each value on its own is
    checked against its declaration, agents/spec_params.py)."""
    allowed: tuple[str, ...] = ROLLOUTS
    if policy == "network":
        rollout = rollout or "none"
    else:
        given = [k for k, v in network_options.items() if v is not None]
        if given:
            raise ValueError(f"mcts: {', '.join(given)} only apply with policy='network'")
        rollout, allowed = rollout or policy, (*POLICIES, "random")
    if rollout not in allowed:
        raise ValueError(f"rollout must be {' or '.join(map(repr, allowed))}, got {rollout!r}")
    if opponent_model == "heuristic" and policy != "heuristic":
        raise ValueError(f"opponent_model='heuristic' is the old name of 'policy' and "
                         f"means the heuristic; with policy={policy!r} say 'policy'")
    return rollout


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
        engine: ignored (deprecated; the search has one implementation, in C++).
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

    def __init__(self, seed: int | None = None, iterations: int = 64, seconds: float | None = None,
                 rollout: str | None = None, horizon_rounds: int = 0, c: float = 0.7,
                 prior_weight: float = 1.0, eval_scale: float = 5.0, search_all: bool = False,
                 avoid_curse: bool = True,
                 weights: HeuristicWeights | Mapping[str, Any] | None = None,
                 engine: str | None = None, algorithm: str = "flat", switch_z: float = 2.0,
                 min_pairs: int = 4, opponent_model: str = "search", max_depth: int = 0,
                 no_ruin: bool | None = None, policy: str = "planner", net: str | None = None,
                 c_puct: float | None = None, opponent_temperature: float | None = None,
                 fpu_reduction: float | None = None, rollout_steps: int | None = None) -> None:
        drop_engine("mcts", engine)
        # Every argument (all locals() holds yet) against its declaration (agents/spec_params.py):
        # a bad c or eval_scale is one line now, not an error at the first searched decision.
        check_agent_params("mcts", {k: v for k, v in locals().items()
                                    if k not in ("self", "__class__")})
        super().__init__(seed)
        network_options = {"net": net, "c_puct": c_puct,
                           "opponent_temperature": opponent_temperature,
                           "fpu_reduction": fpu_reduction, "rollout_steps": rollout_steps}
        self.rollout = _rollout(policy, rollout, opponent_model, network_options)
        if no_ruin is None:  # see the argument's doc: on around a scripted policy only
            no_ruin = policy != "network"
        self.iterations, self.seconds = iterations, seconds
        self.horizon_rounds, self.c, self.prior_weight = horizon_rounds, c, prior_weight
        self.eval_scale, self.search_all, self.avoid_curse = eval_scale, search_all, avoid_curse
        self.w = resolve_weights(weights)
        self.opponent_model, self.max_depth, self.algorithm = opponent_model, max_depth, algorithm
        self.switch_z, self.min_pairs, self.no_ruin = switch_z, min_pairs, no_ruin
        self.policy = policy
        self.planner: PlannerParams | None = (
            resolve_params(None) if "planner" in (policy, self.rollout) else None)
        self.net = None if net is None else str(data_path(net))
        # The network search's own parameters (None: NetworkSearch's defaults).
        self.network_params: dict[str, Any] = {
            k: v for k, v in network_options.items() if k != "net" and v is not None}
        self._net_searches: dict[str, NetworkSearch] = {}  # by policy path, built lazily
        if policy == "network":  # the core has the search and ``net`` loads, or one line now
            from zavandor_env.agents.netsearch import cached_policy, native_search

            native_search()
            if self.net is not None:  # (the default network is the player count's: later)
                cached_policy(self.net)
        self.last_iterations = 0
        self._build_native()

    def _build_native(self) -> None:
        """The native copies of the weights, the planner's parameters and the scripted policy
        as a player, seeded with a constant: the decisions it makes here (debts, lost gems,
        free levels: outside the searched phases) draw nothing."""
        module = core_module()
        self._native_w = native_weights(self.w)
        self._native_planner = (None if self.planner is None
                                else native_planner_params(self.planner))
        self._player = (module.NativePlanner(self._native_planner, 0)
                        if self.policy == "planner" else module.NativeNaive(0))

    def __getstate__(self) -> dict[str, Any]:
        # Native objects do not pickle: __setstate__ rebuilds them.
        return {key: value for key, value in self.__dict__.items() if key not in _UNPICKLED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _net_searches={})
        self._build_native()

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        core = decision_core(view)
        if not self.search_all and core.phase not in _SEARCH_PHASES:
            return self._scripted(core, view.seat, legal_actions)
        if self.avoid_curse:
            legal_actions = curse_free(view, legal_actions)
        if self.no_ruin:
            legal_actions = within_budget(view, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        return self.search(core, view.seat, legal_actions)

    def _scripted(self, core: Any, seat: int, legal_actions: Sequence[int]) -> int:
        """The policy's choice for a decision it does not search (a legal action)."""
        if self.policy == "network":  # the network's own best choice
            search = self.network_search(core.num_players)
            return search.network_choice(core, seat, legal_actions)
        if self.policy == "heuristic":
            action = core_module().heuristic_action(core, self._native_w)
        else:
            action = self._player.act(core)
        return action if action in legal_actions else safe_default(legal_actions)

    def search(self, core: Any, seat: int, legal_actions: Sequence[int]) -> int:
        """The searched choice among ``legal_actions`` for ``seat``, deciding in the native
        ``core`` (:func:`~zavandor_env.agents.base.decision_core`).  The core holds the whole
        state, but the search takes only what the seat may know (it redraws everything
        hidden)."""
        if self.policy == "network":
            return self._search_network(core, seat, legal_actions)
        params = {key: getattr(self, key) for key in _SEARCH_KEYS}
        params.update(budget(self.iterations, self.seconds))
        if self._native_planner is not None:
            params["planner"] = self._native_planner
        action, done = core_module().mcts_search(core, seat, list(legal_actions), params,
                                                 self._native_w, self.rng.getrandbits(64))
        self.last_iterations = done
        return int(action)

    def network_search(self, num_players: int) -> NetworkSearch:
        """The network search this agent runs at ``num_players`` (policy="network"): around
        ``net``, by default the shipped policy of that player count, loaded once per path."""
        from zavandor_env.agents.netsearch import DEFAULT_NET, NetworkSearch, cached_policy

        path = self.net or str(data_path(DEFAULT_NET.format(n=num_players)))
        search = self._net_searches.get(path)
        if search is None:
            search = NetworkSearch(cached_policy(path), rollout=self.rollout,
                                   avoid_curse=self.avoid_curse, **self.network_params,
                                   **budget(self.iterations, self.seconds))
            self._net_searches[path] = search
        return search

    def _search_network(self, core: Any, seat: int, legal_actions: Sequence[int]) -> int:
        """The network-guided search (agents/netsearch.py)."""
        search = self.network_search(core.num_players)
        result = search.run_core(core, seat, list(legal_actions), self.rng.getrandbits(64))
        self.last_iterations = result.iterations
        self.last_result = result
        return result.action


def curse_free(view: PlayerView, legal_actions: Sequence[int]) -> list[int]:
    """The seat's legal actions that cannot get it cursed: those the affordability filter
    (``allow_overbid=False``) allows, which depend only on the seat's own hand and gems and on
    public prices.  All of them if the filter would leave none (it never does: passing or
    opening at the minimum one can pay stays)."""
    core = view.native_core
    data = core.to_state_dict() if core is not None else view._state.to_dict()
    if not data["config"]["allow_overbid"]:
        return list(legal_actions)
    # The seat's own decision under the filter, so its own hand is what counts.
    data["config"]["allow_overbid"] = False
    data["history"] = []
    safe = set(core_module().Core.from_state_dict(data).legal_actions())
    return [a for a in legal_actions if a in safe] or list(legal_actions)


def within_budget(view: PlayerView, legal_actions: Sequence[int]) -> list[int]:
    """The seat's legal actions less the bids and openings whose price exceeds its hand plus
    the sale value of its inactive gems (what it can pay without selling an active gem).  All
    of them if that would leave none (passing, or an opening it cannot afford otherwise)."""
    me, seat = view.me, view.seat
    level = me.levels[Field.GEMSTONES]
    budget = me.liquid + sum(n * GEM_SALE_TABLE[g][level] for g, n in enumerate(me.inactive))
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


__all__ = ["MAX_ITERATIONS", "MAX_SECONDS", "POLICIES", "ROLLOUTS", "MCTSAgent", "budget",
           "curse_free", "within_budget"]
