"""A played ladder and its files: ``ladder.json``, ``leaderboard.md``, ``ladder.png``,
``cost.json``, and the marked section of ``docs/leaderboard.md`` (``--update-doc``).

Per player count the ladder reports:

* **ratings**: OpenSkill Plackett-Luce over whole-game rankings, one update per game in
  schedule order (table, deal, rotation), so the numbers are reproducible; shown as
  ``mu ± 2 sigma`` (about a 95% interval of the skill) and the conservative ``ordinal = mu -
  3 sigma``, which orders the table;
* **the pairwise win matrix**: for every two agents, the fraction of the games both played in
  which the row agent finished ahead of the column agent (equal VP counts 1/2), with the
  number of such games;
* per agent its win rate (mean win share) with a Wilson 95% interval, mean rank and mean VP.

``ladder.json`` and ``leaderboard.md`` hold nothing that varies between runs of the same
inputs; wall-clock costs go to ``cost.json`` only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zavandor_env.agents.registry import AgentSpec
from zavandor_env.eval.charts import pyplot, save_figure
from zavandor_env.eval.ladder_schedule import LadderError, LadderTournament, pair_counts
from zavandor_env.eval.run_folder import ReportFolder
from zavandor_env.eval.run_settings import (
    RunSettings,
    Skipped,
    describe_rules,
    format_spec,
    library_versions,
)
from zavandor_env.eval.stats import AgentSummary, summarize
from zavandor_env.eval.tournament import GameRecord
from zavandor_env.io.files import write_atomic

#: Version of ``ladder.json``'s layout (bumped when a key changes meaning).
LADDER_FORMAT = 1
#: Each player count's journal of finished games, in the ladder's folder.
JOURNAL_PATTERN = "games_{n}p.jsonl"
#: What a ladder writes in its folder; only these are ever replaced.
LADDER_FOLDER = ReportFolder(
    tool="ladder", report="a ladder",
    files=("ladder.json", "leaderboard.md", "ladder.png", "cost.json", "exploit.json",
           "exploit.md"),
    journals=r"games_[2-6]p\.jsonl", journal_text="games_<n>p.jsonl")
#: Check ``--out`` before any game (see :meth:`ReportFolder.prepare`).
prepare_ladder_dir = LADDER_FOLDER.prepare
DOC_BEGIN = "<!-- ladder:begin (written by zavandor ladder --update-doc) -->"
DOC_END = "<!-- ladder:end -->"


@dataclass(frozen=True)
class Entry:
    """An agent of one player count's ladder."""

    spec: AgentSpec
    about: str = ""

    @property
    def label(self) -> str:
        return self.spec.label


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
        tables = self.tables()
        at = {x: sum(x in t for t in tables) for x in labels}
        pairs = pair_counts(self.tournament.tables, len(labels))  # agent numbers: entries
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

        order = self.order()
        rows = [{"label": x, "rating_mu": round(a.mu, 3), "rating_sigma": round(a.sigma, 3),
                 "rating_interval": [round(a.mu - 2 * a.sigma, 3), round(a.mu + 2 * a.sigma, 3)],
                 "rating_ordinal": round(a.ordinal, 3), "seats": a.seats, "wins": r4(a.wins),
                 "win_rate": r4(a.win_rate), "win_rate_ci95": [r4(a.win_ci[0]), r4(a.win_ci[1])],
                 "mean_rank": r4(a.mean_rank), "mean_vp": round(a.mean_vp, 3)}
                for x, a in ((x, self.agents[x]) for x in order)]
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
                       "rotation": r.task.rotation, "seed": r.seed,
                       "seats": r.labels, "vp": r.scores, "ranks": r.ranks,
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
            rating = f"{a.mu:.1f} ± {2 * a.sigma:.1f} | {a.ordinal:.1f}" if self.rated else "- | -"
            lines.append(f"| {i} | {x} | {rating} | {a.win_rate:.3f} "
                         f"[{a.win_ci[0]:.3f}, {a.win_ci[1]:.3f}] | {a.mean_rank:.2f} | "
                         f"{a.mean_vp:.1f} | {a.seats} |")
        lines += ["", "Pairwise: the row agent finished ahead of the column agent in this "
                  "fraction of the games both played (equal VP counts 1/2); games in "
                  "brackets.", "",
                  "| | " + " | ".join(order) + " |",
                  "|---|" + "---:|" * len(order)]
        for x in order:
            row = self.matrix.get(x, {})
            cells = [f"{row[y]:.2f} ({self.meetings[x][y]})" if y != x and y in row else "-"
                     for y in order]
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

    config: RunSettings  # a LadderConfig: its run settings are all the report reads
    boards: list[Board]
    skipped: list[Skipped]

    def to_dict(self) -> dict[str, Any]:
        """Every number of the ladder (nothing that varies between runs of the same inputs)."""
        from zavandor_env import __version__

        cfg = self.config
        return {
            "ladder_format": LADDER_FORMAT,
            "command": cfg.command(),
            "package_version": __version__,
            "library_versions": library_versions(),
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
        fig, axes = pyplot().subplots(1, len(self.boards), squeeze=False,
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
        return save_figure(fig, path, dpi=120)

    def write(self, out_dir: str | Path, chart: bool = True, replace: bool = False) -> list[Path]:
        """Write ``ladder.json``, ``leaderboard.md``, ``cost.json`` and (``chart``)
        ``ladder.png``, each at once; then remove the journals of this ladder's games.  An
        earlier ladder in ``out_dir`` raises
        :class:`~zavandor_env.eval.run_folder.OutputDirError` unless ``replace``."""
        journals = {JOURNAL_PATTERN.format(n=n) for n in self.config.players}
        return LADDER_FOLDER.write(
            out_dir, {"ladder.json": dumps(self.to_dict()), "leaderboard.md": self.markdown(),
                      "cost.json": dumps(self.cost())}, replace,
            chart=("ladder.png", self.chart) if chart else None,
            own_journal=lambda _folder, name: name in journals)

    def text(self) -> str:
        """The console summary: the ratings of every player count."""
        lines = []
        for b in self.boards:
            lines.append(f"{b.players} players, {len(b.records)} games:")
            lines += [f"  {i:>2}. {x:<20} mu {a.mu:6.2f} ± {2 * a.sigma:5.2f}  "
                      f"ordinal {a.ordinal:6.2f}  win rate {a.win_rate:.3f}"
                      for i, (x, a) in enumerate(((x, b.agents[x]) for x in b.order()), 1)]
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
            flat = all(isinstance(v, list) and not any(isinstance(w, (dict, list)) for w in v)
                       for v in value) or all(  # flat records: one per line
                isinstance(v, dict) and not any(isinstance(w, dict) for w in v.values())
                for v in value)
            items = [pad + (json.dumps(v) if flat else encode(v, depth + 1)) for v in value]
            return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
        return json.dumps(value, allow_nan=False)

    return encode(data, 0) + "\n"


def update_doc(doc: str | Path, ladder: Ladder) -> Path:
    """Replace the text between :data:`DOC_BEGIN` and :data:`DOC_END` in ``doc`` with the
    leaderboard and its cost table; raises :class:`LadderError` when the markers are
    missing (the doc is never rewritten elsewhere)."""
    path = Path(doc)
    text = check_doc(path)
    body = (ladder.markdown().replace("## Leaderboard\n\n", "", 1)
            + "\n### Cost per row\n\n" + ladder.cost_markdown())
    write_atomic(path, text[:text.find(DOC_BEGIN) + len(DOC_BEGIN)] + "\n" + body
                 + text[text.find(DOC_END):])
    return path


def check_doc(doc: str | Path) -> str:
    """The text of ``doc``; raises :class:`LadderError` unless it can take the ladder
    (checked before any game, so a typo in ``--update-doc`` does not cost a whole ladder)."""
    path = Path(doc)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LadderError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    begin, end = text.find(DOC_BEGIN), text.find(DOC_END)
    if begin < 0 or end < begin:
        raise LadderError(f"{str(path)!r} has no {DOC_BEGIN!r} ... {DOC_END!r} section")
    return text
