"""The native MLP (native/src/net.hpp) computes the policy file's network: the same logits and
values as a torch ``nn.Sequential`` built from the ``.npz`` arrays and as NumpyPolicy, on every
decision of seeded games at 2-6 players with the shipped policies, and for other shapes and
activations; it refuses bad shapes with one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from zavandor_env.agents.policy_file import (
    NumpyPolicy,
    PolicyFileError,
    load_policy,
    native_network,
)
from zavandor_env.encoding.observation import ObservationEncoder
from zavandor_env.engine import Game, GameConfig, native_available

pytestmark = pytest.mark.skipif(not native_available(), reason="needs the native core")

CHECKPOINTS = Path(__file__).parents[2] / "train" / "checkpoints"
PLAYERS = (2, 3, 4, 5, 6)
LOGIT_ATOL = 1e-4
VALUE_ATOL = 1e-4


def shipped(players: int) -> NumpyPolicy:
    return load_policy(CHECKPOINTS / f"selfplay_{players}p" / "policy.npz")


def torch_forward(policy: NumpyPolicy, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The reference: the file's arrays loaded into torch ``nn.Sequential`` models, in float64:
    a float32 torch matmul may be made less precise by process-wide settings that another test
    or library changed (``torch.set_float32_matmul_precision``), which no float64 one is."""
    torch = pytest.importorskip("torch")
    nn = torch.nn

    def sequential(weights: list[np.ndarray], biases: list[np.ndarray]) -> object:
        layers: list[object] = []
        for i, (w, b) in enumerate(zip(weights, biases)):
            linear = nn.Linear(w.shape[1], w.shape[0], dtype=torch.float64)
            with torch.no_grad():
                linear.weight.copy_(torch.from_numpy(np.ascontiguousarray(w)))
                linear.bias.copy_(torch.from_numpy(np.ascontiguousarray(b)))
            layers.append(linear)
            if i < len(weights) - 1:
                layers.append(nn.Tanh() if policy.activation == "tanh" else nn.ReLU())
        return nn.Sequential(*layers)

    x = torch.from_numpy(np.asarray(obs, dtype=np.float64))
    with torch.no_grad():
        logits = sequential(policy.weights, policy.biases)(x).numpy()
        values = None
        if policy.has_value:
            critic = sequential(policy.value_weights or [], policy.value_biases or [])
            values = critic(x).numpy()[..., 0]
    return logits, values


def decisions(players: int, seed: int, policy: NumpyPolicy) -> np.ndarray:
    """The deciding seat's observation at every decision of one seeded native game, every seat
    sampling from ``policy``."""
    game = Game.new(GameConfig(num_players=players), seed=seed)
    encoder = ObservationEncoder()
    rng = np.random.default_rng(seed)
    rows = []
    while not game.is_over:
        obs = encoder.encode_game(game, game.current_player)
        rows.append(obs)
        mask = np.zeros(policy.num_actions, dtype=bool)
        mask[list(game.legal_actions())] = True
        game.apply(policy.act(obs, mask, rng))
    return np.stack(rows)


def check_games(players: int, seeds: range, min_decisions: int = 0) -> None:
    """Every decision of the games of ``seeds``, and of further seeds until ``min_decisions``
    decisions are checked (6-player games under the Curse can end within 60 decisions)."""
    policy = shipped(players)
    net = native_network(policy)
    checked, seed = 0, seeds.start
    while seed < seeds.stop or checked < min_decisions:
        obs = decisions(players, seed, policy)
        checked += len(obs)
        seed += 1
        logits, values = net.forward(obs)
        ref_logits, ref_values = torch_forward(policy, obs)
        assert ref_values is not None and values is not None
        np.testing.assert_allclose(logits, ref_logits, atol=LOGIT_ATOL, rtol=0)
        np.testing.assert_allclose(values, ref_values, atol=VALUE_ATOL, rtol=0)
        np.testing.assert_allclose(logits, policy.logits(obs), atol=LOGIT_ATOL, rtol=0)
        np_values = [policy.value(row) for row in obs]
        np.testing.assert_allclose(values, np.array(np_values, dtype=np.float64),
                                   atol=VALUE_ATOL, rtol=0)
        # The masked choice agrees too wherever the reference's best logit is clearly best.
        assert logits.shape == (len(obs), policy.num_actions)


@pytest.mark.parametrize("players", PLAYERS)
def test_native_forward_equals_torch_and_numpy_on_every_decision_of_seeded_games(
        players: int) -> None:
    check_games(players, range(2), min_decisions=400)


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYERS)
def test_native_forward_equals_torch_on_every_decision_of_many_seeded_games(
        players: int) -> None:
    check_games(players, range(2, 22))


def random_policy(rng: np.random.Generator, obs_dim: int, hidden: list[int], actions: int,
                  activation: str, value_hidden: list[int] | None) -> NumpyPolicy:
    def mlp(sizes: list[int]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        ws = [rng.normal(0, 0.7, (o, i)).astype(np.float32) for i, o in zip(sizes, sizes[1:])]
        bs = [rng.normal(0, 0.3, o).astype(np.float32) for o in sizes[1:]]
        return ws, bs

    weights, biases = mlp([obs_dim, *hidden, actions])
    policy = NumpyPolicy(weights, biases, activation)
    if value_hidden is not None:
        policy.value_weights, policy.value_biases = mlp([obs_dim, *value_hidden, 1])
    return policy


@pytest.mark.parametrize("activation", ["tanh", "relu"])
@pytest.mark.parametrize("hidden,value_hidden", [
    ([7, 33, 5], [3]), ([1], None), ([], []), ([129, 17], [64, 9, 2]),
])
def test_native_forward_equals_torch_for_any_depth_width_and_activation(
        activation: str, hidden: list[int], value_hidden: list[int] | None) -> None:
    rng = np.random.default_rng(len(hidden) * 10 + (activation == "relu"))
    policy = random_policy(rng, 13, hidden, 9, activation, value_hidden)
    obs = rng.normal(0, 1, (50, 13)).astype(np.float32)
    obs[rng.random(obs.shape) < 0.5] = 0.0  # zeros: the inputs the native pass skips
    logits, values = native_network(policy).forward(obs)
    ref_logits, ref_values = torch_forward(policy, obs)
    np.testing.assert_allclose(logits, ref_logits, atol=1e-4, rtol=1e-5)
    if value_hidden is None:
        assert values is None
    else:
        assert values is not None and ref_values is not None
        np.testing.assert_allclose(values, ref_values, atol=1e-4, rtol=1e-5)


def test_the_native_tanh_is_within_float_rounding_of_the_true_one() -> None:
    """The forward pass's own tanh (net.cpp: SSE2 four at a time, the same arithmetic one at
    a time for the rest): through an identity network the logits are tanh(obs)."""
    width = 103  # 25 blocks of four and a tail of three
    eye = np.eye(width, dtype=np.float32)
    policy = NumpyPolicy([eye, eye], [np.zeros(width, np.float32)] * 2, "tanh")
    x = np.linspace(-20, 20, 200 * width, dtype=np.float32)
    x = np.concatenate([x, [0.0, -0.0, 1e-30, -1e-30, 8.99, 9.0, 9.01, 1e30, -1e30]])
    x = np.concatenate([x, np.full(-len(x) % width, 0.5, np.float32)]).astype(np.float32)
    logits, _ = native_network(policy).forward(x.reshape(-1, width))
    np.testing.assert_allclose(logits.reshape(-1), np.tanh(x.astype(np.float64)), rtol=0,
                               atol=1.2e-7)
    # Every position of a row, in a block of four or in the tail, gives the same bits.
    rows = np.repeat(np.float32([-3.7, -0.3, 0.001, 0.6, 2.2]), width).reshape(-1, width)
    out, _ = native_network(policy).forward(rows)
    assert all(len(set(row.tolist())) == 1 for row in out)


def test_a_batch_gives_exactly_the_single_forward_of_each_row() -> None:
    policy = shipped(3)
    net = native_network(policy)
    obs = decisions(3, 7, policy)[:40]
    logits, values = net.forward(obs)
    for row, expected_logits, expected_value in zip(obs, logits, values):
        single_logits, single_value = net.forward(row)
        assert np.array_equal(single_logits, expected_logits)
        assert single_value == expected_value


def test_an_empty_batch_and_float64_input_are_accepted() -> None:
    net = native_network(shipped(2))
    logits, values = net.forward(np.zeros((0, net.obs_dim), np.float32))
    assert logits.shape == (0, net.num_actions) and values is not None and values.shape == (0,)
    obs = np.random.default_rng(0).random(net.obs_dim)
    a, _ = net.forward(obs)
    b, _ = net.forward(obs.astype(np.float32))
    assert np.array_equal(a, b)


def test_the_network_reports_its_sizes() -> None:
    policy = shipped(4)
    net = native_network(policy)
    assert (net.obs_dim, net.num_actions, net.has_value) == (710, 67, True)


def one_line_error(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match) as info:
        call()  # type: ignore[operator]
    assert "\n" not in str(info.value)


def test_bad_shapes_are_refused_with_one_line() -> None:
    from zavandor_env.engine import native

    Network = native.core_module().Network
    w0, b0 = np.ones((4, 3), np.float32), np.ones(4, np.float32)
    w1, b1 = np.ones((2, 4), np.float32), np.ones(2, np.float32)
    one_line_error(lambda: Network([w0, np.ones((2, 5), np.float32)], [b0, b1]),
                   "takes 5 inputs, but the previous layer gives 4")
    one_line_error(lambda: Network([w0], [np.ones(3, np.float32)]), "biases")
    one_line_error(lambda: Network([w0, w1], [b0]), "2 weight matrices but 1 bias")
    one_line_error(lambda: Network([], []), "no layer")
    one_line_error(lambda: Network([w0.reshape(-1)], [b0]), "2 dimensions")
    one_line_error(lambda: Network([w0.astype(np.int32)], [b0]), "float numpy array")
    one_line_error(lambda: Network([[1.0]], [b0]), "got list")
    one_line_error(lambda: Network([w0, w1], [b0, b1], "gelu"), "tanh' or 'relu")
    bad = w0.copy()
    bad[1, 2] = np.nan
    one_line_error(lambda: Network([bad, w1], [b0, b1]), r"weight \[1, 2\] is not finite")
    one_line_error(lambda: Network([w0, w1], [b0, b1], "tanh", [w0, w1], [b0, b1]),
                   "critic must have 1 output")
    one_line_error(lambda: Network([w0, w1], [b0, b1], "tanh",
                                   [np.ones((1, 5), np.float32)], [np.ones(1, np.float32)]),
                   "critic reads 5 inputs")
    one_line_error(lambda: Network([w0, w1], [b0, b1], "tanh", [w0], None), "both")
    net = Network([w0, w1], [b0, b1])
    one_line_error(lambda: net.forward(np.ones(4, np.float32)), r"shape \(3,\) or \(B, 3\)")
    one_line_error(lambda: net.forward(np.ones((2, 2, 3), np.float32)), "got float32")
    one_line_error(lambda: net.forward(np.ones(3, np.int64)), "got int64")
    one_line_error(lambda: net.forward([1.0, 2.0, 3.0]), "float32 numpy array")


def test_native_network_of_a_policy_the_core_refuses_is_a_policy_file_error() -> None:
    policy = NumpyPolicy([np.ones((4, 3), np.float32), np.ones((2, 5), np.float32)],
                         [np.ones(4, np.float32), np.ones(2, np.float32)])
    with pytest.raises(PolicyFileError, match="refused the policy: actor layer 1") as info:
        native_network(policy)
    assert "\n" not in str(info.value)
