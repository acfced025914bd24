"""The example bot to copy (``one_ply``, agents/one_ply.py): short, registered, legal, seeded,
blind to hidden information, never opening an auction, and outscoring random."""

from __future__ import annotations

from pathlib import Path

from tests.bot_helpers import new_game, play_out
from zavandor_env.agents import make_agent
from zavandor_env.agents.base import RandomAgent
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.one_ply import OnePlyAgent
from zavandor_env.engine import Game, GameConfig, PlayerView
from zavandor_env.engine.actions import BID, OPEN_ARTIFACT
from zavandor_env.engine.data import NUM_CARD_TOKENS, TOKEN_COLOUR

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_is_short_enough_to_read() -> None:
    assert len((ROOT / "agents" / "one_ply.py").read_text(encoding="utf-8").splitlines()) < 120


def test_it_is_registered_and_plays_legal_games_to_their_end() -> None:
    agent = make_agent("one_ply", seed=1)
    assert isinstance(agent, OnePlyAgent) and agent.name == "one_ply"
    game = new_game(GameConfig(num_players=3), 4)
    play_out(game, [agent, HeuristicAgent(), make_agent("planner")])
    assert game.terminated


def test_it_never_opens_an_auction_and_outscores_random() -> None:
    won = 0
    opened: list[int] = []

    def watch(view: PlayerView, legal: object, action: int) -> None:
        if view.seat == 0 and OPEN_ARTIFACT <= action < BID:
            opened.append(action)

    for seed in range(4):
        game = new_game(GameConfig(num_players=2, allow_overbid=False), seed)
        play_out(game, [OnePlyAgent(), RandomAgent()], seed, watch)
        assert not opened
        mine, theirs = game.scores()
        won += mine > theirs
    assert won >= 3


def _hidden_cards_swapped(game: Game, seat: int) -> Game | None:
    """``game`` with one card of another seat's hand swapped for a deck card of the same
    colour and another value: a position that looks the same to ``seat`` (None: the others
    hold no card)."""
    state = game.state.clone()
    for player in state.players:
        for t in range(NUM_CARD_TOKENS):
            if player.seat == seat or not player.hand[t]:
                continue
            deck = state.decks[TOKEN_COLOUR[t]]
            k = next((i for i, u in enumerate(deck) if u != t), None)
            if k is not None:
                player.hand[t] -= 1
                player.hand[deck[k]] += 1
                deck[k] = t
                return Game(state, game.seed)
    return None


def test_the_same_seed_gives_the_same_game_and_hidden_cards_do_not_matter() -> None:
    config = GameConfig(num_players=2)
    first = play_out(new_game(config, 7), [OnePlyAgent(), HeuristicAgent()], 2)
    assert play_out(new_game(config, 7), [OnePlyAgent(), HeuristicAgent()], 2) == first
    game, checked = new_game(config, 7), 0
    heuristic = HeuristicAgent()
    while not game.is_over and checked < 5:
        seat, legal = game.current_player, game.legal_actions()
        twin = _hidden_cards_swapped(game, 0) if seat == 0 and len(legal) > 2 else None
        if twin is not None:
            assert twin.state.players[1].hand != game.state.players[1].hand
            choice = OnePlyAgent(seed=checked).act(None, game.view(0), legal)
            assert OnePlyAgent(seed=checked).act(None, twin.view(0), legal) == choice
            checked += 1
        game.apply(heuristic.act(None, game.view(seat), legal))
    assert checked == 5
