"""``python_zavandor`` for OpenSpiel (imports ``pyspiel``; registers the game on import).

Imported by :mod:`zavandor_env.openspiel`, which documents the game and stays importable
without the ``openspiel`` extra (so the ``openspiel`` agent spec can say what is missing).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import numpy as np
import pyspiel

from .engine import Game, GameConfig
from .engine.actions import NUM_ACTIONS, action_to_string
from .engine.determinize import determinize
from .engine.native import core_from_state, resolve_backend
from .engine.native_game import NativeGame
from .engine.outcome import Outcome, game_outcome
from .envs.observation import OBS_SIZE, ObservationEncoder
from .envs.rewards import terminal_rewards

__all__ = ["GAME_NAME", "ZavandorGame", "ZavandorState", "on_backend"]

GAME_NAME = "python_zavandor"
MIN_PLAYERS, MAX_PLAYERS = 2, 6
_ENCODER = ObservationEncoder()

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="The Scepter of Zavandor (zavandor-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": MIN_PLAYERS, "seed": -1},
)


def _players(params: dict[str, Any]) -> int:
    players = params.get("players", MIN_PLAYERS)
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                         f"got {players!r}")
    return players


class ZavandorGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type stubs
    """``python_zavandor``: the rulebook game for ``players`` (2-6) seats (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = _players(params)
        self.config = GameConfig(num_players=players)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=0, num_players=players,
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=self.config.max_decisions)
        super().__init__(_GAME_TYPE, info, params)
        seed = params.get("seed", -1)
        self._seeds = random.Random(None if seed < 0 else seed)
        self.backend = resolve_backend(None)

    def new_initial_state(self) -> ZavandorState:
        """A new game: its seed is drawn from this game's generator when first played."""
        return ZavandorState(self)

    def next_game_seed(self) -> int:
        """The seed of the next initial state's engine game."""
        return self._seeds.randrange(2**31)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """Our encoder as OpenSpiel's observer (the same for observation and info state)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return _Observer(perfect_recall)


class _Table:
    """The engine game of a state, copied by ``deepcopy`` (OpenSpiel's ``clone``) and pickled
    (serialization) through the engine's own ``clone`` and ``to_dict``."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Table:
        return _Table(self.game.clone())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_table_from_dict, (self.game.to_dict(), self.game.backend))


def _table_from_dict(data: dict[str, Any], backend: str) -> _Table:
    return _Table(Game.from_dict(data, backend=backend))


def on_backend(game: Game, backend: str) -> Game:
    """``game`` (a Python-rules game, as the determinizer returns) on ``backend``."""
    if backend != "native":
        return game
    state = game.read_state()
    return NativeGame.wrap(core_from_state(state), state.config, game.seed)


class ZavandorState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type stubs
    """One position of ``python_zavandor``: an engine :class:`Game` (:attr:`engine_game`)."""

    def __init__(self, game: ZavandorGame, engine_game: Game | None = None) -> None:
        super().__init__(game)
        # Made on first use: OpenSpiel's clone() builds a new initial state and then copies
        # this attribute over it, which must not draw a seed or build a game for nothing.
        self._table: _Table | None = None if engine_game is None else _Table(engine_game)

    @property
    def engine_game(self) -> Game:
        """The engine game of this state (the full state: a referee's view)."""
        if self._table is None:
            owner: ZavandorGame = self.get_game()
            self._table = _Table(Game.new(owner.config, seed=owner.next_game_seed(),
                                          backend=owner.backend))
        return self._table.game

    def outcome(self) -> Outcome:
        """Our :class:`~zavandor_env.engine.outcome.Outcome` of the game as it stands."""
        return game_outcome(self.engine_game)

    # ---- OpenSpiel's State API ------------------------------------------------------------
    def current_player(self) -> int:
        game = self.engine_game
        return int(pyspiel.PlayerId.TERMINAL) if game.is_over else game.current_player

    def _legal_actions(self, player: int) -> list[int]:
        game = self.engine_game
        if game.is_over or player != game.current_player:
            return []
        return sorted(game.legal_actions())

    def _apply_action(self, action: int) -> None:
        self.engine_game.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return action_to_string(int(action))

    def is_terminal(self) -> bool:
        return self.engine_game.is_over

    def returns(self) -> list[float]:
        """Zero-sum: ``1/k`` per winner, ``-1/(n-k)`` per other seat; 0 each for a game cut
        off by a safety limit (no winner) and while the game runs."""
        game = self.engine_game
        if not game.terminated:
            return [0.0] * game.num_players
        return terminal_rewards("win", game_outcome(game))

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ZavandorState:
        """A state drawn from those ``player_id`` cannot tell from this one (our
        determinizer); ``probability_sampler()`` (a uniform draw in [0, 1)) seeds the draw."""
        seed = int(float(probability_sampler()) * 2**53) if callable(probability_sampler) else None
        game = self.engine_game
        sample = determinize(game.view(player_id), random.Random(seed))
        resampled: ZavandorState = self.clone()
        resampled._table = _Table(on_backend(sample, game.backend))
        return resampled

    def __str__(self) -> str:
        game = self.engine_game
        outcome = game_outcome(game)
        return (f"round {outcome.rounds}, decision {outcome.decisions}, "
                f"to play: {self.current_player()}; {outcome.describe()}")


class _Observer:
    """OpenSpiel's ``PyObserver`` over our encoder: ``tensor`` float32[710] and a digest
    string (see the module docstring)."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ZavandorState, player: int) -> None:
        self.tensor[:] = _ENCODER.encode_game(state.engine_game, player)

    def string_from(self, state: ZavandorState, player: int) -> str:
        game = state.engine_game
        digest = hashlib.sha1(_ENCODER.encode_game(game, player).tobytes())
        if self.perfect_recall:
            digest.update(np.asarray(game.history, np.int16).tobytes())
        return f"player {player} decision {len(game.history)} {digest.hexdigest()}"


pyspiel.register_game(_GAME_TYPE, ZavandorGame)
