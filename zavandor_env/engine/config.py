"""Game configuration: player count, characters, safety limits and rule options.

Every rule option has a documented default; ``docs/rules.md`` explains each one.  A config is
validated when it is made, so a bad value fails with a message naming the field instead of
producing a broken game later.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import Field, field_validator

from zavandor_env.engine.data import CHARACTER_INDEX, MAX_PLAYERS, MIN_PLAYERS
from zavandor_env.engine.schema import checked

#: Ceilings of the safety limits, far above any real game (the longest of 1,000 seeded games
#: took 46 rounds and 856 decisions): a saved game within them stays small enough to load,
#: and every count the native core derives from them fits its int32 (docs/rules.md,
#: "Saved-game limits").
MAX_ROUNDS: Final = 1_000
MAX_DECISIONS: Final = 50_000


class ConfigError(ValueError):
    """A game configuration value is invalid; the message names the offending field."""


@checked(ConfigError, what="game config key", frozen=True)
class GameConfig:
    """Everything that, together with a seed and the actions taken, fixes a game.

    Each field's type, bounds and meaning are in its ``Field``; a bad value raises
    :class:`ConfigError` naming the field (only real bools count as bools, so a YAML ``"yes"``
    or an int 1 is reported rather than silently taken as true).
    """

    num_players: Annotated[int, Field(ge=MIN_PLAYERS, le=MAX_PLAYERS, description=(
        "2 to 6"))] = 2
    # A list (as from YAML) is taken and kept as a tuple, so the config stays hashable.
    characters: Annotated[tuple[str, ...] | None, Field(strict=False, description=(
        "``None`` deals the six player boards at random; otherwise one character name per "
        "seat (``witch``, ``elf``, ``druid``, ``fairy``, ``mage``, ``kobold``), all "
        "different"))] = None
    max_rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS, description=(
        "safety limit; a game still running after this many rounds is truncated"))] = 60
    max_decisions: Annotated[int, Field(ge=1, le=MAX_DECISIONS, description=(
        "safety limit on the total number of decisions (guards against a policy that toggles "
        "gems forever); exceeding it truncates the game"))] = 20_000
    no_split_blocks: Annotated[bool, Field(description=(
        "FAQ rule: within a turn the gem, knowledge and auction blocks may each be used once, "
        "in any order (on)"))] = True
    druid_l3_ruby: Annotated[bool, Field(description=(
        "the Druid may buy exactly one ruby at Fire level 3 (on)"))] = True
    sages_dust_substitution: Annotated[bool, Field(description=(
        "9-Sages cards of a colour the player has no means to produce are exchanged for their "
        "value in dust (on)"))] = True
    allow_overbid: Annotated[bool, Field(description=(
        "the rulebook's rule (on): any bid is legal, and a winner who cannot pay even after "
        "selling every gem is out of the game (the Curse of the 9 Sages).  Off: an "
        "affordability filter for training, where a bid (or an opening) is legal only if its "
        "price is within what the bidder could pay, so the Curse never happens"))] = True
    one_value_dust: Annotated[bool, Field(description=(
        "variant with 1-value dust chits, so no change is ever lost (off)"))] = False
    catchup_small_games: Annotated[bool, Field(description=(
        "unofficial variant dealing turn-order cards ``I..N-2, V, VI`` in 3-4 player games so "
        "the catch-up discounts exist (off)"))] = False
    skip_forced_decisions: Annotated[bool, Field(description=(
        "a decision with exactly one legal action is taken automatically instead of being "
        "asked (on)"))] = True
    no_undo_activation: Annotated[bool, Field(description=(
        "within a turn, a kind of gem activated this turn cannot be deactivated again, nor a "
        "deactivated kind re-activated (on).  Every end-of-turn arrangement stays reachable; "
        "only no-op toggling, which would let a policy stall a game forever, is "
        "removed"))] = True

    @field_validator("characters")
    @classmethod
    def _known_and_distinct(cls, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        for name in names or ():
            if name not in CHARACTER_INDEX:
                raise ValueError(f"names an unknown character {name!r}; "
                                 f"choose from {sorted(CHARACTER_INDEX)}")
        if names is not None and len(set(names)) != len(names):
            raise ValueError(f"must all differ, got {list(names)}")
        return names

    def __post_init__(self) -> None:
        if self.characters is not None and len(self.characters) != self.num_players:
            raise ValueError(f"characters must name one character per player "
                             f"({self.num_players}), got {len(self.characters)}")

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (JSON friendly)."""
        data = asdict(self)
        if data["characters"] is not None:
            data["characters"] = list(data["characters"])
        return data

    @classmethod
    def from_yaml(cls, path: str | Path) -> GameConfig:
        """Load a game config file (``configs/game/*.yaml``): a mapping of config fields."""
        from zavandor_env.io.files import UntrustedInputError, load_yaml
        from zavandor_env.resources import data_path

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
        return cls(**{str(key): value for key, value in data.items()})
