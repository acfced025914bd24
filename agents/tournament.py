"""Tournaments between agents: fair seating, shared deals, parallel games, reports.

Fairness rules:

* **Lineups.**  With as many agents as seats, one lineup seats them all.  With fewer agents,
  the first agent plays against the others cycled over the remaining seats (``heuristic`` vs
  ``random`` in a 4-player game = one heuristic and three randoms).  With more agents than
  seats, every combination of ``num_players`` agents is a lineup.
* **Rotation.**  Each lineup is played in all of its cyclic rotations, so every agent sits in
  every seat equally often; ``games`` is rounded up to a multiple of the player count.
* **Shared deals.**  Deal ``d`` uses game seed ``seed + d`` for every lineup and rotation, so
  agents are compared on the same cards, characters and tie-breaks.

Games run in worker processes (``multiprocessing``; all cores by default) and stream back to a
progress bar.  Every game is reproducible from its record (``Game.replay_record()``).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zavandor_env.engine import GameConfig

from .registry import AgentSpec, parse_spec
from .stats import AgentSummary, SeatRecord, seat_records, summarize


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

    def __post_init__(self) -> None:
        if not self.agents:
            raise ValueError("a tournament needs at least one agent")
        if not 2 <= self.num_players <= 6:
            raise ValueError(f"num_players must be 2..6, got {self.num_players}")
        if self.games < 1:
            raise ValueError(f"games must be positive, got {self.games}")
        labels = [a.label for a in self.agents]
        if len(set(labels)) != len(labels):
            raise ValueError(f"agent labels must be unique (give each a 'label'): {labels}")
        GameConfig(num_players=self.num_players, **self.game_options)  # validate early

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> TournamentConfig:
        """Read a tournament file (see ``configs/eval/*.yaml``); ``overrides`` that are not
        None replace its values."""
        import yaml

        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a tournament file must be a mapping")
        known = {"agents", "num_players", "players", "games", "seed", "workers", "game_options",
                 "save_replays"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{path}: unknown key(s) {unknown}; known: {sorted(known)}")
        if "players" in data:
            data["num_players"] = data.pop("players")
        agents = data.pop("agents", None)
        if not isinstance(agents, list):
            raise ValueError(f"{path}: 'agents' must be a list")
        data["agents"] = [parse_spec(a) for a in agents]
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**data)

    def lineups(self) -> list[list[AgentSpec]]:
        n, agents = self.num_players, self.agents
        if len(agents) == n:
            return [list(agents)]
        if len(agents) < n:
            if len(agents) == 1:
                return [[agents[0]] * n]
            others = agents[1:]
            return [[agents[0]] + [others[i % len(others)] for i in range(n - 1)]]
        return [list(c) for c in itertools.combinations(agents, n)]

    @property
    def deals(self) -> int:
        return -(-self.games // self.num_players)


@dataclass(frozen=True)
class GameTask:
    """One game to play: lineup index, deal index, rotation."""

    lineup: int
    deal: int
    rotation: int


@dataclass
class GameRecord:
    task: GameTask
    labels: list[str]
    scores: list[int]
    ranks: list[int]
    winners: list[int]
    rounds: int
    decisions: int
    truncated: bool
    seconds: float
    replay: dict[str, Any] | None = None

    def seats(self) -> list[SeatRecord]:
        return seat_records(self.labels, self.scores, self.ranks, self.winners)


# ---- workers ----------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _init_worker(config: TournamentConfig) -> None:
    _WORKER["config"] = config
    _WORKER["lineups"] = config.lineups()
    _WORKER["agents"] = {}


def _seated(lineup: list[AgentSpec], rotation: int) -> list[AgentSpec]:
    n = len(lineup)
    return [lineup[(s - rotation) % n] for s in range(n)]


def play_task(task: GameTask) -> GameRecord:
    """Play one game in this process (agents are built once per process and reused)."""
    from .match import play_game

    config: TournamentConfig = _WORKER["config"]
    specs = _seated(_WORKER["lineups"][task.lineup], task.rotation)
    cache: dict[tuple[str, int], Any] = _WORKER["agents"]
    agents = []
    for seat, spec in enumerate(specs):
        key = (spec.label, seat)
        if key not in cache:
            cache[key] = spec.build(seed=0)
        agents.append(cache[key])
    game_seed = config.seed + task.deal
    agent_seeds = [
        (config.seed * 1_000_003 + task.deal * 7919 + task.rotation * 131 + seat) & 0x7FFFFFFF
        for seat in range(config.num_players)
    ]
    try:
        result = play_game(
            agents,
            seed=game_seed,
            config=GameConfig(num_players=config.num_players, **config.game_options),
            agent_seeds=agent_seeds,
            record_replay=config.save_replays,
        )
    except Exception as exc:
        # Name the game so it can be replayed alone; the original traceback is chained.
        raise RuntimeError(
            f"game failed: lineup {[s.label for s in specs]}, deal {task.deal} "
            f"(seed {game_seed}), rotation {task.rotation}: {type(exc).__name__}: {exc}"
        ) from exc
    return GameRecord(task, [s.label for s in specs], result.scores, result.ranks,
                      result.winners, result.rounds, result.decisions, result.truncated,
                      result.seconds, result.replay)


def run_tournament(
    config: TournamentConfig,
    progress: bool = True,
    on_record: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Play every game of the tournament; returns records sorted by (lineup, deal, rotation).

    ``workers=1`` plays in this process (no multiprocessing), useful for tests and debugging.
    """
    from tqdm import tqdm

    tasks = [
        GameTask(li, d, r)
        for li in range(len(config.lineups()))
        for d in range(config.deals)
        for r in range(config.num_players)
    ]
    workers = config.workers or os.cpu_count() or 1
    workers = max(1, min(workers, len(tasks)))
    records: list[GameRecord] = []
    bar = tqdm(total=len(tasks), desc="games", unit="game", disable=not progress)
    try:
        if workers == 1:
            _init_worker(config)
            for task in tasks:
                rec = play_task(task)
                records.append(rec)
                if on_record:
                    on_record(rec)
                bar.update()
        else:
            import multiprocessing as mp

            ctx = mp.get_context("spawn" if os.name == "nt" else "fork")
            with ctx.Pool(workers, initializer=_init_worker, initargs=(config,)) as pool:
                for rec in pool.imap_unordered(play_task, tasks, chunksize=1):
                    records.append(rec)
                    if on_record:
                        on_record(rec)
                    bar.update()
    finally:
        bar.close()
    records.sort(key=lambda r: (r.task.lineup, r.task.deal, r.task.rotation))
    return records


# ---- reports ----------------------------------------------------------------------------
@dataclass
class TournamentReport:
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
            "agents_spec": [
                {"label": a.label, "agent": a.agent, "params": dict(a.params)}
                for a in self.config.agents
            ],
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
        for a in self.ordered():
            lo, hi = a.win_ci
            lines.append(
                f"{a.label:<28} {a.seats:>6} {a.win_rate:>9.3f} "
                f"{f'[{lo:.3f}, {hi:.3f}]':>17} {a.mean_rank:>6.2f} {a.mean_vp:>7.1f} "
                f"{a.ordinal:>8.2f}"
            )
        labels = [a.label for a in self.ordered()]
        if len(labels) > 1:
            lines.append("head-to-head (row finishes ahead of column; ties 0.5):")
            width = max(8, max(len(x) for x in labels) + 1)
            lines.append(" " * width + "".join(f"{x[:10]:>11}" for x in labels))
            for x in labels:
                row = self.head_to_head.get(x, {})
                cells = "".join(
                    f"{row[y]:>11.3f}" if y in row else f"{'-':>11}" for y in labels
                )
                lines.append(f"{x[:width - 1]:<{width}}" + cells)
        return "\n".join(lines)

    def write(self, out_dir: str | Path, chart: bool = True) -> list[Path]:
        """Write ``summary.json``, ``summary.csv``, ``games.csv``, ``chart.png`` and (when
        recorded) ``replays/*.json``; returns the paths written."""
        import csv

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        path = out / "summary.json"
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        written.append(path)
        path = out / "summary.csv"
        rows = [a.to_dict() for a in self.ordered()]
        with open(path, "w", newline="", encoding="utf-8") as fh:
            fields = ["label", "seats_played", "wins", "win_rate", "ci95_low", "ci95_high",
                      "mean_rank", "mean_vp", "rating_mu", "rating_sigma", "rating_ordinal"]
            summary = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
            summary.writeheader()
            for row in rows:
                row["ci95_low"], row["ci95_high"] = row["win_rate_ci95"]
                summary.writerow(row)
        written.append(path)
        path = out / "games.csv"
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["lineup", "deal", "rotation", "seed", "seat", "agent", "vp", "rank",
                             "win_share", "rounds", "decisions", "truncated", "seconds"])
            for r in self.records:
                for s, rec in enumerate(r.seats()):
                    writer.writerow([r.task.lineup, r.task.deal, r.task.rotation,
                                     self.config.seed + r.task.deal, s, rec.label, rec.vp,
                                     rec.rank, round(rec.win_share, 4), r.rounds, r.decisions,
                                     int(r.truncated), round(r.seconds, 4)])
        written.append(path)
        if any(r.replay for r in self.records):
            rdir = out / "replays"
            rdir.mkdir(exist_ok=True)
            for r in self.records:
                if r.replay is None:
                    continue
                t = r.task
                p = rdir / f"game_l{t.lineup}_d{t.deal:04d}_r{t.rotation}.json"
                record = dict(r.replay)
                record["agents"] = r.labels
                p.write_text(json.dumps(record) + "\n", encoding="utf-8")
                written.append(p)
        if chart:
            written.append(self.chart(out / "chart.png"))
        return written

    def chart(self, path: Path) -> Path:
        """Win rate with 95% intervals and mean VP per agent (matplotlib, Agg backend)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        agents = self.ordered()
        labels = [a.label for a in agents]
        rates = [a.win_rate for a in agents]
        err = [[max(0.0, a.win_rate - a.win_ci[0]) for a in agents],
               [max(0.0, a.win_ci[1] - a.win_rate) for a in agents]]
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        ax1.bar(labels, rates, yerr=err, capsize=4, color="#4c72b0")
        ax1.set_ylim(0, 1)
        ax1.set_ylabel("win rate (95% Wilson CI)")
        ax1.axhline(1 / self.config.num_players, color="grey", linestyle="--", linewidth=1)
        ax2.bar(labels, [a.mean_vp for a in agents], color="#dd8452")
        ax2.set_ylabel("mean VP")
        for ax in (ax1, ax2):
            ax.tick_params(axis="x", rotation=30)
        fig.suptitle(f"{len(self.records)} games, {self.config.num_players} players")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path
