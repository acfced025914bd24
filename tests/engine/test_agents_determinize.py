"""Determinization keeps what the viewer knows and redraws only what it cannot know."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.policies import ThriftyPolicy, play
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.naive import NaiveAgent
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.data import ENERGY_DECKS, NUM_CARD_TOKENS, TOKEN_COLOUR, TOKEN_VALUE
from zavandor_env.engine.determinize import determinize
from zavandor_env.engine.state import PlayerState
from zavandor_env.engine.view import PlayerView


def _midgame(num_players: int, seed: int, rounds: int = 8) -> Game:
    """A game played by heuristic agents into round ``rounds`` (hands, discards, 9-Sages
    cards and reshuffled decks all in use)."""
    game = Game.new(num_players=num_players, seed=seed)
    seats = [HeuristicAgent(seed=s) for s in range(num_players)]
    for s, agent in enumerate(seats):
        agent.reset(s, num_players, s)
    while game.state.round < rounds:
        seat = game.current_player
        game.apply(seats[seat].act(None, PlayerView(game.state, seat), game.legal_actions()))
    assert not game.is_over
    return game


def _all_cards(game: Game) -> Counter:
    s = game.state
    cards: Counter = Counter()
    for deck in s.decks + s.discards:
        cards.update(deck)
    for p in s.players:
        cards.update({t: p.hand[t] for t in range(NUM_CARD_TOKENS) if p.hand[t]})
        cards.update(p.sages_tokens)
    return cards


def _public(game: Game, seat: int) -> dict:
    view = PlayerView(game.state, seat)
    out = {name: getattr(view, name) for name in (
        "round", "phase", "turn_order", "turn_player", "current_player", "display",
        "sentinel_owner", "deck_sizes", "discards", "concentrated_supply", "gem_supply",
        "art_mod", "sen_mod", "auction_kind", "high_bid", "high_bidder", "artifact_deck_size")}
    for p in view.players:
        for name in ("active", "inactive", "levels", "artifacts", "sentinels", "vp", "balance",
                     "card_counts", "concentrated", "dust", "sages_count", "hand_load"):
            out[f"{p.seat}.{name}"] = getattr(p, name)
    return out


@pytest.mark.parametrize("num_players,seed", [(2, 1), (4, 7), (6, 3)])
def test_determinized_game_keeps_public_state_and_own_hand(num_players, seed):
    game = _midgame(num_players, seed)
    seat = game.current_player
    sample = determinize(PlayerView(game.state, seat), random.Random(0))
    assert _public(sample, seat) == _public(game, seat)
    me, real = sample.state.players[seat], game.state.players[seat]
    assert me.hand == real.hand and me.sages_tokens == real.sages_tokens
    assert sample.legal_actions() == game.legal_actions()  # the viewer's options are unchanged


def test_determinized_game_conserves_every_card():
    game = _midgame(4, 5)
    full = Counter()
    for colour, deck in enumerate(ENERGY_DECKS):
        for value, count in deck.items():
            token = next(t for t in range(NUM_CARD_TOKENS)
                         if TOKEN_COLOUR[t] == colour and _value(t) == value)
            full[token] = count
    assert _all_cards(game) == full
    for i in range(5):
        sample = determinize(PlayerView(game.state, game.current_player), random.Random(i))
        assert _all_cards(sample) == full
        assert sorted(sample.state.artifact_deck) == sorted(game.state.artifact_deck)


def _value(token: int) -> int:
    from zavandor_env.engine.data import TOKEN_VALUE

    return TOKEN_VALUE[token]


def test_hidden_values_and_deck_order_differ_across_samples():
    game = _midgame(3, 2)
    view = PlayerView(game.state, game.current_player)
    rng = random.Random(1)
    hands = set()
    decks = set()
    for _ in range(10):
        s = determinize(view, rng).state
        hands.add(tuple(tuple(p.hand) for p in s.players if p.seat != view.seat))
        decks.add(tuple(s.decks[0]))
    assert len(hands) > 1 and len(decks) > 1


def test_determinization_does_not_depend_on_the_hidden_truth():
    """Two games that look the same to the viewer give identical samples for one seed."""
    game = _midgame(2, 4)
    seat = game.current_player
    s = game.state.clone()  # to edit
    opponent = s.players[1 - seat]
    # Swap an opponent's card with a same-colour card of a different value from a deck.
    for t in range(NUM_CARD_TOKENS):
        if opponent.hand[t]:
            colour = TOKEN_COLOUR[t]
            swap = next((i for i, d in enumerate(s.decks[colour]) if d != t), None)
            if swap is not None:
                u = s.decks[colour][swap]
                s.decks[colour][swap] = t
                opponent.hand[t] -= 1
                opponent.hand[u] += 1
                break
    else:
        pytest.skip("opponent holds no cards in this position")
    other = Game(s, game.seed)
    assert other.state.players[1 - seat].hand != game.state.players[1 - seat].hand
    a = determinize(PlayerView(game.state, seat), random.Random(9))
    b = determinize(PlayerView(other.state, seat), random.Random(9))
    assert a.to_json() == b.to_json()


def test_determinized_game_is_reseeded_and_independent():
    game = _midgame(2, 6)
    before = game.to_json()
    sample = determinize(PlayerView(game.state, game.current_player), random.Random(3))
    assert sample.state.rng.getstate() != game.state.rng.getstate()
    play(sample, ThriftyPolicy(0))
    assert game.to_json() == before


def _mixed_game_at(num_players: int, seed: int, decisions: int) -> Game:
    """Heuristic agents in even seats, naive ones in odd seats, ``decisions`` into the game."""
    game = Game.new(GameConfig(num_players=num_players, allow_overbid=False), seed=seed)
    seats = [(NaiveAgent if s % 2 else HeuristicAgent)(seed=s) for s in range(num_players)]
    for s, agent in enumerate(seats):
        agent.reset(s, num_players, s)
    for _ in range(decisions):
        seat = game.current_player
        game.apply(seats[seat].act(None, PlayerView(game.state, seat), game.legal_actions()))
    return game


def _can_pay(player: PlayerState) -> bool:
    return sum(n * TOKEN_VALUE[t] for t, n in enumerate(player.hand)) >= player.balance


def test_a_sampled_hand_can_always_pay_what_its_owner_owes() -> None:
    """Costs run up this turn are public, so every sample must let the owing player pay them
    (unconditioned samples made MCTS crash settling that turn).  Here seat 1 owes 40 mid-turn
    with a hand worth 43 while seat 0 decides; about a third of uniform samples gave it less."""
    game = _mixed_game_at(4, seed=37, decisions=171)
    seat = game.current_player
    owing = [p for p in game.state.players if p.balance > 0 and p.seat != seat]
    assert seat == 0 and [p.seat for p in owing] == [1]
    rng = random.Random(0)
    for _ in range(100):
        sample = determinize(PlayerView(game.state, seat), rng)
        assert _can_pay(sample.state.players[1])
        while not sample.is_over and sample.state.round == game.state.round:
            sample.apply(sample.legal_actions()[0])  # settles seat 1's turn: no crash
