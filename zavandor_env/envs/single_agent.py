"""Gymnasium single-agent view of the game, for stable-baselines3 / sb3-contrib MaskablePPO.

The learner plays one seat (fixed, or drawn per episode); every other seat is played inside
:meth:`SingleAgentEnv.step` by an opponent policy until the learner must decide again (or the
game ends).  Rewards are always the learner's own (see :mod:`zavandor_env.envs.rewards`), and
one episode is one seat's trajectory, so value bootstrapping never mixes seats.

Opponents: ``None`` (uniform random legal play, the default), one policy for every other seat,
or a sequence of ``num_players - 1`` policies for the other seats in seat order after the
learner.  A policy is one of:

* an agent of the project's protocol (``agents.Agent``: ``reset(seat, num_players, seed)``
  and ``act(observation, view, legal_actions)``): it is reset for its seat at every episode
  and sees only a :class:`~zavandor_env.engine.PlayerView` of its seat (plus the observation
  if its ``needs_observation`` is true); an agent given for several seats is copied, since an
  agent plays one seat at a time;
* an object with ``act(observation, info)`` or a callable; it gets
``observation`` = ``{"observation": float32[D], "action_mask": int8[67]}`` (``None`` for a policy
whose ``needs_observation`` attribute is false) and, if it takes a
second argument, ``info`` = ``{"agent", "seat", "game", "env"}`` (``game`` is the engine
:class:`~zavandor_env.engine.Game`: a policy must read only what its seat may know).  It returns
an action index.  Objects with a ``reset()`` method are reset at the start of each episode.
:meth:`set_opponents` swaps them from the next episode on (e.g. via ``VecEnv.env_method``).

An illegal learner action ends the episode with ``illegal_reward`` (default -1) and
``info["illegal_action"] = True``; :attr:`illegal_actions` counts them.  With
``illegal_action="raise"`` it raises instead.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..engine.actions import NUM_ACTIONS
from ..engine.view import PlayerView
from .aec import RENDER_MODES, raw_env
from .observation import OBS_BOUND, OBS_SIZE, mask_array
from .render import render_text

Policy = Any  # an object with act(observation[, info]) or a callable(observation[, info])


class _Opponent:
    """A policy with its calling convention worked out once."""

    __slots__ = ("policy", "call", "with_info", "needs_observation", "is_agent", "view")

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.view: PlayerView | None = None  # agents' window on the game, set per episode
        # Rule-based agents (heuristic, search) read the game, not the float vector: skipping
        # the encoding for them is a large share of a training step.
        self.needs_observation = bool(getattr(policy, "needs_observation", True))
        call = policy.act if hasattr(policy, "act") else policy
        if not callable(call):
            raise TypeError(f"an opponent must be callable or have act(), got {policy!r}")
        self.call: Callable[..., Any] = call
        arity = _positional_arity(call)
        self.is_agent = hasattr(policy, "act") and arity >= 3  # act(observation, view, legal)
        self.with_info = arity >= 2


def _positional_arity(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
        return 2
    return sum(1 for p in params if p.kind in kinds)


class SingleAgentEnv(gymnasium.Env):
    """One learner seat against opponent policies (Gymnasium id ``Zavandor-v0``).

    Args:
        num_players: 2 to 6.
        learner_seat: the learner's seat, or ``None`` to draw it uniformly each episode.
        opponents: see the module docstring (``None``: random legal play).
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        illegal_action: ``"terminate"`` (default) or ``"raise"``.
        illegal_reward: the learner's reward when an illegal action ends the episode.
        **options: :class:`~zavandor_env.envs.aec.raw_env` options (``reward``, ``vp_delta``,
            ``score_truncated``) and rule options (``max_rounds``, ...).
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        learner_seat: int | None = None,
        opponents: Policy | Sequence[Policy] | None = None,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        **options: Any,
    ) -> None:
        self.aec = raw_env(num_players=num_players, **options)
        if learner_seat is not None and (
            type(learner_seat) is not int or not 0 <= learner_seat < num_players
        ):
            raise ValueError(f"learner_seat must be None or a seat 0..{num_players - 1}, "
                             f"got {learner_seat!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, "
                             f"got {render_mode!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', "
                             f"got {illegal_action!r}")
        self.num_players = num_players
        self.learner_seat = learner_seat
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.illegal_actions = 0
        self._opponents = self._build_opponents(opponents)
        self._pending: list[_Opponent | None] | None = None
        self._seat = 0
        self._agent = "player_0"
        self._done = True

    # ---- opponents --------------------------------------------------------------------
    def set_opponents(self, opponents: Policy | Sequence[Policy] | None) -> None:
        """Use these opponents from the next :meth:`reset` on."""
        self._pending = self._build_opponents(opponents)

    def _build_opponents(
        self, opponents: Policy | Sequence[Policy] | None
    ) -> list[_Opponent | None]:
        others = self.num_players - 1
        if opponents is None:
            return [None] * others
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != others:
                raise ValueError(f"give one opponent per other seat ({others}), "
                                 f"got {len(opponents)}")
            seats = list(opponents)
        else:
            seats = [opponents] * others
        built: list[_Opponent | None] = []
        seen: set[int] = set()
        for policy in seats:
            if policy is not None and id(policy) in seen and _Opponent(policy).is_agent:
                policy = copy.deepcopy(policy)  # an agent plays one seat at a time
            if policy is not None:
                seen.add(id(policy))
            built.append(None if policy is None else _Opponent(policy))
        return built

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
        if self.learner_seat is None:
            self._seat = int(rng.integers(self.num_players))
        else:
            self._seat = self.learner_seat
        self._agent = self.aec.possible_agents[self._seat]
        state = self.aec.game.state
        reset_done: set[int] = set()
        for k, opponent in enumerate(self._opponents):
            if opponent is None:
                continue
            if opponent.is_agent:
                seat = (self._seat + 1 + k) % self.num_players
                opponent.policy.reset(seat, self.num_players, int(rng.integers(2**31)))
                opponent.view = PlayerView(state, seat)
                continue
            reset = getattr(opponent.policy, "reset", None)
            if callable(reset) and id(opponent.policy) not in reset_done:
                reset_done.add(id(opponent.policy))
                reset()
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
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), self.illegal_reward, True, False, info
        aec.step(int(action))
        self._play_opponents()
        reward = float(aec._cumulative_rewards[self._agent])
        game = aec.game
        terminated, truncated = game.terminated, game.truncated
        self._done = terminated or truncated
        info = self._info()
        if self._done:
            info["scores"] = game.scores()
            info["winners"] = game.winners()
            info["rounds"] = game.state.round
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions now (sb3-contrib MaskablePPO)."""
        if self._done:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self._learner_mask().astype(bool)

    def _learner_mask(self) -> np.ndarray:
        # While the episode runs the learner is the deciding agent, whose int8 mask the AEC
        # env already built for this decision: reuse it rather than rebuild it.
        if self.aec.game.is_over:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return self.aec._mask

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self.aec._game is None:
            raise RuntimeError("call reset() before render()")
        text = render_text(self.aec.game, colour=self.render_mode == "human")
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    # ---- internals --------------------------------------------------------------------
    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return self._seat

    @property
    def game(self):  # noqa: ANN201  (engine Game; typed in aec)
        """The engine game in progress (full state: for evaluation and debugging only)."""
        return self.aec.game

    def _observation(self) -> np.ndarray:
        return self.aec._encoder.encode(self.aec.game.state, self._seat)

    def _info(self) -> dict[str, Any]:
        mask = mask_array(()) if self._done else self._learner_mask().copy()
        return {"action_mask": mask, "seat": self._seat}

    def _play_opponents(self) -> None:
        """Let the other seats act until the learner must decide or the game is over."""
        aec = self.aec
        game = aec.game
        learner = self._seat
        opponents = self._opponents
        n = self.num_players
        rng = self.np_random
        while not game.is_over:
            seat = game.current_player
            if seat == learner:
                return
            opponent = opponents[(seat - learner - 1) % n]
            if opponent is None:
                legal = game.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
            else:
                agent = aec.possible_agents[seat]
                observation = aec.observe(agent) if opponent.needs_observation else None
                if opponent.is_agent:
                    action = opponent.call(observation, opponent.view, game.legal_actions())
                elif opponent.with_info:
                    info = {"agent": agent, "seat": seat, "game": game, "env": aec}
                    action = opponent.call(observation, info)
                else:
                    action = opponent.call(observation)
            aec.step(action)
