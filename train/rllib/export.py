"""Export an RLlib :class:`~.module.MaskedActorCritic` to the weights-only policy format.

The module's layers are the format's layers (:mod:`zavandor_env.agents.policy_file`):
``actor.<i>`` are the hidden layers, ``action_head`` the action layer, ``critic.<i>`` and
``value_head`` the optional critic -- so this is a copy, as
``zavandor_env.train.ppo.export.policy_from_sb3``
is for MaskablePPO.  The delegate actions of scripted seats (rows ``NUM_ACTIONS..``, see
:mod:`.env`) are dropped: they are never legal, and ``PolicyAgent``, ``eval``, ``play`` and
``scorecard`` expect exactly the game's actions.  The file records the running code's
observation fingerprint (the module was trained on this code's environment).

Command line: ``python -m zavandor_env.train.rllib.export RUN_DIR_OR_CHECKPOINT [OUT.npz]``
converts the newest checkpoint of a run (or one checkpoint folder) without Ray.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.agents.policy_file import NumpyPolicy, PolicyFileError, save_policy
from zavandor_env.engine.actions import NUM_ACTIONS

_LAYER = re.compile(r"(actor|critic)\.(\d+)\.weight")


def _array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor (checkpoint files hold those)
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.float32).copy()


def _tower(state: Mapping[str, Any], tower: str, head: str) -> tuple[list[np.ndarray],
                                                                     list[np.ndarray]]:
    indices = sorted(int(m.group(2)) for key in state
                     if (m := _LAYER.fullmatch(key)) and m.group(1) == tower)
    names = [f"{tower}.{i}" for i in indices] + [head]
    try:
        return ([_array(state[f"{n}.weight"]) for n in names],
                [_array(state[f"{n}.bias"]) for n in names])
    except KeyError as exc:
        raise PolicyFileError(f"module state lacks {exc.args[0]!r}") from None


def policy_from_module_state(state: Mapping[str, Any], activation: str,
                             info: dict[str, Any] | None = None) -> NumpyPolicy:
    """The weights-only policy of one ``MaskedActorCritic`` state dict (arrays or tensors);
    the critic is included when the state has it (a learner's module does)."""
    weights, biases = _tower(state, "actor", "action_head")
    weights[-1], biases[-1] = weights[-1][:NUM_ACTIONS], biases[-1][:NUM_ACTIONS]
    policy = NumpyPolicy(weights, biases, activation, dict(info or {}))
    if "value_head.weight" in state:
        policy.value_weights, policy.value_biases = _tower(state, "critic", "value_head")
    return policy


def policy_from_checkpoint(path: str | Path, info: dict[str, Any] | None = None) -> NumpyPolicy:
    """``main``'s policy from an RLlib-backend checkpoint folder, or the newest intact one of a
    run folder; reads tensors and JSON only (no Ray, no pickled objects)."""
    from zavandor_env.train.common.checkpointing import (
        CheckpointError,
        find_resumable,
        read_checkpoint,
    )
    from zavandor_env.train.config import load_config

    path = Path(path)
    try:
        if (path / "config.yaml").is_file():
            run_dir = path
            checkpoint = find_resumable(path, lambda line: print(line, file=sys.stderr))
        else:
            run_dir = path.parent.parent
            checkpoint = read_checkpoint(path, run_dir / "pool")
        cfg = load_config(run_dir / "config.yaml")
    except (CheckpointError, ValueError, OSError) as exc:
        raise PolicyFileError(str(exc)) from None
    modules = checkpoint.params.get("policy", {})
    if "main" not in modules:
        raise PolicyFileError(f"{str(checkpoint.path)!r} is no RLlib-backend checkpoint "
                              "(no 'main' module)")
    meta = {"step": checkpoint.step, "config": cfg.to_dict(), **dict(info or {})}
    return policy_from_module_state(modules["main"], cfg.activation, meta)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m zavandor_env.train.rllib.export RUN_OR_CHECKPOINT [OUT.npz]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not 1 <= len(args) <= 2 or args[0] in ("-h", "--help"):
        print("usage: python -m zavandor_env.train.rllib.export RUN_DIR_OR_CHECKPOINT "
              "[OUT.npz]", file=sys.stderr)
        return 2
    source = Path(args[0])
    target = Path(args[1]) if len(args) == 2 else source / "policy.npz"
    try:
        written = save_policy(policy_from_checkpoint(source, {"exported_from": str(source)}),
                              target)
    except (PolicyFileError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
