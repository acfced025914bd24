"""Game config files: every file under configs/game loads, and bad files fail clearly."""

from __future__ import annotations

from pathlib import Path

import pytest

from zavandor_env.engine import ConfigError, Game, GameConfig

GAME_CONFIGS = sorted((Path(__file__).parents[2] / "configs" / "game").glob("*.yaml"))


def test_there_are_game_config_files() -> None:
    assert len(GAME_CONFIGS) >= 3


@pytest.mark.parametrize("path", GAME_CONFIGS, ids=lambda p: p.name)
def test_every_game_config_file_loads_and_starts_a_game(path: Path) -> None:
    config = GameConfig.from_yaml(path)
    game = Game.new(config, seed=0)
    assert game.num_players == config.num_players and game.legal_actions()


def test_the_standard_file_spells_out_the_defaults() -> None:
    config = GameConfig.from_yaml(Path(GAME_CONFIGS[0]).parent / "standard_4p.yaml")
    assert config == GameConfig(num_players=4)


def test_a_bad_key_in_a_game_config_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("num_players: 3\nno_spilt_blocks: false\n")
    with pytest.raises(ConfigError, match="no_spilt_blocks"):
        GameConfig.from_yaml(bad)


def test_a_missing_or_malformed_game_config_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        GameConfig.from_yaml(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("num_players: [3\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        GameConfig.from_yaml(broken)
    listed = tmp_path / "listed.yaml"
    listed.write_text("- 3\n")
    with pytest.raises(ConfigError, match="mapping"):
        GameConfig.from_yaml(listed)
