"""Warm start: the config key ``init_policy`` names a weights-only policy (``.npz``) whose actor,
and critic when the file has one, a NEW run copies into its freshly built model before the
first training step.

:func:`read_init_policy` reads the file and checks it against the config alone (observation
size, ``net_arch``, action count, ``activation``, observation-layout fingerprint), so a file
that does not fit fails with one line before any run folder exists; the copy itself is
:func:`zavandor_env.train.ppo.export.policy_into_sb3`, the inverse of the export.

``--resume`` never reads the file: the run's own checkpoint wins.  The key stays in the run's
``config.yaml`` as a record of where the run started.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from zavandor_env.agents.policy_file import NumpyPolicy, PolicyFileError, load_policy
from zavandor_env.resources import data_path
from zavandor_env.train.config import TrainConfig, TrainConfigError
from zavandor_env.train.ppo.export import LayerShapes, check_layer_shapes

KEY = "init_policy"


def config_shapes(cfg: TrainConfig) -> tuple[LayerShapes, LayerShapes]:
    """``(out, in)`` of every weight matrix of the actor and of the critic that
    :func:`zavandor_env.train.ppo.selfplay.make_model` builds from ``cfg``."""
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    sizes = [OBS_SIZE, *cfg.net_arch]
    hidden = [(out, inp) for inp, out in pairwise(sizes)]
    return hidden + [(NUM_ACTIONS, sizes[-1])], hidden + [(1, sizes[-1])]


def read_init_policy(cfg: TrainConfig) -> tuple[Path, NumpyPolicy]:
    """The file ``cfg.init_policy`` names and its policy, checked to fit the config's model.

    It is read by :func:`~zavandor_env.agents.policy_file.load_policy` (no pickle), whose
    observation-layout fingerprint check is the one ``PolicyAgent`` relies on.

    Raises:
        TrainConfigError: one line naming the key: the file is missing or unreadable, records
            another observation layout, or a layer count, a layer shape (the layer and both
            shapes) or the activation differs from what the config builds.
    """
    # A relative path is taken from the current directory, else from the package (as an agent
    # spec's ``policy:path=``), so the shipped train/checkpoints/<run>/policy.npz is found
    # from anywhere; the callers ask only for a config that names a file.
    path = data_path(str(cfg.init_policy))
    actor, critic = config_shapes(cfg)
    try:
        policy = load_policy(path)
        check_layer_shapes(policy, actor, critic, cfg.activation, repr(str(path)))
    except PolicyFileError as exc:
        raise TrainConfigError(f"config key {KEY!r}: {exc}") from None
    return path, policy
