"""Training configs: YAML loading, validation with clear errors, command-line overrides."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from zavandor_env.train.config import (
    TrainConfig,
    TrainConfigError,
    config_keys,
    default_config_path,
    field_docs,
    load_config,
)

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["quick", "selfplay_2p", "selfplay_4p"])
def test_shipped_config_loads_with_its_name(name: str) -> None:
    cfg = load_config(CONFIGS / f"{name}.yaml")
    assert cfg.name == name


def test_defaults_equal_quick_yaml_so_zavandor_train_runs_the_same_without_the_file() -> None:
    quick = dataclasses.replace(load_config(CONFIGS / "quick.yaml"), config_path="")
    assert quick == TrainConfig()
    assert default_config_path() == CONFIGS / "quick.yaml"


def test_unknown_key_error_names_the_key_and_suggests_the_right_one(tmp_path: Path) -> None:
    path = write(tmp_path, "learning_rat: 0.001\n")
    with pytest.raises(TrainConfigError, match=r"unknown config key 'learning_rat'.*learning_rate"):
        load_config(path)


def test_unknown_override_key_is_rejected() -> None:
    with pytest.raises(TrainConfigError, match="'n_env'"):
        load_config(None, ["n_env=4"])


@pytest.mark.parametrize(
    "text, key",
    [
        ("n_envs: two\n", "n_envs"),
        ("n_envs: 0\n", "n_envs"),
        ("gamma: 1.5\n", "gamma"),
        ("vec_env: threads\n", "vec_env"),
        ("net_arch: [64, -1]\n", "net_arch"),
        ("opponent_weights: {rando: 1.0}\n", "opponent_weights"),
        ("opponent_weights: {random: 0}\n", "opponent_weights"),
        ("progress_bar: 3\n", "progress_bar"),
        ("batch_size: 100000\n", "batch_size"),
        ("learner_seat: 2\n", "learner_seat"),
    ],
)
def test_bad_value_error_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(TrainConfigError, match=f"'{key}'"):
        load_config(write(tmp_path, text))


def test_non_mapping_file_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(TrainConfigError, match="mapping"):
        load_config(write(tmp_path, "- 1\n- 2\n"))


def test_overrides_parse_yaml_values_and_reach_into_mappings() -> None:
    cfg = load_config(CONFIGS / "quick.yaml", [
        "total_timesteps=1e5", "net_arch=[32, 32]", "game.max_rounds=40",
        "opponent_weights.heuristic=0.5", "learner_seat=null", "eval_deterministic=false",
    ])
    assert cfg.total_timesteps == 100_000 and isinstance(cfg.total_timesteps, int)
    assert cfg.net_arch == [32, 32]
    assert cfg.game == {"max_rounds": 40}
    assert cfg.opponent_weights["heuristic"] == 0.5
    assert cfg.opponent_weights["random"] == 0.4  # the file's other weights are kept
    assert cfg.eval_deterministic is False


def test_override_without_equals_sign_is_rejected() -> None:
    with pytest.raises(TrainConfigError, match="key=value"):
        load_config(None, ["total_timesteps"])


def test_every_config_key_is_documented() -> None:
    docs = field_docs()
    assert set(config_keys()) <= set(docs)
    assert all(docs[k].strip() for k in config_keys())


def test_cli_bad_key_exits_with_a_clear_message(capsys: pytest.CaptureFixture[str]) -> None:
    from zavandor_env.cli import main

    assert main(["train", "--set", "bogus_key=1"]) == 2
    assert "bogus_key" in capsys.readouterr().err


def test_configs_readme_lists_the_current_schema() -> None:
    from zavandor_env.train.config import schema_markdown

    assert schema_markdown() in (CONFIGS / "README.md").read_text(), (
        "configs/README.md is stale: regenerate its table with `python -m zavandor_env.train.config`")
