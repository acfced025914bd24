"""Helpers for agent tests: one agent's decision at a scenario position, the actions of a whole
turn of the turn player, and the rule variants property sweeps cycle through."""

from __future__ import annotations

import dataclasses

from zavandor_env.agents.base import Agent
from zavandor_env.engine import Game, GameConfig, Phase, PlayerView, action_to_string


def decide(game: Game, agent: Agent) -> int:
    """``agent``'s action for the deciding seat of ``game`` (not applied)."""
    seat = game.current_player
    return agent.act(None, PlayerView(game.state, seat), game.legal_actions())


def own_turn(game: Game, agent: Agent, limit: int = 40) -> list[str]:
    """Let ``agent``, seated as the turn player, act until it ends its turn or hands over to a
    bidder; the names of its actions, applied to ``game``."""
    names: list[str] = []
    seat = game.turn_player
    agent.reset(seat, game.num_players, seed=0)
    while game.current_player == seat and game.phase == Phase.TURN and len(names) < limit:
        action = decide(game, agent)
        names.append(action_to_string(action))
        game.apply(action)
        if names[-1] == "end_turn":
            break
    return names


def rule_variant(variant: int, num_players: int) -> GameConfig:
    """Variant 0: the rulebook's options; 1-3: one flipped each (``no_undo_activation``,
    ``no_split_blocks``, ``allow_overbid``), so an agent cannot lean on one engine guard."""
    options: dict[str, bool] = {}
    if variant % 4 == 1:
        options["no_undo_activation"] = False
    elif variant % 4 == 2:
        options["no_split_blocks"] = False
    elif variant % 4 == 3:
        options["allow_overbid"] = not GameConfig().allow_overbid
    return dataclasses.replace(GameConfig(num_players=num_players), **options)
