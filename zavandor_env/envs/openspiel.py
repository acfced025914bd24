"""The game for OpenSpiel: ``import zavandor_env.envs.openspiel`` registers ``python_zavandor``.

::

    import pyspiel
    import zavandor_env.envs.openspiel  # noqa: F401  (registers python_zavandor)

    game = pyspiel.load_game("python_zavandor", {"players": 4})

Needs the ``openspiel`` extra (``pip install -e ".[openspiel]"``: the ``open_spiel`` wheel);
without it the import registers nothing and the ``openspiel`` agent refuses to build, naming
the extra.

What the game type says, and why:

* **sequential**, **imperfect information** (the other players' card values and the decks'
  order are hidden), **explicit chance**: a new state is first the deal, four chance nodes of
  256 uniform outcomes that draw a 32-bit deal number; the engine's generator, seeded from
  it, draws every card and breaks every tie after that, so the deal fixes all the game's luck.
  Whoever plays the game draws the deal: Shimmy's ``OpenSpielCompatibilityV0`` from the
  generator that ``reset(seed=...)`` seeds (the same seed, the same deal), RLlib's
  ``OpenSpielEnv`` and OpenSpiel's algorithms from theirs; ``state.draw_deal(number)`` picks
  one.  Parameter ``seed`` (default -1) salts the deals: with ``seed >= 0`` each deal number
  gives another game (:func:`deal_seed`), the same one for the same seed and number.
* **zero-sum, terminal rewards**: a game that ends by the rules pays each winner ``1/k``
  (``k`` winners share) and each other seat ``-1/(n-k)`` (our ``"win"`` reward scheme, from the
  game's :class:`~zavandor_env.engine.outcome.Outcome`); a game cut off by a safety limit
  (``max_rounds`` rounds or ``max_decisions`` decisions) has no winner and returns 0 to every
  seat (OpenSpiel's zero-sum utility cannot take our environments' ``truncation_reward``).
* ``max_game_length`` is the engine's ``max_decisions`` (20 000): the game is cut off there, so
  no game is longer (real games take a few hundred decisions); the deal adds four chance
  nodes.
* An illegal action raises :class:`IllegalSpielActionError`, both OpenSpiel's ``SpielError``
  (what RLlib's ``OpenSpielEnv`` catches) and our ``IllegalActionError`` (a ``ValueError``);
  the state is left as it was.

Observations: the **tensors** are our encoder's vector (``float32[710]``, seat-relative,
``docs/observation.md``) for both the observation and the information state (it holds what
the seat knows now; all actions are public, so the history adds nothing hidden); zeros while
the deal is drawn.  The **strings** are a digest of that vector (and, for the information
state, of the public action history), prefixed with the player and decision number: equal
exactly when the seat's knowledge is equal, which is what IS-MCTS keys its tree on.

``resample_from_infostate(player, sampler)`` draws a full game consistent with what ``player``
knows, by our determinizer (:func:`zavandor_env.engine.determinize.determinize`), so
OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts``) runs on it.

**Saving a state**: ``state.serialize()`` is one line of JSON (the saved game, the deal and
OpenSpiel's history) and ``game.deserialize_state(text)`` checks every field of it before it
builds anything (:mod:`zavandor_env.envs.openspiel_text`); ``pyspiel.serialize_game_and_state`` /
``deserialize_game_and_state``, ``copy.deepcopy`` and ``pickle`` of a state use the same text.
OpenSpiel's own form of a Python state is a pickle, which runs code when it is loaded: for this
game it is neither written nor read (a string in that form is refused with
:class:`StateTextError`, a ``SpielError`` and a ``ValueError``).

:class:`OpenSpielAgent` seats an OpenSpiel bot at our table (agent spec
``openspiel:bot=ismcts,simulations=20``), so ``zavandor eval`` and ``scorecard`` can play it
against our agents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from zavandor_env.agents.registry import AgentSpecError
from zavandor_env.agents.spec_params import check_agent_params
from zavandor_env.engine.agent import Agent
from zavandor_env.engine.determinize import determinize
from zavandor_env.engine.view import PlayerView

try:
    import pyspiel
except ImportError:  # the optional extra: the agent below says what is missing
    pyspiel = None

#: What to install when OpenSpiel is missing.
NEEDS_EXTRA = 'OpenSpiel needs the openspiel extra: pip install -e ".[openspiel]"'

if pyspiel is not None:
    from zavandor_env.envs.openspiel_game import (
        GAME_NAME,
        IllegalSpielActionError,
        StateTextError,
        ZavandorGame,
        ZavandorState,
        deal_seed,
    )
else:
    GAME_NAME = "python_zavandor"

__all__ = ["BOTS", "GAME_NAME", "IllegalSpielActionError", "NEEDS_EXTRA", "OpenSpielAgent",
           "StateTextError", "ZavandorGame", "ZavandorState", "deal_seed"]

#: The OpenSpiel bots the agent spec can seat (declared in ``agents/spec_params.py``).
BOTS = ("ismcts", "random")
_NEEDS_PYSPIEL = ("ZavandorGame", "ZavandorState", "deal_seed",
                  "IllegalSpielActionError", "StateTextError")


def __getattr__(name: str) -> Any:
    if name in _NEEDS_PYSPIEL:  # only without pyspiel
        raise ImportError(NEEDS_EXTRA)
    raise AttributeError(f"module 'zavandor_env.envs.openspiel' has no attribute {name!r}")


# ---- an OpenSpiel bot at our table ------------------------------------------------------------
class OpenSpielAgent(Agent):
    """An OpenSpiel bot playing one seat through our agent protocol (spec
    ``openspiel:bot=ismcts,simulations=20,uct_c=2,rollouts=1``).

    Each decision builds an OpenSpiel state from what the seat knows (a determinization of its
    :class:`PlayerView`, which is all a bot may see) and asks the bot.  ``bot="ismcts"``:
    OpenSpiel's Python IS-MCTS with ``simulations`` (at least 2) simulations per decision,
    UCT constant
    ``uct_c`` and a random-rollout evaluator of ``rollouts`` rollouts; ``bot="random"``:
    OpenSpiel's uniform random bot.
    """

    name = "openspiel"

    def __init__(self, bot: str = "ismcts", simulations: int = 20, uct_c: float = 2.0,
                 rollouts: int = 1, seed: int | None = None) -> None:
        # Checked before anything is built, by the spec's own declaration (every decision runs
        # simulations x rollouts playouts, so both are capped), also when built from Python.
        check_agent_params("openspiel", {"bot": bot, "simulations": simulations,
                                         "uct_c": uct_c, "rollouts": rollouts})
        super().__init__(seed)
        if pyspiel is None:
            raise AgentSpecError(f"agent 'openspiel': {NEEDS_EXTRA}")
        self.bot_name = bot
        self.simulations = simulations
        self.uct_c = float(uct_c)
        self.rollouts = rollouts
        self.name = f"openspiel-{bot}"
        self._game: Any = None  # the ZavandorGame of the current player count
        self._bot: Any = None

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        if self._game is None or self._game.num_players() != num_players:
            self._game = pyspiel.load_game(GAME_NAME, {"players": num_players})
        self._bot = self._make_bot(self._game, seat)

    def _make_bot(self, game: Any, seat: int) -> Any:
        np_rng = np.random.RandomState(self.rng.randrange(2**31))
        if self.bot_name == "random":
            return pyspiel.make_uniform_random_bot(seat, int(np_rng.randint(2**31)))
        from open_spiel.python.algorithms import ismcts, mcts

        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=np_rng)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations,
                               random_state=np_rng)
        # The bot draws its worlds with a fresh pyspiel.UniformProbabilitySampler, which the
        # OS seeds: drawn from our seeded generator instead, the bot plays the same moves
        # from the same seed (a ladder with it is reproducible).
        bot.set_resampler(
            lambda state, player: state.resample_from_infostate(player, np_rng.uniform))
        return bot

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        if self._game is None or self._bot is None:
            raise RuntimeError("call reset() before act()")
        if len(legal_actions) == 1:
            return int(legal_actions[0])
        sample = determinize(view, self.rng)
        state = ZavandorState(self._game, sample)
        action = int(self._bot.step(state))
        return action if action in legal_actions else int(legal_actions[0])
