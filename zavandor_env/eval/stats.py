"""Tournament statistics: win rates with Wilson intervals, ranks, head-to-head, ratings.

Conventions (documented in the report too):

* **Win share**: a seat that wins alone scores 1, seats sharing the win (equal VP) score 1/k.
  A truncated game (cut off by a safety limit) has no winner (the one definition of a result,
  :mod:`zavandor_env.engine.outcome`): every seat scores 0; the report counts such games.
* **Win rate** of an agent = mean win share over every seat it filled (an agent filling three
  seats of one game contributes three samples).  Its 95% interval is the Wilson score
  interval, which stays inside [0, 1] and behaves at 0% and 100%, unlike the normal one.
* **Rank**: competition rank by final VP (1 = best, ties share the better rank).
* **Head-to-head**: for agents A and B seated in the same game, A scores 1 if it finished
  ahead of B, 0.5 on equal VP, 0 behind; the table holds A's mean score over such meetings.
* **Ratings**: OpenSkill Plackett-Luce over full rankings, one update per game in a fixed
  order (so the numbers are reproducible); an agent seated several times in one game is rated
  once, at the mean of its seats' ranks.  ``ordinal = mu - 3 sigma`` is the conservative
  skill used for sorting.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

Z95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (``successes`` may be fractional)."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be within [0, trials], got {successes} of {trials}")
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class SeatRecord:
    """One seat of one game."""

    label: str
    vp: int
    rank: int
    win_share: float


@dataclass
class AgentSummary:
    label: str
    seats: int = 0
    wins: float = 0.0
    rank_sum: int = 0
    vp_sum: int = 0
    win_ci: tuple[float, float] = (0.0, 1.0)
    mu: float = 0.0
    sigma: float = 0.0
    ordinal: float = 0.0
    rated: bool = False
    """whether OpenSkill rated the agent (the ``eval`` extra): else the ratings are null"""
    seat_wins: dict[int, list[float]] = field(default_factory=dict)

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0

    @property
    def mean_rank(self) -> float:
        return self.rank_sum / self.seats if self.seats else 0.0

    @property
    def mean_vp(self) -> float:
        return self.vp_sum / self.seats if self.seats else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "seats_played": self.seats,
            "wins": round(self.wins, 4),
            "win_rate": round(self.win_rate, 4),
            "win_rate_ci95": [round(self.win_ci[0], 4), round(self.win_ci[1], 4)],
            "mean_rank": round(self.mean_rank, 4),
            "mean_vp": round(self.mean_vp, 3),
            "rating_mu": round(self.mu, 3) if self.rated else None,
            "rating_sigma": round(self.sigma, 3) if self.rated else None,
            "rating_ordinal": round(self.ordinal, 3) if self.rated else None,
            "win_rate_by_seat": {
                str(s): round(sum(v) / len(v), 4) for s, v in sorted(self.seat_wins.items())
            },
        }


def seat_records(labels: Sequence[str], scores: Sequence[int], ranks: Sequence[int],
                 winners: Sequence[int]) -> list[SeatRecord]:
    share = 1.0 / len(winners) if winners else 0.0
    return [SeatRecord(labels[s], scores[s], ranks[s], share if s in winners else 0.0)
            for s in range(len(labels))]


def summarize(games: Iterable[Sequence[SeatRecord]]) -> tuple[dict[str, AgentSummary],
                                                             dict[str, dict[str, float]],
                                                             dict[str, dict[str, int]]]:
    """Per-agent summaries, the head-to-head score table and its meeting counts."""
    games = list(games)
    agents: dict[str, AgentSummary] = {}
    h2h_sum: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    h2h_n: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for seats in games:
        for s, rec in enumerate(seats):
            a = agents.setdefault(rec.label, AgentSummary(rec.label))
            a.seats += 1
            a.wins += rec.win_share
            a.rank_sum += rec.rank
            a.vp_sum += rec.vp
            a.seat_wins.setdefault(s, []).append(rec.win_share)
        for x in seats:
            for y in (y for y in seats if y.label != x.label):
                h2h_sum[x.label][y.label] += 1.0 if x.vp > y.vp else 0.5 if x.vp == y.vp else 0.0
                h2h_n[x.label][y.label] += 1
    for a in agents.values():
        a.win_ci = wilson_interval(a.wins, a.seats)
    _rate(games, agents)
    table = {
        x: {y: h2h_sum[x][y] / n for y, n in row.items()} for x, row in h2h_n.items()
    }
    counts = {x: dict(row) for x, row in h2h_n.items()}
    return agents, table, counts


def _rate(games: list[Sequence[SeatRecord]], agents: dict[str, AgentSummary]) -> None:
    """OpenSkill Plackett-Luce ratings from full rankings (skipped if openskill is missing)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in sorted(agents)}
    for seats in games:
        by_label: dict[str, list[int]] = defaultdict(list)
        for rec in seats:
            by_label[rec.label].append(rec.rank)
        if len(by_label) < 2:
            continue
        labels = sorted(by_label)
        ranks = [sum(by_label[label]) / len(by_label[label]) for label in labels]
        for label, team in zip(labels, model.rate([[ratings[x]] for x in labels], ranks=ranks)):
            ratings[label] = team[0]
    for label, r in ratings.items():
        agents[label].mu = r.mu
        agents[label].sigma = r.sigma
        agents[label].ordinal = r.ordinal()
        agents[label].rated = True
