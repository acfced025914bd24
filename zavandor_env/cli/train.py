"""``zavandor train`` and ``zavandor publish``: the command-line faces of the trainers
(:func:`zavandor_env.train.ppo.selfplay.train`, for ``trainer: rllib``
:func:`zavandor_env.train.rllib.run.train_rllib`, for ``trainer: exit``
:func:`zavandor_env.train.exit.run.train_exit`) and of
:func:`zavandor_env.train.common.publish.publish`.

Kept import-light: the RL stack is imported only when a run starts.  Every error a user can
cause (a bad config or override, a run folder without an intact checkpoint, a missing
``[train]`` or ``[ray]`` extra) ends with one line on stderr and exit code 2; Ctrl-C ends with
one line (for training: how to resume) and exit code 130.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zavandor_env.cli.common import NON_NEGATIVE, POSITIVE, did_you_mean, fail
from zavandor_env.extras import MissingExtraError, require

EXIT_INTERRUPTED = 130


#: ``zavandor train --help``: what the command does (the configs and examples follow).
DESCRIPTION = (
    "Trains a policy by self-play and writes a run folder (runs/<name>__<seed>__<date-time>: "
    "config.yaml, kill-safe checkpoints, TensorBoard logs, policy.npz and eval.json).  The "
    "config's trainer key chooses the trainer: masked PPO against a pool of its own "
    "snapshots and agent specs (default), RLlib PPO on Ray (trainer: rllib) or expert "
    "iteration (trainer: exit).  No arguments: configs/quick.yaml, a short run.  The run folder is "
    "printed at the start; at the end, the commands that evaluate and publish the policy.  "
    "Ctrl-C saves a checkpoint and prints the command that resumes.")

#: What ``zavandor publish --help`` says before the options.
PUBLISH_DESCRIPTION = (
    "Copies a training run's weights-only policy.npz and its config.yaml (and resumes.jsonl) "
    "to --out and writes eval.json: the policy's win rates with 95% Wilson intervals, mean "
    "VP and rounds over --games fresh games against each of the config's eval_opponents, "
    "sampled and greedy.  The games come first: an interrupted publish writes nothing.  A "
    "folder that is not empty (an earlier publish, or a policy shipped with the package) is "
    "replaced only with --overwrite.")

PUBLISH_EXAMPLES = """examples:
  # after zavandor train: publish the run it printed
  zavandor publish runs/quick__1__20260101-120000 --out published/quick
  # evaluate a shipped policy again into a folder of your own (a shipped folder works as RUN)
  zavandor publish train/checkpoints/selfplay_2p --out my_selfplay_2p --games 20"""


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


def add_train_parser(sub: Any) -> None:
    """Register ``train`` with the subcommands' action ``sub`` (argparse only: nothing heavy
    is imported)."""
    parser = sub.add_parser(
        "train", help="self-play training (masked PPO, RLlib PPO with trainer: rllib, or "
        "expert iteration with trainer: exit; TensorBoard, checkpoints, --resume); no "
        "arguments: a short quick run",
        description=DESCRIPTION, epilog=epilog())
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
    parser.set_defaults(func=run)


def short_config_error(message: str, overrides: list[str]) -> str:
    """An unknown-key error of the config as one short line: the key, where it was given
    (the ``--set`` item or the file) and the nearest known keys, instead of every key."""
    from zavandor_env.train.config import config_keys

    nested = re.match(r"(.*unknown [\w ]*key '([^']+)')(?: \(did you mean [^)]*\))?; known: (.+)$",
                      message)
    if nested is not None:  # a key inside a mapping (--set game.max_round=40): its own keys
        return nested[1] + (did_you_mean(nested[2], nested[3].split(", "))
                            or f"; known: {nested[3]}")
    match = re.match(r"unknown config key '([^']+)'.*? in (.+?); known keys", message)
    if match is None:
        return message
    key = match[1]
    given = next((f"--set {item}" for item in overrides
                  if item.partition("=")[0].strip().partition(".")[0] == key),
                 match[2].split(" + ")[0])
    hint = did_you_mean(key, config_keys()) or "; configs/README.md lists every key"
    return f"unknown config key {key!r} in {given}{hint}"


def run(args: argparse.Namespace) -> int:
    """Run ``zavandor train``; return the exit code."""
    try:  # before anything is read or written: the training libraries are an extra
        require("train", "training")
    except MissingExtraError as exc:
        return fail("train", exc)
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
        return fail("train", "--resume uses the run's own config.yaml; drop --config")
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
        return fail("train", short_config_error(str(exc), overrides))
    except (CheckpointError, FileNotFoundError, RayMissingError, RayConnectionError,
            SelfPlayError) as exc:
        return fail("train", exc)
    except OSError as exc:  # e.g. a full disk before the first checkpoint (saves say more)
        where = f" ({exc.filename})" if exc.filename else ""
        return fail("train", f"cannot write the run{where}: {exc.strerror or exc}")
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
    print(f"\nfinished: {run_dir}")  # (its "run folder:" line came when it started)
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
    players, rules = "", ""
    try:  # the policy plays the run's player count only
        from zavandor_env.train.config import load_config

        cfg = load_config(run_dir / "config.yaml")
        players = f" --players {cfg.num_players}"
        rules = _rules_note(cfg)
    except (OSError, ValueError):
        pass  # no readable config: eval's default player count
    published = shlex.quote(str(Path("published") / run_dir.name))
    return [
        f"  continue it:  zavandor train --resume {run}",
        f"  evaluate it:  zavandor eval --agents {spec} heuristic{players} --games 100{rules}",
        f"  publish it:   zavandor publish {run} --out {published}",
        f"  watch it:     tensorboard --logdir {shlex.quote(str(run_dir.parent))}   (then open "
        "http://localhost:6006)",
    ]


def _rules_note(cfg: Any) -> str:
    """Where the run's rules differ from the rulebook's (which ``zavandor eval`` plays
    unless given ``--game``): a note saying so, else nothing."""
    from zavandor_env.engine import GameConfig

    default = GameConfig(num_players=cfg.num_players).to_dict()
    ours = cfg.game_config().to_dict()
    differ = [f"{k}={ours[k]!r}".replace("False", "false").replace("True", "true")
              for k in sorted(ours) if ours[k] != default.get(k) and k != "max_decisions"]
    if not differ:
        return ""
    return (f"\n                (eval plays the rulebook's rules; this run trained with "
            f"{', '.join(differ)}: a --game file with those compares like with like)")


# ---- zavandor publish --------------------------------------------------------------------------
def add_publish_parser(sub: Any) -> None:
    """Register ``publish`` with the subcommands' action ``sub``."""
    parser = sub.add_parser(
        "publish", help="publish a trained run: its weights-only policy, config and fresh "
        "evaluation figures, in a folder of their own",
        description=PUBLISH_DESCRIPTION, epilog=PUBLISH_EXAMPLES)
    _publish_arguments(parser)


def _publish_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``zavandor publish`` (and of ``python -m
    zavandor_env.train.common.publish``)."""
    parser.add_argument("run_dir", metavar="RUN_DIR", type=Path,
                        help="a training run folder (printed by zavandor train), or a "
                        "published one to evaluate again")
    parser.add_argument("--out", metavar="DIR", type=Path, required=True,
                        help="the folder to publish to: new or empty, or given with --overwrite")
    parser.add_argument("--games", type=POSITIVE, default=200,
                        help="evaluation games per opponent and policy mode (default 200)")
    parser.add_argument("--seed", type=NON_NEGATIVE, default=12345,
                        help="first deal seed of the evaluation games (default 12345)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the policy.npz, config.yaml and eval.json already in --out "
                        "(an earlier publish, or a shipped policy's folder)")
    parser.set_defaults(func=run_publish)


def run_publish(args: argparse.Namespace) -> int:
    """Run ``zavandor publish``; return the exit code (errors: one line, exit code 2)."""
    from zavandor_env.train.common.publish import publish

    try:
        publish(args.run_dir, args.out, args.games, args.seed, overwrite=args.overwrite)
    except (OSError, ValueError) as exc:
        text = exc.strerror if isinstance(exc, OSError) and exc.filename and exc.strerror else exc
        where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
        return fail("publish", f"{text}{where}")
    except KeyboardInterrupt:
        print("\nzavandor publish: interrupted (the files are written after the games)",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"published {args.run_dir} to {args.out} (agent spec: "
          f"policy:path={args.out / 'policy.npz'})")
    return 0


def publish_main(argv: list[str] | None = None) -> int:
    """``python -m zavandor_env.train.common.publish``: the same command as ``zavandor publish``."""
    parser = argparse.ArgumentParser(prog="python -m zavandor_env.train.common.publish",
                                     description=PUBLISH_DESCRIPTION, epilog=PUBLISH_EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    _publish_arguments(parser)
    return run_publish(parser.parse_args(argv))
