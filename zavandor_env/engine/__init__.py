"""The rules engine of *The Scepter of Zavandor* (pure Python, no RL library).

Public API: :class:`Game`, :class:`GameConfig`, :class:`GameState`, :class:`PlayerView` (what
one seat may know), :class:`Agent` (the one agent contract) and :class:`FunctionAgent`,
:class:`Outcome` (the one definition of a result), :class:`Hand` (a readable hand),
:class:`Purchase` (a won auction and its price), the errors (:class:`IllegalActionError`,
:class:`RoundEndError`, :class:`ReplayError`, :class:`ConfigError`), the action table helpers
and :data:`NUM_ACTIONS`, and the index enums a script needs to read or build a position:
:class:`Gem`, :class:`Colour` (energy-card colours), :class:`Field`, :class:`Art`
(artifacts), :class:`Sen` (sentinels), :class:`Phase` and :class:`Block`; and the backend
switches: :func:`native_available`, :func:`native_status`, :func:`default_backend` (the rules
run in Python or, when built, in the C++ core: ``Game.new(..., backend=...)``, see
:mod:`.native`).
"""

from .actions import ACTION_NAMES, NUM_ACTIONS, action_block, action_to_string, string_to_action
from .agent import Agent, FunctionAgent
from .config import ConfigError, GameConfig
from .data import Art, Colour, Field, Gem, Sen
from .errors import IllegalActionError, ReplayError
from .game import Game, RoundEndError
from .hands import Hand
from .native import default_backend, native_available, native_status
from .outcome import Outcome, competition_ranks
from .state import Block, GameState, Phase, PlayerState, Purchase
from .view import HiddenInformationError, PlayerView

__all__ = [
    "ACTION_NAMES",
    "NUM_ACTIONS",
    "Agent",
    "Art",
    "Block",
    "Colour",
    "ConfigError",
    "Field",
    "FunctionAgent",
    "Game",
    "GameConfig",
    "GameState",
    "Gem",
    "Hand",
    "HiddenInformationError",
    "IllegalActionError",
    "Outcome",
    "Phase",
    "PlayerState",
    "PlayerView",
    "Purchase",
    "ReplayError",
    "RoundEndError",
    "Sen",
    "action_block",
    "action_to_string",
    "competition_ranks",
    "default_backend",
    "native_available",
    "native_status",
    "string_to_action",
]
