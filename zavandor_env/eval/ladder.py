"""The ladder: every standard agent against every other, rated on one scale (``zavandor ladder``).

A ladder is one tournament per player count (2, 4 and 6 by default) between the same agents
(:data:`STANDARD_AGENTS`, or any specs given), played through the tournament machinery
(:mod:`zavandor_env.eval.tournament`: the one game driver, the one definition of a result,
its journal for resuming).  Per player count it reports:

* **ratings**: OpenSkill Plackett-Luce over whole-game rankings, one update per game in
  schedule order (table, deal, rotation), so the numbers are reproducible; shown as
  ``mu ± 2 sigma`` (about a 95% interval of the skill) and the conservative ``ordinal = mu -
  3 sigma``, which orders the table;
* **the pairwise win matrix**: for every two agents, the fraction of the games both played in
  which the row agent finished ahead of the column agent (equal VP counts 1/2), with the
  number of such games;
* per agent its win rate (mean win share) with a Wilson 95% interval, mean rank and mean VP.

**Schedule.**  Agents sit at *tables* (one lineup each); every table is played on the same
``deals`` (game seed ``seed + d`` for deal ``d``, whatever the table) and each deal in every
cyclic rotation of the table, so every agent sits in every seat equally often and agents are
compared on the same cards.  With ``k`` agents at ``n`` seats:

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

**Determinism.**  Games, agent seeds, the schedule and the order of rating updates depend only
on the agents, the player counts, the games, the seed and the rules -- never on the number of
worker processes -- and every search agent of the standard list runs on a fixed
``iterations=`` budget (a spec with ``seconds=`` is refused: a time budget would make the
result depend on the machine).  So the same inputs give byte-identical ``ladder.json`` and
``leaderboard.md``; wall-clock costs go to ``cost.json`` only.

**Cost.**  ``cost.json`` holds, per player count and agent, the mean wall seconds of the
ladder games it sat in, and the seconds per decision of the agent itself, measured by a short
probe after the ladder (one self-play game of the agent per player count, each ``act`` call
timed).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zavandor_env.agents.base import Agent
from zavandor_env.agents.registry import AgentSpec, AgentSpecError, parse_spec
from zavandor_env.engine import GameConfig
from zavandor_env.eval.match import play_game
from zavandor_env.eval.scorecard import (
    DEFAULT_GAME_OPTIONS,
    check_run_shape,
    describe_rules,
    format_spec,
)
from zavandor_env.eval.stats import AgentSummary, summarize
from zavandor_env.eval.tournament import (
    GameRecord,
    OutputDirError,
    TournamentConfig,
    check_agents,
    claim_output_dir,
    lock_output_dir,
    out_folder,
    release_output_dir,
    run_tournament,
)
from zavandor_env.io.files import write_atomic
from zavandor_env.io.folders import Folder, FolderError
from zavandor_env.resources import data_path

#: Version of ``ladder.json``'s layout (bumped when a key changes meaning).
LADDER_FORMAT = 1


@dataclass(frozen=True)
class StandardAgent:
    """One agent of the standard ladder.

    Args:
        label: its name in every table.
        spec: its agent spec; ``{n}`` is replaced by the player count.
        about: one line for the leaderboard.
        optional: when the spec cannot be built here (an extra not installed, an agent
            option not yet known to the registry), the agent is left out and the reason
            recorded, instead of failing the ladder.
    """

    label: str
    spec: str
    about: str
    optional: bool = False

    def at(self, num_players: int) -> AgentSpec:
        return dataclasses.replace(parse_spec(self.spec.format(n=num_players)), label=self.label)


#: The standard agents, weakest first by design.  Every search has a fixed ``iterations=``
#: budget (never ``seconds=``) so the ladder is the same on every machine; the budgets are
#: modest so that the full ladder stays affordable on two cores.  To add an agent, add a line.
STANDARD_AGENTS: tuple[StandardAgent, ...] = (
    StandardAgent("random", "random", "uniformly random legal actions"),
    StandardAgent("novice", "novice", "a beginner's rules of thumb"),
    StandardAgent("heuristic", "heuristic", "the hand-written heuristic"),
    StandardAgent("naive", "naive", "the port of sozav's computer player"),
    StandardAgent("planner", "planner", "the rule-based plan tuned against naive"),
    StandardAgent("mcts-planner", "mcts:policy=planner,iterations=64",
                  "flat Monte Carlo search around the planner, 64 iterations per decision"),
    StandardAgent("shipped", "policy:path=train/checkpoints/selfplay_{n}p/policy.npz",
                  "the self-play policy shipped for the player count, greedy"),
    # Where a network was distilled for the player count (exit_2p, exit_4p: expert iteration).
    StandardAgent("exit", "policy:path=train/checkpoints/exit_{n}p/policy.npz",
                  "the network distilled by expert iteration for the player count, greedy"),
    # Included where the registry knows the network search (mcts:policy=network).
    StandardAgent("mcts-network", "mcts:policy=network,iterations=16",
                  "search guided by the shipped network (prior, value, opponent model), "
                  "16 iterations per decision", optional=True),
    # Included where the openspiel extra is installed.
    StandardAgent("openspiel-ismcts", "openspiel:bot=ismcts,simulations=16",
                  "OpenSpiel's IS-MCTS bot, 16 simulations with random rollouts",
                  optional=True),
)
DEFAULT_PLAYERS: tuple[int, ...] = (2, 4, 6)
#: Games per table, rounded up to a multiple of the player count.
DEFAULT_GAMES = 24
DEFAULT_SEED = 0
#: The most agents of one ladder (the schedule search and the tables stay small).
MAX_AGENTS = 16
#: Files a ladder writes; only these (and its journals) are ever replaced by ``--overwrite``.
LADDER_FILES = ("ladder.json", "leaderboard.md", "ladder.png", "cost.json")
JOURNAL_PATTERN = "games_{n}p.jsonl"
DOC_BEGIN = "<!-- ladder:begin (written by zavandor ladder --update-doc) -->"
DOC_END = "<!-- ladder:end -->"


class LadderError(ValueError):
    """A ladder cannot be made as asked (bad player counts, games, agents); one line."""


# ---- schedule -----------------------------------------------------------------------------
def _pair_counts(tables: Sequence[Sequence[int]], k: int) -> dict[tuple[int, int], int]:
    counts = {pair: 0 for pair in itertools.combinations(range(k), 2)}
    for table in tables:
        for pair in itertools.combinations(sorted(table), 2):
            counts[pair] += 1
    return counts


def schedule_tables(k: int, n: int) -> list[tuple[int, ...]]:
    """The tables of a ladder of ``k`` agents (numbered 0..k-1) at ``n`` seats: agent numbers
    in seat order of rotation 0 (see the module docstring for the design)."""
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

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.tables or any(len(t) != self.num_players or len(set(t)) != len(t)
                                  or not all(0 <= i < len(self.agents) for i in t)
                                  for t in self.tables):
            raise ValueError(f"tables must each seat {self.num_players} different agents")

    def lineups(self) -> list[list[AgentSpec]]:
        return [[self.agents[i] for i in table] for table in self.tables]


# ---- configuration ------------------------------------------------------------------------
@dataclass(frozen=True)
class LadderConfig:
    """What a ladder plays.

    Args:
        players: player counts (sorted, duplicates dropped).
        games: games per table, rounded up to a multiple of the player count.
        seed: first deal seed; deal ``d`` of every table uses game seed ``seed + d``.
        agents: agent specs (``{n}`` stands for the player count, ``label=`` names one);
            None: :data:`STANDARD_AGENTS`.
        game_options: :class:`GameConfig` fields (all but ``num_players``) of every game;
            by default the scorecard's (the rules the shipped policies were trained with).
        workers: processes (None: all cores); has no effect on the results.
        game_file: the game config file ``game_options`` were read from, for the command.
    """

    players: tuple[int, ...] = DEFAULT_PLAYERS
    games: int = DEFAULT_GAMES
    seed: int = DEFAULT_SEED
    agents: tuple[str, ...] | None = None
    game_options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_GAME_OPTIONS))
    workers: int | None = None
    game_file: str | None = None

    def __post_init__(self) -> None:
        players = check_run_shape(LadderError, self.players, self.games, self.seed)
        object.__setattr__(self, "players", players)
        if self.workers is not None and (type(self.workers) is not int or self.workers < 1):
            raise LadderError(f"workers must be positive (or None: all cores), "
                              f"got {self.workers!r}")
        if self.agents is not None:
            object.__setattr__(self, "agents", tuple(self.agents))
            if len(self.agents) > MAX_AGENTS:
                raise LadderError(f"a ladder holds at most {MAX_AGENTS} agents, "
                                  f"got {len(self.agents)}")
        if "num_players" in self.game_options:
            raise LadderError("game_options must not set num_players (the ladder sets it)")
        object.__setattr__(self, "game_options", dict(self.game_options))
        for n in players:
            try:
                GameConfig(num_players=n, **self.game_options)
            except (TypeError, ValueError) as exc:
                raise LadderError(f"game options do not fit {n} players: {exc}") from None

    def rules(self) -> dict[str, Any]:
        """Every :class:`GameConfig` field of the games but the player count."""
        rules = GameConfig(num_players=2, **self.game_options).to_dict()
        del rules["num_players"]
        return rules

    def command(self) -> str:
        """The canonical command line of this ladder (without --out, --workers)."""
        parts = ["zavandor", "ladder", "--players", *map(str, self.players),
                 "--games", str(self.games), "--seed", str(self.seed)]
        if self.agents is not None:
            parts += ["--agents", *map(shlex.quote, self.agents)]
        if self.game_file is not None:
            parts += ["--game", shlex.quote(self.game_file)]
        return " ".join(parts)


@dataclass(frozen=True)
class Entry:
    """An agent of one player count's ladder."""

    spec: AgentSpec
    about: str = ""

    @property
    def label(self) -> str:
        return self.spec.label


@dataclass(frozen=True)
class Skipped:
    """An agent left out of one player count, and why."""

    players: int
    label: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "label": self.label, "reason": self.reason}


def _refuse_time_budget(spec: AgentSpec) -> None:
    if spec.params.get("seconds") is not None:
        raise LadderError(f"agent {spec.label!r}: a ladder uses fixed budgets only (a time "
                          "budget makes the result depend on the machine); give "
                          "iterations= instead of seconds=")


def _check(spec: AgentSpec, num_players: int) -> None:
    check_agents(TournamentConfig([spec], num_players=num_players, games=1))


def plan(config: LadderConfig) -> tuple[dict[int, list[Entry]], list[Skipped]]:
    """The agents of every player count and those left out, every agent built once before
    any game.  A given spec that cannot be built raises (one line); an optional standard
    agent that cannot be built here, or a shipped policy missing for a player count, is
    left out with its reason."""
    entries: dict[int, list[Entry]] = {}
    skipped: list[Skipped] = []
    for n in config.players:
        chosen: list[Entry] = []
        if config.agents is None:
            for std in STANDARD_AGENTS:
                try:
                    spec = std.at(n)
                    _refuse_time_budget(spec)
                    path = spec.params.get("path") if spec.agent == "policy" else None
                    if path is not None and not data_path(str(path)).is_file():
                        skipped.append(Skipped(n, std.label, f"{path} does not exist"))
                        continue
                    _check(spec, n)
                except (AgentSpecError, ValueError) as exc:
                    if not std.optional:
                        raise
                    skipped.append(Skipped(n, std.label, " ".join(str(exc).split())))
                    continue
                chosen.append(Entry(spec, std.about))
        else:
            for text in config.agents:
                # Labelled as given (``{n}`` and all), so an agent has one label at every
                # player count.
                spec = dataclasses.replace(parse_spec(text.replace("{n}", str(n))),
                                           label=parse_spec(text).label)
                _refuse_time_budget(spec)
                if spec.interactive:
                    raise LadderError(f"agent {spec.label!r} asks a person for every decision "
                                      "and cannot sit in a ladder")
                _check(spec, n)
                chosen.append(Entry(spec))
        labels = [e.label for e in chosen]
        if len(set(labels)) != len(labels):
            raise LadderError(f"agent labels must be unique (give each a label=): {labels}")
        if len(chosen) < n:
            raise LadderError(f"{n} players need at least {n} agents, got {len(chosen)}"
                              + (f" ({', '.join(labels)})" if labels else ""))
        entries[n] = chosen
    return entries, skipped


def tournament_for(config: LadderConfig, num_players: int,
                   entries: Sequence[Entry]) -> LadderTournament:
    """The tournament of one player count's ladder."""
    tables = schedule_tables(len(entries), num_players)
    return LadderTournament([e.spec for e in entries], num_players=num_players,
                            games=config.games, seed=config.seed, workers=config.workers,
                            game_options=dict(config.game_options), tables=tuple(tables))


# ---- results ------------------------------------------------------------------------------
@dataclass
class Board:
    """One player count's ladder: its agents, tables, games and what they say."""

    players: int
    entries: list[Entry]
    tournament: LadderTournament
    records: list[GameRecord]
    agents: dict[str, AgentSummary]
    matrix: dict[str, dict[str, float]]
    meetings: dict[str, dict[str, int]]
    seconds_wall: float = 0.0  # cost only: never in ladder.json / leaderboard.md
    probe: dict[str, dict[str, float]] = field(default_factory=dict)  # cost only

    @classmethod
    def build(cls, players: int, entries: list[Entry], tournament: LadderTournament,
              records: list[GameRecord]) -> Board:
        # run_tournament sorts its records (table, deal, rotation): a fixed rating order.
        agents, matrix, meetings = summarize(r.seats() for r in records)
        return cls(players, entries, tournament, list(records), agents, matrix, meetings)

    @property
    def rated(self) -> bool:
        return any(a.sigma > 0 for a in self.agents.values())

    def order(self) -> list[str]:
        """Labels best first: by rating ordinal (when rated), then win rate, then label."""
        return sorted(self.agents, key=lambda x: (-round(self.agents[x].ordinal, 9),
                                                  -round(self.agents[x].win_rate, 9), x))

    def tables(self) -> list[list[str]]:
        return [[s.label for s in lineup] for lineup in self.tournament.lineups()]

    def schedule(self) -> dict[str, Any]:
        """What the schedule is and how balanced it is."""
        labels = [e.label for e in self.entries]
        index = {x: i for i, x in enumerate(labels)}
        tables = self.tables()
        at = {x: sum(x in t for t in tables) for x in labels}
        pairs = _pair_counts([[index[x] for x in t] for t in tables], len(labels))
        deals = self.tournament.deals
        return {
            "design": ("round robin of pairs" if self.players == 2 else
                       "one table" if len(tables) == 1 else
                       "every combination" if len(tables) == math.comb(len(labels), self.players)
                       else "cyclic"),
            "tables": tables,
            "deals_per_table": deals,
            "games_per_table": deals * self.players,
            "deal_seeds": [self.tournament.seed, self.tournament.seed + deals - 1],
            "games": len(self.records),
            "tables_per_agent": at,
            "seats_per_agent": {x: at[x] * deals * self.players for x in labels},
            "tables_per_pair": {"min": min(pairs.values()), "max": max(pairs.values())},
        }

    def to_dict(self) -> dict[str, Any]:
        def r4(v: float) -> float:
            return round(v, 4)

        rows = []
        for x in self.order():
            a = self.agents[x]
            rows.append({
                "label": x,
                "rating_mu": round(a.mu, 3), "rating_sigma": round(a.sigma, 3),
                "rating_interval": [round(a.mu - 2 * a.sigma, 3), round(a.mu + 2 * a.sigma, 3)],
                "rating_ordinal": round(a.ordinal, 3),
                "seats": a.seats, "wins": r4(a.wins), "win_rate": r4(a.win_rate),
                "win_rate_ci95": [r4(a.win_ci[0]), r4(a.win_ci[1])],
                "mean_rank": r4(a.mean_rank), "mean_vp": round(a.mean_vp, 3),
            })
        order = self.order()
        return {
            "players": self.players,
            "agents": [{"label": e.label, "spec": format_spec(e.spec), "about": e.about}
                       for e in self.entries],
            "schedule": self.schedule(),
            "truncated_games": sum(r.truncated for r in self.records),
            "ratings": rows,
            "win_matrix": {x: {y: r4(self.matrix[x][y]) for y in order
                               if y in self.matrix.get(x, {})} for x in order},
            "win_matrix_games": {x: {y: self.meetings[x][y] for y in order
                                     if y in self.meetings.get(x, {})} for x in order},
            "games": [{"table": r.task.lineup, "deal": r.task.deal,
                       "rotation": r.task.rotation, "seed": r.result.seed,
                       "seats": r.labels, "vp": r.result.scores, "ranks": r.result.ranks,
                       "rounds": r.rounds, "truncated": r.truncated} for r in self.records],
        }

    def markdown(self) -> list[str]:
        sched = self.schedule()
        order = self.order()
        lines = [f"### {self.players} players", "",
                 f"{_count(sched['games'], 'game')}: {_count(len(sched['tables']), 'table')} "
                 f"({sched['design']}), {sched['games_per_table']} games per table "
                 f"({_count(sched['deals_per_table'], 'deal')} x {self.players} rotations); "
                 f"each pair of agents at {_span(sched['tables_per_pair'])} table(s) "
                 f"together, each agent at {_span(sched['tables_per_agent'])} tables; "
                 f"{sum(r.truncated for r in self.records)} truncated.", "",
                 "| # | Agent | Rating mu ± 2σ | Ordinal | Win rate [95% CI] | Mean rank "
                 "| Mean VP | Seats |",
                 "|---:|---|---|---:|---|---:|---:|---:|"]
        for i, x in enumerate(order, 1):
            a = self.agents[x]
            rating = f"{a.mu:.1f} ± {2 * a.sigma:.1f}" if self.rated else "-"
            ordinal = f"{a.ordinal:.1f}" if self.rated else "-"
            lines.append(f"| {i} | {x} | {rating} | {ordinal} | {a.win_rate:.3f} "
                         f"[{a.win_ci[0]:.3f}, {a.win_ci[1]:.3f}] | {a.mean_rank:.2f} | "
                         f"{a.mean_vp:.1f} | {a.seats} |")
        lines += ["", "Pairwise: the row agent finished ahead of the column agent in this "
                  "fraction of the games both played (equal VP counts 1/2); games in "
                  "brackets.", "",
                  "| | " + " | ".join(order) + " |",
                  "|---|" + "---:|" * len(order)]
        for x in order:
            cells = []
            for y in order:
                if x == y or y not in self.matrix.get(x, {}):
                    cells.append("-")
                else:
                    cells.append(f"{self.matrix[x][y]:.2f} ({self.meetings[x][y]})")
            lines.append(f"| **{x}** | " + " | ".join(cells) + " |")
        return lines


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _span(counts: Mapping[str, int] | Mapping[str, Any]) -> str:
    values = list(counts.values())
    lo, hi = min(values), max(values)
    return str(lo) if lo == hi else f"{lo}-{hi}"


@dataclass
class Ladder:
    """A played ladder: one :class:`Board` per player count and the agents left out."""

    config: LadderConfig
    boards: list[Board]
    skipped: list[Skipped]

    def to_dict(self) -> dict[str, Any]:
        """Every number of the ladder (nothing that varies between runs of the same inputs)."""
        from zavandor_env import __version__
        from zavandor_env.eval.scorecard import _versions

        cfg = self.config
        return {
            "ladder_format": LADDER_FORMAT,
            "command": cfg.command(),
            "package_version": __version__,
            "library_versions": _versions(),
            "players": list(cfg.players),
            "games_per_table": cfg.games,
            "seed": cfg.seed,
            "rules": cfg.rules(),
            "skipped": [s.to_dict() for s in self.skipped],
            "boards": {str(b.players): b.to_dict() for b in self.boards},
            "definitions": {
                "ratings": "OpenSkill Plackett-Luce over whole-game rankings, one update per "
                           "game in schedule order (table, deal, rotation); interval mu +- 2 "
                           "sigma; ordinal = mu - 3 sigma orders the table",
                "win_matrix": "row agent finished ahead of column agent (equal VP: 1/2), mean "
                              "over the games both played; win_matrix_games counts them",
                "win_rate": "mean win share (1 alone, 1/k shared, 0 otherwise; a truncated "
                            "game has no winner), 95% Wilson interval",
                "schedule": "deal d of every table uses game seed seed + d and is played in "
                            "every cyclic rotation of the table",
            },
        }

    def markdown(self) -> str:
        """``leaderboard.md``: the tables of every player count, ready to paste."""
        cfg = self.config
        lines = ["## Leaderboard", "",
                 f"Command: `{cfg.command()}`  ",
                 f"Rules: {describe_rules(cfg.rules())}.", ""]
        specs: dict[str, str] = {}
        for b in self.boards:
            for e in b.entries:
                text = format_spec(e.spec).replace(f"{b.players}p", "{n}p")
                specs.setdefault(e.label, f"`{text}`" + (f": {e.about}" if e.about else ""))
        lines += ["Agents:", ""] + [f"* **{x}** {s}" for x, s in specs.items()] + [""]
        if self.skipped:  # one line per agent and reason, whatever the player counts
            left: dict[tuple[str, str], list[int]] = {}
            for s in self.skipped:
                left.setdefault((s.label, s.reason), []).append(s.players)
            lines += ["Left out:", ""]
            lines += [f"* {label} ({', '.join(map(str, counts))} players): {reason}"
                      for (label, reason), counts in left.items()]
            lines.append("")
        for b in self.boards:
            lines += b.markdown() + [""]
        return "\n".join(lines)

    def cost(self) -> dict[str, Any]:
        """Times (they vary between runs and machines, so they stay out of the ladder)."""
        boards = {}
        for b in self.boards:
            per_agent = {}
            for e in b.entries:
                played = [r for r in b.records if e.label in r.labels]
                per_agent[e.label] = {
                    "seconds_per_ladder_game": round(
                        sum(r.seconds for r in played) / max(1, len(played)), 4),
                    **b.probe.get(e.label, {}),
                }
            boards[str(b.players)] = {"seconds_wall": round(b.seconds_wall, 2),
                                      "seconds_games_one_core": round(
                                          sum(r.seconds for r in b.records), 2),
                                      "agents": per_agent}
        return {"workers": self.config.workers, "boards": boards,
                "definitions": {
                    "seconds_per_ladder_game": "mean wall seconds of the ladder games the "
                                               "agent sat in (every seat's time)",
                    "seconds_per_decision": "the agent's own act() time per decision, in one "
                                            "self-play game of the agent (the probe)",
                    "probe_seconds_per_game": "that game's seconds"}}

    def cost_markdown(self) -> str:
        """The cost per row, for the doc (not in ``leaderboard.md``: it varies)."""
        cost = self.cost()["boards"]
        lines = ["| Players | Agent | s per ladder game | ms per decision (probe) |",
                 "|---:|---|---:|---:|"]
        for n, board in cost.items():
            for x, c in board["agents"].items():
                per = c.get("seconds_per_decision")
                lines.append(f"| {n} | {x} | {c['seconds_per_ladder_game']:.2f} | "
                             + (f"{1000 * per:.3f}" if per is not None else "-") + " |")
        walls = ", ".join(f"{n} players {b['seconds_wall']:.0f} s" for n, b in cost.items())
        return "\n".join(lines) + f"\n\nWall clock ({self.config.workers or 'all'} worker(s)): " \
            f"{walls}.\n"

    def chart(self, path: Path) -> Path:
        """``ladder.png``: each agent's rating mu with its ±2 sigma bar, best at the top, one
        panel per player count (matplotlib, Agg backend)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(self.boards), squeeze=False,
                                 figsize=(3.6 * len(self.boards) + 1.0, 0.4 * max(
                                     len(b.entries) for b in self.boards) + 1.6))
        for ax, b in zip(axes[0], self.boards):
            order = list(reversed(b.order()))
            mus = [b.agents[x].mu for x in order]
            err = [2 * b.agents[x].sigma for x in order]
            ax.errorbar(mus, range(len(order)), xerr=err, fmt="o", capsize=3, color="#4c72b0")
            ax.set_yticks(range(len(order)), order, fontsize=8)
            ax.set_title(f"{b.players} players ({len(b.records)} games)", fontsize=9)
            ax.set_xlabel("OpenSkill mu ± 2σ", fontsize=8)
            ax.grid(axis="x", linewidth=0.3)
        fig.tight_layout()
        try:
            write_atomic(path, lambda fh: fig.savefig(fh, format="png", dpi=120,
                                                      metadata={"Software": None}))
        finally:
            plt.close(fig)
        return path

    def write(self, out_dir: str | Path, chart: bool = True, replace: bool = False) -> list[Path]:
        """Write ``ladder.json``, ``leaderboard.md``, ``cost.json`` and (``chart``)
        ``ladder.png``, each at once (:func:`write_atomic`); then remove the journals of
        this ladder's games.  An earlier ladder in ``out_dir`` raises
        :class:`OutputDirError` unless ``replace``."""
        out = Path(out_dir)
        try:
            folder = Folder.open(out, what=f"--out {str(out)!r}", create=True)
            lock_output_dir(out)
            earlier = [p for p in previous_ladder(out) if not _is_journal(p)]
            if earlier:
                if not replace:
                    raise OutputDirError(f"{str(out)!r} already holds a ladder "
                                         "(replace=True deletes it first)")
                for path in earlier:
                    folder.unlink(path.name)
            written = [folder.write("ladder.json", content=dumps(self.to_dict())),
                       folder.write("leaderboard.md", content=self.markdown()),
                       folder.write("cost.json", content=dumps(self.cost()))]
            if chart:
                written.append(self.chart(folder.file("ladder.png")))
            for n in self.config.players:  # every game they held is in ladder.json now
                folder.unlink(JOURNAL_PATTERN.format(n=n))
            return written
        except FolderError as exc:
            raise OutputDirError(str(exc)) from None
        finally:
            release_output_dir(out)  # the ladder's last write to its folder

    def text(self) -> str:
        """The console summary: the ratings of every player count."""
        lines = []
        for b in self.boards:
            lines.append(f"{b.players} players, {len(b.records)} games:")
            for i, x in enumerate(b.order(), 1):
                a = b.agents[x]
                lines.append(f"  {i:>2}. {x:<20} mu {a.mu:6.2f} ± {2 * a.sigma:5.2f}  "
                             f"ordinal {a.ordinal:6.2f}  win rate {a.win_rate:.3f}")
        lines += [f"left out: {s.label} at {s.players} players: {s.reason}"
                  for s in self.skipped]
        return "\n".join(lines)


def dumps(data: Any) -> str:
    """JSON with two-space indents, except lists of plain values, which stay on one line (a
    game record is one line, not twenty)."""
    def encode(value: Any, depth: int) -> str:
        pad = "  " * (depth + 1)
        if isinstance(value, dict) and value:
            items = [f"{pad}{json.dumps(str(k))}: {encode(v, depth + 1)}"
                     for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
        if isinstance(value, list) and value and any(isinstance(v, (dict, list))
                                                     for v in value):
            if all(isinstance(v, list) and not any(isinstance(w, (dict, list)) for w in v)
                   for v in value):
                items = [pad + json.dumps(v) for v in value]
            elif all(isinstance(v, dict) and not any(isinstance(w, dict) for w in v.values())
                     for v in value):
                items = [pad + json.dumps(v) for v in value]  # flat records: one per line
            else:
                items = [pad + encode(v, depth + 1) for v in value]
            return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
        return json.dumps(value, allow_nan=False)

    return encode(data, 0) + "\n"


# ---- playing ------------------------------------------------------------------------------
class _Timed(Agent):
    """An agent that times the ``act`` calls of another (the cost probe)."""

    def __init__(self, inner: Agent) -> None:
        super().__init__()
        self.inner = inner
        self.name = inner.name
        self.needs_observation = inner.needs_observation  # type: ignore[misc]
        self.seconds = 0.0
        self.decisions = 0

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        self.inner.reset(seat, num_players, seed)

    def act(self, observation: dict[str, Any] | None, view: Any,
            legal_actions: Sequence[int]) -> int:
        start = time.perf_counter()
        action = self.inner.act(observation, view, legal_actions)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return action

    def close(self) -> None:
        self.inner.close()


def probe_cost(spec: AgentSpec, num_players: int, seed: int,
               game_options: Mapping[str, Any]) -> dict[str, float]:
    """Seconds per decision of ``spec`` itself: one self-play game, every ``act`` timed."""
    agents = [_Timed(spec.build(seed=seat)) for seat in range(num_players)]
    try:
        result = play_game(agents, seed=seed,
                           config=GameConfig(num_players=num_players, **game_options))
    finally:
        for agent in agents:
            agent.close()
    decisions = sum(a.decisions for a in agents)
    return {"seconds_per_decision": round(sum(a.seconds for a in agents) / max(1, decisions), 6),
            "probe_decisions": decisions, "probe_seconds_per_game": round(result.seconds, 4)}


def run_ladder(config: LadderConfig, progress: bool = True, out_dir: str | Path | None = None,
               resume: bool = False, probe: bool = True,
               on_board: Callable[[Board], None] | None = None) -> Ladder:
    """Play every player count's ladder (see the module docstring).

    ``out_dir`` keeps each finished game in ``games_<n>p.jsonl`` there as it ends (the
    tournament's journal), and with ``resume`` the games already there are not played again:
    a ladder killed midway and resumed gives the records of an uninterrupted one.
    ``probe`` times each agent's decisions afterwards (``cost.json``).
    """
    entries, skipped = plan(config)
    boards = []
    for n, chosen in entries.items():
        tournament = tournament_for(config, n, chosen)
        if progress:
            print(f"ladder: {n} players, {len(chosen)} agents, {len(tournament.tables)} "
                  f"tables", file=sys.stderr)
        journal = None if out_dir is None else Path(out_dir) / JOURNAL_PATTERN.format(n=n)
        start = time.perf_counter()
        records = run_tournament(tournament, progress=progress, journal=journal,
                                 resume=resume and journal is not None and journal.is_file())
        board = Board.build(n, chosen, tournament, records)
        board.seconds_wall = time.perf_counter() - start
        boards.append(board)
        if on_board:
            on_board(board)
    ladder = Ladder(config, boards, skipped)
    if probe:
        for board in boards:
            for e in board.entries:
                board.probe[e.label] = probe_cost(e.spec, board.players, config.seed,
                                                  config.game_options)
    return ladder


# ---- output directory and the doc ---------------------------------------------------------
def _is_journal(path: Path) -> bool:
    return any(path.name == JOURNAL_PATTERN.format(n=n) for n in range(2, 7))


def previous_ladder(out_dir: str | Path) -> list[Path]:
    """The files an earlier ladder wrote in ``out_dir`` (its journals included; regular
    files only: a symlink is never ours)."""
    folder = out_folder(out_dir)
    if folder is None:
        return []
    return [p for name, kind in folder.entries() if kind == "file"
            and ((p := folder.root / name).name in LADDER_FILES or _is_journal(p))]


def prepare_ladder_dir(out_dir: str | Path, overwrite: bool = False,
                       resume: bool = False) -> Path:
    """Make sure a ladder can be written to ``out_dir`` before any game: creates it,
    refuses a directory holding other files, refuses an earlier ladder unless ``overwrite``
    (or ``resume``: continue its journals), and probes that it is writable.  Raises
    :class:`OutputDirError` with one line."""
    out = Path(out_dir)
    folder = out_folder(out)  # refuses a file or a symlink at --out
    ours = previous_ladder(out)
    if resume and not any(_is_journal(p) for p in ours):
        raise OutputDirError(f"nothing to resume in --out {str(out)!r}: it holds no "
                             "games_<n>p.jsonl (the games of an interrupted ladder)")
    others = ([p for p in (out / name for name, _ in folder.entries()) if p not in ours]
              if folder is not None else [])
    if not (overwrite or resume or others) and any(_is_journal(p) for p in ours):
        raise OutputDirError(f"--out {str(out)!r} holds the games of an interrupted ladder "
                             "(games_<n>p.jsonl): give --resume to continue it (same "
                             "arguments), or --overwrite to start again")
    return claim_output_dir(out, ours, others, overwrite or resume, tool="ladder",
                            report="a ladder")


def update_doc(doc: str | Path, ladder: Ladder) -> Path:
    """Replace the text between :data:`DOC_BEGIN` and :data:`DOC_END` in ``doc`` with the
    leaderboard and its cost table; raises :class:`LadderError` when the markers are
    missing (the doc is never rewritten elsewhere)."""
    path = Path(doc)
    check_doc(path)
    text = path.read_text(encoding="utf-8")
    begin, end = text.find(DOC_BEGIN), text.find(DOC_END)
    body = (ladder.markdown().replace("## Leaderboard\n\n", "", 1)
            + "\n### Cost per row\n\n" + ladder.cost_markdown())
    new = text[:begin + len(DOC_BEGIN)] + "\n" + body + text[end:]
    write_atomic(path, new)
    return path


def check_doc(doc: str | Path) -> None:
    """Raise :class:`LadderError` unless ``doc`` can take the ladder (checked before any
    game, so a typo in ``--update-doc`` does not cost a whole ladder)."""
    path = Path(doc)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LadderError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    begin, end = text.find(DOC_BEGIN), text.find(DOC_END)
    if begin < 0 or end < begin:
        raise LadderError(f"{str(path)!r} has no {DOC_BEGIN!r} ... {DOC_END!r} section")
