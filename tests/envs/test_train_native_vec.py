"""The native training VecEnv (``vec_env: native``): SB3's VecEnv conventions, TrainingEnv's
statistics and pool draws, snapshot opponents played in the core, seeding, and a tiny PPO run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

_native = pytest.importorskip("zavandor_env.engine._native")
if not hasattr(_native, "VecLearner"):
    pytest.skip("the native module has no VecLearner", allow_module_level=True)

from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

from zavandor_env.agents import netsearch  # noqa: E402
from zavandor_env.agents.policy_file import NumpyPolicy  # noqa: E402
from zavandor_env.encoding.observation import OBS_SIZE  # noqa: E402
from zavandor_env.engine.actions import NUM_ACTIONS  # noqa: E402
from zavandor_env.envs.opponents import PoolSpec  # noqa: E402
from zavandor_env.envs.sb3 import NativeVecEnv  # noqa: E402
from zavandor_env.envs.training import ACTION_TO_BLOCK, BLOCK_NAMES  # noqa: E402
from zavandor_env.train.config import TrainConfig, load_config  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SHORT_GAME = {"max_decisions": 12, "allow_overbid": False}


def make(n: int = 4, weights: dict | None = None, seed: int = 0, game: dict | None = None,
         **kw) -> NativeVecEnv:  # noqa: ANN003
    """``n`` games drawing from ``weights`` (rule options ``game``; ``kw``: players, learner
    seat, reward options), as the trainer builds them."""
    return NativeVecEnv(n, PoolSpec(dict(weights or {"random": 1.0})), seed=seed,
                        **(game or {}), **kw)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    scores = rng.random(masks.shape)
    scores[~masks] = -1.0
    return scores.argmax(axis=1)


def masks_of(env: VecEnv) -> np.ndarray:
    from sb3_contrib.common.maskable.utils import get_action_masks

    return get_action_masks(env)


# ---- SB3 VecEnv conventions -----------------------------------------------------------------
def test_shapes_dtypes_dones_infos_and_masks() -> None:
    from sb3_contrib.common.maskable.utils import is_masking_supported

    env = VecMonitor(make(n=3, weights={"random": 1.0, "heuristic": 1.0},
                          game={"max_decisions": 40}))
    assert isinstance(env.unwrapped, VecEnv) and env.num_envs == 3
    assert env.observation_space.shape == (OBS_SIZE,) and env.action_space.n == NUM_ACTIONS
    assert is_masking_supported(env)
    assert env.get_attr("render_mode") == [None] * 3
    assert env.env_is_wrapped(object) == [False] * 3
    obs = env.reset()
    assert obs.shape == (3, OBS_SIZE) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(80):
        masks = masks_of(env)
        assert masks.shape == (3, NUM_ACTIONS) and masks.dtype == np.bool_
        assert masks.any(axis=1).all()
        obs, rewards, dones, infos = env.step(random_actions(masks, rng))
        assert obs.shape == (3, OBS_SIZE) and obs.dtype == np.float32
        assert all(env.observation_space.contains(o) for o in obs)
        assert rewards.shape == (3,) and rewards.dtype == np.float32
        assert dones.shape == (3,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == 3
        for done, info in zip(dones, infos):
            assert ("terminal_observation" in info) == bool(done)
            if done:
                finished += 1
                final = info["terminal_observation"]
                assert final.shape == (OBS_SIZE,) and final.dtype == np.float32
                # Cut-off games are priced by the env and final: never bootstrapped.
                assert info["TimeLimit.truncated"] is False
                assert info["truncated"] == (not info["outcome"].terminated)
                assert "episode" in info  # VecMonitor's
    assert finished > 0
    env.close()


def test_a_cut_off_game_is_final_and_priced_by_the_env() -> None:
    env = make(n=2, weights={"random": 1.0}, game=SHORT_GAME, vp_delta=0.0, step_reward=0.0,
               truncation_reward=-1.0)
    env.reset()
    rng = np.random.default_rng(1)
    totals = np.zeros(2)
    done_once = np.zeros(2, bool)
    while not done_once.all():
        _, rewards, dones, infos = env.step(random_actions(env.action_masks(), rng))
        totals += np.where(done_once, 0.0, rewards)
        for i in np.flatnonzero(dones):
            assert infos[i]["truncated"] and not infos[i]["TimeLimit.truncated"]
        done_once |= dones
    assert totals.tolist() == [-1.0, -1.0]
    episodes = [e for s in env.env_method("pop_stats") for e in s["episodes"]]
    assert episodes and all(not e["terminated"] and e["winners"] == [] for e in episodes)


# ---- statistics -----------------------------------------------------------------------------
STATS_KEYS = {"blocks", "illegal", "env_seconds", "episodes"}
EPISODE_KEYS = {"seat", "scores", "ranks", "labels", "winners", "terminated", "rounds",
                "decisions", "illegal"}


def test_pop_stats_has_the_charts_keys_and_counts() -> None:
    rng = np.random.default_rng(0)
    env = make(n=3, weights={"random": 1.0, "heuristic": 1.0}, game=SHORT_GAME)
    env.reset()
    taken = []
    for _ in range(30):
        taken.append(random_actions(env.action_masks(), rng))
        env.step(taken[-1])
    stats = env.env_method("pop_stats")
    assert len(stats) == 3
    for i, s in enumerate(stats):
        assert set(s) == STATS_KEYS
        blocks = np.bincount(ACTION_TO_BLOCK[np.array(taken)[:, i]], minlength=len(BLOCK_NAMES))
        np.testing.assert_array_equal(s["blocks"], blocks)
        assert s["illegal"] == 0 and s["env_seconds"] > 0
        for episode in s["episodes"]:
            assert set(episode) == EPISODE_KEYS
            labels = episode["labels"]
            assert labels[episode["seat"]] == "learner" and labels.count("learner") == 1
    labels = {lab for s in stats for e in s["episodes"] for lab in e["labels"]}
    assert labels == {"learner", "random", "heuristic"}
    again = env.env_method("pop_stats")  # popped: counters start over
    assert all(s["blocks"].sum() == 0 and s["episodes"] == [] and s["env_seconds"] == 0
               for s in again)


def test_native_and_python_path_opponents_with_their_labels(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain random/heuristic/novice/naive/planner key, labelled or not, plays natively; a
    key with parameters is built and played as its Python agent; each is reported under its
    label."""
    from zavandor_env.agents.registry import AgentSpec

    built: list[tuple[str, dict]] = []
    build = AgentSpec.build

    def counting_build(self: AgentSpec, seed: int | None = None):  # noqa: ANN202
        built.append((self.agent, dict(self.params)))
        return build(self, seed)

    env = make(n=2, num_players=3, weights={"novice": 1.0, "naive": 1.0, "planner:label=plan": 1.0,
                                            "naive:seed=3": 1.0, "heuristic:seed=3": 1.0},
               game=SHORT_GAME)
    monkeypatch.setattr(AgentSpec, "build", counting_build)  # (after the config's own checks)
    env.reset()
    rng = np.random.default_rng(2)
    for _ in range(60):
        env.step(random_actions(env.action_masks(), rng))
    labels = {lab for s in env.pop_stats() for e in s["episodes"] for lab in e["labels"]}
    assert labels == {"learner", "novice", "naive", "plan", "heuristic"}
    # Only the keys with parameters were built as Python agents.
    assert {(agent, params.get("seed")) for agent, params in built} == {
        ("naive", 3), ("heuristic", 3)}, built
    assert env.venv.native.agent_fallbacks == 0


# ---- snapshots play inside the core ----------------------------------------------------------
def one_layer_policy(bias: np.ndarray) -> NumpyPolicy:
    """A policy whose logits are ``bias`` whatever it observes."""
    return NumpyPolicy([np.zeros((NUM_ACTIONS, OBS_SIZE), np.float32)], [bias])


class RoundCounter:
    """Wraps the native VecLearner and counts the rounds of pending opponent decisions."""

    def __init__(self, vec) -> None:  # noqa: ANN001
        self.vec = vec
        self.pending_rounds = 0

    def pending(self, env_ids: np.ndarray, seats: np.ndarray) -> int:
        m = self.vec.pending(env_ids, seats)
        self.pending_rounds += m > 0
        return m

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.vec, name)


def python_rounds(env: NativeVecEnv, steps: int, seed: int) -> int:
    """Rounds of opponent decisions answered in Python while ``steps`` random learner steps
    are played."""
    rounds = RoundCounter(env.venv._vec)
    env.venv._vec = rounds
    env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(random_actions(env.action_masks(), rng))
    return rounds.pending_rounds


def test_snapshot_opponents_play_inside_the_core_without_a_python_decision(
        monkeypatch: pytest.MonkeyPatch) -> None:
    uniform = np.zeros(NUM_ACTIONS, np.float32)
    monkeypatch.setattr(netsearch, "_POLICIES", {"/pool/a.npz": one_layer_policy(uniform),
                                                 "/pool/b.npz": one_layer_policy(uniform)})
    spec = PoolSpec({"snapshot": 1.0}, [("snap@000000001", "/pool/a.npz"),
                                        ("snap@000000002", "/pool/b.npz")], latest_share=0.5)
    env = NativeVecEnv(8, spec, num_players=3, seed=4, max_decisions=60)
    assert python_rounds(env, 40, seed=3) == 0  # no opponent decision waited for Python
    labels = {lab for s in env.pop_stats() for e in s["episodes"] for lab in e["labels"]}
    assert labels == {"learner", "snap@000000001", "snap@000000002"}


def test_a_network_opponent_samples_legal_actions_by_probability() -> None:
    """The core samples a network seat's move from its softmax over the legal actions: a
    1 : 3 bias between two actions shows in the moves it plays, and it never plays an
    illegal action however likely the network finds it."""
    from zavandor_env.engine import Game
    from zavandor_env.envs.vector import NetworkOpponent, ZavandorVectorEnv

    a, b = 0, 2  # legal at the first decision of every 2-player game (a turn's first choice)
    illegal = 1  # never legal there, and by far the network's favourite
    bias = np.full(NUM_ACTIONS, -50.0, np.float32)
    bias[[a, b, illegal]] = [0.0, np.log(3.0), 40.0]
    opponent = NetworkOpponent(one_layer_policy(bias))
    # Seat 0 is the network; in the games it starts, its first move is history[0].
    env = ZavandorVectorEnv(6000, 2, opponents=opponent, seed=1, learner_seat=1)
    env.reset()
    seeds = np.zeros(6000, np.int64)
    env.native.game_seed(seeds)
    first, legal_ok = [], True
    for i in range(6000):
        history = env.native.core(i).history()
        if history and Game.new(env.config, seed=int(seeds[i])).current_player == 0:
            first.append(history[0])
            legal = set(Game.new(env.config, seed=int(seeds[i])).legal_actions())
            legal_ok &= {a, b} <= legal and illegal not in legal
    first_moves = np.array(first)
    assert legal_ok and len(first_moves) > 2000
    assert set(first_moves.tolist()) <= {a, b}
    assert np.mean(first_moves == b) == pytest.approx(0.75, abs=0.03)
    with pytest.raises(TypeError, match="NetworkOpponent takes"):
        NetworkOpponent("not a policy")


def test_a_network_of_other_sizes_is_refused_at_reset() -> None:
    from zavandor_env.envs.vector import NetworkOpponent, ZavandorVectorEnv

    small = NumpyPolicy([np.zeros((NUM_ACTIONS, 5), np.float32)],
                        [np.zeros(NUM_ACTIONS, np.float32)])
    env = ZavandorVectorEnv(2, 2, opponents=NetworkOpponent(small), seed=0)
    with pytest.raises(ValueError, match="reads 5 values and scores"):
        env.reset()


def test_set_pool_reaches_the_listed_games_only() -> None:
    env = make(n=2, weights={"random": 1.0}, game=SHORT_GAME)
    env.env_method("set_pool", PoolSpec({"heuristic": 1.0}), indices=[1])
    assert [s.weights for s in env.get_attr("pool_spec")] == [{"random": 1.0},
                                                             {"heuristic": 1.0}]
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        env.step(random_actions(env.action_masks(), rng))
    per_env = [{lab for e in s["episodes"] for lab in e["labels"]} for s in env.pop_stats()]
    assert per_env == [{"learner", "random"}, {"learner", "heuristic"}]


# ---- seeding ----------------------------------------------------------------------------------
def _run(env: NativeVecEnv, steps: int = 120) -> tuple[np.ndarray, list]:
    rng = np.random.default_rng(7)
    trace = [env.reset()]
    for _ in range(steps):
        obs, rewards, dones, _ = env.step(random_actions(env.action_masks(), rng))
        trace += [obs, rewards, dones]
    episodes = [e for s in env.pop_stats() for e in s["episodes"]]
    return np.concatenate([np.ravel(t).astype(np.float64) for t in trace]), episodes


def test_seeded_runs_repeat() -> None:
    weights = {"random": 1.0, "heuristic": 1.0, "novice": 1.0}
    kw = {"num_players": 3, "game": {"max_decisions": 40}}
    first, first_eps = _run(make(n=3, weights=weights, seed=5, **kw))
    second, second_eps = _run(make(n=3, weights=weights, seed=5, **kw))
    np.testing.assert_array_equal(first, second)
    assert first_eps == second_eps and first_eps
    # SB3's way: seed() then reset() reseeds a used env
    env = make(n=3, weights=weights, seed=9, **kw)
    _run(env, 10)
    env.seed(5)
    third = _run(env)
    env.seed(5)
    np.testing.assert_array_equal(third[0], _run(env)[0])
    other = make(n=3, weights=weights, seed=6, **kw)
    assert not np.array_equal(first, _run(other)[0])


# ---- config and trainer -----------------------------------------------------------------------
def test_the_trainer_steps_its_games_on_the_native_vec_env() -> None:
    from zavandor_env.train.ppo.selfplay import make_vec_env

    cfg = TrainConfig()
    venv = make_vec_env(cfg, PoolSpec(cfg.opponent_weights))
    assert isinstance(venv.unwrapped, NativeVecEnv) and venv.num_envs == cfg.ppo.n_envs
    venv.close()


def test_tiny_maskable_ppo_run_trains_on_the_native_env(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from zavandor_env.train.ppo.selfplay import latest_checkpoint, train

    cfg = load_config(CONFIGS / "quick.yaml", [
        f"runs_dir={tmp_path}", "progress_bar=false", "vec_env=native", "n_envs=4",
        "n_steps=128", "batch_size=128", "total_timesteps=2048", "snapshot_every=512",
        "checkpoint_every=1024", "eval_games=1", "eval_every=2048",
        "opponent_weights={snapshot: 1.0, heuristic: 0.5}",
    ])
    run_dir = train(cfg)
    checkpoint = latest_checkpoint(run_dir)
    assert checkpoint is not None
    state = json.loads((checkpoint / "state.json").read_text())
    assert state["step"] == 2048 and state["totals"]["illegal_actions"] == 0
    assert len(state["pool"]["snapshots"]) >= 3
    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    expected = {"charts/mean_vp", "charts/mean_rounds", "charts/env_steps_per_s",
                "perf/env_time_share", "rollout/ep_rew_mean", "time/fps",
                "charts/winrate_train_vs_snap", "charts/winrate_train_vs_heuristic",
                "eval/winrate_vs_random"} | {f"actions/share_{name}" for name in BLOCK_NAMES}
    assert expected <= tags, sorted(expected - tags)
    shares = [acc.Scalars(f"actions/share_{name}")[-1].value for name in BLOCK_NAMES]
    assert sum(shares) == pytest.approx(1.0)
    assert 0 < acc.Scalars("perf/env_time_share")[-1].value < 1


def test_training_on_the_native_env_repeats_with_a_seed(tmp_path: Path) -> None:
    from zavandor_env.agents.policy_file import load_policy
    from zavandor_env.train.ppo.selfplay import train

    def run(name: str) -> list[np.ndarray]:
        cfg = load_config(CONFIGS / "quick.yaml", [
            f"runs_dir={tmp_path / name}", "progress_bar=false", "vec_env=native",
            "n_envs=4", "n_steps=64", "batch_size=64", "total_timesteps=768",
            "snapshot_every=256", "checkpoint_every=768", "eval_games=0",
            "opponent_weights={snapshot: 1.0, random: 1.0, novice: 1.0}",
        ])
        policy = load_policy(train(cfg) / "policy.npz")
        return policy.weights + policy.biases

    for first, second in zip(run("a"), run("b")):
        np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize(("game", "native"), [({"allow_overbid": False}, True),
                                              ({"allow_overbid": True}, False)])
def test_a_policy_file_opponent_plays_in_the_core_where_its_curse_filter_changes_nothing(
        tmp_path: Path, game: dict, native: bool) -> None:
    """A ``policy:path=...`` target (an exploit run's) is a greedy network in the core under
    the affordability filter; under the rulebook's Curse its agent's filter matters, so the
    Python agent plays it."""
    from zavandor_env.agents.policy_file import save_policy

    bias = np.zeros(NUM_ACTIONS, np.float32)
    path = save_policy(one_layer_policy(bias), tmp_path / "target.npz")
    env = NativeVecEnv(4, PoolSpec({f"policy:path={path},label=target": 1.0}), num_players=2,
                       seed=2, max_decisions=80, **game)
    assert (python_rounds(env, 30, seed=0) == 0) is native
    labels = {lab for s in env.pop_stats() for e in s["episodes"] for lab in e["labels"]}
    assert labels <= {"learner", "target"}


def test_a_greedy_network_opponent_plays_its_most_probable_legal_action() -> None:
    from zavandor_env.engine import Game
    from zavandor_env.envs.vector import NetworkOpponent, ZavandorVectorEnv

    bias = np.full(NUM_ACTIONS, -1.0, np.float32)
    bias[[0, 2]] = [0.5, 0.4]  # 0 is a little likelier than 2: greedy always plays 0
    bias[1] = 9.0  # illegal at a turn's first choice, whatever the network thinks
    opponent = NetworkOpponent(one_layer_policy(bias), greedy=True)
    assert "greedy=True" in repr(opponent)
    env = ZavandorVectorEnv(300, 2, opponents=opponent, seed=3, learner_seat=1)
    env.reset()
    seeds = np.zeros(300, np.int64)
    env.native.game_seed(seeds)
    first = [env.native.core(i).history()[0] for i in range(300)
             if Game.new(env.config, seed=int(seeds[i])).current_player == 0]
    assert len(first) > 100 and set(first) == {0}
