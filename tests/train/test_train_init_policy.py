"""``init_policy``: a new run starts from a weights-only policy file; a resume does not."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zavandor_env.agents.policy_file import NumpyPolicy, load_policy, save_policy
from zavandor_env.envs.single_agent import SingleAgentEnv
from zavandor_env.train.config import TrainConfig, TrainConfigError, load_config
from zavandor_env.train.ppo.export import policy_from_sb3, policy_into_sb3
from zavandor_env.train.ppo.selfplay import latest_checkpoint, make_model, train

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
#: One rollout of 2 envs x 64 decisions, one checkpoint, no evaluation: seconds on 2 cores.
TINY = ["progress_bar=false", "n_steps=64", "batch_size=64", "total_timesteps=128",
        "checkpoint_every=128", "snapshot_every=128", "eval_every=0", "eval_games=0",
        "game.max_decisions=300", "opponent_weights={random: 1.0}", "net_arch=[16, 16]"]


def build_env(cfg: TrainConfig) -> SingleAgentEnv:
    """The config's ``SingleAgentEnv``: its rule options and reward settings, by name."""
    return SingleAgentEnv(num_players=cfg.num_players, **cfg.env_options())


def tiny_config(runs: Path, *extra: str) -> TrainConfig:
    return load_config(CONFIGS / "quick.yaml", [f"runs_dir={runs}", *TINY, *extra])


def exported(path: Path, seed: int, *extra: str, critic: bool = True) -> tuple[Path, Any]:
    """A fresh model (seed ``seed``) of the tiny config, saved as a policy file."""
    cfg = tiny_config(path.parent, *extra)
    model = make_model(cfg, build_env(cfg), seed=seed)
    policy = policy_from_sb3(model, {"seed": seed})
    if not critic:
        policy.value_weights = policy.value_biases = None
    return save_policy(policy, path), model


def same_weights(a: NumpyPolicy, b: NumpyPolicy, critic: bool = True) -> bool:
    pairs = list(zip(a.weights + a.biases, b.weights + b.biases))
    if critic:
        assert a.has_value and b.has_value
        pairs += zip((a.value_weights or []) + (a.value_biases or []),
                     (b.value_weights or []) + (b.value_biases or []))
    return len(a.weights) == len(b.weights) and all(np.array_equal(x, y) for x, y in pairs)


def outputs(model: Any, obs: np.ndarray) -> tuple[Any, Any]:
    """Raw action logits and value estimates of a model for a batch."""
    import torch

    with torch.no_grad():
        x = torch.as_tensor(obs)
        return model.policy.logits(x), model.policy.values(x)


def observations(cfg: TrainConfig) -> np.ndarray:
    """A few real observations (game starts) and a few random ones."""
    env = build_env(cfg)
    real = [env.reset(seed=s)[0] for s in range(3)]
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(3, real[0].shape[0])).astype(np.float32)
    return np.concatenate([np.stack(real).astype(np.float32), noise])


def run_dirs(runs: Path) -> list[Path]:
    return sorted(runs.iterdir()) if runs.exists() else []


def capture_learn_starts(mp: pytest.MonkeyPatch) -> list[NumpyPolicy]:
    """The model's weights each time ``learn`` starts, i.e. before any training step."""
    from zavandor_env.train.ppo import selfplay

    real = selfplay.learn
    seen: list[NumpyPolicy] = []

    def learn(model: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(policy_from_sb3(model))
        return real(model, *args, **kwargs)

    mp.setattr(selfplay, "learn", learn)
    return seen


# ---- the copy ---------------------------------------------------------------------------------
@pytest.mark.parametrize("critic", [True, False])
def test_round_trip_gives_identical_logits_and_values(tmp_path: Path, critic: bool) -> None:
    path, original = exported(tmp_path / "p.npz", seed=3, critic=critic)
    cfg = tiny_config(tmp_path)
    obs = observations(cfg)
    fresh = make_model(cfg, build_env(cfg), seed=4)
    logits0, value0 = outputs(fresh, obs)
    want_logits, want_value = outputs(original, obs)
    assert not np.array_equal(logits0.numpy(), want_logits.numpy())  # seeds 3 and 4 differ

    policy_into_sb3(fresh, load_policy(path))
    logits, value = outputs(fresh, obs)
    assert np.array_equal(logits.numpy(), want_logits.numpy())
    if critic:
        assert np.array_equal(value.numpy(), want_value.numpy())
    else:  # no critic in the file: the model keeps its own
        assert np.array_equal(value.numpy(), value0.numpy())
        assert not np.array_equal(value.numpy(), want_value.numpy())


# ---- a run that starts from the file ----------------------------------------------------------
@pytest.fixture(scope="module")
def warm_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Any]]:
    """A tiny run with init_policy: (run folder, the file, the weights when learn started)."""
    base = tmp_path_factory.mktemp("warm")
    path, _ = exported(base / "init.npz", seed=7)
    with pytest.MonkeyPatch.context() as mp:
        seen = capture_learn_starts(mp)
        run_dir = train(tiny_config(base / "runs", f"init_policy={path}"))
    assert len(seen) == 1
    yield run_dir, path, seen[0]


@pytest.mark.slow
def test_a_run_with_init_policy_starts_from_the_file_and_trains(
    warm_run: tuple[Path, Path, Any],
) -> None:
    run_dir, path, at_start = warm_run
    init = load_policy(path)
    assert same_weights(at_start, init)  # actor and critic, before the first update
    checkpoint = latest_checkpoint(run_dir)
    assert checkpoint is not None
    assert json.loads((checkpoint / "state.json").read_text())["step"] == 128
    assert not same_weights(load_policy(run_dir / "policy.npz"), init)  # and it trained
    assert f"init_policy: {path}" in (run_dir / "config.yaml").read_text()


@pytest.mark.slow
def test_the_init_line_is_charted(warm_run: tuple[Path, Path, Any]) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir, path, _ = warm_run
    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    tags = acc.Tags()["tensors"]
    tag = next(t for t in tags if t.startswith("init_policy"))
    text = acc.Tensors(tag)[0].tensor_proto.string_val[0].decode()
    assert text == f"initialised from {path}"


@pytest.mark.slow
def test_resume_continues_from_the_checkpoint_not_the_file(
    warm_run: tuple[Path, Path, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_dir, path, _ = warm_run
    copy = shutil.copytree(run_dir, tmp_path / run_dir.name)
    saved = load_policy(copy / "policy.npz")  # the weights of the newest checkpoint
    # The file the run's config names now holds other weights (of the same shapes).
    other, _ = exported(tmp_path / "other.npz", seed=8)
    config = copy / "config.yaml"
    config.write_text(config.read_text().replace(str(path), str(other)))
    assert f"init_policy: {other}" in config.read_text()
    starts = capture_learn_starts(monkeypatch)
    train(resume=copy, overrides=["total_timesteps=192", "progress_bar=false"])
    assert len(starts) == 1
    assert same_weights(starts[0], saved)
    assert not same_weights(starts[0], load_policy(other))
    checkpoint = latest_checkpoint(copy)
    assert checkpoint is not None
    assert json.loads((checkpoint / "state.json").read_text())["step"] == 256


# ---- refusals, before any run folder ----------------------------------------------------------
def refused(tmp_path: Path, *overrides: str) -> str:
    """The one-line error of a new run; also checks that no run folder was left behind."""
    runs = tmp_path / "runs"
    with pytest.raises(TrainConfigError) as info:
        train(tiny_config(runs, *overrides))
    message = str(info.value)
    assert "\n" not in message and message.startswith("config key 'init_policy': ")
    assert run_dirs(runs) == []
    return message


@pytest.mark.parametrize(("extra", "expected"), [
    (["net_arch=[32, 32]"], r"actor layer hidden\.0 has weight shape \(16, \d+\), the model "
                            r"\(32, \d+\)"),
    (["net_arch=[16, 32]"], r"actor layer hidden\.1 has weight shape \(16, 16\), the model "
                            r"\(32, 16\)"),
    (["net_arch=[16, 16, 16]"], r"the actor has 2 hidden layer\(s\) \[16, 16\], the model 3 "
                                r"\[16, 16, 16\]"),
    (["activation=relu"], r"uses activation 'tanh', the model 'relu'"),
])
def test_a_policy_of_another_shape_is_refused_naming_the_layer(
    tmp_path: Path, extra: list[str], expected: str,
) -> None:
    path, _ = exported(tmp_path / "p.npz", seed=3)
    message = refused(tmp_path, f"init_policy={path}", *extra)
    assert str(path) in message
    assert re.search(expected, message), message


def test_sizes_of_another_environment_are_refused_naming_the_layer(tmp_path: Path) -> None:
    path, _ = exported(tmp_path / "p.npz", seed=3)
    policy = load_policy(path)
    obs_dim = policy.obs_dim
    policy.weights[0] = policy.weights[0][:, :-1]  # one observation feature fewer
    policy.value_weights = policy.value_biases = None
    save_policy(policy, tmp_path / "small_obs.npz")
    assert (f"actor layer hidden.0 has weight shape (16, {obs_dim - 1}), the model "
            f"(16, {obs_dim})") in refused(tmp_path, f"init_policy={tmp_path / 'small_obs.npz'}")
    policy = load_policy(path)
    actions = policy.num_actions
    policy.weights[-1], policy.biases[-1] = policy.weights[-1][:-1], policy.biases[-1][:-1]
    save_policy(policy, tmp_path / "few_actions.npz")
    assert (f"actor layer action has weight shape ({actions - 1}, 16), the model "
            f"({actions}, 16)") in refused(tmp_path, f"init_policy={tmp_path / 'few_actions.npz'}")


def test_a_critic_of_another_shape_is_refused(tmp_path: Path) -> None:
    path, _ = exported(tmp_path / "p.npz", seed=3)
    policy = load_policy(path)
    other, _ = exported(tmp_path / "wide.npz", 3, "net_arch=[16, 32]")
    policy.value_weights, policy.value_biases = (load_policy(other).value_weights,
                                                 load_policy(other).value_biases)
    save_policy(policy, tmp_path / "mixed.npz")
    assert "critic layer value_hidden.1 has weight shape (32, 16), the model (16, 16)" in refused(
        tmp_path, f"init_policy={tmp_path / 'mixed.npz'}")


def test_another_observation_layout_is_refused(tmp_path: Path) -> None:
    path, _ = exported(tmp_path / "p.npz", seed=3)
    save_policy(load_policy(path), tmp_path / "old.npz", fingerprint="0" * 16)
    assert "observation layout 0000000000000000" in refused(
        tmp_path, f"init_policy={tmp_path / 'old.npz'}")


def test_a_missing_or_unreadable_file_is_refused(tmp_path: Path) -> None:
    assert "does not exist" in refused(tmp_path, f"init_policy={tmp_path / 'missing.npz'}")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    assert "not a readable .npz" in refused(tmp_path, f"init_policy={tmp_path / 'junk.npz'}")


def test_the_cli_reports_a_missing_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from zavandor_env.cli import main

    runs = tmp_path / "runs"
    code = main(["train", "--quiet", "--set", f"runs_dir={runs}",
                 "--set", f"init_policy={tmp_path / 'missing.npz'}"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().count("\n") == 0 and "init_policy" in err and "does not exist" in err
    assert run_dirs(runs) == []


@pytest.mark.parametrize(("overrides", "expected"), [
    (["init_policy=''"], "must be a path"),
    (["init_policy=5"], "must be a string"),
    (["backend=rllib", "init_policy=x.npz"], "trainer rllib"),
])
def test_bad_values_are_config_errors(overrides: list[str], expected: str) -> None:
    with pytest.raises(TrainConfigError, match=f"'init_policy'.*{expected}"):
        load_config(None, overrides)


def test_a_relative_path_is_taken_from_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zavandor_env.train.common.init_policy import read_init_policy

    exported(tmp_path / "p.npz", seed=3)
    monkeypatch.chdir(tmp_path)
    found, policy = read_init_policy(tiny_config(tmp_path, "init_policy=p.npz"))
    assert found == Path("p.npz") and policy.info == {"seed": 3}
