"""The game for OpenSpiel: ``import zavandor_env.openspiel`` registers ``python_zavandor``.

::

    import pyspiel
    import zavandor_env.openspiel  # noqa: F401  (registers python_zavandor)

    game = pyspiel.load_game("python_zavandor", {"players": 4})

Needs the ``openspiel`` extra (``pip install -e ".[openspiel]"``: the ``open_spiel`` wheel).

What the game type says, and why:

* **sequential**, **imperfect information** (the other players' card values and the decks'
  order are hidden), **sampled stochastic** chance: the engine draws cards and breaks ties
  with its own seeded generator, so there are no explicit chance nodes; each initial state
  draws a game seed from the game's generator (parameter ``seed``: -1, the default, seeds it
  from the OS; ``seed >= 0`` makes the sequence of deals reproducible).
* **zero-sum, terminal rewards**: a game that ends by the rules pays each winner ``1/k``
  (``k`` winners share) and each other seat ``-1/(n-k)`` (our ``"win"`` reward scheme, from the
  game's :class:`~zavandor_env.engine.outcome.Outcome`); a game cut off by a safety limit
  (``max_rounds`` rounds or ``max_decisions`` decisions) has no winner and returns 0 to every
  seat (OpenSpiel's zero-sum utility cannot take our environments' ``truncation_reward``).
* ``max_game_length`` is the engine's ``max_decisions`` (20 000): the game is cut off there, so
  no game is longer (real games take a few hundred decisions).

Observations: the **tensors** are our encoder's vector (``float32[710]``, seat-relative,
``docs/observation.md``) for both the observation and the information state (it holds what
the seat knows now; all actions are public, so the history adds nothing hidden).  The
**strings** are a digest of that vector (and, for the information state, of the public action
history), prefixed with the player and decision number: equal exactly when the seat's
knowledge is equal, which is what IS-MCTS keys its tree on.

``resample_from_infostate(player, sampler)`` draws a full game consistent with what ``player``
knows, by our determinizer (:func:`zavandor_env.engine.determinize.determinize`), so
OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts``) runs on it.  Serialization
(``pyspiel.serialize_game_and_state``, pickling) works: a state pickles its engine game.

:class:`OpenSpielAgent` seats an OpenSpiel bot at our table (agent spec
``openspiel:bot=ismcts,simulations=20``), so ``zavandor eval`` and ``scorecard`` can play it
against our agents.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # the optional extra
    raise ImportError('the OpenSpiel game needs the openspiel extra: pip install -e '
                      '".[openspiel]" (the open_spiel wheel)') from exc

from .engine import Game, GameConfig
from .engine.actions import NUM_ACTIONS, action_to_string
from .engine.agent import Agent
from .engine.determinize import determinize
from .engine.native import core_from_state, resolve_backend
from .engine.native_game import NativeGame
from .engine.outcome import Outcome, game_outcome
from .engine.view import PlayerView
from .envs.observation import OBS_SIZE, ObservationEncoder
from .envs.rewards import terminal_rewards

__all__ = ["GAME_NAME", "OpenSpielAgent", "ZavandorGame", "ZavandorState"]

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


def _on_backend(game: Game, backend: str) -> Game:
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
        resampled._table = _Table(_on_backend(sample, game.backend))
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


# ---- an OpenSpiel bot at our table ------------------------------------------------------------
class OpenSpielAgent(Agent):
    """An OpenSpiel bot playing one seat through our agent protocol (spec
    ``openspiel:bot=ismcts,simulations=20,uct_c=2,rollouts=1``).

    Each decision builds an OpenSpiel state from what the seat knows (a determinization of its
    :class:`PlayerView`, which is all a bot may see) and asks the bot.  ``bot="ismcts"``:
    OpenSpiel's Python IS-MCTS with ``simulations`` simulations per decision, UCT constant
    ``uct_c`` and a random-rollout evaluator of ``rollouts`` rollouts; ``bot="random"``:
    OpenSpiel's uniform random bot.
    """

    name = "openspiel"

    def __init__(self, bot: str = "ismcts", simulations: int = 20, uct_c: float = 2.0,
                 rollouts: int = 1, seed: int | None = None) -> None:
        super().__init__(seed)
        if bot not in ("ismcts", "random"):
            raise ValueError(f"bot must be 'ismcts' or 'random', got {bot!r}")
        for key, value in (("simulations", simulations), ("rollouts", rollouts)):
            if type(value) is not int or value < 1:
                raise ValueError(f"{key} must be a positive integer, got {value!r}")
        self.bot_name = bot
        self.simulations = simulations
        self.uct_c = float(uct_c)
        self.rollouts = rollouts
        self.name = f"openspiel-{bot}"
        self._game: ZavandorGame | None = None
        self._bot: Any = None

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        if self._game is None or self._game.num_players() != num_players:
            self._game = pyspiel.load_game(GAME_NAME, {"players": num_players})
        self._bot = self._make_bot(self._game, seat)

    def _make_bot(self, game: ZavandorGame, seat: int) -> Any:
        np_rng = np.random.RandomState(self.rng.randrange(2**31))
        if self.bot_name == "random":
            return pyspiel.make_uniform_random_bot(seat, int(np_rng.randint(2**31)))
        from open_spiel.python.algorithms import ismcts, mcts

        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=np_rng)
        return ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations,
                                random_state=np_rng)

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        if self._game is None or self._bot is None:
            raise RuntimeError("call reset() before act()")
        if len(legal_actions) == 1:
            return int(legal_actions[0])
        sample = determinize(view, self.rng)
        state = ZavandorState(self._game, _on_backend(sample, self._game.backend))
        action = int(self._bot.step(state))
        return action if action in legal_actions else int(legal_actions[0])
