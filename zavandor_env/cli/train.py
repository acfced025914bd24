"""``zavandor train`` and ``zavandor publish``: the parsers; the drivers live in
``zavandor_env.train.cli`` and ``zavandor_env.train.common.publish`` (argparse only until a run
starts: the RL stack is imported then)."""

from __future__ import annotations

from typing import Any


def add_train_parser(sub: Any) -> None:
    """Register ``train`` with the subcommands' action ``sub``."""
    from zavandor_env.train import cli as train_cli

    train = sub.add_parser(
        "train", help="self-play training (MaskablePPO, RLlib PPO with backend: rllib, or "
        "expert iteration with backend: exit; TensorBoard, checkpoints, --resume); no "
        "arguments: a short quick run",
        description=train_cli.DESCRIPTION, epilog=train_cli.epilog())
    train_cli.add_arguments(train)
    train.set_defaults(func=train_cli.run)


def add_publish_parser(sub: Any) -> None:
    """Register ``publish`` with the subcommands' action ``sub``."""
    from zavandor_env.train.common import publish
    parser = sub.add_parser(
        "publish", help="publish a trained run: its weights-only policy, config and fresh "
        "evaluation figures, in a folder of their own",
        description=publish.DESCRIPTION, epilog=publish.EXAMPLES)
    publish.add_arguments(parser)
    parser.set_defaults(func=publish.run)
