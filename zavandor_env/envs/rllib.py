"""The game as an RLlib ``MultiAgentEnv``: every seat an agent, one decision per step.

A thin adapter over the PettingZoo AEC environment (:class:`zavandor_env.envs.aec.raw_env`,
which owns the rules, the observation encoding and every reward): ``agent_selection`` -- the
seat that decides now, turn player, bidder or victim alike -- is the one agent RLlib sees an
observation for, so each seat's trajectory holds its own decisions only.  Rewards are the AEC
environment's per-step rewards of every seat; a seat paid while another decides (VP shaping,
the final result) receives them through RLlib's episode bookkeeping at its next decision, or
at the end of the game, when every seat gets its last observation.  A game cut off by a safety
limit is reported as terminated (``truncation_reward`` already prices it), so PPO does not
bootstrap a future that will never come -- as the SB3 training environment does.

**Scripted seats.**  Rule-based agents (``heuristic``, ``random``, ``mcts:...``, any agent spec)
decide from the engine's :class:`~zavandor_env.engine.view.PlayerView`, which no RLModule can
see.  So the action space has one extra action per scripted agent spec after the game's
``NUM_ACTIONS``: the scripted modules of :mod:`.module` answer with "delegate to spec k"
(``NUM_ACTIONS + k``), and this environment asks that seat's agent of spec ``k`` -- through the
one agent contract, as ``SingleAgentEnv`` asks its opponents -- and plays its answer.  The
action mask never allows a delegate action, so the learning module cannot pick one; the export
(:mod:`.export`) drops those rows.  Which module plays a seat is decided only by the policy
mapping function (:mod:`.league`): the environment does not know who plays whom.

Observation per agent: ``{"observations": float32[OBS_SIZE], "action_mask": float32[A]}`` with
``A = NUM_ACTIONS + len(scripted)`` (the mask is float for the masking arithmetic).

The contract of every face (:mod:`zavandor_env.envs.contract`): each agent that receives an
observation receives ``infos[agent]`` with ``seat`` and the result keys of
:mod:`zavandor_env.envs.info` (zeros while the game runs; the result at its end, beside the
``zavandor`` summary); the last observations' mask allows ``FINISHED_ACTION`` alone (never
all-zero); ``illegal_action`` (config key) is ``"terminate"`` (default: the game ends, the
offender paid ``illegal_reward``) or ``"raise"``; a pickle or copy carries the game in
progress.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.typing import MultiAgentDict

from zavandor_env.agents.registry import AgentSpec, parse_spec
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.agent import Agent
from zavandor_env.engine.outcome import game_outcome
from zavandor_env.envs.aec import raw_env
from zavandor_env.envs.contract import FINISHED_ACTION, check_illegal_action, observation_space
from zavandor_env.envs.info import result_info, running_info
from zavandor_env.envs.training import ACTION_TO_BLOCK, BLOCK_NAMES

#: Observation keys (RLlib's masking convention: the network reads ``observations``).
OBS_KEY = "observations"
MASK_KEY = "action_mask"
#: ``infos[agent][SUMMARY_KEY]`` at the end of a game: the result, each seat's decisions per
#: action block and rewards paid -- for the charts and the rating.
SUMMARY_KEY = "zavandor"


def env_seed(seed: int, worker_index: int, vector_index: int, start_step: int) -> int:
    """The seed of one environment copy: distinct per runner, per vector slot and per
    (re)start of a run, so a resumed run does not replay the games it already played."""
    state = np.random.SeedSequence([seed, worker_index, vector_index, start_step])
    return int(state.generate_state(1)[0])


class ZavandorMultiAgentEnv(MultiAgentEnv):
    """Turn-based multi-agent Zavandor for RLlib (see the module docstring).

    Args:
        config: RLlib's env config (an ``EnvContext`` or a plain dict) with keys
            ``num_players``, ``options`` (reward and rule options of ``raw_env``),
            ``scripted`` (agent specs, in delegate order), ``seed`` and ``start_step``.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        # (An EnvContext carries the runner's and the vector slot's index as attributes.)
        worker = int(getattr(config, "worker_index", 0) or 0)
        vector = int(getattr(config, "vector_index", 0) or 0)
        config = dict(config or {})
        self.aec = raw_env(num_players=int(config.get("num_players", 2)),
                           **dict(config.get("options", {})))
        self.illegal_action = check_illegal_action(config.get("illegal_action", "terminate"))
        self.num_players = self.aec.config.num_players
        self.specs: list[AgentSpec] = [parse_spec(s) for s in config.get("scripted", [])]
        self.num_actions = NUM_ACTIONS + len(self.specs)  # one delegate action per spec
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        space = spaces.Dict({
            OBS_KEY: observation_space(),
            MASK_KEY: spaces.Box(0.0, 1.0, (self.num_actions,), np.float32),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._where = (worker, vector, int(config.get("start_step", 0)))
        self._rng = random.Random(env_seed(int(config.get("seed", 0)), *self._where))
        # One agent per (seat, spec), built on first use and reused across games: an agent
        # plays one seat at a time, and building some (a policy file) costs time.
        self._scripted: dict[tuple[int, int], Agent] = {}
        self._ready: set[tuple[int, int]] = set()  # (seat, spec) reset for this game
        self.illegal_actions = 0
        # Per seat and game: decisions per action block and rewards paid.  Kept here, not
        # read back from RLlib's episode chunks, which repeat an action across a cut.
        self._blocks = np.zeros((self.num_players, len(BLOCK_NAMES)), dtype=np.int64)
        self._paid = np.zeros(self.num_players)

    # ---- MultiAgentEnv ----------------------------------------------------------------
    # (RLlib's multi-agent signatures differ from gymnasium.Env's, which MultiAgentEnv extends.)
    def reset(  # type: ignore[override]
            self, *, seed: int | None = None,
            options: dict[str, Any] | None = None) -> tuple[MultiAgentDict, MultiAgentDict]:
        if seed is not None:
            # RLlib seeds runner k's vector slot i with seed + k + i, which repeats across
            # runners: mixing in where this copy runs keeps every copy's games distinct.
            self._rng.seed(env_seed(seed, *self._where))
        self.aec.reset(seed=self._rng.randrange(2**31))
        self._ready.clear()
        self._blocks[:] = 0
        self._paid[:] = 0.0
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: self._info(agent)}

    def step(self, action_dict: MultiAgentDict) -> tuple[  # type: ignore[override]
            MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        aec = self.aec
        agent = aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} must decide now; got actions for "
                             f"{sorted(map(str, action_dict))}")
        action = int(action_dict[agent])
        seat = aec.seat(agent)
        if action >= NUM_ACTIONS:
            action = self._delegate(seat, action - NUM_ACTIONS)
        illegal = action not in aec.game.legal_actions()
        if illegal:  # a masking bug: the game ends, the offender paid illegal_reward
            if self.illegal_action == "raise":
                aec.step(action)  # IllegalActionError naming the legal actions
            self.illegal_actions += 1
            rewards: MultiAgentDict = {agent: float(aec.reward_config.illegal_reward)}
        else:
            aec.step(action)
            self._blocks[seat, ACTION_TO_BLOCK[action]] += 1
            rewards = {a: float(r) for a, r in aec.rewards.items() if r}
        for who, reward in rewards.items():
            self._paid[aec.seat(str(who))] += reward
        if illegal or aec.game.is_over:
            return self._final(rewards, illegal)
        nxt = aec.agent_selection
        return ({nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False},
                {nxt: self._info(nxt)})

    # ---- internals --------------------------------------------------------------------
    def _info(self, agent: str) -> dict[str, Any]:
        """The contract's info of a running game for ``agent``."""
        return {"seat": self.aec.seat(agent), **running_info(self.num_players)}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.aec.observe(agent)
        mask = np.zeros(self.num_actions, dtype=np.float32)
        mask[:NUM_ACTIONS] = raw["action_mask"]
        return {OBS_KEY: raw["observation"], MASK_KEY: mask}

    def _delegate(self, seat: int, k: int) -> int:
        """The decision of seat ``seat``'s agent of scripted spec ``k``."""
        if not 0 <= k < len(self.specs):
            return -1  # no such spec: an illegal action
        key = (seat, k)
        agent = self._scripted.get(key)
        if agent is None:
            agent = self._scripted[key] = self.specs[k].build(self._rng.randrange(2**31))
        if key not in self._ready:
            agent.reset(seat, self.num_players, self._rng.randrange(2**31))
            self._ready.add(key)
        aec = self.aec
        observation = (aec.observe(aec.possible_agents[seat])
                       if agent.needs_observation else None)
        return int(agent.act(observation, aec.game.view(seat), aec.game.legal_actions()))

    def _final(self, rewards: MultiAgentDict, illegal: bool) -> tuple[
            MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        """Every seat's last observation, rewards and the game's result in its info."""
        outcome = game_outcome(self.aec.game)
        summary = {
            "scores": list(outcome.scores), "ranks": list(outcome.ranks),
            "winners": list(outcome.winners), "terminated": bool(outcome.terminated),
            "rounds": int(outcome.rounds), "decisions": int(outcome.decisions),
            "illegal": illegal, "blocks": self._blocks.tolist(), "paid": self._paid.tolist(),
        }
        obs: MultiAgentDict = {a: self._observe(str(a)) for a in self.possible_agents}
        for seen in obs.values():  # over: a mask never all-zero, its one action never applied
            seen[MASK_KEY][:] = 0.0
            seen[MASK_KEY][FINISHED_ACTION] = 1.0
        done: MultiAgentDict = {a: True for a in self.possible_agents} | {"__all__": True}
        not_cut: MultiAgentDict = {a: False for a in self.possible_agents} | {"__all__": False}
        offender = next(iter(rewards)) if illegal else None
        infos: MultiAgentDict = {
            a: {"seat": self.aec.seat(str(a)), **result_info(outcome, a == offender),
                SUMMARY_KEY: summary}
            for a in self.possible_agents}
        return obs, rewards, done, not_cut, infos

    def close(self) -> None:
        for agent in self._scripted.values():
            agent.close()
        self._scripted.clear()
