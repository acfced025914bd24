"""Weights-only policy files: a MaskablePPO actor as plain arrays, loadable without unpickling.

SB3 ``.zip`` checkpoints hold pickled Python objects, so loading one runs code from the file.
A policy shared with others (the committed checkpoint, a pool snapshot) is therefore exported as
a NumPy ``.npz`` archive read with ``allow_pickle=False``: the actor's layer matrices plus one
JSON metadata string.  Format (version 1)::

    __meta__          0-d unicode array: JSON {"format": "zavandor-policy", "version": 1,
                      "obs_dim", "num_actions", "activation" ("tanh"|"relu"),
                      "hidden": [sizes], "info": {free-form: config, step, ...}}
    hidden.<i>.weight float32 [out, in]   hidden layer i (i = 0..len(hidden)-1)
    hidden.<i>.bias   float32 [out]
    action.weight     float32 [num_actions, last hidden]
    action.bias       float32 [num_actions]

The forward pass is ``logits = action(act(hidden_k(...act(hidden_0(obs)))))``; illegal actions
are masked to ``-inf`` before the argmax / sampling.  :class:`NumpyPolicy` runs it in NumPy,
which for these small networks is several times cheaper per call than torch (this is how pool
snapshots play inside the environments without slowing training).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "zavandor-policy"
VERSION = 1
SUFFIX = ".npz"


class PolicyFileError(ValueError):
    """A policy file is missing, corrupt or does not fit the environment."""


@dataclass
class NumpyPolicy:
    """A masked MLP actor evaluated in NumPy (float32)."""

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    activation: str = "tanh"
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def obs_dim(self) -> int:
        return int(self.weights[0].shape[1])

    @property
    def num_actions(self) -> int:
        return int(self.weights[-1].shape[0])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked logits for one observation ``[obs_dim]`` or a batch ``[B, obs_dim]``."""
        x = np.asarray(obs, dtype=np.float32)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w.T + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

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


# ---- from SB3 -------------------------------------------------------------------------------
def policy_from_sb3(model: Any, info: dict[str, Any] | None = None) -> NumpyPolicy:
    """Copy the actor of a MaskablePPO model (MlpPolicy, flat Box observation) to NumPy."""
    from torch import nn

    policy = model.policy
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    acts = {type(m) for m in policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)}
    if acts == {nn.Tanh} or not acts:
        activation = "tanh"
    elif acts == {nn.ReLU}:
        activation = "relu"
    else:
        raise PolicyFileError(f"cannot export activation(s) {sorted(a.__name__ for a in acts)}")
    layers.append(policy.action_net)
    weights = [m.weight.detach().cpu().numpy().astype(np.float32).copy() for m in layers]
    biases = [m.bias.detach().cpu().numpy().astype(np.float32).copy() for m in layers]
    return NumpyPolicy(weights, biases, activation, dict(info or {}))


# ---- files ----------------------------------------------------------------------------------
def save_policy(policy: NumpyPolicy, path: str | Path) -> Path:
    """Write ``policy`` as a weights-only ``.npz`` (see the module docstring)."""
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
        "info": policy.info,
    }
    arrays: dict[str, np.ndarray] = {"__meta__": np.array(json.dumps(meta))}
    for i, (w, b) in enumerate(zip(policy.weights[:-1], policy.biases[:-1])):
        arrays[f"hidden.{i}.weight"] = w
        arrays[f"hidden.{i}.bias"] = b
    arrays["action.weight"] = policy.weights[-1]
    arrays["action.bias"] = policy.biases[-1]
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:  # write-then-rename: a killed run never leaves half a file
        np.savez(fh, **arrays)  # type: ignore[arg-type]  # numpy stubs miss **arrays
    tmp.replace(path)
    return path


def load_policy(path: str | Path, obs_dim: int | None = None,
                num_actions: int | None = None) -> NumpyPolicy:
    """Read a weights-only policy; check it fits ``obs_dim`` / ``num_actions`` when given.

    Raises:
        PolicyFileError: missing file, not a policy file, wrong version, bad shapes.
    """
    path = Path(path)
    if not path.is_file():
        raise PolicyFileError(f"policy file {str(path)!r} does not exist")
    try:
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except Exception as exc:  # noqa: BLE001 -- zipfile, ValueError, OSError...: all "unreadable"
        raise PolicyFileError(f"policy file {str(path)!r} is not a readable .npz: {exc}") from None
    try:
        meta = json.loads(str(arrays.pop("__meta__")))
    except (KeyError, json.JSONDecodeError):
        raise PolicyFileError(f"{str(path)!r} has no valid __meta__ entry") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise PolicyFileError(f"{str(path)!r} is not a {FORMAT} file")
    if meta.get("version") != VERSION:
        raise PolicyFileError(f"{str(path)!r} has version {meta.get('version')!r}; "
                              f"this code reads version {VERSION}")
    hidden = meta.get("hidden")
    if not isinstance(hidden, list):
        raise PolicyFileError(f"{str(path)!r}: metadata lacks the hidden layer sizes")
    names = [f"hidden.{i}" for i in range(len(hidden))] + ["action"]
    try:
        weights = [arrays[f"{n}.weight"].astype(np.float32) for n in names]
        biases = [arrays[f"{n}.bias"].astype(np.float32) for n in names]
    except KeyError as exc:
        raise PolicyFileError(f"{str(path)!r} lacks array {exc.args[0]!r}") from None
    prev = int(meta.get("obs_dim", -1))
    for n, w, b in zip(names, weights, biases):
        if w.ndim != 2 or b.shape != (w.shape[0],) or w.shape[1] != prev:
            raise PolicyFileError(f"{str(path)!r}: layer {n} has inconsistent shapes "
                                  f"{w.shape} / {b.shape}")
        prev = w.shape[0]
    policy = NumpyPolicy(weights, biases, str(meta.get("activation")), meta.get("info") or {})
    if policy.activation not in ("tanh", "relu"):
        raise PolicyFileError(f"{str(path)!r}: unknown activation {policy.activation!r}")
    if policy.num_actions != meta.get("num_actions"):
        raise PolicyFileError(f"{str(path)!r}: action layer does not match num_actions")
    if obs_dim is not None and policy.obs_dim != obs_dim:
        raise PolicyFileError(f"{str(path)!r} expects observations of size {policy.obs_dim}, "
                              f"the environment gives {obs_dim}")
    if num_actions is not None and policy.num_actions != num_actions:
        raise PolicyFileError(f"{str(path)!r} has {policy.num_actions} actions, "
                              f"the environment has {num_actions}")
    return policy
