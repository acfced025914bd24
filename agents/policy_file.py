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

``obs_fingerprint`` is :data:`~zavandor_env.encoding.observation.OBS_FINGERPRINT` of the layout
the policy was trained on; :func:`load_policy` refuses a file whose fingerprint differs from
the running code's.  Files written before the fingerprint existed lack the key and are still
read (the version stays 1: old readers ignore the key) if their sizes fit.

The forward pass is ``logits = action(act(hidden_k(...act(hidden_0(obs)))))``; illegal actions
are masked to ``-inf`` before the argmax / sampling.  The critic has the same form,
``value = value(act(value_hidden_k(...)))``: the model's estimate of the seat's return.
:class:`NumpyPolicy` runs both in NumPy, which for these small networks is several times
cheaper per call than torch (this is how pool snapshots play inside the environments without
slowing training).

**A file from a stranger** is read within bounds, before anything is decompressed: at most
:data:`MAX_ARRAYS` entries, each declaring (zip directory and ``.npy`` header alike) at most
:data:`MAX_ARRAY_BYTES`, :data:`MAX_TOTAL_BYTES` together, so a small archive that would inflate
to gigabytes is refused at once; ``.npy`` headers are parsed by hand and object arrays (pickles)
are refused unread; weights must be floats and finite (NaN would crash a sampled policy in a
tournament, or a training run that draws the snapshot), and small enough that no layer can
pass :data:`MAX_OUTPUT_BOUND` for any observation the encoder gives (:func:`output_bound`:
finite weights of 3e38 overflowed to NaN probabilities); ``__meta__`` is parsed by
:func:`~zavandor_env.io.files.parse_json` (bounded size and depth).  Every problem is one
:class:`PolicyFileError` line naming the file and the array.

This module needs NumPy only; converting an SB3 model is
``zavandor_env.train.ppo.export.policy_from_sb3``.
"""

from __future__ import annotations

import json
import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import numpy as np
from numpy.lib import format as npy

from zavandor_env.encoding.observation import OBS_BOUND, OBS_FINGERPRINT
from zavandor_env.io.files import (
    MAX_CONFIG_BYTES,
    UntrustedInputError,
    parse_json,
    write_atomic,
)
from zavandor_env.io.params import ParamError, one_line, regular_file

FORMAT = "zavandor-policy"
VERSION = 1
SUFFIX = ".npz"
FINGERPRINT_KEY = "obs_fingerprint"
ACTIVATIONS = ("tanh", "relu")
META = "__meta__"

#: Most entries of a policy file (ours: 13 for two hidden layers with the critic).
MAX_ARRAYS: Final = 64
#: Largest array, as declared before it is decompressed: 16M float32, a 4096 x 4096 layer
#: (the shipped layers are at most 710 x 128).
MAX_ARRAY_BYTES: Final = 64 << 20
#: Largest sum of the arrays' declared sizes.
MAX_TOTAL_BYTES: Final = 256 << 20
#: Largest ``__meta__`` JSON text, in characters (the shipped ones hold about 1,500).
MAX_META_CHARS: Final = MAX_CONFIG_BYTES
#: Largest value any layer may reach for an observation the encoder can give (every entry
#: within ``OBS_BOUND``), bounded before the file is used (:func:`output_bound`).  The shipped
#: policies reach at most 639 in the worst case; float32 overflows at 3.4e38, and a softmax
#: subtracts two logits, so this ceiling keeps every output, and the differences, finite.
MAX_OUTPUT_BOUND: Final = 1e30


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


# ---- the native forward pass ----------------------------------------------------------------
def native_network(policy: NumpyPolicy) -> Any:
    """``policy`` as the native core's ``Network`` (``native/src/net.hpp``): the same MLP
    evaluated in C++, the actor and the critic when the policy has one.

    ``network.forward(obs)`` takes ``obs`` float32 ``[obs_dim]`` or ``[B, obs_dim]`` and
    returns ``(logits, value)``: ``logits`` ``[num_actions]`` / ``[B, num_actions]`` float32
    and ``value`` a float / float32 ``[B]``, or ``None`` without a critic.  The results equal
    :meth:`NumpyPolicy.logits` and :meth:`NumpyPolicy.value` to float rounding (the order of
    the sums differs).  The network search (``agents/netsearch.py``) evaluates it inside C++.

    Raises:
        PolicyFileError: the C++ refused a shape (it checks every layer itself).
    """
    from zavandor_env.engine import native

    critic = (policy.value_weights, policy.value_biases) if policy.has_value else (None, None)
    try:
        return native.core_module().Network(policy.weights, policy.biases, policy.activation,
                                            *critic)
    except ValueError as exc:
        raise PolicyFileError(f"the native network refused the policy: {exc}") from None


# ---- writing --------------------------------------------------------------------------------
def save_policy(policy: NumpyPolicy, path: str | Path, fingerprint: str | None = None) -> Path:
    """Write ``policy`` as a weights-only ``.npz`` (see the module docstring).

    The file records ``fingerprint``, else the policy's own, else the running code's
    :data:`OBS_FINGERPRINT` (a policy converted from a model trained here).  The write is
    :func:`~zavandor_env.io.files.write_atomic`'s, so a killed run or a full disk never
    leaves half a file (nor a temporary one).
    """
    path = Path(path)
    if path.suffix != SUFFIX:
        path = path.with_suffix(SUFFIX)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"format": FORMAT, "version": VERSION, "obs_dim": policy.obs_dim,
            "num_actions": policy.num_actions, "activation": policy.activation,
            "hidden": [int(w.shape[0]) for w in policy.weights[:-1]],
            FINGERPRINT_KEY: fingerprint or policy.fingerprint or OBS_FINGERPRINT,
            "info": policy.info}
    nets = [("hidden", "action", policy.weights, policy.biases)]
    if policy.has_value:
        vw, vb = policy.value_weights or [], policy.value_biases or []
        meta["value_hidden"] = [int(w.shape[0]) for w in vw[:-1]]
        nets.append(("value_hidden", "value", vw, vb))
    arrays = {f"{layer}.{part}": array
              for hidden, out, weights, biases in nets
              for layer, w, b in zip(_layer_names(hidden, len(weights) - 1, out), weights, biases)
              for part, array in (("weight", w), ("bias", b))}
    arrays[META] = np.array(json.dumps(meta))

    def write(fh: IO[bytes]) -> None:
        np.savez(fh, **arrays)  # type: ignore[arg-type]  # numpy stubs miss **arrays

    return write_atomic(path, write)


# ---- reading --------------------------------------------------------------------------------
def load_policy(path: str | Path, obs_dim: int | None = None, num_actions: int | None = None,
                fingerprint: str | None = OBS_FINGERPRINT) -> NumpyPolicy:
    """Read a weights-only policy and check it fits this environment.

    Args:
        path: the ``.npz`` file, as text (an integer is refused: ``open()`` would take it as
            a file descriptor) naming a regular file.  It is read with ``allow_pickle=False``:
            nothing in it runs.
        obs_dim: the required observation size, when given.
        num_actions: the required number of actions, when given.
        fingerprint: the observation layout the policy must have been trained on (default:
            the running code's); ``None`` skips the check.  A file without a fingerprint
            (older format) passes this check; its sizes are still checked.

    Raises:
        PolicyFileError: missing file, not a policy file, wrong version, bad shapes, weights
            so large that an output could overflow (:data:`MAX_OUTPUT_BOUND`), another
            observation layout, or sizes that do not fit.
    """
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
    _check_bounded(name, policy)
    if obs_dim is not None and policy.obs_dim != obs_dim:
        raise PolicyFileError(f"{name} expects observations of size {policy.obs_dim}, "
                              f"the environment gives {obs_dim}")
    if num_actions is not None and policy.num_actions != num_actions:
        raise PolicyFileError(f"{name} has {policy.num_actions} actions, "
                              f"the environment has {num_actions}")
    return policy


def _read(path: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The metadata and the arrays of a policy file, or a PolicyFileError naming the file."""
    try:  # text naming a regular file: never an open file descriptor, a FIFO or a device
        path = regular_file(path, what="policy file")
    except ParamError as exc:
        raise PolicyFileError(str(exc)) from None
    name = repr(str(path))
    try:
        with zipfile.ZipFile(path) as archive:
            entries = _checked_entries(archive)
            arrays = {key: _read_array(archive, info, key) for key, info in entries.items()}
    except Exception as exc:  # noqa: BLE001 -- zipfile, ValueError, OSError...: all "unreadable"
        message = one_line(exc)  # one line, whatever the library wrote
        raise PolicyFileError(f"policy file {name} is not a readable .npz: {message}") from None
    meta_array = arrays.pop(META, None)
    if meta_array is None or meta_array.dtype.kind != "U" or meta_array.shape != ():
        raise PolicyFileError(f"{name} has no valid {META} entry")
    try:
        meta = parse_json(str(meta_array), what=META, max_bytes=MAX_META_CHARS)
    except UntrustedInputError as exc:
        raise PolicyFileError(f"{name} has no valid {META} entry: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise PolicyFileError(f"{name} is not a {FORMAT} file")
    if meta.get("version") != VERSION:
        raise PolicyFileError(f"{name} has version {meta.get('version')!r}; "
                              f"this code reads version {VERSION}")
    return meta, arrays


def _checked_entries(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The archive's arrays by name, their sizes as the zip directory declares them checked
    against the bounds before anything is decompressed (a zip bomb stops here)."""
    infos = archive.infolist()
    if len(infos) > MAX_ARRAYS:
        raise ValueError(f"it holds {len(infos)} entries, a policy file at most {MAX_ARRAYS}")
    entries: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        key = info.filename.removesuffix(".npy")
        if key == info.filename:
            raise ValueError(f"entry {info.filename!r} is not a .npy array")
        if info.file_size > MAX_ARRAY_BYTES:
            raise ValueError(f"array {key!r} would inflate to {info.file_size:,} bytes "
                             f"(at most {MAX_ARRAY_BYTES:,})")
        entries[key] = info
    total = sum(info.file_size for info in entries.values())
    if total > MAX_TOTAL_BYTES:
        raise ValueError(f"its arrays would inflate to {total:,} bytes "
                         f"(at most {MAX_TOTAL_BYTES:,})")
    return entries


def _read_array(archive: zipfile.ZipFile, info: zipfile.ZipInfo, key: str) -> np.ndarray:
    """One ``.npy`` entry: its header read and checked first (no object arrays, a size that
    fits the entry), then exactly the bytes it declares (zipfile stops at the entry's
    declared size, so a lying directory cannot make it read more)."""
    with archive.open(info) as fh:
        version = npy.read_magic(fh)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"array {key!r} has .npy format {version}, not 1.0 or 2.0")
        read_header = (npy.read_array_header_1_0 if version == (1, 0)
                       else npy.read_array_header_2_0)
        shape, fortran, dtype = read_header(fh)
        if dtype.hasobject:  # reading it would unpickle (run code from the file)
            raise ValueError(f"array {key!r} holds Python objects, which are never unpickled")
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > info.file_size:
            raise ValueError(f"array {key!r} declares shape {shape} ({nbytes:,} bytes), more "
                             f"than its entry's {info.file_size:,}")
        data = fh.read(nbytes)
    if len(data) != nbytes:
        raise ValueError(f"array {key!r} is truncated")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


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
    layers = _layer_names(hidden, num_hidden, out)
    weights = [_weights(name, arrays, f"{n}.weight") for n in layers]
    biases = [_weights(name, arrays, f"{n}.bias") for n in layers]
    prev = meta.get("obs_dim", -1)
    for n, w, b in zip(layers, weights, biases):
        if w.ndim != 2 or b.shape != (w.shape[0],) or w.shape[1] != prev:
            raise PolicyFileError(f"{name}: layer {n} has inconsistent shapes "
                                  f"{w.shape} / {b.shape}")
        prev = w.shape[0]
    return weights, biases


def _layer_names(hidden: str, num_hidden: int, out: str) -> list[str]:
    """The layers of one MLP in a file: ``hidden.0`` ... ``hidden.<num_hidden - 1>``, ``out``."""
    return [f"{hidden}.{i}" for i in range(num_hidden)] + [out]


def _weights(name: str, arrays: dict[str, np.ndarray], key: str) -> np.ndarray:
    """Array ``key`` as float32, refused unless it holds finite floats: a NaN or an infinity
    would make every logit NaN, and a sampled policy or training that draws it crash later."""
    array = arrays.get(key)
    if array is None:
        raise PolicyFileError(f"{name} lacks array {key!r}")
    if array.dtype.kind != "f":
        raise PolicyFileError(f"{name}: array {key!r} must hold floats, not {array.dtype}")
    weights = array.astype(np.float32)
    if not np.isfinite(weights).all():
        raise PolicyFileError(f"{name}: array {key!r} holds NaN or infinite weights")
    return weights


# ---- bounds ---------------------------------------------------------------------------------
def output_bound(weights: list[np.ndarray], biases: list[np.ndarray], activation: str,
                 input_bound: float = OBS_BOUND) -> float:
    """The largest magnitude any layer of the MLP can reach when every input lies within
    ``[-input_bound, input_bound]`` (interval arithmetic in float64: ``|W| @ bound + |b|``
    per layer; tanh bounds its outputs by 1, relu by the layer's own bound).  ``inf`` when
    even float64 overflows."""
    bound = np.full(weights[0].shape[1], float(input_bound))
    worst = 0.0
    last = len(weights) - 1
    with np.errstate(over="ignore", invalid="ignore"):
        for i, (w, b) in enumerate(zip(weights, biases)):
            z = np.abs(w.astype(np.float64)) @ bound + np.abs(b.astype(np.float64))
            worst = max(worst, float(z.max(initial=0.0)))
            if not math.isfinite(worst):
                return math.inf
            bound = np.minimum(z, 1.0) if activation == "tanh" and i < last else z
    return worst


def _check_bounded(name: str, policy: NumpyPolicy) -> None:
    """Refuse weights so large that an observation could make an output overflow float32
    (finite weights of 3e38 passed the finiteness check and gave NaN probabilities)."""
    nets = [("actor", policy.weights, policy.biases)]
    if policy.has_value:
        nets.append(("critic", policy.value_weights or [], policy.value_biases or []))
    for label, weights, biases in nets:
        bound = output_bound(weights, biases, policy.activation)
        if not bound <= MAX_OUTPUT_BOUND:
            raise PolicyFileError(
                f"{name}: the {label}'s weights are too large: an observation within "
                f"+-{OBS_BOUND:g} could drive a layer to {bound:.3g}, more than "
                f"{MAX_OUTPUT_BOUND:.0e} (its outputs would overflow to infinity or NaN)")
