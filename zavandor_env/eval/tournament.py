"""What a tournament plays: its agents, lineups, deals and seat rotations, and the record of
one game.

Fairness rules:

* **Lineups.**  With as many agents as seats, one lineup seats them all.  With fewer agents,
  the first agent plays against the others cycled over the remaining seats (``heuristic`` vs
  ``random`` in a 4-player game = one heuristic and three randoms).  With more agents than
  seats, every combination of ``num_players`` agents is a lineup.
* **Rotation.**  Each lineup is played in all of its cyclic rotations, so every agent sits in
  every seat equally often; ``games`` is rounded up to a multiple of the player count.
* **Shared deals.**  Deal ``d`` uses game seed ``seed + d`` for every lineup and rotation, so
  agents are compared on the same cards, characters and tie-breaks.

The games are played by :func:`zavandor_env.eval.tournament_run.run_tournament` (the one
driver of seat-rotated games: the ladder and the scorecard play theirs through it too),
journaled by :mod:`zavandor_env.eval.tournament_journal` and reported by
:mod:`zavandor_env.eval.tournament_report`.  Every agent spec is built once before any game
(:func:`check_agents`), so a missing policy file or a bad parameter fails at once, not in a
worker.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zavandor_env.agents.registry import AgentSpec, AgentSpecError
from zavandor_env.eval.match import GameResult
from zavandor_env.eval.stats import SeatRecord, seat_records
from zavandor_env.eval.tournament_file import (
    TournamentConfigError,
    check_config,
    read_tournament_file,
)


@dataclass
class TournamentConfig:
    """What to play.  ``game_options`` are extra :class:`GameConfig` fields."""

    agents: list[AgentSpec]
    num_players: int = 2
    games: int = 100
    seed: int = 0
    workers: int | None = None  # None: all cores
    game_options: dict[str, Any] = field(default_factory=dict)
    save_replays: bool = False
    _lineups: tuple[Any, list[list[AgentSpec]]] | None = field(
        default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Types and ceilings first, lineups counted before any is built (tournament_file).
        check_config(self)

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> TournamentConfig:
        """Read a tournament file (see ``configs/eval/*.yaml``); ``overrides`` that are not
        None replace its values, once the file's own values passed every check (a bad value
        in the file is refused even where a flag replaces it).  The file may come from anyone:
        it is read as plain data, bounded in size and depth, every field is type-checked and
        held to its ceiling, and every problem is one line
        (:class:`~zavandor_env.eval.tournament_file.TournamentConfigError`, a
        ``ValueError``; see :mod:`zavandor_env.eval.tournament_file`)."""
        data = read_tournament_file(path, {})
        try:
            cls(**data)  # the file as written, whole, before a flag replaces any value of it
            return cls(**{**data, **{k: v for k, v in overrides.items() if v is not None}})
        except ValueError as exc:
            raise TournamentConfigError(f"{path}: {exc}") from None

    def lineups(self) -> list[list[AgentSpec]]:
        """The lineups, built once (at most :data:`~zavandor_env.io.limits.MAX_LINEUPS`, as
        counted when the config was made); callers index it and must not change it."""
        key = (self.num_players, tuple(self.agents))
        if self._lineups is None or self._lineups[0] != key:
            self._lineups = (key, self._build_lineups())
        return self._lineups[1]

    def _build_lineups(self) -> list[list[AgentSpec]]:
        n, agents = self.num_players, self.agents
        if len(agents) > n:
            return [list(c) for c in itertools.combinations(agents, n)]
        others = agents[1:] or agents  # cycled over the seats after the first agent's
        return [[agents[0]] + [others[i % len(others)] for i in range(n - 1)]]

    @property
    def deals(self) -> int:
        return -(-self.games // self.num_players)

    @property
    def interactive(self) -> bool:
        """Whether an agent asks a person (then every game runs in this process)."""
        return any(spec.interactive for spec in self.agents)

    def agents_data(self) -> list[dict[str, Any]]:
        """The agents as plain data (label, agent, params), as the report and journal hold
        them."""
        return [{"label": a.label, "agent": a.agent, "params": dict(a.params)}
                for a in self.agents]


def check_agents(config: TournamentConfig) -> None:
    """Build every agent spec once in this process and close it, so a missing policy file or a
    parameter an agent rejects raises here (:class:`AgentSpecError`), before any worker."""
    for spec in config.agents:
        check_spec(spec)


def check_spec(spec: AgentSpec) -> None:
    """Build ``spec`` once and close it (see :func:`check_agents`)."""
    try:
        agent = spec.build(seed=0)
    except (ValueError, OSError, ImportError) as exc:
        if isinstance(exc, AgentSpecError):
            raise
        raise AgentSpecError(f"agent {spec.label!r}: {exc}") from None
    agent.close()


@dataclass(frozen=True)
class GameTask:
    """One game to play: lineup index, deal index, rotation."""

    lineup: int
    deal: int
    rotation: int


@dataclass
class GameRecord(GameResult):
    """One tournament game: the driver's :class:`GameResult` (labels in seat order, the
    outcome, time, replay) and where it sits in the schedule."""

    task: GameTask = field(kw_only=True)

    def seats(self) -> list[SeatRecord]:
        return seat_records(self.labels, self.scores, self.ranks, self.winners)


def seated(lineup: list[AgentSpec], rotation: int) -> list[AgentSpec]:
    """The agents of ``lineup`` in seat order at ``rotation``: seat ``s`` holds
    ``lineup[(s - rotation) % n]``."""
    n = len(lineup)
    return [lineup[(s - rotation) % n] for s in range(n)]


def schedule(config: TournamentConfig) -> list[GameTask]:
    """Every game of the tournament, in report order (lineup, deal, rotation)."""
    return [
        GameTask(li, d, r)
        for li in range(len(config.lineups()))
        for d in range(config.deals)
        for r in range(config.num_players)
    ]
