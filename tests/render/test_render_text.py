"""The table as text: the referee's dump and a seat's view come from one writer."""

from __future__ import annotations

import random

from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.data import NUM_CARD_TOKENS, token_name
from zavandor_env.render.text import describe, render_view


def _game_with_cards_in_every_hand() -> Game:
    game = Game.new(GameConfig(num_players=3), seed=6)  # every hand holds its first income
    rng = random.Random(6)
    for _ in range(12):  # some decisions, for gems, chips and dust
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert all(sum(p.hand[:NUM_CARD_TOKENS]) for p in game.state.players), "pick another seed"
    assert not game.is_over and not game.at_round_end
    return game


def _seat_block(lines: list[str], head: str) -> list[str]:
    start = next(i for i, line in enumerate(lines) if line.startswith(head))
    return lines[start:start + 6]


def test_a_seat_sees_its_own_lines_as_the_referee_does_and_no_hidden_card_of_the_others() -> None:
    game = _game_with_cards_in_every_hand()
    seat = game.current_player
    name = {s: "you" if s == seat else f"player_{s}" for s in range(3)}
    mine = render_view(game.view(seat), colour=False).splitlines()
    full = describe(game, name=name.__getitem__).splitlines()
    assert _seat_block(mine, "you (") == _seat_block(full, "you (")
    card_names = [token_name(t) for t in range(NUM_CARD_TOKENS)]
    for other in (s for s in range(3) if s != seat):
        hidden = _seat_block(mine, f"player_{other} (")
        referee = _seat_block(full, f"player_{other} (")
        assert hidden[0] == referee[0] and hidden[:4] == referee[:4]  # public lines
        assert "public value" in hidden[4]
        assert not any(card in line for line in hidden for card in card_names)
