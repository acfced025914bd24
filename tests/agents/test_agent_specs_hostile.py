"""Agent specs from outside are checked when they are read: every value typed and bounded, no
path taken as a file descriptor, no policy whose outputs can overflow."""

from __future__ import annotations

import builtins
import contextlib
import inspect
import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz_budget import FUZZ_EXAMPLES, FUZZ_SETTINGS
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.planner import PlannerAgent
from zavandor_env.agents.policy import PolicyAgent
from zavandor_env.agents.policy_file import (
    MAX_OUTPUT_BOUND,
    NumpyPolicy,
    PolicyFileError,
    load_policy,
    output_bound,
    save_policy,
)
from zavandor_env.agents.registry import REGISTRY, AgentSpecError, make_agent, parse_spec
from zavandor_env.agents.spec_params import agent_schema, declared_agents
from zavandor_env.encoding.observation import OBS_BOUND, ObservationEncoder, mask_array
from zavandor_env.engine import Game
from zavandor_env.engine.native import native_available
from zavandor_env.io.params import Choice, FilePath, Flag, Int, Number, Param
from zavandor_env.resources import PACKAGE_DIR

SHIPPED = "train/checkpoints/selfplay_2p/policy.npz"
SHIPPED_POLICIES = sorted(PACKAGE_DIR.glob("train/checkpoints/*/policy.npz"))
HEURISTIC_YAML = PACKAGE_DIR / "configs" / "agents" / "heuristic.yaml"


@contextlib.contextmanager
def no_open_of_an_integer() -> Iterator[list[object]]:
    """Fail on any ``open()`` of an integer (a file descriptor: ``open(0)`` reads stdin and
    then closes it); yields the list of such attempts."""
    attempts: list[object] = []
    real_open = builtins.open

    def guarded(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, int):
            attempts.append(file)
            raise AssertionError(f"open() of file descriptor {file}")
        return real_open(file, *args, **kwargs)

    builtins.open, io.open = guarded, guarded  # type: ignore[assignment]
    try:
        yield attempts
    finally:
        builtins.open, io.open = real_open, real_open  # type: ignore[assignment]


def assert_one_line(exc: BaseException, *words: str) -> str:
    message = str(exc)
    assert message and "\n" not in message, message
    for word in words:
        assert word in message, message
    return message


# ---- paths are text naming a regular file, never a file descriptor ---------------------------
@pytest.mark.parametrize("spec", ["heuristic:config=0", "novice:config=1", "planner:config=2",
                                  "policy:path=0", "mcts:policy=network,net=1",
                                  "heuristic:config=true"])
def test_an_integer_path_in_a_spec_is_refused_when_read(spec: str) -> None:
    with no_open_of_an_integer() as attempts, pytest.raises(AgentSpecError) as info:
        make_agent(spec)
    assert_one_line(info.value, "not a number", " must be ", ", got ")
    assert attempts == []


@pytest.mark.parametrize("make", [lambda: HeuristicAgent(config=0),  # type: ignore[arg-type]
                                  lambda: PlannerAgent(config=3),  # type: ignore[arg-type]
                                  lambda: PolicyAgent(1),  # type: ignore[arg-type]
                                  lambda: load_policy(2)])  # type: ignore[arg-type]
def test_constructors_never_open_an_integer_either(make: Any) -> None:
    with no_open_of_an_integer() as attempts, pytest.raises(ValueError) as info:
        make()
    assert_one_line(info.value, "a path must be text")
    assert attempts == []


def test_a_quoted_number_is_a_file_name_not_a_descriptor(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(HEURISTIC_YAML, tmp_path / "0")
    with no_open_of_an_integer() as attempts:
        agent = make_agent("heuristic:config='0'")
    assert attempts == [] and isinstance(agent, HeuristicAgent)


@pytest.mark.parametrize("spec", ["heuristic:config=/dev/zero", "heuristic:config=/dev/stdin",
                                  "planner:config=/", "policy:path=/dev/null"])
def test_a_device_or_a_folder_is_refused_as_a_file(spec: str) -> None:
    if not Path(spec.partition("=")[2]).exists():
        pytest.skip("no such device here")
    with pytest.raises(AgentSpecError) as info:
        parse_spec(spec)
    assert_one_line(info.value, "is not a regular file")


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "weights.yaml"
    os.mkfifo(fifo)  # reading it would block until a writer comes
    with pytest.raises(AgentSpecError) as info:
        parse_spec(f"novice:config={fifo}")
    assert_one_line(info.value, "novice", "config", "is not a regular file")
    with pytest.raises(ValueError, match="is not a regular file"):
        HeuristicAgent(config=fifo)


# ---- every value typed and bounded when the spec is read ------------------------------------
@pytest.mark.parametrize(("spec", "key"), [
    ("mcts:c=abc", "c"),
    ("mcts:eval_scale=0", "eval_scale"),
    ("mcts:prior_weight=-1", "prior_weight"),
    ("mcts:switch_z=inf", "switch_z"),
    ("mcts:c=1e400", "c"),
    ("mcts:iterations=10000000", "iterations"),
    ("mcts:seconds=nan", "seconds"),
    ("mcts:horizon_rounds=99999999999", "horizon_rounds"),
    ("mcts:max_depth=-3", "max_depth"),
    ("mcts:policy=network,rollout_steps=1e9", "rollout_steps"),
    ("heuristic:weights=abc", "weights"),
    ("planner:params=7", "params"),
    ("novice:blunder=2", "blunder"),
    ("policy:path=x.npz,deterministic=maybe", "deterministic"),
    ("policy:path=x.npz,device=rm -rf", "device"),
    ("openspiel:simulations=1000000000", "simulations"),
    ("openspiel:simulations=1", "simulations"),  # OpenSpiel's IS-MCTS asserts on one
    ("human:input_fn=print", "input_fn"),
    ("random:seed=-1", "seed"),
])
def test_a_bad_value_is_refused_when_the_spec_is_read(spec: str, key: str) -> None:
    """One line naming the agent, the parameter, the value and what is allowed."""
    with pytest.raises(AgentSpecError) as info:
        parse_spec(spec)
    agent = spec.partition(":")[0]
    message = assert_one_line(info.value, f"agent {agent!r}", f"{key} must be ", ", got ")
    assert message.split(" must be ")[1].split(", got ")[0].strip()


def test_a_bad_mapping_of_weights_is_refused_naming_the_weight() -> None:
    with pytest.raises(AgentSpecError) as info:
        parse_spec({"agent": "mcts", "params": {"weights": {"vp_energy": "lots"}}})
    assert_one_line(info.value, "weights", "vp_energy")


def test_an_integer_too_long_to_convert_is_one_line() -> None:
    with pytest.raises(AgentSpecError) as info:
        parse_spec("mcts:iterations=" + "9" * 5000)
    assert len(assert_one_line(info.value, "at most 100 digits")) < 300


def test_an_entry_whose_agent_or_label_is_not_text_is_one_line() -> None:
    for entry in ({"agent": "random", "label": 10**5000}, {"agent": ["random"]}):
        with pytest.raises(AgentSpecError) as info:
            parse_spec(entry)
        assert_one_line(info.value, "must be text")


@pytest.mark.skipif(not native_available(), reason="the network search is native only")
def test_a_missing_network_is_refused_when_the_agent_is_built_not_at_its_first_search() -> None:
    from zavandor_env.eval.tournament import TournamentConfig, check_agents

    config = TournamentConfig([parse_spec("mcts:policy=network,net=missing.npz"),
                               parse_spec("random")], games=1)
    with pytest.raises(AgentSpecError) as info:
        check_agents(config)
    assert_one_line(info.value, "missing.npz", "does not exist")


def test_the_command_line_refuses_a_bad_value_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from zavandor_env.cli import main

    out = tmp_path / "out"
    assert main(["eval", "--agents", "mcts:c=abc", "random", "--games", "2",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zavandor eval: ") and err.count("\n") == 1, err
    assert "c must be a finite number" in err and "got 'abc'" in err and not out.exists()


def test_every_agent_declares_exactly_the_parameters_its_constructor_takes() -> None:
    from zavandor_env.agents.registry import _load

    assert set(declared_agents()) == set(REGISTRY)
    for name, factory in REGISTRY.items():
        cls = _load(factory.agent_class_path)  # type: ignore[attr-defined]
        taken = set(inspect.signature(cls).parameters) - {"trust_pickle"}
        schema = agent_schema(name)
        assert schema is not None and set(schema) == taken, name


# ---- policy weights: finite outputs for every observation ------------------------------------
def _scaled_shipped(tmp_path: Path, array: str, value: float) -> Path:
    policy = load_policy(PACKAGE_DIR / SHIPPED)
    target = policy.weights if array == "actor" else policy.value_weights
    assert target is not None
    target[0] = target[0].copy()
    target[0][0, 0] = np.float32(value)
    return save_policy(policy, tmp_path / "huge.npz")


@pytest.mark.parametrize("array", ["actor", "critic"])
@pytest.mark.parametrize("value", [3e38, -3e38, 1e30])
def test_finite_but_huge_weights_are_refused_at_load(tmp_path: Path, array: str,
                                                    value: float) -> None:
    path = _scaled_shipped(tmp_path, array, value)
    with pytest.raises(PolicyFileError) as info:
        load_policy(path)
    assert_one_line(info.value, "too large", array)
    with pytest.raises(ValueError) as agent_error:
        make_agent(f"policy:path={path},deterministic=false")
    assert_one_line(agent_error.value, "too large")


@pytest.mark.parametrize("path", SHIPPED_POLICIES, ids=lambda p: p.parent.name)
def test_shipped_policies_are_far_inside_the_bound(path: Path) -> None:
    policy = load_policy(path)
    assert output_bound(policy.weights, policy.biases, policy.activation) < 1e4
    assert policy.value_weights is not None and policy.value_biases is not None
    assert output_bound(policy.value_weights, policy.value_biases, policy.activation) < 1e4


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_a_policy_at_the_bound_gives_finite_outputs_for_extreme_observations(
    tmp_path: Path, activation: str,
) -> None:
    """The bound is sound: weights just inside it never give NaN or infinite outputs."""
    rng = np.random.default_rng(3)
    obs_dim, actions = load_policy(PACKAGE_DIR / SHIPPED).obs_dim, 4
    shapes = [(6, obs_dim), (5, 6), (actions, 5)]
    weights = [rng.normal(size=s).astype(np.float32) for s in shapes]
    biases = [rng.normal(size=s[0]).astype(np.float32) for s in shapes]
    scale = (0.9 * MAX_OUTPUT_BOUND / output_bound(weights, biases, activation)) ** (1 / 3)
    weights = [w * np.float32(scale) for w in weights]
    policy = NumpyPolicy(weights, biases, activation)
    path = save_policy(policy, tmp_path / "edge.npz")
    loaded = load_policy(path, fingerprint=None)
    for sign in (1.0, -1.0):
        obs = np.where(rng.random(obs_dim) < 0.5, sign, -sign).astype(np.float32) * OBS_BOUND
        probs = loaded.probabilities(obs, np.ones(actions, bool))
        assert np.isfinite(loaded.logits(obs)).all() and np.isfinite(probs).all()
        assert 0 <= loaded.act(obs, np.ones(actions, bool), rng) < actions


# ---- the fuzz: any spec string is an agent that plays, or one line ---------------------------
_INTS = ["-1", "0", "1", "2", "7", str(2**31), str(2**63), str(10**30), "9" * 5000]
_FLOATS = ["0.0", "-1.5", "0.05", "0.7", "1.4", "1e-300", "3e38", "1e400", "nan", "inf", "-inf"]
_WORDS = ["", "abc", "true", "false", "none", "maybe", "'0'", "auto", "python", "native",
          "planner", "heuristic", "naive", "network", "random", "flat", "tree", "search",
          "policy", "ismcts", "cpu", "x=y"]
_PATHS = [SHIPPED, "missing.npz", str(HEURISTIC_YAML), "/dev/zero", "/dev/stdin", "/",
          "configs/agents/planner.yaml", "a\tb.npz"]
_EXTRA_KEYS = ["label", "seed", "trust_pickle", "bogus", ""]


_HOSTILE = st.sampled_from(_INTS + _FLOATS + _WORDS + _PATHS)


def _plausible(param: Param | None) -> st.SearchStrategy[str]:
    """Values of the parameter's own type (small budgets, so that a built agent's move is
    quick), so that half the draws build agents and reach their first move."""
    if isinstance(param, Int):
        return st.sampled_from([str(v) for v in (0, 1, 2, 7) if param.low <= v <= param.high])
    if isinstance(param, Number):
        return st.sampled_from(["0", "0.05", "0.2", "1"])
    if isinstance(param, Flag):
        return st.sampled_from(["true", "false"])
    if isinstance(param, Choice):
        return st.sampled_from(param.options)
    if isinstance(param, FilePath):
        return st.sampled_from(_PATHS)
    return _HOSTILE


def _spec_strategy() -> st.SearchStrategy[str]:
    def pair(schema: dict[str, Param], key: str) -> st.SearchStrategy[str]:
        plausible = _plausible(schema.get(key))  # three draws in four
        return st.one_of(plausible, plausible, plausible, _HOSTILE).map(lambda v: f"{key}={v}")

    def one(agent: str) -> st.SearchStrategy[str]:
        schema = dict(agent_schema(agent) or {})
        declared = st.sampled_from(sorted(schema) or _EXTRA_KEYS)
        keys = st.one_of(declared, declared, declared, st.sampled_from(_EXTRA_KEYS))
        pairs = st.lists(keys.flatmap(lambda k: pair(schema, k)), max_size=3)
        if agent == "policy":  # half the policies start from a real file
            pairs = st.tuples(st.booleans(), pairs).map(
                lambda b_kv: [f"path={SHIPPED}"] * b_kv[0] + b_kv[1])
        return pairs.map(lambda kv: agent + (":" + ",".join(kv) if kv else ""))

    return st.sampled_from(sorted(REGISTRY) + ["nobody"]).flatmap(one)


def _plays_a_legal_move(agent: Any) -> None:
    # engine=native agents build only where the core is, and then decide on a native game
    game = Game.new(num_players=2, seed=5)
    seat = game.current_player
    agent.reset(seat, 2, seed=1)
    legal = game.legal_actions()
    observation = None
    if agent.needs_observation:
        observation = {"observation": ObservationEncoder().encode_game(game, seat),
                       "action_mask": mask_array(legal)}
    assert agent.act(observation, game.view(seat), legal) in legal


def _slow_to_play(spec: Any, agent: Any) -> bool:
    """Agents whose first move this fuzz does not play: a person, or the Python search
    (seconds per decision; its budgets are held by tests/agents/test_mcts_budget.py)."""
    return spec.interactive or (spec.agent == "mcts" and getattr(agent, "engine", "") == "python")


# Fuzzed specs may name the retired engine= parameter: its DeprecationWarning is expected.
@pytest.mark.filterwarnings("ignore:.*engine=.* is ignored:DeprecationWarning")
@FUZZ_EXAMPLES
def test_any_spec_string_is_an_agent_that_plays_or_one_line(examples: int) -> None:
    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(_spec_strategy())
    def attack(text: str) -> None:
        with no_open_of_an_integer() as attempts:
            try:
                spec = parse_spec(text)
                agent = spec.build(seed=0)
            except ValueError as exc:  # AgentSpecError, PolicyLoadError, EngineUnavailable...
                assert_one_line(exc)
                assert attempts == []
                return
            try:
                if not _slow_to_play(spec, agent):
                    _plays_a_legal_move(agent)
            finally:
                agent.close()
        assert attempts == []

    attack()
