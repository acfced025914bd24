"""Tournament files (``configs/eval/*.yaml``) and the checks of every tournament's settings.

A tournament file may come from anyone, and a small one can ask for a lot: 80 agents at
6 players are C(80, 6) = 300,500,200 lineups, ``workers: 100000`` a pool of 100,000 processes.
So every field is checked for its type (``true`` is no integer, ``2.5`` no game count, ``'3'``
no player count) and against its ceiling in :mod:`zavandor_env.io.limits`, and the lineups
and games are *counted* (:func:`lineup_count`) before any is built or any process started.
Every problem is one line: :class:`TournamentConfigError`, a ``ValueError``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from zavandor_env.agents.registry import AgentSpec, parse_spec
from zavandor_env.engine.data import MAX_PLAYERS, MIN_PLAYERS
from zavandor_env.io.files import load_yaml
from zavandor_env.io.limits import MAX_AGENTS, MAX_GAMES, MAX_LINEUPS, MAX_SEED, MAX_WORKERS
from zavandor_env.resources import data_path

__all__ = ["FILE_KEYS", "TournamentConfigError", "check_config", "lineup_count",
           "read_tournament_file"]

#: The keys a tournament file may hold (``players`` is another name for ``num_players``).
FILE_KEYS = ("agents", "num_players", "players", "games", "seed", "workers", "game_options",
             "save_replays")


class TournamentConfigError(ValueError):
    """A tournament file or setting is malformed or past a ceiling; one line naming it."""


def _show(value: object) -> str:
    """``value`` for a message: its repr, cut short (a file may hold a megabyte string)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _integer(name: str, value: object, low: int, high: int) -> int:
    """``value`` if it is an integer (not a bool) in ``low..high``, else one line."""
    if type(value) is not int or not low <= value <= high:
        raise TournamentConfigError(f"{name} must be an integer {low:,}..{high:,}, "
                                    f"got {_show(value)}")
    return value


def lineup_count(agents: int, num_players: int) -> int:
    """How many lineups :meth:`TournamentConfig.lineups` builds for ``agents`` entrants at
    ``num_players`` seats (one, or every combination), counted without building any."""
    return math.comb(agents, num_players) if agents > num_players else 1


class TournamentSettings(Protocol):
    """The fields :func:`check_config` checks (a :class:`~.tournament.TournamentConfig`;
    a protocol, so this module does not import the one that plays tournaments)."""

    @property
    def agents(self) -> object: ...
    @property
    def num_players(self) -> object: ...
    @property
    def games(self) -> object: ...
    @property
    def seed(self) -> object: ...
    @property
    def workers(self) -> object: ...
    @property
    def save_replays(self) -> object: ...
    @property
    def game_options(self) -> object: ...


def check_config(config: TournamentSettings) -> None:
    """Every field of ``config`` of its type and within its ceiling, its lineups and games
    counted within :data:`~zavandor_env.io.limits.MAX_LINEUPS` and
    :data:`~zavandor_env.io.limits.MAX_GAMES`, and its rule options a valid ``GameConfig``."""
    from zavandor_env.engine import GameConfig

    agents = config.agents
    if not isinstance(agents, list) or not all(isinstance(a, AgentSpec) for a in agents):
        raise TournamentConfigError("agents must be a list of agent specs")
    if not agents:
        raise TournamentConfigError("a tournament needs at least one agent")
    _integer("the number of agents", len(agents), 1, MAX_AGENTS)
    n = _integer("num_players", config.num_players, MIN_PLAYERS, MAX_PLAYERS)
    games = _integer("games", config.games, 1, MAX_GAMES)
    deals = -(-games // n)
    _integer("seed", config.seed, 0, MAX_SEED - (deals - 1))  # deal seeds are seed + deal
    if config.workers is not None:
        _integer("workers", config.workers, 1, MAX_WORKERS)
    if type(config.save_replays) is not bool:
        raise TournamentConfigError(f"save_replays must be true or false, "
                                    f"got {_show(config.save_replays)}")
    options = config.game_options
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise TournamentConfigError(f"game_options must be a mapping of GameConfig fields, "
                                    f"got {_show(options)}")
    if "num_players" in options:
        raise TournamentConfigError("game_options must not hold num_players: set num_players")
    lineups = lineup_count(len(agents), n)
    if lineups > MAX_LINEUPS:
        raise TournamentConfigError(
            f"{len(agents)} agents at {n} players make {lineups:,} lineups (at most "
            f"{MAX_LINEUPS:,}): fewer agents, or several smaller tournaments")
    if lineups * deals * n > MAX_GAMES:
        raise TournamentConfigError(
            f"{lineups:,} lineups x {deals * n:,} games are {lineups * deals * n:,} games (at "
            f"most {MAX_GAMES:,})")
    labels = [a.label for a in agents]
    # The same spec repeated in a full seating ("heuristic naive naive naive" at 4 players)
    # is one agent filling several seats; any other repeated label is ambiguous.
    same_agent_repeated = len(agents) == n and all(
        a == b for a in agents for b in agents if a.label == b.label)
    if len(set(labels)) != len(labels) and not same_agent_repeated:
        raise TournamentConfigError(f"agent labels must be unique (give each a 'label'): "
                                    f"{labels}")
    GameConfig(num_players=n, **options)  # a ConfigError (a ValueError) names the field


def read_tournament_file(path: str | Path, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :class:`TournamentConfig` from tournament file ``path``, the
    ``overrides`` that are not None replacing its values (the fields are checked when the
    config is built).  Read as plain data, bounded in size and depth
    (:func:`~zavandor_env.io.files.load_yaml`); every problem is one line naming ``path``."""
    data = load_yaml(data_path(path), what="tournament file")
    if not isinstance(data, dict):
        raise TournamentConfigError(f"{path}: a tournament file must be a mapping")
    unknown = sorted(_show(k) for k in data if k not in FILE_KEYS)
    if unknown:
        raise TournamentConfigError(f"{path}: unknown key(s) {', '.join(unknown)}; known: "
                                    f"{', '.join(sorted(FILE_KEYS))}")
    if "players" in data:
        if "num_players" in data:
            raise TournamentConfigError(f"{path}: give num_players or players, not both")
        data["num_players"] = data.pop("players")
    agents = data.pop("agents", None)
    if not isinstance(agents, list):
        raise TournamentConfigError(f"{path}: 'agents' must be a list")
    if len(agents) > MAX_AGENTS:
        raise TournamentConfigError(f"{path}: {len(agents):,} agents (at most {MAX_AGENTS})")
    try:
        data["agents"] = [parse_spec(a) for a in agents]
    except ValueError as exc:
        raise TournamentConfigError(f"{path}: {exc}") from None
    data.update({k: v for k, v in overrides.items() if v is not None})
    return data
