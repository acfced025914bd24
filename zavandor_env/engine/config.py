"""Game configuration: player count, characters, safety limits and rule options.

Every rule option has a documented default; ``docs/rules.md`` explains each one.  A config is
validated when it is made, so a bad value fails with a message naming the field instead of
producing a broken game later.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Final

from .data import CHARACTER_INDEX, MAX_PLAYERS, MIN_PLAYERS

#: Ceilings of the safety limits, far above any real game (the longest of 1,000 seeded games
#: took 46 rounds and 856 decisions): a saved game within them stays small enough to load,
#: and every count the native core derives from them fits its int32 (docs/rules.md,
#: "Saved-game limits").
MAX_ROUNDS: Final = 1_000
MAX_DECISIONS: Final = 50_000


class ConfigError(ValueError):
    """A game configuration value is invalid; the message names the offending field."""


@dataclass(frozen=True)
class GameConfig:
    """Everything that, together with a seed and the actions taken, fixes a game.

    Attributes:
        num_players: 2 to 6.
        characters: ``None`` deals the six player boards at random; otherwise one character
            name per seat (``witch``, ``elf``, ``druid``, ``fairy``, ``mage``, ``kobold``),
            all different.
        max_rounds: safety limit; a game still running after this many rounds is truncated.
        max_decisions: safety limit on the total number of decisions (guards against a
            policy that toggles gems forever); exceeding it truncates the game.
        no_split_blocks: FAQ rule: within a turn the gem, knowledge and auction blocks may
            each be used once, in any order (on).
        druid_l3_ruby: the Druid may buy exactly one ruby at Fire level 3 (on).
        sages_dust_substitution: 9-Sages cards of a colour the player has no means to
            produce are exchanged for their value in dust (on).
        allow_overbid: the rulebook's rule (on): any bid is legal, and a winner who cannot
            pay even after selling every gem is out of the game (the Curse of the 9 Sages).
            Off: an affordability filter for training, where a bid (or an opening) is legal
            only if its price is within what the bidder could pay, so the Curse never happens.
        one_value_dust: variant with 1-value dust chits, so no change is ever lost (off).
        catchup_small_games: unofficial variant dealing turn-order cards
            ``I..N-2, V, VI`` in 3-4 player games so the catch-up discounts exist (off).
        skip_forced_decisions: a decision with exactly one legal action is taken
            automatically instead of being asked (on).
        no_undo_activation: within a turn, a kind of gem activated this turn cannot be
            deactivated again, nor a deactivated kind re-activated (on).  Every end-of-turn
            arrangement stays reachable; only no-op toggling, which would let a policy stall
            a game forever, is removed.
    """

    num_players: int = 2
    characters: tuple[str, ...] | None = None
    max_rounds: int = 60
    max_decisions: int = 20_000
    no_split_blocks: bool = True
    druid_l3_ruby: bool = True
    sages_dust_substitution: bool = True
    allow_overbid: bool = True
    one_value_dust: bool = False
    catchup_small_games: bool = False
    skip_forced_decisions: bool = True
    no_undo_activation: bool = True

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        for f in fields(self):
            # Annotations are strings here (postponed evaluation); only real bools pass, so a
            # YAML "yes" string or an int 1 is reported rather than silently taken as true.
            value = getattr(self, f.name)
            if f.type == "bool" and type(value) is not bool:
                raise ConfigError(f"{f.name} must be true or false, got {value!r}")
        if type(self.num_players) is not int or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ConfigError(
                f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                f"got {self.num_players!r}"
            )
        for name, most in (("max_rounds", MAX_ROUNDS), ("max_decisions", MAX_DECISIONS)):
            value = getattr(self, name)
            if type(value) is not int or not 1 <= value <= most:
                raise ConfigError(f"{name} must be an integer from 1 to {most:,}, got {value!r}")
        if self.characters is not None:
            if isinstance(self.characters, str) or not hasattr(self.characters, "__len__"):
                raise ConfigError(f"characters must be a list of names, got {self.characters!r}")
            object.__setattr__(self, "characters", tuple(self.characters))
            if len(self.characters) != self.num_players:
                raise ConfigError(
                    f"characters must name one character per player ({self.num_players}), "
                    f"got {len(self.characters)}"
                )
            for name in self.characters:
                if not isinstance(name, str) or name not in CHARACTER_INDEX:
                    raise ConfigError(
                        f"characters: unknown character {name!r}; "
                        f"choose from {sorted(CHARACTER_INDEX)}"
                    )
            if len(set(self.characters)) != len(self.characters):
                raise ConfigError(f"characters must all differ, got {list(self.characters)}")

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (JSON friendly)."""
        data = asdict(self)
        if data["characters"] is not None:
            data["characters"] = list(data["characters"])
        return data

    @classmethod
    def from_yaml(cls, path: str | Path) -> GameConfig:
        """Load a game config file (``configs/game/*.yaml``): a mapping of config fields."""
        from ..resources import data_path
        from .files import UntrustedInputError, load_yaml

        try:
            data = load_yaml(data_path(path), what="game config")
        except UntrustedInputError as exc:  # unreadable, too large or deep, not plain YAML
            raise ConfigError(str(exc)) from None
        try:
            return cls.from_dict(data if data is not None else {})
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None

    @classmethod
    def from_dict(cls, data: Any) -> GameConfig:
        """Build a config from plain data, rejecting unknown keys with a clear error."""
        if not isinstance(data, dict):
            raise ConfigError(f"a game config must be a mapping, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown game config key(s) {unknown}; known keys: {sorted(known)}")
        return cls(**data)
