"""Every number of docs/rules.md, "Components", transcribed here independently of
``zavandor_env/engine/data.py`` and compared with it (C1-C13 refer to those entries).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine import data as d
from zavandor_env.engine.queries import active_slots, hand_limit
from zavandor_env.engine.state import PlayerState

# C1: value -> count, per colour (blue, green, white, red)
SHEET_DECKS = (
    {3: 3, 4: 6, 5: 12, 6: 6, 7: 3},
    {5: 3, 6: 6, 7: 9, 8: 9, 9: 6, 10: 3},
    {8: 3, 9: 6, 10: 12, 11: 6, 12: 3},
    {13: 3, 14: 6, 15: 12, 16: 6, 17: 3},
)


# ---- C1 energy cards ---------------------------------------------------------------------------
def test_energy_decks_match_the_sheet() -> None:
    assert d.ENERGY_DECKS == SHEET_DECKS
    assert [sum(deck.values()) for deck in d.ENERGY_DECKS] == [30, 36, 30, 30]
    assert d.TOTAL_ENERGY_CARDS == 126 == sum(sum(deck.values()) for deck in d.ENERGY_DECKS)


@pytest.mark.parametrize(
    "colour, low, high, mean, variance",
    [
        (0, 3, 7, 5, "1.20"),
        (1, 5, 10, "7.5", "1.92"),
        (2, 8, 12, 10, "1.20"),
        (3, 13, 17, 15, "1.20"),
    ],
)
def test_energy_deck_range_mean_and_variance(colour, low, high, mean, variance) -> None:
    deck = d.ENERGY_DECKS[colour]
    n = sum(deck.values())
    mu = Fraction(sum(v * k for v, k in deck.items()), n)
    var = Fraction(sum(k * (v - mu) ** 2 for v, k in deck.items()), n)
    assert (min(deck), max(deck)) == (low, high)
    assert mu == Fraction(mean)
    assert round(float(var), 2) == float(variance)


def test_new_game_deals_exactly_the_energy_decks() -> None:
    game = Game.new(GameConfig(num_players=2, characters=("witch", "elf")), seed=3)
    state = game.state
    for colour, deck in enumerate(d.ENERGY_DECKS):
        counts: dict[int, int] = {}
        tokens = state.decks[colour] + state.discards[colour]
        tokens += [
            t for p in state.players for t in range(d.NUM_CARD_TOKENS) for _ in range(p.hand[t])
        ]
        tokens += [t for p in state.players for t in p.sages_tokens]
        for t in tokens:
            c, v = d.CARD_TOKENS[t]
            if c == colour:
                counts[v] = counts.get(v, 0) + 1
        assert counts == deck


# ---- C2 concentrated energy --------------------------------------------------------------------
def test_concentrated_cards_are_worth_four_mean_cards() -> None:
    assert d.CONCENTRATED_VALUE == (20, 30, 40, 60)
    assert d.CONCENTRATED_PER_COLOUR == 8
    assert d.CONCENTRATED_BONUS_DUST == 2
    assert d.CARDS_PER_CONCENTRATED == 4
    assert d.CONCENTRATED_LOAD == 3
    for colour, deck in enumerate(d.ENERGY_DECKS):
        mean = Fraction(sum(v * k for v, k in deck.items()), sum(deck.values()))
        assert d.CONCENTRATED_VALUE[colour] == 4 * mean == d.GEM_BASE_COST[colour + 1]


# ---- C3-C7 gems ----------------------------------------------------------------------------------
SHEET_GEM_COST = (
    (10, 9, 8, 7, 6),
    (20, 18, 16, 14, 12),
    (30, 27, 24, 21, 18),
    (40, 36, 32, 28, 24),
    (60, 54, 48, 42, 36),
)
SHEET_GEM_SALE = (
    (5, 4, 4, 3, 3),
    (10, 9, 8, 7, 6),
    (15, 13, 12, 10, 9),
    (20, 18, 16, 14, 12),
    (30, 27, 24, 21, 18),
)


def test_gem_costs_by_gemstones_level() -> None:
    assert d.GEM_COST_TABLE == SHEET_GEM_COST
    for gem in range(5):
        for level in range(5):
            assert d.gem_cost(gem, level) == SHEET_GEM_COST[gem][level]
    assert d.GEM_BASE_COST == (10, 20, 30, 40, 60)
    assert d.GEM_DISCOUNT_PERCENT_PER_LEVEL == 10


def test_gem_sale_values_are_half_the_current_price() -> None:
    assert d.GEM_SALE_TABLE == SHEET_GEM_SALE
    for gem in range(5):
        for level in range(5):
            assert d.gem_sale_value(gem, level) == SHEET_GEM_COST[gem][level] // 2


def test_gem_vp_supply_and_ruby_limit() -> None:
    assert d.GEM_VP == (1, 1, 2, 2, 3)
    assert d.GEM_SUPPLY == (28, 28, 24, 24, 20)
    assert d.MAX_RUBIES == 5
    assert d.START_GEMS == (2, 1, 0, 0, 0)
    assert d.GEM_NAMES == ("opal", "sapphire", "emerald", "diamond", "ruby")


def test_opal_dust_table() -> None:
    sheet = {1: 2, 2: 5, 3: 10, 4: 12, 5: 15, 6: 20, 7: 22, 8: 25, 9: 30, 10: 32, 11: 35}
    assert {n: d.opal_dust(n) for n in sheet} == sheet
    assert d.opal_dust(0) == 0


def test_active_slots_by_source() -> None:
    assert d.BASE_ACTIVE_SLOTS == 5
    assert d.ACCUMULATION_SLOTS_BY_LEVEL == (0, 0, 1, 1, 2)  # indexed by level, L0..L4
    assert d.BELT_SLOTS == 2 and d.WAND_SLOTS == 2
    p = PlayerState(0, d.CHARACTER_INDEX["kobold"])
    p.levels[d.Field.ACCUMULATION] = 4
    p.artifacts[d.Art.BELT] = 1
    p.artifacts[d.Art.WAND] = 1
    assert active_slots(p) == 11  # the maximum (why Unicorn and Scarab cap at 11)


# ---- C8 knowledge ------------------------------------------------------------------------------
def test_knowledge_level_costs_and_effects() -> None:
    assert d.FIELD_NAMES == (
        "gemstones",
        "energy_flow",
        "fire",
        "sages",
        "artifacts",
        "accumulation",
    )
    assert d.LEVEL_COSTS == (
        (2, 4, 8, 16),
        (3, 6, 12, 24),
        (5, 10, 15, 20),
        (3, 6, 12, 24),
        (2, 4, 8, 16),
        (2, 4, 8, 16),
    )
    assert d.HAND_LIMIT_FIELD_MODIFIER == (-1, -1, 0, 0, 1, 1)
    # Effects indexed by level L0..L4 (L0 = no chip in the field).
    assert d.ENERGY_FLOW_DUST_BY_LEVEL == (0, 0, 2, 5, 10)
    assert d.ARTIFACT_DISCOUNT_BY_LEVEL == (0, 0, 5, 5, 10)
    assert d.SENTINEL_DISCOUNT_BY_LEVEL == (0, 0, 10, 10, 20)
    assert d.TOP_LEVEL_VP == 2 and d.MAX_LEVEL == 4
    assert d.FIRE_LEVEL_FOR_RUBIES == 4 and d.DRUID_RUBY_FIRE_LEVEL == 3
    assert d.SAGES_CARDS_PER_LEVEL == 2


def test_knowledge_chip_costs() -> None:
    assert d.CHIP_COSTS == (20, 25, 30, 35, 40) and d.NUM_CHIPS == 5


# ---- C5 characters -----------------------------------------------------------------------------
SHEET_CHARACTERS = {
    # name: (starting field, starting hand limit, starting dust, extra blue cards)
    "witch": (d.Field.GEMSTONES, 4, 10, 0),
    "elf": (d.Field.ENERGY_FLOW, 4, 10, 0),
    "druid": (d.Field.FIRE, 5, 20, 0),
    "fairy": (d.Field.SAGES, 5, 10, 2),
    "mage": (d.Field.ARTIFACTS, 6, 15, 0),
    "kobold": (d.Field.ACCUMULATION, 6, 20, 0),
}


@pytest.mark.parametrize("name", sorted(SHEET_CHARACTERS))
def test_character_board(name: str) -> None:
    field, limit, dust, blue = SHEET_CHARACTERS[name]
    index = d.CHARACTER_INDEX[name]
    spec = d.CHARACTERS[index]
    assert (spec.name, spec.start_field, spec.start_dust, spec.start_blue_cards) == (
        name,
        field,
        dust,
        blue,
    )
    p = PlayerState(0, index)
    p.levels[field] = 1
    assert hand_limit(p) == limit
    assert d.HAND_LIMIT_BASE + d.HAND_LIMIT_FIELD_MODIFIER[field] == limit


def test_hand_limit_changes_once_per_field_and_per_artifact() -> None:
    p = PlayerState(0, d.CHARACTER_INDEX["witch"])
    p.levels[d.Field.GEMSTONES] = 4  # higher levels do not change the limit again
    p.levels[d.Field.ENERGY_FLOW] = 1
    assert hand_limit(p) == 3  # the logical minimum
    p.artifacts[d.Art.CRYSTAL_BALL] = 2
    p.artifacts[d.Art.WAND] = 1
    assert hand_limit(p) == 3 + 3 * 2 + 3
    assert d.HAND_LIMIT_FLOOR == 1


# ---- C9 hand-limit loads and dust ----------------------------------------------------------------
def test_hand_limit_loads_and_dust_chits() -> None:
    assert d.CARD_LOAD == 1 and d.CONCENTRATED_LOAD == 3
    assert d.DUST_CHITS == (1, 2, 5, 10)  # 1 only with the one_value_dust variant
    assert d.DUST_LOAD == (1, 1, 2, 3)
    assert d.NUM_TOKENS == 29 and d.NUM_CARD_TOKENS == 21
    for t in range(d.NUM_TOKENS):
        if t < d.NUM_CARD_TOKENS:
            colour, value = d.CARD_TOKENS[t]
            assert (d.TOKEN_VALUE[t], d.TOKEN_LOAD[t], d.TOKEN_COLOUR[t]) == (value, 1, colour)
            assert d.CARD_TOKEN_INDEX[(colour, value)] == t
        elif t < d.DUST_TOKEN0:
            c = t - d.CONC_TOKEN0
            assert (d.TOKEN_VALUE[t], d.TOKEN_LOAD[t], d.TOKEN_COLOUR[t]) == (
                d.CONCENTRATED_VALUE[c],
                3,
                c,
            )
        else:
            assert d.TOKEN_COLOUR[t] == -1
            assert d.DUST_TOKEN[d.TOKEN_VALUE[t]] == t
    assert [d.token_name(t) for t in (0, 21, 28)] == ["blue 3", "concentrated blue", "dust 10"]


def test_empty_deck_dust_is_the_floored_mean() -> None:
    # Decision 12: dust equal to the floor of the colour's mean per card owed.
    assert d.EMPTY_DECK_DUST == (5, 7, 10, 15)


# ---- C10-C13 turn order, artifacts, sentinels, player counts -------------------------------------
def test_position_modifiers() -> None:
    assert d.POSITION_MODIFIER == ((10, 20), (5, 10), (0, 0), (0, 0), (-5, -10), (-10, -20))
    assert d.MODIFIER_VP_THRESHOLD == 10
    assert d.POSITION_NAMES == ("I", "II", "III", "IV", "V", "VI")


@pytest.mark.parametrize("players, copies", [(2, 1), (3, 2), (4, 2), (5, 3), (6, 3)])
def test_artifact_copies_and_display_by_player_count(players: int, copies: int) -> None:
    assert d.COPIES_BY_PLAYERS[players] == copies
    game = Game.new(GameConfig(num_players=players), seed=players)
    state = game.state
    assert len(state.display) == players
    assert len(state.display) + len(state.artifact_deck) == 12 * copies
    # A on top, then B, C, D: letters never decrease from the top of the deck down.
    letters = [d.ARTIFACTS[a].letter for a in reversed(state.artifact_deck)]
    assert letters == sorted(letters)
    assert all(d.ARTIFACTS[a].letter == "A" for a in state.display)


SHEET_ARTIFACTS = (
    # name, letter, min bid, VP, only one, free levels, destroys gems, hand limit, slots
    ("spellbook", "A", 20, 1, False, 0, False, 0, 0),
    ("runestone", "A", 20, 1, False, 1, False, 0, 0),
    ("crystal_ball", "A", 20, 1, False, 0, False, 3, 0),
    ("magic_belt", "B", 30, 2, True, 0, False, 0, 2),
    ("magic_mirror", "B", 40, 2, False, 0, True, 0, 0),
    ("crystal_of_protection", "B", 40, 2, False, 0, False, 0, 0),
    ("elixir", "B", 60, 2, False, 0, False, 0, 0),
    ("mask_of_charisma", "C", 50, 3, False, 1, False, 0, 0),
    ("magic_wand", "C", 60, 3, True, 0, False, 3, 2),
    ("chalice_of_fire", "C", 80, 4, False, 0, False, 0, 0),
    ("shadow_cloak", "D", 80, 5, False, 0, True, 0, 0),
    ("talisman", "D", 100, 8, False, 2, False, 0, 0),
)


def test_artifacts_match_the_sheet() -> None:
    assert len(d.ARTIFACTS) == d.NUM_ARTIFACT_TYPES == 12
    got = tuple(
        (
            a.name,
            a.letter,
            a.min_bid,
            a.vp,
            a.only_one,
            a.free_levels,
            a.destroys_gems,
            a.hand_limit,
            a.slots,
        )
        for a in d.ARTIFACTS
    )
    assert got == SHEET_ARTIFACTS
    # The starter of a Mirror or Cloak auction needs an active gem.
    assert [a.name for a in d.ARTIFACTS if a.needs_active_gem_to_open] == [
        "magic_mirror",
        "shadow_cloak",
    ]
    assert d.ARTIFACT_LETTERS == ("A", "B", "C", "D")


def test_artifact_discounts() -> None:
    assert set(d.ARTIFACT_CROSS_DISCOUNTS) == {
        (d.Art.CLOAK, d.Art.SPELLBOOK, 15),
        (d.Art.CHALICE, d.Art.RUNESTONE, 10),
        (d.Art.ELIXIR, d.Art.CRYSTAL_BALL, 5),
    }
    assert d.MASK_SENTINEL_DISCOUNT == 20


SHEET_SENTINELS = (
    ("phoenix", 2, 10),
    ("owl", 2, 12),
    ("fox", 2, 12),
    ("toad", 2, None),
    ("unicorn", 1, 11),
    ("tomcat", 2, 12),
    ("scarab", 1, 11),
    ("raven", 2, None),
    ("salamander", 2, 10),
)


def test_sentinels_match_the_sheet() -> None:
    assert tuple((s.name, s.per_unit, s.cap) for s in d.SENTINELS) == SHEET_SENTINELS
    assert d.NUM_SENTINELS == 9
    assert d.SENTINEL_MIN_BID == 120 and d.SENTINEL_BASE_VP == 5 and d.SENTINELS_TO_END == 5
    assert set(d.TOAD_ARTIFACTS) == {
        d.Art.RUNESTONE,
        d.Art.CRYSTAL_OF_PROTECTION,
        d.Art.SPELLBOOK,
        d.Art.ELIXIR,
    }
    assert set(d.RAVEN_ARTIFACTS) == {d.Art.CRYSTAL_BALL, d.Art.MASK, d.Art.BELT, d.Art.WAND}


def test_player_count_limits() -> None:
    assert (d.MIN_PLAYERS, d.MAX_PLAYERS) == (2, 6)
    assert sorted(d.COPIES_BY_PLAYERS) == [2, 3, 4, 5, 6]


@pytest.mark.parametrize("characters", [("witch", "elf", "druid"), ("fairy", "mage", "kobold")])
def test_starting_gems_dust_and_cards(characters: tuple[str, ...]) -> None:
    game = Game.new(
        GameConfig(num_players=3, characters=characters, skip_forced_decisions=False), seed=9
    )
    for p in game.state.players:
        spec = d.CHARACTERS[p.character]
        assert spec.name == characters[p.seat]
        assert p.active == [2, 1, 0, 0, 0] and p.inactive == [0] * 5  # all active
        assert p.vp == 3 and p.gem_vp == 3
        assert p.levels == [1 if f == spec.start_field else 0 for f in range(6)]
        dust = sum(p.hand[t] * d.TOKEN_VALUE[t] for t in range(d.DUST_TOKEN0, d.NUM_TOKENS))
        # Round 1's income has been paid: 2 opals give 5 dust (Energy Flow L1 gives none).
        assert dust == spec.start_dust + d.opal_dust(2)
        blue_cards = sum(p.hand[t] for t in range(d.NUM_CARD_TOKENS) if d.TOKEN_COLOUR[t] == 0)
        assert blue_cards == 1 + spec.start_blue_cards
        assert sum(p.hand[: d.NUM_CARD_TOKENS]) == blue_cards
