"""Expert iteration (``trainer: exit``, ``train/exit/``): config checks, the self-play
targets, the loss, an end-to-end run through the command line, and resuming after a kill.

The fast tests play a stand-in search (:class:`PriorSearch`: the network's prior sampled
``iterations`` times, with the real search's API) so they test the trainer, not the search;
the slow test runs the real ``NetworkSearch`` in a pool of two workers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zavandor_env.engine import native_available

pytestmark = pytest.mark.skipif(not native_available(), reason="exit plays on the native core")

ROOT = Path(__file__).resolve().parents[2]
TINY = {
    "name": "exit_tiny", "backend": "exit", "num_players": 2, "seed": 3,
    "game": {"max_decisions": 400, "allow_overbid": False},
    "net_arch": [16], "activation": "tanh", "exit_generations": 2, "exit_games": 2,
    "exit_workers": 1, "exit_iterations": 4, "exit_temperature_moves": 4,
    "batch_size": 64, "n_epochs": 1, "eval_opponents": ["random"], "eval_games": 2,
    "exit_eval_every": 2, "progress_bar": False,
}


@dataclass
class _Result:
    action: int
    visits: np.ndarray
    value: float
    iterations: int
    q: np.ndarray


class PriorSearch:
    """A stand-in for ``NetworkSearch``: visits drawn from the network's masked prior."""

    def __init__(self, policy: Any, iterations: int = 8, **params: Any) -> None:
        from zavandor_env.encoding.observation import ObservationEncoder

        self.policy = policy
        self.iterations = iterations
        self.params = params
        self.encoder = ObservationEncoder()

    def run(self, game: Any, seat: int, seed: int) -> _Result:
        from zavandor_env.encoding.observation import mask_array

        mask = mask_array(game.legal_actions())
        probs = self.policy.probabilities(self.encoder.encode_game(game, seat), mask)
        rng = np.random.default_rng(seed)
        draws = rng.choice(len(probs), size=self.iterations, p=probs)
        visits = np.bincount(draws, minlength=len(probs)).astype(np.int32)
        q = np.where(visits > 0, rng.random(len(probs)), 0.0)  # values in [0, 1] where visited
        return _Result(int(np.argmax(visits)), visits, 0.5, self.iterations, q)


@pytest.fixture
def prior_search(monkeypatch: pytest.MonkeyPatch) -> None:
    from zavandor_env.train.exit import selfplay as exit_mod

    monkeypatch.setattr(exit_mod, "make_search",
                        lambda policy, params: PriorSearch(policy, **params))


def _play_with_prior(task: Any) -> Any:
    """``play_selfplay_game`` with :class:`PriorSearch`, for a spawned worker (where the
    ``prior_search`` fixture's patch does not reach)."""
    from zavandor_env.train.exit import selfplay as exit_mod

    exit_mod.make_search = lambda policy, params: PriorSearch(policy, **params)
    return exit_mod.play_selfplay_game(task)


def _write(tmp_path: Path, **changes: Any) -> Path:
    import yaml

    data = {**TINY, "runs_dir": str(tmp_path / "runs"), **changes}
    path = tmp_path / "exit.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _cli(*args: str) -> int:
    from zavandor_env import cli

    return cli.main(["train", *args])


# ---- config -----------------------------------------------------------------------------------
@pytest.mark.parametrize("changes, words", [
    ({"exit_iterations": 0}, "exit.iterations"),
    ({"exit_search": {"iterations": 3}}, "exit.iterations"),
    ({"exit_search": {"seconds": 0.1}}, "fixed iteration budget"),
    ({"exit_noise_fraction": 1.5}, "exit.noise_fraction"),
    ({"exit_gens": 3}, "unknown config key 'exit_gens'"),
    ({"exit_search": {"temperature": 1.0}}, "exit.temperature_moves"),
    ({"exit_search": {"no_such_parameter": 1}}, "the search refuses its parameters"),
])
def test_a_bad_exit_key_is_one_line_naming_it(changes: dict[str, Any], words: str) -> None:
    from zavandor_env.train.config import TrainConfigError, check_run, from_dict

    with pytest.raises(TrainConfigError) as info:  # the search is built before a run only
        check_run(from_dict({**TINY, **changes}))
    assert words in str(info.value)
    assert "\n" not in str(info.value)


def test_exit_search_belongs_to_the_exit_backend() -> None:
    from zavandor_env.train.config import TrainConfigError, from_dict

    with pytest.raises(TrainConfigError, match="exit.search"):
        from_dict({"exit_search": {"virtual_loss": 1}})


def test_the_shipped_exit_configs_load() -> None:
    from zavandor_env.train.config import load_config

    paths = sorted((ROOT / "configs").glob("exit_*.yaml"))
    assert [p.stem for p in paths] == ["exit_2p", "exit_2p_cold", "exit_4p"]
    for path in paths:
        cfg = load_config(path)
        assert cfg.trainer == "exit" and cfg.num_players == int(path.stem[5])
        assert cfg.init_policy is None or Path(ROOT / cfg.init_policy).is_file()
        assert (cfg.init_policy is None) == path.stem.endswith("_cold")


@pytest.mark.parametrize("players", [2, 4])
def test_the_shipped_exit_policy_loads_through_a_spec_and_is_not_the_ppo_policy(
        players: int) -> None:
    """``train/checkpoints/exit_<N>p/``: weights only (with the critic), today's observation
    fingerprint, the run's config beside it, and a network that is its own (the distillation
    moved it off the warm start)."""
    from zavandor_env.agents.policy_file import load_policy
    from zavandor_env.agents.registry import make_agent
    from zavandor_env.engine import GameConfig
    from zavandor_env.eval.match import play_game
    from zavandor_env.train.config import load_config

    folder = ROOT / "train" / "checkpoints" / f"exit_{players}p"
    policy = load_policy(folder / "policy.npz")
    assert policy.has_value and policy.info["config"]["num_players"] == players
    assert load_config(folder / "config.yaml").trainer == "exit"
    assert json.loads((folder / "eval.json").read_text())["results"]
    ppo = load_policy(ROOT / "train" / "checkpoints" / f"selfplay_{players}p" / "policy.npz")
    assert not all(np.array_equal(a, b) for a, b in zip(policy.weights, ppo.weights))
    agents = [make_agent(f"policy:path=train/checkpoints/exit_{players}p/policy.npz")]
    agents += [make_agent("random", seed=seat) for seat in range(1, players)]
    assert play_game(agents, seed=3, config=GameConfig(num_players=players)).outcome.terminated


def test_the_shipped_4p_exit_recipe_is_its_config_and_its_resumes() -> None:
    """``exit_4p`` was resumed twice with other settings: ``resumes.jsonl`` holds them, and
    the config they make is the one the last generation was trained under."""
    from zavandor_env.agents.policy_file import load_policy
    from zavandor_env.train.config import load_config

    folder = ROOT / "train" / "checkpoints" / "exit_4p"
    records = [json.loads(line) for line in (folder / "resumes.jsonl").read_text().splitlines()]
    assert [r["resumed_from_step"] for r in records] == [5, 10]
    final = load_config(folder / "config.yaml", [o for r in records for o in r["overrides"]])
    assert final.exit.retrain_from_init and final.exit.learning_rate == pytest.approx(3e-4)
    trained_under = load_policy(folder / "policy.npz").info["config"]
    assert trained_under["exit_retrain_from_init"] is True
    assert trained_under["exit_replay_generations"] == final.exit.replay_generations


def test_a_warm_start_copies_the_policy_files_actor_and_critic() -> None:
    from zavandor_env.agents.policy_file import load_policy
    from zavandor_env.train.exit.model import ExitModel

    shipped = load_policy(ROOT / "train" / "checkpoints" / "selfplay_2p" / "policy.npz")
    model = ExitModel([int(w.shape[0]) for w in shipped.weights[:-1]], shipped.activation)
    assert model.load_policy(shipped)
    copy = model.to_policy()
    for a, b in zip(shipped.weights + (shipped.value_weights or []),
                    copy.weights + (copy.value_weights or [])):
        assert np.array_equal(a, b)
    obs = np.random.default_rng(0).random((4, shipped.obs_dim)).astype(np.float32)
    np.testing.assert_allclose(copy.logits(obs), shipped.logits(obs), atol=1e-5)


# ---- targets and loss -------------------------------------------------------------------------
def test_visit_target_is_a_distribution_over_the_legal_actions() -> None:
    from zavandor_env.train.exit.selfplay import visit_target

    mask = np.array([True, False, True, True])
    target = visit_target([3, 0, 1, 0], mask)
    assert target.tolist() == [0.75, 0.0, 0.25, 0.0]
    assert visit_target([0, 0, 0, 0], mask, action=2).tolist() == [0, 0, 1, 0]
    assert visit_target([0, 0, 0, 0], mask).tolist() == pytest.approx([1 / 3, 0, 1 / 3, 1 / 3])
    with pytest.raises(ValueError, match="illegal action"):
        visit_target([1, 1, 0, 0], mask)


def test_completed_q_target_moves_the_prior_towards_the_better_searched_action() -> None:
    from zavandor_env.train.exit.selfplay import completed_q_target

    mask = np.array([True, True, False, True])
    logits = np.array([1.0, 1.0, 5.0, 0.0])
    # Action 1 searched better than action 0; action 3 unvisited gets the mixed value.
    target = completed_q_target(logits, np.array([0.4, 0.6, 0.0, 0.0]),
                                np.array([10, 10, 0, 0]), mask, scale=1.0, c_visit=50)
    assert target[2] == 0.0 and target.sum() == pytest.approx(1.0)
    # The unvisited action sits at the mixed value 0.5: above the poorly searched action 0.
    assert target[1] > target[3] > target[0]
    # The shift is (c_visit + max visits) * scale * (q difference, shrunk by one visit).
    q_hat = (10 * np.array([0.4, 0.6]) + 0.5) / 11
    assert np.log(target[1] / target[0]) == pytest.approx(60 * (q_hat[1] - q_hat[0]), rel=1e-5)


def test_completed_q_target_is_the_prior_where_nothing_was_searched() -> None:
    from zavandor_env.train.exit.selfplay import completed_q_target

    mask = np.array([True, False, True])
    logits = np.array([2.0, 9.0, 0.0])
    target = completed_q_target(logits, np.zeros(3), np.zeros(3, np.int32), mask)
    prior = np.exp([2.0, 0.0]) / np.exp([2.0, 0.0]).sum()
    assert target.tolist() == pytest.approx([prior[0], 0.0, prior[1]], rel=1e-6)
    # One visit to a single action whose value is the mix moves nothing either.
    same = completed_q_target(logits, np.array([0.7, 0.0, 0.0]), np.array([1, 0, 0]), mask)
    assert same.tolist() == pytest.approx(target.tolist(), rel=1e-6)


@pytest.mark.parametrize("target", ["move", "completed_q", "visits"])
def test_selfplay_targets_are_distributions_over_legal_actions_and_values_are_rewards(
        prior_search: None, target: str) -> None:
    from zavandor_env.agents.policy_file import NumpyPolicy
    from zavandor_env.engine import GameConfig
    from zavandor_env.train.exit.config import ExitConfig
    from zavandor_env.train.exit.model import ExitModel
    from zavandor_env.train.exit.selfplay import GameTask, play_selfplay_game

    model = ExitModel([16], "tanh")
    policy: NumpyPolicy = model.to_policy()
    config = GameConfig(num_players=2, max_decisions=300, allow_overbid=False)
    record = play_selfplay_game(GameTask(policy, config.to_dict(), 11,
                                         ExitConfig(iterations=6, temperature_moves=5,
                                                    target=target), "win", -1.0))
    batch = record.batch
    assert len(batch) > 10
    assert (batch.target[~batch.mask] == 0).all()
    assert np.allclose(batch.target.sum(1), 1.0)
    assert (batch.mask.sum(1) >= 2).all()  # forced moves are not recorded
    if target == "move":  # the search's choice with certainty
        assert set(np.unique(batch.target)) == {0.0, 1.0}
    else:
        assert (batch.target.max(1) < 1.0).any()
    # Values are the final rewards of the 2-player "win" scheme (or the truncation reward).
    assert set(np.unique(batch.value)) <= {-1.0, 1.0, 0.0}
    again = play_selfplay_game(GameTask(policy, config.to_dict(), 11,
                                        ExitConfig(iterations=6, temperature_moves=5,
                                                   target=target), "win", -1.0))
    assert np.array_equal(again.batch.target, batch.target)  # seeded: the same game


def test_with_network_play_the_network_moves_and_the_search_only_labels(
        prior_search: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """``exit_play: network``: the network's moves lead the game (sampled for each seat's
    temperature moves, its argmax after: how it plays when evaluated), while the recorded
    targets stay the search's."""
    from zavandor_env.agents.policy_file import NumpyPolicy
    from zavandor_env.encoding.observation import ObservationEncoder
    from zavandor_env.engine import Game, GameConfig
    from zavandor_env.train.exit.config import ExitConfig
    from zavandor_env.train.exit.model import ExitModel
    from zavandor_env.train.exit.selfplay import GameTask, play_selfplay_game

    policy: NumpyPolicy = ExitModel([16], "tanh").to_policy()
    config = GameConfig(num_players=2, max_decisions=300, allow_overbid=False)
    asked: list[tuple[int, bool]] = []
    real_act = NumpyPolicy.act

    def act(self: NumpyPolicy, obs: Any, mask: Any, rng: Any = None,
            deterministic: bool = False) -> int:
        action = real_act(self, obs, mask, rng, deterministic)
        asked.append((int(action), deterministic))
        return action

    monkeypatch.setattr(NumpyPolicy, "act", act)
    temperature = 3
    record = play_selfplay_game(GameTask(policy, config.to_dict(), 11,
                                         ExitConfig(iterations=6, temperature_moves=temperature,
                                                    play="network"), "win", -1.0))
    batch = record.batch
    assert len(asked) == len(batch) > 10
    assert sum(not greedy for _, greedy in asked) == 2 * temperature  # per seat
    # The greedy moves are the network's most probable legal action ...
    logits = np.stack([policy.logits(o) for o in batch.obs])
    best = np.where(batch.mask, logits, -np.inf).argmax(1)
    moves = np.array([a for a, _ in asked])
    greedy = np.array([g for _, g in asked])
    assert (moves[greedy] == best[greedy]).all()
    # ... the game went where the network's moves led (replayed: the same observations) ...
    game = Game.new(config, seed=11)
    encoder, k = ObservationEncoder(), 0
    while not game.is_over:
        legal = game.legal_actions()
        if len(legal) == 1:
            game.apply(legal[0])
            continue
        assert np.array_equal(encoder.encode_game(game, game.current_player), batch.obs[k])
        game.apply(int(moves[k]))
        k += 1
    assert k == len(batch)
    # ... and the targets are the search's (a sampled prior here), not the moves played.
    assert (batch.target.argmax(1) != moves).any()


@pytest.mark.parametrize("below", [0.0, 0.3])
def test_search_below_leaves_the_networks_sure_decisions_unsearched(
        below: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """``exit_search_below``: a decision the network plays with probability >= the threshold
    is labelled with its own most probable move and never searched; the others are
    searched as before."""
    import torch

    from zavandor_env.engine import GameConfig
    from zavandor_env.train.exit import selfplay as exit_mod
    from zavandor_env.train.exit.config import ExitConfig
    from zavandor_env.train.exit.model import ExitModel
    from zavandor_env.train.exit.selfplay import GameTask, play_selfplay_game

    torch.manual_seed(1)
    policy = ExitModel([16], "tanh").to_policy()
    searched: list[np.ndarray] = []

    class CountingSearch(PriorSearch):
        def run(self, game: Any, seat: int, seed: int) -> _Result:
            searched.append(self.encoder.encode_game(game, seat))
            return super().run(game, seat, seed)

    monkeypatch.setattr(exit_mod, "make_search",
                        lambda policy, params: CountingSearch(policy, **params))
    config = GameConfig(num_players=2, max_decisions=300, allow_overbid=False)
    record = play_selfplay_game(GameTask(policy, config.to_dict(), 11,
                                         ExitConfig(iterations=6, temperature_moves=3,
                                                    play="network", search_below=below),
                                         "win", -1.0))
    batch = record.batch
    probs = np.stack([policy.probabilities(o, m) for o, m in zip(batch.obs, batch.mask)])
    sure = probs.max(1) >= below
    assert record.searched == len(searched) == int((~sure).sum())
    assert np.array_equal(np.stack(searched) if searched else batch.obs[:0], batch.obs[~sure])
    # Unsearched decisions: the network's own most probable move, with certainty.
    assert (batch.target[sure].argmax(1) == probs[sure].argmax(1)).all()
    assert (batch.target[sure].max(1) == 1.0).all()
    if below == 0.0:
        assert record.searched == 0 and len(batch) > 10
    else:
        assert 0 < record.searched < len(batch)


def test_search_below_needs_the_network_to_play_and_the_move_target() -> None:
    from zavandor_env.train.config import TrainConfigError, from_dict

    with pytest.raises(TrainConfigError, match="exit.search_below") as info:
        from_dict({**TINY, "exit_search_below": 0.9, "exit_play": "search"})
    assert "\n" not in str(info.value)
    from_dict({**TINY, "exit_search_below": 0.9, "exit_play": "network"})


def test_retrain_from_init_needs_an_init_policy() -> None:
    from zavandor_env.train.config import TrainConfigError, from_dict

    with pytest.raises(TrainConfigError, match="exit.retrain_from_init") as info:
        from_dict({**TINY, "exit_retrain_from_init": True})
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("retrain", [True, False])
def test_retrain_from_init_trains_a_fresh_copy_of_the_warm_start_each_generation(
        prior_search: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        retrain: bool) -> None:
    """With ``exit_retrain_from_init`` every generation's training (a resumed one's too)
    starts from ``init_policy``'s weights with an optimizer that has taken no step; without
    it, from the last generation's network."""
    from zavandor_env.agents.policy_file import save_policy
    from zavandor_env.train.exit import run as exit_mod
    from zavandor_env.train.exit.model import ExitModel

    init = ExitModel([16], "tanh").to_policy()
    save_policy(init, tmp_path / "init.npz")
    starts: list[tuple[bool, bool]] = []  # (weights are the warm start's, optimizer is fresh)
    real_train_step = exit_mod.train_step

    def recording(model: Any, optimizer: Any, *args: Any) -> Any:
        weights = model.to_policy().weights
        starts.append((all(np.array_equal(a, b) for a, b in zip(weights, init.weights)),
                       not optimizer.state))
        return real_train_step(model, optimizer, *args)

    monkeypatch.setattr(exit_mod, "train_step", recording)
    config = _write(tmp_path, init_policy=str(tmp_path / "init.npz"),
                    exit_retrain_from_init=retrain, exit_replay_generations=10)
    assert _cli("--config", str(config)) == 0
    assert _cli("--resume", str(_run_dir(tmp_path)), "--set", "exit_generations=3") == 0
    if retrain:
        assert starts == [(True, True)] * 3
    else:
        assert starts[0] == (True, True)
        assert starts[1:] == [(False, False)] * 2


def test_a_resume_that_cannot_read_its_init_policy_fails_in_one_line_and_records_nothing(
        prior_search: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from zavandor_env.agents.policy_file import save_policy
    from zavandor_env.train.exit.model import ExitModel

    save_policy(ExitModel([16], "tanh").to_policy(), tmp_path / "init.npz")
    config = _write(tmp_path, init_policy=str(tmp_path / "init.npz"),
                    exit_retrain_from_init=True, exit_generations=1)
    assert _cli("--config", str(config)) == 0
    (tmp_path / "init.npz").unlink()
    run = _run_dir(tmp_path)
    assert _cli("--resume", str(run), "--set", "exit_generations=2") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "init_policy" in err[0]
    assert not (run / "resumes.jsonl").exists()


def _prior_batch(net_arch: list[int], iterations: int) -> tuple[Any, Any]:
    """A fresh network (torch seeded) and the decisions of one short game searched by the
    stand-in search around it (the ``prior_search`` fixture must be active)."""
    import torch

    from zavandor_env.engine import GameConfig
    from zavandor_env.train.exit.config import ExitConfig
    from zavandor_env.train.exit.model import ExitModel
    from zavandor_env.train.exit.selfplay import GameTask, play_selfplay_game

    torch.manual_seed(0)
    model = ExitModel(net_arch, "tanh")
    config = GameConfig(num_players=2, max_decisions=150, allow_overbid=False)
    batch = play_selfplay_game(GameTask(model.to_policy(), config.to_dict(), 5,
                                        ExitConfig(iterations=iterations, temperature_moves=1000),
                                        "win", -1.0)).batch
    return model, batch


def test_the_loss_decreases_on_a_fixed_batch(prior_search: None) -> None:
    import torch

    from zavandor_env.train.config import from_dict
    from zavandor_env.train.exit.model import batch_losses, make_optimizer, train_step

    cfg = from_dict({**TINY, "n_epochs": 10, "batch_size": 32, "learning_rate": 3e-3})
    model, batch = _prior_batch(cfg.net_arch, 8)
    with torch.no_grad():
        before = {k: float(v) for k, v in batch_losses(model, batch).items()}
    train_step(model, make_optimizer(model, cfg), batch, cfg, np.random.default_rng(0))
    with torch.no_grad():
        after = {k: float(v) for k, v in batch_losses(model, batch).items()}
    assert after["policy"] < before["policy"] - 0.05
    assert after["value"] < before["value"]


def test_the_anchor_weighs_the_searchs_corrections_and_measures_the_drift(
        prior_search: None) -> None:
    """``batch_losses`` with an anchor: ``deviations`` is the share of targets the anchor would
    not have chosen, ``exit_deviation_weight`` weighs exactly those rows, and ``anchor_kl`` is 0
    for the anchor itself and grows as training moves the network away from it."""
    import copy

    import torch

    from zavandor_env.train.config import from_dict
    from zavandor_env.train.exit.model import batch_losses, make_optimizer, train_step

    model, batch = _prior_batch([16], 3)
    anchor = copy.deepcopy(model.net["actor"])
    with torch.no_grad():
        plain = batch_losses(model, batch)
        same = batch_losses(model, batch, anchor=anchor)
        weighted = batch_losses(model, batch, anchor=anchor, deviation_weight=5.0)
        logits = np.where(batch.mask, model.logits(torch.from_numpy(batch.obs)).numpy(), -np.inf)
    z = logits - logits.max(1, keepdims=True)
    logp = np.where(batch.mask, z - np.log(np.exp(z).sum(1, keepdims=True)), 0.0)
    deviates = batch.target.argmax(1) != logits.argmax(1)
    assert 0 < deviates.mean() < 1  # a 3-visit sampled prior disagrees now and then
    assert float(same["deviations"]) == pytest.approx(deviates.mean())
    assert float(same["anchor_kl"]) == pytest.approx(0.0, abs=1e-6)
    assert float(same["policy"]) == pytest.approx(float(plain["policy"]))
    ce = -(batch.target * logp).sum(1)
    weight = np.where(deviates, 5.0, 1.0)
    assert float(weighted["policy"]) == pytest.approx((ce * weight).sum() / weight.sum(),
                                                      rel=1e-4)
    cfg = from_dict({**TINY, "n_epochs": 5, "batch_size": 32, "learning_rate": 3e-3,
                     "exit_anchor_kl": 0.5, "exit_deviation_weight": 5.0})
    losses = train_step(model, make_optimizer(model, cfg), batch, cfg, np.random.default_rng(0))
    assert losses["anchor_kl"] > 0 and "deviations" in losses
    with torch.no_grad():
        assert float(batch_losses(model, batch, anchor=anchor)["anchor_kl"]) > 1e-3


def test_a_frozen_critic_keeps_its_weights_while_the_actor_learns(prior_search: None) -> None:
    import torch

    from zavandor_env.engine import GameConfig
    from zavandor_env.train.config import from_dict
    from zavandor_env.train.exit.config import ExitConfig
    from zavandor_env.train.exit.model import ExitModel, make_optimizer, train_step
    from zavandor_env.train.exit.selfplay import GameTask, play_selfplay_game

    torch.manual_seed(0)
    cfg = from_dict({**TINY, "n_epochs": 2, "batch_size": 32, "exit_train_critic": False})
    model = ExitModel(cfg.net_arch, cfg.activation)
    config = GameConfig(num_players=2, max_decisions=150, allow_overbid=False)
    batch = play_selfplay_game(GameTask(model.to_policy(), config.to_dict(), 5,
                                        ExitConfig(iterations=8, temperature_moves=1000),
                                        "win", -1.0)).batch
    before = model.to_policy()
    train_step(model, make_optimizer(model, cfg), batch, cfg, np.random.default_rng(0))
    after = model.to_policy()
    for old, new in zip(before.value_weights or [], after.value_weights or [], strict=True):
        assert np.array_equal(old, new)
    assert not all(np.array_equal(old, new)
                   for old, new in zip(before.weights, after.weights, strict=True))


def test_two_worker_processes_play_the_same_games_as_one(prior_search: None) -> None:
    from zavandor_env.engine import GameConfig
    from zavandor_env.train.exit.config import ExitConfig
    from zavandor_env.train.exit.model import ExitModel
    from zavandor_env.train.exit.selfplay import GameTask, SelfPlayPool

    config = GameConfig(num_players=2, max_decisions=120, allow_overbid=False).to_dict()
    tasks = [GameTask(ExitModel([8], "tanh").to_policy(), config, seed,
                      ExitConfig(iterations=3, temperature_moves=3), "win", -1.0)
             for seed in (1, 2, 3)]
    pool = SelfPlayPool(2, play=_play_with_prior)
    try:
        parallel = pool.play(tasks)
    finally:
        pool.close()
    alone = SelfPlayPool(1).play(tasks)
    assert [r.decisions for r in parallel] == [r.decisions for r in alone]
    for a, b in zip(parallel, alone):
        assert np.array_equal(a.batch.target, b.batch.target)
        assert np.array_equal(a.batch.obs, b.batch.obs)


def test_a_dead_worker_is_one_error_not_a_hang() -> None:
    from zavandor_env.engine import GameConfig
    from zavandor_env.train.exit.config import ExitConfig
    from zavandor_env.train.exit.model import ExitModel
    from zavandor_env.train.exit.selfplay import GameTask, SelfPlayError, SelfPlayPool

    config = GameConfig(num_players=2, max_decisions=3000, allow_overbid=False).to_dict()
    tasks = [GameTask(ExitModel([8], "tanh").to_policy(), config, seed,
                      ExitConfig(iterations=3, temperature_moves=3), "win", -1.0)
             for seed in range(40)]
    pool = SelfPlayPool(2, play=_play_with_prior)
    try:
        os.kill(min(pool.worker_pids), signal.SIGKILL)
        with pytest.raises(SelfPlayError, match="worker process died"):
            pool.play(tasks)
    finally:
        pool.close(terminate=True)


class _CtrlC:
    """A search that presses Ctrl-C at its ``after``-th call (never when ``after`` is None)."""

    def __init__(self, policy: Any, after: int | None, **params: Any) -> None:
        self.inner = PriorSearch(policy, **params)
        self.after = after
        self.calls = 0

    def run(self, game: Any, seat: int, seed: int) -> _Result:
        self.calls += 1
        if self.calls == self.after:
            raise KeyboardInterrupt
        return self.inner.run(game, seat, seed)


def test_ctrl_c_keeps_the_last_generation_and_says_how_to_resume(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from zavandor_env.train.exit import selfplay as exit_mod

    built = []  # one search per game: generation 1 plays games 1-2, generation 2 game 3...

    def search(policy: Any, params: dict[str, Any]) -> Any:
        built.append(policy)
        return _CtrlC(policy, after=5 if len(built) == 3 else None, **params)

    monkeypatch.setattr(exit_mod, "make_search", search)
    assert _cli("--config", str(_write(tmp_path, exit_generations=3))) == 130
    err = capsys.readouterr().err
    assert "interrupted in generation 2 (self-play)" in err
    assert "checkpoint of generation 1 is kept" in err and "--resume" in err
    run = _run_dir(tmp_path)
    monkeypatch.setattr(exit_mod, "make_search",
                        lambda policy, params: PriorSearch(policy, **params))
    assert _cli("--resume", str(run)) == 0
    assert json.loads((run / "eval.json").read_text())["generation"] == 3


def test_ctrl_c_while_the_workers_start_names_the_checkpoint_and_the_resume(
        prior_search: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Generation 0 is on disk before the pool spawns its workers: a Ctrl-C then is a
    resumable interrupt, not "before training started" (seen in CI, where a real SIGINT
    landed while the workers spawned)."""
    from zavandor_env.train.exit import run as exit_mod

    real_pool = exit_mod.SelfPlayPool

    def interrupted_while_spawning(workers: int, *args: Any, **kwargs: Any) -> Any:
        if workers > 1:
            raise KeyboardInterrupt
        return real_pool(workers, *args, **kwargs)

    monkeypatch.setattr(exit_mod, "SelfPlayPool", interrupted_while_spawning)
    assert _cli("--config", str(_write(tmp_path, exit_workers=2))) == 130
    err = capsys.readouterr().err
    assert "checkpoint of generation 0 is kept" in err and "--resume" in err
    monkeypatch.setattr(exit_mod, "SelfPlayPool", real_pool)
    run = _run_dir(tmp_path)
    assert _cli("--resume", str(run), "--set", "exit_workers=1") == 0
    assert json.loads((run / "eval.json").read_text())["generation"] == 2


# ---- end to end -------------------------------------------------------------------------------
def _run_dir(tmp_path: Path) -> Path:
    [run] = list((tmp_path / "runs").iterdir())
    return run


def test_a_tiny_run_through_the_cli_exports_a_loadable_policy(
        prior_search: None, minute_per_reading_marks: None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from zavandor_env import cli
    from zavandor_env.agents.policy_file import load_policy

    assert _cli("--config", str(_write(tmp_path, keep_policy_minutes=[0.0001, 10000]))) == 0
    run = _run_dir(tmp_path)
    assert (run / "config.yaml").is_file()
    assert list(run.glob("events.out.tfevents.*"))
    figures = json.loads((run / "eval.json").read_text())
    assert figures["generation"] == 2 and figures["eval"]["random"]["games"] == 2
    assert "run folder" in capsys.readouterr().out
    policy = load_policy(run / "policy.npz")
    assert policy.has_value and policy.info["generation"] == 2
    # keep_policy_minutes: the mark passed before the first update, so the starting network
    # (the one in force while it passed) was kept; the far mark never passed.
    kept = load_policy(run / "policy_0.0001min.npz")
    assert kept.info["generation"] == 0 and kept.info["kept_at_minutes"] == 0.0001
    assert not (run / "policy_10000min.npz").exists()
    # ``zavandor eval --agents policy:path=RUN/policy.npz ...`` loads the export and plays.
    out = tmp_path / "eval"
    assert cli.main(["eval", "--agents", f"policy:path={run / 'policy.npz'}", "random",
                     "--games", "2", "--out", str(out), "--quiet", "--no-chart"]) == 0
    assert (out / "summary.json").is_file()


def test_resume_continues_at_the_next_generation_exactly(prior_search: None,
                                                          tmp_path: Path) -> None:
    from zavandor_env.agents.policy_file import load_policy

    straight = tmp_path / "straight"
    straight.mkdir()
    assert _cli("--config", str(_write(straight, exit_generations=3))) == 0
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    assert _cli("--config", str(_write(stopped, exit_generations=3)),
                "--set", "exit_generations=2") == 0
    run = _run_dir(stopped)
    assert _cli("--resume", str(run), "--set", "exit_generations=3") == 0
    a = load_policy(_run_dir(straight) / "policy.npz")
    b = load_policy(run / "policy.npz")
    assert b.info["generation"] == 3
    for wa, wb in zip(a.weights + (a.value_weights or []), b.weights + (b.value_weights or [])):
        np.testing.assert_allclose(wa, wb, rtol=0, atol=1e-6)


def test_a_resume_trains_at_the_learning_rate_it_is_given(prior_search: None,
                                                          tmp_path: Path) -> None:
    # The optimizer's checkpoint carries the rate it ran with; ``--set`` must win over it.
    from zavandor_env.train.common.checkpointing import find_resumable
    from zavandor_env.train.exit.checkpoint import read_replay_checked

    assert _cli("--config", str(_write(tmp_path, exit_generations=1))) == 0
    run = _run_dir(tmp_path)
    assert _cli("--resume", str(run), "--set", "exit_generations=2",
                "--set", "learning_rate=0.000123") == 0
    checkpoint = find_resumable(run, lambda message: None, read_replay_checked)
    assert checkpoint.step == 2
    record = json.loads((run / "resumes.jsonl").read_text())
    assert record == {"resumed_from_step": 1,
                      "overrides": ["exit_generations=2", "learning_rate=0.000123"]}
    groups = checkpoint.params["policy.optimizer"]["param_groups"]
    assert [group["lr"] for group in groups] == [0.000123]


def test_a_broken_replay_file_is_skipped_on_resume(prior_search: None, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli("--config", str(_write(tmp_path, exit_generations=1))) == 0
    run = _run_dir(tmp_path)
    newest = run / "checkpoints" / (run / "checkpoints" / "LATEST").read_text().strip()
    (newest / "replay.npz").write_bytes(b"not a zip")
    assert _cli("--resume", str(run), "--set", "exit_generations=2") == 0
    err = capsys.readouterr().err
    assert "replay.npz is unreadable" in err and "resuming from step_000000001 instead" in err


@pytest.mark.slow
def test_a_killed_run_resumes_at_the_next_generation(tmp_path: Path) -> None:
    """The real search in two worker processes; SIGKILL in the middle of a generation."""
    pytest.importorskip("zavandor_env.agents.netsearch")
    config = _write(tmp_path, exit_generations=6, exit_workers=2, exit_games=2,
                    exit_iterations=8)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "zavandor_env.cli", "train", "--config",
                             str(config)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 300
    for line in proc.stdout:  # wait for the first finished generation, then kill
        if line.startswith("generation 1:") or time.monotonic() > deadline:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    run = _run_dir(tmp_path)
    state = json.loads((run / "checkpoints" / (run / "checkpoints" / "LATEST").read_text()
                        .strip() / "state.json").read_text())
    done = state["step"]
    assert done >= 1
    result = subprocess.run([sys.executable, "-m", "zavandor_env.cli", "train", "--resume",
                             str(run), "--set", f"exit_generations={done + 1}"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert f"generation {done + 1}:" in result.stdout
    assert json.loads((run / "eval.json").read_text())["generation"] == done + 1


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux: read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _is_worker(pid: int) -> bool:
    """Whether ``pid`` runs a multiprocessing worker (False once it is gone)."""
    try:
        return "multiprocessing" in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc")
def test_ctrl_c_with_two_workers_ends_the_pool_and_keeps_a_resumable_run(
        tmp_path: Path) -> None:
    """A real Ctrl-C (SIGINT to the trainer; its workers ignore it) in the first generation's
    self-play: exit code 130, one line saying what is kept, no worker left running."""
    from tests.interrupt import terminal_sigint

    pytest.importorskip("zavandor_env.agents.netsearch")
    # Long enough that the interrupt lands in the first generation's games.
    config = _write(tmp_path, exit_generations=50, exit_workers=2, exit_games=40,
                    exit_iterations=64)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "zavandor_env.cli", "train", "--config",
                             str(config)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=terminal_sigint)
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while len(workers) < 2 or not list(tmp_path.glob("runs/*/checkpoints/LATEST")):
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "no checkpoint and workers within 2 minutes"
            time.sleep(0.2)
            workers = [c for c in _children(proc.pid) if _is_worker(c)]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "checkpoint of generation 0 is kept" in err and "--resume" in err
    time.sleep(0.5)
    assert not [w for w in workers if _is_worker(w)]
    assert (_run_dir(tmp_path) / "checkpoints" / "LATEST").is_file()
