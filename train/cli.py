"""``zavandor train``: the command-line face of :func:`train.selfplay.train`.

Kept import-light: the RL stack is imported only when a run starts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="YAML", default=None,
                        help="training config (default: configs/quick.yaml, a short run)")
    parser.add_argument("--set", dest="overrides", metavar="KEY=VALUE", action="append",
                        default=[], help="change any config key, e.g. --set total_timesteps=1e5 "
                        "--set game.max_rounds=40 (repeatable)")
    parser.add_argument("--resume", metavar="RUN_DIR", default=None,
                        help="continue a run from its newest checkpoint (its config.yaml is used; "
                        "--set still applies, e.g. a larger total_timesteps)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from .config import TrainConfigError, default_config_path, load_config

    overrides = list(args.overrides)
    if args.quiet:
        overrides.append("progress_bar=false")
    try:
        if args.resume is not None:
            if args.config is not None:
                print("error: --resume uses the run's own config.yaml; drop --config",
                      file=sys.stderr)
                return 2
            cfg = None
        else:
            path = args.config if args.config is not None else default_config_path()
            cfg = load_config(path, overrides)
    except TrainConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    from .selfplay import train

    try:
        run_dir = train(cfg, resume=args.resume, overrides=overrides if args.resume else None)
    except (TrainConfigError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report(run_dir)
    return 0


def report(run_dir: Path) -> None:
    """Print where the run went, its last evaluation and how to look at it."""
    import json

    print(f"\nrun folder: {run_dir}")
    eval_file = run_dir / "eval.json"
    if eval_file.is_file():
        data = json.loads(eval_file.read_text())
        for name, r in data.get("eval", {}).items():
            print(f"  vs {name:9s}: won {r['wins']}/{r['games']} ({r['winrate']:.0%}), "
                  f"mean VP {r['mean_vp']:.1f} vs {r['mean_opponent_vp']:.1f}, "
                  f"{r['mean_rounds']:.1f} rounds")
        print(f"  illegal actions: {data.get('illegal_actions', 0)}")
    print(f"  policy (weights only, for agents.PolicyAgent): {run_dir / 'policy.npz'}")
    print(f"  continue it:  zavandor train --resume {run_dir}")
    print(f"  watch it:     tensorboard --logdir {run_dir.parent}   (then open "
          "http://localhost:6006)")
