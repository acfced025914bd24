"""The scenario builder keeps the table consistent: what it hands out is taken from the
supplies, and impossible requests fail with a clear error."""

from __future__ import annotations

import numpy as np
import pytest

from zavandor_env.engine import Art, Field, Phase, action_to_string
from zavandor_env.engine.actions import OPEN_ARTIFACT, OPEN_SENTINEL
from zavandor_env.engine.data import (
    ARTIFACTS,
    CONCENTRATED_PER_COLOUR,
    COPIES_BY_PLAYERS,
    GEM_SUPPLY,
    NUM_CARD_TOKENS,
    SENTINELS,
    TOKEN_COLOUR,
)
from zavandor_env.engine.scenario import (
    ScenarioError,
    artifact_index,
    build,
    parse_tokens,
    token_names,
)

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle


def totals(game):
    s = game.state
    gems = [s.gem_supply[g] + sum(p.active[g] + p.inactive[g] for p in s.players)
            for g in range(5)]
    cards = [len(s.decks[c]) + len(s.discards[c]) for c in range(4)]
    for p in s.players:
        for t in range(NUM_CARD_TOKENS):
            cards[TOKEN_COLOUR[t]] += p.hand[t]
        for t in p.sages_tokens:
            cards[TOKEN_COLOUR[t]] += 1
    conc = [s.concentrated_supply[c] + sum(p.hand[21 + c] for p in s.players) for c in range(4)]
    arts = len(s.display) + len(s.artifact_deck) + sum(sum(p.artifacts) for p in s.players)
    return gems, cards, conc, arts


def test_builder_conserves_gems_cards_concentrated_and_artifacts():
    game = build(4, players=[
        {"active": "opal:3 ruby:2", "inactive": "diamond", "hand": "blue5 red17:2 conc_red",
         "sages": "green8", "artifacts": "spellbook talisman"},
        {"hand": "conc_blue:3 dust10:2"},
    ], display=["elixir", "mirror"], deck_top=["wand"], decks={"white": "white9 white10"})
    gems, cards, conc, arts = totals(game)
    assert gems == list(GEM_SUPPLY) and cards == [30, 36, 30, 30]
    assert conc == [CONCENTRATED_PER_COLOUR] * 4 and arts == 12 * COPIES_BY_PLAYERS[4]
    s = game.state
    assert s.display == [6, 4] and s.artifact_deck[-1] == 8 and s.decks[2] == [12, 13]
    assert token_names(s.players[0].hand) == "blue5 red17:2 conc_red"
    assert game.phase == Phase.TURN and game.current_player == s.turn_order[0]


def test_builder_positions_the_requested_turn():
    game = build(3, turn_order=[2, 0, 1], turn_player=0)
    assert game.turn_player == 0 and game.state.turn_index == 1 and game.current_player == 0


def test_notation_round_trips():
    assert token_names(parse_tokens("dust10:2 blue5 conc_red")) == "blue5 conc_red dust10:2"


@pytest.mark.parametrize("spec,message", [
    ({"hand": "blue9"}, "unknown hand token"),
    ({"hand": "blue3:4"}, "no blue3 card left"),
    ({"active": "ruby:21"}, "rubys left"),
    ({"artifacts": "talisman:2"}, "no talisman left"),
    ({"levels": "fire:5"}, "levels go up to 4"),
    ({"chips": "20", "levels": "fire:1 sages:1 gemstones:1"}, "chips bought"),
    ({"colour": 1}, "unknown keys"),
])
def test_impossible_requests_fail_clearly(spec, message):
    with pytest.raises(ScenarioError, match=message):
        build(2, players=[spec])


# ---- knowledge levels keep the starting field ----------------------------------------------
def test_levels_keep_the_starting_field() -> None:
    game = build(2, players=[{"levels": "energy_flow:2"}])  # seat 0 is the druid (fire)
    levels = game.state.players[0].levels
    assert levels[Field.FIRE] == 1 and levels[Field.ENERGY_FLOW] == 2
    assert sum(game.state.players[0].chips_bought) == 1  # only energy flow needed a chip


def test_levels_may_raise_the_starting_field() -> None:
    game = build(2, players=[{"levels": "fire:3 sages:1"}])
    assert game.state.players[0].levels[Field.FIRE] == 3


def test_levels_refuse_the_starting_field_at_zero() -> None:
    with pytest.raises(ScenarioError, match="starting field fire is at level 1 or more"):
        build(2, players=[{"levels": "fire:0 sages:2"}])


# ---- item names are the action names ---------------------------------------------------------
@pytest.mark.parametrize("art", range(len(ARTIFACTS)))
def test_artifact_names_are_the_action_names(art: int) -> None:
    action = action_to_string(OPEN_ARTIFACT + art)
    assert artifact_index(action) == art == artifact_index(action.removeprefix("open_"))
    game = build(3, display=[action], players=[{"artifacts": action.removeprefix("open_")}])
    assert game.state.display == [art] and game.state.players[0].artifacts[art] == 1


@pytest.mark.parametrize("sen", range(len(SENTINELS)))
def test_sentinel_names_are_the_action_names(sen: int) -> None:
    action = action_to_string(OPEN_SENTINEL + sen)
    for name in (action, action.removeprefix("open_")):
        game = build(2, players=[{"sentinels": name}])
        state = game.state
        assert state.players[0].sentinels == [sen] and state.sentinel_owner[sen] == 0


def test_artifact_aliases_still_work() -> None:
    assert artifact_index("mirror") == artifact_index("magic_mirror") == Art.MIRROR


@pytest.mark.parametrize("where,name,hint", [
    ("display", "magic_miror", "magic_mirror"),
    ("artifacts", "open_talismann", "talisman"),
    ("sentinels", "pheonix", "phoenix"),
])
def test_unknown_item_names_fail_with_a_suggestion(where: str, name: str, hint: str) -> None:
    kwargs: dict = {"display": [name]} if where == "display" else {"players": [{where: name}]}
    with pytest.raises(ScenarioError, match=f"unknown .*{name!r} \\(did you mean {hint!r}\\?\\)"):
        build(3, **kwargs)


def test_builder_accepts_a_numpy_seed() -> None:
    assert build(2, seed=np.int64(4)).to_json() == build(2, seed=4).to_json()
