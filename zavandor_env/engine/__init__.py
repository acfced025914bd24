"""The rules engine of *The Scepter of Zavandor* (no RL library).

Public API: :class:`Game`, :class:`GameConfig`, :class:`GameState`, :class:`PlayerView` (what
one seat may know), :class:`Agent` (the one agent contract) and :class:`FunctionAgent`,
:class:`Outcome` (the one definition of a result), :class:`Hand` (a readable hand),
:class:`Purchase` (a won auction and its price), the errors (:class:`IllegalActionError`,
:class:`RoundEndError`, :class:`ReplayError`, :class:`ConfigError`), the action table helpers
and :data:`NUM_ACTIONS`, and the index enums a script needs to read or build a position:
:class:`Gem`, :class:`Colour` (energy-card colours), :class:`Field`, :class:`Art`
(artifacts), :class:`Sen` (sentinels), :class:`Phase` and :class:`Block`; and
:func:`native_available` / :func:`native_status` (whether the C++ core, which plays every
game, was built; see :mod:`.native`).  The Python rules are the core's executable
specification, run by :class:`zavandor_env.engine.oracle.OracleGame`.
"""

from zavandor_env.engine.actions import (
    ACTION_NAMES,
    NUM_ACTIONS,
    action_block,
    action_to_string,
    string_to_action,
)
from zavandor_env.engine.agent import Agent, FunctionAgent
from zavandor_env.engine.config import ConfigError, GameConfig
from zavandor_env.engine.data import Art, Colour, Field, Gem, Sen
from zavandor_env.engine.errors import IllegalActionError, ReplayError
from zavandor_env.engine.game import Game, RoundEndError
from zavandor_env.engine.hands import Hand
from zavandor_env.engine.native import native_available, native_status
from zavandor_env.engine.outcome import Outcome, competition_ranks
from zavandor_env.engine.state import Block, GameState, Phase, PlayerState, Purchase
from zavandor_env.engine.view import HiddenInformationError, PlayerView

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
    "native_available",
    "native_status",
    "string_to_action",
]
