"""The batched native vector env (``_native.VecLearner``, ``agents.vector_env.ZavandorVectorEnv``).

* Equivalence: with deterministic players (heuristic opponents, a heuristic learner; or a
  first-legal-action policy answered through the external path) and the same game seeds,
  every step's observation, mask, reward, termination and final :class:`Outcome` equals what
  ``SingleAgentEnv`` on the Python engine gives, for 2, 3, 4 and 6 players and the ``win`` and
  ``rank`` schemes with ``vp_delta`` and ``step_reward`` on.
* External opponents are answered in batches (one policy call for several games).
* Random play at 2-6 players never errors, every game ends, rewards stay finite.
* Bad buffers, seats, kinds and actions raise one-line ``ValueError``s and change nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

_native = pytest.importorskip("zavandor_env.engine._native")
if not hasattr(_native, "VecLearner"):
    pytest.skip("the native module has no VecLearner", allow_module_level=True)

from zavandor_env.agents.heuristic import HeuristicAgent  # noqa: E402
from zavandor_env.agents.vector_env import (  # noqa: E402
    DONE,
    READY,
    ZavandorVectorEnv,
    outcome_from_arrays,
)
from zavandor_env.engine import GameConfig  # noqa: E402
from zavandor_env.engine.agent import Agent, FunctionAgent  # noqa: E402
from zavandor_env.engine.outcome import game_outcome  # noqa: E402
from zavandor_env.envs import SingleAgentEnv  # noqa: E402
from zavandor_env.envs.observation import OBS_SIZE  # noqa: E402

A = _native.NUM_ACTIONS


def _first_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return mask.argmax(axis=1)


def _first_legal_agent(observation, view, legal):  # noqa: ANN001, ANN202
    return legal[0]


class _RandomAgent(Agent):
    """A Python agent (the slow, one-decision-at-a-time path)."""

    def act(self, observation, view, legal):  # noqa: ANN001, ANN201
        assert view.seat == self.seat
        return legal[self.rng.randrange(len(legal))]


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    scores = rng.random(mask.shape)
    scores[~mask] = -1.0
    return scores.argmax(axis=1)


# ---- (a) equivalence with SingleAgentEnv on the Python engine ------------------------------
CASES = [
    # players, scheme, vector opponents, reference opponent, learner, rule options
    (2, "win", "heuristic", "heuristic", "heuristic", {}),
    (3, "rank", "heuristic", "heuristic", "heuristic", {}),
    (4, "win", "heuristic", "heuristic", "heuristic", {}),
    (6, "rank", "heuristic", "heuristic", "heuristic", {}),
    (4, "rank", "policy", "first", "heuristic", {"max_rounds": 4}),  # external, truncated
]


@pytest.mark.parametrize("players,scheme,vec_opp,ref_opp,learner,rules", CASES)
def test_matches_single_agent_env(players, scheme, vec_opp, ref_opp, learner, rules):
    options = dict(reward=scheme, vp_delta=0.01, step_reward=-0.002, **rules)
    num_envs = 2
    venv = ZavandorVectorEnv(num_envs, players, opponents=vec_opp, seed=3,
                             policy_fn=_first_legal, **options)
    venv.reset()
    refs, learners, seats = [], [], []
    for i in range(num_envs):
        seat = (i * (players - 1) + 1) % players
        opponent = HeuristicAgent() if ref_opp == "heuristic" else FunctionAgent(
            _first_legal_agent)
        ref = SingleAgentEnv(players, learner_seat=seat, opponents=opponent,
                             backend="python", **options)
        obs, info = ref.reset(seed=100 + i)
        vobs, vmask = venv.reset_game(i, ref.game.seed, learner_seat=seat)
        np.testing.assert_array_equal(vobs, obs)
        np.testing.assert_array_equal(vmask, info["action_mask"].astype(bool))
        player = HeuristicAgent()
        player.reset(seat, players, 0)
        refs.append(ref)
        learners.append(player)
        seats.append(seat)
    assert list(venv.seats) == seats
    live = [True] * num_envs
    steps = 0
    while any(live):
        masks = venv.action_masks()
        actions = masks.argmax(axis=1)  # finished references: any legal action
        for i, ref in enumerate(refs):
            if live[i]:
                game = ref.game
                actions[i] = learners[i].act(None, game.view(seats[i]), game.legal_actions())
        vobs, vrew, vterm, vtrunc, vinfo = venv.step(actions)
        steps += 1
        for i, ref in enumerate(refs):
            if not live[i]:
                continue
            obs, reward, term, trunc, info = ref.step(int(actions[i]))
            where = f"{players}p env {i} step {steps}"
            assert vterm[i] == term and vtrunc[i] == trunc, where
            assert vrew[i] == pytest.approx(np.float32(reward), abs=1e-6), where
            if term or trunc:
                live[i] = False
                assert vinfo["_final_obs"][i] and vinfo["_final_info"][i], where
                np.testing.assert_array_equal(vinfo["final_obs"][i], obs, err_msg=where)
                outcome = vinfo["final_info"]["outcome"][i]
                assert outcome == info["outcome"] == game_outcome(ref.game), where
                assert vinfo["final_info"]["seat"][i] == seats[i]
            else:
                assert "_final_obs" not in vinfo or not vinfo["_final_obs"][i], where
                np.testing.assert_array_equal(vobs[i], obs, err_msg=where)
                np.testing.assert_array_equal(venv.action_masks()[i],
                                              info["action_mask"].astype(bool), err_msg=where)
        assert steps < 5000
    if not rules:
        assert all(ref.game.terminated for ref in refs)
    else:
        assert all(ref.game.truncated for ref in refs)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_outcome_from_arrays_matches_game_outcome(players):
    """Finished (terminated or truncated) and running games: the same Outcome both ways."""
    from zavandor_env.engine import Game
    from zavandor_env.engine.state import GameState

    n = 6
    cfg = GameConfig(num_players=players, max_rounds=12).to_dict()
    vec = _native.VecLearner(cfg, n, players)
    for i in range(n):
        kinds = [1 if i % 2 else 0] * players
        kinds[0] = -1
        vec.reset_env(i, 0, kinds)
    rng = np.random.default_rng(players)
    obs = np.zeros((n, OBS_SIZE), np.float32)
    mask = np.zeros((n, A), np.bool_)
    status = np.zeros(n, np.int8)
    for step in range(400):
        vec.observe(obs, mask)
        vec.status(status)
        if step in (5, 399) or (status == DONE).all():
            vp = np.zeros((n, players), np.int32)
            eliminated = np.zeros((n, players), np.bool_)
            winners, rounds, decisions = (np.zeros(n, np.int32) for _ in range(3))
            term, trunc = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
            vec.vp(vp), vec.eliminated(eliminated), vec.winners(winners)
            vec.rounds(rounds), vec.decisions(decisions)
            vec.terminated(term), vec.truncated(trunc)
            for i in range(n):
                state = GameState.from_dict(vec.core(i).to_state_dict())
                expected = game_outcome(Game(state))
                got = outcome_from_arrays(vp[i], eliminated[i], winners[i], term[i], trunc[i],
                                          rounds[i], decisions[i])
                assert got == expected
            if (status == DONE).all():
                break
        actions = _random_actions(mask, rng)
        vec.step(actions.astype(np.int64))
    assert (status == DONE).all()


# ---- (b) external opponents are batched ----------------------------------------------------
def test_external_policy_answers_many_games_per_call():
    calls: list[int] = []

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        assert obs.dtype == np.float32 and obs.shape == (len(mask), OBS_SIZE)
        assert mask.dtype == np.bool_ and mask.shape[1] == A and mask.any(axis=1).all()
        calls.append(len(obs))
        return _random_actions(mask, rng)

    rng = np.random.default_rng(1)
    venv = ZavandorVectorEnv(8, 3, opponents=[policy, "heuristic"], seed=2, max_rounds=6)
    venv.reset()
    for _ in range(60):
        venv.step(_random_actions(venv.action_masks(), rng))
    assert calls and max(calls) > 1
    assert sum(calls) > len(calls)  # on average more than one game per call


def test_policy_spec_sampler_and_python_agents():
    rng = np.random.default_rng(4)
    seen = []
    agent = _RandomAgent(seed=1)

    def sampler(env_index, gen):  # noqa: ANN001, ANN202
        seen.append(env_index)
        pool = ["random", "heuristic", "novice", "policy", "naive", agent]
        return [pool[int(gen.integers(len(pool)))] for _ in range(3)]

    venv = ZavandorVectorEnv(4, 4, opponents=sampler, seed=5, max_rounds=3,
                             policy_fn=_first_legal)
    venv.reset()
    assert sorted(set(seen)) == [0, 1, 2, 3]
    finished = 0
    for _ in range(150):
        _obs, rew, term, trunc, info = venv.step(_random_actions(venv.action_masks(), rng))
        assert np.isfinite(rew).all()
        finished += int((term | trunc).sum())
    assert finished > 0 and len(seen) == 4 + finished


# ---- (c) random play at every player count -------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_play_runs_and_every_game_ends(players):
    rng = np.random.default_rng(players)
    venv = ZavandorVectorEnv(16, players, opponents="random", seed=players, max_rounds=8,
                             vp_delta=0.01, step_reward=-0.001, reward="vp_margin")
    obs, _ = venv.reset()
    assert obs.shape == (16, OBS_SIZE) and obs.dtype == np.float32
    ended = np.zeros(16, int)
    started = np.zeros(16, int)
    for _ in range(300):
        masks = venv.action_masks()
        assert masks.any(axis=1).all()  # every game waits for its learner after a step
        obs, rew, term, trunc, info = venv.step(_random_actions(masks, rng))
        assert np.isfinite(rew).all() and np.isfinite(obs).all()
        done = term | trunc
        assert not (term & trunc).any()
        if done.any():
            assert (info["_final_info"] == done).all()
            for i in np.flatnonzero(done):
                outcome = info["final_info"]["outcome"][i]
                assert outcome.is_over and outcome.num_players == players
        ended += done
        started += done
    assert (ended > 0).all()
    status = np.zeros(16, np.int8)
    venv.native.status(status)
    assert (status == READY).all()


# ---- (d) errors ------------------------------------------------------------------------------
def _vec(n=3, players=2, seed=0):
    cfg = GameConfig(num_players=players).to_dict()
    vec = _native.VecLearner(cfg, n, seed)
    for i in range(n):
        kinds = [0] * players
        kinds[i % players] = -1
        vec.reset_env(i, i % players, kinds)
    return vec


def _one_line_value_error(fn, *args, match=None):
    with pytest.raises(ValueError, match=match) as exc:
        fn(*args)
    assert "\n" not in str(exc.value)
    return str(exc.value)


def test_bad_buffers_raise_one_line_value_errors():
    vec = _vec()
    n, p = 3, 2
    _one_line_value_error(vec.observe, np.zeros((n, OBS_SIZE), np.float64),
                          np.zeros((n, A), np.int8), match="float32")
    _one_line_value_error(vec.observe, np.zeros((n + 1, OBS_SIZE), np.float32),
                          np.zeros((n, A), np.int8), match="shape")
    _one_line_value_error(vec.observe, np.zeros((n, OBS_SIZE), np.float32),
                          np.zeros((n, A), np.int32), match="mask")
    _one_line_value_error(vec.observe, np.zeros((OBS_SIZE, n), np.float32).T,
                          np.zeros((n, A), np.int8), match="contiguous")
    _one_line_value_error(vec.observe, [[0.0]], np.zeros((n, A), np.int8), match="numpy")
    readonly = np.zeros((n, p), np.int32)
    readonly.flags.writeable = False
    _one_line_value_error(vec.vp, readonly, match="writeable")
    _one_line_value_error(vec.vp, np.zeros((n, p), np.int64), match="int32")
    _one_line_value_error(vec.status, np.zeros(n + 1, np.int8))
    _one_line_value_error(vec.step, np.zeros(n, np.int32), match="int64")
    _one_line_value_error(vec.pending, np.zeros(n, np.int64), np.zeros(n, np.int32))
    _one_line_value_error(vec.observe_pending, np.zeros((1, OBS_SIZE), np.float32),
                          np.zeros((1, A), np.int8))  # nothing is listed: M = 0


def test_bad_resets_raise_one_line_value_errors():
    vec = _vec()
    _one_line_value_error(vec.reset_env, 3, 0, [-1, 0], match="env")
    _one_line_value_error(vec.reset_env, 0, 2, [-1, 0], match="learner_seat")
    _one_line_value_error(vec.reset_env, 0, 0, [0, 0], match="learner")
    _one_line_value_error(vec.reset_env, 0, 0, [-1, 7], match="kinds")
    _one_line_value_error(vec.reset_env, 0, 0, [-1, 0, 0], match="per seat")
    _one_line_value_error(vec.reset_env, 0, 0, [-1, 0], -5, match="seed")
    with pytest.raises(ValueError):
        _native.VecLearner(GameConfig().to_dict(), 0, 0)
    with pytest.raises(ValueError):
        _native.VecLearner(GameConfig().to_dict(), 2, -1)
    with pytest.raises(ValueError):
        ZavandorVectorEnv(2, 2, opponents=["random", "random"])
    with pytest.raises(ValueError):
        ZavandorVectorEnv(2, 2, no_such_rule=1)


def test_illegal_actions_raise_before_anything_changes():
    vec = _vec(n=3)
    obs = np.zeros((3, OBS_SIZE), np.float32)
    mask = np.zeros((3, A), np.int8)
    vec.observe(obs, mask)
    before = [vec.core(i).to_state_dict() for i in range(3)]
    actions = mask.argmax(axis=1).astype(np.int64)
    illegal = int(np.flatnonzero(mask[2] == 0)[0])
    actions[2] = illegal
    text = _one_line_value_error(vec.step, actions, match="env 2")
    assert f"illegal action {illegal}" in text
    actions[2] = A + 5
    _one_line_value_error(vec.step, actions, match="env 2")
    assert [vec.core(i).to_state_dict() for i in range(3)] == before
    actions[2] = mask[2].argmax()
    vec.step(actions)  # the legal batch still plays

    venv = ZavandorVectorEnv(2, 2, seed=0)
    venv.reset()
    bad = (~venv.action_masks()).argmax(axis=1)
    with pytest.raises(ValueError, match="env 0"):
        venv.step(bad)
    venv.step(venv.action_masks().argmax(axis=1))


def test_pending_protocol_and_stale_lists():
    cfg = GameConfig(num_players=2).to_dict()
    vec = _native.VecLearner(cfg, 4, 11)
    for i in range(4):
        vec.reset_env(i, 1, [2, -1])  # seat 0 is decided in Python
    env_ids = np.zeros(4, np.int32)
    seats = np.zeros(4, np.int32)
    status = np.zeros(4, np.int8)
    learner_obs = np.zeros((4, OBS_SIZE), np.float32)
    learner_mask = np.zeros((4, A), np.int8)
    for _ in range(50):  # the learners play until some game waits for seat 0
        m = vec.pending(env_ids, seats)
        if m:
            break
        vec.observe(learner_obs, learner_mask)
        vec.step(learner_mask.argmax(axis=1).astype(np.int64))
    vec.status(status)
    assert m == int((status == 1).sum()) and m > 0
    assert (seats[:m] == 0).all()
    obs = np.zeros((m, OBS_SIZE), np.float32)
    mask = np.zeros((m, A), np.int8)
    vec.observe_pending(obs, mask)
    assert mask.any(axis=1).all()
    actions = mask.argmax(axis=1).astype(np.int64)
    bad = actions.copy()
    bad[0] = int(np.flatnonzero(mask[0] == 0)[0])
    _one_line_value_error(vec.act_pending, bad, match=f"env {env_ids[0]}")
    _one_line_value_error(vec.act_pending, actions[:-1] if m > 1 else np.zeros(2, np.int64))
    vec.reset_env(int(env_ids[0]), 1, [2, -1])  # a listed game changes: the list is stale
    _one_line_value_error(vec.observe_pending, obs, mask, match="stale")
    _one_line_value_error(vec.act_pending, actions, match="stale")
    m = vec.pending(env_ids, seats)
    if m:
        obs, mask = np.zeros((m, OBS_SIZE), np.float32), np.zeros((m, A), np.int8)
        vec.observe_pending(obs, mask)
        vec.act_pending(mask.argmax(axis=1).astype(np.int64))
    _one_line_value_error(vec.observe_pending, obs, mask)  # the list was used up
    vec.status(status)
    assert ((status == READY) | (status == 1) | (status == DONE)).all()


def test_seeded_runs_repeat():
    def run():
        rng = np.random.default_rng(0)
        venv = ZavandorVectorEnv(4, 3, opponents=["random", "heuristic"], seed=42,
                                 max_rounds=5)
        obs, _ = venv.reset()
        total = [obs.sum()]
        for _ in range(100):
            obs, rew, *_ = venv.step(_random_actions(venv.action_masks(), rng))
            total.append(obs.sum() + rew.sum())
        return np.array(total)

    first = run()
    np.testing.assert_array_equal(first, run())
    # reset(seed=...) on a used env replays the same run
    rng = np.random.default_rng(0)
    venv = ZavandorVectorEnv(4, 3, opponents=["random", "heuristic"], seed=7, max_rounds=5)
    venv.reset()
    venv.step(_random_actions(venv.action_masks(), rng))
    obs, _ = venv.reset(seed=42)
    rng = np.random.default_rng(0)
    total = [obs.sum()]
    for _ in range(100):
        obs, rew, *_ = venv.step(_random_actions(venv.action_masks(), rng))
        total.append(obs.sum() + rew.sum())
    np.testing.assert_array_equal(first, np.array(total))
