"""Publish a trained run as a small, weights-only policy folder with its figures.

    zavandor publish RUN_DIR --out DIR [--games 200] [--seed 12345] [--overwrite]

(``python -m zavandor_env.train.common.publish`` takes the same arguments) writes to ``DIR``:
``policy.npz`` (weights only, loads with ``agents.PolicyAgent`` without unpickling),
``config.yaml`` (the run's config; ``resumes.jsonl``, the ``--set`` changes of its resumes, when
it was resumed) and ``eval.json``: win rates with 95% Wilson intervals, mean VP, rounds and the
share of cut-off games over ``--games`` fresh evaluation games per opponent of the config's
``eval_opponents``, for both the sampled and the greedy policy.  Nothing from the SB3 ``.zip``
(pickled objects) is copied.

The games are played before anything is written, and an existing folder that is not empty (a
policy published before, or one shipped with the package under ``train/checkpoints``) is
replaced only with ``--overwrite``; files there that publish does not write are left alone.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any


class PublishError(ValueError):
    """A publish the arguments do not allow (reported on one line, exit code 2)."""


def check_destination(out: Path, run_dir: Path, overwrite: bool) -> None:
    """Refuse an ``out`` that would lose something: the run folder itself, a file, or a folder
    with files (a published or shipped policy) without ``overwrite``."""
    from zavandor_env.resources import PACKAGE_DIR

    if out.exists() and out.resolve() == run_dir.resolve():
        raise PublishError(f"--out {str(out)!r} is the run folder itself: give another folder")
    if out.exists() and not out.is_dir():
        raise PublishError(f"--out {str(out)!r} is a file, not a folder")
    if overwrite or not out.is_dir() or not any(out.iterdir()):
        return
    shipped = PACKAGE_DIR / "train" / "checkpoints"
    what = ("a policy shipped with the package" if out.resolve().is_relative_to(shipped.resolve())
            else "a folder that is not empty")
    raise PublishError(f"--out {str(out)!r} is {what}; give --overwrite to replace its "
                       "policy.npz, config.yaml and eval.json, or another folder")


def publish(run_dir: Path, out: Path, games: int = 200, seed: int = 12345,
            overwrite: bool = False) -> dict[str, Any]:
    """Evaluate the run's weights-only policy afresh, then copy it and its config to ``out``.

    ``run_dir`` may be a shipped folder named as the README does (``train/checkpoints/...``).

    Raises:
        PublishError: ``out`` is the run, a file, or a folder with files and not ``overwrite``.
        FileNotFoundError, ValueError: no run folder, or a policy or config that does not load.
    """
    from zavandor_env.agents.policy_file import load_policy
    from zavandor_env.resources import data_path
    from zavandor_env.train.common.run import load_run_config

    run_dir = data_path(run_dir)
    check_destination(out, run_dir, overwrite)
    cfg = load_run_config(run_dir)
    policy = load_policy(run_dir / "policy.npz")
    figures = _evaluate(policy, cfg, run_dir.name, games, seed)
    check_destination(out, run_dir, overwrite)  # again: the games took a while
    _write(run_dir, out, figures)
    return figures


def _evaluate(policy: Any, cfg: Any, run_name: str, games: int, seed: int) -> dict[str, Any]:
    """``eval.json``'s figures: every eval opponent, sampled and greedy (a line printed each)."""
    from zavandor_env.eval.stats import wilson_interval
    from zavandor_env.train.common.evaluate import evaluate

    figures: dict[str, Any] = {"run": run_name, "step": policy.info.get("step"),
                               "games_per_row": games, "seed": seed, "results": []}
    for deterministic in (False, True):
        for opponent in cfg.eval_opponents:
            r = evaluate(policy, opponent, games, cfg.game_config(), seed=seed,
                         deterministic=deterministic)
            low, high = wilson_interval(r.wins, r.games)
            row = {"policy": "greedy" if deterministic else "sampled", **r.to_dict(),
                   "winrate_ci95": [round(low, 4), round(high, 4)]}
            figures["results"].append(row)
            print(f"{row['policy']:8s} vs {opponent:9s}: {r.wins}/{r.games} = {r.winrate:.1%} "
                  f"[{low:.1%}, {high:.1%}], VP {r.mean_vp:.1f} vs {r.mean_opponent_vp:.1f}, "
                  f"{r.mean_rounds:.1f} rounds, truncated {r.truncated:.0%}", flush=True)
    return figures


def _write(run_dir: Path, out: Path, figures: dict[str, Any]) -> None:
    """The published files; each is replaced whole (a full disk leaves the old or none)."""
    import json

    from zavandor_env.io.files import write_atomic
    from zavandor_env.train.common.checkpointing import RESUMES

    out.mkdir(parents=True, exist_ok=True)
    for name in ("policy.npz", "config.yaml"):
        write_atomic(out / name, (run_dir / name).read_bytes())
    # The config a run started with and the --set changes of its resumes: the recipe.
    resumes = run_dir / RESUMES
    if resumes.is_file() and not resumes.is_symlink():
        shutil.copyfile(resumes, out / RESUMES)
    elif (out / RESUMES).is_file():
        (out / RESUMES).unlink()  # a stale record of an earlier publish
    write_atomic(out / "eval.json", json.dumps(figures, indent=2))


if __name__ == "__main__":  # the older spelling of ``zavandor publish``, shown in docs/
    from zavandor_env.cli.train import publish_main

    sys.exit(publish_main())
