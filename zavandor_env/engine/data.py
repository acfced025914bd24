"""Component tables of *The Scepter of Zavandor*.

Every number here is listed, with where it is printed (the rulebook's English edition by
section, or sozav's implementation for numbers printed only on the components), in
``docs/rules.md``, "Components"; the entry (C1-C13) is given beside each table.  Consistency
checks run at import time, so a typo in a table fails loudly instead of skewing games.

Indices used throughout the engine:

* gems:    ``OPAL, SAPPHIRE, EMERALD, DIAMOND, RUBY`` (0..4)
* colours: ``BLUE, GREEN, WHITE, RED`` (0..3) -- energy produced by sapphire, emerald,
  diamond and ruby; colour ``c`` belongs to gem ``c + 1``.
* fields:  ``GEMSTONES, ENERGY_FLOW, FIRE, SAGES, ARTIFACTS, ACCUMULATION`` (0..5)
* tokens:  a hand is a vector of counts over :data:`NUM_TOKENS` token types: the 21 energy
  card values, the 4 concentrated cards, and the 2/5/10 dust chits (plus a 1-value chit that
  exists only with the ``one_value_dust`` variant).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final


class Gem(IntEnum):
    OPAL = 0
    SAPPHIRE = 1
    EMERALD = 2
    DIAMOND = 3
    RUBY = 4


class Colour(IntEnum):
    BLUE = 0
    GREEN = 1
    WHITE = 2
    RED = 3


class Field(IntEnum):
    GEMSTONES = 0
    ENERGY_FLOW = 1
    FIRE = 2
    SAGES = 3
    ARTIFACTS = 4
    ACCUMULATION = 5


NUM_GEMS: Final = 5
NUM_COLOURS: Final = 4
NUM_FIELDS: Final = 6
MAX_LEVEL: Final = 4
MAX_PLAYERS: Final = 6
MIN_PLAYERS: Final = 2

GEM_NAMES: Final = ("opal", "sapphire", "emerald", "diamond", "ruby")
COLOUR_NAMES: Final = ("blue", "green", "white", "red")
FIELD_NAMES: Final = ("gemstones", "energy_flow", "fire", "sages", "artifacts", "accumulation")

# --- C1 Energy cards (126): value -> number of cards, per colour ---
ENERGY_DECKS: Final[tuple[dict[int, int], ...]] = (
    {3: 3, 4: 6, 5: 12, 6: 6, 7: 3},  # blue (sapphire), 30 cards, mean 5
    {5: 3, 6: 6, 7: 9, 8: 9, 9: 6, 10: 3},  # green (emerald), 36 cards, mean 7.5
    {8: 3, 9: 6, 10: 12, 11: 6, 12: 3},  # white (diamond), 30 cards, mean 10
    {13: 3, 14: 6, 15: 12, 16: 6, 17: 3},  # red (ruby), 30 cards, mean 15
)
TOTAL_ENERGY_CARDS: Final = 126

# --- C2 Concentrated energy (8 per colour; value = 4 x deck mean; +2 dust on receipt) ---
CONCENTRATED_VALUE: Final = (20, 30, 40, 60)
CONCENTRATED_PER_COLOUR: Final = 8
CONCENTRATED_BONUS_DUST: Final = 2
CARDS_PER_CONCENTRATED: Final = 4

# --- C3 Gems, C4 supply, C5 start, C7 slots ---
GEM_BASE_COST: Final = (10, 20, 30, 40, 60)  # player boards (sozav's values)
GEM_VP: Final = (1, 1, 2, 2, 3)
GEM_SUPPLY: Final = (28, 28, 24, 24, 20)  # C4
GEM_DISCOUNT_PERCENT_PER_LEVEL: Final = 10  # Knowledge of Gemstones
MAX_RUBIES: Final = 5  # per player; Chalices do not count
BASE_ACTIVE_SLOTS: Final = 5
ACCUMULATION_SLOTS_BY_LEVEL: Final = (0, 0, 1, 1, 2)
BELT_SLOTS: Final = 2
WAND_SLOTS: Final = 2
START_GEMS: Final = (2, 1, 0, 0, 0)  # 2 opals + 1 sapphire, all active (C5)

# Opals produce dust in groups: 3 -> 10, then 2 -> 5 or 1 -> 2 for the remainder (C6).
OPAL_GROUP_SIZE: Final = 3
OPAL_DUST_BY_REMAINDER: Final = (0, 2, 5)
OPAL_DUST_PER_GROUP: Final = 10

# --- C8 Knowledge ---
LEVEL_COSTS: Final = (
    (2, 4, 8, 16),  # gemstones
    (3, 6, 12, 24),  # energy flow
    (5, 10, 15, 20),  # fire
    (3, 6, 12, 24),  # the 9 sages
    (2, 4, 8, 16),  # artifacts
    (2, 4, 8, 16),  # accumulation
)
HAND_LIMIT_FIELD_MODIFIER: Final = (-1, -1, 0, 0, +1, +1)  # once, on entering the field
ENERGY_FLOW_DUST_BY_LEVEL: Final = (0, 0, 2, 5, 10)
ARTIFACT_DISCOUNT_BY_LEVEL: Final = (0, 0, 5, 5, 10)  # Knowledge of Artifacts
SENTINEL_DISCOUNT_BY_LEVEL: Final = (0, 0, 10, 10, 20)
TOP_LEVEL_VP: Final = 2
FIRE_LEVEL_FOR_RUBIES: Final = 4
DRUID_RUBY_FIRE_LEVEL: Final = 3
SAGES_CARDS_PER_LEVEL: Final = 2  # level k gives two cards of colour k-1
CHIP_COSTS: Final = (20, 25, 30, 35, 40)  # sozav's values; the rulebook gives 20-40
NUM_CHIPS: Final = len(CHIP_COSTS)


# --- C5 Characters, C9 hand limit ---
@dataclass(frozen=True, slots=True)
class Character:
    """A player board: starting field (at level 1), starting dust and extra starting cards."""

    name: str
    start_field: Field
    start_dust: int
    start_blue_cards: int = 0


CHARACTERS: Final = (
    Character("witch", Field.GEMSTONES, 10),
    Character("elf", Field.ENERGY_FLOW, 10),
    Character("druid", Field.FIRE, 20),
    Character("fairy", Field.SAGES, 10, start_blue_cards=2),
    Character("mage", Field.ARTIFACTS, 15),
    Character("kobold", Field.ACCUMULATION, 20),
)
CHARACTER_INDEX: Final = {c.name: i for i, c in enumerate(CHARACTERS)}
DRUID: Final = CHARACTER_INDEX["druid"]
HAND_LIMIT_BASE: Final = 5  # the track start is 5 + the starting field's modifier (4/5/6)
HAND_LIMIT_FLOOR: Final = 1  # uncapped, floored at 1 (docs/rules.md decision 5)


# --- C10 Artifacts ---
class Art(IntEnum):
    SPELLBOOK = 0
    RUNESTONE = 1
    CRYSTAL_BALL = 2
    BELT = 3
    MIRROR = 4
    CRYSTAL_OF_PROTECTION = 5
    ELIXIR = 6
    MASK = 7
    WAND = 8
    CHALICE = 9
    CLOAK = 10
    TALISMAN = 11


@dataclass(frozen=True, slots=True)
class Artifact:
    """One artifact type as printed on its card."""

    name: str
    letter: str
    min_bid: int
    vp: int
    only_one: bool = False  # Magic Belt and Magic Wand: at most one per player
    free_levels: int = 0  # Runestone 1, Mask 1, Talisman 2
    destroys_gems: bool = False  # Mirror and Cloak: free chip + every opponent loses a gem
    needs_active_gem_to_open: bool = False
    hand_limit: int = 0
    slots: int = 0


ARTIFACTS: Final = (
    Artifact("spellbook", "A", 20, 1),
    Artifact("runestone", "A", 20, 1, free_levels=1),
    Artifact("crystal_ball", "A", 20, 1, hand_limit=3),
    Artifact("magic_belt", "B", 30, 2, only_one=True, slots=BELT_SLOTS),
    Artifact("magic_mirror", "B", 40, 2, destroys_gems=True, needs_active_gem_to_open=True),
    Artifact("crystal_of_protection", "B", 40, 2),
    Artifact("elixir", "B", 60, 2),
    Artifact("mask_of_charisma", "C", 50, 3, free_levels=1),
    Artifact("magic_wand", "C", 60, 3, only_one=True, hand_limit=3, slots=WAND_SLOTS),
    Artifact("chalice_of_fire", "C", 80, 4),
    Artifact("shadow_cloak", "D", 80, 5, destroys_gems=True, needs_active_gem_to_open=True),
    Artifact("talisman", "D", 100, 8, free_levels=2),
)
NUM_ARTIFACT_TYPES: Final = len(ARTIFACTS)
ARTIFACT_LETTERS: Final = ("A", "B", "C", "D")  # deck order, A on top
# (target artifact, discounting artifact, discount per copy owned)
ARTIFACT_CROSS_DISCOUNTS: Final = (
    (Art.CLOAK, Art.SPELLBOOK, 15),
    (Art.CHALICE, Art.RUNESTONE, 10),
    (Art.ELIXIR, Art.CRYSTAL_BALL, 5),
)
MASK_SENTINEL_DISCOUNT: Final = 20  # per Mask of Charisma, on every sentinel
COPIES_BY_PLAYERS: Final = {2: 1, 3: 2, 4: 2, 5: 3, 6: 3}  # C11


# --- C12 Sentinels ---
class Sen(IntEnum):
    PHOENIX = 0
    OWL = 1
    FOX = 2
    TOAD = 3
    UNICORN = 4
    TOMCAT = 5
    SCARAB = 6
    RAVEN = 7
    SALAMANDER = 8


@dataclass(frozen=True, slots=True)
class Sentinel:
    """A sentinel: 5 VP plus ``per_unit`` VP per counted unit, up to ``cap`` (None: no cap)."""

    name: str
    per_unit: int
    cap: int | None


SENTINELS: Final = (
    Sentinel("phoenix", 2, 10),  # per kind of active gem
    Sentinel("owl", 2, 12),  # per field at level 4
    Sentinel("fox", 2, 12),  # per active sapphire
    Sentinel("toad", 2, None),  # per Runestone, Crystal of Protection, Spellbook, Elixir
    Sentinel("unicorn", 1, 11),  # per active diamond
    Sentinel("tomcat", 2, 12),  # per active opal
    Sentinel("scarab", 1, 11),  # per active emerald (Crystals of Protection do not count)
    Sentinel("raven", 2, None),  # per Crystal Ball, Mask, Belt, Wand
    Sentinel("salamander", 2, 10),  # per active ruby (Chalices do not count)
)
NUM_SENTINELS: Final = len(SENTINELS)
SENTINEL_MIN_BID: Final = 120
SENTINEL_BASE_VP: Final = 5
SENTINELS_TO_END: Final = 5
TOAD_ARTIFACTS: Final = (Art.RUNESTONE, Art.CRYSTAL_OF_PROTECTION, Art.SPELLBOOK, Art.ELIXIR)
RAVEN_ARTIFACTS: Final = (Art.CRYSTAL_BALL, Art.MASK, Art.BELT, Art.WAND)

# --- C13 Turn-order price modifiers: (artifact, sentinel) by position I..VI ---
# I applies when the leader has >= 10 VP, II when player II himself has >= 10 VP,
# V and VI when the leader has >= 10 VP.  Sentinel modifiers are doubled.
POSITION_MODIFIER: Final = ((10, 20), (5, 10), (0, 0), (0, 0), (-5, -10), (-10, -20))
MODIFIER_VP_THRESHOLD: Final = 10
POSITION_NAMES: Final = ("I", "II", "III", "IV", "V", "VI")

# --- C9 Hand limit loads ---
CARD_LOAD: Final = 1
CONCENTRATED_LOAD: Final = 3
DUST_CHITS: Final = (1, 2, 5, 10)  # the 1-chit exists only with the one_value_dust variant
DUST_LOAD: Final = (1, 1, 2, 3)

# --- Deck and discards both empty (docs/rules.md decision 12): dust per card owed ---
EMPTY_DECK_DUST: Final = (5, 7, 10, 15)

# --- Tokens: the hand as a count vector ---
CARD_TOKENS: Final = tuple(
    (colour, value) for colour, deck in enumerate(ENERGY_DECKS) for value in sorted(deck)
)
NUM_CARD_TOKENS: Final = len(CARD_TOKENS)  # 21
CONC_TOKEN0: Final = NUM_CARD_TOKENS  # 21..24 concentrated blue/green/white/red
DUST_TOKEN0: Final = CONC_TOKEN0 + NUM_COLOURS  # 25..28 dust 1/2/5/10
NUM_TOKENS: Final = DUST_TOKEN0 + len(DUST_CHITS)  # 29
TOKEN_VALUE: Final = (
    tuple(v for _, v in CARD_TOKENS) + CONCENTRATED_VALUE + DUST_CHITS
)
TOKEN_LOAD: Final = (
    (CARD_LOAD,) * NUM_CARD_TOKENS + (CONCENTRATED_LOAD,) * NUM_COLOURS + DUST_LOAD
)
TOKEN_COLOUR: Final = tuple(c for c, _ in CARD_TOKENS) + tuple(range(NUM_COLOURS)) + (-1,) * 4
CARD_TOKEN_INDEX: Final = {ct: i for i, ct in enumerate(CARD_TOKENS)}
#: Each colour's whole deck (C1) as card tokens, in token order (before the shuffle).
DECK_TOKENS: Final = tuple(
    tuple(CARD_TOKEN_INDEX[(colour, value)] for value in sorted(deck) for _ in range(deck[value]))
    for colour, deck in enumerate(ENERGY_DECKS)
)
DUST_TOKEN: Final = {v: DUST_TOKEN0 + i for i, v in enumerate(DUST_CHITS)}


def token_name(token: int) -> str:
    """Readable name of a hand token, e.g. ``"blue 5"``, ``"concentrated red"``, ``"dust 10"``."""
    if token < NUM_CARD_TOKENS:
        colour, value = CARD_TOKENS[token]
        return f"{COLOUR_NAMES[colour]} {value}"
    if token < DUST_TOKEN0:
        return f"concentrated {COLOUR_NAMES[token - CONC_TOKEN0]}"
    return f"dust {DUST_CHITS[token - DUST_TOKEN0]}"


def gem_cost(gem: int, gemstones_level: int) -> int:
    """Energy to buy a gem: base cost less 10% per level of Knowledge of Gemstones."""
    base = GEM_BASE_COST[gem]
    return base * (100 - GEM_DISCOUNT_PERCENT_PER_LEVEL * gemstones_level) // 100


def gem_sale_value(gem: int, gemstones_level: int) -> int:
    """Energy received for selling a gem: half the current purchase price, rounded down."""
    return gem_cost(gem, gemstones_level) // 2


def opal_dust(active_opals: int) -> int:
    """Magic dust produced by the given number of active opals (2/5/10, then 10+2, ...)."""
    groups, rest = divmod(active_opals, OPAL_GROUP_SIZE)
    return groups * OPAL_DUST_PER_GROUP + OPAL_DUST_BY_REMAINDER[rest]


# Precomputed tables used on the hot path.
GEM_COST_TABLE: Final = tuple(tuple(gem_cost(g, lv) for lv in range(5)) for g in range(NUM_GEMS))
GEM_SALE_TABLE: Final = tuple(
    tuple(gem_sale_value(g, lv) for lv in range(5)) for g in range(NUM_GEMS)
)


def _check_tables() -> None:
    """Import-time consistency checks against the stated totals and means (docs/rules.md)."""
    assert sum(sum(d.values()) for d in ENERGY_DECKS) == TOTAL_ENERGY_CARDS
    assert [sum(d.values()) for d in ENERGY_DECKS] == [30, 36, 30, 30]
    for colour, deck in enumerate(ENERGY_DECKS):
        total = sum(v * n for v, n in deck.items())
        count = sum(deck.values())
        # concentrated value = 4 x deck mean = gem base cost (C2)
        assert 4 * total == CONCENTRATED_VALUE[colour] * count, colour
        assert CONCENTRATED_VALUE[colour] == GEM_BASE_COST[colour + 1]
    assert len(ARTIFACTS) == 12 and len(SENTINELS) == 9 and len(CHARACTERS) == 6
    assert sorted({a.letter for a in ARTIFACTS}) == list(ARTIFACT_LETTERS)
    assert [a.min_bid for a in ARTIFACTS] == [20, 20, 20, 30, 40, 40, 60, 50, 60, 80, 80, 100]
    assert [a.vp for a in ARTIFACTS] == [1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 5, 8]
    assert [opal_dust(n) for n in range(1, 12)] == [2, 5, 10, 12, 15, 20, 22, 25, 30, 32, 35]
    assert GEM_COST_TABLE[Gem.RUBY] == (60, 54, 48, 42, 36)
    assert GEM_SALE_TABLE[Gem.OPAL] == (5, 4, 4, 3, 3)
    assert BASE_ACTIVE_SLOTS + ACCUMULATION_SLOTS_BY_LEVEL[4] + BELT_SLOTS + WAND_SLOTS == 11
    assert [HAND_LIMIT_BASE + HAND_LIMIT_FIELD_MODIFIER[c.start_field] for c in CHARACTERS] == [
        4, 4, 5, 5, 6, 6,
    ]
    assert NUM_TOKENS == len(TOKEN_VALUE) == len(TOKEN_LOAD) == len(TOKEN_COLOUR) == 29


_check_tables()
