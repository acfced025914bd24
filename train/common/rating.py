"""The learner's rating against the pool: OpenSkill (Plackett-Luce) over whole-game rankings.

Every finished training game is a ranking of the learner and the opponents it met (a snapshot,
``random`` or ``heuristic``), so the same update serves 2 to 6 players; two-player Elo would not.
``random`` is pinned as the anchor (its rating never moves), which keeps the scale comparable
across a run: the learner's ``mu`` is read "points above a random player".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ANCHOR = "random"


class PoolRating:
    """Ratings of ``learner`` and every opponent label seen; plain-data state for resuming."""

    def __init__(self) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.ratings: dict[str, Any] = {}
        self.games = 0

    def get(self, label: str) -> Any:
        rating = self.ratings.get(label)
        if rating is None:
            rating = self.ratings[label] = self.model.rating(name=label)
        return rating

    def update(self, labels: Sequence[str], ranks: Sequence[int]) -> None:
        """Record one game: ``labels[i]`` finished ``ranks[i]`` (1 = first; ties share a rank).

        The learner's label must be ``"learner"``; the same opponent label may appear twice
        (two random seats), each seat is then rated as its own team and the mean kept.
        """
        if len(labels) != len(ranks) or len(labels) < 2:
            raise ValueError("a game needs at least two players with one rank each")
        teams = [[self.get(label)] for label in labels]
        # openskill mutates nothing: rate() returns new ratings.
        new = self.model.rate(teams, ranks=list(ranks))
        updates: dict[str, list[Any]] = {}
        for label, [rating] in zip(labels, new):
            updates.setdefault(label, []).append(rating)
        for label, rs in updates.items():
            if label == ANCHOR:
                continue
            old = self.ratings[label]
            old.mu = sum(r.mu for r in rs) / len(rs)
            old.sigma = sum(r.sigma for r in rs) / len(rs)
        self.games += 1

    def learner(self) -> tuple[float, float]:
        """(mu, ordinal = mu - 3 sigma) of the learner."""
        r = self.get("learner")
        return float(r.mu), float(r.ordinal())

    def state_dict(self) -> dict[str, Any]:
        return {"games": self.games,
                "ratings": {k: [float(r.mu), float(r.sigma)] for k, r in self.ratings.items()}}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        self.games = int(data.get("games", 0))
        self.ratings = {k: self.model.create_rating([mu, sigma], name=k)
                        for k, (mu, sigma) in data.get("ratings", {}).items()}
