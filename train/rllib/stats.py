"""What the env runners tell the trainer about finished games, and the charts made from it.

:class:`GameStatsCallback` runs inside every env runner: at the end of each game it takes the
environment's summary of it (the result, every seat's decisions per action block and rewards,
from the final info), adds who played each seat (RLlib's episode knows the modules) and keeps
one plain-data summary per game, seen from ``main``'s seat, in its process.  The trainer
collects and clears them after every training iteration with :func:`pop_summaries`
(``foreach_env_runner``), which works the same for runners in other processes, on other
machines, or in the trainer's own process.

:func:`chart_games` turns the summaries into the TensorBoard scalars of the SB3 trainer
(``actions/share_*``, ``charts/*``, ``rating/*``), so both backends draw the same charts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback

from zavandor_env.envs.rllib import SUMMARY_KEY
from zavandor_env.envs.training import BLOCK_NAMES
from zavandor_env.train.rating import ANCHOR, PoolRating
from zavandor_env.train.rllib.league import MAIN, League

#: Summaries of the games finished in this process since the trainer last collected them.
_SUMMARIES: list[dict[str, Any]] = []


def pop_summaries(_env_runner: Any = None) -> list[dict[str, Any]]:
    """This process's game summaries since the last call (and forget them)."""
    out = list(_SUMMARIES)
    _SUMMARIES.clear()
    return out


def game_summary(episode: Any) -> dict[str, Any] | None:
    """One finished game: the environment's summary of it (result, every seat's decisions per
    action block and rewards), the module of every seat, and ``main``'s seat, decisions and
    return (``None`` when ``main`` had no seat)."""
    agents = sorted(episode.agent_episodes, key=lambda a: int(str(a).rpartition("_")[2]))
    modules = [episode.module_for(a) for a in agents]
    if MAIN not in modules:
        return None
    seat = modules.index(MAIN)
    infos = episode.agent_episodes[agents[seat]].get_infos(-1)
    result = infos.get(SUMMARY_KEY) if isinstance(infos, dict) else None
    if result is None:  # not the end of a game
        return None
    blocks = list(result["blocks"][seat])
    game = {k: v for k, v in result.items() if k not in ("blocks", "paid")}
    return {**game, "seat": seat, "modules": modules, "blocks": blocks,
            "return": float(result["paid"][seat]), "main_decisions": int(sum(blocks))}


class GameStatsCallback(RLlibCallback):
    """Keeps a :func:`game_summary` of every finished game in the env runner's process."""

    def on_episode_end(self, *, episode: Any, **kwargs: Any) -> None:
        summary = game_summary(episode)
        if summary is not None:
            _SUMMARIES.append(summary)


def chart_games(record: Callable[[str, float], None], summaries: list[dict[str, Any]],
                league: League, rating: PoolRating, totals: dict[str, Any],
                rated: Sequence[str] = ()) -> None:
    """Chart the games of one iteration as the SB3 trainer does, and rate them; ``rated``:
    the labels of the agent specs whose rating is charted (training and evaluation ones)."""
    totals["illegal_actions"] = (totals.get("illegal_actions", 0)
                                 + sum(bool(s["illegal"]) for s in summaries))
    record("charts/illegal_actions", float(totals["illegal_actions"]))
    if summaries:
        blocks = np.sum([s["blocks"] for s in summaries], axis=0)
        total = max(int(blocks.sum()), 1)
        for name, count in zip(BLOCK_NAMES, blocks):
            record(f"actions/share_{name}", float(count) / total)
        seats = [s["seat"] for s in summaries]
        vp = [s["scores"][seat] for s, seat in zip(summaries, seats)]
        opp = [float(np.mean([v for i, v in enumerate(s["scores"]) if i != seat]))
               for s, seat in zip(summaries, seats)]
        won = [seat in s["winners"] for s, seat in zip(summaries, seats)]
        record("charts/mean_vp", float(np.mean(vp)))
        record("charts/mean_opponent_vp", float(np.mean(opp)))
        record("charts/mean_rounds", float(np.mean([s["rounds"] for s in summaries])))
        record("charts/truncated", float(np.mean([not s["terminated"] for s in summaries])))
        record("charts/winrate_train", float(np.mean(won)))
        record("rollout/ep_rew_mean", float(np.mean([s["return"] for s in summaries])))
        record("rollout/ep_len_mean", float(np.mean([s["main_decisions"] for s in summaries])))
        by_kind: dict[str, list[bool]] = {}
        for s, w in zip(summaries, won):
            labels = [league.label(m) for m in s["modules"]]
            kinds = {lab.split("@")[0] for i, lab in enumerate(labels) if i != s["seat"]}
            if len(kinds) == 1:  # one opponent kind in the game (every 2-player game)
                by_kind.setdefault(kinds.pop(), []).append(w)
            if not s["illegal"]:
                rating.update(labels, s["ranks"])
        for kind, ws in by_kind.items():
            record(f"charts/winrate_train_vs_{kind}", float(np.mean(ws)))
    mu, ordinal = rating.learner()
    record("rating/learner_mu", mu)
    record("rating/learner_ordinal", ordinal)
    snaps = [rating.get(label).mu for _, label in league.filled]
    if snaps:
        record("rating/pool_mean_mu", float(np.mean(snaps)))
    for label in sorted(set(rated) - {ANCHOR}):
        record(f"rating/{label}_mu", float(rating.get(label).mu))
