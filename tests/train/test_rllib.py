"""The RLlib backend: the multi-agent env adapter, the league's policy mapping, the masked
RLModule and its export, and a tiny self-play run end to end (the ``zavandor train`` command on
a local Ray: TensorBoard tags, checkpoint, resume, and an exported ``.npz`` that
``PolicyAgent`` plays legally).  Skipped where the ``[ray]`` extra is not installed, except the
tests of the one-line error that says to install it."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests.interrupt import interrupt_after_first_checkpoint
from zavandor_env.cli import main
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.engine.outcome import game_outcome
from zavandor_env.envs.contract import FINISHED_ACTION
from zavandor_env.envs.training import BLOCK_NAMES
from zavandor_env.train.config import TrainConfigError, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
QUICK = CONFIGS / "rllib_quick.yaml"
#: A run of a few iterations: 256 decisions of every seat per iteration, 1 env runner.
TINY = ["total_timesteps=500", "n_envs=1", "n_steps=256", "batch_size=128", "n_epochs=2",
        "snapshot_every=200", "eval_every=400", "eval_games=2", "checkpoint_every=400",
        "progress_bar=false"]
EXPECTED_SCALARS = {
    "eval/winrate_vs_random", "eval/winrate_vs_heuristic", "rating/learner_mu",
    "rating/learner_ordinal", "charts/mean_vp", "charts/illegal_actions",
    "charts/env_steps_per_s", "charts/winrate_train", "train/policy_gradient_loss",
    "rollout/ep_rew_mean", "pool/snapshots",
} | {f"actions/share_{name}" for name in BLOCK_NAMES}


NEEDS_RAY = 'needs the [ray] extra: pip install -e ".[ray]"'


def rllib() -> Any:
    """RLlib, or skip the test naming the extra that brings it."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    return pytest.importorskip("ray.rllib", reason=NEEDS_RAY)


@pytest.fixture(scope="module")
def ray_local() -> Any:
    """One small local Ray for the tests that need one (2 CPUs, no dashboard)."""
    rllib()
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    yield ray
    ray.shutdown()


# ---- the environment --------------------------------------------------------------------------
def make_env(**config: Any) -> Any:
    rllib()
    from zavandor_env.envs.rllib import ZavandorMultiAgentEnv

    base = {"num_players": 3, "options": {"vp_delta": 0.005, "step_reward": -0.001,
                                          "max_decisions": 3000},
            "scripted": ["random", "heuristic"], "seed": 5}
    return ZavandorMultiAgentEnv({**base, **config})


def test_env_asks_one_seat_at_a_time_and_pays_every_seat_its_aec_rewards() -> None:
    rllib()  # skips without the [ray] extra, before the imports that need it
    from zavandor_env.envs.rllib import MASK_KEY, OBS_KEY, SUMMARY_KEY

    env = make_env()
    obs, _ = env.reset()
    start_vp = env.aec.game.scores()
    rng = np.random.default_rng(0)
    paid: Counter[str] = Counter()
    decisions: Counter[str] = Counter()
    for _ in range(5000):
        assert len(obs) == 1
        (agent, seen), = obs.items()
        assert agent == env.aec.agent_selection
        assert seen[OBS_KEY].shape == (710,) and seen[MASK_KEY].dtype == np.float32
        assert seen[MASK_KEY].shape == (NUM_ACTIONS + 2,) and not seen[MASK_KEY][NUM_ACTIONS:].any()
        seat = env.aec.seat(agent)
        decisions[agent] += 1
        if seat == 0:  # seat 0 is the heuristic's, seat 2 the random agent's: delegated
            action = NUM_ACTIONS + 1
        elif seat == 2:
            action = NUM_ACTIONS
        else:
            action = int(rng.choice(np.flatnonzero(seen[MASK_KEY])))
        obs, rewards, done, cut, infos = env.step({agent: action})
        paid.update(rewards)
        if done["__all__"]:
            break
    assert done["__all__"] and not cut["__all__"]
    assert set(obs) == set(env.possible_agents) == set(infos)
    # a finished game's mask allows the never-applied end_turn alone (the env contract)
    assert all(np.flatnonzero(o[MASK_KEY]).tolist() == [FINISHED_ACTION] for o in obs.values())
    summary = infos["player_0"][SUMMARY_KEY]
    outcome = game_outcome(env.aec.game)
    assert summary["scores"] == list(outcome.scores) and not summary["illegal"]
    final = env.aec.reward_config.final_rewards(outcome)
    for seat, agent in enumerate(env.possible_agents):
        expected = (final[seat] - 0.001 * decisions[agent]
                    + 0.005 * (outcome.scores[seat] - start_vp[seat]))
        assert paid[agent] == pytest.approx(expected, abs=1e-6)
        assert summary["paid"][seat] == pytest.approx(paid[agent], abs=1e-9)
        assert sum(summary["blocks"][seat]) == decisions[agent]
    assert {(0, 1), (2, 0)} <= set(env._scripted)  # the heuristic and random seats' agents


def test_env_ends_the_game_on_an_illegal_action_and_says_so() -> None:
    rllib()  # skips without the [ray] extra, before the imports that need it
    from zavandor_env.envs.rllib import MASK_KEY, SUMMARY_KEY

    env = make_env(num_players=2)
    obs, _ = env.reset(seed=3)
    (agent, seen), = obs.items()
    illegal = int(np.flatnonzero(seen[MASK_KEY][:NUM_ACTIONS] == 0)[0])
    obs, rewards, done, _, infos = env.step({agent: illegal})
    assert done["__all__"] and rewards == {agent: -1.0}
    assert infos[agent][SUMMARY_KEY]["illegal"] and env.illegal_actions == 1


def test_env_copies_on_different_runners_play_different_games() -> None:
    rllib()  # skips without the [ray] extra, before the imports that need it
    from ray.rllib.env.env_context import EnvContext

    base = {"num_players": 2, "scripted": ["random"], "seed": 1}
    seeds = set()
    for worker in (1, 2):
        env = make_env(**base)  # the plain-dict build: worker 0
        env.reset(seed=7)
        seeds.add(env.aec.game.seed)
        context = EnvContext({**base, "options": {}}, worker_index=worker)
        env = type(env)(context)
        env.reset(seed=7)  # RLlib repeats seeds across runners: the copies still differ
        seeds.add(env.aec.game.seed)
    assert len(seeds) == 3


# ---- the league -------------------------------------------------------------------------------
def test_mapping_seats_main_once_and_draws_the_lineup_once_per_episode() -> None:
    rllib()
    from zavandor_env.train.rllib.league import League, LeagueMapping

    scripted = {"random": "scripted_0", "heuristic": "scripted_1"}
    weights = {"snapshot": 0.5, "random": 0.25, "heuristic": 0.25}
    empty = LeagueMapping(4, None, weights, scripted, [])
    full = LeagueMapping(4, None, weights, scripted, ["snap_1", "snap_0"], latest_share=0.5)
    drawn: Counter[str] = Counter()
    mains: Counter[int] = Counter()
    for k in range(400):
        episode = SimpleNamespace(id_=f"episode-{k}")
        lineup = [full(f"player_{s}", episode) for s in range(4)]
        assert lineup == full.lineup(episode.id_)  # every seat's call agrees
        assert lineup.count("main") == 1
        mains[lineup.index("main")] += 1
        drawn.update(m for m in lineup if m != "main")
        assert "snap" not in "".join(empty.lineup(episode.id_))  # no slot filled yet
    assert set(mains) == {0, 1, 2, 3}
    assert drawn["snap_0"] > 0 and drawn["snap_1"] > drawn["snap_0"]  # the newest is favoured
    assert 0.4 < (drawn["snap_0"] + drawn["snap_1"]) / sum(drawn.values()) < 0.6
    fixed = LeagueMapping(3, 2, weights, scripted, [])
    assert all(fixed.lineup(str(k))[2] == "main" for k in range(50))

    league = League(load_config(QUICK, ["pool_size=2"]))
    assert league.mapping().scripted == scripted
    for step in (100, 200, 300):
        league.add(league.next_slot(), f"snap@{step:09d}")
    assert league.filled == [("snap_1", "snap@000000200"), ("snap_0", "snap@000000300")]
    assert league.label("snap_0") == "snap@000000300" and league.label("main") == "learner"
    assert league.label("scripted_1") == "heuristic"


# ---- the module and its export ----------------------------------------------------------------
def test_masked_module_never_prefers_an_illegal_action_and_exports_exactly() -> None:
    rllib()
    import torch
    from gymnasium import spaces
    from ray.rllib.core.columns import Columns

    from zavandor_env.envs.rllib import MASK_KEY, OBS_KEY
    from zavandor_env.train.rllib.export import policy_from_module_state
    from zavandor_env.train.rllib.module import MASKED_LOGIT, MaskedActorCritic, ScriptedModule

    n = NUM_ACTIONS + 2
    space = spaces.Dict({OBS_KEY: spaces.Box(-10, 10, (710,), np.float32),
                         MASK_KEY: spaces.Box(0, 1, (n,), np.float32)})
    module = MaskedActorCritic(observation_space=space, action_space=spaces.Discrete(n),
                               model_config={"hidden": [32, 16], "activation": "relu"})
    rng = np.random.default_rng(1)
    obs = rng.normal(size=(8, 710)).astype(np.float32)
    mask = (rng.random((8, n)) < 0.3).astype(np.float32)
    mask[:, 0] = 1.0
    mask[:, NUM_ACTIONS:] = 0.0
    batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(obs), MASK_KEY: torch.from_numpy(mask)}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        values = module.compute_values(batch).numpy()
    assert (logits[mask == 0] == MASKED_LOGIT).all()
    assert mask[np.arange(8), logits.argmax(axis=1)].all()

    policy = policy_from_module_state(module.state_dict(), "relu")
    assert policy.num_actions == NUM_ACTIONS and policy.has_value
    legal = mask[:, :NUM_ACTIONS] > 0
    assert np.allclose(policy.logits(obs)[legal], logits[:, :NUM_ACTIONS][legal], atol=1e-5)
    assert np.allclose([policy.value(o) for o in obs], values, atol=1e-5)
    for o, m, z in zip(obs, mask, logits):
        assert policy.act(o, m[:NUM_ACTIONS], deterministic=True) == int(z.argmax())

    lean = MaskedActorCritic(observation_space=space, action_space=spaces.Discrete(n),
                             inference_only=True, model_config={"hidden": [32, 16]})
    assert not hasattr(lean, "critic")  # env runners carry the actor only
    scripted = ScriptedModule(observation_space=space, action_space=spaces.Discrete(n),
                              model_config={"delegate": NUM_ACTIONS + 1})
    actions = scripted.forward_inference(batch)[Columns.ACTIONS]
    assert list(actions) == [NUM_ACTIONS + 1] * 8


# ---- the config and the command's errors ------------------------------------------------------
def test_rllib_configs_load_and_choose_the_trainer() -> None:
    assert load_config(QUICK).trainer == "rllib"
    assert load_config(CONFIGS / "rllib_selfplay_4p.yaml").num_players == 4
    assert load_config(CONFIGS / "quick.yaml").trainer == "ppo"
    with pytest.raises(TrainConfigError, match="'trainer'"):
        load_config(None, ["backend=tf"])
    with pytest.raises(TrainConfigError, match="'ppo.target_kl'"):
        load_config(QUICK, ["target_kl=0.02"])
    with pytest.raises(TrainConfigError, match="'rllib.num_env_runners'"):
        load_config(QUICK, ["num_env_runners=-1"])


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_without_ray_the_rllib_backend_names_the_extra(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as without the extra
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--config", str(QUICK)]) == 2
    assert 'pip install -e ".[ray]"' in one_line(capsys)
    assert not (tmp_path / "runs").exists()


def test_address_needs_the_rllib_trainer(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--address", "auto"]) == 2  # the default config is sb3's quick run
    assert "trainer: rllib" in one_line(capsys)
    assert not (tmp_path / "runs").exists()


def test_a_cluster_that_cannot_be_joined_is_one_line_and_starts_no_run(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    ray = rllib() and pytest.importorskip("ray")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("Could not find any running Ray instance")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--config", str(QUICK), "--address", "auto"]) == 2
    assert "'auto'" in one_line(capsys)
    assert not (tmp_path / "runs").exists()


# ---- end to end -------------------------------------------------------------------------------
def scalars(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def npz_arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files if k != "__meta__"}


@pytest.mark.slow  # a training run on Ray
def test_tiny_selfplay_run_charts_checkpoints_exports_and_resumes(
        ray_local: Any, tmp_path: Path) -> None:
    from zavandor_env.agents.registry import make_agent
    from zavandor_env.engine import GameConfig
    from zavandor_env.eval.match import play_game
    from zavandor_env.train.common.checkpointing import latest_checkpoint, read_state
    from zavandor_env.train.rllib.export import policy_from_checkpoint

    # The command, as a user runs it: a local Ray started and stopped by it.
    overrides = [x for item in [*TINY, f"runs_dir={tmp_path / 'runs'}"] for x in ("--set", item)]
    done = subprocess.run([sys.executable, "-m", "zavandor_env.cli", "train", "--config",
                           str(QUICK), *overrides, "--quiet"], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert "run folder:" in done.stdout and "illegal actions: 0" in done.stdout

    charts = scalars(run_dir)
    assert EXPECTED_SCALARS <= set(charts), EXPECTED_SCALARS - set(charts)
    assert charts["charts/illegal_actions"][-1][1] == 0
    first = latest_checkpoint(run_dir)
    assert first is not None
    state = read_state(first)
    assert state["backend"] == "rllib" and state["step"] >= 500 and state["pool"]["filled"]

    # The export: PolicyAgent loads it unchanged and plays whole games legally (it raises on
    # an illegal action); it equals the checkpoint's main module.
    policy_file = run_dir / "policy.npz"
    for seat in (0, 1):
        agents = [make_agent(f"policy:path={policy_file}"), make_agent("heuristic", seed=1)]
        agents = agents if seat == 0 else agents[::-1]
        result = play_game(agents, seed=seat, config=GameConfig(num_players=2,
                                                                allow_overbid=False))
        assert result.decisions > 0
    exported = npz_arrays(policy_file)
    again = policy_from_checkpoint(run_dir)
    assert np.array_equal(again.weights[0], exported["hidden.0.weight"])
    assert np.array_equal(again.value_biases[-1], exported["value.bias"])  # type: ignore[index]

    # Resume with nothing left to train: the restored learner writes the same policy.
    from zavandor_env.train.rllib.run import train_rllib

    train_rllib(resume=run_dir, overrides=[f"total_timesteps={state['step']}"])
    for name, array in npz_arrays(policy_file).items():
        assert np.array_equal(array, exported[name]), name
    # Resume and train on: the step count, the league and the rating carry over.
    train_rllib(resume=run_dir, overrides=["total_timesteps=800"])
    last = latest_checkpoint(run_dir)
    assert last is not None
    resumed = read_state(last)
    assert resumed["step"] >= 800 > state["step"]
    assert resumed["rating"]["games"] > state["rating"]["games"]
    assert len(resumed["pool"]["filled"]) >= len(state["pool"]["filled"])
    assert max(step for step, _ in scalars(run_dir)["rating/learner_mu"]) == resumed["step"]
    assert json.loads((run_dir / "eval.json").read_text())["step"] == resumed["step"]


@pytest.mark.slow  # a training run on Ray, interrupted
def test_ctrl_c_prints_the_resume_command_and_stops_ray(tmp_path: Path) -> None:
    rllib()
    from zavandor_env.train.common.checkpointing import latest_checkpoint

    run_dir, returncode, err = interrupt_after_first_checkpoint(
        [sys.executable, "-m", "zavandor_env.cli", "train", "--config", str(QUICK), "--quiet",
         "--set", "total_timesteps=1000000", "--set", "checkpoint_every=256",
         "--set", "eval_games=0"],
        tmp_path)
    assert returncode == 130, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("interrupted at step ")
    assert lines[0].endswith(f"zavandor train --resume {Path('runs') / run_dir.name}")
    assert latest_checkpoint(run_dir) is not None
