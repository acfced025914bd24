"""A played scorecard and its files: ``scorecard.json``, ``scorecard.md``, ``scorecard.png``
and ``timing.json`` (see :mod:`zavandor_env.eval.scorecard`).

``scorecard.json`` and ``scorecard.md`` hold no time, date, absolute path or machine detail,
so the same inputs give byte-identical files; timings go to ``timing.json``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from zavandor_env.agents.registry import AgentSpec
from zavandor_env.eval.charts import interval_bars, pyplot, save_figure
from zavandor_env.eval.run_folder import ReportFolder
from zavandor_env.eval.run_settings import (
    Skipped,
    describe_rules,
    format_spec,
    library_versions,
)
from zavandor_env.eval.stats import AgentSummary, wilson_interval
from zavandor_env.eval.tournament import GameRecord
from zavandor_env.resources import data_path


class CardSettings(Protocol):
    """What a card reads of its :class:`~zavandor_env.eval.scorecard.ScorecardConfig` (a
    protocol, so the report does not import the module that plays it)."""

    @property
    def spec(self) -> str: ...
    @property
    def opponents(self) -> tuple[str, ...]: ...
    @property
    def mcts_iterations(self) -> int: ...
    @property
    def players(self) -> tuple[int, ...]: ...
    @property
    def games(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def workers(self) -> int | None: ...

    def candidate(self) -> AgentSpec: ...
    def opponent(self, name: str, num_players: int) -> AgentSpec: ...
    def command(self) -> str: ...
    def rules(self) -> dict[str, Any]: ...

#: Version of the card's JSON layout (bumped when a key changes meaning).
SCORECARD_FORMAT = 1
#: The tournament label of the evaluated agent (opponents are labelled by their names).
CANDIDATE = "candidate"
#: What a scorecard writes in its folder; only these are ever replaced.
SCORECARD_FOLDER = ReportFolder(
    tool="scorecard", report="a scorecard",
    files=("scorecard.json", "scorecard.md", "scorecard.png", "timing.json"))
#: Check ``--out`` before any game (see :meth:`ReportFolder.prepare`).
prepare_scorecard_dir = SCORECARD_FOLDER.prepare


def wrap_title(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, broken after a space, ``/``, ``,``
    or ``=`` (a spec's natural joints), a longer piece on a line of its own."""
    lines = [""]
    for piece in re.split(r"(?<=[ /,=])", text):
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


@dataclass
class Row:
    """The candidate against one opponent at one player count."""

    players: int
    opponent: str
    opponent_spec: AgentSpec
    games: int
    wins: float
    rank_sum: int
    vp_sum: int
    best_opponent_vp_sum: int
    truncated: int
    rounds_sum: int
    seconds_wall: float = 0.0  # timing only: never in scorecard.json / .md
    seconds_games: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def win_ci(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def chance(self) -> float:
        return 1 / self.players

    @property
    def mean_rank(self) -> float:
        return self.rank_sum / self.games

    @property
    def vp_margin(self) -> float:
        return (self.vp_sum - self.best_opponent_vp_sum) / self.games

    @property
    def truncated_share(self) -> float:
        return self.truncated / self.games

    @classmethod
    def from_records(cls, players: int, opponent: str, spec: AgentSpec,
                     records: Sequence[GameRecord]) -> Row:
        # The lineup seats the candidate exactly once (against n - 1 copies of the opponent).
        mine = [next(s for s in r.seats() if s.label == CANDIDATE) for r in records]
        best = [max(s.vp for s in r.seats() if s.label != CANDIDATE) for r in records]
        return cls(players, opponent, spec, len(records), sum(s.win_share for s in mine),
                   sum(s.rank for s in mine), sum(s.vp for s in mine), sum(best),
                   sum(r.truncated for r in records), sum(r.rounds for r in records),
                   seconds_games=sum(r.seconds for r in records))

    def to_dict(self, seed: int) -> dict[str, Any]:
        lo, hi = self.win_ci
        return {
            "players": self.players,
            "opponent": self.opponent,
            "opponent_spec": format_spec(self.opponent_spec),
            "games": self.games,
            "deal_seeds": [seed, seed + self.games // self.players - 1],
            "wins": round(self.wins, 4),
            "win_rate": round(self.win_rate, 4),
            "win_rate_ci95": [round(lo, 4), round(hi, 4)],
            "chance": round(self.chance, 4),
            "mean_rank": round(self.mean_rank, 4),
            "mean_vp": round(self.vp_sum / self.games, 3),
            "mean_best_opponent_vp": round(self.best_opponent_vp_sum / self.games, 3),
            "mean_vp_margin": round(self.vp_margin, 3),
            "truncated_games": self.truncated,
            "truncated_share": round(self.truncated_share, 4),
            "mean_rounds": round(self.rounds_sum / self.games, 3),
        }


def policy_file(spec: AgentSpec) -> dict[str, Any] | None:
    """Path as given, sha256 and observation fingerprint of a policy spec's file (the card
    must say which weights produced it; the path alone could hold other weights tomorrow)."""
    if spec.agent != "policy" or "path" not in spec.params:
        return None
    given = str(spec.params["path"])
    path = data_path(given)
    with open(path, "rb") as fh:
        sha256 = hashlib.file_digest(fh, "sha256").hexdigest()
    info: dict[str, Any] = {"path": given, "sha256": sha256, "obs_fingerprint": None}
    if path.suffix.lower() == ".npz":
        from zavandor_env.agents.policy_file import load_policy

        info["obs_fingerprint"] = load_policy(path, fingerprint=None).fingerprint
    return info


@dataclass
class Scorecard:
    """A played scorecard: rows, skipped rows and ratings per player count."""

    config: CardSettings
    rows: list[Row]
    skipped: list[Skipped]
    ratings: dict[int, dict[str, AgentSummary]]
    candidate_file: dict[str, Any] | None
    opponent_files: dict[int, dict[str, Any]]

    # ---- data ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Every number of the card (nothing that varies between runs of the same inputs)."""
        from zavandor_env import __version__
        from zavandor_env.encoding.observation import OBS_FINGERPRINT

        cfg = self.config
        spec = cfg.candidate()
        return {
            "scorecard_format": SCORECARD_FORMAT,
            "command": cfg.command(),
            "package_version": __version__,
            "library_versions": library_versions(),
            "observation_fingerprint": OBS_FINGERPRINT,
            "candidate": {
                "spec": cfg.spec,
                "agent": spec.agent,
                "params": dict(spec.params),
                "policy_file": self.candidate_file,
            },
            "players": list(cfg.players),
            "games_per_row": cfg.games,
            "seed": cfg.seed,
            "opponents": list(cfg.opponents),
            "mcts_iterations": cfg.mcts_iterations,
            "rules": cfg.rules(),
            "shipped_policies": {str(n): f for n, f in self.opponent_files.items()},
            "rows": [row.to_dict(cfg.seed) for row in self.rows],
            "skipped": [s.to_dict("opponent") for s in self.skipped],
            "ratings": {
                str(n): {label: {"mu": round(r.mu, 3), "sigma": round(r.sigma, 3),
                             "ordinal": round(r.ordinal, 3)} for label, r in table.items()}
                for n, table in self.ratings.items()
            },
            "definitions": {
                "win_rate": "mean win share of the candidate's seat: 1 for a win alone, 1/k for "
                            "a win shared by k seats, 0 otherwise; a truncated game has no "
                            "winner; 95% Wilson score interval",
                "mean_rank": "competition rank by final VP (1 = best, ties share the better)",
                "mean_vp_margin": "candidate VP minus the best opponent's VP, mean over games",
                "truncated_share": "share of games cut off by a safety limit (no winner)",
                "ratings": "OpenSkill Plackett-Luce from every game of the player count, one "
                           "update per game in card order; ordinal = mu - 3 sigma",
                "seating": "the candidate in one seat against n-1 copies of the opponent, "
                           "every seat rotated; deal d of every row uses game seed seed + d",
            },
        }

    def timing(self) -> dict[str, Any]:
        """Times (they vary between runs and machines, so they stay out of the card)."""
        return {
            "rows": [
                {"players": r.players, "opponent": r.opponent,
                 "seconds_wall": round(r.seconds_wall, 2),
                 "seconds_per_game_one_core": round(r.seconds_games / r.games, 4)}
                for r in self.rows
            ],
            "seconds_wall": round(sum(r.seconds_wall for r in self.rows), 2),
            "workers": self.config.workers,
        }

    # ---- text ----------------------------------------------------------------------------
    def text(self) -> str:
        """The console table."""
        lines = [f"scorecard of {self.config.spec} (seed {self.config.seed})",
                 f"{'players':>7}  {'opponent':<10} {'games':>5}  {'win rate':>8} "
                 f"{'95% CI':>16}  {'chance':>6}  {'rank':>5}  {'VP margin':>9}  "
                 f"{'truncated':>9}"]
        lines += [f"{r.players:>7}  {r.opponent:<10} {r.games:>5}  {r.win_rate:>8.3f} "
                  f"{f'[{r.win_ci[0]:.3f}, {r.win_ci[1]:.3f}]':>16}  {r.chance:>6.3f}  "
                  f"{r.mean_rank:>5.2f}  {r.vp_margin:>+9.1f}  {r.truncated_share:>9.1%}"
                  for r in self.rows]
        lines += [f"ratings, {n} players (OpenSkill mu±sigma): "
                  + ", ".join(f"{label} {r.mu:.1f}±{r.sigma:.1f}" for label, r in table.items())
                  for n, table in self.ratings.items()]
        lines += [f"skipped: {s.players} players vs {s.label}: {s.reason}"
                  for s in self.skipped]
        return "\n".join(lines)

    def markdown(self) -> str:
        """``scorecard.md``: the tables, ready to paste, with what produced them."""
        from zavandor_env import __version__
        from zavandor_env.encoding.observation import OBS_FINGERPRINT

        cfg = self.config
        lines = [f"# Scorecard: `{cfg.spec}`", "",
                 f"Command: `{cfg.command()}`  ",
                 f"zavandor-env {__version__}, observation layout `{OBS_FINGERPRINT}`"
                 + (f", candidate file sha256 `{self.candidate_file['sha256'][:16]}`"
                    if self.candidate_file else "") + ".  ",
                 f"Seed {cfg.seed}: deal d of every row uses game seed {cfg.seed} + d; "
                 f"{cfg.games} games per row, rounded up to a multiple of the player count; "
                 "the candidate sits in one seat against n-1 copies of the opponent, every "
                 "seat rotated.  ",
                 f"Rules: {describe_rules(cfg.rules())}.", "",
                 "| Players | Opponent | Games | Win rate [95% CI] | Chance | Mean rank "
                 "| VP margin | Truncated |",
                 "|---:|---|---:|---|---:|---:|---:|---:|"]
        lines += [f"| {r.players} | {r.opponent} | {r.games} | {r.win_rate:.3f} "
                  f"[{r.win_ci[0]:.3f}, {r.win_ci[1]:.3f}] | {r.chance:.3f} | "
                  f"{r.mean_rank:.2f} | {r.vp_margin:+.1f} | {r.truncated_share:.1%} |"
                  for r in self.rows]
        if self.ratings:
            labels = [CANDIDATE, *cfg.opponents]
            lines += ["", "OpenSkill ratings (Plackett-Luce, mu ± sigma; from every game of the "
                      "player count, one update per game in card order):", "",
                      "| Players | " + " | ".join(labels) + " |",
                      "|---:|" + "---:|" * len(labels)]
            lines += [f"| {n} | " + " | ".join(f"{table[x].mu:.1f} ± {table[x].sigma:.1f}"
                                               if x in table else "-" for x in labels) + " |"
                      for n, table in self.ratings.items()]
        lines += ["", "Opponents:", ""]
        lines += [f"* {name}: {self._describe_opponent(name)}" for name in cfg.opponents]
        if self.skipped:
            lines += ["", "Skipped rows:", ""]
            lines += [f"* {s.players} players vs {s.label}: {s.reason}" for s in self.skipped]
        mirror = [n for n, f in self.opponent_files.items()
                  if self.candidate_file and f["sha256"] == self.candidate_file["sha256"]]
        lines += ["", "Win rate: the candidate's mean win share (a shared win counts 1/k; a "
                  "truncated game has no winner), with the 95% Wilson interval; chance = 1/n.  "
                  "Mean rank: competition rank by VP (1 = best).  VP margin: the candidate's VP "
                  "minus the best opponent's, mean over games.  Truncated: games cut off by a "
                  "safety limit."]
        if mirror:
            lines.append(f"At {', '.join(map(str, mirror))} players the shipped opponent is the "
                         "candidate's own file (a mirror match).")
        return "\n".join(lines) + "\n"

    def _describe_opponent(self, name: str) -> str:
        cfg = self.config
        if name == "mcts":
            spec = format_spec(cfg.opponent("mcts", 2))
            return (f"`{spec}`: the IS-MCTS tree search (not the agent's default flat search) "
                    f"with heuristic rollouts and a one-round horizon, a fixed budget of "
                    f"{cfg.mcts_iterations} iterations per decision (not a time budget, so the "
                    "card does not depend on the machine)")
        if name == "shipped":
            parts = [f"{n} players `{format_spec(cfg.opponent('shipped', n))}` (sha256 "
                     f"`{f['sha256'][:16]}`)" for n, f in self.opponent_files.items()]
            return ("the trained policy shipped for the player count, greedy: "
                    + ("; ".join(parts) if parts else "none played"))
        return {"random": "`random`: uniformly random legal actions",
                "naive": "`naive`: a port of sozav's computer player",
                "planner": "`planner`: the rule-based plan tuned against naive "
                           "(`configs/agents/planner.yaml`)",
                "heuristic": "`heuristic`: the hand-written heuristic"}[name]

    # ---- files ---------------------------------------------------------------------------
    def chart(self, path: Path) -> Path:
        """``scorecard.png``: win rate with its 95% interval per opponent, one panel per player
        count, the chance level dashed (matplotlib, Agg backend)."""
        counts = list(self.config.players)
        fig, axes = pyplot().subplots(1, len(counts), figsize=(3.2 * len(counts) + 0.8, 3.6),
                                      sharey=True, squeeze=False)
        for ax, n in zip(axes[0], counts):
            rows = [r for r in self.rows if r.players == n]
            names = [r.opponent for r in rows]
            rates = [r.win_rate for r in rows]
            ax.bar(names, rates, yerr=interval_bars(rates, [r.win_ci for r in rows]), capsize=4,
                   color="#4c72b0")
            ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1)
            # Labelled on the line, not in a legend: a legend would cover bars near 1.
            ax.text(0.99, 1 / n, "chance", transform=ax.get_yaxis_transform(), ha="right",
                    va="bottom", fontsize=7, color="grey")
            ax.set_ylim(0, 1.05)
            ax.set_title(f"{n} players")
            ax.tick_params(axis="x", rotation=30)
            if not rows:
                ax.text(0.5, 0.5, "no rows played", ha="center", va="center",
                        transform=ax.transAxes)
        axes[0][0].set_ylabel("candidate win rate (95% Wilson CI)")
        # Wrapped to the figure's width: a long spec (a policy path) must not be clipped.
        width_chars = int(fig.get_figwidth() * 11)
        fig.suptitle(wrap_title(f"Scorecard: {self.config.spec}", width_chars), fontsize=9)
        fig.tight_layout()
        return save_figure(fig, path, dpi=150)

    def write(self, out_dir: str | Path, chart: bool = True, replace: bool = False) -> list[Path]:
        """Write ``scorecard.json``, ``scorecard.md``, ``timing.json`` and (``chart``)
        ``scorecard.png``, each at once (a full disk leaves no file cut short); returns the
        paths.  An earlier card in ``out_dir`` raises
        :class:`~zavandor_env.eval.run_folder.OutputDirError` unless ``replace``, which
        deletes its files (only those)."""
        return SCORECARD_FOLDER.write(
            out_dir, {"scorecard.json": json.dumps(self.to_dict(), indent=2) + "\n",
                      "scorecard.md": self.markdown(),
                      "timing.json": json.dumps(self.timing(), indent=2) + "\n"},
            replace, chart=("scorecard.png", self.chart) if chart else None)
