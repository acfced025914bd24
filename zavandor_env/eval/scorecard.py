"""The scorecard: the standard, deterministic evaluation of one agent (``zavandor scorecard``).

A scorecard plays the *candidate* (any agent spec) against a fixed set of reference opponents
at each player count (2, 4 and 6 by default): one tournament per row, the candidate in one
seat against ``n - 1`` copies of the opponent, every seat rotated, ``games`` games per row
(rounded up to a multiple of ``n``).  The reference opponents:

* ``random``: uniformly random legal actions;
* ``naive``: the port of sozav's computer player;
* ``planner``: the strongest rule-based player (a fixed plan tuned against naive);
* ``heuristic``: the hand-written heuristic;
* ``mcts``: the IS-MCTS tree search (``algorithm=tree``, not MCTSAgent's default flat search)
  with heuristic rollouts and a one-round horizon at a fixed number of **iterations** per
  decision (a time budget would make the card depend on the machine), every parameter pinned;
* ``shipped``: the trained policy shipped for that player count
  (``train/checkpoints/selfplay_<n>p/policy.npz``); where none exists the row is skipped and
  the card says why.

Every row of a player count plays the same deals (game seed ``seed + d`` for deal ``d``), so
opponents are compared on the same cards.  Per row the card reports the candidate's win rate
(its mean win share: shared wins split, a truncated game has no winner) with a Wilson 95%
interval, the chance level ``1/n``, its mean rank, its mean VP margin (its VP minus the best
opponent's) and the share of truncated games; per player count, OpenSkill ratings computed
from every game of that player count in card order.

**Determinism.**  Games, agent seeds and the order of rating updates depend only on the
spec, the seed, the games and the rules, never on the number of worker processes, so the same
inputs give byte-identical ``scorecard.json`` and ``scorecard.md``.  Those files hold no time,
date, absolute path or machine detail; timings go to ``timing.json``.

**Rules.**  By default the games use the rules the shipped policies were trained and the
benchmarks measured under: the rulebook with the affordability filter (``allow_overbid:
false``).  Other rules (a game config file) are recorded in the card.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import re
import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zavandor_env.agents.registry import AgentSpec, AgentSpecError, parse_spec
from zavandor_env.engine import GameConfig
from zavandor_env.eval.stats import SeatRecord, summarize, wilson_interval
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

#: Version of the card's JSON layout (bumped when a key changes meaning).
SCORECARD_FORMAT = 1
#: The reference opponents, in card order.
STANDARD_OPPONENTS: tuple[str, ...] = ("random", "naive", "planner", "heuristic", "mcts",
                                         "shipped")
DEFAULT_PLAYERS: tuple[int, ...] = (2, 4, 6)
DEFAULT_GAMES = 200
DEFAULT_SEED = 0
#: MCTS budget per decision: 1.7 s per 2-player game on one core (docs/benchmarks.md).
DEFAULT_MCTS_ITERATIONS = 16
#: Rule options of the standard card: those of the shipped policies' training runs.
DEFAULT_GAME_OPTIONS: Mapping[str, Any] = {"allow_overbid": False}
#: Where the policy shipped for ``n`` players lives (relative: read from the package too).
SHIPPED_POLICY = "train/checkpoints/selfplay_{n}p/policy.npz"
#: The tournament label of the evaluated agent (opponents are labelled by their names).
CANDIDATE = "candidate"
#: Files a scorecard writes; only these are ever replaced by ``--overwrite``.
SCORECARD_FILES = ("scorecard.json", "scorecard.md", "scorecard.png", "timing.json")


class ScorecardError(ValueError):
    """A scorecard cannot be made as asked (bad player count, games, opponent, agent)."""


def _wrap_title(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, broken after a space, ``/``, ``,``
    or ``=`` (a spec's natural joints), a longer piece on a line of its own."""
    lines = [""]
    for piece in re.split(r"(?<=[ /,=])", text):
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


def check_run_shape(error: type[Exception], players: Sequence[int], games: object,
                    seed: object) -> tuple[int, ...]:
    """The player counts of a multi-count run (scorecard, ladder) sorted and deduplicated,
    after checking them (2 to 6), ``games`` (positive) and ``seed`` (non-negative): else one
    ``error`` line naming the bad value."""
    counts = tuple(sorted(set(players)))
    if not counts or any(type(n) is not int or not 2 <= n <= 6 for n in counts):
        raise error(f"players must be player counts from 2 to 6, got {list(players)}")
    if type(games) is not int or games < 1:
        raise error(f"games must be a positive integer, got {games!r}")
    if type(seed) is not int or seed < 0:
        raise error(f"seed must be a non-negative integer, got {seed!r}")
    return counts

@dataclass(frozen=True)
class ScorecardConfig:
    """What a scorecard plays.

    Args:
        spec: the candidate's agent spec, as given (it is recorded verbatim in the card).
        players: player counts (sorted, duplicates dropped).
        games: games per row, rounded up to a multiple of the player count.
        seed: first deal seed; deal ``d`` of every row uses game seed ``seed + d``.
        opponents: reference opponents to play, a subset of :data:`STANDARD_OPPONENTS`.
        mcts_iterations: the MCTS opponent's (tree search) iterations per decision.
        game_options: :class:`GameConfig` fields (all but ``num_players``) of every game.
        shipped_policies: policy file per player count for the ``shipped`` opponent
            (default: :data:`SHIPPED_POLICY`); a player count without an existing file is
            skipped and reported.
        workers: processes (None: all cores); has no effect on the results.
        game_file: the game config file ``game_options`` were read from, for the command.
        trust_pickle: the caller's consent that the candidate may unpickle its file (an SB3
            ``.zip``; ``--trust-pickle``); no spec can give it (see :mod:`agents.registry`).
    """

    spec: str
    players: tuple[int, ...] = DEFAULT_PLAYERS
    games: int = DEFAULT_GAMES
    seed: int = DEFAULT_SEED
    opponents: tuple[str, ...] = STANDARD_OPPONENTS
    mcts_iterations: int = DEFAULT_MCTS_ITERATIONS
    game_options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_GAME_OPTIONS))
    shipped_policies: Mapping[int, str] | None = None
    workers: int | None = None
    game_file: str | None = None  # where game_options came from: only shown in the command
    trust_pickle: bool = False

    def __post_init__(self) -> None:
        players = check_run_shape(ScorecardError, self.players, self.games, self.seed)
        object.__setattr__(self, "players", players)
        if type(self.mcts_iterations) is not int or self.mcts_iterations < 1:
            raise ScorecardError(f"mcts_iterations must be a positive integer, "
                                 f"got {self.mcts_iterations!r}")
        if self.workers is not None and self.workers < 1:
            raise ScorecardError(f"workers must be positive (or None: all cores), "
                                 f"got {self.workers}")
        unknown = [o for o in self.opponents if o not in STANDARD_OPPONENTS]
        if unknown or not self.opponents:
            raise ScorecardError(f"opponents must be among {', '.join(STANDARD_OPPONENTS)}, "
                                 f"got {list(self.opponents)}")
        # Card order, whatever order they were given in: the card does not depend on it.
        object.__setattr__(self, "opponents",
                           tuple(o for o in STANDARD_OPPONENTS if o in self.opponents))
        if "num_players" in self.game_options:
            raise ScorecardError("game_options must not set num_players (the card sets it)")
        object.__setattr__(self, "game_options", dict(self.game_options))
        for n in players:  # e.g. chosen characters must fit every player count
            try:
                GameConfig(num_players=n, **self.game_options)
            except (TypeError, ValueError) as exc:
                raise ScorecardError(f"game options do not fit {n} players: {exc}") from None

    def candidate(self) -> AgentSpec:
        """The candidate's spec, labelled :data:`CANDIDATE` so no opponent shares its label."""
        spec = parse_spec(self.spec, trust_pickle=self.trust_pickle)
        if spec.interactive:
            raise ScorecardError(f"agent {spec.agent!r} asks a person for every decision and "
                                 "cannot be scored; to play against agents use `zavandor play`")
        return dataclasses.replace(spec, label=CANDIDATE)

    def opponent(self, name: str, num_players: int) -> AgentSpec:
        """The reference opponent ``name`` at ``num_players`` players."""
        if name == "mcts":  # every parameter pinned: a changed default must not move the card
            # The IS-MCTS tree search with the defaults it had before the flat search became
            # MCTSAgent's default (the published cards were measured with it); switch_z and
            # min_pairs are flat-only.  The heuristic weights are the default ones.
            params: dict[str, Any] = {
                "iterations": self.mcts_iterations, "algorithm": "tree",
                "policy": "heuristic", "rollout": "heuristic", "horizon_rounds": 1,
                "opponent_model": "search", "max_depth": 0, "c": 0.7, "prior_weight": 1.0,
                "eval_scale": 5.0, "search_all": False, "avoid_curse": True, "no_ruin": False,
            }
            return AgentSpec("mcts", params, label=name)
        if name == "shipped":
            return AgentSpec("policy", {"path": self.shipped_path(num_players)}, label=name)
        return AgentSpec(name, {}, label=name)

    def shipped_path(self, num_players: int) -> str:
        if self.shipped_policies is not None and num_players in self.shipped_policies:
            return str(self.shipped_policies[num_players])
        return SHIPPED_POLICY.format(n=num_players)

    def rules(self) -> dict[str, Any]:
        """Every :class:`GameConfig` field of the card's games but the player count."""
        rules = GameConfig(num_players=2, **self.game_options).to_dict()
        del rules["num_players"]
        return rules

    def command(self) -> str:
        """The canonical command line that makes this card (without --out, --workers)."""
        parts = ["zavandor", "scorecard", shlex.quote(self.spec),
                 "--players", *map(str, self.players), "--games", str(self.games),
                 "--seed", str(self.seed), "--mcts-iterations", str(self.mcts_iterations)]
        if self.opponents != STANDARD_OPPONENTS:
            parts += ["--opponents", *self.opponents]
        if self.game_file is not None:
            parts += ["--game", shlex.quote(self.game_file)]
        if self.trust_pickle:
            parts.append("--trust-pickle")
        return " ".join(parts)


def game_options_from_file(path: str | Path) -> dict[str, Any]:
    """Every rule option of a game config file (``configs/game/*.yaml``) but its player count,
    which the card sets.  All fields are kept, not only those that differ from GameConfig's
    defaults, because the card's own default rules differ from GameConfig's."""
    try:
        options = GameConfig.from_yaml(path).to_dict()
    except ValueError as exc:  # a YAML error's message spans lines: keep the first
        raise ScorecardError(str(exc).splitlines()[0] if str(exc) else repr(exc)) from None
    del options["num_players"]
    return options


# ---- results ------------------------------------------------------------------------------
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
        row = cls(players, opponent, spec, len(records), 0.0, 0, 0, 0, 0, 0)
        for record in records:
            seats = record.seats()
            mine = [s for s in seats if s.label == CANDIDATE]
            if len(mine) != 1:  # the lineup seats the candidate exactly once
                raise AssertionError(f"expected one candidate seat, got {record.labels}")
            others = [s.vp for s in seats if s.label != CANDIDATE]
            row.wins += mine[0].win_share
            row.rank_sum += mine[0].rank
            row.vp_sum += mine[0].vp
            row.best_opponent_vp_sum += max(others)
            row.truncated += record.truncated
            row.rounds_sum += record.rounds
            row.seconds_games += record.seconds
        return row

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


@dataclass(frozen=True)
class Skipped:
    """A row the card could not play, and why."""

    players: int
    opponent: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "opponent": self.opponent, "reason": self.reason}


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    ordinal: float

    def to_dict(self) -> dict[str, float]:
        return {"mu": round(self.mu, 3), "sigma": round(self.sigma, 3),
                "ordinal": round(self.ordinal, 3)}


def format_spec(spec: AgentSpec) -> str:
    """``name:key=value,...`` (the command-line form) of a spec, without its label."""
    if not spec.params:
        return spec.agent
    return spec.agent + ":" + ",".join(f"{k}={_format_value(v)}" for k, v in spec.params.items())


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _policy_file(spec: AgentSpec) -> dict[str, Any] | None:
    """Path as given, sha256 and observation fingerprint of a policy spec's file (the card
    must say which weights produced it; the path alone could hold other weights tomorrow)."""
    if spec.agent != "policy" or "path" not in spec.params:
        return None
    given = str(spec.params["path"])
    path = data_path(given)
    info: dict[str, Any] = {"path": given, "sha256": _sha256(path), "obs_fingerprint": None}
    if path.suffix.lower() == ".npz":
        from zavandor_env.agents.policy_file import load_policy

        info["obs_fingerprint"] = load_policy(path, fingerprint=None).fingerprint
    return info


def _versions() -> dict[str, str | None]:
    """Versions of the libraries the numbers depend on (ratings, policy arithmetic)."""
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {}
    for name in ("openskill", "numpy"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


@dataclass
class Scorecard:
    """A played scorecard: rows, skipped rows and ratings per player count."""

    config: ScorecardConfig
    rows: list[Row]
    skipped: list[Skipped]
    ratings: dict[int, dict[str, Rating]]
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
            "library_versions": _versions(),
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
            "skipped": [s.to_dict() for s in self.skipped],
            "ratings": {
                str(n): {label: r.to_dict() for label, r in table.items()}
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
        for r in self.rows:
            lo, hi = r.win_ci
            lines.append(
                f"{r.players:>7}  {r.opponent:<10} {r.games:>5}  {r.win_rate:>8.3f} "
                f"{f'[{lo:.3f}, {hi:.3f}]':>16}  {r.chance:>6.3f}  {r.mean_rank:>5.2f}  "
                f"{r.vp_margin:>+9.1f}  {r.truncated_share:>9.1%}")
        for n, table in self.ratings.items():
            cells = ", ".join(f"{label} {r.mu:.1f}±{r.sigma:.1f}" for label, r in table.items())
            lines.append(f"ratings, {n} players (OpenSkill mu±sigma): {cells}")
        lines += [f"skipped: {s.players} players vs {s.opponent}: {s.reason}"
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
        for r in self.rows:
            lo, hi = r.win_ci
            lines.append(f"| {r.players} | {r.opponent} | {r.games} | {r.win_rate:.3f} "
                         f"[{lo:.3f}, {hi:.3f}] | {r.chance:.3f} | {r.mean_rank:.2f} | "
                         f"{r.vp_margin:+.1f} | {r.truncated_share:.1%} |")
        if self.ratings:
            labels = [CANDIDATE, *cfg.opponents]
            lines += ["", "OpenSkill ratings (Plackett-Luce, mu ± sigma; from every game of the "
                      "player count, one update per game in card order):", "",
                      "| Players | " + " | ".join(labels) + " |",
                      "|---:|" + "---:|" * len(labels)]
            for n, table in self.ratings.items():
                cells = [f"{table[x].mu:.1f} ± {table[x].sigma:.1f}" if x in table else "-"
                         for x in labels]
                lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines += ["", "Opponents:", ""]
        for name in cfg.opponents:
            lines.append(f"* {name}: {self._describe_opponent(name)}")
        if self.skipped:
            lines += ["", "Skipped rows:", ""]
            lines += [f"* {s.players} players vs {s.opponent}: {s.reason}" for s in self.skipped]
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
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        counts = list(self.config.players)
        fig, axes = plt.subplots(1, len(counts), figsize=(3.2 * len(counts) + 0.8, 3.6),
                                 sharey=True, squeeze=False)
        for ax, n in zip(axes[0], counts):
            rows = [r for r in self.rows if r.players == n]
            names = [r.opponent for r in rows]
            rates = [r.win_rate for r in rows]
            err = [[max(0.0, r.win_rate - r.win_ci[0]) for r in rows],
                   [max(0.0, r.win_ci[1] - r.win_rate) for r in rows]]
            ax.bar(names, rates, yerr=err, capsize=4, color="#4c72b0")
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
        fig.suptitle(_wrap_title(f"Scorecard: {self.config.spec}", width_chars), fontsize=9)
        fig.tight_layout()
        # No "Software" stamp: the figure then depends only on the data and matplotlib.
        try:
            write_atomic(path, lambda fh: fig.savefig(fh, format="png", dpi=150,
                                                      metadata={"Software": None}))
        finally:
            plt.close(fig)
        return path

    def write(self, out_dir: str | Path, chart: bool = True, replace: bool = False) -> list[Path]:
        """Write ``scorecard.json``, ``scorecard.md``, ``timing.json`` and (``chart``)
        ``scorecard.png``, each at once (a full disk leaves no file cut short); returns the
        paths.  An earlier card in ``out_dir`` raises :class:`OutputDirError` unless
        ``replace``, which deletes its files (only those)."""
        out = Path(out_dir)
        try:
            folder = Folder.open(out, what=f"--out {str(out)!r}", create=True)
            lock_output_dir(out)
            if previous_scorecard(out):
                if not replace:
                    raise OutputDirError(f"{str(out)!r} already holds a scorecard "
                                         "(replace=True deletes it first)")
                for path in previous_scorecard(out):
                    folder.unlink(path.name)
            written = []
            for name, text in (("scorecard.json", _dumps(self.to_dict())),
                               ("scorecard.md", self.markdown()),
                               ("timing.json", _dumps(self.timing()))):
                written.append(folder.write(name, content=text))
            if chart:
                written.append(self.chart(folder.file("scorecard.png")))
            return written
        except FolderError as exc:
            raise OutputDirError(str(exc)) from None
        finally:
            release_output_dir(out)  # the card's last write to its folder


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=2) + "\n"


def describe_rules(rules: Mapping[str, Any]) -> str:
    changed = {k: v for k, v in rules.items()
               if v != GameConfig.__dataclass_fields__[k].default}
    if not changed:
        return "the rulebook defaults (GameConfig)"
    text = ", ".join(f"`{k}: {json.dumps(v)}`" for k, v in changed.items())
    note = (" (the affordability filter the shipped policies were trained with)"
            if changed.get("allow_overbid") is False else "")
    return f"GameConfig defaults except {text}{note}"


# ---- playing ------------------------------------------------------------------------------
def _check_spec(spec: AgentSpec) -> None:
    """Build ``spec`` once (a missing file or a bad parameter fails here, in one line)."""
    check_agents(TournamentConfig([spec], num_players=2, games=1))


def plan(config: ScorecardConfig) -> tuple[list[tuple[int, str, AgentSpec]], list[Skipped]]:
    """The rows to play and the rows skipped, checking every agent before any game.

    Raises :class:`AgentSpecError` / :class:`ScorecardError` when the candidate or a
    reference opponent other than a shipped policy cannot be built; a shipped policy that is
    missing or does not load is skipped with its reason instead, since it is not the user's.
    """
    _check_spec(config.candidate())
    rows: list[tuple[int, str, AgentSpec]] = []
    skipped: list[Skipped] = []
    checked: set[str] = set()  # specs already built (an AgentSpec holds a dict: unhashable)
    for n, name in itertools.product(config.players, config.opponents):
        spec = config.opponent(name, n)
        if name == "shipped":
            path = config.shipped_path(n)
            if not data_path(path).is_file():
                skipped.append(Skipped(n, name, f"no shipped policy for {n} players "
                                                f"({path} does not exist)"))
                continue
            try:
                _check_spec(spec)
            except AgentSpecError as exc:
                skipped.append(Skipped(n, name, f"the shipped policy does not load: {exc}"))
                continue
        elif format_spec(spec) not in checked:
            _check_spec(spec)
        checked.add(format_spec(spec))
        rows.append((n, name, spec))
    return rows, skipped


def run_scorecard(
    config: ScorecardConfig,
    progress: bool = True,
    on_row: Callable[[Row], None] | None = None,
) -> Scorecard:
    """Play every row of the card (see the module docstring) and rate each player count."""
    planned, skipped = plan(config)
    candidate = config.candidate()
    rows: list[Row] = []
    games_by_count: dict[int, list[list[SeatRecord]]] = {}
    for i, (n, name, spec) in enumerate(planned):
        if progress:
            print(f"row {i + 1}/{len(planned)}: {n} players vs {name}", file=sys.stderr)
        tournament = TournamentConfig([candidate, spec], num_players=n, games=config.games,
                                      seed=config.seed, workers=config.workers,
                                      game_options=dict(config.game_options))
        start = time.perf_counter()
        records = run_tournament(tournament, progress=progress)
        row = Row.from_records(n, name, spec, records)
        row.seconds_wall = time.perf_counter() - start
        rows.append(row)
        # run_tournament sorts its records, so this order (and so the ratings) is fixed.
        games_by_count.setdefault(n, []).extend(r.seats() for r in records)
        if on_row:
            on_row(row)
    ratings: dict[int, dict[str, Rating]] = {}
    if _have_openskill():
        for n, games in games_by_count.items():
            agents, _, _ = summarize(games)
            order = [CANDIDATE, *config.opponents]
            ratings[n] = {label: Rating(agents[label].mu, agents[label].sigma,
                                        agents[label].ordinal)
                          for label in order if label in agents}
    shipped = {n: _policy_file(spec) for n, name, spec in planned if name == "shipped"}
    return Scorecard(config, rows, skipped, ratings, _policy_file(candidate),
                     {n: f for n, f in shipped.items() if f is not None})


def _have_openskill() -> bool:
    from importlib.util import find_spec

    return find_spec("openskill") is not None


# ---- output directory ---------------------------------------------------------------------
def previous_scorecard(out_dir: str | Path) -> list[Path]:
    """The files an earlier scorecard wrote in ``out_dir`` (regular files: a symlink is
    never ours)."""
    folder = out_folder(out_dir)
    if folder is None:
        return []
    kinds = dict(folder.entries())
    return [folder.root / name for name in SCORECARD_FILES if kinds.get(name) == "file"]


def prepare_scorecard_dir(out_dir: str | Path, overwrite: bool = False) -> Path:
    """Make sure a card can be written to ``out_dir`` before any game (as ``zavandor eval``
    does for its reports): creates it, refuses a directory holding other files, refuses an
    earlier card unless ``overwrite``, and probes that it is writable.  Raises
    :class:`OutputDirError` with one line."""
    out = Path(out_dir)
    folder = out_folder(out)  # refuses a file or a symlink at --out
    ours = previous_scorecard(out)
    others = ([p for p in (out / name for name, _ in folder.entries()) if p not in ours]
              if folder is not None else [])
    return claim_output_dir(out, ours, others, overwrite, tool="scorecard",
                            report="a scorecard")
