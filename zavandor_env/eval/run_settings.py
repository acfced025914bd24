"""What the ladder and the scorecard share: runs over several player counts, their settings
checked in one place, their rules described, their agents written as command-line specs."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from zavandor_env.agents.registry import AgentSpec
from zavandor_env.engine import GameConfig

#: Rule options of the standard runs: those of the shipped policies' training runs.
DEFAULT_GAME_OPTIONS: Mapping[str, Any] = {"allow_overbid": False}


@dataclass(frozen=True)
class Skipped:
    """An agent (a ladder's entrant, a card's opponent) left out at one player count, and
    why."""

    players: int
    label: str
    reason: str

    def to_dict(self, name: str = "label") -> dict[str, Any]:
        """As the run's file holds it (``name`` is the key of the label)."""
        return {"players": self.players, name: self.label, "reason": self.reason}


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """The settings every multi-count run holds, checked when it is made (one ``error`` line
    naming a bad value; ``what`` names the run in messages, e.g. ``the card``).

    Args:
        players: player counts, 2 to 6 (sorted, duplicates dropped).
        games: games per table or row, rounded up to a multiple of the player count.
        seed: first deal seed; deal ``d`` of every table or row uses game seed ``seed + d``.
        game_options: :class:`GameConfig` fields (all but ``num_players``) of every game; by
            default :data:`DEFAULT_GAME_OPTIONS` (the rules the shipped policies were trained
            with); they must fit every player count.
        workers: processes (None: all cores); has no effect on the results.
        game_file: the game config file ``game_options`` were read from, for the command.
    """

    error: ClassVar[type[Exception]] = ValueError
    what: ClassVar[str] = "the run"
    players: tuple[int, ...] = (2, 4, 6)
    games: int = 1
    seed: int = 0
    game_options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_GAME_OPTIONS))
    workers: int | None = None
    game_file: str | None = None

    def __post_init__(self) -> None:
        players, error = self.players, self.error
        counts = tuple(sorted(set(players)))
        if not counts or any(type(n) is not int or not 2 <= n <= 6 for n in counts):
            raise error(f"players must be player counts from 2 to 6, got {list(players)}")
        if type(self.games) is not int or self.games < 1:
            raise error(f"games must be a positive integer, got {self.games!r}")
        if type(self.seed) is not int or self.seed < 0:
            raise error(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.workers is not None and (type(self.workers) is not int or self.workers < 1):
            raise error(f"workers must be positive (or None: all cores), got {self.workers!r}")
        if "num_players" in self.game_options:
            raise error(f"game_options must not set num_players ({self.what} sets it)")
        object.__setattr__(self, "players", counts)
        object.__setattr__(self, "game_options", dict(self.game_options))
        for n in counts:  # e.g. chosen characters must fit every player count
            try:
                GameConfig(num_players=n, **self.game_options)
            except (TypeError, ValueError) as exc:
                raise error(f"game options do not fit {n} players: {exc}") from None

    def rules(self) -> dict[str, Any]:
        """Every :class:`GameConfig` field of the run's games but the player count."""
        rules = GameConfig(num_players=2, **self.game_options).to_dict()
        del rules["num_players"]
        return rules

    def command(self) -> str:
        """The canonical command line of this run; each tool's settings say which command
        (the reports write it, so they read it here without importing the tool)."""
        raise NotImplementedError(f"{type(self).__name__} names no command")

    def command_words(self, command: str, *middle: str, tail: tuple[str, ...] = ()) -> list[str]:
        """The canonical command line of the run (without --out, --workers), as words:
        ``zavandor COMMAND``, ``middle``, its player counts, games and seed, ``tail`` and its
        game file."""
        parts = ["zavandor", command, *middle, "--players", *map(str, self.players),
                 "--games", str(self.games), "--seed", str(self.seed), *tail]
        if self.game_file is not None:
            parts += ["--game", shlex.quote(self.game_file)]
        return parts


def describe_rules(rules: Mapping[str, Any]) -> str:
    """The rules in a sentence: what differs from the rulebook's defaults."""
    changed = {k: v for k, v in rules.items()
               if v != GameConfig.__dataclass_fields__[k].default}
    if not changed:
        return "the rulebook defaults (GameConfig)"
    text = ", ".join(f"`{k}: {json.dumps(v)}`" for k, v in changed.items())
    note = (" (the affordability filter the shipped policies were trained with)"
            if changed.get("allow_overbid") is False else "")
    return f"GameConfig defaults except {text}{note}"


def game_options_from_file(path: str | Path | None) -> dict[str, Any]:
    """Every rule option of a game config file (``configs/game/*.yaml``) but its player count,
    which the run sets (None: :data:`DEFAULT_GAME_OPTIONS`).  All fields are kept, not only
    those that differ from GameConfig's defaults, because the runs' own default rules differ
    from GameConfig's."""
    if path is None:
        return dict(DEFAULT_GAME_OPTIONS)
    try:
        options = GameConfig.from_yaml(path).to_dict()
    except ValueError as exc:  # a YAML error's message spans lines: keep the first
        raise ValueError(str(exc).splitlines()[0] if str(exc) else repr(exc)) from None
    del options["num_players"]
    return options


def format_spec(spec: AgentSpec) -> str:
    """``name:key=value,...`` (the command-line form) of a spec, without its label."""
    if not spec.params:
        return spec.agent
    return spec.agent + ":" + ",".join(f"{k}={_format_value(v)}" for k, v in spec.params.items())


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


def library_versions() -> dict[str, str | None]:
    """Versions of the libraries the numbers depend on (ratings, policy arithmetic)."""
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {}
    for name in ("openskill", "numpy"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found
