"""PettingZoo AEC environment ``zavandor_v0``.

``raw_env`` is the unwrapped environment (fast, strict: an illegal action raises
:class:`~zavandor_env.engine.IllegalActionError`); :func:`env` adds PettingZoo's standard
wrappers, as the classic environments do (an illegal action then ends the game with -1 for
the offender, see ``TerminateIllegalWrapper``).

Agents are ``player_0 .. player_{n-1}`` (seat i).  ``agent_selection`` is always the player
who must decide now: the turn player, but also each bidder in an auction, an auction winner
selling gems to cover the price, and each Mirror/Cloak victim choosing the gem it loses.

``observe(agent)`` returns ``{"observation": float32[D], "action_mask": int8[67]}``; the mask
is all zeros for an agent that is not selected.  The mask is only in the observation, as in
PettingZoo's classic games (TorchRL's ``PettingZooWrapper(use_mask=True)`` takes it from either
place but fails when both hold it).  The layout is in ``docs/observation.md``.

Rewards (all settings in :class:`~zavandor_env.envs.rewards.RewardConfig`): a game that ends by
the rules pays each seat its terminal reward (``reward`` scheme, default ``"win"``: +1 to the
winner, -1 to the loser in 2-player games) computed from the game's
:class:`~zavandor_env.engine.outcome.Outcome`, which :meth:`raw_env.outcome` returns
(``env.unwrapped.outcome()`` through the wrappers).  A game cut off by a safety limit
(``max_rounds``, ``max_decisions``) has no winner: it ends every agent with ``truncations`` true
and pays each ``truncation_reward`` (default -1).  Shaping, off by default: ``vp_delta`` per VP
gained and ``step_reward`` per own decision.

A pickle or ``copy.deepcopy`` of the environment (wrapped or not) carries the game in progress;
:func:`env` takes ``illegal_action="terminate"`` (default) or ``"raise"``, the option every face
shares (:mod:`.contract`).

``infos[agent]`` holds, at every step, the result keys of :mod:`.info` (``game_over``,
``terminated``, ``truncated``, ``illegal_action``, ``scores``, ``ranks``, ``winners``,
``rounds``): only values that replay buffers can batch, the same keys however the game ends
(by the rules, by a safety limit, or by an illegal action through :func:`env`).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from zavandor_env.encoding.observation import ObservationEncoder, mask_array
from zavandor_env.engine import Game, IllegalActionError
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.game import check_seed
from zavandor_env.engine.outcome import Outcome, game_outcome
from zavandor_env.envs.contract import check_illegal_action, observation_space
from zavandor_env.envs.info import result_info, running_info
from zavandor_env.envs.options import env_settings
from zavandor_env.render.modes import RENDER_MODES, Renderer

ENV_NAME = "zavandor_v0"
_ENCODER = ObservationEncoder()


def env(num_players: int = 2, render_mode: str | None = None,
        illegal_action: str = "terminate", **options: Any) -> AECEnv:
    """The ``zavandor_v0`` AEC environment with PettingZoo's standard wrappers.

    ``options`` are the reward options of :class:`~zavandor_env.envs.rewards.RewardConfig`
    (``reward``, ``vp_delta``, ``step_reward``, ``truncation_reward``, ``illegal_reward``)
    and :class:`~zavandor_env.engine.GameConfig` rule options (e.g. ``max_rounds``).
    ``illegal_action="terminate"`` (default): an illegal action ends the game with
    ``illegal_reward`` (default -1) for the offender; ``"raise"``: it raises
    :class:`~zavandor_env.engine.IllegalActionError` and changes nothing (the contract of
    every face, :mod:`.contract`).
    """
    mode = check_illegal_action(illegal_action)
    raw = raw_env(num_players=num_players, render_mode=render_mode, **options)
    wrapped: AECEnv = raw
    if mode == "terminate":
        wrapped = EndOnIllegalWrapper(raw, illegal_reward=raw.reward_config.illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class EndOnIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` (an illegal action ends the game with
    ``illegal_reward`` for the offender), which also writes the final result keys into every
    agent's ``info``, so an illegal ending looks like any other ending to a consumer."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        ended_before = self._terminated
        super().step(action)
        if self._terminated and not ended_before:
            raw: raw_env = self.env.unwrapped  # type: ignore[assignment]
            raw.end_by_illegal_action(agent)


class raw_env(AECEnv, EzPickle):  # noqa: N801  (PettingZoo's naming convention)
    """The Scepter of Zavandor for 2-6 players, unwrapped.

    Args:
        num_players: 2 to 6.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text), ``"rgb_array"`` (an
            H x W x 3 uint8 picture) or ``"human"`` (a live picture in the browser and a
            coloured table in the terminal).
        **options: keyword options, each checked (an unknown one is a ``TypeError`` that
            names every option there is).  The reward settings of
            :class:`~zavandor_env.envs.rewards.RewardConfig`: ``reward`` (terminal scheme of a
            game that ends by the rules: ``"win"``, the default, ``"rank"`` or
            ``"vp_margin"``), ``vp_delta`` (reward per VP gained, default 0), ``step_reward``
            (for each of a seat's own decisions, default 0), ``truncation_reward`` (what every
            seat receives when a safety limit cuts the game off, default -1: no winner, no
            better than a loss) and ``illegal_reward`` (used by :func:`env`'s illegal-action
            wrapper, default -1; the raw environment itself raises on an illegal action).
            The rule options: :class:`~zavandor_env.engine.GameConfig` fields (``max_rounds``,
            ...).

    The game runs on the C++ core (a retired ``backend=`` option is read by
    :func:`~zavandor_env.envs.options.check_backend`).

    The reward settings are validated together as :attr:`reward_config`
    (:class:`~zavandor_env.envs.rewards.RewardConfig`, which documents why each default).
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, num_players: int = 2, render_mode: str | None = None,
                 **options: Any) -> None:
        EzPickle.__init__(self, num_players, render_mode, **options)
        super().__init__()
        self._renderer = Renderer(render_mode)
        self.reward_config, self.config = env_settings(num_players, options)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": observation_space(),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Discrete] = {
            agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents
        }
        self._game: Game | None = None
        self._seeds = random.Random()
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._vp: list[int] = []
        self._rewards_set = False

    # ---- copies ---------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """A pickle or ``copy.deepcopy`` carries the game in progress (as a saved game) and
        everything the episode has paid and seen; the copy renders on its own."""
        state = dict(self.__dict__)
        game = state.pop("_game")
        state["_game_saved"] = None if game is None else game.to_dict()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        saved = state.pop("_game_saved")
        self.__dict__.update(state)
        self._game = None if saved is None else Game.from_dict(saved)

    @property
    def game(self) -> Game:
        """The engine game being played (the full state: for evaluation and debugging)."""
        if self._game is None:
            raise RuntimeError("call reset() before using the environment")
        return self._game

    # ---- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def seat(self, agent: str) -> int:
        """Seat index of an agent name (``"player_2"`` -> 2)."""
        return self._seat[agent]

    # ---- episode --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.  A seed fixes this game; later unseeded resets continue a
        sequence of game seeds drawn from it, so a seeded run is reproducible.  A seed is any
        integer >= 0, NumPy integers included (a one-line ValueError otherwise)."""
        if seed is not None:
            game_seed = check_seed(seed, or_none=True)
            self._seeds.seed(game_seed)
        else:
            game_seed = self._seeds.randrange(2**31)
        self._game = Game.new(self.config, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        n = len(self.agents)
        self.infos: dict[str, dict[str, Any]] = {agent: running_info(n) for agent in self.agents}
        self._vp = self.game.scores()
        self._rewards_set = False
        self._skip_agent_selection = None
        self._select()

    def _select(self) -> None:
        """Point ``agent_selection`` at the deciding player and build its mask."""
        game = self.game
        self.agent_selection = self.possible_agents[game.current_player]
        self._mask = mask_array(game.legal_actions())

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` sees now: ``{"observation": float32[710], "action_mask": int8[67]}``
        (docs/observation.md; only its own hand, the others' as public counts).  The mask is
        all zeros unless ``agent`` is the one to decide (``agent_selection``)."""
        seat = self._seat[agent]
        if agent == self.agent_selection and not self.game.is_over:
            mask = self._mask
        else:
            mask = np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": _ENCODER.encode_game(self.game, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play ``action`` (an index 0-66 whose ``action_mask`` entry is 1) for
        ``agent_selection``, then hand the turn to the next player to decide and pay the
        rewards; an agent that is done steps ``None``, as PettingZoo's loop does.

        Raises:
            IllegalActionError: ``action`` is not legal now (the message names the agent and
                the legal actions); nothing changes.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        try:
            game.apply(action)  # type: ignore[arg-type]  # None is rejected as illegal
        except IllegalActionError as exc:
            exc.args = (f"{agent} cannot play that: {exc.args[0]}",)
            raise
        if self._rewards_set:
            self._clear_rewards()
            self._rewards_set = False
        self._cumulative_rewards[agent] = 0.0
        step_reward = self.reward_config.step_reward
        if step_reward:
            self.rewards[agent] += step_reward
            self._rewards_set = True
        if self.reward_config.vp_delta:
            self._shape()
        if game.is_over:
            self._finish()
        else:
            self._select()
        if self._rewards_set:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _shape(self) -> None:
        scores = self.game.scores()
        if scores != self._vp:
            coef = self.reward_config.vp_delta
            for agent, new, old in zip(self.possible_agents, scores, self._vp):
                self.rewards[agent] += coef * (new - old)
            self._vp = scores
            self._rewards_set = True

    def _finish(self) -> None:
        """Pay every seat its final reward (terminal, or ``truncation_reward``) and end."""
        game = self.game
        outcome = game_outcome(game)
        final = self.reward_config.final_rewards(outcome)
        for agent, value in zip(self.possible_agents, final):
            self.rewards[agent] += value
        self._rewards_set = True
        done = self.terminations if game.terminated else self.truncations
        for agent in self.agents:
            done[agent] = True
            self.infos[agent].update(result_info(outcome))  # each agent's own arrays
        self._deads_step_first()

    def end_by_illegal_action(self, offender: str) -> None:
        """Write the result keys of a game that ``offender``'s illegal action ended (called by
        :class:`EndOnIllegalWrapper`, which has already set the flags and rewards)."""
        outcome = game_outcome(self.game)
        for agent in self.possible_agents:
            self.infos.setdefault(agent, {}).update(
                result_info(outcome, illegal_action=agent == offender))

    def outcome(self) -> Outcome:
        """The game's :class:`~zavandor_env.engine.outcome.Outcome`: final once the game is
        over by the rules or a safety limit; after an illegal action through :func:`env`, that
        of the unfinished game (``terminated`` and ``truncated`` both false, no winner)."""
        return game_outcome(self.game)

    # ---- rendering ------------------------------------------------------------------------
    def render(self) -> Any:
        """Text (``"ansi"``), a live picture and a printed coloured table (``"human"``) or an
        H x W x 3 uint8 picture (``"rgb_array"``) of the whole table; see :mod:`.render`."""
        return self._renderer(self._game)

    def close(self) -> None:
        """Remove the live page of ``"human"`` rendering, if one was made."""
        self._renderer.close()
