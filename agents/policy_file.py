"""Weights-only policy files: an MLP actor as plain arrays, loadable without unpickling.

SB3 ``.zip`` checkpoints hold pickled Python objects, so loading one runs code from the file.
A policy shared with others (the committed checkpoints, pool snapshots) is therefore kept as a
NumPy ``.npz`` archive read with ``allow_pickle=False``: the actor's layer matrices plus one
JSON metadata string.  Format ``zavandor-policy`` version 1::

    __meta__          0-d unicode array: JSON {"format": "zavandor-policy", "version": 1,
                      "obs_dim", "num_actions", "activation" ("tanh"|"relu"),
                      "hidden": [sizes], "obs_fingerprint": "<16 hex digits>",
                      "info": {free-form: config, step, ...}}
    hidden.<i>.weight float32 [out, in]   hidden layer i (i = 0..len(hidden)-1)
    hidden.<i>.bias   float32 [out]
    action.weight     float32 [num_actions, last hidden]
    action.bias       float32 [num_actions]

Optionally the critic (value head), written by exports since it was added; older files lack it
and still load (then :meth:`NumpyPolicy.value` is ``None``).  Its presence is announced by the
metadata key ``"value_hidden": [sizes]`` (the version stays 1: old readers ignore the key and
the extra arrays)::

    value_hidden.<i>.weight float32 [out, in]   critic hidden layer i (same activation)
    value_hidden.<i>.bias   float32 [out]
    value.weight            float32 [1, last critic hidden]
    value.bias              float32 [1]

``obs_fingerprint`` is :data:`~zavandor_env.envs.observation.OBS_FINGERPRINT` of the layout
the policy was trained on; :func:`load_policy` refuses a file whose fingerprint differs from
the running code's.  Files written before the fingerprint existed lack the key and are still
read (the version stays 1: old readers ignore the key) if their sizes fit.

The forward pass is ``logits = action(act(hidden_k(...act(hidden_0(obs)))))``; illegal actions
are masked to ``-inf`` before the argmax / sampling.  The critic has the same form,
``value = value(act(value_hidden_k(...)))``: the model's estimate of the seat's return.
:class:`NumpyPolicy` runs both in NumPy, which for these small networks is several times
cheaper per call than torch (this is how pool snapshots play inside the environments without
slowing training).

This module needs NumPy only; converting an SB3 model is ``train.export.policy_from_sb3``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.envs.observation import OBS_FINGERPRINT

FORMAT = "zavandor-policy"
VERSION = 1
SUFFIX = ".npz"
FINGERPRINT_KEY = "obs_fingerprint"
ACTIVATIONS = ("tanh", "relu")


class PolicyFileError(ValueError):
    """A policy file is missing, corrupt or does not fit the environment."""


@dataclass
class NumpyPolicy:
    """A masked MLP actor evaluated in NumPy (float32), with its critic when known.

    ``fingerprint`` is the observation layout the weights were trained on (``None`` when not
    known, e.g. a file from before fingerprints); :func:`save_policy` records it.
    ``value_weights`` / ``value_biases`` are the critic's layers (``None``: not exported).
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    activation: str = "tanh"
    info: dict[str, Any] = field(default_factory=dict)
    fingerprint: str | None = None
    value_weights: list[np.ndarray] | None = None
    value_biases: list[np.ndarray] | None = None

    @property
    def obs_dim(self) -> int:
        return int(self.weights[0].shape[1])

    @property
    def num_actions(self) -> int:
        return int(self.weights[-1].shape[0])

    @property
    def has_value(self) -> bool:
        """Whether the critic was exported (files from before it was added lack it)."""
        return bool(self.value_weights) and self.value_biases is not None

    def _forward(self, weights: list[np.ndarray], biases: list[np.ndarray],
                 obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, dtype=np.float32)
        last = len(weights) - 1
        for i, (w, b) in enumerate(zip(weights, biases)):
            x = x @ w.T + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked logits for one observation ``[obs_dim]`` or a batch ``[B, obs_dim]``."""
        return self._forward(self.weights, self.biases, obs)

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked action distribution of one observation (0 for illegal actions)."""
        z = self.masked_logits(obs, mask).astype(np.float64)
        z = np.exp(z - z.max())
        return z / z.sum()

    def value(self, obs: np.ndarray) -> float | None:
        """The critic's estimate for one observation, or ``None`` when it was not exported."""
        if not self.has_value:
            return None
        out = self._forward(self.value_weights or [], self.value_biases or [], obs)
        return float(np.asarray(out).reshape(-1)[0])

    def masked_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.logits(obs)
        return np.where(np.asarray(mask, dtype=bool), logits, -np.inf)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None,
            deterministic: bool = False) -> int:
        """One legal action: the argmax when ``deterministic`` (or no rng), else a sample."""
        z = self.masked_logits(obs, mask)
        if deterministic or rng is None:
            return int(np.argmax(z))
        z = z - z.max()
        p = np.exp(z)
        p /= p.sum()
        return int(rng.choice(p.shape[0], p=p))


# ---- writing --------------------------------------------------------------------------------
def save_policy(policy: NumpyPolicy, path: str | Path, fingerprint: str | None = None) -> Path:
    """Write ``policy`` as a weights-only ``.npz`` (see the module docstring).

    The file records ``fingerprint``, else the policy's own, else the running code's
    :data:`OBS_FINGERPRINT` (a policy converted from a model trained here).  The write goes to
    a temporary file renamed into place, so a killed run never leaves half a file.
    """
    path = Path(path)
    if path.suffix != SUFFIX:
        path = path.with_suffix(SUFFIX)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "obs_dim": policy.obs_dim,
        "num_actions": policy.num_actions,
        "activation": policy.activation,
        "hidden": [int(w.shape[0]) for w in policy.weights[:-1]],
        FINGERPRINT_KEY: fingerprint or policy.fingerprint or OBS_FINGERPRINT,
        "info": policy.info,
    }
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(zip(policy.weights[:-1], policy.biases[:-1])):
        arrays[f"hidden.{i}.weight"] = w
        arrays[f"hidden.{i}.bias"] = b
    arrays["action.weight"] = policy.weights[-1]
    arrays["action.bias"] = policy.biases[-1]
    if policy.has_value:
        vw, vb = policy.value_weights or [], policy.value_biases or []
        meta["value_hidden"] = [int(w.shape[0]) for w in vw[:-1]]
        for i, (w, b) in enumerate(zip(vw[:-1], vb[:-1])):
            arrays[f"value_hidden.{i}.weight"] = w
            arrays[f"value_hidden.{i}.bias"] = b
        arrays["value.weight"] = vw[-1]
        arrays["value.bias"] = vb[-1]
    arrays["__meta__"] = np.array(json.dumps(meta))
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)  # type: ignore[arg-type]  # numpy stubs miss **arrays
    tmp.replace(path)
    return path


# ---- reading --------------------------------------------------------------------------------
def load_policy(
    path: str | Path,
    obs_dim: int | None = None,
    num_actions: int | None = None,
    fingerprint: str | None = OBS_FINGERPRINT,
) -> NumpyPolicy:
    """Read a weights-only policy and check it fits this environment.

    Args:
        path: the ``.npz`` file.  It is read with ``allow_pickle=False``: nothing in it runs.
        obs_dim, num_actions: required sizes, when given.
        fingerprint: the observation layout the policy must have been trained on (default:
            the running code's); ``None`` skips the check.  A file without a fingerprint
            (older format) passes this check; its sizes are still checked.

    Raises:
        PolicyFileError: missing file, not a policy file, wrong version, bad shapes, another
            observation layout, or sizes that do not fit.
    """
    path = Path(path)
    name = repr(str(path))
    meta, arrays = _read(path)
    hidden = meta.get("hidden")
    if not isinstance(hidden, list):
        raise PolicyFileError(f"{name}: metadata lacks the hidden layer sizes")
    saved_fingerprint = meta.get(FINGERPRINT_KEY)
    if saved_fingerprint is not None and not isinstance(saved_fingerprint, str):
        raise PolicyFileError(f"{name}: {FINGERPRINT_KEY} must be a string, "
                              f"got {saved_fingerprint!r}")
    if fingerprint is not None and saved_fingerprint not in (None, fingerprint):
        raise PolicyFileError(
            f"{name} was trained on observation layout {saved_fingerprint}, but this code's "
            f"layout is {fingerprint}: retrain it, or load it with the code version it came from"
        )
    policy = _build(name, meta, arrays, len(hidden))
    policy.fingerprint = saved_fingerprint
    if obs_dim is not None and policy.obs_dim != obs_dim:
        raise PolicyFileError(f"{name} expects observations of size {policy.obs_dim}, "
                              f"the environment gives {obs_dim}")
    if num_actions is not None and policy.num_actions != num_actions:
        raise PolicyFileError(f"{name} has {policy.num_actions} actions, "
                              f"the environment has {num_actions}")
    return policy


def _read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The metadata and the arrays of a policy file, or a PolicyFileError naming the file."""
    name = repr(str(path))
    if not path.is_file():
        raise PolicyFileError(f"policy file {name} does not exist")
    try:
        # allow_pickle=False: an object array (a pickle inside the archive) raises instead of
        # being unpickled, so a crafted file cannot run code here.
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except Exception as exc:  # noqa: BLE001 -- zipfile, ValueError, OSError...: all "unreadable"
        message = " ".join(str(exc).split())  # one line, whatever the library wrote
        raise PolicyFileError(f"policy file {name} is not a readable .npz: {message}") from None
    try:
        meta = json.loads(str(arrays.pop("__meta__")))
    except (KeyError, json.JSONDecodeError):
        raise PolicyFileError(f"{name} has no valid __meta__ entry") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise PolicyFileError(f"{name} is not a {FORMAT} file")
    if meta.get("version") != VERSION:
        raise PolicyFileError(f"{name} has version {meta.get('version')!r}; "
                              f"this code reads version {VERSION}")
    return meta, arrays


def _build(name: str, meta: dict[str, Any], arrays: dict[str, np.ndarray],
           num_hidden: int) -> NumpyPolicy:
    """The network of a file (and its critic, when the file has one), shapes checked layer by
    layer."""
    weights, biases = _layers(name, meta, arrays, "hidden", num_hidden, "action")
    activation = meta.get("activation")
    if activation not in ACTIVATIONS:
        raise PolicyFileError(f"{name}: unknown activation {activation!r}")
    info = meta.get("info") or {}
    policy = NumpyPolicy(weights, biases, str(activation), info if isinstance(info, dict) else {})
    if policy.num_actions != meta.get("num_actions"):
        raise PolicyFileError(f"{name}: action layer does not match num_actions")
    value_hidden = meta.get("value_hidden")
    if value_hidden is not None:  # absent: a file from before the critic was exported
        if not isinstance(value_hidden, list):
            raise PolicyFileError(f"{name}: value_hidden must be a list of layer sizes")
        vw, vb = _layers(name, meta, arrays, "value_hidden", len(value_hidden), "value")
        if vw[-1].shape[0] != 1:
            raise PolicyFileError(f"{name}: the value layer must have one output")
        policy.value_weights, policy.value_biases = vw, vb
    return policy


def _layers(name: str, meta: dict[str, Any], arrays: dict[str, np.ndarray], hidden: str,
            num_hidden: int, out: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """One MLP of a file (``hidden.<i>`` ... ``out``), its shapes checked layer by layer."""
    layers = [f"{hidden}.{i}" for i in range(num_hidden)] + [out]
    try:
        weights = [arrays[f"{n}.weight"].astype(np.float32) for n in layers]
        biases = [arrays[f"{n}.bias"].astype(np.float32) for n in layers]
    except KeyError as exc:
        raise PolicyFileError(f"{name} lacks array {exc.args[0]!r}") from None
    prev = meta.get("obs_dim", -1)
    for n, w, b in zip(layers, weights, biases):
        if w.ndim != 2 or b.shape != (w.shape[0],) or w.shape[1] != prev:
            raise PolicyFileError(f"{name}: layer {n} has inconsistent shapes "
                                  f"{w.shape} / {b.shape}")
        prev = w.shape[0]
    return weights, biases
