"""Weights-only policy files: round trip, clear errors, and agreement with the SB3 policy."""

from __future__ import annotations

import base64
import itertools
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from zavandor_env.agents.policy_file import NumpyPolicy, PolicyFileError, load_policy, save_policy
from zavandor_env.train.ppo.export import main, policy_from_sb3, policy_from_sb3_zip


def small_policy(obs_dim: int = 7, actions: int = 5, seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    sizes = [obs_dim, 6, 4, actions]
    weights = [rng.normal(size=(o, i)).astype(np.float32) for i, o in itertools.pairwise(sizes)]
    biases = [rng.normal(size=o).astype(np.float32) for o in sizes[1:]]
    return NumpyPolicy(weights, biases, "relu", {"step": 3})


def test_saved_policy_loads_back_identical(tmp_path: Path) -> None:
    policy = small_policy()
    path = save_policy(policy, tmp_path / "p.npz")
    loaded = load_policy(path, obs_dim=7, num_actions=5)
    obs = np.linspace(-1, 1, 7, dtype=np.float32)
    assert np.array_equal(policy.logits(obs), loaded.logits(obs))
    assert loaded.activation == "relu" and loaded.info == {"step": 3}


def test_file_holds_no_pickled_objects(tmp_path: Path) -> None:
    path = save_policy(small_policy(), tmp_path / "p.npz")
    with np.load(path, allow_pickle=False) as data:  # would raise on an object array
        assert all(data[k].dtype != object for k in data.files)


def test_action_is_always_legal_under_the_mask() -> None:
    policy = small_policy()
    rng = np.random.default_rng(1)
    for _ in range(200):
        obs = rng.normal(size=7).astype(np.float32)
        mask = rng.integers(0, 2, size=5)
        mask[rng.integers(5)] = 1
        assert mask[policy.act(obs, mask, rng)] == 1
        assert mask[policy.act(obs, mask, deterministic=True)] == 1


def test_wrong_observation_size_is_a_clear_error(tmp_path: Path) -> None:
    path = save_policy(small_policy(), tmp_path / "p.npz")
    with pytest.raises(PolicyFileError, match="size 7"):
        load_policy(path, obs_dim=8)


@pytest.mark.parametrize("content", [b"", b"not a zip file", b"PK\x03\x04garbage"])
def test_corrupt_file_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(PolicyFileError, match="bad.npz"):
        load_policy(path)


def test_foreign_npz_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "other.npz"
    np.savez(path, a=np.zeros(3))
    with pytest.raises(PolicyFileError, match="__meta__"):
        load_policy(path)


def test_numpy_forward_matches_maskable_ppo_predict_on_game_observations() -> None:
    from sb3_contrib import MaskablePPO
    from torch import nn

    from zavandor_env.envs import SingleAgentEnv

    env = SingleAgentEnv(num_players=2)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16, 16], "activation_fn": nn.ReLU})
    policy = policy_from_sb3(model)
    assert policy.activation == "relu"
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=3)
    for _ in range(60):
        mask = env.action_masks()
        expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert policy.act(obs, mask, deterministic=True) == int(expected)
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            obs, _ = env.reset()


# ---- a saved .zip to .npz without unpickling -------------------------------------------------
def _saved_model(tmp_path: Path, activation: str) -> tuple[object, Path]:
    from sb3_contrib import MaskablePPO
    from torch import nn

    from zavandor_env.envs import SingleAgentEnv

    kwargs: dict = {"net_arch": [16, 8]}
    if activation == "relu":
        kwargs["activation_fn"] = nn.ReLU  # tanh: SB3's default, no activation_fn recorded
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(num_players=2), seed=0, device="cpu",
                        n_steps=16, batch_size=16, policy_kwargs=kwargs)
    path = tmp_path / "model.zip"
    model.save(path)
    return model, path


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_zip_export_equals_the_in_memory_export(tmp_path: Path, activation: str) -> None:
    pytest.importorskip("sb3_contrib")
    model, path = _saved_model(tmp_path, activation)
    expected = policy_from_sb3(model)
    got = policy_from_sb3_zip(path)
    assert got.activation == expected.activation == activation
    for a, b in zip(got.weights + got.biases, expected.weights + expected.biases):
        assert a.dtype == np.float32 and np.array_equal(a, b)


def test_zip_export_never_decodes_the_pickled_entries(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    _, path = _saved_model(tmp_path, "tanh")
    marker = tmp_path / "pwned"
    # Real weights; every pickled entry of ``data`` replaced by one that creates ``marker``.
    payload = base64.b64encode(pickle.dumps(_TouchOnUnpickle(marker))).decode()
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(evil, "w") as dst:
        data = json.loads(src.read("data"))
        for value in data.values():
            if isinstance(value, dict) and ":serialized:" in value:
                value[":serialized:"] = payload
        dst.writestr("data", json.dumps(data))
        dst.writestr("policy.pth", src.read("policy.pth"))
    policy = policy_from_sb3_zip(evil)
    assert policy.obs_dim > 0 and not marker.exists()
    pickle.loads(base64.b64decode(payload))  # the control: the payload is live
    assert marker.exists()


class _TouchOnUnpickle:
    """Unpickling this creates ``marker``: stands in for arbitrary code in a crafted file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize("content", [b"", b"not a zip", None])
def test_zip_export_of_a_non_checkpoint_is_a_clear_error(
    tmp_path: Path, content: bytes | None
) -> None:
    path = tmp_path / "bad.zip"
    if content is None:
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("data", "{}")  # no policy.pth
    else:
        path.write_bytes(content)
    with pytest.raises(PolicyFileError, match="bad.zip"):
        policy_from_sb3_zip(path)


def test_export_command_writes_a_playable_npz(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    pytest.importorskip("sb3_contrib")
    from zavandor_env.agents import PolicyAgent
    from zavandor_env.agents.base import RandomAgent
    from zavandor_env.eval.match import play_game

    _, path = _saved_model(tmp_path, "relu")
    assert main([str(path)]) == 0
    out = Path(capsys.readouterr().out.strip())
    assert out == tmp_path / "model.npz"
    result = play_game([PolicyAgent(out, seed=0), RandomAgent(seed=1)], seed=3)
    assert result.decisions > 0
    assert main([str(tmp_path / "missing.zip")]) == 1
    assert "missing.zip" in capsys.readouterr().err


# ---- the project's PPO keeps SB3's layout -----------------------------------------------------
@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_a_maskable_ppo_checkpoint_loads_into_the_projects_ppo_output_for_output(
    tmp_path: Path, activation: str,
) -> None:
    """A run checkpointed by the former MaskablePPO trainer resumes on MaskedPPO: the same
    parameter names and order (weights and Adam moments load as they are), the same logits
    and values; and MaskedPPO's own model.zip converts without unpickling."""
    import torch

    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS
    from zavandor_env.train.common.checkpointing import read_params
    from zavandor_env.train.ppo.algorithm import MaskedPPO

    sb3_model, path = _saved_model(tmp_path, activation)
    ours = MaskedPPO(OBS_SIZE, NUM_ACTIONS, [16, 8], activation, 3e-4, seed=1)
    assert list(ours.policy.state_dict()) == list(sb3_model.policy.state_dict())
    ours.set_parameters(read_params(tmp_path))
    obs = torch.randn(5, OBS_SIZE)
    with torch.no_grad():
        features = sb3_model.policy.extract_features(obs, sb3_model.policy.pi_features_extractor)
        latent_pi, latent_vf = sb3_model.policy.mlp_extractor(features)
        assert torch.equal(ours.policy.logits(obs), sb3_model.policy.action_net(latent_pi))
        assert torch.equal(ours.policy.values(obs),
                           sb3_model.policy.value_net(latent_vf).squeeze(-1))
    ours.save(tmp_path / "ours.zip")
    converted = policy_from_sb3_zip(tmp_path / "ours.zip")
    assert converted.activation == activation
    for a, b in zip(converted.weights, policy_from_sb3(sb3_model).weights):
        np.testing.assert_array_equal(a, b)
