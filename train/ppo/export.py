"""Export a MaskablePPO actor to the weights-only policy format.

The format itself -- :class:`NumpyPolicy`, :func:`save_policy`, :func:`load_policy`,
:class:`PolicyFileError` -- belongs to the agents layer (:mod:`agents.policy_file`), which
plays it without SB3 or torch.  This module holds only what needs SB3's model layout:

* :func:`policy_from_sb3` copies the actor and the critic (value head) of an in-memory model
  (training, pool snapshots); :func:`policy_into_sb3` is its inverse (a run's ``init_policy``
  warm start), with :func:`check_layer_shapes` saying which layer does not fit;
* :func:`policy_from_sb3_zip` reads a saved ``.zip`` checkpoint *without unpickling it*: the
  tensors come from ``policy.pth`` through ``torch.load(weights_only=True)`` and the
  activation from the human-readable part of the ``data`` JSON; the cloudpickled entries
  (``lr_schedule``, ``policy_class``...), which would run code on load, are never decoded.

Command line: ``python -m zavandor_env.train.ppo.export model.zip [policy.npz]``.
"""

from __future__ import annotations

import io
import re
import sys
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.agents.policy_file import SUFFIX, NumpyPolicy, PolicyFileError, save_policy
from zavandor_env.extras import install_command
from zavandor_env.io.files import MAX_CONFIG_BYTES, parse_json
from zavandor_env.io.params import one_line
from zavandor_env.train.common.checkpointing import read_entry


# ---- from an in-memory model ----------------------------------------------------------------
def policy_from_sb3(model: Any, info: dict[str, Any] | None = None) -> NumpyPolicy:
    """Copy the actor and the critic of a MaskablePPO model (MlpPolicy, flat Box observation)
    to NumPy.

    The copy records this code's observation-layout fingerprint when saved: the model was
    trained against the environment of this code.  The critic rides along so that a replay
    can show the policy's value estimate (``PolicyAgent.explain``); playing needs only the
    actor.
    """
    layers, critic, activation = _sb3_networks(model)
    return NumpyPolicy(layer_copies(layers, "weight"), layer_copies(layers, "bias"), activation,
                       dict(info or {}), value_weights=layer_copies(critic, "weight"),
                       value_biases=layer_copies(critic, "bias"))


def _sb3_networks(model: Any) -> tuple[list[Any], list[Any], str]:
    """The actor's ``nn.Linear`` layers (hidden..., ``action_net``), the critic's (hidden...,
    ``value_net``) and the hidden activation of a MaskablePPO ``MlpPolicy``."""
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
    critic = [m for m in policy.mlp_extractor.value_net if isinstance(m, nn.Linear)]
    critic.append(policy.value_net)
    return layers, critic, activation


#: ``(out, in)`` of each weight matrix of one network, input layer first.
LayerShapes = list[tuple[int, int]]


def check_layer_shapes(policy: NumpyPolicy, actor: LayerShapes, critic: LayerShapes,
                       activation: str, name: str = "policy") -> None:
    """Raise unless ``policy`` has exactly this network: the actor's layer shapes, the critic's
    (only when ``policy`` has a critic) and the hidden activation.

    Layers are named as in the file (``hidden.<i>``, ``action``, ``value_hidden.<i>``,
    ``value``); ``name`` (the file) starts every message.

    Raises:
        PolicyFileError: one line naming the first layer that differs and both shapes, or
            both layer counts, or both activations.
    """
    if policy.activation != activation:
        raise PolicyFileError(f"{name} uses activation {policy.activation!r}, "
                              f"the model {activation!r}")
    nets = [("actor", "hidden", "action", policy.weights, policy.biases, actor)]
    if policy.has_value:
        nets.append(("critic", "value_hidden", "value", policy.value_weights or [],
                     policy.value_biases or [], critic))
    for net, hidden, out, weights, biases, shapes in nets:
        have = [tuple(int(n) for n in w.shape) for w in weights]
        if len(have) != len(shapes):
            raise PolicyFileError(
                f"{name}: the {net} has {len(have) - 1} hidden layer(s) "
                f"{[s[0] for s in have[:-1]]}, the model {len(shapes) - 1} "
                f"{[s[0] for s in shapes[:-1]]}")
        for i, (w, b, shape) in enumerate(zip(have, biases, shapes)):
            layer = out if i == len(shapes) - 1 else f"{hidden}.{i}"
            if w != tuple(shape) or tuple(b.shape) != (shape[0],):
                raise PolicyFileError(f"{name}: {net} layer {layer} has weight shape {w}, "
                                      f"the model {tuple(shape)}")


def policy_into_sb3(model: Any, policy: NumpyPolicy, name: str = "policy") -> None:
    """Copy ``policy``'s actor, and its critic when it has one, into a MaskablePPO model: the
    inverse of :func:`policy_from_sb3`.  A policy without a critic leaves the model's as it
    is.  Everything is checked (:func:`check_layer_shapes`) before anything is copied, so a
    refused policy leaves the model untouched.  The copy is in place: the optimizer keeps its
    (same) parameter objects.

    Raises:
        PolicyFileError: the networks differ (layer count, a shape, the activation).
    """
    layers, critic, activation = _sb3_networks(model)
    check_layer_shapes(policy, _shapes(layers), _shapes(critic), activation, name)
    copy_into(layers, policy.weights, policy.biases)
    if policy.has_value:
        copy_into(critic, policy.value_weights or [], policy.value_biases or [])


def copy_into(layers: list[Any], weights: list[np.ndarray], biases: list[np.ndarray]) -> None:
    """Copy ``weights`` and ``biases`` into the ``nn.Linear`` ``layers``, in place (the
    optimizer keeps its parameter objects); the shapes were checked by the caller."""
    import torch

    with torch.no_grad():
        for layer, weight, bias in zip(layers, weights, biases, strict=True):
            layer.weight.copy_(torch.from_numpy(np.asarray(weight, dtype=np.float32)))
            layer.bias.copy_(torch.from_numpy(np.asarray(bias, dtype=np.float32)))


def _shapes(layers: list[Any]) -> LayerShapes:
    return [(int(m.weight.shape[0]), int(m.weight.shape[1])) for m in layers]


def layer_copies(layers: list[Any], name: str) -> list[np.ndarray]:
    """float32 NumPy copies of one parameter (``weight`` / ``bias``) of each layer."""
    return [getattr(m, name).detach().cpu().numpy().astype(np.float32).copy() for m in layers]


# ---- from a saved .zip, without unpickling --------------------------------------------------
# How SB3 describes the activation class in the readable part of ``policy_kwargs``.
_ACTIVATION_REPRS = {
    "<class 'torch.nn.modules.activation.Tanh'>": "tanh",
    "<class 'torch.nn.modules.activation.ReLU'>": "relu",
}


def policy_from_sb3_zip(path: str | Path, info: dict[str, Any] | None = None) -> NumpyPolicy:
    """The actor (and critic) of a MaskablePPO ``.zip`` checkpoint, read without running code
    from it.  A checkpoint without the critic's tensors gives a policy without a value head.

    Raises:
        PolicyFileError: not a readable checkpoint, or an actor this format cannot hold.
    """
    path = Path(path)
    name = repr(str(path))
    if not path.is_file():
        raise PolicyFileError(f"checkpoint {name} does not exist")
    try:
        import torch
    except ImportError as exc:
        raise PolicyFileError(
            f"reading a .zip checkpoint needs torch: {install_command('train')}"
        ) from exc
    try:
        with zipfile.ZipFile(path) as zf:  # entries bounded before they are inflated
            data = parse_json(read_entry(zf, "data", MAX_CONFIG_BYTES * 16), what="data")
            # weights_only: torch's restricted unpickler, which admits tensors and plain
            # containers only, so a crafted policy.pth cannot run code either.
            state = torch.load(io.BytesIO(read_entry(zf, "policy.pth")), map_location="cpu",
                               weights_only=True)
    except Exception as exc:  # noqa: BLE001 -- zipfile, KeyError, JSON, torch: "unreadable"
        detail = one_line(exc)
        raise PolicyFileError(f"{name} is not a readable SB3 checkpoint: "
                              f"{type(exc).__name__}: {detail}") from None
    if not isinstance(data, dict) or not isinstance(state, dict):
        raise PolicyFileError(f"{name} is not a readable SB3 checkpoint: unexpected layout")
    try:
        weights, biases = layer_arrays(state, "mlp_extractor.policy_net", "action_net", _array)
    except (KeyError, TypeError) as exc:
        raise PolicyFileError(f"{name}: no MlpPolicy actor ({exc})") from None
    policy = NumpyPolicy(weights, biases, _zip_activation(name, data), dict(info or {}))
    try:
        policy.value_weights, policy.value_biases = layer_arrays(
            state, "mlp_extractor.value_net", "value_net", _array)
    except (KeyError, TypeError):
        pass  # no critic: actor only, as before
    return policy


def layer_arrays(state: Any, prefix: str, head: str, array: Callable[[Any], np.ndarray],
                 ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The weights and biases (through ``array``) of one network of a state dict: its hidden
    layers ``<prefix>.<i>`` in index order, then its output layer ``head``; a ``KeyError``
    when one is missing."""
    pattern = re.compile(re.escape(prefix) + r"\.(\d+)\.weight")
    hidden = sorted(int(m.group(1)) for key in state if (m := pattern.fullmatch(key)))
    names = [f"{prefix}.{i}" for i in hidden] + [head]
    return [array(state[f"{n}.weight"]) for n in names], [array(state[f"{n}.bias"]) for n in names]


def _array(tensor: Any) -> np.ndarray:
    import torch

    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"expected a tensor, got {type(tensor).__name__}")
    return tensor.detach().to(torch.float32).cpu().numpy().copy()


def _zip_activation(name: str, data: dict[str, Any]) -> str:
    """The hidden activation, from the readable description of ``policy_kwargs``."""
    kwargs = data.get("policy_kwargs") or {}
    described = kwargs.get("activation_fn") if isinstance(kwargs, dict) else None
    if described is None:
        return "tanh"  # SB3's ActorCriticPolicy default
    try:
        return _ACTIVATION_REPRS[described]
    except (KeyError, TypeError):
        raise PolicyFileError(f"{name}: cannot export activation {described!r}") from None


def run_export(argv: Sequence[str] | None, usage: str, read: Callable[[Path], NumpyPolicy],
               default_target: Callable[[Path], Path]) -> int:
    """The command line of an export, ``SOURCE [OUT.npz]`` (``usage`` names the source):
    convert with ``read(source)``, print the path written; 2 for bad arguments, 1 for a
    source that does not convert."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not 1 <= len(args) <= 2 or args[0] in ("-h", "--help"):
        print(f"usage: {usage} [OUT.npz]", file=sys.stderr)
        return 2
    source = Path(args[0])
    target = Path(args[1]) if len(args) == 2 else default_target(source)
    try:
        written = save_policy(read(source), target)
    except (PolicyFileError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(written)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m zavandor_env.train.ppo.export model.zip [policy.npz]``: convert, print the
    path."""
    return run_export(argv, "python -m zavandor_env.train.ppo.export MODEL.zip",
                      lambda source: policy_from_sb3_zip(source, {"exported_from": source.name}),
                      lambda source: source.with_suffix(SUFFIX))

if __name__ == "__main__":
    sys.exit(main())
