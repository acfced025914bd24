"""Imitation before self-play (``ppo.imitate_decisions``): the demonstrations, the fit, and
that a run counts the phase in its clock."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from zavandor_env.agents.heuristic import HeuristicAgent  # noqa: E402
from zavandor_env.engine import Game  # noqa: E402
from zavandor_env.train.config import TrainConfigError, load_config  # noqa: E402
from zavandor_env.train.ppo.imitate import collect, fit  # noqa: E402


def _config(**overrides: object):
    sets = [f"{k}={v}" for k, v in {"ppo.n_envs": 1, "ppo.n_steps": 64, "ppo.batch_size": 64,
                                     "step_reward": -0.001, "vp_delta": 0.005,
                                     **overrides}.items()]
    return load_config(None, sets)


def test_the_demonstrations_are_the_teachers_moves_with_each_seats_return_to_go() -> None:
    cfg = _config()
    demos = collect(cfg, 600, seed=11)
    assert 0 < len(demos) <= 600  # an unfinished last game is dropped
    assert demos.observations.shape == (len(demos), demos.observations.shape[1])
    assert demos.masks[np.arange(len(demos)), demos.actions].all()  # every action was legal
    # Replaying the same seeds with the heuristic gives the same first decisions.
    game, agent = Game.new(cfg.game_config(), seed=11), HeuristicAgent(seed=11)
    for row in range(20):
        seat = game.current_player
        action = agent.act(None, game.view(seat), game.legal_actions())
        assert action == demos.actions[row]
        game.apply(action)
    # A finished game pays +-1 (2 players, "win") plus shaping; the return to go of a
    # seat's last decision is its final reward plus one step cost.
    assert np.all(np.abs(demos.returns) < 2.5)
    assert {round(float(r)) for r in demos.returns} <= {-2, -1, 0, 1, 2}


@pytest.mark.slow  # a minute of fitting on 2 cores
def test_fitting_makes_the_network_agree_with_the_teacher_far_above_chance(tmp_path) -> None:
    from zavandor_env.train.common.pool import OpponentPool
    from zavandor_env.train.ppo.selfplay import make_model, make_vec_env

    cfg = _config()
    demos = collect(cfg, 20_000, seed=3)
    venv = make_vec_env(cfg, OpponentPool(tmp_path / "pool", cfg).spec())
    try:
        model = make_model(cfg, venv)
        before = fit(model, demos, epochs=1, learning_rate=1e-9)["agreement"]
        after = fit(model, demos, epochs=5, learning_rate=1e-3)["agreement"]
    finally:
        venv.close()
    assert after > before + 0.15, (before, after)


def test_the_imitation_keys_are_checked_like_every_count() -> None:
    with pytest.raises(TrainConfigError, match="ppo.imitate_decisions"):
        _config(**{"ppo.imitate_decisions": -1})
    with pytest.raises(TrainConfigError, match="ppo.imitate_decisions"):
        _config(**{"ppo.imitate_decisions": 10**9})


def test_an_unknown_teacher_is_refused_before_any_run_folder_is_made() -> None:
    from zavandor_env.train.config import check_run

    cfg = _config(**{"ppo.imitate_decisions": 1000, "ppo.imitate_teacher": "bogus"})
    with pytest.raises(TrainConfigError, match=r"^config key 'ppo.imitate_teacher': .*'bogus'"):
        check_run(cfg)
    check_run(_config(**{"ppo.imitate_teacher": "bogus"}))  # no imitation: never read
