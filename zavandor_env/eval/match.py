"""The one game driver: play a game between agents and return its result.

Used by the tournament (``zavandor eval``), ``zavandor play`` and training's evaluation; the
Gymnasium adapter steps opponents inside ``step()`` instead, through the same agent contract.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.agent import Agent
from zavandor_env.engine.outcome import Outcome, competition_ranks, game_outcome

__all__ = ["GameResult", "Outcome", "competition_ranks", "default_observation_fn", "play_game"]

ObservationFn = Callable[[Game, int], dict[str, Any]]


@dataclass
class GameResult:
    """One played game: its seed, who sat where, and its :class:`Outcome` (the one definition of
    a result, :mod:`zavandor_env.engine.outcome`: winners come only from the rules, a
    truncated game has none).

    The outcome's fields are also readable directly (``result.scores``, ``result.winners``...).
    """

    seed: int
    labels: list[str]
    outcome: Outcome
    seconds: float = 0.0
    replay: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def num_players(self) -> int:
        return self.outcome.num_players

    @property
    def scores(self) -> list[int]:
        return list(self.outcome.scores)

    @property
    def ranks(self) -> list[int]:
        return list(self.outcome.ranks)

    @property
    def winners(self) -> list[int]:
        return list(self.outcome.winners)

    @property
    def truncated(self) -> bool:
        return self.outcome.truncated

    @property
    def rounds(self) -> int:
        return self.outcome.rounds

    @property
    def decisions(self) -> int:
        return self.outcome.decisions


def default_observation_fn() -> ObservationFn:
    """The environment's observation dict for a seat (imported lazily: it needs numpy)."""
    from zavandor_env.encoding.observation import ObservationEncoder, mask_array

    encoder = ObservationEncoder()

    def observe(game: Game, seat: int) -> dict[str, Any]:
        return {
            "observation": encoder.encode_game(game, seat),
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
    labels: Sequence[str] | None = None,
) -> GameResult:
    """Play a whole game: ``agents[i]`` sits in seat ``i``.

    Args:
        agents: one agent per seat.
        seed: the game seed (deal, characters, draws).
        config: the game config (default: standard rules for ``len(agents)`` players).
        agent_seeds: per-seat agent seeds (default: derived from ``seed``).
        observation_fn: encoder for agents with ``needs_observation`` (default: the env's).
        record_replay: keep ``Game.replay_record()`` in the result, plus, when any agent
            explains its decisions (an ``explain()`` method returning ``{"probs": {...},
            "value": v}`` for its last decision, like ``PolicyAgent``), an ``"annotations"``
            list ``[{"decision": i, "seat": s, "probs": ..., "value": v}, ...]`` for the
            browser viewer.
        on_decision: called as ``(game, seat, action)`` after each agent decision.
        labels: a name per seat for the result (default: each agent's ``name``).
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
    if observation_fn is None and any(a.needs_observation for a in agents):
        observation_fn = default_observation_fn()
    # Asked only when recording: explaining costs a forward pass per decision.
    explainers = [getattr(a, "explain", None) if record_replay else None for a in agents]
    annotations: list[dict[str, Any]] = []
    while not game.is_over:
        seat = game.current_player
        agent = agents[seat]
        legal = game.legal_actions()
        obs = observation_fn(game, seat) if agent.needs_observation else None  # type: ignore[misc]
        action = agent.act(obs, game.view(seat), legal)
        explain = explainers[seat]  # an optional hook (not part of the contract: most have none)
        if callable(explain):
            note = explain()
            if note is not None:
                annotations.append({"decision": len(game.history), "seat": seat, **note})
        game.apply(action)
        if on_decision is not None:
            on_decision(game, seat, action)
    return GameResult(
        seed=seed,
        labels=list(labels) if labels is not None else [a.name for a in agents],
        outcome=game_outcome(game),
        seconds=time.perf_counter() - start,
        replay=_record(game, annotations) if record_replay else None,
    )


def _record(game: Game, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    """The replay record; annotations only when some agent explained itself, so replays of
    other games stay exactly ``Game.replay_record()``."""
    record = game.replay_record()
    if annotations:
        record["annotations"] = annotations
    return record
