"""The OpenSpiel game ``python_zavandor``: OpenSpiel's own random-simulation test for 2-6
players, serialization, equality with our engine, resampling from an information state, its
IS-MCTS bot playing whole games against our agents, and the ``openspiel`` agent spec in
``zavandor eval``.  Skipped without the ``[openspiel]`` extra.  Hostile state strings, the
agent's budget checks and the Shimmy / RLlib contracts: tests/envs/test_openspiel_contract.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason='needs the [openspiel] extra: pip install -e '
                                                '".[openspiel]"')

from zavandor_env.agents import HeuristicAgent, play_game  # noqa: E402
from zavandor_env.agents.registry import parse_spec  # noqa: E402
from zavandor_env.cli import main  # noqa: E402
from zavandor_env.engine import Game, GameConfig  # noqa: E402
from zavandor_env.envs.openspiel import (  # noqa: E402
    GAME_NAME,
    OpenSpielAgent,
    ZavandorState,
    deal_seed,
)
from zavandor_env.envs.rewards import terminal_rewards  # noqa: E402


def _random_playout(state, rng: random.Random, limit: int = 5000) -> list[int]:
    actions = []
    while not state.is_terminal() and len(actions) < limit:
        action = rng.choice(state.legal_actions())
        actions.append(action)
        state.apply_action(action)
    return actions


def test_the_game_type_says_sequential_imperfect_information_explicit_chance_zero_sum() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 4})
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.max_chance_outcomes() == 256
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 4 and game.num_distinct_actions() == 67
    assert game.max_game_length() == GameConfig().max_decisions
    assert game.observation_tensor_shape() == [710]
    assert game.information_state_tensor_shape() == [710]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_openspiel_random_sim_test_passes(players: int) -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": players, "seed": players})
    # serialize=False: OpenSpiel's serialization test calls its C++ serializer, which pickles a
    # Python state; ours is text (tests/envs/test_openspiel_contract.py).
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_players_outside_two_to_six_are_refused() -> None:
    for players in (1, 7):
        with pytest.raises((ValueError, pyspiel.SpielError)):
            pyspiel.load_game(GAME_NAME, {"players": players})


def test_a_state_serializes_and_plays_on_identically() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 3, "seed": 1})
    state = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(40):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()
    assert copy.engine_game.to_dict() == state.engine_game.to_dict()
    assert _random_playout(copy, random.Random(2)) == _random_playout(state, random.Random(2))
    assert copy.returns() == state.returns()


def test_same_seed_and_actions_give_our_engines_state_and_returns() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 3, "seed": 7})
    state = game.new_initial_state()
    actions = _random_playout(state, random.Random(3))
    engine = Game.new(GameConfig(num_players=3), seed=state.engine_game.seed)
    for action in actions[4:]:  # after the deal's four chance outcomes
        engine.apply(action)
    assert state.is_terminal() and engine.is_over
    assert state.engine_game.to_dict() == engine.to_dict()
    assert state.returns() == terminal_rewards("win", engine.outcome())
    assert sum(state.returns()) == pytest.approx(0.0)


def test_the_deal_fixes_the_game_and_the_seed_parameter_salts_it() -> None:
    def seeds(seed: int) -> list[int]:
        game = pyspiel.load_game(GAME_NAME, {"seed": seed})
        dealt = []
        for number in (0, 1, 2**32 - 1):
            state = game.new_initial_state()
            state.draw_deal(number)
            dealt.append(state.engine_game.seed)
        return dealt

    assert seeds(5) == seeds(5) != seeds(6)
    assert len(set(seeds(5))) == 3
    assert seeds(-1) == [0, 1, 2**32 - 1] and seeds(5)[0] == deal_seed(5, [0, 0, 0, 0])


def test_a_truncated_game_returns_zero_to_every_seat() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 2})
    cut = Game.new(GameConfig(num_players=2, max_rounds=1, allow_overbid=False), seed=4)
    state = ZavandorState(game, cut)
    rng = random.Random(0)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(0 if 0 in legal else rng.choice(legal))  # end turns: no curse
    assert state.outcome().truncated and state.returns() == [0.0, 0.0]


def test_resampling_keeps_what_the_player_knows() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 3, "seed": 2})
    state = game.new_initial_state()
    state.draw_deal(2)
    for _ in range(10):  # end turns (never a cursed auction), passing where one must decide
        legal = state.legal_actions()
        state.apply_action(0 if 0 in legal else legal[-1])
    assert not state.is_terminal()
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hidden = set()
    for _ in range(5):
        sample = state.resample_from_infostate(player, sampler)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.information_state_tensor(player) == state.information_state_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
        other = (player + 1) % 3
        hidden.add(tuple(sample.engine_game.state.players[other].hand))
    assert len(hidden) > 1  # the other players' hidden cards are redrawn


@pytest.mark.slow
def test_the_ismcts_bot_plays_whole_games_against_our_agents() -> None:
    for seed in range(2):
        result = play_game([OpenSpielAgent(simulations=5, seed=seed), HeuristicAgent(seed=1)],
                           seed=seed)
        assert result.outcome.is_over


def test_the_ismcts_agent_plays_the_same_moves_from_the_same_seed() -> None:
    """Its worlds are drawn from its own seed, not from OpenSpiel's default sampler (seeded by
    the OS), so a ladder or an evaluation with it is reproducible."""
    def moves() -> list[int]:
        actions: list[int] = []
        play_game([OpenSpielAgent(simulations=8, seed=3), HeuristicAgent(seed=1)], seed=5,
                  config=GameConfig(num_players=2, allow_overbid=False, max_decisions=150),
                  on_decision=lambda _game, _seat, action: actions.append(action))
        return actions

    first = moves()
    assert len(first) > 50 and moves() == first


def test_the_agent_spec_builds_an_openspiel_bot() -> None:
    agent = parse_spec("openspiel:bot=ismcts,simulations=5").build(0)
    assert isinstance(agent, OpenSpielAgent) and agent.simulations == 5
    with pytest.raises(ValueError, match="bot must be"):
        OpenSpielAgent(bot="alphazero")


@pytest.mark.slow
def test_zavandor_eval_seats_the_openspiel_bot(tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["eval", "--agents", "openspiel:bot=ismcts,simulations=5", "random",
                 "--players", "2", "--games", "2", "--workers", "1", "--out", str(out),
                 "--quiet", "--no-chart"]) in (0, None)
    assert (out / "summary.json").exists()
