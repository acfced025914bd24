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
from zavandor_env.train.common import charts
from zavandor_env.train.common.rating import PoolRating
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
    """Chart the games of one iteration as the PPO trainer does (:mod:`~zavandor_env.train.
    common.charts`), and rate them; ``rated``: the labels of the agent specs whose rating is
    charted (training and evaluation ones)."""
    totals["illegal_actions"] = (totals.get("illegal_actions", 0)
                                 + sum(bool(s["illegal"]) for s in summaries))
    record("charts/illegal_actions", float(totals["illegal_actions"]))
    if summaries:
        record("rollout/ep_rew_mean", float(np.mean([s["return"] for s in summaries])))
        record("rollout/ep_len_mean", float(np.mean([s["main_decisions"] for s in summaries])))
    games = [{**s, "labels": [league.label(m) for m in s["modules"]]} for s in summaries]
    blocks = np.sum([s["blocks"] for s in summaries], axis=0) if summaries else []
    charts.chart_games(record, games, blocks, rating, [label for _, label in league.filled],
                       rated)
