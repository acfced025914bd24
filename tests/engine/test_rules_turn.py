"""Rule scenarios for a phase-3 turn: gems (3a), knowledge (3b), action blocks and the
automatic payment (change, lost 1s, combined costs)."""

from __future__ import annotations

import pytest

from zavandor_env.engine import IllegalActionError, string_to_action
from zavandor_env.engine.actions import ACTION_NAMES
from zavandor_env.engine.data import DUST_TOKEN0, Field, Gem
from zavandor_env.engine.economy import hand_value
from zavandor_env.engine.queries import active_slots, hand_limit, liquid
from zavandor_env.engine.scenario import build, finish_round, play, token_names

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle


def legal(game):
    return {ACTION_NAMES[a] for a in game.legal_actions()}


RICH = "dust10:20"


# ---- 3a gems -----------------------------------------------------------------------------
@pytest.mark.parametrize("gem,holdings,allowed", [
    ("emerald", {}, False),
    ("emerald", {"artifacts": "spellbook"}, True),
    ("diamond", {}, False),
    ("diamond", {"artifacts": "elixir"}, True),
    ("ruby", {"levels": "fire:3"}, False),
    ("ruby", {"levels": "fire:4"}, True),
    ("ruby", {"levels": "fire:4", "active": "ruby:5"}, False),  # at most 5 rubies
    ("ruby", {"levels": "fire:4", "active": "ruby:3", "inactive": "ruby:2"}, False),
    ("ruby", {"levels": "fire:4", "active": "ruby:4", "artifacts": "chalice"}, True),
])
def test_gem_purchase_prerequisites(gem, holdings, allowed):
    game = build(2, characters=("mage", "kobold"), players=[dict(holdings, hand=RICH)])
    assert (f"buy_{gem}" in legal(game)) == allowed


def test_druid_may_buy_exactly_one_ruby_at_fire_3():
    game = build(2, players=[{"levels": "fire:3", "hand": RICH}])
    play(game, "buy_ruby")
    assert game.state.players[0].druid_ruby_used and "buy_ruby" not in legal(game)
    other = build(2, characters=("mage", "druid"), players=[{"levels": "fire:3", "hand": RICH}])
    assert "buy_ruby" not in legal(other)  # exclusive to the Druid


def test_druid_l3_ruby_option_off():
    game = build(2, players=[{"levels": "fire:3", "hand": RICH}], druid_l3_ruby=False)
    assert "buy_ruby" not in legal(game)


def test_gem_supply_limits_purchases():
    game = build(3, players=[{"hand": RICH}, {"active": "", "inactive": "opal:24"}, {}])
    assert game.state.gem_supply[Gem.OPAL] == 0
    assert "buy_opal" not in legal(game) and "buy_sapphire" in legal(game)


@pytest.mark.parametrize("level,cost", [(1, 18), (2, 16), (3, 14), (4, 12)])
def test_knowledge_of_gemstones_discounts_gems(level, cost):
    game = build(2, characters=("witch", "druid"),
                 players=[{"levels": f"gemstones:{level}", "dust": cost}])
    play(game, "buy_sapphire")
    assert liquid(game.state.players[0]) == 0
    play(game, "end_turn")
    assert hand_value(game.state.players[0].hand) == 0


@pytest.mark.parametrize("level,value", [(0, 20), (2, 16)])
def test_selling_returns_half_the_current_price(level, value):
    levels = f"fire:1 gemstones:{level}" if level else "fire:1"
    game = build(2, players=[{"levels": levels, "active": "diamond"}], turn_order=[0, 1])
    play(game, "sell_diamond")
    state = game.state
    assert state.gem_supply[Gem.DIAMOND] == 24 and liquid(state.players[0]) == value
    play(game, "end_turn")  # sale proceeds not spent are received as dust
    assert hand_value(game.state.players[0].hand) == value


def test_selling_takes_an_inactive_gem_first():
    game = build(2, players=[{"active": "opal:2", "inactive": "opal"}], turn_player=0)
    play(game, "sell_opal")
    p = game.state.players[0]
    assert p.active[Gem.OPAL] == 2 and p.inactive[Gem.OPAL] == 0


def test_bought_gem_goes_to_the_spiral_while_a_slot_is_free():
    game = build(2, players=[{"active": "opal:4", "hand": RICH}])
    play(game, "buy_opal buy_opal")
    p = game.state.players[0]
    assert p.active[Gem.OPAL] == 5 and p.inactive[Gem.OPAL] == 1
    assert "activate_opal" not in legal(game) and "deactivate_opal" in legal(game)
    play(game, "deactivate_opal")
    assert game.state.players[0].inactive[Gem.OPAL] == 2


def test_a_gem_move_is_not_undone_within_the_turn():
    game = build(2, players=[{"active": "opal:4 sapphire", "inactive": "sapphire"}])
    play(game, "deactivate_opal")
    assert "activate_opal" not in legal(game)  # would undo the move
    assert "activate_sapphire" in legal(game)
    play(game, "activate_sapphire")
    assert "deactivate_sapphire" not in legal(game) and "deactivate_opal" in legal(game)


def test_gem_moves_may_be_undone_with_the_option_off():
    game = build(2, players=[{"active": "opal:4 sapphire", "inactive": "sapphire"}],
                 no_undo_activation=False)
    play(game, "deactivate_opal activate_opal deactivate_opal")
    assert game.state.players[0].inactive[Gem.OPAL] == 1


def test_gem_moves_are_free_again_next_turn():
    game = build(2, players=[{"active": "opal:4 sapphire"}, {}], turn_player=0)
    play(game, "deactivate_opal end_turn")
    while game.current_player != 0 or game.state.round == 1:
        game.apply(game.legal_actions()[0])  # end_turn for the other seat, then round 2
    assert "activate_opal" in legal(game)


@pytest.mark.parametrize("holdings,slots", [
    ({}, 5),
    ({"levels": "fire:1 accumulation:1"}, 5),
    ({"levels": "fire:1 accumulation:2"}, 6),
    ({"levels": "fire:1 accumulation:3"}, 6),
    ({"levels": "fire:1 accumulation:4"}, 7),
    ({"artifacts": "belt"}, 7),
    ({"artifacts": "wand"}, 7),
    ({"levels": "fire:1 accumulation:4", "artifacts": "belt wand"}, 11),
])
def test_active_slots(holdings, slots):
    game = build(2, players=[holdings])
    assert active_slots(game.state.players[0]) == slots


# ---- 3b knowledge --------------------------------------------------------------------------
def test_chips_may_be_bought_in_any_order():
    game = build(2, players=[{"hand": RICH}])
    assert {f"buy_chip_{c}" for c in (20, 25, 30, 35, 40)} <= legal(game)
    play(game, "buy_chip_40")
    p = game.state.players[0]
    assert p.pentagon_chips == 1 and p.chips_bought == [False] * 4 + [True]


def test_a_chip_placed_at_level_1_is_the_one_paid_level_of_the_turn():
    game = build(2, players=[{"hand": RICH}])
    play(game, "buy_chip_20 advance_sages")
    p = game.state.players[0]
    assert p.levels[Field.SAGES] == 1 and p.pentagon_chips == 0
    assert not any(n.startswith("advance_") for n in legal(game))
    play(game, "buy_chip_25")  # buying a chip is not a level
    assert game.state.players[0].pentagon_chips == 1


def test_only_one_paid_level_per_turn_then_again_next_turn():
    game = build(2, players=[{"hand": RICH}], turn_order=[0, 1])
    play(game, "advance_fire")
    assert "advance_fire" not in legal(game)
    finish_round(game)
    while game.state.turn_player != 0:
        play(game, "end_turn")
    assert "advance_fire" in legal(game)


def test_hand_limit_changes_once_on_entering_a_field():
    game = build(2, characters=("mage", "druid"), players=[{"hand": RICH, "pentagon": 1}],
                 turn_order=[0, 1])
    p = game.state.players[0]
    assert hand_limit(p) == 6
    play(game, "advance_gemstones")
    p = game.state.players[0]
    assert hand_limit(p) == 5
    p.levels[Field.GEMSTONES] = 3
    assert hand_limit(p) == 5


def test_level_4_scores_2_vp():
    game = build(2, players=[{"levels": "fire:3", "hand": RICH}], turn_order=[0, 1])
    play(game, "advance_fire")
    finish_round(game)
    assert game.state.players[0].vp == 3 + 2


def test_level_costs_are_printed_energy_units():
    game = build(2, players=[{"levels": "fire:2", "dust": 15}])
    play(game, "advance_fire end_turn")  # fire L3 costs 15
    assert hand_value(game.state.players[0].hand) == 0


@pytest.mark.parametrize("level,colour", [(1, "blue"), (2, "green"), (3, "white"), (4, "red")])
def test_nine_sages_level_gives_two_cards_usable_next_round(level, colour):
    means = {"artifacts": "spellbook elixir chalice"}
    levels = f"fire:1 sages:{level - 1}" if level > 1 else "fire:1"
    game = build(2, players=[dict(means, levels=levels, hand=RICH, pentagon=int(level == 1))],
                 turn_order=[0, 1])
    play(game, "advance_sages")
    p = game.state.players[0]
    assert len(p.sages_tokens) == 2 and all(
        token_names([1 if t == x else 0 for t in range(29)]).startswith(colour)
        for x in p.sages_tokens
    )
    cards = list(p.sages_tokens)
    play(game, "end_turn")
    p = game.state.players[0]
    assert p.sages_tokens == cards  # still under the turn-order card: not usable this round
    finish_round(game)
    p = game.state.players[0]
    assert p.sages_tokens == [] and all(p.hand[t] >= 1 for t in cards)


def test_nine_sages_cards_without_means_become_dust():
    game = build(2, players=[{"levels": "fire:1 sages:1", "hand": RICH}], turn_order=[0, 1])
    play(game, "advance_sages")
    p = game.state.players[0]
    assert p.sages_tokens == [] and 10 <= p.sages_dust <= 20  # two green cards' value
    before = hand_value(p.hand) - 6
    play(game, "end_turn")
    assert hand_value(game.state.players[0].hand) == before  # not usable this round


def test_druid_who_owns_his_fire_3_ruby_gets_red_sages_cards_not_dust():
    # Rulebook: dust only with "no means to get" red cards; his ruby is such a means.
    game = build(2, players=[{"levels": "fire:3 sages:3", "hand": RICH}], turn_order=[0, 1])
    play(game, "buy_ruby advance_sages")
    p = game.state.players[0]
    assert p.druid_ruby_used and p.active[Gem.RUBY] == 1
    assert len(p.sages_tokens) == 2 and p.sages_dust == 0
    assert all(token_names([int(t == x) for t in range(29)]).startswith("red")
               for x in p.sages_tokens)


# (level entered, holdings, has means): every way to have -- or lack -- each colour's means.
SAGES_MEANS = [
    (1, {"active": ""}, True),  # blue: anyone may buy sapphires
    (2, {}, False),
    (2, {"active": "emerald"}, True),
    (2, {"inactive": "emerald"}, True),
    (2, {"artifacts": "spellbook"}, True),
    (2, {"artifacts": "protection"}, True),
    (2, {"artifacts": "elixir chalice"}, False),  # means of other colours do not count
    (3, {}, False),
    (3, {"active": "diamond"}, True),
    (3, {"inactive": "diamond"}, True),
    (3, {"artifacts": "elixir"}, True),
    (4, {}, False),
    (4, {"active": "ruby"}, True),
    (4, {"inactive": "ruby"}, True),
    (4, {"artifacts": "chalice"}, True),
    (4, {"fire": 4}, True),
    (4, {"fire": 3}, True),  # the Druid's unused Fire-3 ruby
    (4, {"fire": 3, "druid_ruby_used": True}, False),  # used, and the ruby is gone (sold)
    (4, {"fire": 4, "active": "ruby:5"}, True),  # at the 5-ruby cap he owns rubies
]


def _means_id(case):
    level, holdings, means = case
    held = "_".join(f"{k}={v or 'none'}".replace(" ", "+") for k, v in holdings.items())
    held = held or "nothing"
    return f"L{level}-{held}-{'cards' if means else 'dust'}"


@pytest.mark.parametrize("level,holdings,means", SAGES_MEANS, ids=map(_means_id, SAGES_MEANS))
def test_nine_sages_cards_become_dust_only_without_means_for_their_colour(
    level, holdings, means
):
    spec = dict(holdings)
    fire = spec.pop("fire", 1)
    levels = f"fire:{fire} sages:{level - 1}" if level > 1 else f"fire:{fire}"
    player = dict(spec, levels=levels, hand=RICH, pentagon=int(level == 1))
    game = build(2, players=[player], turn_order=[0, 1])  # seat 0 is the Druid
    play(game, "advance_sages")
    p = game.state.players[0]
    assert (len(p.sages_tokens), p.sages_dust > 0) == ((2, False) if means else (0, True))


def test_fire_3_gives_no_red_means_to_anyone_but_the_druid():
    game = build(2, characters=("mage", "druid"),
                 players=[{"levels": "fire:3 sages:3", "hand": RICH}], turn_order=[0, 1])
    play(game, "advance_sages")
    p = game.state.players[0]
    assert p.sages_tokens == [] and p.sages_dust > 0


def test_nine_sages_dust_substitution_option_off():
    game = build(2, players=[{"levels": "fire:1 sages:1", "hand": RICH}],
                 sages_dust_substitution=False)
    play(game, "advance_sages")
    p = game.state.players[0]
    assert len(p.sages_tokens) == 2 and p.sages_dust == 0


# ---- blocks (FAQ: no split) ----------------------------------------------------------------
def test_a_closed_block_cannot_be_reopened():
    game = build(2, players=[{"hand": RICH}])
    play(game, "buy_opal advance_fire")  # the knowledge block closes the gem block
    assert not any(n.startswith(("buy_", "sell_")) and not n.startswith("buy_chip")
                   for n in legal(game))
    play(game, "end_block")
    assert not any(n.startswith(("advance_", "buy_chip")) for n in legal(game))
    with pytest.raises(IllegalActionError):
        game.apply(string_to_action("buy_opal"))


def test_blocks_may_be_split_with_the_option_off():
    game = build(2, players=[{"hand": RICH}], no_split_blocks=False)
    play(game, "buy_opal advance_fire buy_opal")
    assert game.state.players[0].active[Gem.OPAL] == 4


# ---- payment -------------------------------------------------------------------------------
def test_change_is_given_in_dust():
    game = build(2, players=[{"hand": "white12"}])
    play(game, "buy_opal end_turn")
    assert token_names(game.state.players[0].hand) == "dust2"


def test_change_of_1_is_lost():
    game = build(2, players=[{"hand": "white11"}])
    play(game, "buy_opal end_turn")
    assert hand_value(game.state.players[0].hand) == 0


def test_one_value_dust_variant_returns_every_unit():
    game = build(2, players=[{"hand": "white11"}], one_value_dust=True)
    play(game, "buy_opal end_turn")
    assert token_names(game.state.players[0].hand) == "dust1"


def test_costs_of_a_turn_are_combined_into_one_payment():
    game = build(2, players=[{"hand": "green7 green6 blue7"}])
    play(game, "buy_opal")
    p = game.state.players[0]
    assert token_names(p.hand) == "blue7 green6 green7" and p.balance == 10
    play(game, "buy_opal end_turn")  # 7 + 6 + 7 = 20 exactly: nothing lost
    p = game.state.players[0]
    assert hand_value(p.hand) == 0 and p.hand[DUST_TOKEN0:] == [0, 0, 0, 0]


def test_sale_proceeds_pay_for_purchases_in_the_same_turn():
    game = build(2, players=[{"active": "opal:2 diamond"}])
    play(game, "sell_diamond buy_opal buy_opal end_turn")
    p = game.state.players[0]
    assert p.active[Gem.OPAL] == 4 and hand_value(p.hand) == 0
