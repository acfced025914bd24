"""The ladder: every standard agent against every other, rated on one scale (``zavandor ladder``).

A ladder is one tournament per player count (2, 4 and 6 by default) between the same agents
(:data:`STANDARD_AGENTS`, or any specs given), played through the tournament machinery
(:func:`~zavandor_env.eval.tournament_run.run_tournament`: the one game driver, the one
definition of a result, its journal for resuming) at the tables of
:mod:`zavandor_env.eval.ladder_schedule`; what it says is in
:mod:`zavandor_env.eval.ladder_report`.

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
import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from zavandor_env.agents.base import Agent
from zavandor_env.agents.registry import AgentSpec, AgentSpecError, parse_spec
from zavandor_env.engine import GameConfig
from zavandor_env.eval.ladder_report import JOURNAL_PATTERN, Board, Entry, Ladder
from zavandor_env.eval.ladder_schedule import LadderError, LadderTournament, schedule_tables
from zavandor_env.eval.match import play_game
from zavandor_env.eval.run_settings import RunSettings, Skipped
from zavandor_env.eval.tournament import check_spec
from zavandor_env.eval.tournament_run import run_tournament
from zavandor_env.io.params import one_line
from zavandor_env.resources import data_path

__all__ = ["STANDARD_AGENTS", "LadderConfig", "LadderError", "LadderTournament", "plan",
           "run_ladder", "schedule_tables"]


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
#: Games per table, rounded up to a multiple of the player count.
DEFAULT_GAMES = 24
#: The most agents of one ladder (the schedule search and the tables stay small).
MAX_AGENTS = 16


@dataclass(frozen=True, kw_only=True)
class LadderConfig(RunSettings):
    """What a ladder plays: the :class:`RunSettings` (``games`` per table, default
    :data:`DEFAULT_GAMES`) and ``agents``, agent specs (``{n}`` stands for the player count,
    ``label=`` names one); None: :data:`STANDARD_AGENTS`."""

    error: ClassVar[type[Exception]] = LadderError
    what: ClassVar[str] = "the ladder"
    games: int = DEFAULT_GAMES
    agents: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.agents is not None:
            object.__setattr__(self, "agents", tuple(self.agents))
            if len(self.agents) > MAX_AGENTS:
                raise LadderError(f"a ladder holds at most {MAX_AGENTS} agents, "
                                  f"got {len(self.agents)}")

    def command(self) -> str:
        """The canonical command line of this ladder (without --out, --workers)."""
        agents = ("--agents", *map(shlex.quote, self.agents)) if self.agents is not None else ()
        return " ".join(self.command_words("ladder", tail=agents))


def _refuse_time_budget(spec: AgentSpec) -> None:
    if spec.params.get("seconds") is not None:
        raise LadderError(f"agent {spec.label!r}: a ladder uses fixed budgets only (a time "
                          "budget makes the result depend on the machine); give "
                          "iterations= instead of seconds=")


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
                    check_spec(spec)
                except (AgentSpecError, ValueError) as exc:
                    if not std.optional:
                        raise
                    skipped.append(Skipped(n, std.label, one_line(exc)))
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
                check_spec(spec)
                chosen.append(Entry(spec))
        labels = [e.label for e in chosen]
        if len(set(labels)) != len(labels):
            raise LadderError(f"agent labels must be unique (give each a label=): {labels}")
        if len(chosen) < n:
            raise LadderError(f"{n} players need at least {n} agents, got {len(chosen)}"
                              + (f" ({', '.join(labels)})" if labels else ""))
        entries[n] = chosen
    return entries, skipped


# ---- the cost probe -------------------------------------------------------------------------
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
        tournament = LadderTournament(
            [e.spec for e in chosen], num_players=n, games=config.games, seed=config.seed,
            workers=config.workers, game_options=dict(config.game_options),
            tables=tuple(schedule_tables(len(chosen), n)))
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
    for board in boards if probe else []:
        for e in board.entries:
            board.probe[e.label] = probe_cost(e.spec, board.players, config.seed,
                                              config.game_options)
    return Ladder(config, boards, skipped)
