"""Playing whole games with agents, on the core or on the oracle (the Python rules), for the
tests of the scripted bots."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from zavandor_env.agents.base import Agent
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.oracle import OracleGame
from zavandor_env.engine.view import PlayerView

#: Called before each decision as ``(view, legal_actions, action)``.
Watch = Callable[[PlayerView, Sequence[int], int], None]


def new_game(config: GameConfig, seed: int, oracle: bool = False) -> Game:
    """A new game on the core, or on the oracle."""
    return OracleGame.new(config, seed) if oracle else Game.new(config, seed)


def play_out(game: Game, agents: Sequence[Agent], agent_seed: int | None = 0,
             watch: Watch | None = None) -> list[int]:
    """Play ``game`` to its end, ``agents[s]`` in seat ``s`` (reset with seed
    ``agent_seed * 10 + s``; not reseeded when ``agent_seed`` is None); the decisions
    taken."""
    n = game.num_players
    for seat, agent in enumerate(agents):
        agent.reset(seat, n, seed=None if agent_seed is None else agent_seed * 10 + seat)
    taken = []
    while not game.is_over:
        seat = game.current_player
        view, legal = game.view(seat), game.legal_actions()
        action = agents[seat].act(None, view, legal)
        if watch is not None:
            watch(view, legal, action)
        game.apply(action)
        taken.append(action)
    return taken
