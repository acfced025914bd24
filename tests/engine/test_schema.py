"""The one config schema (engine.schema): game, training and agent parameters are checked by
pydantic and fail with one line naming the key; they stay ordinary dataclasses to read."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

from zavandor_env.agents.heuristic import HeuristicWeights
from zavandor_env.agents.planner import PlannerParams
from zavandor_env.engine import ConfigError, GameConfig
from zavandor_env.train.config import TrainConfig, TrainConfigError, schema_markdown
from zavandor_env.train.ppo.config import PPOConfig

SCHEMAS = [GameConfig, TrainConfig, HeuristicWeights, PlannerParams]


@pytest.mark.parametrize("cls", SCHEMAS, ids=lambda c: c.__name__)
def test_dataclass_fields_hold_plain_defaults(cls: type) -> None:
    # Readers such as the C++ header generator take defaults from dataclasses.fields.
    made = cls()
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING \
            else f.default
        assert default == getattr(made, f.name), f.name


@pytest.mark.parametrize("cls, error, key", [
    (GameConfig, ConfigError, "max_rounds"),
    (PPOConfig, TrainConfigError, "n_envs"),
    (HeuristicWeights, ValueError, "vp_energy"),
    (PlannerParams, ValueError, "sentinel_bid_factor"),
])
@pytest.mark.parametrize("value", ["three", True, None, float("nan"), [1]])
def test_a_wrong_type_is_one_line_naming_the_key(cls: type, error: type[Exception], key: str,
                                                 value: Any) -> None:
    with pytest.raises(error, match=key) as info:
        cls(**{key: value})
    assert "\n" not in str(info.value)


def test_an_unknown_key_is_reported_before_a_bad_value_with_the_closest_name() -> None:
    with pytest.raises(ConfigError, match=r"unknown game config key 'max_round' \(did you "
                                          r"mean 'max_rounds'\?\)"):
        GameConfig(max_round=3, num_players=9)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="unknown heuristic weight 'vp_energie'"):
        HeuristicWeights(vp_energie=1.0)  # type: ignore[call-arg]


def test_bounds_are_reported_in_the_old_words() -> None:
    with pytest.raises(TrainConfigError, match=r"^config key 'ppo.n_envs' must be >= 1, got 0$"):
        PPOConfig(n_envs=0)
    with pytest.raises(ConfigError, match=r"^allow_overbid must be true or false, got 1$"):
        GameConfig(allow_overbid=1)  # type: ignore[arg-type]


def test_game_config_stays_frozen_hashable_picklable_and_replace_rechecks() -> None:
    config = GameConfig(num_players=3, characters=["mage", "elf", "witch"])  # type: ignore[arg-type]
    assert pickle.loads(pickle.dumps(config)) == config
    assert hash(dataclasses.replace(config)) == hash(config)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.max_rounds = 3  # type: ignore[misc]
    with pytest.raises(ConfigError, match="characters must name one character per player"):
        dataclasses.replace(config, num_players=4)


def test_training_numbers_written_as_text_are_read_and_whole_floats_are_integers() -> None:
    cfg = PPOConfig(total_timesteps="1e5", learning_rate="3e-4",  # type: ignore[arg-type]
                    n_steps=512.0)  # type: ignore[arg-type]
    assert cfg.total_timesteps == 100_000 and type(cfg.total_timesteps) is int
    assert cfg.learning_rate == 3e-4 and type(cfg.n_steps) is int
    with pytest.raises(TrainConfigError, match="'ppo.n_steps' must be an integer"):
        PPOConfig(n_steps=2.5)  # type: ignore[arg-type]
    with pytest.raises(TrainConfigError, match="'ppo.n_envs' must be an integer"):
        PPOConfig(n_envs=True)


def test_agent_parameters_from_files_take_whole_numbers_written_otherwise() -> None:
    weights = HeuristicWeights.from_mapping({"expected_rounds": {"3": 12.0}})
    assert weights.expected_rounds == {3: 12}
    with pytest.raises(ValueError, match="expected_rounds"):
        HeuristicWeights.from_mapping({"expected_rounds": {3: 12.5}})


def test_the_readme_table_shows_each_keys_type_and_bounds() -> None:
    table = schema_markdown()
    assert "| `ppo.gamma` | number > 0, <= 1 | `1.0` |" in table
    assert "| `ppo.n_envs` | integer >= 1, <= 4096 | `2` |" in table  # the ceiling (io.limits)
    assert "| `trainer` | one of `ppo`, `exit`, `rllib` | `\"ppo\"` |" in table
    assert "| `max_minutes` | number > 0 or null | `null` |" in table
