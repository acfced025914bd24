"""Rule scenarios for the round structure: phase 1 (turn order, display, position price
modifiers), phase 2 (income) and phase 4 (hand limit, VP recount, game end)."""

from __future__ import annotations

import pytest

from zavandor_env.engine import Phase
from zavandor_env.engine.data import (
    CONC_TOKEN0,
    DUST_TOKEN0,
    NUM_CARD_TOKENS,
    TOKEN_COLOUR,
    Colour,
)
from zavandor_env.engine.economy import enforce_hand_limit, hand_value
from zavandor_env.engine.flow import start_round
from zavandor_env.engine.queries import hand_limit
from zavandor_env.engine.scenario import build, finish_round, play, token_names
from zavandor_env.engine.scoring import victory_points

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle


def cards_by_colour(hand):
    counts = [0, 0, 0, 0]
    for t in range(NUM_CARD_TOKENS):
        counts[TOKEN_COLOUR[t]] += hand[t]
    return counts


def dust_value(hand):
    return sum(hand[DUST_TOKEN0 + i] * v for i, v in enumerate((1, 2, 5, 10)))


# ---- phase 1 -----------------------------------------------------------------------------
def test_turn_order_follows_vp_then_gem_vp():
    game = build(3, players=[
        {},  # 3 VP, all from gems
        {"artifacts": "spellbook"},  # 4 VP
        {"active": "opal:2", "artifacts": "runestone"},  # 3 VP, only 2 from gems
    ])
    finish_round(game)
    assert game.state.turn_order == [1, 0, 2]


def test_turn_order_ties_are_broken_at_random():
    firsts = {build(2, seed=seed).state.turn_order[0] for seed in range(20)}
    assert firsts == {0, 1}


def test_display_is_not_refilled_when_no_artifact_was_auctioned():
    game = build(3, display=["spellbook", "runestone"])
    finish_round(game)
    assert game.state.display == [0, 1]


def test_display_is_refilled_after_an_artifact_auction():
    game = build(3, players=[{"hand": "dust10:2"}], display=["spellbook", "runestone", "elixir"],
                 deck_top=["talisman"], turn_order=[0, 1, 2])
    play(game, "open_spellbook bid_plus_0 pass pass")
    assert game.state.players[0].artifacts[0] == 1 and len(game.state.display) == 2
    finish_round(game)
    assert sorted(game.state.display) == [1, 6, 11]


SIX = [
    {"artifacts": "talisman", "active": "opal:2 sapphire"},  # 11 VP
    {"artifacts": "talisman", "active": "opal:2"},  # 10 VP
    {}, {}, {}, {},
]


def test_position_modifiers_apply_once_the_leader_has_10_vp():
    game = finish_round(build(6, players=SIX))
    s = game.state
    assert s.turn_order[:2] == [0, 1]
    mods = [(s.art_mod[seat], s.sen_mod[seat]) for seat in s.turn_order]
    assert mods == [(10, 20), (5, 10), (0, 0), (0, 0), (-5, -10), (-10, -20)]


def test_position_ii_pays_extra_only_with_10_vp_himself():
    players = [SIX[0], {"artifacts": "chalice"}] + [{}] * 4  # II has 7 VP
    s = finish_round(build(6, players=players)).state
    assert s.art_mod[s.turn_order[0]] == 10 and s.art_mod[s.turn_order[1]] == 0
    assert s.art_mod[s.turn_order[5]] == -10


def test_no_position_modifier_before_the_leader_has_10_vp():
    players = [{"artifacts": "chalice", "active": "opal:2 sapphire"}] + [{}] * 5  # 7 VP
    s = finish_round(build(6, players=players)).state
    assert s.art_mod == [0] * 6 and s.sen_mod == [0] * 6


def test_catchup_variant_deals_v_and_vi_in_four_player_games():
    players = [{"artifacts": "talisman", "active": "opal:2 sapphire"}, {}, {}, {}]
    for catchup, last_two in ((False, [(0, 0), (0, 0)]), (True, [(-5, -10), (-10, -20)])):
        s = finish_round(build(4, players=players, catchup_small_games=catchup)).state
        assert [(s.art_mod[x], s.sen_mod[x]) for x in s.turn_order[2:]] == last_two


# ---- phase 2 -----------------------------------------------------------------------------
@pytest.mark.parametrize("opals,dust", [(1, 2), (2, 5), (3, 10), (4, 12), (5, 15), (6, 20),
                                        (7, 22), (8, 25), (9, 30)])
def test_opals_produce_dust_by_the_table(opals, dust):
    game = build(2, players=[{"active": f"opal:{opals}", "artifacts": "belt wand"}])
    finish_round(game)
    assert hand_value(game.state.players[0].hand) == dust


def test_each_producing_gem_and_artifact_gives_one_card_of_its_colour():
    game = build(2, players=[{"active": "sapphire emerald diamond ruby",
                              "artifacts": "protection chalice"}])
    finish_round(game)
    assert cards_by_colour(game.state.players[0].hand) == [1, 2, 1, 2]


def test_four_cards_of_a_colour_become_a_concentrated_card_and_2_dust():
    game = build(2, players=[{"active": "sapphire:5"}])
    hand = finish_round(game).state.players[0].hand
    assert hand[CONC_TOKEN0 + Colour.BLUE] == 1 and cards_by_colour(hand)[Colour.BLUE] == 1
    assert dust_value(hand) == 2


def test_concentrated_card_counts_mixed_sources():
    game = build(2, players=[{"active": "emerald:3", "artifacts": "spellbook protection"}])
    hand = finish_round(game).state.players[0].hand
    assert hand[CONC_TOKEN0 + Colour.GREEN] == 1 and cards_by_colour(hand)[Colour.GREEN] == 0
    assert dust_value(hand) == 2


def test_exhausted_concentrated_supply_gives_four_cards_without_dust():
    game = build(2, players=[{"active": "emerald:3", "artifacts": "spellbook protection"},
                             {"hand": "conc_green:8"}])
    assert game.state.concentrated_supply[Colour.GREEN] == 0
    start_round(game.state)  # phases 1-2 only: the holder keeps all eight
    hand = game.state.players[0].hand
    assert hand[CONC_TOKEN0 + Colour.GREEN] == 0 and cards_by_colour(hand)[Colour.GREEN] == 4
    assert dust_value(hand) == 0


@pytest.mark.parametrize("level,dust", [(1, 0), (2, 2), (3, 5), (4, 10)])
def test_energy_flow_gives_dust_every_round(level, dust):
    game = build(2, players=[{"active": "", "levels": f"energy_flow:{level}"}])
    assert hand_value(finish_round(game).state.players[0].hand) == dust


def test_first_round_income_is_5_dust_and_a_blue_card():
    from zavandor_env.engine import Game
    game = Game.new(num_players=2, characters=("druid", "mage"), seed=3)
    for p in game.state.players:
        start = {0: 20, 1: 15}[p.seat]
        assert dust_value(p.hand) == start + 5 and cards_by_colour(p.hand) == [1, 0, 0, 0]


def test_empty_deck_is_refilled_by_shuffling_its_discards():
    game = build(2, players=[{"active": "sapphire"}, {"active": "opal:2"}], decks={"blue": ""})
    s = game.state
    assert s.decks[Colour.BLUE] == [] and len(s.discards[Colour.BLUE]) == 30
    finish_round(game)
    s = game.state
    assert cards_by_colour(s.players[0].hand)[Colour.BLUE] == 1
    assert len(s.decks[Colour.BLUE]) == 29 and s.discards[Colour.BLUE] == []


def test_empty_deck_and_discards_pay_the_colour_mean_in_dust():
    # Every blue card waits under the other players' turn-order cards (a reachable table: at
    # most 8 each, two per 9-Sages level entered in one round).
    every_blue = ["blue3:3 blue4:5", "blue4:1 blue5:7", "blue5:5 blue6:3", "blue6:3 blue7:3"]
    others = [{"active": "", "sages": cards} for cards in every_blue]
    game = build(5, players=[others[0], {"active": "sapphire"}, *others[1:]],
                 decks={"blue": ""})
    finish_round(game)
    assert game.state.players[1].hand[:NUM_CARD_TOKENS] == [0] * NUM_CARD_TOKENS
    assert dust_value(game.state.players[1].hand) == 5


# ---- phase 4 -----------------------------------------------------------------------------
def test_hand_limit_keeps_the_most_valuable_items():
    game = build(2, players=[{"active": "", "hand": "red17 red16 blue3 blue4 conc_blue dust2"}])
    p = game.state.players[0]
    assert hand_limit(p) == 5  # druid
    finish_round(game)
    assert token_names(game.state.players[0].hand) == "red16 red17 conc_blue"


def test_hand_limit_exchanges_dust_upward_to_fit():
    game = build(2, players=[{"active": "", "hand": "red17 red16 dust5:2"}])
    p = game.state.players[0]
    enforce_hand_limit(game.state, p, 5)
    assert token_names(p.hand) == "red16 red17 dust10"


def test_hand_limit_never_breaks_a_chit_into_smaller_ones():
    # Found by this layer: the engine used to turn the 5 into a 2 to fill the last slot.
    game = build(2, players=[{"hand": "red17 red16 red15 red14 dust5"}])
    p = game.state.players[0]
    enforce_hand_limit(game.state, p, 5)
    assert token_names(p.hand) == "red14 red15 red16 red17"


def test_lossy_dust_exchange_is_made_only_when_it_keeps_more():
    game = build(2, players=[{"hand": "red17 red16 red15 dust2:3"}])
    p = game.state.players[0]
    enforce_hand_limit(game.state, p, 5)  # 2+2+2 -> 5 keeps 5 of the 6 in two slots
    assert token_names(p.hand) == "red15 red16 red17 dust5"


def test_nine_sages_cards_are_exempt_from_the_hand_limit():
    game = build(2, players=[{"active": "", "hand": "red13 red14 red15 red16 red17",
                              "sages": "blue5 blue6"}])
    finish_round(game)
    hand = game.state.players[0].hand
    assert token_names(hand) == "blue5 blue6 red13 red14 red15 red16 red17"


def test_vp_are_recounted_from_scratch_with_capped_sentinel_bonuses():
    game = build(2, players=[{
        "active": "sapphire:7", "levels": "fire:1 accumulation:4",
        "sentinels": "fox phoenix", "artifacts": "belt", "vp": 99,
    }])
    p = game.state.players[0]
    # 7 gems + 2 (accumulation L4) + belt 2 + fox 5+12 (capped) + phoenix 5+2
    assert victory_points(p) == 7 + 2 + 2 + 17 + 7
    finish_round(game)
    assert game.state.players[0].vp == 35


@pytest.mark.parametrize("sentinel,holdings,bonus", [
    ("owl", {"levels": "fire:4 sages:4 gemstones:4 energy_flow:4 artifacts:4 accumulation:4"}, 12),
    ("toad", {"artifacts": "runestone spellbook:2 elixir protection"}, 10),
    ("unicorn", {"active": "diamond:3"}, 3),
    ("tomcat", {"active": "opal:7", "artifacts": "belt"}, 12),
    ("scarab", {"active": "emerald:2", "artifacts": "protection"}, 2),
    ("raven", {"artifacts": "crystal_ball mask belt wand"}, 8),
    ("salamander", {"active": "ruby:2", "artifacts": "chalice"}, 4),
])
def test_sentinel_bonus(sentinel, holdings, bonus):
    from zavandor_env.engine.scoring import sentinel_vp
    game = build(6, players=[dict(holdings, sentinels=sentinel)])
    p = game.state.players[0]
    assert sentinel_vp(p, p.sentinels[0]) == 5 + bonus


def test_game_ends_when_five_sentinels_are_owned_and_ties_share_the_win():
    game = build(3, players=[
        {"sentinels": "phoenix fox", "hand": "dust10:14"},  # I with 19 VP: +20
        {"sentinels": "owl toad"},
        {"active": "", "artifacts": "talisman chalice", "hand": ""},
    ], turn_order=[0, 1, 2])
    play(game, "open_tomcat bid_plus_0 pass pass")  # 120 + 20 for the fifth
    assert game.state.players[0].sentinels == [0, 2, 5]
    assert not game.is_over
    finish_round(game)
    assert game.terminated and game.phase == Phase.GAME_OVER
    # seat 0: 3 gems + phoenix 5+4 + fox 5+2 + tomcat 5+4 = 28; seat 1: 3 + 5 + 5 = 13
    assert game.scores()[:2] == [28, 13]
    assert game.winners() == [0]


def test_tied_players_share_the_win():
    game = build(2, players=[
        {"sentinels": "phoenix fox toad owl unicorn"},  # 3 + 9 + 7 + 5 + 5 + 5 = 34
        {"artifacts": "talisman chalice cloak mask wand elixir belt mirror crystal_ball "
                      "runestone"},  # 3 + 31
    ])
    finish_round(game)
    assert game.terminated and game.scores() == [34, 34] and game.winners() == [0, 1]
