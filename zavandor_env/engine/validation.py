"""Validation of a saved game's plain data before it becomes a :class:`GameState`.

A saved game is user input: a file edited by hand, truncated or written by another version.
Loading it must fail with a clear message instead of yielding a state that crashes (or plays
wrongly) several decisions later.  Three layers:

1. **shape**: the same keys, value types and fixed list lengths as a fresh state of the same
   config (the fresh state serves as the template, so new fields need no extra code here);
2. **ranges**: every seat, item id, token, level and count within its domain;
3. **conservation**: gems, energy cards and concentrated cards add up to the box contents
   (this also bounds every count, so a huge number cannot exhaust memory later); the record
   of purchases names real seats and items, possible prices and ordered rounds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from operator import mul
from typing import Any

from .actions import NUM_ACTIONS
from .config import GameConfig
from .data import (
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
    NUM_COLOURS,
    NUM_GEMS,
    NUM_SENTINELS,
    POSITION_MODIFIER,
    SENTINEL_MIN_BID,
    TOKEN_COLOUR,
    TOKEN_VALUE,
)
from .names import ARTIFACT_NAMES, SENTINEL_NAMES
from .state import ITEM_ARTIFACT, ITEM_SENTINEL, Phase

# Lists whose length varies during a game (their elements are plain ints).
_VARIABLE_LISTS = frozenset(
    {
        "turn_order",
        "display",
        "artifact_deck",
        "sentinels",
        "sages_tokens",
        "victims",
        "history",
        "deck",
    }
)
_NO_BOUND = None
# Lists of fixed-width integer records (variable length): name -> record width.
_RECORD_LISTS = {"purchases": 6}


def _state_bounds(n: int) -> dict[str, tuple[int | None, int | None]]:
    """Inclusive bounds of every int (or int list) field of the state; absent: >= 0."""
    seat = (0, n - 1)
    seat_or_none = (-1, n - 1)
    return {
        "phase": (0, max(Phase)),
        "turn_index": seat,
        "turn_player": seat,
        "current_player": seat_or_none,
        "block": (-1, 2),
        "blocks_used": (0, 7),
        "turn_order": seat,
        "display": (0, NUM_ARTIFACT_TYPES - 1),
        "artifact_deck": (0, NUM_ARTIFACT_TYPES - 1),
        "sentinel_owner": (-2, n - 1),
        "concentrated_supply": (0, CONCENTRATED_PER_COLOUR),
        "art_mod": (-100, 100),
        "sen_mod": (-100, 100),
        "auction_kind": (-1, 1),
        "auction_item": (-1, NUM_ARTIFACT_TYPES - 1),
        "auction_opener": seat_or_none,
        "high_bidder": seat_or_none,
        "passed": (0, (1 << n) - 1),
        "debtor": seat_or_none,
        "victims": seat,
        "history": (0, NUM_ACTIONS - 1),
        "decks": (0, NUM_CARD_TOKENS - 1),
        "discards": (0, NUM_CARD_TOKENS - 1),
    }


_PLAYER_BOUNDS: dict[str, tuple[int | None, int | None]] = {
    "character": (0, len(CHARACTERS) - 1),
    "balance": (_NO_BOUND, _NO_BOUND),
    "sages_tokens": (0, NUM_CARD_TOKENS - 1),
    "levels": (0, MAX_LEVEL),
    "sentinels": (0, NUM_SENTINELS - 1),
}


@lru_cache(maxsize=16)
def _template(config: GameConfig) -> dict[str, Any]:
    """A fresh state's plain data: the shape a saved state of this config must have
    (read only)."""
    from .flow import new_state  # late import: flow imports much of the engine

    return new_state(config, 0).to_dict()


def check_state_dict(data: Any, config: GameConfig) -> None:
    """Raise ``ValueError`` naming the first problem of a saved state's plain data."""
    _check_shape(data, _template(config), "state")
    n = config.num_players
    bounds = _state_bounds(n)
    for name, (lo, hi) in bounds.items():
        _check_ints(data[name], lo, hi, f"state.{name}")
    for name, value in data.items():
        if name not in bounds and name not in ("config", "players", "rng"):
            _check_ints(value, 0, None, f"state.{name}")
    for seat, player in enumerate(data["players"]):
        where = f"state.players[{seat}]"
        if player["seat"] != seat:
            raise ValueError(f"{where}.seat is {player['seat']!r}, expected {seat}")
        for name, value in player.items():
            lo, hi = _PLAYER_BOUNDS.get(name, (0, None))
            _check_ints(value, lo, hi, f"{where}.{name}")
    for kind in ("decks", "discards"):
        for colour, pile in enumerate(data[kind]):
            if any(TOKEN_COLOUR[t] != colour for t in pile):
                raise ValueError(f"state.{kind}[{colour}] holds a card of another colour")
    words = data["rng"][1]  # Mersenne Twister: 624 32-bit words and a position
    if not all(0 <= w < 1 << 32 for w in words[:-1]) or not 0 <= words[-1] <= len(words) - 1:
        raise ValueError("state.rng is not a random generator state")
    _check_conservation(data)
    _check_unique_items(data, config)
    _check_pending_decision(data)
    _check_purchases(data, config)


def _check_pending_decision(data: dict[str, Any]) -> None:
    """The bookkeeping of turn order and of the pending decision must agree."""
    order = data["turn_order"]
    if len(set(order)) != len(order) or not order:
        raise ValueError(f"state.turn_order {order} must list distinct seats")
    if data["turn_index"] >= len(order) or order[data["turn_index"]] != data["turn_player"]:
        raise ValueError("state.turn_player is not at state.turn_index of state.turn_order")
    phase = data["phase"]
    over = data["terminated"] or data["truncated"]
    nobody_decides = over or phase == Phase.ROUND_END
    if over != (phase == Phase.GAME_OVER) or (data["current_player"] < 0) != nobody_decides:
        raise ValueError("state.phase, current_player and terminated/truncated disagree")
    if phase == Phase.BID:
        kind, item = data["auction_kind"], data["auction_item"]
        items = NUM_ARTIFACT_TYPES if kind == 0 else NUM_SENTINELS
        if kind < 0 or not 0 <= item < items or data["auction_opener"] < 0:
            raise ValueError("state.phase is BID but no auction is in progress")
    elif phase in (Phase.DEBT, Phase.FREE_LEVEL, Phase.LOSE_GEM) and data["debtor"] < 0:
        raise ValueError("state.phase awaits an auction winner's decision but debtor is -1")
    if phase == Phase.LOSE_GEM and data["victims"][:1] != [data["current_player"]]:
        raise ValueError("state.phase is LOSE_GEM but the current player is not the next victim")
    for seat, player in enumerate(data["players"]):
        # Costs run up only on the turn player's (or an auction winner's) balance, and a
        # turn player can never have spent more than his hand holds.
        if seat not in (data["turn_player"], data["debtor"]) and player["balance"]:
            raise ValueError(f"state.players[{seat}].balance must be 0 outside his turn")
    turn = data["players"][data["turn_player"]]
    if phase == Phase.TURN and turn["balance"] > sum(map(mul, turn["hand"], TOKEN_VALUE)):
        raise ValueError("the turn player's balance exceeds his hand's value")


def _check_purchases(data: dict[str, Any], config: GameConfig) -> None:
    """Each recorded purchase names a seat, an item and a bid that exist, a price the rules
    could produce, and a round not after the current one nor before the previous record's;
    every purchase takes an item out of the game, so their number is bounded too."""
    records = data["purchases"]
    n = config.num_players
    most = NUM_ARTIFACT_TYPES * COPIES_BY_PLAYERS[n] + NUM_SENTINELS
    if len(records) > most:
        raise ValueError(f"state.purchases holds {len(records)} records; at most {most} exist")
    previous = 1
    for i, (round_, seat, kind, item, bid, price) in enumerate(records):
        where = f"state.purchases[{i}]"
        if not previous <= round_ <= data["round"]:
            raise ValueError(f"{where}: round {round_} is out of order or in the future")
        previous = round_
        if not 0 <= seat < n:
            raise ValueError(f"{where}: seat {seat} is not a seat of {n} players")
        if kind not in (ITEM_ARTIFACT, ITEM_SENTINEL):
            raise ValueError(f"{where}: kind {kind} is neither artifact (0) nor sentinel (1)")
        items = NUM_ARTIFACT_TYPES if kind == ITEM_ARTIFACT else NUM_SENTINELS
        if not 0 <= item < items:
            raise ValueError(f"{where}: item {item} does not exist")
        minimum = ARTIFACTS[item].min_bid if kind == ITEM_ARTIFACT else SENTINEL_MIN_BID
        surcharge = max(m[kind] for m in POSITION_MODIFIER)  # largest turn-order surcharge
        if bid < minimum or not 0 <= price <= bid + surcharge:
            raise ValueError(f"{where}: bid {bid} / price {price} impossible for that item")


def _check_shape(value: Any, template: Any, where: str, name: str = "") -> None:
    if isinstance(template, dict):
        if not isinstance(value, dict):
            raise TypeError(f"{where} must be an object, got {type(value).__name__}")
        if name == "config":
            return  # validated by GameConfig.from_dict
        missing, unknown = sorted(set(template) - set(value)), sorted(set(value) - set(template))
        if missing or unknown:
            raise ValueError(f"{where}: missing keys {missing}, unknown keys {unknown}")
        for key, sub in template.items():
            _check_shape(value[key], sub, f"{where}.{key}", key)
    elif isinstance(template, list):
        if not isinstance(value, list):
            raise TypeError(f"{where} must be a list, got {type(value).__name__}")
        if name in _RECORD_LISTS:
            width = _RECORD_LISTS[name]
            for i, record in enumerate(value):
                if not isinstance(record, list) or len(record) != width:
                    raise ValueError(f"{where}[{i}] must be a list of {width} integers")
                if not all(type(v) is int for v in record):
                    raise ValueError(f"{where}[{i}] must be a list of {width} integers")
            return
        if name in _VARIABLE_LISTS or len(template) > 100:  # the generator's 625 words
            if not all(type(v) is int for v in value):
                raise ValueError(f"{where} must be a list of integers")
            if name not in _VARIABLE_LISTS and len(value) != len(template):
                raise ValueError(f"{where} must have {len(template)} entries, got {len(value)}")
            return
        if len(value) != len(template):
            raise ValueError(f"{where} must have {len(template)} entries, got {len(value)}")
        inner = "deck" if name in ("decks", "discards") else ""
        for i, (v, t) in enumerate(zip(value, template)):
            _check_shape(v, t, f"{where}[{i}]", inner)
    elif type(template) is bool:
        if type(value) is not bool:
            raise ValueError(f"{where} must be true or false, got {value!r}")
    elif type(template) is int:
        if type(value) is not int:
            raise ValueError(f"{where} must be an integer, got {value!r}")
    elif template is None or type(template) is float:  # the generator's cached gauss
        if value is not None and type(value) is not float:
            raise ValueError(f"{where} must be a number or null, got {value!r}")
    elif type(value) is not type(template):
        raise ValueError(f"{where} must be a {type(template).__name__}, got {value!r}")


def _ints(value: Any) -> Iterator[int]:
    if type(value) is int:
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _ints(v)


def _check_ints(value: Any, lo: int | None, hi: int | None, where: str) -> None:
    for v in _ints(value):
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise ValueError(f"{where} holds {v}, outside [{lo}, {hi if hi is not None else ''}]")


def _check_conservation(data: dict[str, Any]) -> None:
    players = data["players"]
    for g in range(NUM_GEMS):
        total = data["gem_supply"][g] + sum(p["active"][g] + p["inactive"][g] for p in players)
        if total != GEM_SUPPLY[g]:
            raise ValueError(f"gem {g}: supply and players hold {total}, the box {GEM_SUPPLY[g]}")
    cards: Counter[int] = Counter()
    for pile in data["decks"] + data["discards"]:
        cards.update(pile)
    for p in players:
        cards.update(p["sages_tokens"])
        for t in range(NUM_CARD_TOKENS):
            cards[t] += p["hand"][t]
    for t, (colour, value) in enumerate(CARD_TOKENS):
        if cards[t] != ENERGY_DECKS[colour][value]:
            raise ValueError(
                f"energy card {value} of colour {colour}: {cards[t]} in the game, "
                f"the box holds {ENERGY_DECKS[colour][value]}"
            )
    for c in range(NUM_COLOURS):
        total = data["concentrated_supply"][c] + sum(p["hand"][CONC_TOKEN0 + c] for p in players)
        if total != CONCENTRATED_PER_COLOUR:
            raise ValueError(f"concentrated cards of colour {c}: {total} in the game, not 8")


def _check_unique_items(data: dict[str, Any], config: GameConfig) -> None:
    """Each player board, artifact copy and sentinel is in one place only: distinct
    characters (those of the config, when it names them), no more copies of an artifact
    among the display, the deck and the owners than the box holds, and every sentinel owned
    by at most one seat, as ``sentinel_owner`` records."""
    players = data["players"]
    seen: dict[int, int] = {}
    for seat, player in enumerate(players):
        character = player["character"]
        if character in seen:
            raise ValueError(
                f"state.players[{seat}].character {CHARACTERS[character].name} is already "
                f"seat {seen[character]}'s"
            )
        seen[character] = seat
        if config.characters is not None and config.characters[seat] != CHARACTERS[character].name:
            raise ValueError(
                f"state.players[{seat}].character is {CHARACTERS[character].name}, but the "
                f"config deals {config.characters[seat]}"
            )
    copies = COPIES_BY_PLAYERS[config.num_players]
    for art, art_name in enumerate(ARTIFACT_NAMES):
        places = {"display": data["display"].count(art), "deck": data["artifact_deck"].count(art)}
        for seat, player in enumerate(players):
            places[f"seat {seat}"] = player["artifacts"][art]
        if sum(places.values()) > copies:
            where = ", ".join(f"{place} {n}" for place, n in places.items() if n)
            raise ValueError(
                f"artifact {art_name}: {sum(places.values())} copies in the game ({where}), "
                f"the box holds {copies}"
            )
    holder: dict[int, int] = {}
    for seat, player in enumerate(players):
        for sentinel in player["sentinels"]:
            name = SENTINEL_NAMES[sentinel]
            if sentinel in holder:
                raise ValueError(
                    f"sentinel {name} is held by seat {holder[sentinel]} and seat {seat}"
                    if holder[sentinel] != seat
                    else f"sentinel {name} is listed twice for seat {seat}"
                )
            holder[sentinel] = seat
    for sentinel, owner in enumerate(data["sentinel_owner"]):
        if owner >= 0 and holder.get(sentinel) != owner:
            raise ValueError(
                f"state.sentinel_owner gives {SENTINEL_NAMES[sentinel]} to seat {owner}, "
                f"whose sentinels do not list it"
            )
        if owner < 0 and sentinel in holder:
            raise ValueError(
                f"sentinel {SENTINEL_NAMES[sentinel]} is held by seat {holder[sentinel]} but "
                f"state.sentinel_owner has it as {'available' if owner == -1 else 'gone'}"
            )
