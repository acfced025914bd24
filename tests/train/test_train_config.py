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
    load_config,
)

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["quick", "selfplay_2p", "selfplay_4p"])
def test_shipped_config_loads_with_its_name(name: str) -> None:
    cfg = load_config(CONFIGS / f"{name}.yaml")
    assert cfg.name == name


#: The one key quick.yaml (``zavandor train``'s run) sets beyond the defaults: it first clones
#: the heuristic (a few seconds), so a first run already beats random play; ``TrainConfig()``
#: imitates nothing, as every other config that does not ask for it.
QUICK_BEYOND_DEFAULTS = {"imitate_decisions": 60_000}


def test_defaults_equal_quick_yaml_but_its_imitation() -> None:
    quick = dataclasses.replace(load_config(CONFIGS / "quick.yaml"), config_path="")
    assert {k: getattr(quick.ppo, k) for k in QUICK_BEYOND_DEFAULTS} == QUICK_BEYOND_DEFAULTS
    assert dataclasses.replace(quick, ppo=dataclasses.replace(
        quick.ppo, imitate_decisions=TrainConfig().ppo.imitate_decisions)) == TrainConfig()
    assert default_config_path().resolve() == (CONFIGS / "quick.yaml").resolve()


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
        ("trainer: sb3\n", "trainer"),
        ("ppo: 3\n", "ppo"),
        ("exit: {games: 0}\n", "exit.games"),
        ("ppo: {n_envs: 0}\n", "ppo.n_envs"),
        ("net_arch: [64, -1]\n", "net_arch"),
        ("opponent_weights: {rando: 1.0}\n", "opponent_weights"),
        ("opponent_weights: {random: 0}\n", "opponent_weights"),
        ("progress_bar: 3\n", "progress_bar"),
        ("batch_size: 100000\n", "batch_size"),
        ("learner_seat: 2\n", "learner_seat"),
        ("reward: winning\n", "reward"),
        ("eval_opponents: [snapshot]\n", "eval_opponents"),
        ("eval_opponents: [random, random]\n", "eval_opponents"),
    ],
)
def test_bad_value_error_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(TrainConfigError, match=f"[.']{key}'"):
        load_config(write(tmp_path, text))


def test_non_mapping_file_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(TrainConfigError, match="mapping"):
        load_config(write(tmp_path, "- 1\n- 2\n"))


def test_overrides_parse_yaml_values_and_reach_into_mappings() -> None:
    cfg = load_config(CONFIGS / "quick.yaml", [
        "total_timesteps=1e5", "net_arch=[32, 32]", "game.max_rounds=40",
        "opponent_weights.heuristic=0.5", "learner_seat=null", "eval_deterministic=false",
    ])
    assert cfg.ppo.total_timesteps == 100_000 and isinstance(cfg.ppo.total_timesteps, int)
    assert cfg.net_arch == [32, 32]
    assert cfg.game == {"allow_overbid": False, "max_rounds": 40}  # the file's entry is kept
    assert cfg.opponent_weights["heuristic"] == 0.5
    assert cfg.opponent_weights["random"] == 0.4  # the file's other weights are kept
    assert cfg.eval_deterministic is False


def test_override_without_equals_sign_is_rejected() -> None:
    with pytest.raises(TrainConfigError, match="key=value"):
        load_config(None, ["total_timesteps"])


def field_docs() -> dict[str, str]:
    """Config key -> its description (``--help``, the README), from the schema."""
    from zavandor_env.train.config import SECTIONS

    docs = {}
    for prefix, cls in [("", TrainConfig), *((f"{n}.", c) for n, c in SECTIONS.items())]:
        for name, info in vars(cls)["__pydantic_fields__"].items():
            docs[prefix + name] = info.description or ""
    return docs


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
        "configs/README.md is stale: regenerate its table with "
        "`python -m zavandor_env.codegen --only schema`")


# ---- non-finite numbers --------------------------------------------------------------------
@pytest.mark.parametrize("key", ["vp_delta", "step_reward", "truncation_reward", "learning_rate",
                                 "ent_coef", "latest_snapshot_share", "max_minutes"])
@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "nan", "1e999"])
def test_nan_or_inf_in_any_float_field_is_rejected_naming_the_key(key: str, value: str) -> None:
    with pytest.raises(TrainConfigError, match=f"[.']{key}'.*finite|[.']{key}'.*> 0"):
        load_config(None, [f"{key}={value}"])


def test_nan_opponent_weight_is_rejected() -> None:
    with pytest.raises(TrainConfigError, match="'opponent_weights'.*finite"):
        load_config(None, ["opponent_weights.random=.nan"])


# ---- game rule options are checked against GameConfig when the config is built --------------
@pytest.mark.parametrize(
    "game, words",
    [
        ({"max_rounds": -3}, ["max_rounds", "-3"]),
        ({"no_such_rule": True}, ["no_such_rule"]),
        ({"allow_overbid": "yes"}, ["allow_overbid"]),
        ({"num_players": 3}, ["num_players"]),
    ],
)
def test_bad_game_option_fails_when_the_config_is_built(game: dict, words: list[str]) -> None:
    with pytest.raises(TrainConfigError, match="'game'") as info:
        TrainConfig(game=game)
    assert all(w in str(info.value) for w in words)


# ---- typed reward fields replace env_kwargs ------------------------------------------------
def test_reward_fields_are_passed_to_the_env_by_name() -> None:
    cfg = TrainConfig(reward="rank", vp_delta=0.0, step_reward=-0.5, truncation_reward=-2.0,
                      game={"max_rounds": 7})
    assert cfg.env_options() == {"reward": "rank", "vp_delta": 0.0, "step_reward": -0.5,
                                 "truncation_reward": -2.0, "max_rounds": 7}


def test_old_env_kwargs_config_names_the_new_keys(tmp_path: Path) -> None:
    path = write(tmp_path, "env_kwargs: {reward: rank, vp_delta: 0.01, max_rounds: 9}\n")
    with pytest.raises(TrainConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    assert "reward: \"rank\", vp_delta: 0.01" in message and "max_rounds under game" in message


def test_old_heuristic_kwargs_and_env_kwargs_overrides_say_what_replaced_them(
    tmp_path: Path,
) -> None:
    with pytest.raises(TrainConfigError, match="agent specs"):
        load_config(write(tmp_path, "heuristic_kwargs: {}\n"))
    with pytest.raises(TrainConfigError, match="vp_delta: 0"):
        load_config(None, ["env_kwargs.vp_delta=0"])


# ---- opponents are agent specs -------------------------------------------------------------
def test_opponent_weights_take_any_agent_spec_with_its_parameters() -> None:
    cfg = load_config(None, ["opponent_weights={snapshot: 1, pass: 1}",
                             "opponent_weights.mcts:iterations=4=0.5",
                             "eval_opponents=[pass, 'heuristic:seed=3']"])
    assert cfg.opponent_weights == {"snapshot": 1.0, "pass": 1.0, "mcts:iterations=4": 0.5}
    assert cfg.eval_opponents == ["pass", "heuristic:seed=3"]


@pytest.mark.parametrize(
    "override, words",
    [
        ("opponent_weights={wizard: 1}", ["'opponent_weights'", "wizard", "known agents"]),
        ("opponent_weights={'mcts:depth=3': 1}", ["'opponent_weights'", "depth"]),
        ("opponent_weights={human: 1}", ["'opponent_weights'", "person"]),
        ("opponent_weights={'policy:path=/no/such.npz': 1}", ["/no/such.npz"]),
        ("eval_opponents=[wizard]", ["'eval_opponents'", "wizard"]),
    ],
)
def test_bad_agent_spec_fails_before_the_run_starts(override: str, words: list[str]) -> None:
    from zavandor_env.train.config import check_run

    with pytest.raises(TrainConfigError) as info:
        check_run(load_config(None, [override]))
    assert all(w in str(info.value) for w in words), str(info.value)


# ---- the sections and the keys of old flat configs --------------------------------------------
def test_old_flat_keys_load_into_their_sections() -> None:
    from zavandor_env.train.config import default_value, from_dict

    cfg = from_dict({"backend": "exit", "exit_games": 3, "learning_rate": 0.1, "n_envs": 4,
                     "num_env_runners": 2})
    assert cfg.trainer == "exit" and cfg.exit.games == 3 and cfg.exit.learning_rate == 0.1
    assert cfg.ppo.learning_rate == default_value("ppo.learning_rate")
    assert cfg.ppo.n_envs == 4 and cfg.rllib.num_env_runners == 2
    assert from_dict({"backend": "sb3"}).trainer == "ppo"
    assert from_dict({"learning_rate": 0.1}).ppo.learning_rate == 0.1  # the trainer's section


def test_set_takes_the_old_and_the_new_key_names() -> None:
    cfg = load_config(CONFIGS / "exit_2p.yaml", [
        "exit_games=3", "exit.iterations=8", "exit_search.rollout=heuristic",
        "exit.search.rollout_steps=50", "ppo.n_envs=4", "learning_rate=0.5"])
    assert (cfg.exit.games, cfg.exit.iterations, cfg.ppo.n_envs) == (3, 8, 4)
    assert cfg.exit.search == {"rollout": "heuristic", "rollout_steps": 50}
    assert cfg.exit.learning_rate == 0.5
    with pytest.raises(TrainConfigError, match="dotted sub-keys"):
        load_config(None, ["ppo.n_envs.x=4"])
    assert load_config(CONFIGS / "quick.yaml", ["backend=exit"]).trainer == "exit"


@pytest.mark.parametrize("folder", sorted((CONFIGS.parent / "train" / "checkpoints").iterdir()))
def test_every_shipped_checkpoint_config_loads_and_round_trips(folder: Path,
                                                              tmp_path: Path) -> None:
    cfg = load_config(folder / "config.yaml")
    again = write(tmp_path, cfg.to_yaml())
    assert load_config(again).to_dict() == cfg.to_dict()
    assert set(cfg.to_dict()) & {"ppo", "exit", "rllib"} == {
        {"ppo": "ppo", "exit": "exit"}[cfg.trainer]}  # only the section its trainer reads


def test_an_old_engine_choice_is_said_once_and_ignored(capsys: pytest.CaptureFixture[str]) -> None:
    cfg = load_config(None, ["vec_env=subproc"])
    err = capsys.readouterr().err
    assert "vec_env" in err and "ignored" in err and len(err.strip().splitlines()) == 1
    assert "vec_env" not in cfg.to_yaml()
    load_config(None, ["vec_env=auto"])  # what runs anyway: nothing to say
    assert capsys.readouterr().err == ""


def test_building_a_config_builds_no_environment_agent_or_search() -> None:
    import subprocess
    import sys

    code = ("import sys; from zavandor_env.train.config import load_config; "
            "[load_config(f'configs/{n}.yaml') for n in ('quick', 'exit_2p', 'rllib_quick')]; "
            "print(sorted(m for m in sys.modules if m.startswith(('zavandor_env.envs', "
            "'zavandor_env.agents.netsearch', 'torch', 'stable_baselines3', 'ray'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=CONFIGS.parent, check=True).stdout
    assert out.strip() == "[]"
