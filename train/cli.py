"""``zavandor train``: the command-line face of :func:`train.selfplay.train`, for a config
with ``backend: rllib`` of :func:`train.rllib.run.train_rllib`, and for ``backend: exit`` of
:func:`train.exit.train_exit` (expert iteration).

Kept import-light: the RL stack is imported only when a run starts.  Every error a user can
cause (a bad config or override, a run folder without an intact checkpoint, a missing ``[rl]``
or ``[ray]`` extra) ends with one line on stderr and exit code 2; Ctrl-C ends with one line
saying how to resume and exit code 130.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

#: Modules of the ``[rl]`` extra that a training run imports.
RL_MODULES = ("torch", "gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib",
              "tensorboard", "openskill")
EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="YAML", default=None,
                        help="training config (default: configs/quick.yaml, a short run)")
    parser.add_argument("--set", dest="overrides", metavar="KEY=VALUE", action="append",
                        default=[], help="change any config key, e.g. --set total_timesteps=1e5 "
                        "--set game.max_rounds=40 --set opponent_weights.mcts:iterations=16=0.2 "
                        "(repeatable)")
    parser.add_argument("--resume", metavar="RUN_DIR", default=None,
                        help="continue a run from its newest intact checkpoint (its config.yaml "
                        "is used; --set still applies, e.g. a larger total_timesteps); only "
                        "tensors and JSON are read from the checkpoint, never pickled code")
    parser.add_argument("--address", metavar="ADDR", default=None,
                        help="backend rllib only: join a running Ray cluster ('auto' on one of "
                        "its nodes, or ray://HEAD:10001); default: start a local Ray for the "
                        "run and stop it afterwards (see docs/scaling.md)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def missing_rl_modules() -> list[str]:
    """The ``[rl]`` extra's modules that cannot be imported here (none are imported)."""
    missing = []
    for name in RL_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def _error(message: str) -> int:
    print(f"zavandor train: {message}", file=sys.stderr)
    return EXIT_USER_ERROR


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor train``; return the exit code."""
    missing = missing_rl_modules()
    if missing:
        return _error(f"zavandor train needs the [rl] extra (missing: {', '.join(missing)}): "
                      'pip install "zavandor-env[rl]"  (in a checkout: pip install -e ".[rl]")')
    try:
        return _run(args)
    except KeyboardInterrupt as exc:  # TrainingInterrupted says what was kept; else say so
        text = str(exc) or "interrupted before training started"
        print(f"\n{text}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _run(args: argparse.Namespace) -> int:
    from .checkpointing import CheckpointError
    from .config import TrainConfigError, default_config_path, load_config
    from .exit import SelfPlayError
    from .rllib import RayConnectionError, RayMissingError

    overrides = list(args.overrides)
    if args.quiet:
        overrides.append("progress_bar=false")
    if args.resume is not None and args.config is not None:
        return _error("--resume uses the run's own config.yaml; drop --config")
    address = getattr(args, "address", None)
    try:
        if args.resume is None:
            path = args.config if args.config is not None else default_config_path()
            cfg = load_config(path, overrides)
            backend = cfg.backend
        else:
            from .selfplay import load_run_config

            cfg = None
            backend = load_run_config(Path(args.resume), overrides).backend
        if backend == "rllib":
            run_dir = _run_rllib(cfg, args.resume, overrides, address)
        elif address is not None:
            return _error("--address joins a Ray cluster: it needs a config with backend: rllib")
        elif backend == "exit":
            from .exit import train_exit

            run_dir = train_exit(cfg, resume=args.resume,
                                 overrides=overrides if args.resume else None)
        else:
            from .selfplay import train

            run_dir = train(cfg, resume=args.resume,
                            overrides=overrides if args.resume else None)
    except (TrainConfigError, CheckpointError, FileNotFoundError, RayMissingError,
            RayConnectionError, SelfPlayError) as exc:
        return _error(str(exc))
    except OSError as exc:  # e.g. a full disk before the first checkpoint (saves say more)
        where = f" ({exc.filename})" if exc.filename else ""
        return _error(f"cannot write the run{where}: {exc.strerror or exc}")
    report(run_dir)
    return 0


def _run_rllib(cfg: object, resume: str | None, overrides: list[str],
               address: str | None) -> Path:
    """The rllib backend, or :class:`RayMissingError` naming the ``[ray]`` extra."""
    from .rllib import RayMissingError, ray_available

    if not ray_available():
        raise RayMissingError("backend rllib")
    from .rllib.run import train_rllib

    return train_rllib(cfg, resume=resume,  # type: ignore[arg-type]
                       overrides=overrides if resume else None, address=address)


def report(run_dir: Path) -> None:
    """Print where the run went, its last evaluation and how to look at it."""
    import shlex

    from zavandor_env.io.files import load_json

    print(f"\nrun folder: {run_dir}")
    eval_file = run_dir / "eval.json"
    if eval_file.is_file():
        try:  # written by this run, but the folder may be someone's: bounded, one line
            data = load_json(eval_file, what="eval.json")
            lines = [f"  vs {name:9s}: won {r['wins']}/{r['games']} ({r['winrate']:.0%}), "
                     f"mean VP {r['mean_vp']:.1f} vs {r['mean_opponent_vp']:.1f}, "
                     f"{r['mean_rounds']:.1f} rounds, {r['truncated']:.0%} cut off"
                     for name, r in data.get("eval", {}).items()]
            lines.append(f"  illegal actions: {data.get('illegal_actions', 0)}")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            lines = [f"  (no figures: {' '.join(str(exc).split())})"]
        print("\n".join(lines))
    print(f"  policy (weights only; agent spec policy:path=...): {run_dir / 'policy.npz'}")
    print(f"  continue it:  zavandor train --resume {shlex.quote(str(run_dir))}")
    print(f"  watch it:     tensorboard --logdir {shlex.quote(str(run_dir.parent))}   (then open "
          "http://localhost:6006)")
