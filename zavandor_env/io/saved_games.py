"""Validation of a saved game's plain data before it becomes a :class:`GameState`.

A saved game is user input: a file edited by hand, truncated or written by another version.
Loading it must fail with a clear message instead of yielding a state that crashes (or plays
wrongly) several decisions later.  Four layers:

1. **shape**: the same keys, value types and fixed list lengths as a fresh state of the same
   config (the fresh state serves as the template, so new fields need no extra code here);
2. **ranges**: every seat, item id, token, level and count within its domain;
3. **conservation**: gems, energy cards and concentrated cards add up to the box contents
   (this also bounds every count, so a huge number cannot exhaust memory later); the record
   of purchases names real seats and items, possible prices and ordered rounds;
4. **the pending decision**: the fields of an auction exist only in the phases that have one
   (BID, DEBT), the auction winner only while his purchase is resolved (DEBT, FREE_LEVEL,
   LOSE_GEM), victims only in LOSE_GEM, and each names what the rules need to go on (an
   auctioned artifact on display, a debt the winner can pay, a seat in the turn order).

What the box does not bound (dust, VP, bids, rounds, decisions) is bounded by the ceilings
below, documented in docs/rules.md ("Saved-game limits"): far above any real game, small
enough that payment search stays fast and no sum overflows the native core's ``int32``.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from types import SimpleNamespace
from typing import Any, Final

from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.config import GameConfig
from zavandor_env.engine.data import (
    ARTIFACTS,
    CARD_TOKENS,
    CHARACTERS,
    CONC_TOKEN0,
    CONCENTRATED_PER_COLOUR,
    COPIES_BY_PLAYERS,
    ENERGY_DECKS,
    GEM_SUPPLY,
    MAX_LEVEL,
    NUM_ARTIFACT_TYPES,
    NUM_CARD_TOKENS,
    NUM_CHIPS,
    NUM_COLOURS,
    NUM_GEMS,
    NUM_SENTINELS,
    POSITION_MODIFIER,
    SAGES_CARDS_PER_LEVEL,
    TOKEN_COLOUR,
)
from zavandor_env.engine.economy import hand_value
from zavandor_env.engine.names import ARTIFACT_NAMES, SENTINEL_NAMES
from zavandor_env.engine.queries import gems_sale_value, item_min_bid
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL, Phase
from zavandor_env.io.files import integers

# ---- ceilings of what the box does not bound (docs/rules.md, "Saved-game limits") ------------
# Measured over 1,000 seeded games (2-6 players, mixed uniform/thrifty/heuristic seats): at
# most 10 chits of one value in a hand, 55 nine-Sages dust, 137 VP, a bid of 697, round 46 and
# 856 decisions.
#: Dust chits of one value in one hand (rule decision 15: dust is unlimited).
MAX_DUST_CHITS: Final = 1_000
#: 9-Sages dust waiting under a turn-order card.
MAX_SAGES_DUST: Final = 1_000
#: VP totals (``vp``, ``gem_vp``).
MAX_VP: Final = 1_000
#: Energy amounts: a bid, a price, a running balance (either sign).
MAX_AMOUNT: Final = 100_000
# ``config.max_rounds`` and ``config.max_decisions`` (so a saved game's round, decision count
# and history, and the decisions a replay may hold) are bounded by GameConfig itself:
# MAX_ROUNDS and MAX_DECISIONS, imported from .config.
#: Every other int of a state (after its own bound) fits the native core's int32.
INT32_MAX: Final = 2**31 - 1

# Lists whose length varies during a game (their elements are plain ints).
_VARIABLE_LISTS = frozenset({"turn_order", "display", "artifact_deck", "sentinels",
                             "sages_tokens", "victims", "history", "deck"})
#: Items of each kind (``auction_kind``, a purchase's kind), and the largest turn-order
#: surcharge on their price.
_ITEMS = {ITEM_ARTIFACT: NUM_ARTIFACT_TYPES, ITEM_SENTINEL: NUM_SENTINELS}
_SURCHARGE = {kind: max(m[kind] for m in POSITION_MODIFIER) for kind in _ITEMS}
#: Words for a leaf of the wrong type, by the template's type.
_LEAF_WORDS = {bool: "true or false", int: "an integer", float: "a number or null"}


def _state_bounds(n: int, max_rounds: int, max_decisions: int) -> dict[str, tuple[int, int]]:
    """Inclusive bounds of every int (or int list) field of the state."""
    seat = (0, n - 1)
    seat_or_none = (-1, n - 1)
    item = (-1, NUM_ARTIFACT_TYPES - 1)
    return {
        "round": (1, max_rounds), "phase": (0, max(Phase)), "num_decisions": (0, max_decisions),
        "history": (0, NUM_ACTIONS - 1),
        "turn_index": seat, "turn_player": seat, "turn_order": seat, "victims": seat,
        "current_player": seat_or_none, "auction_opener": seat_or_none,
        "high_bidder": seat_or_none, "debtor": seat_or_none,
        "sentinel_owner": (-2, n - 1), "passed": (0, (1 << n) - 1),
        "block": (-1, 2), "blocks_used": (0, 7),
        "display": (0, item[1]), "artifact_deck": (0, item[1]), "auction_item": item,
        "auction_kind": (-1, 1),
        "concentrated_supply": (0, CONCENTRATED_PER_COLOUR), "gem_supply": (0, max(GEM_SUPPLY)),
        "art_mod": (-100, 100), "sen_mod": (-100, 100),
        "decks": (0, NUM_CARD_TOKENS - 1), "discards": (0, NUM_CARD_TOKENS - 1),
        "gems_activated": (0, (1 << NUM_GEMS) - 1), "gems_deactivated": (0, (1 << NUM_GEMS) - 1),
        "high_bid": (0, MAX_AMOUNT), "debt_item_price": (0, MAX_AMOUNT),
        "free_levels": (0, max(a.free_levels for a in ARTIFACTS)),
    }


#: 9-Sages cards wait under the turn-order card for one round: two per level entered.
_MOST_SAGES_CARDS: Final = SAGES_CARDS_PER_LEVEL * MAX_LEVEL

_PLAYER_BOUNDS: dict[str, tuple[int, int]] = {
    "seat": (0, INT32_MAX),  # equal to its index (checked below)
    "character": (0, len(CHARACTERS) - 1),
    "active": (0, max(GEM_SUPPLY)), "inactive": (0, max(GEM_SUPPLY)),
    # Cards and concentrated cards are bounded exactly by conservation; this bounds dust.
    "hand": (0, MAX_DUST_CHITS),
    "balance": (-MAX_AMOUNT, MAX_AMOUNT),
    "sages_tokens": (0, NUM_CARD_TOKENS - 1), "sages_dust": (0, MAX_SAGES_DUST),
    "levels": (0, MAX_LEVEL), "pentagon_chips": (0, NUM_CHIPS),
    "artifacts": (0, max(COPIES_BY_PLAYERS.values())), "sentinels": (0, NUM_SENTINELS - 1),
    "vp": (0, MAX_VP), "gem_vp": (0, MAX_VP),
}


@lru_cache(maxsize=16)
def _template(config: GameConfig) -> dict[str, Any]:
    """A fresh state's plain data: the shape a saved state of this config must have
    (read only)."""
    from zavandor_env.engine.flow import new_state  # late import: flow imports much of the engine

    return new_state(config, 0).to_dict()


def _refuse(when: bool, message: str) -> None:
    """One check of a saved state: ``ValueError(message)`` when the state shows ``when``."""
    if when:
        raise ValueError(message)


def check_state_dict(data: Any, config: GameConfig) -> None:
    """Raise ``ValueError`` naming the first problem of a saved state's plain data."""
    _check_shape(data, _template(config), "state")
    bounds = _state_bounds(config.num_players, config.max_rounds, config.max_decisions)
    for name, value in data.items():
        if name not in ("config", "players", "rng"):
            _check_ints(value, *bounds.get(name, (0, INT32_MAX)), f"state.{name}")
    for seat, player in enumerate(data["players"]):
        where = f"state.players[{seat}]"
        _refuse(player["seat"] != seat, f"{where}.seat is {player['seat']!r}, expected {seat}")
        for name, value in player.items():
            _check_ints(value, *_PLAYER_BOUNDS.get(name, (0, INT32_MAX)), f"{where}.{name}")
        _refuse(len(player["sages_tokens"]) > _MOST_SAGES_CARDS,
                f"{where}.sages_tokens holds {len(player['sages_tokens'])} cards; one round's "
                f"9-Sages levels give at most {_MOST_SAGES_CARDS}")
    for kind in ("decks", "discards"):
        for colour, pile in enumerate(data[kind]):
            _refuse(any(TOKEN_COLOUR[t] != colour for t in pile),
                    f"state.{kind}[{colour}] holds a card of another colour")
    version, words, gauss = data["rng"]  # Mersenne Twister: 624 32-bit words and a position
    _refuse(not all(0 <= w < 1 << 32 for w in words[:-1]) or not 0 <= words[-1] < len(words),
            "state.rng is not a random generator state")
    # The rules never draw a Gaussian, so no generator of a game caches one (the native core
    # has no such cache and writes null): anything else would make the backends differ.
    _refuse(version != 3 or gauss is not None,
            "state.rng must be [3, words, null], a game's generator state")
    _refuse(len(data["history"]) > data["num_decisions"],
            "state.history records more decisions than state.num_decisions")
    _check_conservation(data)
    _check_unique_items(data, config)
    for seat, player in enumerate(data["players"]):
        _check_chips(player, f"state.players[{seat}]")
    _check_pending_decision(data)
    _check_phase_fields(data)
    _check_purchases(data, config)


def _check_chips(player: dict[str, Any], where: str) -> None:
    """Every chip bought waits in the pentagon or marks a field entered (the starting field
    needs none): a level without a chip, or a chip from nowhere, is refused."""
    start = CHARACTERS[player["character"]].start_field
    entered = sum(1 for f, level in enumerate(player["levels"]) if level and f != start)
    bought = sum(player["chips_bought"])
    _refuse(entered + player["pentagon_chips"] != bought,
            f"{where}: {bought} chips bought, but {entered} fields entered and "
            f"{player['pentagon_chips']} chips in the pentagon")


def _check_pending_decision(data: dict[str, Any]) -> None:
    """The bookkeeping of turn order and of the pending decision must agree."""
    order, players, phase = data["turn_order"], data["players"], data["phase"]
    _refuse(len(set(order)) != len(order) or not order,
            f"state.turn_order {order} must list distinct seats")
    _refuse(data["turn_index"] >= len(order) or order[data["turn_index"]] != data["turn_player"],
            "state.turn_player is not at state.turn_index of state.turn_order")
    _refuse(any(not p["eliminated"] and p["seat"] not in order for p in players),
            "state.turn_order leaves out a player still in the game")
    over = data["terminated"] or data["truncated"]
    nobody_decides = over or phase == Phase.ROUND_END
    _refuse(over != (phase == Phase.GAME_OVER) or (data["current_player"] < 0) != nobody_decides,
            "state.phase, current_player and terminated/truncated disagree")
    _refuse(not nobody_decides and players[data["current_player"]]["eliminated"],
            "state.current_player has been eliminated")
    _refuse(phase == Phase.TURN and data["current_player"] != data["turn_player"],
            "state.phase is TURN but the current player is not the turn player")
    for seat, player in enumerate(players):
        # Costs run up only on the turn player's (or an auction winner's) balance, and a
        # turn player can never have spent more than his hand holds.
        _refuse(seat not in (data["turn_player"], data["debtor"]) and player["balance"] != 0,
                f"state.players[{seat}].balance must be 0 outside his turn")
    turn = players[data["turn_player"]]
    in_debt = phase == Phase.DEBT and data["debtor"] == data["turn_player"]  # checked later
    _refuse(not in_debt and turn["balance"] > hand_value(turn["hand"]),
            "the turn player's balance exceeds his hand's value")


_AUCTION_PHASES = (Phase.BID, Phase.DEBT)
_RESOLUTION_PHASES = (Phase.DEBT, Phase.FREE_LEVEL, Phase.LOSE_GEM)
#: An auction's fields when none is in progress (as ``auction._clear_auction`` leaves them).
_NO_AUCTION = {"auction_kind": -1, "auction_item": -1, "auction_opener": -1, "high_bid": 0,
               "high_bidder": -1, "passed": 0, "debt_item_price": 0}


def _check_phase_fields(data: dict[str, Any]) -> None:
    """Each phase's own fields are set, and only in that phase: the auction in BID/DEBT, the
    winner (``debtor``) in DEBT/FREE_LEVEL/LOSE_GEM, free levels in FREE_LEVEL, victims in
    LOSE_GEM; elsewhere they hold their cleared values."""
    phase = Phase(data["phase"])
    if phase in _AUCTION_PHASES:
        _check_auction(data, phase)
    for name, cleared in _NO_AUCTION.items():
        _refuse(phase not in _AUCTION_PHASES and data[name] != cleared,
                f"state.{name} is {data[name]}, but no auction is in progress in phase "
                f"{phase.name} (expected {cleared})")
    debtor, victims, players = data["debtor"], data["victims"], data["players"]
    _refuse((debtor >= 0) != (phase in _RESOLUTION_PHASES),
            f"state.debtor is {debtor} in phase {phase.name}")
    _refuse(phase in (Phase.DEBT, Phase.FREE_LEVEL) and data["current_player"] != debtor,
            f"state.phase is {phase.name} but the current player is not the debtor")
    _refuse((data["free_levels"] > 0) != (phase == Phase.FREE_LEVEL),
            f"state.free_levels is {data['free_levels']} in phase {phase.name}")
    _refuse(bool(victims) != (phase == Phase.LOSE_GEM),
            f"state.victims is {victims} in phase {phase.name}")
    if phase == Phase.LOSE_GEM:
        _refuse(victims[0] != data["current_player"],
                "state.phase is LOSE_GEM but the current player is not the next victim")
        _refuse(len(set(victims)) != len(victims) or debtor in victims
                or any(players[v]["eliminated"] or v not in data["turn_order"] for v in victims),
                f"state.victims {victims} must be distinct opponents of the winner still in "
                "the game")
    _refuse(phase in (Phase.FREE_LEVEL, Phase.LOSE_GEM) and players[debtor]["balance"] != 0,
            "state.debtor has paid already, yet his balance is not 0")


def _check_auction(data: dict[str, Any], phase: Phase) -> None:
    """An auction in progress names an item that can be auctioned, a bid at least its
    minimum, bidders in the turn order, and (in DEBT) a winner who can pay by selling gems."""
    kind, item, high_bid = data["auction_kind"], data["auction_item"], data["high_bid"]
    _refuse(kind not in _ITEMS, f"state.phase is {phase.name} but no auction is in progress")
    _refuse(not 0 <= item < _ITEMS[kind], f"state.auction_item {item} does not exist")
    if kind == ITEM_ARTIFACT:
        _refuse(item not in data["display"],
                f"the auctioned artifact {ARTIFACT_NAMES[item]} is not on display")
    else:
        _refuse(data["sentinel_owner"][item] != -1,
                f"the auctioned sentinel {SENTINEL_NAMES[item]} is not available")
    minimum = item_min_bid(kind, item)
    _refuse(high_bid < minimum, f"state.high_bid {high_bid} is below the minimum {minimum}")
    order, players, current = data["turn_order"], data["players"], data["current_player"]
    opener, bidder, passed = data["auction_opener"], data["high_bidder"], data["passed"]
    _refuse(opener != data["turn_player"], "state.auction_opener is not the turn player")
    _refuse(bidder >= 0 and (bidder not in order or players[bidder]["eliminated"]
                             or (passed >> bidder) & 1 == 1),
            f"state.high_bidder {bidder} cannot hold the high bid")
    _refuse(any((passed >> seat) & 1 and seat not in order for seat in range(len(players))),
            "state.passed marks a seat outside the turn order")
    if phase == Phase.BID:
        _refuse((passed >> current) & 1 == 1 or current not in order
                or (bidder < 0 and current != opener),
                f"state.current_player {current} cannot bid now")
        _refuse(data["debt_item_price"] != 0,
                "state.debt_item_price is set before the auction is won")
        return
    _refuse(bidder != data["debtor"], "state.phase is DEBT but the debtor is not the high bidder")
    _refuse(data["debt_item_price"] > high_bid + _SURCHARGE[kind],
            f"state.debt_item_price {data['debt_item_price']} is above the bid")
    player = players[bidder]
    hand = hand_value(player["hand"])
    gems = gems_sale_value(SimpleNamespace(**player))  # type: ignore[arg-type]
    _refuse(not hand < player["balance"] <= hand + gems,
            f"state.phase is DEBT, but the debtor's balance {player['balance']} is not "
            f"between his hand ({hand}) and his hand and gems ({hand + gems})")


def _check_purchases(data: dict[str, Any], config: GameConfig) -> None:
    """Each recorded purchase names a seat, an item and a bid that exist, a price the rules
    could produce, and a round not after the current one nor before the previous record's;
    every purchase takes an item out of the game, so their number is bounded too."""
    records, n = data["purchases"], config.num_players
    most = NUM_ARTIFACT_TYPES * COPIES_BY_PLAYERS[n] + NUM_SENTINELS
    _refuse(len(records) > most, f"state.purchases holds {len(records)} records; at most "
            f"{most} exist")
    previous = 1
    for i, (round_, seat, kind, item, bid, price) in enumerate(records):
        where = f"state.purchases[{i}]"
        _refuse(not previous <= round_ <= data["round"],
                f"{where}: round {round_} is out of order or in the future")
        previous = round_
        _refuse(not 0 <= seat < n, f"{where}: seat {seat} is not a seat of {n} players")
        _refuse(kind not in _ITEMS,
                f"{where}: kind {kind} is neither artifact (0) nor sentinel (1)")
        _refuse(not 0 <= item < _ITEMS[kind], f"{where}: item {item} does not exist")
        _refuse(not item_min_bid(kind, item) <= bid <= MAX_AMOUNT
                or not 0 <= price <= min(bid + _SURCHARGE[kind], MAX_AMOUNT),
                f"{where}: bid {bid} / price {price} impossible for that item")


def _check_shape(value: Any, template: Any, where: str, name: str = "") -> None:
    if isinstance(template, dict):
        if not isinstance(value, dict):
            raise TypeError(f"{where} must be an object, got {type(value).__name__}")
        if name == "config":
            return  # validated by GameConfig.from_dict
        missing, unknown = sorted(set(template) - set(value)), sorted(set(value) - set(template))
        _refuse(bool(missing or unknown),
                f"{where}: missing keys {missing}, unknown keys {unknown}")
        for key, sub in template.items():
            _check_shape(value[key], sub, f"{where}.{key}", key)
    elif isinstance(template, list):
        if not isinstance(value, list):
            raise TypeError(f"{where} must be a list, got {type(value).__name__}")
        variable, ints = name in _VARIABLE_LISTS, len(template) > 100  # the generator's words
        if name == "purchases":  # records of six integers: (round, seat, kind, item, bid, price)
            for i, record in enumerate(value):
                _refuse(not isinstance(record, list) or len(record) != 6
                        or not all(type(v) is int for v in record),
                        f"{where}[{i}] must be a list of 6 integers")
            return
        if variable or ints:
            _refuse(not all(type(v) is int for v in value), f"{where} must be a list of integers")
        _refuse(not variable and len(value) != len(template),
                f"{where} must have {len(template)} entries, got {len(value)}")
        if not (variable or ints):
            inner = "deck" if name in ("decks", "discards") else ""
            for i, (v, t) in enumerate(zip(value, template)):
                _check_shape(v, t, f"{where}[{i}]", inner)
    else:  # a leaf: its type as the template's (a float or null for the generator's gauss)
        floats = template is None or type(template) is float
        allowed = (float, type(None)) if floats else (type(template),)
        _refuse(type(value) not in allowed, f"{where} must be "
                f"{_LEAF_WORDS.get(allowed[0], 'a ' + allowed[0].__name__)}, got {value!r}")


def _check_ints(value: Any, lo: int, hi: int, where: str) -> None:
    for v in integers(value):
        if not lo <= v <= hi:
            shown = str(v) if abs(v) < 10**12 else f"a {len(str(abs(v)))}-digit number"
            raise ValueError(f"{where} holds {shown}, outside [{lo}, {hi}]")


def _check_conservation(data: dict[str, Any]) -> None:
    players = data["players"]
    for g in range(NUM_GEMS):
        total = data["gem_supply"][g] + sum(p["active"][g] + p["inactive"][g] for p in players)
        _refuse(total != GEM_SUPPLY[g],
                f"gem {g}: supply and players hold {total}, the box {GEM_SUPPLY[g]}")
    cards: Counter[int] = Counter()
    for pile in data["decks"] + data["discards"] + [p["sages_tokens"] for p in players]:
        cards.update(pile)
    for p in players:
        cards.update({t: p["hand"][t] for t in range(NUM_CARD_TOKENS)})
    for t, (colour, value) in enumerate(CARD_TOKENS):
        box = ENERGY_DECKS[colour][value]
        _refuse(cards[t] != box, f"energy card {value} of colour {colour}: {cards[t]} in the "
                f"game, the box holds {box}")
    for c in range(NUM_COLOURS):
        total = data["concentrated_supply"][c] + sum(p["hand"][CONC_TOKEN0 + c] for p in players)
        _refuse(total != CONCENTRATED_PER_COLOUR,
                f"concentrated cards of colour {c}: {total} in the game, not 8")


def _check_unique_items(data: dict[str, Any], config: GameConfig) -> None:
    """Each player board, artifact copy and sentinel is in one place only: distinct
    characters (those of the config, when it names them), no more copies of an artifact
    among the display, the deck and the owners than the box holds, and every sentinel owned
    by at most one seat, as ``sentinel_owner`` records."""
    players = data["players"]
    seen: dict[int, int] = {}
    for seat, player in enumerate(players):
        name, where = CHARACTERS[player["character"]].name, f"state.players[{seat}].character"
        _refuse(player["character"] in seen,
                f"{where} {name} is already seat {seen.get(player['character'])}'s")
        seen[player["character"]] = seat
        dealt = name if config.characters is None else config.characters[seat]
        _refuse(dealt != name, f"{where} is {name}, but the config deals {dealt}")
    copies = COPIES_BY_PLAYERS[config.num_players]
    for art, art_name in enumerate(ARTIFACT_NAMES):
        places = {"display": data["display"].count(art), "deck": data["artifact_deck"].count(art)}
        places.update({f"seat {seat}": p["artifacts"][art] for seat, p in enumerate(players)})
        listed = ", ".join(f"{place} {n}" for place, n in places.items() if n)
        _refuse(sum(places.values()) > copies, f"artifact {art_name}: {sum(places.values())} "
                f"copies in the game ({listed}), the box holds {copies}")
    holder: dict[int, int] = {}
    for seat, player in enumerate(players):
        for sentinel in player["sentinels"]:
            name = SENTINEL_NAMES[sentinel]
            _refuse(holder.get(sentinel, seat) != seat,
                    f"sentinel {name} is held by seat {holder.get(sentinel)} and seat {seat}")
            _refuse(sentinel in holder, f"sentinel {name} is listed twice for seat {seat}")
            holder[sentinel] = seat
    for sentinel, owner in enumerate(data["sentinel_owner"]):
        name = SENTINEL_NAMES[sentinel]
        _refuse(owner >= 0 and holder.get(sentinel) != owner,
                f"state.sentinel_owner gives {name} to seat {owner}, whose sentinels do not "
                "list it")
        _refuse(owner < 0 and sentinel in holder,
                f"sentinel {name} is held by seat {holder.get(sentinel)} but "
                f"state.sentinel_owner has it as {'available' if owner == -1 else 'gone'}")
