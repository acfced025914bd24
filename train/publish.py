"""Publish a trained run as a small, weights-only checkpoint folder with its figures.

    python -m zavandor_env.train.publish RUN_DIR --out train/checkpoints/selfplay_2p

writes ``policy.npz`` (weights only, loads with ``agents.PolicyAgent`` without unpickling),
``config.yaml`` (the run's config; ``resumes.jsonl``, the ``--set`` changes of its resumes, when
it was resumed) and ``eval.json``: win rates with 95% Wilson intervals,
mean VP, rounds and the share of cut-off games over ``--games`` fresh evaluation games per
opponent of the config's ``eval_opponents``, for both the sampled and the greedy policy.
Nothing from the SB3 ``.zip`` (pickled objects) is copied.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from zavandor_env.agents.policy_file import load_policy
from zavandor_env.agents.stats import wilson_interval


def publish(run_dir: Path, out: Path, games: int = 200, seed: int = 12345) -> dict[str, Any]:
    """Copy the run's weights-only policy and config to ``out`` and evaluate it afresh."""
    from .checkpointing import RESUMES
    from .evaluate import evaluate
    from .selfplay import load_run_config

    cfg = load_run_config(run_dir)
    policy_file = run_dir / "policy.npz"
    policy = load_policy(policy_file)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(policy_file, out / "policy.npz")
    shutil.copyfile(run_dir / "config.yaml", out / "config.yaml")
    # The config a run started with and the --set changes of its resumes: the recipe.
    resumes = run_dir / RESUMES
    if resumes.is_file() and not resumes.is_symlink():
        shutil.copyfile(resumes, out / RESUMES)
    elif (out / RESUMES).is_file():
        (out / RESUMES).unlink()  # a stale record of an earlier publish
    figures: dict[str, Any] = {"run": run_dir.name, "step": policy.info.get("step"),
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
                  f"{r.mean_rounds:.1f} rounds, truncated {r.truncated:.0%}")
    (out / "eval.json").write_text(json.dumps(figures, indent=2))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m zavandor_env.train.publish",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)
    try:
        publish(args.run_dir, args.out, args.games, args.seed)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
