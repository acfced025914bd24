"""The ``engine`` choice of the agents with a C++ port (heuristic, novice, mcts).

* ``heuristic:engine=python`` makes ``zavandor eval`` play the code in agents/heuristic.py: an
  edit of its ``choose`` (here a monkeypatch) changes the games; ``engine=native`` plays the
  C++ port, which the edit does not reach, and ``engine=auto`` (the default) is the port on a
  native game;
* ``engine=native`` where the port cannot run is a one-line error, at construction (no core)
  or at the decision (a Python game);
* a bad engine name is refused by every agent that takes one, and the spec help names it.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from zavandor_env.agents import heuristic as H
from zavandor_env.agents.heuristic import EngineUnavailableError, HeuristicAgent
from zavandor_env.agents.match import play_game
from zavandor_env.agents.mcts import MCTSAgent
from zavandor_env.agents.novice import NoviceAgent
from zavandor_env.agents.registry import AgentSpecError, make_agent
from zavandor_env.cli import build_parser, main
from zavandor_env.engine import native_available
from zavandor_env.engine.actions import END_TURN, PASS

needs_native = pytest.mark.skipif(not native_available(), reason="needs the native core")


def _eval(tmp_path: Path, name: str, spec: str) -> list[dict[str, Any]]:
    """The per-game rows of ``zavandor eval`` with ``spec`` (labelled h) against random,
    timings left out."""
    out = tmp_path / name
    code = main(["eval", "--agents", f"{spec},label=h", "random", "--games", "4", "--seed", "3",
                 "--workers", "1", "--out", str(out), "--no-chart", "--quiet"])
    assert code == 0
    with open(out / "games.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return [{k: v for k, v in row.items() if "second" not in k} for row in rows]


def _idle_choose(calls: list[int]) -> Any:
    """A stand-in for heuristic.choose that ends every turn and passes every auction."""

    def choose(view: Any, legal: Any, w: Any) -> int:
        calls.append(1)
        return END_TURN if END_TURN in legal else (PASS if PASS in legal else legal[0])

    return choose


@needs_native
def test_an_edit_of_the_python_heuristic_changes_eval_only_with_engine_python(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _eval(tmp_path, "before", "heuristic:engine=python")
    assert before == _eval(tmp_path, "native", "heuristic:engine=native")  # same play
    calls: list[int] = []
    monkeypatch.setattr(H, "choose", _idle_choose(calls))
    edited = _eval(tmp_path, "edited", "heuristic:engine=python")
    assert calls and edited != before
    calls.clear()
    assert _eval(tmp_path, "native-edited", "heuristic:engine=native") == before
    assert _eval(tmp_path, "auto-edited", "heuristic:engine=auto") == before
    assert not calls  # the port decided every move on the native games


@needs_native
def test_engine_native_on_a_python_game_is_a_one_line_error() -> None:
    agents = [HeuristicAgent(engine="native"), HeuristicAgent()]
    with pytest.raises(EngineUnavailableError, match="Python backend") as info:
        play_game(agents, seed=1, backend="python")
    assert "\n" not in str(info.value)
    # auto and python play a Python game without complaint
    play_game([HeuristicAgent(engine="auto"), HeuristicAgent(engine="python")], seed=1,
              backend="python")


def test_engine_native_without_the_core_is_a_one_line_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(H, "native_available", lambda: False)
    monkeypatch.setattr(H, "native_status", lambda: "it was not built")
    with pytest.raises(EngineUnavailableError, match="needs the native core") as info:
        HeuristicAgent(engine="native")
    assert "\n" not in str(info.value)
    with pytest.raises(AgentSpecError, match="engine=python"):  # as eval reports it
        _check("novice:engine=native")
    assert HeuristicAgent(engine="python").engine == "python"


def _check(spec: str) -> None:
    from zavandor_env.agents.registry import parse_spec
    from zavandor_env.agents.tournament import TournamentConfig, check_agents

    check_agents(TournamentConfig(agents=[parse_spec(spec), parse_spec("random")]))


@pytest.mark.parametrize("build", [
    lambda e: HeuristicAgent(engine=e), lambda e: NoviceAgent(engine=e),
    lambda e: MCTSAgent(engine=e)])
def test_a_bad_engine_name_is_refused(build: Any) -> None:
    with pytest.raises(ValueError, match="engine must be 'auto', 'native' or 'python'"):
        build("gpu")


def test_the_default_engine_is_auto() -> None:
    assert HeuristicAgent().engine == NoviceAgent().engine == "auto"
    assert make_agent("heuristic:engine=python").engine == "python"  # type: ignore[attr-defined]


def test_the_spec_help_names_the_engine_choice() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command in ("eval", "play", "scorecard"):
        text = sub.choices[command].format_help()  # type: ignore[union-attr]
        assert "engine=auto|native|python" in " ".join(text.split()), command
