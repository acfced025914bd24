"""Seeded play policies for tests (not agents: they exist to drive the engine through games).

Two policies, because they exercise different parts of the rules:

* :class:`UniformPolicy` picks uniformly among the legal actions.  Its players sell gems and
  overbid until they sit in auction debts, so the economy collapses and games almost always
  end at the ``max_rounds`` truncation -- good for odd corners (debts, empty hands, selling).
* :class:`ThriftyPolicy` rarely sells or deactivates, favours buying gems and never opens or
  raises an auction it could not pay from its liquid energy, so the economy grows and games
  reach the real end (>= 5 sentinels) in a few dozen rounds -- good for late-game rules
  (sentinels, level 4, concentrated cards, deck reshuffles, phase-4 scoring).

Both are deterministic functions of their seed and the game, so a test run is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from zavandor_env.engine import Game, GameConfig, Phase
from zavandor_env.engine.actions import (
    ACTIVATE,
    BID,
    BID_RAISES,
    BUY_CHIP,
    BUY_GEM,
    DEACTIVATE,
    END_BLOCK,
    END_TURN,
    OPEN_ARTIFACT,
    OPEN_SENTINEL,
    PASS,
    SELL_GEM,
)
from zavandor_env.engine.queries import active_slots, item_min_bid, item_price, liquid
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL

Policy = Callable[[Game], int]


class UniformPolicy:
    """Uniformly random over the legal actions."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, game: Game) -> int:
        legal = game.legal_actions()
        return legal[int(self.rng.random() * len(legal))]


class ThriftyPolicy:
    """Random play that keeps the economy healthy (see the module docstring).

    * turn: buys a gem when it can (the dearest one more often), activates inactive gems,
      sometimes buys chips and levels, opens an auction only when the price at the minimum
      bid is covered by its liquid energy, sells/deactivates with small probability;
    * bidding: raises only to a bid whose price its liquid energy covers, else passes;
    * other decisions (debt, free level, lost gem): uniform.
    """

    def __init__(self, seed: int, sell_prob: float = 0.02, bid_prob: float = 0.5) -> None:
        self.rng = random.Random(seed)
        self.sell_prob = sell_prob
        self.bid_prob = bid_prob

    def __call__(self, game: Game) -> int:
        legal = game.legal_actions()
        phase = game.phase
        if phase == Phase.TURN:
            return self._turn(game, legal)
        if phase == Phase.BID:
            return self._bid(game, legal)
        return legal[int(self.rng.random() * len(legal))]

    def _turn(self, game: Game, legal: tuple[int, ...]) -> int:
        rng = self.rng
        state = game.state
        player = state.players[game.turn_player]
        cash = liquid(player)
        buys = [a for a in legal if BUY_GEM <= a < SELL_GEM]
        activations = [a for a in legal if ACTIVATE <= a < DEACTIVATE]
        if activations:
            return rng.choice(activations)
        # Only buy while a slot is free: inactive gems produce nothing and drain the energy
        # that auctions (and so the game end) need.
        if buys and sum(player.active) < active_slots(player) and rng.random() < 0.85:
            # Later entries are dearer gems; weight them up so the economy grows.
            return rng.choices(buys, weights=range(1, len(buys) + 1))[0]
        openings = [
            a for a in legal if OPEN_ARTIFACT <= a < BID and self._affordable_opening(game, a, cash)
        ]
        if openings and rng.random() < 0.5:
            return rng.choice(openings)
        knowledge = [a for a in legal if BUY_CHIP <= a < OPEN_ARTIFACT]
        if knowledge and rng.random() < 0.4:
            return rng.choice(knowledge)
        risky = [a for a in legal if SELL_GEM <= a < ACTIVATE or DEACTIVATE <= a < BUY_CHIP]
        if risky and rng.random() < self.sell_prob:
            return rng.choice(risky)
        if END_BLOCK in legal and rng.random() < 0.1:
            return END_BLOCK
        return END_TURN

    @staticmethod
    def _affordable_opening(game: Game, action: int, cash: int) -> bool:
        state = game.state
        player = state.players[game.turn_player]
        if action < OPEN_SENTINEL:
            kind, item = ITEM_ARTIFACT, action - OPEN_ARTIFACT
        else:
            kind, item = ITEM_SENTINEL, action - OPEN_SENTINEL
        return item_price(state, player, kind, item, item_min_bid(kind, item)) <= cash

    def _bid(self, game: Game, legal: tuple[int, ...]) -> int:
        state = game.state
        player = state.players[game.current_player]
        cash = liquid(player)
        affordable = [
            a
            for a in legal
            if a != PASS
            and item_price(
                state,
                player,
                state.auction_kind,
                state.auction_item,
                state.high_bid + BID_RAISES[a - BID],
            )
            <= cash
        ]
        if PASS not in legal:  # opening bid: the opener must bid
            return affordable[0] if affordable else legal[0]
        if affordable and self.rng.random() < self.bid_prob:
            # Small raises mostly: a thrifty bidder does not jump the price.
            return affordable[0] if self.rng.random() < 0.7 else self.rng.choice(affordable)
        return PASS


POLICIES: dict[str, Callable[[int], Policy]] = {
    "uniform": UniformPolicy,
    "thrifty": ThriftyPolicy,
}


def play(
    game: Game,
    policy: Policy,
    on_decision: Callable[[Game], None] | None = None,
) -> list[int]:
    """Play ``game`` to its end with ``policy``; returns the decisions taken.

    ``on_decision`` (if given) is called before each decision, e.g. to check invariants.
    """
    actions: list[int] = []
    while not game.is_over:
        if on_decision is not None:
            on_decision(game)
        action = policy(game)
        game.apply(action)
        actions.append(action)
    return actions


def play_new(
    num_players: int, seed: int, kind: str = "thrifty", **options: object
) -> tuple[Game, list[int]]:
    """A new ``num_players`` game played to its end by policy ``kind`` seeded with ``seed``."""
    game = Game.new(GameConfig(num_players=num_players, **options), seed=seed)  # type: ignore[arg-type]
    actions = play(game, POLICIES[kind](seed))
    return game, actions
