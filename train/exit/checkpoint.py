"""The checks of an expert-iteration checkpoint (``backend: exit``) before a resume uses it.

:func:`zavandor_env.train.common.checkpointing.read_state` checks what every backend's
``state.json`` shares (the
step, pool, rating, totals, the run's clock); an exit checkpoint holds more -- the generation,
the replay window's generations, the trainer's random generator, the last evaluation -- and a
``replay.npz`` and an Adam state whose arrays must fit the network.  A crafted or
damaged
checkpoint fails each check here in one line
(:class:`~zavandor_env.train.common.checkpointing.CheckpointError`,
worded ``checkpoint step_<N> is broken: ...`` like every backend's), never with a
``TypeError`` at load or a crash after a generation of self-play.
"""

from __future__ import annotations

import dataclasses
import math
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from zavandor_env.io.files import write_atomic
from zavandor_env.io.limits import MAX_AGENTS, MAX_REPLAY_GAMES
from zavandor_env.train.common.checkpointing import (
    MAX_STEP,
    STATE,
    Checkpoint,
    CheckpointError,
    does_not_fit,
    finite,
    integer_in,
)
from zavandor_env.train.exit.selfplay import BATCH_FIELDS, DecisionBatch

if TYPE_CHECKING:
    from zavandor_env.train.exit.model import ExitModel

__all__ = ["check_exit_state", "check_optimizer_tensors", "check_replay_arrays",
           "read_replay", "read_replay_checked", "write_replay"]

#: The replay window's file inside a checkpoint folder.
REPLAY = "replay.npz"
#: Largest replay file as its zip directory declares it (checked before inflating): about
#: 700,000 decisions.
MAX_REPLAY_BYTES: Final = 4 << 30

#: The exit trainer's totals (``state.json``): counters, and seconds of self-play.
TOTAL_COUNTS = ("games", "decisions", "searched")
TOTAL_SECONDS = "selfplay_seconds"
#: Largest total a counter may hold (a run's games, decisions: far below 2**53, a float's
#: exact integers, as the charts read them).
MAX_TOTAL = 2**53


def _broken(problem: str) -> CheckpointError:
    return CheckpointError(f"{STATE}: {problem}")


def check_exit_state(state: dict[str, Any]) -> None:
    """Refuse (:class:`CheckpointError`, one line) an exit ``state.json`` whose generation,
    replay generations, random generator state, evaluation or totals a resume could not use
    (the fields every backend shares are checked by ``read_state`` already)."""
    step = state["step"]
    if state.get("generation", step) != step or type(state.get("generation", step)) is not int:
        raise _broken(f"generation must be the checkpoint's step ({step})")
    generations = state.get("replay_generations", [])
    if (not isinstance(generations, list) or len(generations) > MAX_REPLAY_GAMES
            or not all(integer_in(g, 1, step) for g in generations)
            or any(a >= b for a, b in zip(generations, generations[1:]))):
        raise _broken(f"replay_generations must be increasing generation numbers 1..{step}")
    _check_rng(state.get("rng"))
    _check_eval(state.get("eval", {}))
    _check_totals(state.get("totals", {}))


def _check_rng(rng: object) -> None:
    """The state of NumPy's default generator (PCG64) as ``bit_generator.state`` gives it."""
    problem = _broken("rng must be the state of NumPy's PCG64 generator")
    if not isinstance(rng, dict) or set(rng) != {"bit_generator", "state", "has_uint32",
                                                 "uinteger"}:
        raise problem
    inner = rng["state"]
    if (rng["bit_generator"] != "PCG64" or not isinstance(inner, dict)
            or set(inner) != {"state", "inc"}
            or not all(integer_in(inner[k], 0, 2**128 - 1) for k in ("state", "inc"))
            or not integer_in(rng["has_uint32"], 0, 1)
            or not integer_in(rng["uinteger"], 0, 2**32 - 1)):
        raise problem
    try:  # the generator's own setter, on a throwaway generator: what _restore will do
        np.random.default_rng(0).bit_generator.state = rng
    except (TypeError, ValueError, OverflowError, KeyError):
        raise problem from None


def _eval_fields() -> dict[str, type]:
    """The fields of one evaluation's figures (``EvalResult.to_dict``) and their types."""
    from zavandor_env.train.common.evaluate import EvalResult

    kinds = {"str": str, "int": int, "float": float}
    return {f.name: kinds[str(f.type)] for f in dataclasses.fields(EvalResult)
            if f.name != "rankings"}


def _check_eval(figures: object) -> None:
    """The last evaluation: opponent spec -> its figures (``EvalResult.to_dict``)."""
    problem = _broken("eval must map opponent specs to evaluation figures")
    if not isinstance(figures, dict) or len(figures) > MAX_AGENTS:
        raise problem
    fields = _eval_fields()
    for spec, result in figures.items():
        if not isinstance(spec, str) or not isinstance(result, dict) or set(result) != set(fields):
            raise problem
        for key, kind in fields.items():
            value = result[key]
            ok = (isinstance(value, str) if kind is str
                  else integer_in(value, 0, MAX_STEP) if kind is int
                  else finite(value))
            if not ok:
                raise _broken(f"eval {spec[:60]!r}: {key} must be {kind.__name__}")


def _check_totals(totals: object) -> None:
    if not isinstance(totals, dict) or not set(totals) <= {*TOTAL_COUNTS, TOTAL_SECONDS}:
        raise _broken(f"totals must hold only {', '.join((*TOTAL_COUNTS, TOTAL_SECONDS))}")
    for key in TOTAL_COUNTS:
        if not integer_in(totals.get(key, 0), 0, MAX_TOTAL):
            raise _broken(f"totals {key!r} must be an integer 0..{MAX_TOTAL:,}")
    seconds = totals.get(TOTAL_SECONDS, 0.0)
    if not finite(seconds) or seconds < 0:
        raise _broken(f"totals {TOTAL_SECONDS!r} must be a finite number >= 0")


def check_replay_arrays(gen: int, arrays: dict[str, np.ndarray], obs_size: int,
                        num_actions: int) -> None:
    """Refuse (one line, no ``state.json`` prefix: the caller names ``replay.npz``) one
    generation's arrays unless they are ``obs`` float32 [N, obs_size], ``mask`` bool
    [N, num_actions], ``target`` float32 [N, num_actions] and ``value`` float32 [N], all with
    the same N: a 0-d or 2-D ``value`` would pass a looser check and crash a generation later."""
    value = arrays["value"]
    if value.ndim != 1:
        raise CheckpointError(f"generation {gen}'s value has shape {value.shape}, expected "
                              "one value per decision")
    n = value.shape[0]
    shapes = {"obs": (n, obs_size), "mask": (n, num_actions), "target": (n, num_actions)}
    for key, shape in shapes.items():
        if arrays[key].shape != shape:
            raise CheckpointError(f"generation {gen}'s {key} has shape {arrays[key].shape}, "
                                  f"expected {shape}")
    kinds = {"obs": np.float32, "mask": np.bool_, "target": np.float32, "value": np.float32}
    if any(arrays[key].dtype != kind for key, kind in kinds.items()):
        raise CheckpointError(f"generation {gen} has arrays of the wrong type")


def check_optimizer_tensors(params: dict[str, Any]) -> None:
    """Refuse (one line) a checkpoint's Adam state (``policy.optimizer.pth``) unless each entry
    belongs to one of the network's tensors (``policy.pth``, in the order torch gives the
    parameters), its moments have that tensor's shape, its step is a count and its second
    moment is not negative (its square root would be NaN).  Torch's ``load_state_dict``
    checks only the number of parameters: a moment of another shape failed at the first
    optimizer step, after a generation of self-play."""
    import torch

    weights = list(params["policy"].values())
    optimizer = params["policy.optimizer"]
    if (not isinstance(optimizer, dict) or not isinstance(optimizer.get("state"), dict)
            or not isinstance(optimizer.get("param_groups"), list)):
        raise CheckpointError("the optimizer's state is not Adam's")
    for index, state in optimizer["state"].items():
        if not integer_in(index, 0, len(weights) - 1) or not isinstance(state, dict) or set(
                state) != {"step", "exp_avg", "exp_avg_sq"}:
            raise CheckpointError("the optimizer's state does not fit the network")
        step = state["step"]
        if not isinstance(step, torch.Tensor) or step.numel() != 1 or not (
                math.isfinite(float(step)) and 0 <= float(step) <= MAX_STEP):
            raise CheckpointError("the optimizer's step must be a count")
        for key in ("exp_avg", "exp_avg_sq"):
            moment = state[key]
            if not isinstance(moment, torch.Tensor) or moment.shape != weights[index].shape:
                raise CheckpointError(f"the optimizer's {key} does not fit the network")
        if bool((state["exp_avg_sq"] < 0).any()):
            raise CheckpointError("the optimizer's exp_avg_sq holds negative values")


# ---- the replay window and the network in a checkpoint ---------------------------------------
def write_replay(path: Path, window: list[tuple[int, DecisionBatch]]) -> None:
    """The replay window as one ``.npz`` (arrays ``g<generation>.<field>``), flushed to disk."""
    arrays = {f"g{gen}.{name}": getattr(batch, name)
              for gen, batch in window for name in BATCH_FIELDS}
    write_atomic(path, lambda fh: np.savez_compressed(fh, **arrays))  # type: ignore[arg-type]


def read_replay(path: Path, generations: Sequence[int]) -> list[tuple[int, DecisionBatch]]:
    """The replay window of a checkpoint: the batches of ``generations`` (as its state says),
    read without pickles, each array's declared size bounded first, shapes and values checked
    (a target is a distribution over the mask, values are finite)."""
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    name = REPLAY
    try:
        with zipfile.ZipFile(path) as archive:
            total = sum(info.file_size for info in archive.infolist())
            if total > MAX_REPLAY_BYTES:
                raise CheckpointError(f"{name} would inflate to {total:,} bytes")
        with np.load(path, allow_pickle=False) as data:
            loaded = [(gen, {f: data[f"g{gen}.{f}"] for f in BATCH_FIELDS})
                      for gen in generations]
    except CheckpointError:
        raise
    except Exception as exc:  # noqa: BLE001 -- zip, npy, KeyError, OSError: all "broken"
        raise CheckpointError(f"{name} is unreadable ({' '.join(str(exc).split())})") from None
    window = []
    for gen, arrays in loaded:
        try:  # every shape and type first: a 0-d or 2-D value would fail only later
            check_replay_arrays(gen, arrays, OBS_SIZE, NUM_ACTIONS)
        except CheckpointError as exc:
            raise CheckpointError(f"{name}: {exc}") from None
        batch = DecisionBatch(**arrays)
        if not all(np.isfinite(getattr(batch, f)).all() for f in ("obs", "target", "value")):
            raise CheckpointError(f"{name}: generation {gen} holds NaN or infinite values")
        if len(batch) and ((batch.target[~batch.mask] != 0).any() or (batch.target < 0).any()
                           or not np.allclose(batch.target.sum(1), 1.0, atol=1e-4)):
            raise CheckpointError(f"{name}: generation {gen}'s targets are not distributions "
                                  "over the legal actions")
        window.append((gen, batch))
    return window


def restore(checkpoint: Checkpoint, model: ExitModel, optimizer: Any, rating: Any,
             rng: np.random.Generator, totals: dict[str, Any]) -> None:
    """Load a checkpoint's network, optimizer, rating, random state and totals."""
    state = checkpoint.state
    # Adam's settings are the config's, not the file's (a crafted betas or eps would only
    # fail, or poison the weights, at the first step); the file gives the moments.
    settings = [{k: v for k, v in group.items() if k != "params"}
                for group in optimizer.param_groups]
    try:
        model.net.load_state_dict(checkpoint.params["policy"], strict=True)
        optimizer.load_state_dict(checkpoint.params["policy.optimizer"])
        for group, kept in zip(optimizer.param_groups, settings, strict=True):
            group.update(kept)
        rng.bit_generator.state = state["rng"]
    except (RuntimeError, ValueError, KeyError, TypeError) as exc:
        raise does_not_fit(checkpoint, exc, "the run (an exit run's checkpoint?)") from None
    rating.load_state_dict(state["rating"])
    totals.update(state.get("totals", {}))


def read_replay_checked(checkpoint: Checkpoint) -> list[tuple[int, DecisionBatch]]:
    """The replay window of ``checkpoint``, after every field of its exit state and its Adam
    state are checked (:mod:`zavandor_env.train.exit.checkpoint`); one broken-checkpoint line
    else."""
    try:
        check_exit_state(checkpoint.state)
        try:
            check_optimizer_tensors(checkpoint.params)
        except CheckpointError as exc:
            raise CheckpointError(f"model.zip: {exc}") from None
        path = checkpoint.path / REPLAY
        if not path.is_file() or path.is_symlink():
            raise CheckpointError(f"{REPLAY} is missing")
        return read_replay(path, checkpoint.state.get("replay_generations", []))
    except CheckpointError as exc:
        raise CheckpointError(f"checkpoint {checkpoint.path.name} is broken: {exc}") from None
