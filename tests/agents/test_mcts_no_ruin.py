"""MCTS's ``no_ruin`` root filter: no bid or opening it could pay only by selling active gems."""

from __future__ import annotations

import pytest

from zavandor_env.agents.mcts import MCTSAgent, within_budget
from zavandor_env.agents.registry import make_agent
from zavandor_env.engine import Game, PlayerView, action_to_string
from zavandor_env.engine.scenario import build, play


def _sentinel_auction(hand: str) -> tuple[Game, PlayerView]:
    """Seat 0 opened the fox at 120; seat 1 (sapphires active, ``hand``) answers."""
    game = build(2, characters=["mage", "fairy"], turn_player=0, display=[],
                 players=[{"hand": "dust10:13"}, {"active": "sapphire:5", "hand": hand}])
    play(game, "open_fox")
    play(game, "bid_plus_0")
    return game, game.view(game.current_player)


def test_bids_beyond_hand_and_inactive_gems_are_dropped_and_passing_stays() -> None:
    game, view = _sentinel_auction("dust10:12")  # 120: only a bid of 121+ is possible
    legal = list(game.legal_actions())
    assert view.me.liquid == 120 and not any(view.me.inactive) and len(legal) > 1
    assert [action_to_string(a) for a in within_budget(view, legal)] == ["pass"]


def test_bids_within_the_budget_stay() -> None:
    game, view = _sentinel_auction("dust10:13")  # 130: up to 120 + 10 payable, 120 + 20 not
    kept = [action_to_string(a) for a in within_budget(view, list(game.legal_actions()))]
    assert kept == ["bid_plus_1", "bid_plus_2", "bid_plus_5", "bid_plus_10", "pass"]


def test_the_agent_passes_without_searching_when_only_ruinous_bids_remain() -> None:
    game, view = _sentinel_auction("dust10:12")
    legal = list(game.legal_actions())
    agent = MCTSAgent(seed=0, iterations=8)
    agent.reset(view.seat, 2)
    assert action_to_string(agent.act(None, view, legal)) == "pass"
    assert agent.last_iterations == 0
    off = MCTSAgent(seed=0, iterations=8, no_ruin=False)
    off.reset(view.seat, 2)
    off.act(None, view, legal)
    assert off.last_iterations > 0  # without the filter it searches the ruinous bids


@pytest.mark.parametrize("flag", ["no_ruin", "avoid_curse", "search_all"])
def test_a_flag_that_is_not_a_bool_is_refused_in_one_line(flag: str) -> None:
    with pytest.raises(ValueError, match=f"{flag} must be true or false") as err:
        make_agent(f"mcts:{flag}=maybe")
    assert "\n" not in str(err.value)
    assert make_agent(f"mcts:{flag}=false")  # a spec's true/false are booleans
