"""The observation layout: size, seat-relative slots, scaling and hidden information."""

from __future__ import annotations

import random
from operator import mul

import numpy as np
import pytest

from tests.encoding import observation_reference
from tests.encoding.observation_reference import encode_reference, seat_slots
from tests.policies import POLICIES
from tests.tiers import players
from zavandor_env.encoding.observation import (
    OBS_FINGERPRINT,
    OBS_SIZE,
    PLAYER_SIZE,
    PRIVATE_FIELDS,
    SLICES,
    ObservationEncoder,
    ObsField,
    decode,
    layout_entries,
    layout_fingerprint,
)
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.actions import ACTION_NAMES
from zavandor_env.engine.data import (
    ARTIFACTS,
    CARD_TOKENS,
    CONCENTRATED_PER_COLOUR,
    COPIES_BY_PLAYERS,
    DUST_CHITS,
    DUST_TOKEN,
    ENERGY_DECKS,
    GEM_SUPPLY,
    MAX_LEVEL,
    MAX_PLAYERS,
    NUM_CARD_TOKENS,
    NUM_TOKENS,
    SENTINELS_TO_END,
    TOKEN_COLOUR,
    TOKEN_LOAD,
)
from zavandor_env.engine.oracle import OracleGame
from zavandor_env.engine.state import GameState, Phase


def _mid_game(num_players: int, seed: int, decisions: int = 60) -> Game:
    # The oracle: some tests edit the state (a game on the core has no live state to edit).
    game = OracleGame.new(GameConfig(num_players=num_players), seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


def _encode(game: Game, seat: int) -> np.ndarray:
    return encode_reference(game.state, seat)


@pytest.mark.parametrize("n", (2, 3, 4, 5, 6))
def test_observation_has_the_same_size_and_dtype_for_every_player_count(n: int) -> None:
    obs = _encode(_mid_game(n, seed=n), 0)
    assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32


def test_slot_zero_is_the_observer_and_the_others_follow_in_turn_order() -> None:
    game = _mid_game(5, seed=1)
    state = game.state
    for seat in range(5):
        view = decode(_encode(game, seat))
        i = state.turn_order.index(seat)
        expected = state.turn_order[i:] + state.turn_order[:i]
        for slot, other in enumerate(expected):
            character = view[f"player{slot}.character"]
            assert int(np.argmax(character)) == state.players[other].character
            assert view[f"player{slot}.vp"][0] == pytest.approx(state.players[other].vp)


def test_slots_beyond_the_player_count_are_zero_with_present_off() -> None:
    obs = _encode(_mid_game(3, seed=2), 1)
    view = decode(obs)
    assert [view[f"player{i}.present"][0] for i in range(MAX_PLAYERS)] == [1, 1, 1, 0, 0, 0]
    first_absent = SLICES["player3.present"].start
    assert not obs[first_absent : first_absent + 3 * PLAYER_SIZE].any()


def test_named_fields_decode_to_game_units() -> None:
    game = _mid_game(4, seed=3)
    me = game.state.players[2]
    view = decode(_encode(game, 2))
    assert view["round"][0] == pytest.approx(game.state.round)
    assert view["me.hand_cards"] == pytest.approx(me.hand[:NUM_CARD_TOKENS])
    assert view["player0.active_gems"] == pytest.approx(me.active)


def test_scaled_values_stay_small_over_random_games() -> None:
    encoder = ObservationEncoder()
    for seed in range(6):
        game = Game.new(GameConfig(num_players=4), seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            obs = encoder.encode(game.state, game.current_player)
            assert np.abs(obs).max() <= 5.0, decode(obs)
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])


def _same_colour_other_value(token: int) -> int:
    colour = TOKEN_COLOUR[token]
    return next(t for t in range(NUM_CARD_TOKENS) if TOKEN_COLOUR[t] == colour and t != token)


def _swap_a_card(game: Game, seat: int) -> None:
    hand = game.state.players[seat].hand
    token = next(t for t in range(NUM_CARD_TOKENS) if hand[t])
    hand[token] -= 1
    hand[_same_colour_other_value(token)] += 1


def _game_where_everyone_holds_cards(num_players: int) -> Game:
    game = _mid_game(num_players, seed=8)
    for p in game.state.players:  # a blue and a red card each (as if drawn at income)
        p.hand[CARD_TOKENS.index((0, 5))] += 1
        p.hand[CARD_TOKENS.index((3, 15))] += 1
    return game


def test_an_opponents_card_value_is_hidden_but_my_own_is_seen() -> None:
    game = _game_where_everyone_holds_cards(4)
    before = _encode(game, 0)
    for opponent in (1, 2, 3):
        changed = game.clone()
        _swap_a_card(changed, opponent)
        assert np.array_equal(_encode(changed, 0), before)
    mine = game.clone()
    _swap_a_card(mine, 0)
    assert not np.array_equal(_encode(mine, 0), before)


def test_deck_order_is_hidden() -> None:
    game = _mid_game(3, seed=4)
    before = _encode(game, 1)
    shuffled = game.clone()
    for deck in shuffled.state.decks:
        random.Random(0).shuffle(deck)
    shuffled.state.artifact_deck.reverse()
    assert np.array_equal(_encode(shuffled, 1), before)


def test_an_opponents_sages_card_values_are_hidden_but_mine_are_seen() -> None:
    game = _mid_game(3, seed=5)
    blue_5, blue_7 = CARD_TOKENS.index((0, 5)), CARD_TOKENS.index((0, 7))
    for p in game.state.players:
        p.sages_tokens[:] = [blue_5]
    before = _encode(game, 0)
    theirs = game.clone()
    theirs.state.players[2].sages_tokens[:] = [blue_7]
    assert np.array_equal(_encode(theirs, 0), before)
    mine = game.clone()
    mine.state.players[0].sages_tokens[:] = [blue_7]
    assert not np.array_equal(_encode(mine, 0), before)


def test_decode_rejects_a_wrong_shape() -> None:
    with pytest.raises(ValueError, match="shape"):
        decode(np.zeros(3, np.float32))


# ---- the core's encoder against the field-by-field reference --------------------------------
# Uniform play collapses the economy (debts, overbids, eliminations with allow_overbid); thrifty
# play reaches the real game end (sentinels, free levels, Mirror/Cloak victims).  Together they
# visit every decision kind; options vary so the 1-dust chit and the Curse appear too.
_REFERENCE_GAMES = [
    (kind, n, seed, {"one_value_dust": seed % 2 == 1, "allow_overbid": kind == "uniform"})
    for kind, seeds in (("uniform", (11, 12, 13)), ("thrifty", (21,)))
    for n in range(2, 7)
    for seed in seeds
]


def _reference_states(num_players: int) -> list[GameState]:
    """Every decision state (and the final one) of the reference games at ``num_players``."""
    states = []
    for kind, n, seed, options in _REFERENCE_GAMES:
        if n != num_players:
            continue
        config = GameConfig(num_players=n, max_rounds=30, one_value_dust=options["one_value_dust"],
                            allow_overbid=options["allow_overbid"])
        game = Game.new(config, seed=seed)
        policy = POLICIES[kind](seed)
        states.append(game.state.clone())
        while not game.is_over:
            # Stop at every round end too, so the pending ROUND_END state is encoded as well.
            game.apply(policy(game), stop_at_round_end=True)
            states.append(game.state.clone())
            while game.at_round_end:
                game.advance(stop_at_round_end=True)
                states.append(game.state.clone())
    return states


@pytest.fixture(scope="module")
def reference_states() -> dict[int, list[GameState]]:
    return {n: _reference_states(n) for n in range(2, MAX_PLAYERS + 1)}


@pytest.mark.parametrize("n", players())
def test_core_encoder_equals_the_field_by_field_reference_for_every_seat(
    n: int, reference_states: dict[int, list[GameState]]
) -> None:
    encoder = ObservationEncoder()
    states = reference_states[n]
    assert len(states) >= 200
    for index, state in enumerate(states):
        game = Game(state)  # on the core, from a copy of the state
        for seat in range(n):
            fast, slow = encoder.encode_game(game, seat), encode_reference(state, seat)
            if fast.tobytes() != slow.tobytes():  # bytes: even -0.0 against 0.0 would count
                got, want = decode(fast), decode(slow)
                wrong = [k for k in got if got[k].tobytes() != want[k].tobytes()]
                pytest.fail(f"{n}p state {index} seat {seat}: fields {wrong} differ")


def test_reference_games_visit_every_decision_kind_and_corner(
    reference_states: dict[int, list[GameState]]
) -> None:
    """Guards the equality test above: its games must reach the rare branches."""
    states = [s for by_n in reference_states.values() for s in by_n]
    assert {s.phase for s in states} == set(Phase)
    assert any(p.eliminated for s in states for p in s.players)
    assert any(p.hand[DUST_TOKEN[1]] for s in states for p in s.players)
    assert any(p.sages_tokens for s in states for p in s.players)
    assert any(s.terminated for s in states) and any(s.truncated for s in states)


def test_reference_rejects_a_layout_field_it_does_not_compute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    extra = ObsField("invented", 1, 1.0, "not in the reference")
    monkeypatch.setattr(observation_reference, "PRIVATE_FIELDS", (*PRIVATE_FIELDS, extra))
    with pytest.raises(AssertionError, match="invented"):
        encode_reference(_mid_game(2, seed=0).state, 0)


# ---- constants from the data tables ----------------------------------------------------------
def test_hand_load_and_dust_follow_the_token_tables() -> None:
    game = OracleGame.new(GameConfig(num_players=3, one_value_dust=True), seed=2)
    hand = game.state.players[1].hand
    hand[:] = [(t % 3) + 1 for t in range(NUM_TOKENS)]  # some of every token, 1-dust included
    for seat in range(3):
        view = decode(_encode(game, seat))
        slot = f"player{_slot_of(game, seat, 1)}"
        assert view[f"{slot}.hand_load"][0] == pytest.approx(sum(map(mul, hand, TOKEN_LOAD)))
        dust = sum(hand[DUST_TOKEN[v]] * v for v in DUST_CHITS)
        assert view[f"{slot}.dust"][0] == pytest.approx(dust)


def _slot_of(game: Game, observer: int, seat: int) -> int:
    return seat_slots(game.state, observer).index(seat)


def test_count_scales_are_the_data_tables_maxima() -> None:
    scale = {name: s for name, _, s in layout_entries()}
    assert scale["gem_supply"] == 1 / max(GEM_SUPPLY)
    assert scale["concentrated_supply"] == 1 / CONCENTRATED_PER_COLOUR
    assert scale["deck_size"] == 1 / max(sum(d.values()) for d in ENERGY_DECKS)
    assert scale["artifact_deck_size"] == 1 / (len(ARTIFACTS) * max(COPIES_BY_PLAYERS.values()))
    assert scale["sentinels_acquired"] == 1 / SENTINELS_TO_END
    assert scale["player0.levels"] == 1 / MAX_LEVEL


# ---- the layout fingerprint ------------------------------------------------------------------
def test_fingerprint_is_a_short_hash_of_the_current_layout_and_actions() -> None:
    assert len(OBS_FINGERPRINT) == 16 and int(OBS_FINGERPRINT, 16) >= 0
    assert OBS_FINGERPRINT == layout_fingerprint(layout_entries(), ACTION_NAMES)
    assert [name for name, _, _ in layout_entries()] == list(SLICES)
    assert sum(size for _, size, _ in layout_entries()) == OBS_SIZE


def _changed(entries: list[tuple[str, int, float]], index: int, **change: object) -> list:
    name, size, scale = entries[index]
    row = {"name": name, "size": size, "scale": scale, **change}
    return [*entries[:index], (row["name"], row["size"], row["scale"]), *entries[index + 1 :]]


@pytest.mark.parametrize("change", [{"name": "renamed"}, {"size": 2}, {"scale": 0.5}])
def test_fingerprint_changes_with_a_field_name_size_or_scale(change: dict) -> None:
    entries = layout_entries()
    index = [name for name, _, _ in entries].index("player2.hand_load")
    assert layout_fingerprint(_changed(entries, index, **change), ACTION_NAMES) != OBS_FINGERPRINT


def test_fingerprint_changes_with_field_order_and_the_action_table() -> None:
    entries = layout_entries()
    swapped = [entries[1], entries[0], *entries[2:]]
    assert layout_fingerprint(swapped, ACTION_NAMES) != OBS_FINGERPRINT
    renamed = ("renamed", *ACTION_NAMES[1:])
    assert layout_fingerprint(entries, renamed) != OBS_FINGERPRINT
    assert layout_fingerprint(entries, (*ACTION_NAMES, "extra")) != OBS_FINGERPRINT
