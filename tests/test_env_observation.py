"""The observation layout: size, seat-relative slots, scaling and hidden information."""

from __future__ import annotations

import random

import numpy as np
import pytest

from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.data import CARD_TOKENS, MAX_PLAYERS, NUM_CARD_TOKENS, TOKEN_COLOUR
from zavandor_env.envs.observation import (
    OBS_SIZE,
    PLAYER_SIZE,
    SLICES,
    ObservationEncoder,
    decode,
)


def _mid_game(num_players: int, seed: int, decisions: int = 60) -> Game:
    game = Game.new(GameConfig(num_players=num_players), seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


def _encode(game: Game, seat: int) -> np.ndarray:
    return ObservationEncoder().encode(game.state, seat)


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


def test_encoder_follows_a_new_game_after_reuse() -> None:
    encoder = ObservationEncoder()
    first, second = _mid_game(4, seed=6), _mid_game(4, seed=7)
    encoder.encode(first.state, 0)
    assert np.array_equal(encoder.encode(second.state, 0), _encode(second, 0))


def test_decode_rejects_a_wrong_shape() -> None:
    with pytest.raises(ValueError, match="shape"):
        decode(np.zeros(3, np.float32))
