"""Evaluation of a policy against fixed opponents, on the project's one game driver.

Games are played by :func:`zavandor_env.eval.match.play_game` with the learner as an agent
(:class:`~zavandor_env.agents.policy.PolicyAgent` over the exported weights in memory, always
within the mask, without the Curse filter: the network as it trained) and the opponent built
from its agent spec in every other seat.  The learner's seat rotates over
the games and the game seeds are fixed, so two evaluations of the same policy give the same
numbers.  Results are read from the game's :class:`~zavandor_env.engine.outcome.Outcome`, the
one definition every layer uses: a game is won only if it ended by the rules with the learner
among the winners (a shared win counts), and a game cut off by a safety limit is neither won
nor lost -- it is counted in ``truncated``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from zavandor_env.agents.policy import PolicyAgent
from zavandor_env.agents.policy_file import NumpyPolicy
from zavandor_env.agents.registry import parse_spec
from zavandor_env.engine import GameConfig
from zavandor_env.envs.opponents import SNAPSHOT
from zavandor_env.eval.match import play_game

LEARNER = "learner"


@dataclass
class EvalResult:
    """Summary of ``games`` evaluation games against one opponent (an agent spec)."""

    opponent: str
    games: int
    wins: int
    """games that ended by the rules with the learner among the winners"""
    losses: int
    """games that ended by the rules with the learner not among the winners"""
    winrate: float
    """``wins / games`` (a truncated game is in the denominator: nobody won it)"""
    mean_vp: float
    mean_opponent_vp: float
    mean_rounds: float
    truncated: float
    """share of the games cut off by a safety limit (no winner)"""
    rankings: list[list[int]] = field(default_factory=list, repr=False)
    """per game: the outcome's competition ranks, the learner first, then the other seats"""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["rankings"]
        return data


def rotate_in(learner: Any, others: list[Any], seat: int) -> list[Any]:
    """The seat order of one game: ``learner`` in ``seat``, ``others`` around it in order."""
    return others[:seat] + [learner] + others[seat:]


def evaluate(policy: NumpyPolicy, opponent: str, games: int, config: GameConfig,
             seed: int = 0, deterministic: bool = True) -> EvalResult:
    """Play ``games`` games of ``policy`` (one seat) against agent spec ``opponent`` (every
    other seat) under ``config``; game ``g`` seats the learner at ``g % num_players``."""
    n = config.num_players
    spec = parse_spec(opponent)
    # The raw network, as it trained (no Curse filter), under the learner's label.
    learner = PolicyAgent(policy, seed, deterministic=deterministic, avoid_curse=False)
    learner.name = LEARNER
    others = [spec.build(seed * 100 + k) for k in range(n - 1)]
    wins = losses = truncated = 0
    vps: list[int] = []
    opp_vps: list[float] = []
    rounds: list[int] = []
    rankings: list[list[int]] = []
    try:
        for g in range(games):
            seat = g % n
            result = play_game(rotate_in(learner, others, seat), seed=seed * 100_003 + g,
                               config=config)
            outcome = result.outcome
            wins += outcome.won(seat)
            losses += outcome.terminated and not outcome.won(seat)
            truncated += outcome.truncated
            vps.append(outcome.scores[seat])
            opp_vps.append(float(np.mean([s for i, s in enumerate(outcome.scores) if i != seat])))
            rounds.append(outcome.rounds)
            rankings.append([outcome.ranks[seat]]
                            + [r for i, r in enumerate(outcome.ranks) if i != seat])
    finally:
        for agent in others:
            agent.close()
    n_games = max(games, 1)
    return EvalResult(opponent, games, wins, losses, wins / n_games, _mean(vps), _mean(opp_vps),
                      _mean(rounds), truncated / n_games, rankings)


def _mean(values: list[int] | list[float]) -> float:
    return float(np.mean(values)) if values else 0.0


def tag(label: str) -> str:
    """A TensorBoard tag part from an agent label (``policy(path=a/b.npz)`` -> readable)."""
    return "".join(c if c.isalnum() or c in "_.-" else "_" for c in label).strip("_")


def spec_labels(cfg: Any) -> dict[str, str]:
    """The label in charts and ratings of every agent spec of the config's
    ``opponent_weights`` and ``eval_opponents`` (``snapshot`` is no agent spec)."""
    return {spec: str(parse_spec(spec).label)
            for spec in [*cfg.opponent_weights, *cfg.eval_opponents] if spec != SNAPSHOT}


def evaluate_all(policy: NumpyPolicy, cfg: Any, labels: dict[str, str], rating: Any,
                 record: Callable[[str, float], None]) -> dict[str, EvalResult]:
    """Every trainer's evaluation: ``policy`` against each of ``cfg.eval_opponents`` (agent
    specs; ``labels`` names them), each result charted through ``record(tag, value)`` and
    every game's ranks fed to ``rating``."""
    config = cfg.game_config()
    results: dict[str, EvalResult] = {}
    for k, opponent in enumerate(cfg.eval_opponents):
        result = evaluate(policy, opponent, cfg.eval_games, config, seed=cfg.seed * 7 + k,
                          deterministic=cfg.eval_deterministic)
        results[opponent] = result
        name = tag(labels[opponent])
        for key, value in (("winrate", result.winrate), ("mean_vp", result.mean_vp),
                           ("opponent_vp", result.mean_opponent_vp),
                           ("mean_rounds", result.mean_rounds),
                           ("truncated", result.truncated)):
            record(f"eval/{key}_vs_{name}", value)
        for ranks in result.rankings:
            rating.update([LEARNER] + [labels[opponent]] * (config.num_players - 1), ranks)
    mu, ordinal = rating.learner()
    record("rating/learner_mu", mu)
    record("rating/learner_ordinal", ordinal)
    return results
