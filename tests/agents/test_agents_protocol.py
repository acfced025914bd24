"""The agent protocol: every agent plays legal, seeded, reproducible games from what it may know."""

from __future__ import annotations

import json
import zipfile

import pytest

from zavandor_env import agents
from zavandor_env.agents.base import PassAgent, RandomAgent
from zavandor_env.agents.heuristic import HeuristicAgent, HeuristicWeights
from zavandor_env.agents.human import HumanAgent, parse_answer
from zavandor_env.agents.mcts import MCTSAgent
from zavandor_env.agents.registry import make_agent, parse_spec
from zavandor_env.engine import Game, GameConfig, Phase
from zavandor_env.engine.actions import END_TURN, PASS, string_to_action
from zavandor_env.engine.view import HiddenInformationError, PlayerView
from zavandor_env.eval.match import competition_ranks, play_game


class LegalityCheck(RandomAgent):
    """Wraps another agent and asserts every answer is legal."""

    def __init__(self, inner):
        super().__init__(0)
        self.inner = inner
        self.decisions = 0

    def reset(self, seat, num_players, seed=None):
        super().reset(seat, num_players, seed)
        self.inner.reset(seat, num_players, seed)

    def act(self, observation, view, legal_actions):
        action = self.inner.act(observation, view, legal_actions)
        assert action in legal_actions
        self.decisions += 1
        return action


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_heuristic_and_random_play_legal_games_to_the_end(num_players):
    seats = [LegalityCheck(HeuristicAgent(seed=1))] + [
        LegalityCheck(RandomAgent(seed=i)) for i in range(1, num_players)
    ]
    # Uniformly random players overbid and are put out by the Curse within a round or two
    # under the rulebook's default; the affordability filter keeps them in the game.
    result = play_game(seats, seed=3,
                       config=GameConfig(num_players=num_players, allow_overbid=False))
    assert result.rounds > 1 and seats[0].decisions > 10
    assert not result.truncated  # the heuristic ends the game by buying sentinels itself


def test_mcts_plays_legal_decisions_with_a_tiny_budget():
    mcts = LegalityCheck(MCTSAgent(seed=0, iterations=2))
    game = Game.new(num_players=2, seed=5)
    mcts.reset(0, 2, 0)
    other = HeuristicAgent(seed=1)
    other.reset(1, 2, 1)
    for _ in range(40):
        if game.is_over:
            break
        seat = game.current_player
        agent = mcts if seat == 0 else other
        game.apply(agent.act(None, PlayerView(game.state, seat), game.legal_actions()))
    assert mcts.decisions > 0


def test_same_seed_gives_same_game_for_every_agent_kind():
    def run():
        return play_game([HeuristicAgent(seed=2), MCTSAgent(seed=4, iterations=2),
                          RandomAgent(seed=3)], seed=11, config=GameConfig(num_players=3,
                                                                          max_rounds=4))

    a, b = run(), run()
    assert a.scores == b.scores and a.decisions == b.decisions


def test_pass_agent_never_spends():
    result = play_game([PassAgent(), PassAgent()], seed=1, config=GameConfig(max_rounds=3))
    assert result.truncated and all(s == 3 for s in result.scores)


def test_view_hides_other_hands_but_shows_counts():
    game = Game.new(num_players=3, seed=2)
    view = PlayerView(game.state, 0)
    assert view.me.hand == tuple(game.state.players[0].hand)
    with pytest.raises(HiddenInformationError):
        _ = view.player(1).hand
    with pytest.raises(HiddenInformationError):
        _ = view.player(2).sages_tokens
    counts = view.player(1).card_counts
    assert sum(counts) == sum(game.state.players[1].hand[:21])
    assert not hasattr(view, "decks")  # deck order is nobody's business


def test_view_cannot_change_the_game():
    game = Game.new(num_players=2, seed=2)
    view = PlayerView(game.state, 0)
    with pytest.raises((TypeError, AttributeError)):
        view.me.active[0] = 9  # tuples
    assert game.state.players[0].active[0] == 2


def test_registry_builds_agents_from_specs():
    spec = parse_spec("mcts:iterations=3,rollout=random")
    assert spec.params == {"iterations": 3, "rollout": "random"}
    assert isinstance(make_agent("mcts:iterations=3"), MCTSAgent)
    assert isinstance(agents.make_agent({"agent": "heuristic", "label": "h"}), HeuristicAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        parse_spec("nosuch")
    with pytest.raises(ValueError, match="bad parameters"):
        make_agent("random:speed=3")
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("mcts:iterations")


def test_spec_values_parse_to_bools_numbers_and_strings():
    spec = parse_spec("policy:path=x.zip,deterministic=false,device=cpu")
    assert spec.params == {"path": "x.zip", "deterministic": False, "device": "cpu"}
    assert parse_spec("mcts:search_all=TRUE,c=0.5,iterations=8").params == {
        "search_all": True, "c": 0.5, "iterations": 8}
    assert parse_spec("heuristic:config=2024-01-01.yaml").params["config"] == "2024-01-01.yaml"


def test_spec_with_an_unknown_key_names_the_agent_the_key_and_the_known_keys():
    with pytest.raises(ValueError) as info:
        parse_spec("mcts:iterationz=3")
    message = str(info.value)
    assert "'mcts'" in message and "'iterationz'" in message and "iterations" in message
    assert "\n" not in message
    with pytest.raises(ValueError, match="unknown agent 'wizard'"):
        parse_spec({"agent": "wizard"})


def test_spec_label_names_the_agent_in_reports():
    spec = parse_spec("random:label=r2")
    assert spec.label == "r2" and spec.params == {}


def test_human_is_interactive_and_bots_are_not():
    assert parse_spec("human").interactive
    bots = ("random", "heuristic", "mcts", "policy:path=x")
    assert not any(parse_spec(a).interactive for a in bots)


def test_human_quit_stops_the_game_without_asking_more():
    from zavandor_env.agents.human import QuitGame

    game = Game.new(num_players=2, seed=1)
    asked = []
    human = HumanAgent(input_fn=lambda prompt: asked.append(prompt) or "quit",
                       output_fn=lambda text: None, colour=False)
    human.reset(game.current_player, 2)
    with pytest.raises(QuitGame):
        human.act(None, PlayerView(game.state, game.current_player), game.legal_actions())
    assert len(asked) == 1


def test_auction_watcher_reports_every_sentinel_sold_with_its_price():
    from zavandor_env.agents.human import AuctionWatcher

    watcher = AuctionWatcher(["a", "b", "c"])
    news: list[str] = []
    result = play_game([HeuristicAgent(seed=i) for i in range(3)], seed=4,
                       on_decision=lambda game, seat, action: news.extend(watcher.after(game)))
    final = Game.from_replay_record(play_game(
        [HeuristicAgent(seed=i) for i in range(3)], seed=4, record_replay=True).replay)
    sold = [(seat, s) for seat, p in enumerate(final.state.players) for s in p.sentinels]
    from zavandor_env.engine.data import SENTINELS

    for seat, sentinel in sold:
        assert any(f"player_{seat} ({'abc'[seat]}) won the {SENTINELS[sentinel].name} for " in line
                   for line in news), (seat, sentinel, news)
    assert result.outcome.terminated and all("energy (bid " in line for line in news)


def test_package_exports_every_agent_lazily():
    for name in ("RandomAgent", "HeuristicAgent", "MCTSAgent", "PolicyAgent", "HumanAgent"):
        assert isinstance(getattr(agents, name), type)


def test_heuristic_weights_reject_unknown_keys(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("weights:\n  vp_energy: 10\n  nonsense: 1\n")
    with pytest.raises(ValueError, match="nonsense"):
        HeuristicWeights.from_yaml(path)
    path.write_text("weights:\n  vp_energy: 10\n")
    assert HeuristicAgent(config=path).w.vp_energy == 10


def test_mcts_rejects_bad_budgets():
    with pytest.raises(ValueError):
        MCTSAgent(iterations=0)
    with pytest.raises(ValueError):
        MCTSAgent(rollout="psychic")


def test_competition_ranks_share_ties():
    assert competition_ranks([10, 30, 30, 5]) == [3, 1, 1, 4]


# ---- human ----------------------------------------------------------------------------------
def test_human_agent_reprompts_until_a_legal_answer():
    game = Game.new(num_players=2, seed=1)
    legal = game.legal_actions()
    answers = iter(["nonsense", "help", "999", "table", "end_turn"])
    out: list[str] = []
    human = HumanAgent(input_fn=lambda prompt: next(answers), output_fn=out.append, colour=False)
    human.reset(game.current_player, 2)
    action = human.act(None, PlayerView(game.state, game.current_player), legal)
    assert action == END_TURN
    text = "\n".join(out)
    assert "not one of the legal actions" in text and "Actions (one decision" in text


def test_human_answers_by_index_or_name():
    legal = (0, 2, 3)
    assert parse_answer("2", legal) == 2
    assert parse_answer(" BUY_SAPPHIRE ", legal) == string_to_action("buy_sapphire")
    assert parse_answer("4", legal) is None
    assert parse_answer("buy_ruby", legal) is None


# ---- policy files ---------------------------------------------------------------------------
np = pytest.importorskip("numpy")


def _write_npz(path, obs_dim, num_actions, hidden=8):
    rng = np.random.default_rng(0)
    meta = {"format": "zavandor-policy", "version": 1, "obs_dim": obs_dim,
            "num_actions": num_actions, "activation": "tanh", "hidden": [hidden], "info": {}}
    np.savez(path, __meta__=np.array(json.dumps(meta)),
             **{"hidden.0.weight": rng.normal(size=(hidden, obs_dim)).astype(np.float32),
                "hidden.0.bias": np.zeros(hidden, np.float32),
                "action.weight": rng.normal(size=(num_actions, hidden)).astype(np.float32),
                "action.bias": np.zeros(num_actions, np.float32)})


def test_policy_agent_errors_on_missing_corrupt_and_incompatible_files(tmp_path):
    from zavandor_env.agents.policy import PickleLoadWarning, PolicyAgent, PolicyLoadError
    from zavandor_env.encoding.observation import OBS_SIZE

    with pytest.raises(PolicyLoadError, match="does not exist"):
        PolicyAgent(tmp_path / "none.zip")
    bad_zip = tmp_path / "corrupt.zip"
    bad_zip.write_bytes(b"this is not a zip file")
    with pytest.raises(PolicyLoadError, match="trust_pickle"):
        PolicyAgent(bad_zip)
    with pytest.warns(PickleLoadWarning), pytest.raises(
            PolicyLoadError, match="not a readable MaskablePPO checkpoint"):
        PolicyAgent(bad_zip, trust_pickle=True)
    empty_zip = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty_zip, "w") as zf:
        zf.writestr("data", "{}")
    with pytest.warns(PickleLoadWarning), pytest.raises(PolicyLoadError):
        PolicyAgent(empty_zip, trust_pickle=True)
    bad_npz = tmp_path / "corrupt.npz"
    bad_npz.write_bytes(b"garbage")
    with pytest.raises(PolicyLoadError, match="readable"):
        PolicyAgent(bad_npz)
    wrong_obs = tmp_path / "wrong_obs.npz"
    _write_npz(wrong_obs, OBS_SIZE + 3, 67)
    with pytest.raises(PolicyLoadError, match="observations of size"):
        PolicyAgent(wrong_obs)
    wrong_actions = tmp_path / "wrong_actions.npz"
    _write_npz(wrong_actions, OBS_SIZE, 12)
    with pytest.raises(PolicyLoadError, match="actions"):
        PolicyAgent(wrong_actions)
    other = tmp_path / "policy.txt"
    other.write_text("x")
    with pytest.raises(PolicyLoadError, match="expected"):
        PolicyAgent(other)


def test_policy_agent_plays_a_weights_only_export_within_the_mask(tmp_path):
    from zavandor_env.agents.policy import PolicyAgent
    from zavandor_env.encoding.observation import OBS_SIZE

    path = tmp_path / "tiny.npz"
    _write_npz(path, OBS_SIZE, 67)
    policy = PolicyAgent(path, seed=0, deterministic=False)
    result = play_game([policy, HeuristicAgent(seed=1)], seed=4, config=GameConfig(max_rounds=3))
    assert result.rounds >= 1


def test_policy_agent_plays_an_sb3_checkpoint(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from zavandor_env.agents.policy import PickleLoadWarning, PolicyAgent
    from zavandor_env.envs import SingleAgentEnv

    env = SingleAgentEnv(num_players=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16,
                        policy_kwargs={"net_arch": [8]})
    path = tmp_path / "model.zip"
    model.save(path)
    with pytest.warns(PickleLoadWarning):
        agent = PolicyAgent(path, trust_pickle=True)
    result = play_game([agent, RandomAgent(seed=1)], seed=2, config=GameConfig(max_rounds=2))
    assert result.rounds >= 1


def test_heuristic_yaml_equals_the_built_in_defaults():
    """An installed package without configs/ falls back to the dataclass: they must agree."""
    from zavandor_env.agents.heuristic import DEFAULT_CONFIG

    assert HeuristicWeights.from_yaml(DEFAULT_CONFIG) == HeuristicWeights()


def _bid_decision_with_overbids(seed: int) -> tuple[Game, int]:
    """A heuristic game (rulebook rules) at a bidding decision whose ladder includes bids the
    bidder could not pay even selling every gem."""
    from zavandor_env.engine.auction import max_payable
    from zavandor_env.engine.queries import item_price

    game = Game.new(num_players=2, seed=seed)
    agents = [HeuristicAgent(seed=s) for s in range(2)]
    for s, agent in enumerate(agents):
        agent.reset(s, 2, s)
    while not game.is_over:
        state, seat = game.state, game.current_player
        if state.phase == Phase.BID and PASS in game.legal_actions():
            player = state.players[seat]
            top = state.high_bid + 50
            if item_price(state, player, state.auction_kind, state.auction_item,
                          top) > max_payable(player):
                return game, seat
        view = PlayerView(game.state, seat)
        game.apply(agents[seat].act(None, view, game.legal_actions()))
    raise AssertionError("no bidding decision with unaffordable raises")


def test_mcts_never_bids_what_it_could_not_pay():
    from zavandor_env.agents.mcts import curse_free

    game, seat = _bid_decision_with_overbids(seed=1)
    view = PlayerView(game.state, seat)
    legal = game.legal_actions()
    safe = curse_free(view, legal)
    assert PASS in safe and set(safe) < set(legal), "the unaffordable raises are dropped"
    mcts = MCTSAgent(seed=0, iterations=8)
    mcts.reset(seat, 2, 0)
    assert mcts.act(None, view, legal) in safe
    reckless = MCTSAgent(seed=0, iterations=8, avoid_curse=False)
    reckless.reset(seat, 2, 0)
    assert reckless.act(None, view, legal) in legal
