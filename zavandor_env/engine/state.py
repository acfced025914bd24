"""Mutable game state with a fast, independent ``clone`` and a plain-data form.

The state is deliberately mutable (OpenSpiel's choice): rules change it in place and search
clones it.  Profiling showed that rebuilding frozen dataclasses on every decision would cost
more than the whole rules step.  Nothing derived is cached here except what the rules need to
remember (e.g. VP as scored at the last phase 4, which drives turn order).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from zavandor_env.engine.config import GameConfig
from zavandor_env.engine.data import (
    ARTIFACTS,
    NUM_ARTIFACT_TYPES,
    NUM_CHIPS,
    NUM_COLOURS,
    NUM_FIELDS,
    NUM_GEMS,
    NUM_TOKENS,
    SENTINELS,
)


class Phase(IntEnum):
    """What kind of decision the game is waiting for."""

    TURN = 0  # the turn player's activities (phase 3): gems, knowledge, auctions, end turn
    BID = 1  # an auction bidder raises or passes
    DEBT = 2  # an auction winner lacking energy sells gems until the price is covered
    FREE_LEVEL = 3  # a Runestone/Mask/Talisman owner chooses the field of a free level
    LOSE_GEM = 4  # a Mirror/Cloak victim chooses which active gem to return
    GAME_OVER = 5
    # Phase 4 is scored and the game goes on; the next round's phases 1-2 wait.  Nobody
    # decides here: ``Game`` continues at once unless asked to stop (``stop_at_round_end``).
    ROUND_END = 6


class Block(IntEnum):
    """The three action blocks of phase 3 (FAQ: each used at most once per turn)."""

    NONE = -1
    GEMS = 0
    KNOWLEDGE = 1
    AUCTION = 2


ITEM_ARTIFACT = 0
ITEM_SENTINEL = 1

#: One won auction as stored in ``GameState.purchases``: (round, seat, kind, item, bid, price).
PurchaseRecord = tuple[int, int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class Purchase:
    """One auction won and paid for (a cursed winner's cancelled auction is not one).

    Attributes:
        round: the round of the purchase.
        seat: the winner.
        kind: ``ITEM_ARTIFACT`` (0) or ``ITEM_SENTINEL`` (1).
        item: the artifact type (``data.Art``) or the sentinel (``data.Sen``).
        bid: the winning bid, as bid (before modifiers and discounts).
        price: the energy paid: the bid plus the turn-order modifier less every discount,
            floored at 0 (``queries.item_price``).
    """

    round: int
    seat: int
    kind: int
    item: int
    bid: int
    price: int

    @property
    def item_name(self) -> str:
        """The artifact's or sentinel's data-table name, e.g. ``"spellbook"``, ``"owl"``."""
        table = ARTIFACTS if self.kind == ITEM_ARTIFACT else SENTINELS
        return table[self.item].name


class PlayerState:
    """Everything one seat owns.  All counts; lists are indexed by the enums in ``data``."""

    __slots__ = (
        "seat", "character", "active", "inactive", "hand", "balance", "sages_tokens",
        "sages_dust", "levels", "chips_bought", "pentagon_chips", "artifacts", "sentinels",
        "vp", "gem_vp", "druid_ruby_used", "eliminated",
    )

    def __init__(self, seat: int, character: int) -> None:
        self.seat = seat
        self.character = character
        self.active = [0] * NUM_GEMS
        self.inactive = [0] * NUM_GEMS
        self.hand = [0] * NUM_TOKENS  # usable energy: card/concentrated/dust counts
        # Costs incurred this turn not yet paid (>0) or sale proceeds not yet taken (<0).
        # Settled at the end of the turn and when an auction is paid, which implements the
        # rulebook's combined payment of non-auction costs (and the FAQ's auction case;
        # docs/rules.md decision 3).
        self.balance = 0
        self.sages_tokens: list[int] = []  # 9-Sages cards under the turn-order card
        self.sages_dust = 0  # 9-Sages dust substitution, also usable only next round
        self.levels = [0] * NUM_FIELDS
        self.chips_bought = [False] * NUM_CHIPS
        self.pentagon_chips = 0  # bought (or free) chips not yet placed in a field
        self.artifacts = [0] * NUM_ARTIFACT_TYPES
        self.sentinels: list[int] = []
        self.vp = 0  # as scored at the last phase 4 (drives turn order)
        self.gem_vp = 0
        self.druid_ruby_used = False
        self.eliminated = False

    def clone(self) -> PlayerState:
        p = PlayerState.__new__(PlayerState)
        for name in PlayerState.__slots__:
            value = getattr(self, name)
            setattr(p, name, value[:] if type(value) is list else value)
        return p

    def to_dict(self) -> dict[str, Any]:
        return {name: _plain(getattr(self, name)) for name in PlayerState.__slots__}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerState:
        p = cls(data["seat"], data["character"])
        for name in PlayerState.__slots__:
            setattr(p, name, data[name])
        return p


class GameState:
    """The whole table: players, supplies, decks, round bookkeeping and the pending decision.

    ``turn_player`` is the seat whose phase-3 turn it is; ``current_player`` is the seat that
    must decide now (a bidder, a debtor, a Mirror victim...), which may differ.
    """

    __slots__ = (
        "config", "rng", "players", "round", "phase", "turn_order", "turn_index",
        "turn_player", "current_player", "block", "blocks_used", "paid_advance_done",
        "gems_activated", "gems_deactivated",
        "display", "artifact_deck", "artifact_auctioned", "sentinel_owner", "decks",
        "discards", "concentrated_supply", "gem_supply", "art_mod", "sen_mod", "auction_kind",
        "auction_item", "auction_opener", "high_bid", "high_bidder", "passed", "debtor",
        "debt_item_price", "free_levels", "victims", "terminated", "truncated",
        "num_decisions", "history", "purchases",
    )

    def __init__(self, config: GameConfig, rng: random.Random) -> None:
        self.config = config
        self.rng = rng
        self.players: list[PlayerState] = []
        self.round = 0
        self.phase = Phase.TURN
        self.turn_order: list[int] = []  # seats in order I, II, ...
        self.turn_index = 0
        self.turn_player = 0
        self.current_player = 0
        self.block = Block.NONE
        self.blocks_used = 0  # bit mask over Block values
        self.paid_advance_done = False
        # Gem kinds activated / deactivated this turn (bit masks): with the option
        # no_undo_activation a move is not undone within the turn, so turns stay finite.
        self.gems_activated = 0
        self.gems_deactivated = 0
        self.display: list[int] = []  # artifact types face up
        self.artifact_deck: list[int] = []  # top of the deck is the END of the list
        self.artifact_auctioned = False  # an artifact was auctioned this round
        self.sentinel_owner = [-1] * 9  # -1 available, -2 left the game with a cursed player
        self.decks: list[list[int]] = [[] for _ in range(NUM_COLOURS)]  # token ids, top = end
        self.discards: list[list[int]] = [[] for _ in range(NUM_COLOURS)]
        self.concentrated_supply = [0] * NUM_COLOURS
        self.gem_supply = [0] * NUM_GEMS
        # Per seat: turn-order price modifier on artifacts and on sentinels (set in phase 1).
        self.art_mod = [0] * config.num_players
        self.sen_mod = [0] * config.num_players
        # Auction in progress (auction_kind -1 when none).
        self.auction_kind = -1
        self.auction_item = -1
        self.auction_opener = -1
        self.high_bid = 0
        self.high_bidder = -1
        self.passed = 0  # bit mask over seats
        # Auction resolution in progress.
        self.debtor = -1
        self.debt_item_price = 0
        self.free_levels = 0  # free knowledge levels the winner still has to place
        self.victims: list[int] = []  # seats that still have to give up an active gem
        self.terminated = False
        self.truncated = False
        self.num_decisions = 0
        self.history: list[int] = []  # decisions applied through Game.apply (not forced ones)
        # Every auction won, in order (see Purchase): plain tuples, so recording one is an
        # append on the hot path and a copy is a shallow list copy.
        self.purchases: list[PurchaseRecord] = []

    def clone(self) -> GameState:
        """An independent copy; the random generator is copied too (same future draws)."""
        s = GameState.__new__(GameState)
        for name in GameState.__slots__:
            value = getattr(self, name)
            if type(value) is list:  # lists of ints, but the decks, discards and players
                value = [v[:] for v in value] if name in ("decks", "discards") else value[:]
            setattr(s, name, value)
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        s.rng = rng
        s.players = [p.clone() for p in self.players]
        return s

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form; ``from_dict(to_dict())`` continues the game identically."""
        data = {name: _plain(getattr(self, name)) for name in GameState.__slots__}
        data["config"] = self.config.to_dict()
        version, internal, gauss = self.rng.getstate()
        data["rng"] = [version, list(internal), gauss]
        data["players"] = [p.to_dict() for p in self.players]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        config = GameConfig.from_dict(data["config"])
        rng = random.Random()
        version, internal, gauss = data["rng"]
        rng.setstate((version, tuple(internal), gauss))
        s = cls(config, rng)
        for name in GameState.__slots__:
            if name not in ("config", "rng"):
                setattr(s, name, data[name])
        s.players = [PlayerState.from_dict(p) for p in data["players"]]
        s.phase = Phase(s.phase)
        s.block = Block(s.block)
        # JSON lists back to records (validation has checked each holds six integers).
        s.purchases = [(r, seat, kind, item, bid, price)
                       for r, seat, kind, item, bid, price in data["purchases"]]
        return s


def _plain(value: Any) -> Any:
    if isinstance(value, IntEnum):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
