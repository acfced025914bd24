"""The ladder's tables: which agents meet at which table (``zavandor ladder``).

Agents sit at *tables* (one lineup each); every table is played on the same ``deals`` (game
seed ``seed + d`` for deal ``d``, whatever the table) and each deal in every cyclic rotation of
the table, so every agent sits in every seat equally often and agents are compared on the same
cards.  With ``k`` agents at ``n`` seats:

* ``n = 2``: every pair is a table (a full round robin);
* ``k = n``: one table seats everyone;
* otherwise a *cyclic design*: the agents are numbered 0..k-1 and the tables are the ``k``
  translates ``B + i (mod k)`` of one base table ``B`` of ``n`` agents.  Every agent then sits
  at exactly ``n`` tables (balance by construction), and two agents whose numbers differ by
  ``d`` meet at as many tables as ``B`` holds pairs at difference ``±d``.  ``B`` is the first
  (in lexicographic order) base table holding 0 under which every pair meets at least once
  and the meeting counts differ least (7 agents at 4 seats: ``{0, 1, 2, 4}``, a perfect
  difference set, every pair at exactly 2 tables; 8 agents at 4 seats: 1 or 2 tables).
  Where no base table makes every pair meet (few seats, many agents: ``n (n - 1) < k - 1``),
  every ``n``-subset of the agents is a table instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from zavandor_env.agents.registry import AgentSpec
from zavandor_env.eval.tournament import TournamentConfig


class LadderError(ValueError):
    """A ladder cannot be made as asked (bad player counts, games, agents); one line."""


def pair_counts(tables: Sequence[Sequence[int]], k: int) -> dict[tuple[int, int], int]:
    counts = {pair: 0 for pair in itertools.combinations(range(k), 2)}
    for table in tables:
        for pair in itertools.combinations(sorted(table), 2):
            counts[pair] += 1
    return counts


def schedule_tables(k: int, n: int) -> list[tuple[int, ...]]:
    """The tables of a ladder of ``k`` agents (numbered 0..k-1) at ``n`` seats: agent numbers
    in seat order of rotation 0 (see the module docstring)."""
    if not 2 <= n <= 6:
        raise LadderError(f"players must be 2..6, got {n}")
    if k < n:
        raise LadderError(f"{n} players need at least {n} agents, got {k}")
    if n == 2 or n * (n - 1) < k - 1:
        return list(itertools.combinations(range(k), n))
    if k == n:
        return [tuple(range(k))]
    best: tuple[tuple[int, int], tuple[int, ...]] | None = None
    for rest in itertools.combinations(range(1, k), n - 1):
        base = (0, *rest)
        members = set(base)
        # Pairs at difference d meet at as many tables as base holds b with b + d in it.
        meet = [sum((b + d) % k in members for b in base) for d in range(1, k // 2 + 1)]
        if min(meet) == 0:
            continue
        key = (max(meet) - min(meet), -min(meet))
        if best is None or key < best[0]:
            best = (key, base)
    if best is None:  # no base table makes every pair meet
        return list(itertools.combinations(range(k), n))
    base = best[1]
    return [tuple((b + i) % k for b in base) for i in range(k)]


@dataclass
class LadderTournament(TournamentConfig):
    """A tournament whose lineups are the ladder's tables (indices into ``agents``), not
    every combination of the agents; everything else (rotations, shared deals, seeds,
    workers, journal) is the tournament's.  The journal's header does not record the tables:
    they follow from the agents and the player count (:func:`schedule_tables`), and a
    resumed game whose seats differ from the schedule's is refused by the journal check."""

    tables: tuple[tuple[int, ...], ...] = ()

    def lineups(self) -> list[list[AgentSpec]]:
        return [[self.agents[i] for i in table] for table in self.tables]
