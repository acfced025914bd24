"""``zavandor train``: the command-line face of :func:`zavandor_env.train.ppo.selfplay.train`, for
a config
with ``backend: rllib`` of :func:`train.rllib.run.train_rllib`, and for ``backend: exit`` of
:func:`train.exit.train_exit` (expert iteration).

Kept import-light: the RL stack is imported only when a run starts.  Every error a user can
cause (a bad config or override, a run folder without an intact checkpoint, a missing
``[train]`` or ``[ray]`` extra) ends with one line on stderr and exit code 2; Ctrl-C ends with
one line saying how to resume and exit code 130.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path

from zavandor_env.extras import MissingExtraError, require

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


#: ``zavandor train --help``: what the command does (the configs and examples follow).
DESCRIPTION = (
    "Trains a policy by self-play and writes a run folder (runs/<name>__<seed>__<date-time>: "
    "config.yaml, kill-safe checkpoints, TensorBoard logs, policy.npz and eval.json).  The "
    "config's trainer key chooses the trainer: MaskablePPO against a pool of its own "
    "snapshots and agent specs (default), RLlib PPO on Ray (trainer: rllib) or expert "
    "iteration (trainer: exit).  No arguments: configs/quick.yaml, a short run.  The run folder is "
    "printed at the start; at the end, the commands that evaluate and publish the policy.  "
    "Ctrl-C saves a checkpoint and prints the command that resumes.")


def _header_summary(path: Path, width: int = 60) -> str:
    """The first phrase of a config's leading comment: its text up to the first ':', '(',
    ';' or sentence end, cut to ``width`` characters."""
    lines: list[str] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#") or len(lines) >= 5:
                break
            lines.append(line.lstrip("#").strip())
    text = " ".join(lines)
    for stop in (": ", " (", "; ", ". "):
        text = text.split(stop)[0]
    text = text.rstrip(".")
    return text if len(text) <= width else text[:width - 3].rsplit(" ", 1)[0] + "..."


def epilog() -> str:
    """The shipped configs (each with the first phrase of its header comment) and examples,
    shown after the options of ``zavandor train --help``."""
    from zavandor_env.resources import PACKAGE_DIR

    configs = []
    for path in sorted((PACKAGE_DIR / "configs").glob("*.yaml")):
        try:
            configs.append(f"  configs/{path.name:24s} {_header_summary(path)}")
        except (OSError, UnicodeDecodeError):
            continue  # an unreadable file is no shipped config to offer
    return "\n".join([
        "shipped configs (--config configs/NAME.yaml; from any folder):", *configs, "",
        "examples:",
        "  # the short quick run (seconds)",
        "  zavandor train",
        "  # the 2-player self-play run (about an hour on 2 cores), quietly",
        "  zavandor train --config configs/selfplay_2p.yaml --quiet",
        "  # any config key changed on the command line",
        "  zavandor train --set ppo.total_timesteps=1e5 --set game.max_rounds=40",
    ])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``zavandor train`` (argparse only: nothing heavy is imported)."""
    parser.add_argument("--config", metavar="YAML", default=None,
                        help="training config (default: configs/quick.yaml, a short run; the "
                        "shipped ones are listed below)")
    parser.add_argument("--set", dest="overrides", metavar="KEY=VALUE", action="append",
                        default=[], help="change any config key, e.g. --set "
                        "ppo.total_timesteps=1e5 "
                        "--set game.max_rounds=40 --set opponent_weights.mcts:iterations=16=0.2 "
                        "(repeatable)")
    parser.add_argument("--resume", metavar="RUN_DIR", default=None,
                        help="continue a run from its newest intact checkpoint (its config.yaml "
                        "is used; --set still applies, e.g. a larger ppo.total_timesteps); only "
                        "tensors and JSON are read from the checkpoint, never pickled code")
    parser.add_argument("--address", metavar="ADDR", default=None,
                        help="trainer rllib only: join a running Ray cluster ('auto' on one of "
                        "its nodes, or ray://HEAD:10001); default: start a local Ray for the "
                        "run and stop it afterwards (see docs/scaling.md)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (none is drawn "
                        "when stderr is not a terminal)")


def short_config_error(message: str, overrides: list[str]) -> str:
    """An unknown-key error of the config as one short line: the key, where it was given
    (the ``--set`` item or the file) and the nearest known keys, instead of every key."""
    import difflib
    import re

    from zavandor_env.train.config import config_keys

    def did_you_mean(word: str, known: list[str]) -> str | None:
        near = difflib.get_close_matches(word, known, n=3, cutoff=0.6)
        return f"did you mean {' or '.join(repr(k) for k in near)}?" if near else None

    nested = re.match(r"(.*unknown [\w ]*key '([^']+)')(?: \(did you mean [^)]*\))?; known: (.+)$",
                      message)
    if nested is not None:  # a key inside a mapping (--set game.max_round=40): its own keys
        return f"{nested[1]}; " + (did_you_mean(nested[2], nested[3].split(", "))
                                   or f"known: {nested[3]}")
    match = re.match(r"unknown config key '([^']+)'.*? in (.+?); known keys", message)
    if match is None:
        return message
    key = match[1]
    given = next((f"--set {item}" for item in overrides
                  if item.partition("=")[0].strip().partition(".")[0] == key),
                 match[2].split(" + ")[0])
    hint = did_you_mean(key, config_keys()) or "configs/README.md lists every key"
    return f"unknown config key {key!r} in {given}; {hint}"


def _error(message: str) -> int:
    print(f"zavandor train: {message}", file=sys.stderr)
    return EXIT_USER_ERROR


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor train``; return the exit code."""
    try:  # before anything is read or written: the training libraries are an extra
        require("train", "training")
    except MissingExtraError as exc:
        return _error(str(exc))
    try:
        return _run(args)
    except KeyboardInterrupt as exc:  # TrainingInterrupted says what was kept; else say so
        text = str(exc) or "interrupted before training started"
        print(f"\n{text}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _run(args: argparse.Namespace) -> int:
    from zavandor_env.train.common.checkpointing import CheckpointError
    from zavandor_env.train.config import TrainConfigError, default_config_path, load_config
    from zavandor_env.train.exit.selfplay import SelfPlayError
    from zavandor_env.train.rllib import RayConnectionError, RayMissingError

    overrides = list(args.overrides)
    if args.quiet:
        overrides.append("progress_bar=false")
    if args.resume is not None and args.config is not None:
        return _error("--resume uses the run's own config.yaml; drop --config")
    try:
        if args.resume is None:
            path = args.config if args.config is not None else default_config_path()
            cfg = load_config(path, overrides)
            trainer = cfg.trainer
        else:
            from zavandor_env.train.common.run import load_run_config

            cfg = None
            trainer = load_run_config(Path(args.resume), overrides).trainer
            print(f"run folder: {args.resume} (resuming)", flush=True)  # a new one: once made
        train = _trainer(trainer, args.address)
        run_dir = train(cfg, resume=args.resume, overrides=overrides if args.resume else None)
    except TrainConfigError as exc:
        return _error(short_config_error(str(exc), overrides))
    except (CheckpointError, FileNotFoundError, RayMissingError, RayConnectionError,
            SelfPlayError) as exc:
        return _error(str(exc))
    except OSError as exc:  # e.g. a full disk before the first checkpoint (saves say more)
        where = f" ({exc.filename})" if exc.filename else ""
        return _error(f"cannot write the run{where}: {exc.strerror or exc}")
    report(run_dir)
    return 0


def _trainer(name: str, address: str | None) -> Callable[..., Path]:
    """The training function of trainer ``name`` (imported now: the RL stack is heavy), or a
    one-line error: RLlib without the ``[ray]`` extra, ``--address`` without RLlib."""
    from zavandor_env.train.config import TrainConfigError

    if name == "rllib":
        from zavandor_env.train.rllib import RayMissingError, ray_available

        if not ray_available():
            raise RayMissingError("trainer rllib")
        from zavandor_env.train.rllib.run import train_rllib

        return functools.partial(train_rllib, address=address)
    if address is not None:
        raise TrainConfigError("--address joins a Ray cluster: it needs a config with "
                               "trainer: rllib")
    if name == "exit":
        from zavandor_env.train.exit.run import train_exit

        return train_exit
    from zavandor_env.train.ppo.selfplay import train

    return train


def report(run_dir: Path) -> None:
    """Print where the run went, its last evaluation, and the commands that continue it,
    evaluate its policy, publish it and show its charts."""
    print(f"\nrun folder: {run_dir}")
    eval_file = run_dir / "eval.json"
    if eval_file.is_file():
        print("\n".join(_figures(eval_file)))
    print(f"  policy (weights only; agent spec policy:path=...): {run_dir / 'policy.npz'}")
    print("\n".join(next_commands(run_dir)))


def _figures(eval_file: Path) -> list[str]:
    """The run's last evaluation, one line per opponent (or one line saying why not)."""
    from zavandor_env.io.files import load_json
    from zavandor_env.io.printable import terminal_safe

    try:  # written by this run, but the folder may be someone's: bounded, one line, escaped
        data = load_json(eval_file, what="eval.json")
        lines = [f"  vs {terminal_safe(str(name), one_line=True):9s}: won "
                 f"{r['wins']}/{r['games']} ({r['winrate']:.0%}), "
                 f"mean VP {r['mean_vp']:.1f} vs {r['mean_opponent_vp']:.1f}, "
                 f"{r['mean_rounds']:.1f} rounds, {r['truncated']:.0%} cut off"
                 for name, r in data.get("eval", {}).items()]
        lines.append(f"  illegal actions: {data.get('illegal_actions', 0)}")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        lines = [f"  (no figures: {' '.join(str(exc).split())})"]
    return lines


def next_commands(run_dir: Path) -> list[str]:
    """The exact commands that continue, evaluate, publish and chart the run in ``run_dir``
    (each quoted for a POSIX shell)."""
    import shlex

    run = shlex.quote(str(run_dir))
    spec = shlex.quote(f"policy:path={run_dir / 'policy.npz'}")
    players = ""
    try:  # the policy plays the run's player count only
        from zavandor_env.train.config import load_config

        players = f" --players {load_config(run_dir / 'config.yaml').num_players}"
    except (OSError, ValueError):
        pass  # no readable config: eval's default player count
    published = shlex.quote(str(Path("published") / run_dir.name))
    return [
        f"  continue it:  zavandor train --resume {run}",
        f"  evaluate it:  zavandor eval --agents {spec} heuristic{players} --games 100",
        f"  publish it:   zavandor publish {run} --out {published}",
        f"  watch it:     tensorboard --logdir {shlex.quote(str(run_dir.parent))}   (then open "
        "http://localhost:6006)",
    ]
