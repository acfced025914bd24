"""The rules engine of *The Scepter of Zavandor* (pure Python, no RL library).

Public API: :class:`Game`, :class:`GameConfig`, :class:`GameState`, :class:`Phase`,
:class:`IllegalActionError`, :class:`ReplayError`, :class:`PlayerView` (what one seat may
know), the action table helpers and :data:`NUM_ACTIONS`.
"""

from .actions import ACTION_NAMES, NUM_ACTIONS, action_block, action_to_string, string_to_action
from .config import ConfigError, GameConfig
from .errors import IllegalActionError, ReplayError
from .game import Game
from .state import Block, GameState, Phase, PlayerState
from .view import HiddenInformationError, PlayerView

__all__ = [
    "ACTION_NAMES",
    "NUM_ACTIONS",
    "Block",
    "ConfigError",
    "Game",
    "GameConfig",
    "GameState",
    "HiddenInformationError",
    "IllegalActionError",
    "Phase",
    "PlayerState",
    "PlayerView",
    "ReplayError",
    "action_block",
    "action_to_string",
    "string_to_action",
]
