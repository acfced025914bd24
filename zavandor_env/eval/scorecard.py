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
from every game of that player count in card order (the card and its files:
:mod:`zavandor_env.eval.scorecard_report`).

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
import itertools
import shlex
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from zavandor_env.agents.registry import AgentSpec, AgentSpecError, parse_spec
from zavandor_env.eval.run_settings import RunSettings, Skipped, format_spec
from zavandor_env.eval.scorecard_report import (
    CANDIDATE,
    Row,
    Scorecard,
    policy_file,
)
from zavandor_env.eval.stats import AgentSummary, SeatRecord, summarize
from zavandor_env.eval.tournament import TournamentConfig, check_spec
from zavandor_env.eval.tournament_run import run_tournament
from zavandor_env.resources import data_path

__all__ = ["SHIPPED_POLICY", "STANDARD_OPPONENTS", "ScorecardConfig", "ScorecardError", "plan",
           "run_scorecard"]

#: The reference opponents, in card order.
STANDARD_OPPONENTS: tuple[str, ...] = ("random", "naive", "planner", "heuristic", "mcts",
                                         "shipped")
DEFAULT_GAMES = 200
#: MCTS budget per decision: 1.7 s per 2-player game on one core (docs/benchmarks.md).
DEFAULT_MCTS_ITERATIONS = 16
#: Where the policy shipped for ``n`` players lives (relative: read from the package too).
SHIPPED_POLICY = "train/checkpoints/selfplay_{n}p/policy.npz"


class ScorecardError(ValueError):
    """A scorecard cannot be made as asked (bad player count, games, opponent, agent)."""


@dataclass(frozen=True)
class ScorecardConfig(RunSettings):
    """What a scorecard plays: the :class:`RunSettings` (``games`` per row, default
    :data:`DEFAULT_GAMES`; keywords only) and

    Args:
        spec: the candidate's agent spec, as given (it is recorded verbatim in the card).
        opponents: reference opponents to play, a subset of :data:`STANDARD_OPPONENTS`.
        mcts_iterations: the MCTS opponent's (tree search) iterations per decision.
        shipped_policies: policy file per player count for the ``shipped`` opponent
            (default: :data:`SHIPPED_POLICY`); a player count without an existing file is
            skipped and reported.
        trust_pickle: the caller's consent that the candidate may unpickle its file (an SB3
            ``.zip``; ``--trust-pickle``); no spec can give it (see :mod:`agents.registry`).
    """

    error: ClassVar[type[Exception]] = ScorecardError
    what: ClassVar[str] = "the card"
    spec: str
    games: int = field(default=DEFAULT_GAMES, kw_only=True)
    opponents: tuple[str, ...] = STANDARD_OPPONENTS
    mcts_iterations: int = DEFAULT_MCTS_ITERATIONS
    shipped_policies: Mapping[int, str] | None = None
    trust_pickle: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if type(self.mcts_iterations) is not int or self.mcts_iterations < 1:
            raise ScorecardError(f"mcts_iterations must be a positive integer, "
                                 f"got {self.mcts_iterations!r}")
        unknown = [o for o in self.opponents if o not in STANDARD_OPPONENTS]
        if unknown or not self.opponents:
            raise ScorecardError(f"opponents must be among {', '.join(STANDARD_OPPONENTS)}, "
                                 f"got {list(self.opponents)}")
        # Card order, whatever order they were given in: the card does not depend on it.
        object.__setattr__(self, "opponents",
                           tuple(o for o in STANDARD_OPPONENTS if o in self.opponents))

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

    def command(self) -> str:
        """The canonical command line that makes this card (without --out, --workers)."""
        opponents = (("--opponents", *self.opponents)
                     if self.opponents != STANDARD_OPPONENTS else ())
        tail = ("--mcts-iterations", str(self.mcts_iterations), *opponents)
        parts = self.command_words("scorecard", shlex.quote(self.spec), tail=tail)
        return " ".join(parts + ["--trust-pickle"] * self.trust_pickle)


def plan(config: ScorecardConfig) -> tuple[list[tuple[int, str, AgentSpec]], list[Skipped]]:
    """The rows to play and the rows skipped, checking every agent before any game.

    Raises :class:`AgentSpecError` / :class:`ScorecardError` when the candidate or a
    reference opponent other than a shipped policy cannot be built; a shipped policy that is
    missing or does not load is skipped with its reason instead, since it is not the user's.
    """
    check_spec(config.candidate())
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
                check_spec(spec)
            except AgentSpecError as exc:
                skipped.append(Skipped(n, name, f"the shipped policy does not load: {exc}"))
                continue
        elif format_spec(spec) not in checked:
            check_spec(spec)
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
    ratings: dict[int, dict[str, AgentSummary]] = {}
    for n, games in games_by_count.items():
        agents = summarize(games)[0]
        if any(a.sigma > 0 for a in agents.values()):  # rated: OpenSkill is installed
            ratings[n] = {label: agents[label] for label in [CANDIDATE, *config.opponents]
                          if label in agents}
    shipped = {n: policy_file(spec) for n, name, spec in planned if name == "shipped"}
    return Scorecard(config, rows, skipped, ratings, policy_file(candidate),
                     {n: f for n, f in shipped.items() if f is not None})
