"""Malformed expert-iteration checkpoints (train/exit/checkpoint.py): every field of
``state.json``, every array of ``replay.npz`` and Adam's state are checked when the checkpoint
is read, and a broken one is one line worded as every backend's (``checkpoint step_<N> is
broken: ...``), never a ``TypeError``/``OverflowError``/``IndexError`` traceback, nor a crash
after a generation of self-play."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zavandor_env.engine import native_available

pytestmark = pytest.mark.skipif(not native_available(), reason="exit plays on the native core")


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-generation exit run (the stand-in search of test_exit): checkpoints of
    generation 0 and 1 (its window holds generation 1's decisions)."""
    from tests.train.test_exit import PriorSearch, _cli, _run_dir, _write
    from zavandor_env.train.exit import selfplay as exit_mod

    monkeypatch.setattr(exit_mod, "make_search",
                        lambda policy, params: PriorSearch(policy, **params))
    assert _cli("--config", str(_write(tmp_path, exit_generations=1, exit_eval_every=1))) == 0
    return _run_dir(tmp_path)


def _newest(run: Path) -> Path:
    return run / "checkpoints" / (run / "checkpoints" / "LATEST").read_text().strip()


def _edit_state(run: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = _newest(run) / "state.json"
    state = json.loads(path.read_text())
    change(state)
    path.write_text(json.dumps(state))


def _edit_replay(run: Path, change: Callable[[dict[str, np.ndarray]], None]) -> None:
    path = _newest(run) / "replay.npz"
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    change(arrays)
    np.savez(path, **arrays)  # type: ignore[arg-type]


def _broken(run: Path) -> str:
    """The one line the newest checkpoint is refused with."""
    from zavandor_env.train.common.checkpointing import CheckpointError, read_checkpoint
    from zavandor_env.train.exit.checkpoint import read_replay_checked

    newest = _newest(run)
    with pytest.raises(CheckpointError) as info:
        read_replay_checked(read_checkpoint(newest, run / "pool"))
    message = str(info.value)
    assert message.startswith(f"checkpoint {newest.name} is broken: ") and "\n" not in message
    return message


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = state
        for key in parents:
            target = target[key]
        target[last] = value
    return change


@pytest.mark.parametrize("path, value, words", [
    ("eval", [1], "eval must map opponent specs"),                      # was a TypeError
    ("eval", {"random": [1]}, "eval must map opponent specs"),
    ("eval.random.wins", "3", "eval 'random': wins must be int"),
    ("eval.random.winrate", None, "eval 'random': winrate must be float"),
    ("rng.state.state", 2**200, "rng must be the state of NumPy's PCG64"),  # OverflowError
    ("rng.state.inc", -1, "rng must be the state"),
    ("rng.bit_generator", "MT19937", "rng must be the state"),
    ("rng", "seed", "rng must be the state"),
    ("generation", "1", "generation must be the checkpoint's step"),
    ("replay_generations", [1, 1], "replay_generations must be increasing"),
    ("replay_generations", [7], "replay_generations must be increasing generation numbers 1..1"),
    ("replay_generations", "1", "replay_generations"),
    ("totals.games", 1.5, "totals 'games' must be an integer"),
    ("totals.selfplay_seconds", -1, "totals 'selfplay_seconds'"),
    ("totals.stolen", 1, "totals must hold only"),
    ("elapsed_minutes", "1", "elapsed_minutes must be a finite number"),
])
def test_a_malformed_state_field_is_one_broken_checkpoint_line(
        run: Path, path: str, value: Any, words: str) -> None:
    _edit_state(run, _set(path, value))
    assert words in _broken(run)


@pytest.mark.parametrize("field, array, words", [
    ("value", np.float32(0.5), "generation 1's value has shape ()"),      # was an IndexError
    ("value", None, "generation 1's value has shape"),  # 2-D: passed, crashed a generation on
    ("obs", None, "generation 1's obs has shape"),
    ("mask", "float", "generation 1 has arrays of the wrong type"),
])
def test_a_malformed_replay_array_is_one_broken_checkpoint_line(
        run: Path, field: str, array: Any, words: str) -> None:
    def change(arrays: dict[str, np.ndarray]) -> None:
        key = f"g1.{field}"
        if array is None:  # the right rows, a column too many
            arrays[key] = np.stack([arrays[key], arrays[key]], axis=1)
        elif array == "float":
            arrays[key] = arrays[key].astype(np.float32)
        else:
            arrays[key] = np.asarray(array)
    _edit_replay(run, change)
    assert f"replay.npz: {words}" in _broken(run)


def test_a_resume_skips_the_broken_checkpoint_with_one_warning_line(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.train.test_exit import _cli

    _edit_replay(run, lambda a: a.__setitem__("g1.value", np.stack([a["g1.value"]] * 2, 1)))
    assert _cli("--resume", str(run), "--set", "exit_generations=2") == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "broken" in line]
    assert len(warnings) == 1 and "value has shape" in warnings[0]
    assert "resuming from step_000000000 instead" in warnings[0]


def _edit_optimizer(run: Path, change: Callable[[dict[str, Any]], None]) -> None:
    import torch

    path = _newest(run) / "model.zip"
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    state = torch.load(io.BytesIO(entries["policy.optimizer.pth"]), weights_only=True)
    change(state)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    entries["policy.optimizer.pth"] = buffer.getvalue()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("change, words", [
    (lambda s: s["state"][0].__setitem__("exp_avg", s["state"][0]["exp_avg"][:1]),
     "exp_avg does not fit the network"),  # passed torch's check, failed after a generation
    (lambda s: s["state"][0]["exp_avg_sq"].fill_(-1.0), "exp_avg_sq holds negative values"),
    (lambda s: s["state"][0].__setitem__("step", s["state"][0]["step"].repeat(3)),
     "step must be a count"),
    (lambda s: s["state"].__setitem__(99, s["state"][0]), "state does not fit the network"),
])
def test_an_adam_state_that_does_not_fit_is_a_broken_checkpoint(
        run: Path, change: Callable[[dict[str, Any]], None], words: str) -> None:
    _edit_optimizer(run, change)
    assert f"model.zip: the optimizer's {words}" in _broken(run)


def test_a_resume_never_plays_a_generation_on_a_broken_adam_state(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.train.test_exit import _cli

    _edit_optimizer(run, lambda s: s["state"][0].__setitem__("exp_avg", s["state"][0][
        "exp_avg"][:1]))
    assert _cli("--resume", str(run), "--set", "exit_generations=2") == 0
    err = capsys.readouterr().err
    assert "exp_avg does not fit the network; resuming from step_000000000 instead" in err


def test_adams_settings_come_from_the_config_not_the_file(run: Path) -> None:
    import torch

    from tests.train.test_exit import _cli

    def poison(state: dict[str, Any]) -> None:
        state["param_groups"][0].update(betas=(5.0, -1.0), eps=-1.0, weight_decay=1e9)
    _edit_optimizer(run, poison)
    assert _cli("--resume", str(run), "--set", "exit_generations=2") == 0
    with zipfile.ZipFile(_newest(run) / "model.zip") as archive:
        saved = torch.load(io.BytesIO(archive.read("policy.optimizer.pth")), weights_only=True)
    group = saved["param_groups"][0]
    assert tuple(group["betas"]) == (0.9, 0.999) and group["eps"] > 0
    assert group["weight_decay"] == 0
