"""The outcome of a game: the one definition of a result that every layer uses.

The environment's terminal rewards, the tournament's win rates and ranks, training's evaluation
and the CLI all read a game's result through :func:`game_outcome`, so a game means the same
thing everywhere:

* **Winners come only from the rules.**  A game that ends by the rules (five sentinels owned,
  or one player left after the Curse of the 9 Sages) is won by the players still in the game
  with the most VP; tied players share the win.  A game cut off by a safety limit
  (``GameConfig.max_rounds`` / ``max_decisions``) has **no winner**: it is *truncated*, and in
  win rates it counts as a game nobody won.  (Ranking the VP leaders of an unfinished game as
  winners would reward stalling: uniformly random players never finish a game.)
* **Ranks are competition ranks** by final VP (1 = best; tied seats share the better rank), with
  players eliminated by the Curse below every player still in the game.  Ranks are given for
  truncated games too (by the VP at the last phase 4), flagged by ``truncated``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from zavandor_env.engine.scoring import winners as rule_winners
from zavandor_env.engine.state import GameState


class HasState(Protocol):
    """What :func:`game_outcome` reads of a game (a :class:`~.game.Game` or the oracle's)."""

    @property
    def state(self) -> GameState: ...


@dataclass(frozen=True)
class Outcome:
    """How a finished (or cut-off) game came out, per seat.

    Attributes:
        scores: VP of every seat at the last phase 4 (0 for an eliminated player).
        ranks: competition ranks (1 = best, ties share the better rank; eliminated seats last).
        winners: the seats that won by the rules; empty for a truncated or unfinished game.
        eliminated: seats put out of the game by the Curse of the 9 Sages.
        terminated: the game ended by the rules.
        truncated: a safety limit cut the game off (then ``winners`` is empty).
        rounds: the round the game stopped in.
        decisions: decisions applied through ``Game.apply``.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    eliminated: tuple[bool, ...]
    terminated: bool
    truncated: bool
    rounds: int
    decisions: int

    @property
    def num_players(self) -> int:
        return len(self.scores)

    @property
    def is_over(self) -> bool:
        return self.terminated or self.truncated

    def won(self, seat: int) -> bool:
        """Whether ``seat`` is among the rules' winners (a shared win counts)."""
        return seat in self.winners

    def describe(self) -> str:
        """One line for people: who won, or why nobody did."""
        vp = ", ".join(f"player_{s}: {v}" for s, v in enumerate(self.scores))
        if self.terminated:
            names = " and ".join(f"player_{w}" for w in self.winners)
            shared = " (shared)" if len(self.winners) > 1 else ""
            return f"{names} won{shared} in round {self.rounds}; VP {vp}"
        if self.truncated:
            return (f"cut off by a safety limit in round {self.rounds}: no winner "
                    f"(a game ends by the rules when five sentinels are owned); VP {vp}")
        return f"still running (round {self.rounds}); VP {vp}"


def competition_ranks(points: Sequence[float]) -> list[int]:
    """1 + the number of seats with strictly more points (ties share the better rank)."""
    return [1 + sum(1 for other in points if other > p) for p in points]


def game_outcome(game: HasState) -> Outcome:
    """The :class:`Outcome` of ``game`` as it stands (final once ``game.is_over``)."""
    state = game.state
    players = state.players
    return make_outcome(
        scores=[p.vp for p in players],
        eliminated=[p.eliminated for p in players],
        winners=rule_winners(state) if state.terminated else (),
        terminated=state.terminated,
        truncated=state.truncated,
        rounds=state.round,
        decisions=len(state.history),
    )


def make_outcome(
    scores: Sequence[int],
    eliminated: Sequence[bool],
    winners: Sequence[int],
    terminated: bool,
    truncated: bool,
    rounds: int,
    decisions: int,
) -> Outcome:
    """An :class:`Outcome` from a game's final numbers (the one place ranks are made: VP
    competition ranks, an eliminated player below anyone still in the game, whatever the VP).
    ``winners`` are the rules' winners; they count only if the game ``terminated``."""
    score_t = tuple(int(v) for v in scores)
    out_t = tuple(bool(e) for e in eliminated)
    ranks = competition_ranks([-1 if out else vp for vp, out in zip(score_t, out_t)])
    return Outcome(
        scores=score_t,
        ranks=tuple(ranks),
        winners=tuple(int(s) for s in winners) if terminated else (),
        eliminated=out_t,
        terminated=bool(terminated),
        truncated=bool(truncated),
        rounds=int(rounds),
        decisions=int(decisions),
    )
