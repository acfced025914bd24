"""A person at the terminal: shows the table as the seat knows it and asks for a decision.

Legal actions are listed by index and name; the player answers with either.  ``help`` explains
the action names, ``table`` reprints the table, ``quit`` ends the game (:class:`QuitGame`);
anything else re-prompts.  Decisions are final, as at the table.  Input and output are
injectable (for tests and other front ends).  :class:`AuctionWatcher` turns the state change of
each decision into news of won auctions ("player_1 won the owl for 14 energy").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from zavandor_env.agents.base import Agent
from zavandor_env.engine.actions import ACTION_NAMES, action_block
from zavandor_env.engine.view import PlayerView
from zavandor_env.render.text import render_view

if TYPE_CHECKING:
    from zavandor_env.engine import Game

HELP = """Actions (one decision at a time; the engine pays automatically, giving change in dust):
  end_turn            finish your turn (costs are settled now)
  end_block           close the open block (gems / knowledge / auctions: each once per turn)
  buy_<gem>           buy an opal/sapphire/emerald/diamond/ruby (active if a slot is free)
  sell_<gem>          sell a gem for half its price (inactive ones first)
  activate_/deactivate_<gem>   move a gem between the spiral and the pentagon
  buy_chip_<cost>     buy a knowledge chip; advance_<field> raises a field by one level
  open_<item>         start an auction for a displayed artifact or a sentinel
  bid_plus_<k>        bid the high bid + k (opening: the minimum + k); pass leaves the auction
  lose_<gem>          (Mirror/Cloak) the active gem you give up
Type the number or the name; 'table' shows the table again; 'help' shows this text;
'quit' ends the game (saved first when you gave --save)."""

QUIT_WORDS = ("quit", "exit")


class QuitGame(Exception):
    """The person at the terminal typed ``quit``: stop the game without asking anything more."""


class HumanAgent(Agent):
    """Asks a person for each decision (see the module docstring).

    Args:
        input_fn: reads one answer given a prompt (default: ``input``).
        output_fn: prints text (default: ``print``).
        colour: ANSI colours in the table.
    """

    name = "human"
    interactive: ClassVar[bool] = True  # needs this process's terminal (never a worker pool)

    def __init__(self, seed: int | None = None, input_fn: Callable[[str], str] | None = None,
                 output_fn: Callable[[str], None] | None = None, colour: bool = True) -> None:
        super().__init__(seed)
        # Resolved at call time, so tests may patch builtins.input / print.
        self.input_fn = input_fn or (lambda prompt: input(prompt))
        self.output_fn = output_fn or (lambda text: print(text))
        self.colour = colour

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        self.output_fn(render_view(view, self.colour))
        menu = self.menu(legal_actions)
        self.output_fn(menu)
        while True:
            try:
                answer = self.input_fn("your decision> ").strip()
            except EOFError:
                raise KeyboardInterrupt("input closed") from None
            action = parse_answer(answer, legal_actions)
            if action is not None:
                return action
            if answer.lower() in QUIT_WORDS:
                raise QuitGame("quit at the prompt")
            if answer.lower() in ("help", "h", "?"):
                self.output_fn(HELP)
            elif answer.lower() == "table":
                self.output_fn(render_view(view, self.colour))
            else:
                self.output_fn(f"{answer!r} is not one of the legal actions; "
                               "type a number or a name from the list, or 'help'.")
            self.output_fn(menu)

    @staticmethod
    def menu(legal_actions: Sequence[int]) -> str:
        rows = [f"  {a:>2}  {ACTION_NAMES[a]:<24} [{action_block(a)}]" for a in legal_actions]
        return "Legal actions:\n" + "\n".join(rows)


def parse_answer(answer: str, legal_actions: Sequence[int]) -> int | None:
    """The legal action an answer names (index or action name), or None."""
    text = answer.strip().lower()
    if text.isdigit():
        action = int(text)
        return action if action in legal_actions else None
    for a in legal_actions:
        if ACTION_NAMES[a] == text:
            return a
    return None


class AuctionWatcher:
    """News of won auctions, read from the engine's record of them (:attr:`Game.purchases`,
    with the price paid) and from eliminations by the Curse of the 9 Sages.

    Call :meth:`after` with the game after every decision (``play_game``'s ``on_decision``);
    it returns the lines to show, e.g. ``"auction: player_1 (heuristic) won the owl for
    14 energy (bid 15)"``.
    """

    def __init__(self, names: Sequence[str] | None = None) -> None:
        self.names = list(names) if names is not None else None
        self._reported = 0
        self._out: set[int] = set()

    def _who(self, seat: int) -> str:
        if self.names is not None and seat < len(self.names):
            return f"player_{seat} ({self.names[seat]})"
        return f"player_{seat}"

    def after(self, game: Game) -> list[str]:
        """Lines about auctions won (or curses) since the previous call."""
        purchases = game.purchases
        lines = [f"auction: {self._who(p.seat)} won the {p.item_name.replace('_', ' ')} for "
                 f"{p.price} energy (bid {p.bid})" for p in purchases[self._reported:]]
        self._reported = len(purchases)
        for seat, player in enumerate(game.state.players):
            if player.eliminated and seat not in self._out:
                self._out.add(seat)
                lines.append(f"auction: {self._who(seat)} won an auction but could not pay: "
                             "out of the game (Curse of the 9 Sages)")
        return lines


