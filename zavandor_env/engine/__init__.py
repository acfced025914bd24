"""The rules engine of *The Scepter of Zavandor* (pure Python, no RL library).

Public API: :class:`Game`, :class:`GameConfig`, :class:`GameState`, :class:`Phase`,
:class:`IllegalActionError`, :class:`ReplayError`, the action table helpers and
:data:`NUM_ACTIONS`.
"""

from .actions import ACTION_NAMES, NUM_ACTIONS, action_block, action_to_string, string_to_action
from .config import ConfigError, GameConfig
from .errors import IllegalActionError, ReplayError
from .game import Game
from .state import Block, GameState, Phase, PlayerState

__all__ = [
    "ACTION_NAMES",
    "NUM_ACTIONS",
    "Block",
    "ConfigError",
    "Game",
    "GameConfig",
    "GameState",
    "IllegalActionError",
    "Phase",
    "PlayerState",
    "ReplayError",
    "action_block",
    "action_to_string",
    "string_to_action",
]
