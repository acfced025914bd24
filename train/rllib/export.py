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

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zavandor_env.agents.policy_file import NumpyPolicy, PolicyFileError
from zavandor_env.engine.actions import NUM_ACTIONS


def _array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor (checkpoint files hold those)
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.float32).copy()


def _tower(state: Mapping[str, Any], tower: str, head: str) -> tuple[list[np.ndarray],
                                                                     list[np.ndarray]]:
    from zavandor_env.train.ppo.export import layer_arrays

    try:
        return layer_arrays(state, tower, head, _array)
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
    from zavandor_env.train.ppo.export import run_export

    return run_export(argv, "python -m zavandor_env.train.rllib.export RUN_DIR_OR_CHECKPOINT",
                      lambda source: policy_from_checkpoint(source,
                                                            {"exported_from": str(source)}),
                      lambda source: source / "policy.npz")

if __name__ == "__main__":
    sys.exit(main())
