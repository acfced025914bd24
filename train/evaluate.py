"""Masked evaluation of a policy against fixed opponents (``random``, ``heuristic``).

Games run through :class:`~zavandor_env.envs.SingleAgentEnv`, so the learner sees exactly what
it sees in training; the learner's seat rotates over the games and the game seeds are fixed, so
two evaluations of the same policy give the same numbers.  A game counts as won when it ended by
the rules and the learner is among the winners (a shared win counts as a win); a game cut off
at ``max_rounds`` is a loss, whatever the VP -- beating random means finishing the game.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from zavandor_env.agents.base import Agent, RandomAgent
from zavandor_env.agents.match import competition_ranks
from zavandor_env.envs import SingleAgentEnv

from .export import NumpyPolicy
from .opponents import make_heuristic


@dataclass
class EvalResult:
    """Summary of ``games`` evaluation games against one opponent kind."""

    opponent: str
    games: int
    wins: int
    winrate: float
    mean_vp: float
    mean_opponent_vp: float
    mean_rounds: float
    truncated: float
    illegal: int
    rankings: list[list[int]] = field(default_factory=list, repr=False)
    """per game: competition ranks by VP, the learner first, then the other seats"""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["rankings"]
        return data


def make_agent(kind: str, seed: int, heuristic_kwargs: dict[str, Any] | None = None) -> Agent:
    if kind == "random":
        return RandomAgent(seed=seed)
    if kind == "heuristic":
        return make_heuristic(seed, heuristic_kwargs or {})
    raise ValueError(f"no fixed evaluation opponent called {kind!r}")


def evaluate(policy: NumpyPolicy, opponent: str, games: int, num_players: int = 2,
             seed: int = 0, deterministic: bool = True, env_kwargs: dict[str, Any] | None = None,
             heuristic_kwargs: dict[str, Any] | None = None) -> EvalResult:
    """Play ``games`` games of ``policy`` (one seat) against ``opponent`` agents (all others)."""
    seats = [make_agent(opponent, seed * 100 + k, heuristic_kwargs) for k in range(num_players - 1)]
    options = dict(env_kwargs or {})
    options.pop("learner_seat", None)
    rng = np.random.default_rng(seed)
    wins = illegal = truncated = 0
    vps: list[int] = []
    opp_vps: list[float] = []
    rounds: list[int] = []
    rankings: list[list[int]] = []
    envs = [SingleAgentEnv(num_players=num_players, learner_seat=s, opponents=seats, **options)
            for s in range(num_players)]
    for g in range(games):
        env = envs[g % num_players]
        obs, _ = env.reset(seed=seed * 100_003 + g)
        done = False
        info: dict[str, Any] = {}
        while not done:
            mask = env.action_masks()
            action = policy.act(obs, mask, None if deterministic else rng, deterministic)
            obs, _, terminated, truncated_now, info = env.step(action)
            done = terminated or truncated_now
        game = env.game
        seat = env.seat
        illegal += int(bool(info.get("illegal_action")))
        truncated += int(game.truncated)
        wins += int(game.terminated and seat in game.winners())
        scores = game.scores()
        vps.append(scores[seat])
        opp_vps.append(float(np.mean([s for i, s in enumerate(scores) if i != seat])))
        rounds.append(game.state.round)
        ranks = competition_ranks(scores)
        rankings.append([ranks[seat]] + [r for i, r in enumerate(ranks) if i != seat])
    n = max(games, 1)
    return EvalResult(opponent, games, wins, wins / n, float(np.mean(vps)) if vps else 0.0,
                      float(np.mean(opp_vps)) if opp_vps else 0.0,
                      float(np.mean(rounds)) if rounds else 0.0, truncated / n, illegal, rankings)
