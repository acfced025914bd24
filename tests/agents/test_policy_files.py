"""Policy files are safe to load: fingerprinted .npz by default, pickled .zip only on opt-in."""

from __future__ import annotations

import json
import pickle
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.hostile import TouchOnUnpickle, crafted_sb3_zip
from zavandor_env.agents.policy import PickleLoadWarning, PolicyAgent, PolicyLoadError
from zavandor_env.agents.policy_file import (
    FINGERPRINT_KEY,
    NumpyPolicy,
    PolicyFileError,
    load_policy,
    save_policy,
)
from zavandor_env.agents.registry import make_agent, parse_spec
from zavandor_env.encoding.observation import OBS_FINGERPRINT, OBS_SIZE
from zavandor_env.engine.actions import NUM_ACTIONS


def tiny_policy(obs_dim: int = OBS_SIZE, actions: int = NUM_ACTIONS) -> NumpyPolicy:
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(8, obs_dim)).astype(np.float32),
               rng.normal(size=(actions, 8)).astype(np.float32)]
    biases = [np.zeros(8, np.float32), np.zeros(actions, np.float32)]
    return NumpyPolicy(weights, biases, "tanh", {"step": 1})


def _meta(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["__meta__"]))


def _rewrite_meta(path: Path, **changes: object) -> None:
    """Rewrite a saved file's metadata (``None`` deletes a key), keeping the arrays."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["__meta__"]))
    for key, value in changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    arrays["__meta__"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)  # type: ignore[arg-type]


# ---- the layout fingerprint in .npz files ----------------------------------------------------
def test_saved_policy_records_the_observation_fingerprint(tmp_path: Path) -> None:
    path = save_policy(tiny_policy(), tmp_path / "p.npz")
    assert _meta(path)[FINGERPRINT_KEY] == OBS_FINGERPRINT
    assert load_policy(path).fingerprint == OBS_FINGERPRINT


def test_policy_of_another_observation_layout_is_refused_naming_both_fingerprints(
    tmp_path: Path,
) -> None:
    path = save_policy(tiny_policy(), tmp_path / "p.npz", fingerprint="0123456789abcdef")
    with pytest.raises(PolicyFileError) as info:
        load_policy(path, obs_dim=OBS_SIZE, num_actions=NUM_ACTIONS)
    message = str(info.value)
    assert "0123456789abcdef" in message and OBS_FINGERPRINT in message
    assert "p.npz" in message and "\n" not in message
    with pytest.raises(PolicyLoadError, match="0123456789abcdef"):
        PolicyAgent(path)


def test_fingerprint_check_can_be_skipped_explicitly(tmp_path: Path) -> None:
    path = save_policy(tiny_policy(), tmp_path / "p.npz", fingerprint="0123456789abcdef")
    assert load_policy(path, fingerprint=None).fingerprint == "0123456789abcdef"


def test_resaving_a_loaded_policy_keeps_its_fingerprint(tmp_path: Path) -> None:
    first = save_policy(tiny_policy(), tmp_path / "a.npz", fingerprint="0123456789abcdef")
    again = save_policy(load_policy(first, fingerprint=None), tmp_path / "b.npz")
    assert _meta(again)[FINGERPRINT_KEY] == "0123456789abcdef"


def test_file_without_a_fingerprint_still_loads_when_its_sizes_fit(tmp_path: Path) -> None:
    path = save_policy(tiny_policy(), tmp_path / "old.npz")
    _rewrite_meta(path, **{FINGERPRINT_KEY: None})
    policy = load_policy(path, obs_dim=OBS_SIZE, num_actions=NUM_ACTIONS)
    assert policy.fingerprint is None
    PolicyAgent(path)  # the agent accepts it too


def test_file_without_a_fingerprint_is_still_refused_when_its_sizes_do_not_fit(
    tmp_path: Path,
) -> None:
    path = save_policy(tiny_policy(obs_dim=OBS_SIZE + 1), tmp_path / "old.npz")
    _rewrite_meta(path, **{FINGERPRINT_KEY: None})
    with pytest.raises(PolicyFileError, match="observations of size"):
        load_policy(path, obs_dim=OBS_SIZE, num_actions=NUM_ACTIONS)


def test_a_non_string_fingerprint_is_a_clear_error(tmp_path: Path) -> None:
    path = save_policy(tiny_policy(), tmp_path / "p.npz")
    _rewrite_meta(path, **{FINGERPRINT_KEY: 42})
    with pytest.raises(PolicyFileError, match="must be a string"):
        load_policy(path)


# ---- nothing in a file runs on load ----------------------------------------------------------
def test_npz_with_a_pickled_array_is_refused_without_unpickling(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = save_policy(tiny_policy(), tmp_path / "p.npz")
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["action.bias"] = np.array([TouchOnUnpickle(marker)], dtype=object)
    np.savez(path, **arrays)  # type: ignore[arg-type]  # np.save pickles the object array
    with pytest.raises(PolicyFileError, match="not a readable .npz"):
        load_policy(path)
    with pytest.raises(PolicyLoadError):
        PolicyAgent(path)
    assert not marker.exists()


def test_crafted_zip_is_refused_by_default_and_its_payload_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = crafted_sb3_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(PolicyLoadError) as info:
        PolicyAgent(path)
    message = str(info.value)
    assert "\n" not in message and "evil.zip" in message
    assert "--trust-pickle" in message and "trust_pickle=True" in message  # CLI and Python
    assert ".npz" in message and "zavandor_env.train.ppo.export" in message
    assert not marker.exists()


def test_crafted_zip_is_refused_through_an_agent_spec_without_opt_in(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = crafted_sb3_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(PolicyLoadError, match="trust_pickle"):
        make_agent(f"policy:path={path}")
    assert not marker.exists()


def test_crafted_zip_payload_is_real_so_opting_in_warns_and_runs_it(tmp_path: Path) -> None:
    """The control for the refusal tests: with ``trust_pickle`` SB3 does unpickle it."""
    pytest.importorskip("sb3_contrib")
    marker = tmp_path / "pwned"
    path = crafted_sb3_zip(tmp_path / "evil.zip", marker)
    with pytest.warns(PickleLoadWarning, match="arbitrary code"):
        with pytest.raises(PolicyLoadError):  # the payload ran, then the "model" is unusable
            PolicyAgent(path, trust_pickle=True)
    assert marker.exists()


@pytest.mark.parametrize("spec", [
    "policy:path={zip},trust_pickle=true",
    {"agent": "policy", "params": {"path": "{zip}", "trust_pickle": True}},
])
def test_no_agent_spec_can_opt_in_to_unpickling(tmp_path: Path, spec: object) -> None:
    """A spec may come from someone's file: its trust_pickle is refused, saying how to opt in."""
    marker = tmp_path / "pwned"
    path = str(crafted_sb3_zip(tmp_path / "evil.zip", marker))
    spec = (spec.replace("{zip}", path) if isinstance(spec, str)
            else {**spec, "params": {"path": path, "trust_pickle": True}})
    for build in (parse_spec, make_agent):
        with pytest.raises(ValueError) as info:
            build(spec)  # type: ignore[operator]
        message = str(info.value)
        assert "\n" not in message and "cannot be set in an agent spec" in message
        assert "--trust-pickle" in message and "trust_pickle=True" in message
    assert not marker.exists()


def test_the_callers_consent_reaches_the_policy_agent(tmp_path: Path) -> None:
    """The control: make_agent(..., trust_pickle=True) (what --trust-pickle does) unpickles."""
    pytest.importorskip("sb3_contrib")
    marker = tmp_path / "pwned"
    path = crafted_sb3_zip(tmp_path / "evil.zip", marker)
    spec = parse_spec(f"policy:path={path}", trust_pickle=True)
    assert spec.trust_pickle and "trust_pickle" not in spec.params
    assert spec == pickle.loads(pickle.dumps(spec))  # travels to worker processes
    with pytest.warns(PickleLoadWarning), pytest.raises(PolicyLoadError):
        make_agent(f"policy:path={path}", trust_pickle=True)
    assert marker.exists()


def test_consent_is_given_only_to_agents_that_take_it() -> None:
    assert make_agent("random", trust_pickle=True).name == "random"


@pytest.mark.parametrize("value", ["yes please", 1, "true"])
def test_trust_pickle_must_be_a_real_boolean(tmp_path: Path, value: object) -> None:
    path = crafted_sb3_zip(tmp_path / "evil.zip", tmp_path / "pwned")
    with pytest.raises(PolicyLoadError, match="trust_pickle must be true or false"):
        PolicyAgent(path, trust_pickle=value)  # type: ignore[arg-type]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("flag", ["deterministic", "avoid_curse"])
def test_other_flags_must_be_real_booleans_too(flag: str) -> None:
    with pytest.raises(ValueError, match=f"{flag} must be true or false"):
        PolicyAgent("train/checkpoints/selfplay_2p/policy.npz", **{flag: "yes"})


def test_npz_policy_loads_without_a_warning(tmp_path: Path) -> None:
    path = save_policy(tiny_policy(), tmp_path / "p.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PickleLoadWarning)
        PolicyAgent(path)


def test_a_policy_in_memory_plays_as_its_file_does(tmp_path: Path) -> None:
    from zavandor_env.agents import play_game

    policy = tiny_policy()
    path = save_policy(policy, tmp_path / "p.npz")
    moves: list[tuple[int, int]] = []
    for source in (path, policy):
        agents = [PolicyAgent(source, deterministic=False), PolicyAgent(path)]
        play_game(agents, seed=5, on_decision=lambda game, seat, action: moves.append(
            (seat, action)))
    half = len(moves) // 2
    assert moves[:half] == moves[half:] and half > 10


def test_the_policy_agent_avoids_the_curse_unless_told_not_to() -> None:
    """A policy trained under the affordability filter may overbid under the rulebook's Curse
    (the former shipped 6-player policy did in every game); with ``avoid_curse`` (the
    default) it never bids what it cannot pay.  Here a network that always raises the most
    and opens every auction it can: cursed in every game without the filter, never with it."""
    from zavandor_env.agents import NaiveAgent, PolicyAgent, play_game
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    bias = np.zeros(NUM_ACTIONS, np.float32)
    bias[33:54] = 10.0  # open any auction
    bias[54:61] = np.arange(7) + 20.0  # and raise by the most
    reckless = NumpyPolicy([np.zeros((NUM_ACTIONS, OBS_SIZE), np.float32)], [bias])

    def cursed(avoid: bool, seed: int) -> bool:
        agents = [PolicyAgent(reckless, seed=seed, avoid_curse=avoid)]
        agents += [NaiveAgent(seed=seed + k) for k in range(1, 6)]
        return play_game(agents, seed=seed).outcome.eliminated[0]

    assert not any(cursed(True, seed) for seed in range(4))
    assert any(cursed(False, seed) for seed in range(4))  # the check can fail


# ---- the command line: files cannot opt in, the user's flag can -----------------------------
def _one_line_refusal(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"zavandor {command}: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("command", ["eval", "play", "scorecard"])
def test_an_agent_spec_on_the_command_line_cannot_opt_in_either(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
) -> None:
    from zavandor_env.cli import main

    marker = tmp_path / "pwned"
    spec = f"policy:path={crafted_sb3_zip(tmp_path / 'evil.zip', marker)},trust_pickle=true"
    argv = {"eval": ["eval", "--agents", spec, "random", "--games", "2"],
            "play": ["play", spec], "scorecard": ["scorecard", spec, "--games", "2"]}[command]
    assert main([*argv, "--out", str(tmp_path / "out")] if command != "play" else argv) == 2
    assert "--trust-pickle" in _one_line_refusal(capsys, command)
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_a_tournament_file_cannot_opt_in_to_unpickling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from zavandor_env.cli import main

    marker = tmp_path / "pwned"
    path = crafted_sb3_zip(tmp_path / "evil.zip", marker)
    tournament = tmp_path / "t.yaml"
    tournament.write_text(json.dumps({"agents": [
        {"agent": "policy", "params": {"path": str(path), "trust_pickle": True}}, "random"]}))
    assert main(["eval", str(tournament), "--games", "2", "--out", str(tmp_path / "out")]) == 2
    assert "cannot be set in an agent spec" in _one_line_refusal(capsys, "eval")
    assert not marker.exists()


@pytest.mark.parametrize("command", ["eval", "play"])
def test_the_trust_pickle_flag_is_the_users_consent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
) -> None:
    """The control: with --trust-pickle the .zip is unpickled (the crafted one then fails)."""
    pytest.importorskip("sb3_contrib")
    from zavandor_env.cli import main

    marker = tmp_path / "pwned"
    spec = f"policy:path={crafted_sb3_zip(tmp_path / 'evil.zip', marker)}"
    argv = (["eval", "--agents", spec, "random", "--games", "2", "--out", str(tmp_path / "o")]
            if command == "eval" else ["play", spec])
    with pytest.warns(PickleLoadWarning):
        assert main([*argv, "--trust-pickle"]) == 2  # the payload ran; no model came of it
    _one_line_refusal(capsys, command)
    assert marker.exists()


# ---- files a stranger sends: bounded before anything is decompressed -------------------------
def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def test_a_zip_bomb_is_refused_from_its_declared_sizes_fast_and_in_little_memory(
    tmp_path: Path,
) -> None:
    import time
    import tracemalloc

    from tests.hostile import npz_bomb

    valid = save_policy(tiny_policy(), tmp_path / "valid.npz")
    bomb = npz_bomb(tmp_path / "bomb.npz", valid, "action.weight", megabytes=3000)
    assert bomb.stat().st_size < 8 << 20  # a few MB that inflate to 3 GB
    with zipfile.ZipFile(bomb) as zf:  # the bomb is real: it inflates to zeros
        assert zf.getinfo("action.weight.npy").file_size > 3_000_000_000
        with zf.open("action.weight.npy") as fh:
            fh.read(128)  # the .npy header
            assert fh.read(16 << 20) == bytes(16 << 20)
    tracemalloc.start()
    began = time.perf_counter()
    try:
        with pytest.raises(PolicyFileError) as info:
            load_policy(bomb)
        elapsed = time.perf_counter() - began
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert "'action.weight'" in message and "would inflate to" in message and "\n" not in message
    assert elapsed < 1.0 and peak < 32 << 20, (elapsed, peak)


def test_an_npy_header_larger_than_its_entry_is_refused_before_reading(tmp_path: Path) -> None:
    import io
    import zlib

    from tests.hostile import write_zip

    valid = save_policy(tiny_policy(), tmp_path / "valid.npz")
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**9,)})
    with zipfile.ZipFile(valid) as zf:
        entries = [(i.filename, 0, data, len(data), zlib.crc32(data))
                   for i in zf.infolist() if i.filename != "action.bias.npy"
                   for data in [zf.read(i.filename)]]
    data = header.getvalue() + bytes(64)
    entries.append(("action.bias.npy", 0, data, len(data), zlib.crc32(data)))
    with pytest.raises(PolicyFileError, match=r"'action.bias' declares shape \(1000000000,\)"):
        load_policy(write_zip(tmp_path / "liar.npz", entries))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_weights_that_are_not_finite_are_refused_naming_the_array(
    tmp_path: Path, bad: float,
) -> None:
    path = save_policy(tiny_policy(), tmp_path / "p.npz")
    arrays = _arrays(path)
    arrays["action.bias"][3] = bad
    np.savez(path, **arrays)  # type: ignore[arg-type]
    with pytest.raises(PolicyFileError) as info:
        load_policy(path)
    assert "'action.bias'" in str(info.value) and "NaN or infinite" in str(info.value)
    with pytest.raises(PolicyLoadError, match="action.bias"):
        PolicyAgent(path)


def test_weights_of_a_non_float_dtype_are_refused(tmp_path: Path) -> None:
    path = save_policy(tiny_policy(), tmp_path / "p.npz")
    arrays = _arrays(path)
    arrays["action.bias"] = np.array(["x"] * NUM_ACTIONS)
    np.savez(path, **arrays)  # type: ignore[arg-type]
    with pytest.raises(PolicyFileError, match="'action.bias' must hold floats"):
        load_policy(path)


def test_deeply_nested_metadata_is_refused_in_one_line(tmp_path: Path) -> None:
    path = save_policy(tiny_policy(), tmp_path / "p.npz")
    arrays = _arrays(path)
    depth = 100_000
    arrays["__meta__"] = np.array('{"format": "zavandor-policy", "info": '
                                  + "[" * depth + "]" * depth + "}")
    np.savez(path, **arrays)  # type: ignore[arg-type]
    with pytest.raises(PolicyFileError) as info:
        load_policy(path)
    assert "__meta__" in str(info.value) and "nests deeper" in str(info.value)
    assert "\n" not in str(info.value)


def test_a_failed_save_leaves_the_old_file_and_no_temporary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import errno

    path = save_policy(tiny_policy(), tmp_path / "p.npz")
    before = path.read_bytes()

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", full_disk)
    with pytest.raises(OSError, match="No space left"):
        save_policy(tiny_policy(), path)
    assert [p.name for p in tmp_path.iterdir()] == ["p.npz"] and path.read_bytes() == before
