"""GameConfig: documented defaults, round trips, and a ConfigError naming the field for every
invalid value."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any, get_type_hints

import pytest
import yaml

from zavandor_env.engine import ConfigError, Game, GameConfig
from zavandor_env.engine.data import CHARACTERS

BOOL_OPTIONS = [f.name for f in fields(GameConfig) if get_type_hints(GameConfig)[f.name] is bool]


def test_defaults_are_the_documented_ones() -> None:
    config = GameConfig()
    assert config.num_players == 2 and config.characters is None
    assert config.max_rounds == 60 and config.max_decisions == 20_000
    assert config.no_split_blocks and config.druid_l3_ruby and config.sages_dust_substitution
    assert config.allow_overbid and not config.one_value_dust  # overbids: the rulebook's Curse
    assert not config.catchup_small_games and config.skip_forced_decisions
    assert config.no_undo_activation
    assert BOOL_OPTIONS == [
        "no_split_blocks",
        "druid_l3_ruby",
        "sages_dust_substitution",
        "allow_overbid",
        "one_value_dust",
        "catchup_small_games",
        "skip_forced_decisions",
        "no_undo_activation",
    ]


def test_config_round_trips_through_plain_data() -> None:
    config = GameConfig(
        num_players=3,
        characters=["mage", "elf", "witch"],  # type: ignore[arg-type]  # a list, as from YAML
        max_rounds=7,
        one_value_dust=True,
    )
    assert config.characters == ("mage", "elf", "witch")  # lists become tuples
    data = json.loads(json.dumps(config.to_dict()))
    assert data["characters"] == ["mage", "elf", "witch"]
    assert GameConfig.from_dict(data) == config
    assert hash(GameConfig.from_dict(data)) == hash(config)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_valid_player_counts_are_accepted(num_players: int) -> None:
    assert GameConfig(num_players=num_players).num_players == num_players


@pytest.mark.parametrize(
    "options, field",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"num_players": 2.0}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": None}, "num_players"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"max_rounds": -3}, "max_rounds"),
        ({"max_rounds": "10"}, "max_rounds"),
        ({"max_rounds": True}, "max_rounds"),
        ({"max_decisions": 0}, "max_decisions"),
        ({"max_decisions": 1.5}, "max_decisions"),
        ({"characters": ("witch",)}, "characters"),  # wrong length (2 players)
        ({"characters": ("witch", "elf", "druid")}, "characters"),
        ({"characters": ("witch", "goblin")}, "characters"),  # unknown
        ({"characters": ("witch", "witch")}, "characters"),  # duplicate
        ({"characters": "witch"}, "characters"),  # a string is not a list of names
        ({"characters": 5}, "characters"),
        ({"characters": ("witch", 3)}, "characters"),
        ({"characters": ("witch", ["elf"])}, "characters"),  # unhashable entry
    ],
)
def test_invalid_value_raises_config_error_naming_the_field(options: dict, field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        GameConfig(**options)


@pytest.mark.parametrize("option", BOOL_OPTIONS)
@pytest.mark.parametrize("value", [1, 0, "yes", "false", None, 1.0])
def test_bool_option_given_a_non_bool_raises_config_error(option: str, value: object) -> None:
    with pytest.raises(ConfigError, match=option):
        GameConfig(**{option: value})  # type: ignore[arg-type]  # wrong types on purpose


@pytest.mark.parametrize("option", BOOL_OPTIONS)
def test_bool_option_accepts_both_bools(option: str) -> None:
    options: dict[str, Any] = {option: True}
    assert getattr(GameConfig(**options), option) is True
    options[option] = False
    assert getattr(GameConfig(**options), option) is False


def test_from_dict_rejects_unknown_keys_naming_them() -> None:
    with pytest.raises(ConfigError, match="num_player"):
        GameConfig.from_dict({"num_player": 3})
    with pytest.raises(ConfigError, match="colour"):
        GameConfig.from_dict({"num_players": 3, "colour": "red"})


@pytest.mark.parametrize("data", [None, [], "num_players=2", 3])
def test_from_dict_rejects_non_mappings(data: object) -> None:
    with pytest.raises(ConfigError):
        GameConfig.from_dict(data)  # type: ignore[arg-type]


def test_from_dict_validates_values() -> None:
    with pytest.raises(ConfigError, match="allow_overbid"):
        GameConfig.from_dict({"allow_overbid": "no"})
    assert GameConfig.from_dict({}) == GameConfig()


def test_config_error_is_a_value_error() -> None:
    assert issubclass(ConfigError, ValueError)


def test_config_is_immutable() -> None:
    config = GameConfig()
    with pytest.raises(AttributeError):
        config.num_players = 3  # type: ignore[misc]


def test_chosen_characters_are_seated_in_order() -> None:
    names = ("kobold", "fairy", "druid", "elf")
    game = Game.new(GameConfig(num_players=4, characters=names), seed=1)
    assert [CHARACTERS[p.character].name for p in game.state.players] == list(names)


def test_random_characters_differ_and_depend_on_the_seed() -> None:
    dealt = set()
    for seed in range(20):
        game = Game.new(GameConfig(num_players=6), seed=seed)
        characters = [p.character for p in game.state.players]
        assert sorted(characters) == list(range(6))
        dealt.add(tuple(characters))
    assert len(dealt) > 1


ROOT = Path(__file__).resolve().parents[2]
TRAINING_CONFIGS = [
    ROOT / "configs" / f"{name}.yaml"
    for name in ("quick", "selfplay_2p", "selfplay_4p", "exit_2p", "exit_4p", "exit_2p_cold")
] + sorted((ROOT / "train" / "checkpoints").glob("*/config.yaml"))


@pytest.mark.parametrize("path", TRAINING_CONFIGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_training_configs_state_the_affordability_rule_they_were_trained_with(
    path: Path,
) -> None:
    # The rules' default allows overbids (the Curse).  The PPO runs were trained and are
    # evaluated with the filter; expert iteration's network plays (and is measured) under the
    # rulebook's default.  Either way the game mapping says so explicitly.
    config = yaml.safe_load(path.read_text())
    game = config["game"]
    trained_with_filter = config.get("trainer", config.get("backend")) != "exit"
    assert game["allow_overbid"] is not trained_with_filter
    assert GameConfig(**game).allow_overbid is not trained_with_filter


def test_a_game_config_file_may_turn_the_affordability_filter_on(tmp_path: Path) -> None:
    path = tmp_path / "filtered.yaml"
    path.write_text("num_players: 3\nallow_overbid: false\n")
    assert GameConfig.from_yaml(path) == GameConfig(num_players=3, allow_overbid=False)


@pytest.mark.parametrize("content, problem", [
    (b"num_players: [unclosed\n", "not valid YAML"),
    (b"\xff\xfe\x00binary", "not UTF-8"),
    (b"num_players: " + b"[" * 100 + b"\n", "nests deeper"),
    (b"a: &x 2\nnum_players: *x\n", "aliases"),
    (b"num_players: !!python/object/apply:os.getpid []\n", "tags"),
])
def test_a_hostile_game_config_file_is_one_config_error(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "game.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=problem) as info:
        GameConfig.from_yaml(path)
    assert "\n" not in str(info.value)
