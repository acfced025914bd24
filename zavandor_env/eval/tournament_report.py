"""A tournament's report: the console table, ``summary.json``, ``summary.csv``, ``games.csv``,
``chart.png`` and (when recorded) ``replays/*.json``, in the run's folder.

The folder (:data:`EVAL_FOLDER`, see :mod:`zavandor_env.eval.run_folder`) is checked before
any game is played (:func:`prepare_output_dir`) and the report replaces an earlier run's files
only when asked, so an old replay never sits beside a new summary; the tournament's journal
(``games.jsonl``) is removed once the report holds its games.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zavandor_env.eval.charts import interval_bars, pyplot, save_figure
from zavandor_env.eval.journal import JournalError, read_journal_header
from zavandor_env.eval.run_folder import ReportFolder
from zavandor_env.eval.stats import AgentSummary, summarize
from zavandor_env.eval.tournament import GameRecord, TournamentConfig
from zavandor_env.eval.tournament_journal import JOURNAL_FILE, journal_spec
from zavandor_env.extras import install_command
from zavandor_env.io.csvfiles import csv_text
from zavandor_env.io.folders import Folder

REPLAY_DIR = "replays"
#: What ``zavandor eval`` writes in its folder; only these are ever replaced.
EVAL_FOLDER = ReportFolder(
    tool="eval", report="a tournament report",
    files=("summary.json", "summary.csv", "games.csv", "chart.png"),
    journals=JOURNAL_FILE.replace(".", r"\."), journal_text=JOURNAL_FILE,
    subdir=(REPLAY_DIR, r"game_l\d+_d\d+_r\d+\.json"))
#: Check ``--out`` before any game (see :meth:`ReportFolder.prepare`).
prepare_output_dir = EVAL_FOLDER.prepare


@dataclass
class TournamentReport:
    """What a tournament's games say: per agent, head to head, and every game."""

    config: TournamentConfig
    records: list[GameRecord]
    agents: dict[str, AgentSummary]
    head_to_head: dict[str, dict[str, float]]
    meetings: dict[str, dict[str, int]]

    @classmethod
    def build(cls, config: TournamentConfig, records: Sequence[GameRecord]) -> TournamentReport:
        agents, h2h, meetings = summarize(r.seats() for r in records)
        return cls(config, list(records), agents, h2h, meetings)

    def ordered(self) -> list[AgentSummary]:
        return sorted(self.agents.values(), key=lambda a: (-a.win_rate, a.mean_rank, a.label))

    def to_dict(self) -> dict[str, Any]:
        n = len(self.records)
        return {
            "num_players": self.config.num_players,
            "games": n,
            "seed": self.config.seed,
            "game_options": self.config.game_options,
            "agents_spec": self.config.agents_data(),
            "truncated_games": sum(r.truncated for r in self.records),
            "mean_rounds": round(sum(r.rounds for r in self.records) / max(1, n), 3),
            "mean_seconds_per_game": round(sum(r.seconds for r in self.records) / max(1, n), 4),
            "agents": [a.to_dict() for a in self.ordered()],
            "head_to_head": {
                x: {y: round(v, 4) for y, v in row.items()} for x, row in self.head_to_head.items()
            },
            "head_to_head_meetings": self.meetings,
        }

    def text(self) -> str:
        d = self.to_dict()
        lines = [
            (f"{d['games']} games, {d['num_players']} players, "
             f"{d['mean_rounds']:.1f} rounds and {d['mean_seconds_per_game']:.2f} s per game "
             f"(one core), {d['truncated_games']} truncated"),
            (f"{'agent':<28} {'seats':>6} {'win rate':>9} {'95% CI':>17} {'rank':>6} "
             f"{'VP':>7} {'rating':>8}"),
        ]
        lines += [f"{a.label:<28} {a.seats:>6} {a.win_rate:>9.3f} "
                  f"{f'[{a.win_ci[0]:.3f}, {a.win_ci[1]:.3f}]':>17} {a.mean_rank:>6.2f} "
                  f"{a.mean_vp:>7.1f} "
                  f"{f'{a.ordinal:.2f}' if a.rated else 'n/a':>8}" for a in self.ordered()]
        if not all(a.rated for a in self.ordered()):
            lines.append(f"ratings n/a: OpenSkill is not installed "
                         f"({install_command('eval')})")
        labels = [a.label for a in self.ordered()]
        if len(labels) > 1:
            lines.append("head-to-head (row finishes ahead of column; ties 0.5):")
            width = max(8, max(len(x) for x in labels) + 1)
            lines.append(" " * width + "".join(f"{x[:10]:>11}" for x in labels))
            for x in labels:
                row = self.head_to_head.get(x, {})
                lines.append(f"{x[:width - 1]:<{width}}" + "".join(
                    f"{row[y]:>11.3f}" if y in row else f"{'-':>11}" for y in labels))
        return "\n".join(lines)


    def write(self, out_dir: str | Path, chart: bool = True, replace: bool = False) -> list[Path]:
        """Write ``summary.json``, ``summary.csv``, ``games.csv``, ``chart.png`` and (when
        recorded) ``replays/*.json``, each at once; returns the paths written.  An earlier
        report in ``out_dir`` raises :class:`~zavandor_env.eval.run_folder.OutputDirError`
        unless ``replace``, which first deletes its files (only those).  The journal of this
        very tournament is not an earlier report: it is removed last."""
        contents = {"summary.json": json.dumps(self.to_dict(), indent=2) + "\n",
                    "summary.csv": self._summary_csv(), "games.csv": self._games_csv()}
        for r in self.records:
            if r.replay is not None:
                t = r.task
                contents[f"{REPLAY_DIR}/game_l{t.lineup}_d{t.deal:04d}_r{t.rotation}.json"] = \
                    json.dumps({**r.replay, "agents": r.labels}) + "\n"
        return EVAL_FOLDER.write(out_dir, contents, replace,
                                 chart=("chart.png", self.chart) if chart else None,
                                 own_journal=self._is_own_journal)

    def _is_own_journal(self, folder: Folder, name: str) -> bool:
        """Whether the folder's journal is this report's tournament's (not an older one's)."""
        try:
            header = read_journal_header(folder.file(name))
        except JournalError:
            return False
        return header.get("spec") == journal_spec(self.config)

    def _summary_csv(self) -> str:
        fields = ["label", "seats_played", "wins", "win_rate", "ci95_low", "ci95_high",
                  "mean_rank", "mean_vp", "rating_mu", "rating_sigma", "rating_ordinal"]
        rows = []
        for agent in self.ordered():
            row = agent.to_dict()
            row["ci95_low"], row["ci95_high"] = row["win_rate_ci95"]
            rows.append([row.get(f, "") for f in fields])  # as DictWriter did
        return csv_text(fields, rows)

    def _games_csv(self) -> str:
        fields = ["lineup", "deal", "rotation", "seed", "seat", "agent", "vp", "rank",
                  "win_share", "rounds", "decisions", "truncated", "seconds"]
        rows = [[r.task.lineup, r.task.deal, r.task.rotation, self.config.seed + r.task.deal,
                 s, rec.label, rec.vp, rec.rank, round(rec.win_share, 4), r.rounds,
                 r.decisions, int(r.truncated), round(r.seconds, 4)]
                for r in self.records for s, rec in enumerate(r.seats())]
        return csv_text(fields, rows)

    def chart(self, path: Path) -> Path:
        """Win rate with 95% intervals and mean VP per agent (matplotlib, Agg backend)."""
        agents = self.ordered()
        labels = [a.label for a in agents]
        rates = [a.win_rate for a in agents]
        fig, (ax1, ax2) = pyplot().subplots(1, 2, figsize=(10, 4))
        ax1.bar(labels, rates, yerr=interval_bars(rates, [a.win_ci for a in agents]),
                capsize=4, color="#4c72b0")
        ax1.set_ylim(0, 1)
        ax1.set_ylabel("win rate (95% Wilson CI)")
        ax1.axhline(1 / self.config.num_players, color="grey", linestyle="--", linewidth=1)
        ax2.bar(labels, [a.mean_vp for a in agents], color="#dd8452")
        ax2.set_ylabel("mean VP")
        for ax in (ax1, ax2):
            ax.tick_params(axis="x", rotation=30)
        fig.suptitle(f"{len(self.records)} games, {self.config.num_players} players")
        fig.tight_layout()
        return save_figure(fig, path, dpi=100)
