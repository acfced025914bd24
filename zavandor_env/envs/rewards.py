"""Rewards: every reward setting of the environments, in one validated :class:`RewardConfig`.

``raw_env`` (PettingZoo) builds one from its keyword options and pays every seat from it;
``SingleAgentEnv`` (Gymnasium) only passes the same named options through and hands the learner
its seat's share; training passes the same names.  A game's result comes from
:func:`zavandor_env.engine.outcome.game_outcome` (the one definition of a result: winners come
only from the rules, a truncated game has none, eliminated players rank last).

When a game **ends by the rules** (``terminated``), each seat receives its terminal reward once,
on the step that ends it, by the ``reward`` scheme:

``"win"`` (default, zero-sum): the k winners share +1 (``+1/k`` each) and the other n-k seats
share -1 (``-1/(n-k)`` each); if every seat wins, everyone gets 0.  So a sole win is +1 and a
loss -1 in 2-player games, -1/3 in 4-player games.  A seat playing like its opponents expects 0.

``"rank"`` (zero-sum): rank 1 gets +1, last gets -1, linear in between
(``1 - 2 * (rank - 1) / (n - 1)``); tied seats share the average of the ranks they span.
Eliminated players (Curse of the 9 Sages) rank below everyone still in the game.

``"vp_margin"``: ``(my VP - best other VP) / 50`` (an eliminated player counts 0 VP): positive
for the leader, negative for the others, 0 for a tie at the top.

When a **safety limit cuts a game off** (``GameConfig.max_rounds`` / ``max_decisions``,
``truncated``) nobody has won, whatever the VP: every seat receives ``truncation_reward``
(default -1, the same as a 2-player loss) instead of a terminal reward.  A truncated game
therefore never pays better than losing, so a learner gains nothing by stalling (ending turns
without buying, toggling gems) until the limit, and a run whose games never finish shows it in
its returns instead of learning from zero rewards.  (Scoring a cut-off game like a finished
one would rank the VP leader of an unfinished game as a winner, which the rules never do.)

Shaping, paid on every step:

* ``vp_delta`` (default 0): each seat receives ``vp_delta * (VP now - VP before the step)``
  whenever phase 4 rescores.  Over a game it sums to ``vp_delta * (final VP - starting VP)``
  (a player eliminated by the Curse drops to 0 VP and loses its shaping too).  Off by default:
  the terminal reward alone is learnable against ``Zavandor-v0``'s default opponents (shaping
  gave no measurable gain there: docs/benchmarks.md, "Learning against Zavandor-v0's default
  opponents"), and without it the rewards of a finished game stay zero-sum.  The shipped
  self-play runs use 0.005 (about +0.3 over a winner's game).
* ``step_reward`` (default 0): added to a seat for each of its own decisions.  A small negative
  value is a cost of time that makes moves which change nothing not pay; it stays off by
  default because it also pays a learner that expects to lose for ending its episode early
  (by getting itself eliminated by the Curse: docs/benchmarks.md, same section).

``illegal_reward`` (default -1): what an illegal action pays its player where an illegal action
ends the episode instead of raising (``zavandor_v0.env()``'s ``TerminateIllegalWrapper``,
``SingleAgentEnv``).

Every number must be finite: a NaN or infinite reward would only surface later as a crashed
training run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Final

from zavandor_env.engine.outcome import Outcome

VP_MARGIN_SCALE: Final = 50.0
_NUMBER_FIELDS: Final = ("vp_delta", "step_reward", "truncation_reward", "illegal_reward")


@dataclass(frozen=True)
class RewardConfig:
    """Every reward setting (see the module docstring for what each pays and why).

    Attributes:
        reward: terminal scheme for a game that ends by the rules: ``"win"`` (default),
            ``"rank"`` or ``"vp_margin"``.
        vp_delta: reward per VP gained (default 0: terminal rewards only, zero-sum).
        step_reward: added to a seat for each of its own decisions (default 0).
        truncation_reward: what every seat receives when a safety limit cuts the game off
            (default -1: a cut-off game is no better than a loss).
        illegal_reward: what an illegal action pays where it ends the episode (default -1).
    """

    reward: str = "win"
    vp_delta: float = 0.0
    step_reward: float = 0.0
    truncation_reward: float = -1.0
    illegal_reward: float = -1.0

    def __post_init__(self) -> None:
        if not isinstance(self.reward, str) or self.reward not in REWARD_SCHEMES:
            raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {self.reward!r}")
        for name in _NUMBER_FIELDS:
            value = getattr(self, name)
            # bool is an int subclass: reject it so that a YAML "yes" is not read as 1.
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
            object.__setattr__(self, name, float(value))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The option names (as ``raw_env`` and ``SingleAgentEnv`` accept them)."""
        return tuple(f.name for f in fields(cls))

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.names()}

    def final_rewards(self, outcome: Outcome) -> list[float]:
        """What each seat receives when the game is over: its terminal reward if the game
        ended by the rules, ``truncation_reward`` if a safety limit cut it off."""
        if outcome.truncated or not outcome.terminated:
            return [self.truncation_reward] * outcome.num_players
        return terminal_rewards(self.reward, outcome)


def terminal_rewards(scheme: str, outcome: Outcome) -> list[float]:
    """Per-seat terminal rewards of a game that ended by the rules, by ``scheme``."""
    if scheme not in REWARD_SCHEMES:
        raise ValueError(f"unknown reward scheme {scheme!r}; choose from {REWARD_SCHEMES}")
    return _SCHEMES[scheme](outcome)


def _win_rewards(outcome: Outcome) -> list[float]:
    n = outcome.num_players
    winners = set(outcome.winners)
    k = len(winners)
    if k in (0, n):  # nobody or everybody won: nothing to share
        return [0.0] * n
    return [1.0 / k if seat in winners else -1.0 / (n - k) for seat in range(n)]


def _rank_rewards(outcome: Outcome) -> list[float]:
    ranks = outcome.ranks
    n = len(ranks)
    rewards = []
    for rank in ranks:
        # Competition ranks: t seats tied at rank r span ranks r .. r+t-1; they share the mean.
        tied = ranks.count(rank)
        mean_rank = rank + (tied - 1) / 2
        rewards.append(1.0 - 2.0 * (mean_rank - 1) / (n - 1))
    return rewards


def _vp_margin_rewards(outcome: Outcome) -> list[float]:
    vps = [0 if out else vp for vp, out in zip(outcome.scores, outcome.eliminated)]
    n = len(vps)
    return [
        (vps[i] - max(vps[j] for j in range(n) if j != i)) / VP_MARGIN_SCALE for i in range(n)
    ]


_SCHEMES: Final = {"win": _win_rewards, "rank": _rank_rewards, "vp_margin": _vp_margin_rewards}
REWARD_SCHEMES: Final = tuple(_SCHEMES)
