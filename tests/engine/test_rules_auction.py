"""Rule scenarios for phase 3c: auctions, prices, debts, the twelve artifact effects, Mirror
and Cloak victims, the Curse of the 9 Sages, and who decides when."""

from __future__ import annotations

import dataclasses

import pytest

from zavandor_env.engine import Game, IllegalActionError, Phase, ReplayError, string_to_action
from zavandor_env.engine.actions import ACTION_NAMES
from zavandor_env.engine.data import ARTIFACTS, Art, Field, Gem, Sen
from zavandor_env.engine.economy import hand_value
from zavandor_env.engine.queries import active_slots, artifact_price, hand_limit, liquid
from zavandor_env.engine.scenario import artifact_index, build, finish_round, play, token_index
from zavandor_env.engine.scoring import victory_points
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL, Purchase

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle

RICH = "dust10:30"


def legal(game):
    return {ACTION_NAMES[a] for a in game.legal_actions()}


def settle_auction(game):
    """Everyone else passes; victims give up their first gem kind."""
    while game.phase != Phase.TURN:
        if game.phase == Phase.BID:
            play(game, "pass")
        else:
            game.apply(game.legal_actions()[0])


def three(**kw):
    """Three rich players in seat order, seat 0 to act."""
    players = kw.pop("players", [{"hand": RICH}, {"hand": RICH}, {"hand": RICH}])
    return build(3, players=players, turn_order=[0, 1, 2], **kw)


# ---- bidding ---------------------------------------------------------------------------------
def test_bidding_goes_round_in_turn_order_from_the_opener():
    game = three(turn_player=1, display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook")
    seen = [game.current_player]
    play(game, "bid_plus_0")
    seen.append(game.current_player)
    play(game, "bid_plus_1")
    seen.append(game.current_player)
    assert seen == [1, 2, 0] and game.turn_player == 1  # deciding player != turn player


def test_the_opener_must_open_at_the_minimum_or_more():
    game = three(display=["spellbook", "runestone", "elixir"])
    play(game, "open_elixir")
    assert "pass" not in legal(game) and "bid_plus_0" in legal(game)
    play(game, "bid_plus_5")
    assert game.state.high_bid == 65 and "bid_plus_0" not in legal(game)


def test_passing_is_final():
    game = three(display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 pass bid_plus_1 bid_plus_1")
    # seat 1 passed: the bid goes 2 -> 0 -> 2 ..., never back to 1
    assert game.current_player == 2
    play(game, "bid_plus_1")
    assert game.current_player == 0


def test_opener_buys_at_the_minimum_when_nobody_raises():
    game = three(display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 pass pass")
    p = game.state.players[0]
    assert p.artifacts[Art.SPELLBOOK] == 1 and hand_value(p.hand) == 300 - 20
    assert game.phase == Phase.TURN and game.current_player == 0


def test_highest_bidder_wins_and_pays_at_once():
    game = three(display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_5 pass pass")
    assert game.state.players[1].artifacts[Art.SPELLBOOK] == 1
    assert hand_value(game.state.players[1].hand) == 300 - 25


def test_bids_above_what_the_bidder_could_pay_are_legal_by_default():
    game = three(players=[{"hand": RICH}, {"active": "", "hand": "dust10:2 dust5"}, {}],
                 display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0")
    assert legal(game) == {"bid_plus_1", "bid_plus_2", "bid_plus_5", "bid_plus_10",
                           "bid_plus_20", "bid_plus_50", "pass"}  # rulebook: the Curse decides


def test_an_unpayable_opening_is_legal_by_default():
    game = three(players=[{"active": "", "hand": "dust10"}, {}, {}],
                 display=["spellbook", "runestone", "elixir"])
    assert "open_elixir" in legal(game) and "open_owl" in legal(game)


def test_affordability_filter_makes_bids_above_what_the_bidder_could_pay_illegal():
    game = three(players=[{"hand": RICH}, {"active": "", "hand": "dust10:2 dust5"}, {}],
                 display=["spellbook", "runestone", "elixir"], allow_overbid=False)
    play(game, "open_spellbook bid_plus_0")
    assert legal(game) == {"bid_plus_1", "bid_plus_2", "bid_plus_5", "pass"}  # up to 25


def test_affordability_filter_forbids_opening_an_unpayable_auction():
    game = three(players=[{"active": "", "hand": "dust10:3"}, {}, {}],
                 display=["spellbook", "runestone", "elixir"], allow_overbid=False)
    assert "open_spellbook" in legal(game) and "open_elixir" not in legal(game)
    assert "open_owl" not in legal(game)


def test_affordability_filter_counts_gem_sales_towards_what_a_bidder_could_pay():
    game = three(players=[{"hand": RICH}, {"active": "diamond", "hand": "dust2"}, {}],
                 display=["spellbook", "runestone", "elixir"], allow_overbid=False)
    play(game, "open_spellbook bid_plus_0")
    assert "bid_plus_2" in legal(game) and "bid_plus_5" not in legal(game)  # 2 + 20


def test_winner_lacking_energy_sells_gems_of_his_choice():
    game = three(players=[{"hand": RICH}, {"active": "diamond sapphire", "hand": "dust10"}, {}],
                 display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_2 pass pass")
    assert game.phase == Phase.DEBT and game.current_player == 1 and game.turn_player == 0
    assert legal(game) == {"sell_diamond", "sell_sapphire"}
    play(game, "sell_diamond")  # 10 + 20 covers 22: paid, change 8
    p = game.state.players[1]
    assert p.artifacts[Art.SPELLBOOK] == 1 and p.active[Gem.SAPPHIRE] == 1
    assert hand_value(p.hand) == 8 and game.phase == Phase.TURN and game.current_player == 0


def test_mirror_and_cloak_need_an_active_gem_to_open():
    game = three(players=[{"active": "", "inactive": "opal", "hand": RICH}, {}, {}],
                 display=["mirror", "elixir", "spellbook"])
    assert "open_magic_mirror" not in legal(game) and "open_elixir" in legal(game)
    play(game, "activate_opal")
    assert "open_magic_mirror" in legal(game)


def test_only_one_belt_and_one_wand():
    players = [{"hand": RICH, "artifacts": "belt"}, {"hand": RICH, "artifacts": "wand"}]
    game = build(6, players=players, display=["belt", "wand", "spellbook"],
                 turn_order=[0, 1, 2, 3, 4, 5], turn_player=0, skip_forced_decisions=False)
    assert "open_magic_belt" not in legal(game) and "open_magic_wand" in legal(game)
    play(game, "open_magic_wand bid_plus_0")
    assert game.current_player == 1 and legal(game) == {"pass"}  # rich, but owns a wand


@pytest.mark.parametrize("art,holdings,price", [
    ("shadow_cloak", {"artifacts": "spellbook:2"}, 80 - 30),
    ("chalice_of_fire", {"artifacts": "runestone:3"}, 80 - 30),
    ("elixir", {"artifacts": "crystal_ball:2"}, 60 - 10),
    ("elixir", {"levels": "fire:1 artifacts:2"}, 60 - 5),
    ("elixir", {"levels": "fire:1 artifacts:3"}, 60 - 5),
    ("elixir", {"levels": "fire:1 artifacts:4"}, 60 - 10),
    ("elixir", {"levels": "fire:1 artifacts:1"}, 60),
])
def test_artifact_price_is_bid_less_discounts(art, holdings, price):
    game = build(6, players=[dict(holdings, hand=RICH)], display=[art], turn_player=0)
    before = liquid(game.state.players[0])
    play(game, f"open_{art} bid_plus_0")
    settle_auction(game)
    assert before - liquid(game.state.players[0]) == price


@pytest.mark.parametrize("holdings,price", [
    ({}, 120),
    ({"artifacts": "mask:2"}, 80),
    ({"levels": "fire:1 artifacts:2"}, 110),
    ({"levels": "fire:1 artifacts:4", "artifacts": "mask"}, 80),
])
def test_sentinel_price_is_bid_less_discounts(holdings, price):
    game = build(6, players=[dict(holdings, hand=RICH)], turn_player=0)
    before = hand_value(game.state.players[0].hand)
    play(game, "open_owl bid_plus_0")
    settle_auction(game)
    assert before - hand_value(game.state.players[0].hand) == price


def test_position_modifier_is_added_to_the_price_not_the_bid():
    players = [{"hand": RICH, "artifacts": "talisman", "active": "opal:2"}] + [{}] * 5
    game = build(6, players=players, turn_player=0)
    assert game.state.turn_order[0] == 0 and game.state.sen_mod[0] == 20
    play(game, "open_owl")
    assert game.state.high_bid == 120
    play(game, "bid_plus_0")
    settle_auction(game)
    assert hand_value(game.state.players[0].hand) == 300 - 140


def test_price_is_floored_at_zero():
    game = build(6, players=[{"artifacts": "spellbook:3", "levels": "fire:1 artifacts:4"}])
    game.state.art_mod[0] = -10  # position VI
    assert artifact_price(game.state, game.state.players[0], Art.CLOAK, 40) == 0


def test_bidding_happens_outside_the_bidders_own_turn():
    game = three(turn_player=2, display=["spellbook", "runestone", "elixir"])
    play(game, "open_runestone bid_plus_0")
    assert game.current_player == 0  # seat 0 already had its turn this round
    play(game, "bid_plus_1 pass pass")
    assert game.state.players[0].artifacts[Art.RUNESTONE] == 1


# ---- artifact effects ------------------------------------------------------------------------
def buy(art, holdings=None, n=2, **kw):
    """Seat 0 opens ``art`` at the minimum and everyone else passes."""
    players = [dict(holdings or {}, hand=RICH)] + [{}] * (n - 1)
    game = build(n, players=players, display=[art], turn_player=0, **kw)
    play(game, f"open_{ARTIFACTS[artifact_index(art)].name} bid_plus_0")
    while game.phase == Phase.BID:
        play(game, "pass")
    return game


def test_spellbook_allows_emeralds():
    game = build(2, players=[{"hand": RICH}], display=["spellbook"], turn_player=0)
    assert "buy_emerald" not in legal(game)
    play(game, "open_spellbook bid_plus_0 pass")
    assert "buy_emerald" in legal(game)  # the gem block is unused, so still open


@pytest.mark.parametrize("art,levels", [("runestone", 1), ("mask_of_charisma", 1), ("talisman", 2)])
def test_free_levels_are_placed_by_the_winner(art, levels):
    game = buy(art, {"levels": "fire:1 sages:1"}, n=6)
    assert game.phase == Phase.FREE_LEVEL and game.current_player == 0
    assert legal(game) == {"advance_fire", "advance_sages"}
    for _ in range(levels):
        play(game, "advance_fire")
    p = game.state.players[0]
    assert p.levels[Field.FIRE] == 1 + levels and game.phase == Phase.TURN
    assert "advance_fire" in legal(game)  # free levels do not use the paid level


def test_talisman_may_split_its_two_levels():
    game = buy("talisman", {"levels": "fire:1 sages:1"})
    play(game, "advance_fire advance_sages")
    assert game.state.players[0].levels[Field.FIRE] == 2
    assert game.state.players[0].levels[Field.SAGES] == 2


def test_free_level_may_place_a_pentagon_chip():
    game = buy("runestone", {"levels": "fire:4", "pentagon": 1})
    assert legal(game) == {f"advance_{f}" for f in
                           ("gemstones", "energy_flow", "sages", "artifacts", "accumulation")}


def test_free_level_without_a_target_is_lost():
    game = buy("runestone", {"levels": "fire:4"})
    assert game.phase == Phase.TURN and game.current_player == 0


def test_crystal_ball_and_wand_raise_the_hand_limit():
    game = buy("crystal_ball")
    assert hand_limit(game.state.players[0]) == 5 + 3
    game = buy("wand")
    p = game.state.players[0]
    assert hand_limit(p) == 5 + 3 and active_slots(p) == 7


def test_belt_adds_two_slots():
    assert active_slots(buy("belt").state.players[0]) == 7


def test_elixir_gives_a_free_inactive_diamond_and_allows_diamonds():
    game = buy("elixir")
    p = game.state.players[0]
    assert p.inactive[Gem.DIAMOND] == 1 and game.state.gem_supply[Gem.DIAMOND] == 23
    assert "activate_diamond" in legal(game)


@pytest.mark.parametrize("art", ["magic_mirror", "shadow_cloak"])
def test_mirror_and_cloak_give_the_most_expensive_free_chip(art):
    game = buy(art, {"chips": "40"})
    p = game.state.players[0]
    assert p.chips_bought == [False, False, False, True, True] and p.pentagon_chips == 2


def test_mirror_victims_each_choose_a_gem_in_turn_order():
    players = [{"hand": RICH}, {"active": "opal sapphire"}, {"active": "sapphire"},
               {"active": "diamond ruby"}]
    game = build(4, players=players, display=["mirror"], turn_order=[2, 0, 3, 1],
                 turn_player=0)
    play(game, "open_magic_mirror bid_plus_0")
    while game.phase == Phase.BID:
        play(game, "pass")
    # seat 2 (position I) has one kind: forced; then seat 3, then seat 1 decide
    assert game.phase == Phase.LOSE_GEM and game.current_player == 3
    assert legal(game) == {"lose_diamond", "lose_ruby"}
    play(game, "lose_ruby")
    assert game.current_player == 1
    play(game, "lose_opal")
    s = game.state
    assert s.players[2].active == [0] * 5 and s.players[3].active[Gem.RUBY] == 0
    assert s.players[1].active[Gem.OPAL] == 0 and s.players[0].active[Gem.OPAL] == 2
    assert game.phase == Phase.TURN and game.current_player == 0


def test_crystal_and_chalice_produce_like_gems():
    game = buy("crystal_of_protection", {"active": ""})
    finish_round(game)
    hand = game.state.players[0].hand
    assert sum(hand[i] for i in range(5, 11)) == 1  # one green card


# ---- the Curse of the 9 Sages (a standard rule: overbids are legal by default) -------------
POOR = {"active": "", "hand": "dust10:2"}  # can pay 20 at most: no gems to sell


def test_curse_eliminates_a_winner_who_cannot_pay():
    game = three(players=[{"hand": RICH}, POOR, {"hand": "dust2"}],
                 display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_50 pass pass")
    s = game.state
    assert s.players[1].eliminated and s.players[1].vp == 0
    assert Art.SPELLBOOK in s.display and s.auction_kind == -1
    assert game.phase == Phase.TURN and game.current_player == 0
    finish_round(game)
    assert 1 not in game.state.turn_order


def test_curse_returns_the_cursed_players_gems_and_cards_to_the_supply():
    game = three(players=[{"hand": RICH}, {"active": "opal", "hand": "blue5 dust10"}, {}],
                 display=["spellbook", "runestone", "elixir"])
    supply = game.state.gem_supply[Gem.OPAL]
    play(game, "open_spellbook bid_plus_0 bid_plus_50 pass pass")  # 70 > 10 + 5 (opal)
    p = game.state.players[1]
    assert p.eliminated and sum(p.active) == 0 and sum(p.hand) == 0
    assert game.state.gem_supply[Gem.OPAL] == supply + 1
    assert game.state.discards[0].count(token_index("blue5")) == 1


def test_a_winner_who_can_pay_by_selling_every_gem_is_not_cursed():
    game = three(players=[{"hand": RICH}, {"active": "diamond", "hand": "dust2"}, {}],
                 display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_2 pass pass")  # 22 = 2 + 20 (diamond)
    p = game.state.players[1]  # the only sale is forced, so it is taken at once
    assert not p.eliminated and p.artifacts[Art.SPELLBOOK] == 1 and p.active[Gem.DIAMOND] == 0


def test_curse_on_the_opener_cancels_the_auction_and_ends_his_turn():
    game = three(players=[POOR, {}, {}], display=["spellbook", "runestone", "elixir"])
    play(game, "open_elixir bid_plus_0 pass pass")  # the opener must pay 60: he has 20
    s = game.state
    assert s.players[0].eliminated and Art.ELIXIR in s.display
    assert game.phase == Phase.TURN and game.turn_player == 1 and game.current_player == 1


def test_a_cursed_player_no_longer_bids_or_takes_turns():
    game = three(players=[{"hand": RICH}, POOR, {"hand": RICH}],
                 display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_50 pass pass")
    play(game, "open_runestone bid_plus_0")
    assert game.current_player == 2  # seat 1 is skipped
    play(game, "pass end_turn")
    assert game.turn_player == 2  # seat 1's turn is skipped too


def test_a_cursed_players_sentinels_still_count_towards_the_game_end():
    game = three(players=[{"hand": RICH}, dict(POOR, sentinels="phoenix fox owl toad"), {}],
                 display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_50 pass pass")
    play(game, "open_tomcat bid_plus_0 pass")  # the fifth sentinel acquired
    finish_round(game)
    assert game.terminated and game.winners() == [0] and game.scores()[1] == 0


def test_curse_in_a_two_player_game_ends_it_and_the_survivor_wins():
    game = build(2, players=[{"hand": RICH}, POOR], display=["spellbook", "elixir"],
                 turn_order=[0, 1])
    play(game, "buy_opal open_spellbook bid_plus_0 bid_plus_50 pass")
    s = game.state
    assert game.terminated and not game.truncated and game.phase == Phase.GAME_OVER
    assert game.winners() == [0] and game.current_player == -1 and game.legal_actions() == ()
    p = s.players[0]
    # The survivor's unpaid opal is settled and the final VP are recounted (4 gems now).
    assert p.balance == 0 and hand_value(p.hand) == 300 - 10
    assert game.scores() == [victory_points(p), 0] == [4, 0]


def test_game_ended_by_the_curse_saves_and_loads():
    game = build(2, players=[{"hand": RICH}, POOR], display=["spellbook", "elixir"],
                 turn_order=[0, 1])
    play(game, "open_spellbook bid_plus_0 bid_plus_50 pass")
    copy = Game.from_json(game.to_json())
    assert copy.terminated and copy.winners() == [0] and copy.to_json() == game.to_json()


# ---- the record of purchases -------------------------------------------------------------
def test_every_won_auction_is_recorded_with_its_bid_and_price():
    players = [{"hand": RICH}, {"hand": RICH, "artifacts": "crystal_ball:2"}, {"hand": RICH}]
    game = three(players=players, display=["spellbook", "runestone", "elixir"])
    assert game.state.purchases == []
    play(game, "open_elixir bid_plus_0 bid_plus_5 pass pass")  # seat 1 wins at 65, pays 55
    play(game, "open_owl bid_plus_0 pass pass")
    assert game.state.purchases == [
        (1, 1, ITEM_ARTIFACT, Art.ELIXIR, 65, 65 - 10),
        (1, 0, ITEM_SENTINEL, Sen.OWL, 120, 120),
    ]


def test_purchase_price_includes_the_turn_order_modifier():
    players = [{"hand": RICH, "artifacts": "talisman", "active": "opal:2"}] + [{}] * 5
    game = build(6, players=players, turn_player=0)
    play(game, "open_owl bid_plus_0")
    settle_auction(game)
    assert game.state.purchases == [(1, 0, ITEM_SENTINEL, Sen.OWL, 120, 140)]


def test_a_purchase_paid_by_selling_gems_is_recorded_once_paid():
    game = three(players=[{"hand": RICH}, {"active": "diamond sapphire", "hand": "dust10"}, {}],
                 display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_2 pass pass")
    assert game.state.purchases == []  # still in debt
    play(game, "sell_diamond")
    assert game.state.purchases == [(1, 1, ITEM_ARTIFACT, Art.SPELLBOOK, 22, 22)]


def test_a_cursed_win_is_not_a_purchase():
    game = three(players=[{"hand": RICH}, POOR, {}], display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_50 pass pass")
    assert game.state.purchases == []


def test_purchases_survive_clone_and_json_round_trip():
    game = three(display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_1 pass pass")
    copy = Game.from_json(game.to_json())
    purchases = game.state.purchases
    assert copy.state.purchases == purchases == game.clone().state.purchases
    assert copy.to_json() == game.to_json()
    play(game, "open_runestone bid_plus_0 pass pass")  # a clone's record is its own
    assert len(game.state.purchases) == 2 and len(copy.state.purchases) == 1


def test_purchase_record_reads_as_a_frozen_purchase():
    record = Purchase(3, 1, ITEM_ARTIFACT, Art.ELIXIR, 65, 55)
    assert record.item_name == "elixir"
    assert Purchase(3, 1, ITEM_SENTINEL, Sen.OWL, 120, 0).item_name == "owl"
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.price = 0  # type: ignore[misc]


def test_game_purchases_lists_the_won_auctions():
    game = three(display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_1 pass pass")
    assert game.purchases == [Purchase(1, 1, ITEM_ARTIFACT, Art.SPELLBOOK, 21, 21)]


def _purchase_saved() -> dict:
    game = three(display=["spellbook", "runestone", "elixir"])
    play(game, "open_spellbook bid_plus_0 bid_plus_1 pass pass")
    return game.to_dict()


@pytest.mark.parametrize("bad", [
    "not a list", [[1, 1, 0, 0, 21]], [[1, 1, 0, 0, 21, "21"]], [[1, 1, 0, 0, 21, 21.0]],
    [[1, 9, 0, 0, 21, 21]],  # no such seat
    [[1, 1, 2, 0, 21, 21]],  # no such kind
    [[1, 1, 0, 12, 21, 21]],  # no such artifact
    [[1, 1, 1, 9, 120, 120]],  # no such sentinel
    [[1, 1, 0, 0, 19, 19]],  # below the minimum bid
    [[1, 1, 0, 0, 21, 40]],  # more than the bid plus any surcharge
    [[1, 1, 0, 0, 21, -1]],  # negative price
    [[2, 1, 0, 0, 21, 21]],  # a round still to come
    [[1, 1, 0, 0, 21, 21]] * 40,  # more purchases than items
])
def test_saved_game_with_a_malformed_purchase_record_is_rejected(bad):
    data = _purchase_saved()
    data["state"]["purchases"] = bad
    with pytest.raises(ReplayError):
        Game.from_dict(data)


def test_purchase_rounds_must_not_go_backwards():
    data = _purchase_saved()
    data["state"]["round"] = 3
    data["state"]["purchases"] = [[3, 1, 0, 0, 21, 21], [2, 0, 0, 1, 20, 20]]
    with pytest.raises(ReplayError, match="out of order"):
        Game.from_dict(data)


# ---- options ---------------------------------------------------------------------------------
def test_with_the_affordability_filter_the_curse_cannot_happen():
    game = three(players=[{"hand": RICH}, {"active": "", "hand": "dust10:2"}, {}],
                 display=["spellbook", "runestone", "elixir"], allow_overbid=False)
    play(game, "open_spellbook bid_plus_0")
    with pytest.raises(IllegalActionError):
        game.apply(string_to_action("bid_plus_50"))


# The affordability filter leaves penniless bidders a single legal action (pass).
def test_forced_decisions_are_asked_when_skipping_is_off():
    game = three(players=[{"hand": RICH}, {"active": ""}, {"active": ""}],
                 display=["spellbook", "runestone", "elixir"], skip_forced_decisions=False,
                 allow_overbid=False)
    play(game, "open_spellbook bid_plus_0")
    assert game.current_player == 1 and legal(game) == {"pass"}
    play(game, "pass pass")
    assert game.state.players[0].artifacts[Art.SPELLBOOK] == 1


def test_forced_decisions_are_taken_automatically_by_default():
    game = three(players=[{"hand": RICH}, {"active": ""}, {"active": ""}],
                 display=["spellbook", "runestone", "elixir"], allow_overbid=False)
    play(game, "open_spellbook bid_plus_0")
    assert game.state.players[0].artifacts[Art.SPELLBOOK] == 1
    assert game.history == [string_to_action("open_spellbook"), string_to_action("bid_plus_0")]
