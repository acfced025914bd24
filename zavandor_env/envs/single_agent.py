"""Gymnasium single-agent view of the game, for stable-baselines3 / sb3-contrib MaskablePPO.

The learner plays one seat (fixed, or drawn per episode); every other seat is played inside
:meth:`SingleAgentEnv.step` by an opponent until the learner must decide again (or the game
ends).  One episode is one seat's trajectory, so value bootstrapping never mixes seats.

Opponents, one per other seat in seat order after the learner, follow the one agent contract
(:class:`zavandor_env.engine.agent.Agent`): ``opponents`` is ``"novice"`` (**the default**, as
for ``gymnasium.make("Zavandor-v0")``: the rule-based novice, see
:mod:`zavandor_env.envs.gym_entry` for why), any other agent spec (``"heuristic"``,
``"mcts:iterations=200"``: an agent built for each seat), ``None`` (uniform random legal play
for every other seat, which ends most games in the first round), one :class:`Agent` (copied
for each further seat, since an agent plays one seat at a time), or a sequence of
``num_players - 1`` of those (:mod:`zavandor_env.envs.opponents`).  Each agent is reset for
its seat at every episode (``reset(seat, num_players, seed)``) and asked ``act(observation,
view, legal_actions)``: it sees a :class:`~zavandor_env.engine.PlayerView` of its seat, and
the encoded observation only if its ``needs_observation`` is true.  A plain function
``fn(observation, view, legal_actions)`` becomes an agent with
:class:`~zavandor_env.engine.agent.FunctionAgent`; anything else is refused with a
``TypeError``.  :meth:`SingleAgentEnv.set_opponents` swaps them from the next
episode on (e.g. via ``VecEnv.env_method``).

Rewards are configured only in the AEC environment (:mod:`zavandor_env.envs.rewards`; the
``reward``, ``vp_delta``, ``step_reward``, ``truncation_reward`` and ``illegal_reward`` options
are passed through unchanged).  A step's reward is everything the learner's seat was paid since
its previous decision: its ``step_reward``, VP shaping, and at the end of the game its terminal
reward or, for a game cut off by a safety limit (``truncated``, no winner), ``truncation_reward``
(default -1).

Every step's ``info`` holds ``action_mask``, ``seat`` and the result keys of :mod:`.info`
(``game_over``, ``terminated``, ``truncated``, ``illegal_action``, ``scores``, ``ranks``,
``winners``, ``rounds``; zeros until the game is over): the same keys at every step, values
that replay buffers can batch.  The game's :class:`~zavandor_env.engine.outcome.Outcome` is
:meth:`SingleAgentEnv.outcome` (``env.unwrapped.outcome()`` through Gymnasium's wrappers).

An illegal learner action ends the episode with ``illegal_reward`` (default -1) and
``info["illegal_action"] = True``; :attr:`SingleAgentEnv.illegal_actions` counts them.  With
``illegal_action="raise"`` it raises instead.  The last ``info`` of an episode (and
:meth:`SingleAgentEnv.action_masks` until the next reset) carries a mask that allows
:data:`~.contract.FINISHED_ACTION` alone, never all-False (:mod:`.contract`).  A pickle or
``copy.deepcopy`` carries the episode in progress.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from zavandor_env.engine import Game
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.agent import Agent
from zavandor_env.engine.outcome import Outcome, game_outcome
from zavandor_env.envs.aec import raw_env
from zavandor_env.envs.contract import check_illegal_action, finished_mask, observation_space
from zavandor_env.envs.info import result_info, running_info
from zavandor_env.envs.opponents import DEFAULT_OPPONENTS, OpponentSpec, opponent_agents
from zavandor_env.envs.options import check_learner_seat
from zavandor_env.render.modes import RENDER_MODES, Renderer


class SingleAgentEnv(gymnasium.Env):
    """One learner seat against opponents (see the module docstring).

    Args:
        num_players: 2 to 6.
        learner_seat: the learner's seat, or ``None`` to draw it uniformly each episode.
        opponents: ``"novice"`` (default), another agent spec, ``None`` (uniform random legal
            play), an :class:`Agent`, or a sequence of ``num_players - 1`` of those.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        illegal_action: ``"terminate"`` (default: end the episode with ``illegal_reward``) or
            ``"raise"``.
        **options: reward options (:class:`~zavandor_env.envs.rewards.RewardConfig`:
            ``reward``, ``vp_delta``, ``step_reward``, ``truncation_reward``,
            ``illegal_reward``) and rule options (``max_rounds``, ...), passed to
            :class:`~zavandor_env.envs.aec.raw_env` unchanged.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        learner_seat: int | None = None,
        opponents: OpponentSpec | Sequence[OpponentSpec] = DEFAULT_OPPONENTS,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        **options: Any,
    ) -> None:
        self.aec = raw_env(num_players=num_players, **options)
        check_learner_seat(learner_seat, num_players)
        self._renderer = Renderer(render_mode)
        self.illegal_action = check_illegal_action(illegal_action)
        self.num_players = num_players
        self.learner_seat = learner_seat
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.illegal_actions = 0
        self._opponents = opponent_agents(opponents, num_players - 1)
        self._pending: list[Agent | None] | None = None
        self._seat = 0
        self._agent = "player_0"
        self._done = True

    # ---- opponents --------------------------------------------------------------------
    @property
    def opponents(self) -> tuple[Agent | None, ...]:
        """This episode's opponents, in seat order after the learner (``None``: random)."""
        return tuple(self._opponents)

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Use these opponents (validated now) from the next :meth:`reset` on."""
        self._pending = opponent_agents(opponents, self.num_players - 1)

    # ---- Gymnasium API ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if self._pending is not None:
            self._opponents, self._pending = self._pending, None
        rng = self.np_random
        game_seed = int(rng.integers(2**31))
        self.aec.reset(seed=game_seed)
        self._seat = (int(rng.integers(self.num_players)) if self.learner_seat is None
                      else self.learner_seat)
        self._agent = self.aec.possible_agents[self._seat]
        for k, opponent in enumerate(self._opponents):
            if opponent is None:
                continue
            seat = (self._seat + 1 + k) % self.num_players
            opponent.reset(seat, self.num_players, int(rng.integers(2**31)))
        self._done = False
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        aec = self.aec
        legal = aec.game.legal_actions()
        if action not in legal or isinstance(action, (bool, np.bool_)):
            if self.illegal_action == "raise":
                aec.step(action)  # raises IllegalActionError with the legal actions listed
            self.illegal_actions += 1
            self._done = True
            return (self._observation(), aec.reward_config.illegal_reward, True, False,
                    self._final_info(illegal_action=True))
        aec.step(int(action))
        self._play_opponents()
        reward = float(aec._cumulative_rewards[self._agent])
        terminated, truncated = aec.game.terminated, aec.game.truncated
        self._done = terminated or truncated
        info = self._final_info() if self._done else self._info()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions now (sb3-contrib MaskablePPO); once
        the episode is over, :data:`~.contract.FINISHED_ACTION` alone (never all-False)."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        """The learner's int8 mask now (a new array): while the episode runs the learner is
        the deciding agent, whose mask the AEC env already built for this decision."""
        if self._done or self.aec.game.is_over:
            return finished_mask()
        return self.aec._mask.copy()

    def render(self) -> Any:
        """The whole table as text, a printed coloured table or an RGB array, as the AEC
        env renders it (:mod:`.render`)."""
        return self._renderer(self.aec._game)

    def close(self) -> None:
        """Remove the live page of ``"human"`` rendering, if one was made."""
        self._renderer.close()
        super().close()

    # ---- internals --------------------------------------------------------------------
    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return self._seat

    @property
    def game(self) -> Game:
        """The engine game in progress (full state: for evaluation and debugging only)."""
        return self.aec.game

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self._agent)["observation"]

    def outcome(self) -> Outcome:
        """The game's :class:`~zavandor_env.engine.outcome.Outcome` (the one definition of a
        result): final once the episode is over, except after an illegal learner action,
        which ends the episode of a game still running (no winner)."""
        return game_outcome(self.aec.game)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask(), "seat": self._seat,
                **running_info(self.num_players)}

    def _final_info(self, illegal_action: bool = False) -> dict[str, Any]:
        """The last step's info: the result of the game (the one definition, ``Outcome``)."""
        info = {"action_mask": finished_mask(), "seat": self._seat}
        info.update(result_info(self.outcome(), illegal_action))
        return info

    def _play_opponents(self) -> None:
        """Let the other seats act until the learner must decide or the game is over."""
        aec = self.aec
        game = aec.game
        while not game.is_over and game.current_player != self._seat:
            seat = game.current_player
            opponent = self._opponents[(seat - self._seat - 1) % self.num_players]
            legal = game.legal_actions()
            if opponent is None:
                action = legal[int(self.np_random.integers(len(legal)))]
            else:
                observation = (aec.observe(aec.possible_agents[seat])
                               if opponent.needs_observation else None)
                action = opponent.act(observation, game.view(seat), legal)  # type: ignore[arg-type]
            aec.step(action)
