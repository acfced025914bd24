"""The observation vector: one flat ``float32[D]`` with named slices, seen from one seat.

The layout is declared once, as ordered tables of named fields (:data:`GLOBAL_FIELDS`,
:data:`PLAYER_FIELDS`, :data:`PRIVATE_FIELDS`); the encoder appends raw numbers in exactly that
order and one vector multiply applies every field's scale.  ``docs/observation.md`` is
generated from the same tables, so the documentation cannot drift from the code.

Seat-relative: player slot 0 is the observer, slots 1.. are the other players in this round's
turn order starting after the observer (the order in which bids go round), then eliminated
players; slots beyond the player count are zeros with ``present = 0``.  D is the same for 2-6
players.

What a seat may know (and nothing else): all public state, its own hand values and its own
9-Sages cards.  Other players' energy cards appear only as counts per colour (plus their
concentrated cards and dust chits, which are face up), their 9-Sages cards only as counts per
colour (the colour follows from the level entered), and decks only as sizes.

The numbers are computed by the C++ core (``native/src/observe.cpp``); the tests hold it
bit-identical to a readable field-by-field reference in Python
(``tests/encoding/observation_reference.py``).

Compatibility: :data:`OBS_FINGERPRINT` hashes the layout (field names, sizes, scales, the
clip bound) and the action table.  Policy files record it, so a network trained on one layout
is refused, not silently misread, under another.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Final

import numpy as np

from zavandor_env.engine.actions import ACTION_NAMES, NUM_ACTIONS
from zavandor_env.engine.data import (
    ARTIFACTS,
    CHARACTERS,
    CHIP_COSTS,
    COLOUR_NAMES,
    CONCENTRATED_PER_COLOUR,
    COPIES_BY_PLAYERS,
    DUST_CHITS,
    ENERGY_DECKS,
    FIELD_NAMES,
    GEM_NAMES,
    GEM_SUPPLY,
    MAX_LEVEL,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ARTIFACT_TYPES,
    NUM_CARD_TOKENS,
    NUM_COLOURS,
    NUM_GEMS,
    NUM_SENTINELS,
    POSITION_MODIFIER,
    POSITION_NAMES,
    SENTINELS,
    SENTINELS_TO_END,
    token_name,
)
from zavandor_env.engine.game import Game
from zavandor_env.engine.native import core_module, native_available, native_observe
from zavandor_env.engine.state import Block, GameState, Phase

MONEY: Final = 100.0  # energy amounts (prices, bids, hand value) are divided by this
OBS_BOUND: Final = 10.0  # scaled values are clipped to [-OBS_BOUND, OBS_BOUND] (normally |x| < 3)
_ART_NAMES = tuple(a.name for a in ARTIFACTS)
_SEN_NAMES = tuple(s.name for s in SENTINELS)
_CARD_NAMES = tuple(token_name(t).replace(" ", "_") for t in range(NUM_CARD_TOKENS))
# The decisions the ``phase`` one-hot covers (nobody decides in GAME_OVER, ROUND_END: all
# zeros), the blocks of the ``block`` one-hot and the bits of ``blocks_used``, in layout order.
DECISION_PHASES = (Phase.TURN, Phase.BID, Phase.DEBT, Phase.FREE_LEVEL, Phase.LOSE_GEM)
BLOCKS = tuple(Block)  # NONE first: the one-hot index is Block + 1
CLOSABLE_BLOCKS = tuple(b for b in Block if b != Block.NONE)  # bit b of blocks_used

# Scales that follow from the component tables: a count divided by the most there can be, so a
# change to a table (a bigger supply, another copy per type) rescales its field with it.
_MAX_COPIES = max(COPIES_BY_PLAYERS.values())  # artifact copies per type (5-6 players)
_ARTIFACT_CARDS = NUM_ARTIFACT_TYPES * _MAX_COPIES
_MAX_DECK = max(sum(deck.values()) for deck in ENERGY_DECKS)  # the largest energy deck
_MAX_GEM_SUPPLY = max(GEM_SUPPLY)
_MAX_FREE_LEVELS = max(a.free_levels for a in ARTIFACTS)  # the Talisman's
_MAX_VICTIMS = MAX_PLAYERS - 1  # every opponent of a Mirror/Cloak buyer
_MAX_PRICE_MODIFIER = max(abs(m) for row in POSITION_MODIFIER for m in row)
# The other scales are normalisation choices (typical magnitudes, not hard bounds); the
# observation-layout fingerprint (OBS_FINGERPRINT) changes whenever any scale does.


@dataclass(frozen=True)
class ObsField:
    """One named field of the layout: ``size`` numbers, each multiplied by ``scale``."""

    name: str
    size: int
    scale: float
    doc: str
    labels: tuple[str, ...] = ()  # per-element names, when the field has more than one


def _f(name: str, size: int, scale: float, doc: str, labels: tuple[str, ...] = ()) -> ObsField:
    assert not labels or len(labels) == size, name
    return ObsField(name, size, scale, doc, labels)


GLOBAL_FIELDS: Final = (
    _f("num_players", MAX_PLAYERS - MIN_PLAYERS + 1, 1.0,
       f"one-hot over {MIN_PLAYERS}..{MAX_PLAYERS} players",
       tuple(str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))),
    _f("round", 1, 1 / 20, "current round (1 = first)"),
    _f("round_fraction", 1, 1.0, "round / max_rounds (the truncation horizon)"),
    _f("phase", len(DECISION_PHASES), 1.0, "decision kind, one-hot",
       tuple(p.name.lower() for p in DECISION_PHASES)),
    _f("block", len(BLOCKS), 1.0, "open phase-3 action block, one-hot",
       tuple(b.name.lower() for b in BLOCKS)),
    _f("blocks_used", len(CLOSABLE_BLOCKS), 1.0, "phase-3 blocks already closed this turn",
       tuple(b.name.lower() for b in CLOSABLE_BLOCKS)),
    _f("paid_advance_done", 1, 1.0, "the turn player has made this turn's paid advance"),
    _f("gems_activated", NUM_GEMS, 1.0,
       "gem kinds activated this turn (cannot be deactivated again)", GEM_NAMES),
    _f("gems_deactivated", NUM_GEMS, 1.0,
       "gem kinds deactivated this turn (cannot be re-activated)", GEM_NAMES),
    _f("display", NUM_ARTIFACT_TYPES, 1 / _MAX_COPIES, "artifacts face up, copies per type",
       _ART_NAMES),
    _f("artifact_deck", NUM_ARTIFACT_TYPES, 1 / _MAX_COPIES,
       "artifacts still in the deck, copies per type (the order is hidden)", _ART_NAMES),
    _f("artifact_deck_size", 1, 1 / _ARTIFACT_CARDS, "cards in the artifact deck"),
    _f("sentinel_available", NUM_SENTINELS, 1.0, "sentinel still to be won", _SEN_NAMES),
    _f("sentinels_acquired", 1, 1 / SENTINELS_TO_END,
       f"sentinels acquired so far (the game ends at {SENTINELS_TO_END})"),
    _f("gem_supply", NUM_GEMS, 1 / _MAX_GEM_SUPPLY, "gems left in the supply", GEM_NAMES),
    _f("concentrated_supply", NUM_COLOURS, 1 / CONCENTRATED_PER_COLOUR,
       "concentrated cards left", COLOUR_NAMES),
    _f("deck_size", NUM_COLOURS, 1 / _MAX_DECK, "cards in each face-down energy deck",
       COLOUR_NAMES),
    _f("discard_size", NUM_COLOURS, 1 / _MAX_DECK, "cards in each face-up discard pile",
       COLOUR_NAMES),
    _f("discards", NUM_CARD_TOKENS, 1 / 6, "face-up discards, cards per (colour, value)",
       _CARD_NAMES),
    _f("auction_active", 1, 1.0, "an auction or its resolution is in progress"),
    _f("auction_artifact", NUM_ARTIFACT_TYPES, 1.0, "artifact under auction, one-hot", _ART_NAMES),
    _f("auction_sentinel", NUM_SENTINELS, 1.0, "sentinel under auction, one-hot", _SEN_NAMES),
    _f("high_bid", 1, 1 / MONEY, "the high bid; before the opening bid, the minimum bid"),
    _f("opening_bid_pending", 1, 1.0, "nobody has bid yet (the opener must bid the minimum+)"),
    _f("debt_price", 1, 1 / MONEY, "price the auction winner must cover (DEBT phase)"),
    _f("free_levels", 1, 1 / _MAX_FREE_LEVELS, "free knowledge levels still to place"),
    _f("victims_left", 1, 1 / _MAX_VICTIMS,
       "players still to give up an active gem (Mirror/Cloak)"),
)

PLAYER_FIELDS: Final = (
    _f("present", 1, 1.0, "this slot holds a player"),
    _f("eliminated", 1, 1.0, "the player was eliminated by the Curse of the 9 Sages"),
    _f("character", len(CHARACTERS), 1.0, "player board, one-hot",
       tuple(c.name for c in CHARACTERS)),
    _f("active_gems", NUM_GEMS, 1 / 10, "gems on the magic spiral", GEM_NAMES),
    _f("inactive_gems", NUM_GEMS, 1 / 10, "gems in the pentagon", GEM_NAMES),
    _f("levels", len(FIELD_NAMES), 1 / MAX_LEVEL, "knowledge level per field (0 = no chip)",
       FIELD_NAMES),
    _f("chips_bought", len(CHIP_COSTS), 1.0, "knowledge chip bought, by cost",
       tuple(str(c) for c in CHIP_COSTS)),
    _f("pentagon_chips", 1, 1 / 2, "bought chips not yet placed in a field"),
    _f("artifacts", NUM_ARTIFACT_TYPES, 1 / 2, "artifacts owned, copies per type", _ART_NAMES),
    _f("sentinels", NUM_SENTINELS, 1.0, "sentinels owned", _SEN_NAMES),
    _f("vp", 1, 1 / 50, "victory points as scored at the last phase 4"),
    _f("gem_vp", 1, 1 / 20, "VP from active gems at the last phase 4 (turn-order tiebreak)"),
    _f("position", len(POSITION_NAMES), 1.0, "turn-order card this round, one-hot",
       POSITION_NAMES),
    _f("price_modifier", 2, 1 / _MAX_PRICE_MODIFIER,
       "turn-order price modifier on artifacts and sentinels", ("artifact", "sentinel")),
    _f("cards", NUM_COLOURS, 1 / 5, "energy cards in hand per colour (values hidden)",
       COLOUR_NAMES),
    _f("concentrated", NUM_COLOURS, 1 / 2, "concentrated cards in hand", COLOUR_NAMES),
    _f("dust_chits", len(DUST_CHITS), 1 / 5, "dust chits in hand, by value",
       tuple(str(v) for v in DUST_CHITS)),
    _f("dust", 1, 1 / MONEY, "dust value in hand"),
    _f("hand_load", 1, 1 / 10, "hand-limit slots the hand uses"),
    _f("hand_limit", 1, 1 / 10, "hand-limit slots allowed at phase 4"),
    _f("sages_cards", NUM_COLOURS, 1 / 2, "9-Sages cards under the turn card, per colour",
       COLOUR_NAMES),
    _f("sages_dust", 1, 1 / MONEY, "9-Sages dust under the turn card"),
    _f("balance", 1, 1 / MONEY, "costs run up this turn (>0) or sale credit (<0), unpaid"),
    _f("druid_ruby_used", 1, 1.0, "the Druid has bought its Fire-3 ruby"),
    _f("is_turn_player", 1, 1.0, "it is this player's phase-3 turn"),
    _f("is_deciding", 1, 1.0, "this player must decide now"),
    _f("high_bidder", 1, 1.0, "holds the high bid"),
    _f("passed", 1, 1.0, "has passed in the current auction"),
    _f("debtor", 1, 1.0, "won the auction and is resolving it (debt, free levels, victims)"),
    _f("victim", 1, 1.0, "still has to give up an active gem"),
)

PRIVATE_FIELDS: Final = (
    _f("hand_cards", NUM_CARD_TOKENS, 1 / 3, "my energy cards per (colour, value)", _CARD_NAMES),
    _f("sages_cards", NUM_CARD_TOKENS, 1 / 2, "my 9-Sages cards per (colour, value)",
       _CARD_NAMES),
    _f("hand_value", 1, 1 / MONEY, "total energy value of my hand"),
    _f("liquid", 1, 1 / MONEY, "hand value less this turn's unpaid costs"),
    _f("max_payable", 1, 1 / MONEY, "the most I could pay now, selling every gem"),
    _f("price_at_high_bid", 1, 1 / MONEY, "what I would pay for the item at the high bid"),
)


def _size(fields: tuple[ObsField, ...]) -> int:
    return sum(f.size for f in fields)


GLOBAL_SIZE: Final = _size(GLOBAL_FIELDS)
PLAYER_SIZE: Final = _size(PLAYER_FIELDS)
PRIVATE_SIZE: Final = _size(PRIVATE_FIELDS)
OBS_SIZE: Final = GLOBAL_SIZE + MAX_PLAYERS * PLAYER_SIZE + PRIVATE_SIZE

# Every field in vector order under its full name: global fields by name, ``player{i}.<field>``
# for slot ``i`` (0 = me), ``me.<field>`` for private fields.
_LAYOUT: Final = (
    [(f.name, f) for f in GLOBAL_FIELDS]
    + [(f"player{i}.{f.name}", f) for i in range(MAX_PLAYERS) for f in PLAYER_FIELDS]
    + [(f"me.{f.name}", f) for f in PRIVATE_FIELDS]
)
_ENDS: Final = np.cumsum([f.size for _, f in _LAYOUT]).tolist()
assert _ENDS[-1] == OBS_SIZE

SLICES: Final = {name: slice(end - f.size, end) for (name, f), end in zip(_LAYOUT, _ENDS)}
"""Name -> slice of the observation: global fields by name, ``player{i}.<field>`` for slot
``i`` (0 = me), and ``me.<field>`` for private fields."""

_SCALE: Final = np.repeat(np.asarray([f.scale for _, f in _LAYOUT], np.float32),
                          [f.size for _, f in _LAYOUT])


def layout_entries() -> list[tuple[str, int, float]]:
    """The layout as ``(name, size, scale)`` in vector order, player slots spelled out
    (``player0.present`` ... ``me.price_at_high_bid``): what :data:`OBS_FINGERPRINT` hashes."""
    return [(name, f.size, f.scale) for name, f in _LAYOUT]


def layout_fingerprint(
    entries: list[tuple[str, int, float]], action_names: tuple[str, ...] | list[str]
) -> str:
    """A short sha256 (16 hex digits) of an observation layout and an action table.

    Any change to a field's name, position, size or scale, to the clip bound, or to the
    actions' names, order or count gives another fingerprint.  Labels and docs do not count:
    they change nothing a trained network sees.
    """
    spec = {
        "schema": "zavandor-obs-layout/1",
        "fields": [[name, size, float(scale)] for name, size, scale in entries],
        "bound": OBS_BOUND,
        "actions": list(action_names),
        "num_actions": len(action_names),
    }
    text = json.dumps(spec, separators=(",", ":"))  # floats as repr: exact and portable
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


assert len(ACTION_NAMES) == NUM_ACTIONS
OBS_FINGERPRINT: Final = layout_fingerprint(layout_entries(), ACTION_NAMES)
"""Fingerprint of this observation layout and action table.  Saved policy files record it,
and a file made for another layout is refused instead of silently misreading the vector."""


class ObservationEncoder:
    """Builds observations of games for any seat, by the core's C++ encoder (the tests hold it
    to a readable field-by-field reference, ``tests/encoding/observation_reference.py``)."""

    __slots__ = ()

    def encode_game(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a fresh ``float32[OBS_SIZE]`` array (an oracle game's
        state is loaded onto the core first)."""
        core = game.native_core
        if core is None:
            return self.encode(game.state, seat)
        out = np.empty(OBS_SIZE, np.float32)
        native_observe(core, seat, out)
        return out

    def encode(self, state: GameState, seat: int) -> np.ndarray:
        """:meth:`encode_game` of a rules state (the core plays a copy of it)."""
        return self.encode_game(Game(state), seat)


def decode(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Named views of an observation (unscaled back to game units), for tests and debugging."""
    if obs.shape != (OBS_SIZE,):
        raise ValueError(f"expected an observation of shape ({OBS_SIZE},), got {obs.shape}")
    raw = obs / _SCALE
    return {name: raw[sl] for name, sl in SLICES.items()}


def mask_array(legal: tuple[int, ...]) -> np.ndarray:
    """The int8 action mask of a tuple of legal actions."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if legal:
        mask[list(legal)] = 1
    return mask


def configure_native() -> None:
    """Install this layout (scales, clip bound, fingerprint; every field checked against the
    C++ layout) in the native encoder; a no-op without the core.  The core never imports this
    module (the engine layer imports only downward), so importing this module configures it;
    a core built for another layout or action table raises a one-line error here (rebuild it).
    """
    if not native_available():
        return
    native = core_module()
    if native.NUM_ACTIONS != NUM_ACTIONS:
        raise RuntimeError(f"the Python action table has {NUM_ACTIONS} actions, the native "
                           f"engine {native.NUM_ACTIONS}: rebuild the native core")
    native.set_observation_scale(_SCALE, OBS_BOUND, OBS_FINGERPRINT, layout_entries())


try:
    configure_native()
except (RuntimeError, ValueError):
    pass  # a stale core: native observations then fail, saying to call configure_native()
