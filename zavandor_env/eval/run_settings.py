"""What the ladder and the scorecard share: runs over several player counts, their settings
checked in one place, their rules described, their agents written as command-line specs."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def check_run_settings(config: Any, error: type[Exception], what: str) -> None:
    """Check the settings every multi-count run holds (``players`` 2 to 6, ``games``
    positive, ``seed`` non-negative, ``workers`` positive or None, ``game_options`` that fit
    every player count), else one ``error`` line naming the bad value; then store the player
    counts sorted and deduplicated and the options as a plain dict (``config`` is a frozen
    dataclass; ``what`` names it in messages, e.g. ``the card``)."""
    players = config.players
    counts = tuple(sorted(set(players)))
    if not counts or any(type(n) is not int or not 2 <= n <= 6 for n in counts):
        raise error(f"players must be player counts from 2 to 6, got {list(players)}")
    if type(config.games) is not int or config.games < 1:
        raise error(f"games must be a positive integer, got {config.games!r}")
    if type(config.seed) is not int or config.seed < 0:
        raise error(f"seed must be a non-negative integer, got {config.seed!r}")
    if config.workers is not None and (type(config.workers) is not int or config.workers < 1):
        raise error(f"workers must be positive (or None: all cores), got {config.workers!r}")
    if "num_players" in config.game_options:
        raise error(f"game_options must not set num_players ({what} sets it)")
    object.__setattr__(config, "players", counts)
    object.__setattr__(config, "game_options", dict(config.game_options))
    for n in counts:  # e.g. chosen characters must fit every player count
        try:
            GameConfig(num_players=n, **config.game_options)
        except (TypeError, ValueError) as exc:
            raise error(f"game options do not fit {n} players: {exc}") from None


def run_rules(game_options: Mapping[str, Any]) -> dict[str, Any]:
    """Every :class:`GameConfig` field of a run's games but the player count."""
    rules = GameConfig(num_players=2, **game_options).to_dict()
    del rules["num_players"]
    return rules


def run_command(command: str, config: Any, *middle: str, tail: tuple[str, ...] = ()) -> list[str]:
    """The canonical command line of a run (without --out, --workers), as words:
    ``zavandor COMMAND``, ``middle``, its player counts, games and seed, ``tail`` and its game
    file."""
    parts = ["zavandor", command, *middle, "--players", *map(str, config.players),
             "--games", str(config.games), "--seed", str(config.seed), *tail]
    if config.game_file is not None:
        parts += ["--game", shlex.quote(config.game_file)]
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
