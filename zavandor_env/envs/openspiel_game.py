"""``python_zavandor`` for OpenSpiel (imports ``pyspiel``; registers the game on import).

Imported by :mod:`zavandor_env.envs.openspiel`, which documents the game and stays importable
without the ``openspiel`` extra (so the ``openspiel`` agent spec can say what is missing).

States are saved as checked data (:mod:`zavandor_env.envs.openspiel_text`), never pickled: our
``state.serialize()`` and ``game.deserialize_state(text)`` replace OpenSpiel's, and importing
this module puts the same guard in front of ``pyspiel.serialize_game_and_state`` and
``pyspiel.deserialize_game_and_state`` for this game (other games pass through unchanged).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import pyspiel

from zavandor_env.encoding.observation import OBS_SIZE, ObservationEncoder
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.actions import NUM_ACTIONS, action_to_string
from zavandor_env.engine.determinize import determinize
from zavandor_env.engine.errors import IllegalActionError
from zavandor_env.engine.outcome import Outcome, game_outcome
from zavandor_env.envs.openspiel_text import (
    DEAL_DRAWS,
    DEAL_OUTCOMES,
    StateTextError,
    dump_state,
    parse_state,
    split_game_and_state,
)
from zavandor_env.envs.rewards import terminal_rewards
from zavandor_env.io.limits import MAX_SEED
from zavandor_env.io.params import Int, check_params

__all__ = ["GAME_NAME", "IllegalSpielActionError", "StateTextError", "ZavandorGame",
           "ZavandorState", "deal_seed"]

GAME_NAME = "python_zavandor"
MIN_PLAYERS, MAX_PLAYERS = 2, 6
_ENCODER = ObservationEncoder()

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="The Scepter of Zavandor (zavandor-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
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


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class IllegalSpielActionError(IllegalActionError, pyspiel.SpielError):  # type: ignore[misc]
    """An action that is not legal now: our :class:`IllegalActionError` (a ``ValueError``)
    and OpenSpiel's ``SpielError``, which RLlib's ``OpenSpielEnv`` and Shimmy catch.  The
    state is left untouched.  Built from the engine's error (or a message), as its base."""


#: What the game's parameters allow (read by the one checker of named parameters).
_PARAMS: Final = {"players": Int(low=MIN_PLAYERS, high=MAX_PLAYERS),
                  "seed": Int(low=-1, high=MAX_SEED)}


def deal_seed(salt: int, draws: Sequence[int]) -> int:
    """The engine seed of the deal drawn as ``draws`` (:data:`DEAL_DRAWS` chance outcomes, a
    32-bit number) in a game whose parameter ``seed`` is ``salt``: the number itself for -1,
    else a hash of both (so each parameter seed has its own 2**32 deals)."""
    number = int.from_bytes(bytes(draws), "big")
    if salt < 0:
        return number
    digest = hashlib.blake2b(f"{salt}:{number}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big")


def deal_draws(number: int) -> list[int]:
    """The chance outcomes that draw deal ``number`` (0 to 2**32 - 1)."""
    if type(number) is not int or not 0 <= number < DEAL_OUTCOMES ** DEAL_DRAWS:
        raise ValueError(f"deal number must be an integer from 0 to "
                         f"{DEAL_OUTCOMES ** DEAL_DRAWS - 1}, got {number!r}")
    return list(number.to_bytes(DEAL_DRAWS, "big"))


class ZavandorGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type stubs
    """``python_zavandor``: the rulebook game for ``players`` (2-6) seats (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        check_params(GAME_NAME, _PARAMS, params)
        players = params.get("players", MIN_PLAYERS)
        self.config = GameConfig(num_players=players)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=DEAL_OUTCOMES,
            num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=self.config.max_decisions)
        super().__init__(_GAME_TYPE, info, params)
        self.salt = params.get("seed", -1)

    def new_initial_state(self) -> ZavandorState:
        """A new game, at the chance nodes that draw its deal (see :mod:`.openspiel`)."""
        return ZavandorState(self)

    def max_chance_nodes_in_history(self) -> int:
        """The deal's draws: the only chance nodes."""
        return DEAL_DRAWS

    def deserialize_state(self, text: str) -> ZavandorState:
        """The state saved as ``text`` by :meth:`ZavandorState.serialize`, every field
        checked (:mod:`zavandor_env.envs.openspiel_text`); :class:`StateTextError` otherwise.
        Nothing is unpickled: OpenSpiel's pickled form is refused."""
        players = self.num_players()
        record = parse_state(text, players, self.max_game_length() + DEAL_DRAWS)
        engine = None
        if record.game is not None:
            try:
                engine = Game.from_dict(record.game)
            except ValueError as exc:  # ReplayError: the saved game's own one-line check
                first = (str(exc).splitlines() or [type(exc).__name__])[0]
                raise StateTextError(f"python_zavandor state: {first[:300]}") from None
            if engine.num_players != players:
                raise StateTextError(f"python_zavandor state: its game has "
                                     f"{engine.num_players} players, not {players}")
            self._check_agrees(record, engine)
        state = ZavandorState(self, engine)
        state._deal = list(record.deal)
        state._restore_history(record.history)
        return state

    def _check_agrees(self, record: Any, engine: Game) -> None:
        """The parts of a state text tell one story: its game is played under this game's
        rules, dealt by its deal, and its history is that game's decisions."""
        ours, theirs = self.config.to_dict(), engine.config.to_dict()
        differ = sorted(k for k in ours if ours[k] != theirs.get(k))
        if differ:
            key = differ[0]
            raise StateTextError(f"python_zavandor state: its game is played with {key}="
                                 f"{theirs.get(key)!r}, this game with {key}={ours[key]!r}")
        if len(record.deal) == DEAL_DRAWS and engine.seed != deal_seed(self.salt, record.deal):
            raise StateTextError("python_zavandor state: its game's seed is not the one its "
                                 "deal draws")
        decisions = [action for _, action in record.history[len(record.deal):]]
        if decisions != list(engine.history):
            raise StateTextError(f"python_zavandor state: its history holds {len(decisions)} "
                                 f"decisions that are not its game's {len(engine.history)}")

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """Our encoder as OpenSpiel's observer (the same for observation and info state)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return _Observer(perfect_recall)


class _Table:
    """The engine game of a state, copied by ``deepcopy`` (OpenSpiel's ``clone``) through the
    engine's own ``clone``.  Never pickled: a state is saved as text
    (:meth:`ZavandorState.serialize`)."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Table:
        return _Table(self.game.clone())

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError("a python_zavandor state is saved with state.serialize(), not pickled")


def _load_state(game_string: str, text: str) -> ZavandorState:
    """A state from :meth:`ZavandorState.__reduce__`'s arguments (by our checked loader)."""
    game = pyspiel.load_game(game_string)
    if not isinstance(game, ZavandorGame):
        raise StateTextError(f"python_zavandor state: {game_string!r} is not python_zavandor")
    return game.deserialize_state(text)


class ZavandorState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type stubs
    """One position of ``python_zavandor``: first the :data:`DEAL_DRAWS` chance nodes that draw
    the deal, then an engine :class:`Game` (:attr:`engine_game`)."""

    def __init__(self, game: ZavandorGame, engine_game: Game | None = None) -> None:
        super().__init__(game)
        self._deal: list[int] = []  # the deal's draws so far
        self._table: _Table | None = None if engine_game is None else _Table(engine_game)
        # While a saved history is restored: the player of the entry being recorded.
        self._replaying: int | None = None

    @property
    def engine_game(self) -> Game:
        """The engine game of this state (the full state: a referee's view)."""
        if self._table is None:
            raise ValueError("the deal is not drawn yet: apply the chance outcomes first "
                             "(state.is_chance_node())")
        return self._table.game

    def outcome(self) -> Outcome:
        """Our :class:`~zavandor_env.engine.outcome.Outcome` of the game as it stands."""
        return game_outcome(self.engine_game)

    def draw_deal(self, number: int) -> None:
        """Apply the chance outcomes of deal ``number`` (0 to 2**32 - 1) to a new state."""
        if self._table is not None or self._deal:
            raise ValueError("draw_deal() applies a whole deal to a new initial state")
        for draw in deal_draws(number):
            self.apply_action(draw)

    # ---- OpenSpiel's State API ------------------------------------------------------------
    def current_player(self) -> int:
        if self._replaying is not None:
            return self._replaying
        if self._table is None:
            return _CHANCE
        game = self._table.game
        return _TERMINAL if game.is_over else game.current_player

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Each draw of the deal: a byte of the deal number, uniform."""
        if self._table is not None:
            return []
        return [(draw, 1.0 / DEAL_OUTCOMES) for draw in range(DEAL_OUTCOMES)]

    def _legal_actions(self, player: int) -> list[int]:
        if self._table is None:
            return []
        game = self._table.game
        if game.is_over or player != game.current_player:
            return []
        return sorted(game.legal_actions())

    def _apply_action(self, action: int) -> None:
        if self._replaying is not None:
            return  # restoring a saved history: the game itself is already loaded
        if self._table is None:
            self._draw(action)
            return
        try:
            self._table.game.apply(int(action))
        except IllegalActionError as exc:
            raise IllegalSpielActionError(exc) from None

    def _draw(self, action: int) -> None:
        if type(action) is not int or not 0 <= action < DEAL_OUTCOMES:
            raise IllegalSpielActionError(f"illegal chance outcome {action!r}; the deal's "
                                          f"draws are 0 to {DEAL_OUTCOMES - 1}")
        self._deal.append(action)
        if len(self._deal) == DEAL_DRAWS:
            owner: ZavandorGame = self.get_game()
            seed = deal_seed(owner.salt, self._deal)
            self._table = _Table(Game.new(owner.config, seed=seed))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"deal draw {action}"
        return action_to_string(int(action)) if 0 <= action < NUM_ACTIONS else f"action {action}"

    def is_terminal(self) -> bool:
        return self._table is not None and self._table.game.is_over

    def returns(self) -> list[float]:
        """Zero-sum: ``1/k`` per winner, ``-1/(n-k)`` per other seat; 0 each for a game cut
        off by a safety limit (no winner) and while the game runs."""
        if self._table is None or not self._table.game.terminated:
            return [0.0] * self.num_players()
        return terminal_rewards("win", game_outcome(self._table.game))

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ZavandorState:
        """A state drawn from those ``player_id`` cannot tell from this one (our
        determinizer); ``probability_sampler()`` (a uniform draw in [0, 1)) seeds the draw."""
        resampled: ZavandorState = self.clone()
        if self._table is None:  # nothing is dealt yet: nothing is hidden
            return resampled
        seed = int(float(probability_sampler()) * 2**53) if callable(probability_sampler) else None
        game = self._table.game
        sample = determinize(game.view(player_id), random.Random(seed))
        resampled._table = _Table(sample)
        return resampled

    # ---- saving and copying ---------------------------------------------------------------
    def serialize(self) -> str:
        """This state as one line of checked JSON (:mod:`zavandor_env.envs.openspiel_text`), for
        ``game.deserialize_state(text)``; never a pickle."""
        history = [(int(step.player), int(step.action)) for step in self.full_history()]
        game = None if self._table is None else self._table.game.to_dict()
        return dump_state(self.num_players(), self._deal, history, game)

    def _restore_history(self, history: Sequence[tuple[int, int]]) -> None:
        """Record OpenSpiel's history of a loaded state (its game is loaded already)."""
        try:
            for player, action in history:
                self._replaying = player
                self.apply_action(action)
        finally:
            self._replaying = None

    def __deepcopy__(self, memo: dict[int, Any]) -> ZavandorState:
        clone: ZavandorState = self.clone()
        return clone

    def __reduce__(self) -> tuple[Callable[[str, str], ZavandorState], tuple[str, str]]:
        return (_load_state, (str(self.get_game()), self.serialize()))

    def __str__(self) -> str:
        if self._table is None:
            return f"drawing the deal: {len(self._deal)} of {DEAL_DRAWS} draws"
        outcome = game_outcome(self._table.game)
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
        if state._table is None or player < 0:  # a chance node: nobody sees anything yet
            self.tensor[:] = 0.0
            return
        self.tensor[:] = _ENCODER.encode_game(state._table.game, player)

    def string_from(self, state: ZavandorState, player: int) -> str:
        if state._table is None:
            return f"player {player} deal draw {len(state._deal)}"
        game = state._table.game
        digest = hashlib.sha1(_ENCODER.encode_game(game, player).tobytes())
        if self.perfect_recall:
            digest.update(np.asarray(game.history, np.int16).tobytes())
        return f"player {player} decision {len(game.history)} {digest.hexdigest()}"


# ---- pyspiel's module-level (de)serializers, guarded for this game -----------------------------
# OpenSpiel's own serialize_game_and_state / deserialize_game_and_state run C++ that pickles
# and unpickles a Python state's attributes.  For python_zavandor these wrappers use our text
# instead; any other game goes to OpenSpiel's functions unchanged.
_MARK = "_zavandor_guard"


def _guarded_serialize(original: Callable[..., str]) -> Callable[..., str]:
    def serialize_game_and_state(game: Any, state: Any) -> str:
        if not isinstance(state, ZavandorState):
            return original(game, state)
        return (f"# serialized by zavandor-env\n[Meta]\nVersion: 1\n\n[Game]\n"
                f"{game.serialize()}\n[State]\n{state.serialize()}\n")

    setattr(serialize_game_and_state, _MARK, original)
    return serialize_game_and_state


def _guarded_deserialize(original: Callable[[str], Any]) -> Callable[[str], Any]:
    def deserialize_game_and_state(text: str) -> Any:
        game_string, rng_state, state_text = split_game_and_state(text)
        game = pyspiel.load_game(game_string)
        if not isinstance(game, ZavandorGame):
            return original(text)
        if rng_state:
            raise StateTextError("python_zavandor state: the game has no random-state section")
        return game, game.deserialize_state(state_text)

    setattr(deserialize_game_and_state, _MARK, original)
    return deserialize_game_and_state


def _install_guards() -> None:
    """Put the wrappers in front of pyspiel's functions (once, even if reloaded)."""
    for name, guard in (("serialize_game_and_state", _guarded_serialize),
                        ("deserialize_game_and_state", _guarded_deserialize)):
        current = getattr(pyspiel, name)
        setattr(pyspiel, name, guard(getattr(current, _MARK, current)))


pyspiel.register_game(_GAME_TYPE, ZavandorGame)
_install_guards()
