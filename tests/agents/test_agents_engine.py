"""The removed ``engine`` choice, and the one implementation of every scripted bot.

* A saved spec that names ``engine=`` (any of the old ``auto``/``native``/``python``) still
  builds and plays exactly as the plain spec, with one one-line ``DeprecationWarning`` per
  process; a value the parameter never took is still refused; the command-line help no longer
  offers the choice.
* Every scripted bot decides in the native core, on a core game and on a game of the Python
  rules (the oracle) alike: the same seeds give the same games on both.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from tests.bot_helpers import new_game, play_out
from zavandor_env.agents import spec_params
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.mcts import MCTSAgent
from zavandor_env.agents.novice import NoviceAgent
from zavandor_env.agents.registry import AgentSpecError, make_agent, parse_spec
from zavandor_env.cli import build_parser
from zavandor_env.engine import GameConfig

OLD_SPECS = ["heuristic:engine=python", "novice:engine=native,blunder=0.1",
             "mcts:engine=auto,iterations=4"]


def _decisions(spec: str) -> list[int]:
    agents = [make_agent(spec), make_agent("planner")]
    return play_out(new_game(GameConfig(num_players=2), 3), agents, 1)


@pytest.mark.parametrize("spec", OLD_SPECS)
def test_an_old_engine_spec_plays_like_the_plain_spec_and_warns_once(
        spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spec_params, "_engine_warned", False)
    plain = spec.replace("engine=python", "").replace("engine=native,", "").replace(
        "engine=auto,", "").rstrip(":")
    with pytest.warns(DeprecationWarning, match="engine=.* is ignored") as caught:
        old = _decisions(spec)
        make_agent(spec)  # a second agent in the same process: no second warning
    assert len([w for w in caught if w.category is DeprecationWarning]) == 1
    assert "\n" not in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the plain spec warns nothing
        assert _decisions(plain) == old


@pytest.mark.parametrize("build", [
    lambda e: HeuristicAgent(engine=e), lambda e: NoviceAgent(engine=e),
    lambda e: MCTSAgent(engine=e)])
def test_an_engine_value_it_never_took_is_refused(build: Any) -> None:
    with pytest.raises(ValueError, match="engine must be 'auto', 'native' or 'python'"):
        build("gpu")
    with pytest.raises(AgentSpecError, match="engine"):
        parse_spec("heuristic:engine=gpu")


def test_the_spec_help_no_longer_offers_an_engine_choice() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command in ("eval", "play", "scorecard", "ladder", "serve"):
        text = sub.choices[command].format_help()  # type: ignore[union-attr]
        assert "engine" not in text, command


@pytest.mark.parametrize("spec", ["heuristic", "novice:blunder=0.2", "naive", "planner",
                                  "mcts:iterations=4", "mcts:iterations=4,policy=heuristic"])
def test_every_bot_plays_an_oracle_game_as_it_plays_a_core_one(spec: str) -> None:
    config = GameConfig(num_players=3)
    agents = [make_agent(spec), make_agent("planner"), make_agent(spec)]
    on_oracle = play_out(new_game(config, 5, oracle=True), agents, 4)
    assert on_oracle == play_out(new_game(config, 5), agents, 4)
