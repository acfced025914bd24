"""Play one game between agents and describe its outcome (used by ``eval`` and ``play``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.view import PlayerView

from .base import Agent

ObservationFn = Callable[[Game, int], dict[str, Any]]


@dataclass
class GameResult:
    """Outcome of one game, per seat.

    ``ranks`` are competition ranks by final VP (1 = best; tied seats share the better
    rank).  ``winners`` are the seats with the most VP: the rules' winners when the game ended
    normally, and the VP leaders when a safety limit truncated it (``truncated`` is then true).
    """

    seed: int
    num_players: int
    scores: list[int]
    ranks: list[int]
    winners: list[int]
    rounds: int
    decisions: int
    truncated: bool
    seconds: float = 0.0
    replay: dict[str, Any] | None = field(default=None, repr=False)


def competition_ranks(scores: Sequence[int]) -> list[int]:
    """1 + the number of seats with strictly more VP (ties share the better rank)."""
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def default_observation_fn() -> ObservationFn:
    """The environment's observation dict for a seat (imported lazily: it needs numpy)."""
    from zavandor_env.envs.observation import ObservationEncoder, mask_array

    encoder = ObservationEncoder()

    def observe(game: Game, seat: int) -> dict[str, Any]:
        return {
            "observation": encoder.encode(game.state, seat),
            "action_mask": mask_array(game.legal_actions()),
        }

    return observe


def play_game(
    agents: Sequence[Agent],
    seed: int,
    config: GameConfig | None = None,
    agent_seeds: Sequence[int] | None = None,
    observation_fn: ObservationFn | None = None,
    record_replay: bool = False,
    on_decision: Callable[[Game, int, int], None] | None = None,
) -> GameResult:
    """Play a whole game: ``agents[i]`` sits in seat ``i``.

    Args:
        agents: one agent per seat.
        seed: the game seed (deal, characters, draws).
        config: the game config (default: standard rules for ``len(agents)`` players).
        agent_seeds: per-seat agent seeds (default: derived from ``seed``).
        observation_fn: encoder for agents with ``needs_observation`` (default: the env's).
        record_replay: keep ``Game.replay_record()`` in the result.
        on_decision: called as ``(game, seat, action)`` after each agent decision.
    """
    import time

    n = len(agents)
    if config is None:
        config = GameConfig(num_players=n)
    if config.num_players != n:
        raise ValueError(f"config is for {config.num_players} players but {n} agents were given")
    start = time.perf_counter()
    game = Game.new(config, seed=seed)
    seeds = list(agent_seeds) if agent_seeds is not None else [seed * 7919 + i for i in range(n)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, n, seeds[seat])
    views = [PlayerView(game.state, seat) for seat in range(n)]
    if observation_fn is None and any(a.needs_observation for a in agents):
        observation_fn = default_observation_fn()
    while not game.is_over:
        seat = game.current_player
        agent = agents[seat]
        legal = game.legal_actions()
        obs = observation_fn(game, seat) if agent.needs_observation else None  # type: ignore[misc]
        action = agent.act(obs, views[seat], legal)
        game.apply(action)
        if on_decision is not None:
            on_decision(game, seat, action)
    scores = game.scores()
    ranks = competition_ranks(scores)
    if game.terminated:
        winners = game.winners()
    else:
        winners = [s for s in range(n) if ranks[s] == 1]
    return GameResult(
        seed=seed,
        num_players=n,
        scores=scores,
        ranks=ranks,
        winners=winners,
        rounds=game.state.round,
        decisions=len(game.history),
        truncated=game.truncated,
        seconds=time.perf_counter() - start,
        replay=game.replay_record() if record_replay else None,
    )
