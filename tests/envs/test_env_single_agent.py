"""The Gymnasium single-agent adapter and its registration."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from zavandor_env.encoding.observation import OBS_SIZE
from zavandor_env.engine import IllegalActionError
from zavandor_env.engine.agent import Agent, FunctionAgent
from zavandor_env.engine.outcome import Outcome, game_outcome
from zavandor_env.envs import SingleAgentEnv
from zavandor_env.envs.info import RESULT_KEYS
from zavandor_env.envs.rewards import RewardConfig


def _play(env: SingleAgentEnv, seed: int, max_steps: int = 100_000):
    """Random masked play for one episode; yields (obs, reward, terminated, truncated, info)."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(max_steps):
        legal = np.flatnonzero(env.action_masks())
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        yield obs, reward, terminated, truncated, info
        if terminated or truncated:
            return


def test_gymnasium_check_env_passes() -> None:
    check_env(SingleAgentEnv(num_players=3), skip_render_check=True)


def test_spaces_match_the_aec_environment() -> None:
    env = SingleAgentEnv(num_players=4)
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space.n == 67


def test_the_learner_decides_at_every_step_and_keeps_its_seat() -> None:
    env = SingleAgentEnv(num_players=4, learner_seat=2)
    for _, _, terminated, truncated, info in _play(env, seed=1):
        assert info["seat"] == 2
        if not (terminated or truncated):
            assert env.game.current_player == 2


def test_a_random_seat_is_drawn_per_episode() -> None:
    env = SingleAgentEnv(num_players=3)
    seats = set()
    for seed in range(20):
        env.reset(seed=seed)
        seats.add(env.seat)
        assert env.game.current_player == env.seat
    assert seats == {0, 1, 2}


def test_rewards_are_the_learners_own_terminal_reward_from_the_outcome() -> None:
    for seed in range(3):
        env = SingleAgentEnv(num_players=3, learner_seat=1, reward="rank", vp_delta=0)
        total = sum(r for _, r, _, _, _ in _play(env, seed=seed))
        outcome = game_outcome(env.game)
        assert outcome.terminated
        expected = RewardConfig(reward="rank").final_rewards(outcome)[1]
        assert total == pytest.approx(expected)


def test_a_truncated_episode_pays_the_truncation_reward() -> None:
    env = SingleAgentEnv(num_players=2, max_rounds=3, allow_overbid=False, vp_delta=0,
                         truncation_reward=-0.5)
    steps = list(_play(env, seed=4))
    *_, (_, reward, terminated, truncated, info) = steps
    assert truncated and not terminated and reward == -0.5
    assert sum(r for _, r, _, _, _ in steps) == -0.5
    assert env.outcome().winners == () and not info["winners"].any() and info["truncated"]
    assert set(info) == {"action_mask", "seat", *RESULT_KEYS} and info["game_over"]


def test_step_reward_is_added_to_each_learner_decision() -> None:
    env = SingleAgentEnv(num_players=2, max_rounds=3, allow_overbid=False, vp_delta=0,
                         truncation_reward=0, step_reward=-0.01)
    rewards = [r for _, r, _, _, _ in _play(env, seed=4)]
    assert rewards == pytest.approx([-0.01] * len(rewards))


def test_reward_options_pass_through_to_the_aec_env_unchanged() -> None:
    options = {"reward": "vp_margin", "vp_delta": 0.02, "step_reward": -0.001,
               "truncation_reward": -0.5, "illegal_reward": -3.0}
    env = SingleAgentEnv(**options)
    assert env.aec.reward_config.to_dict() == options
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(int(np.flatnonzero(~env.action_masks())[0]))
    assert terminated and reward == -3.0


def test_non_finite_reward_options_are_refused() -> None:
    with pytest.raises(ValueError, match="^truncation_reward must be a finite number"):
        SingleAgentEnv(truncation_reward=float("nan"))
    with pytest.raises(ValueError, match="^illegal_reward must be a finite number"):
        SingleAgentEnv(illegal_reward=float("-inf"))


def test_every_info_has_the_same_batchable_keys_and_outcome_is_on_the_env() -> None:
    env = SingleAgentEnv(num_players=2)
    steps = list(_play(env, seed=4))
    keys = {"action_mask", "seat", *RESULT_KEYS}
    assert all(set(info) == keys for *_, info in steps)
    *_, (_, _, terminated, _, info) = steps
    outcome = env.outcome()
    assert terminated and isinstance(outcome, Outcome) and outcome == game_outcome(env.game)
    assert info["scores"].tolist() == list(outcome.scores)
    assert np.flatnonzero(info["winners"]).tolist() == list(outcome.winners)
    assert info["rounds"] == outcome.rounds and outcome.winners and info["game_over"]


def test_infos_of_different_calls_share_no_array() -> None:
    # The caller keeps each step's info (replay buffers do); Gymnasium 1.4's check_env
    # refuses infos of two resets that share an object.
    env = SingleAgentEnv(num_players=2)
    infos = [env.reset(seed=0)[1], env.reset(seed=0)[1]]
    infos += [info for *_, info in _play(env, seed=4)][-2:]
    arrays = [v for info in infos for v in info.values() if isinstance(v, np.ndarray)]
    assert len({id(a) for a in arrays}) == len(arrays)
    assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[:i])


def test_an_illegal_learner_action_gives_the_same_final_info_keys() -> None:
    env = SingleAgentEnv(num_players=2)
    _, info = env.reset(seed=0)
    *_, terminated, _, final = env.step(int(np.flatnonzero(~env.action_masks())[0]))
    assert terminated and set(final) == set(info)
    assert final["illegal_action"] and final["game_over"] and not final["terminated"]


def test_an_unknown_option_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        SingleAgentEnv(frameskip=4)
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        gymnasium.make("Zavandor-v0", frameskip=4)  # what TorchRL's GymEnv probes


def test_function_agents_and_agents_play_the_other_seats() -> None:
    seen: dict[str, set[int]] = {"function": set(), "agent": set()}

    def first(observation, view, legal):
        seen["function"].add(view.seat)
        assert observation is not None and observation["action_mask"][list(legal)].all()
        return legal[0]

    class Last(Agent):
        resets = 0

        def reset(self, seat, num_players, seed=None):
            super().reset(seat, num_players, seed)
            Last.resets += 1

        def act(self, observation, view, legal_actions):
            seen["agent"].add(view.seat)
            assert observation is None  # needs_observation is false by default
            return legal_actions[-1]

    function = FunctionAgent(first, needs_observation=True)
    env = SingleAgentEnv(num_players=3, learner_seat=0, opponents=[function, Last()],
                         max_rounds=4, allow_overbid=False)
    for _ in _play(env, seed=5):
        pass
    assert seen == {"function": {1}, "agent": {2}} and Last.resets == 1


def test_set_opponents_takes_effect_at_the_next_reset() -> None:
    calls = []
    env = SingleAgentEnv(num_players=2, learner_seat=0, max_rounds=2, allow_overbid=False,
                         opponents=None)
    env.reset(seed=0)
    env.set_opponents(FunctionAgent(lambda obs, view, legal: calls.append(1) or legal[0]))
    assert not calls and env.opponents == (None,)
    for _ in _play(env, seed=0):
        pass
    assert calls and isinstance(env.opponents[0], FunctionAgent)


class _ActInfoPolicy:
    """The old duck-typed convention, act(observation, info): no longer guessed at."""

    def act(self, observation, info):  # noqa: ANN001, ANN201
        return 0


@pytest.mark.parametrize(
    "opponents",
    [lambda observation: 0, _ActInfoPolicy(), 3, [None, lambda o, v, legal: legal[0]]],
    ids=["bare-callable", "act-info-object", "int", "callable-in-a-list"],
)
def test_anything_but_none_an_agent_or_a_spec_is_refused_with_a_hint_to_wrap_it(opponents
                                                                                ) -> None:
    with pytest.raises(TypeError, match="FunctionAgent") as info:
        SingleAgentEnv(num_players=3, opponents=opponents)
    assert "\n" not in str(info.value)


def test_agent_specs_build_one_agent_per_seat_as_gymnasium_make_does() -> None:
    env = SingleAgentEnv(num_players=3, opponents="heuristic")
    first, second = env.opponents
    assert first.name == second.name == "heuristic" and first is not second
    env.set_opponents(["random", {"agent": "novice"}])
    env.reset(seed=0)
    assert [o.name for o in env.opponents] == ["random", "novice"]


def test_a_refused_set_opponents_leaves_the_current_opponents_in_place() -> None:
    env = SingleAgentEnv(num_players=2, opponents=None)
    with pytest.raises(TypeError, match="FunctionAgent"):
        env.set_opponents(lambda observation: 0)
    env.reset(seed=0)
    assert env.opponents == (None,)


def test_the_plain_class_plays_the_novice_by_default_and_random_on_request() -> None:
    assert [o.name for o in SingleAgentEnv(num_players=4).opponents] == ["novice"] * 3
    assert SingleAgentEnv(num_players=4, opponents=None).opponents == (None, None, None)


def test_opponents_of_the_wrong_count_are_rejected() -> None:
    with pytest.raises(ValueError, match="one opponent per other seat"):
        SingleAgentEnv(num_players=4, opponents=[None, None])


def test_an_illegal_learner_action_ends_the_episode_with_a_penalty_and_is_counted() -> None:
    env = SingleAgentEnv(num_players=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"] and env.illegal_actions == 1
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_illegal_action_raise_mode_raises() -> None:
    env = SingleAgentEnv(num_players=2, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(int(np.flatnonzero(~env.action_masks())[0]))


def test_same_seed_gives_the_same_episode() -> None:
    def run():
        env = SingleAgentEnv(num_players=3, max_rounds=3)
        return [(o.tobytes(), r) for o, r, *_ in _play(env, seed=9)]

    assert run() == run()


def test_gymnasium_make_builds_the_adapter() -> None:
    env = gymnasium.make("Zavandor-v0", num_players=4)
    obs, info = env.reset(seed=0)
    assert isinstance(env.unwrapped, SingleAgentEnv)
    assert obs.shape == (OBS_SIZE,) and env.unwrapped.num_players == 4
    assert env.unwrapped.action_masks().any()


@pytest.mark.parametrize(
    "script",
    [
        "import zavandor_env, gymnasium; gymnasium.make('Zavandor-v0', num_players=3)",
        "import gymnasium, zavandor_env; gymnasium.make('Zavandor-v0', num_players=3)",
        "import gymnasium; gymnasium.make('zavandor_env:Zavandor-v0', num_players=3)",
    ],
    ids=["zavandor-first", "gymnasium-first", "module-prefix"],
)
def test_registered_id_works_whatever_the_import_order(script: str) -> None:
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


def test_lazy_top_level_exports() -> None:
    import zavandor_env

    assert zavandor_env.SingleAgentEnv is SingleAgentEnv
    assert zavandor_env.raw_env.metadata["name"] == "zavandor_v0"
    with pytest.raises(AttributeError):
        zavandor_env.not_a_thing  # noqa: B018


class _RecordingAgent(Agent):
    """A minimal agent of the project's protocol that remembers what it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.resets: list[tuple[int, int]] = []
        self.seen: list[tuple[object, int]] = []

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        self.resets.append((seat, num_players))

    def act(self, observation, view, legal_actions):  # noqa: ANN001, ANN201
        self.seen.append((observation, view.seat))
        return legal_actions[0]


def test_agents_of_the_project_protocol_play_their_own_seat_without_observation() -> None:
    agent = _RecordingAgent()
    env = SingleAgentEnv(num_players=3, learner_seat=0, opponents=agent)
    env.reset(seed=3)
    for _ in range(200):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break
    # one agent for two seats: the second seat plays a copy, each reset for its own seat
    copies = env.opponents
    assert copies[0] is agent and copies[1] is not agent
    assert agent.resets[-1] == (1, 3) and copies[1].resets[-1] == (2, 3)
    assert agent.seen and all(obs is None and seat == 1 for obs, seat in agent.seen)
    assert all(seat == 2 for _, seat in copies[1].seen)
