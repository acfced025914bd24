"""``python_zavandor`` as libraries use it, and as a stranger's text reaches it.

* **State strings**: a string in OpenSpiel's pickled form whose payload would create a file is
  refused by ``game.deserialize_state`` and ``pyspiel.deserialize_game_and_state`` before
  anything is unpickled; mutated state strings load as valid states or fail in one line
  (hypothesis, tests/fuzz_budget.py); saving and loading round-trips, also through
  ``copy.deepcopy`` and ``pickle``.
* **Agent spec**: the ``openspiel`` agent refuses, when it is built, a bot it does not know and
  budgets past the ceilings of :mod:`zavandor_env.io.limits` (these run without OpenSpiel).
* **Libraries**: an illegal action is OpenSpiel's ``SpielError`` (and our
  ``IllegalActionError``); Shimmy's ``OpenSpielCompatibilityV0`` passes PettingZoo's
  ``api_test`` (checked on OpenSpiel's connect_four first), ``reset(seed)`` fixes the deal and a
  parameter seed gives other deals; RLlib's ``OpenSpielEnv`` plays the game to the end (skipped
  without the ``[ray]`` extra).
"""

from __future__ import annotations

import base64
import copy
import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz_budget import FUZZ_EXAMPLES, FUZZ_SETTINGS
from tests.hostile import TouchOnUnpickle
from zavandor_env.agents.registry import parse_spec
from zavandor_env.engine.errors import IllegalActionError
from zavandor_env.envs.openspiel import GAME_NAME, OpenSpielAgent
from zavandor_env.io.limits import MAX_ROLLOUTS, MAX_SEARCH_ITERATIONS

NEEDS_OPENSPIEL = 'needs the [openspiel] extra: pip install -e ".[openspiel]"'
NEEDS_RAY = 'needs the [ray] extra: pip install -e ".[ray]"'


@pytest.fixture(scope="module")
def pyspiel() -> Any:
    return pytest.importorskip("pyspiel", reason=NEEDS_OPENSPIEL)


def _dealt(pyspiel: Any, players: int = 2, deal: int = 7, decisions: int = 0) -> Any:
    game = pyspiel.load_game(GAME_NAME, {"players": players})
    state = game.new_initial_state()
    state.draw_deal(deal)
    rng = random.Random(deal)
    for _ in range(decisions):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(0 if 0 in legal and rng.random() < 0.5 else rng.choice(legal))
    return state


def _framed(game_string: str, state_text: str, style: str) -> str:
    """``state_text`` inside a ``serialize_game_and_state`` text, framed as ``style``."""
    if style == "comments":
        return (f"# saved\n\n[Meta]\n# note\nVersion: 1\n[Game]\n\n{game_string}\n# x\n"
                f"[State]\n{state_text}")
    if style == "rng":
        return f"[Meta]\n[Game]\n{game_string}\n[GameRNGState]\n1\n[State]\n{state_text}\n"
    return f"[Meta]\nVersion: 1\n\n[Game]\n{game_string}\n[State]\n{state_text}\n"


def _one_line(error: BaseException) -> None:
    text = str(error)
    assert text and "\n" not in text and len(text) < 400, text


# ---- hostile state strings ---------------------------------------------------------------------
def _pickled_form(marker: Path) -> str:
    """OpenSpiel's form of a Python state, whose attributes would create ``marker``."""
    payload = base64.b64encode(pickle.dumps({"_table": TouchOnUnpickle(marker)})).decode()
    return f"history=\nmove_number=0\n__dict__={payload}"


def test_a_pickled_state_string_runs_nothing_in_deserialize_state(pyspiel: Any,
                                                                  tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    game = pyspiel.load_game(GAME_NAME, {"players": 2})
    with pytest.raises(pyspiel.SpielError, match="pickled form") as info:
        game.deserialize_state(_pickled_form(marker))
    assert isinstance(info.value, ValueError)
    _one_line(info.value)
    assert not marker.exists()


@pytest.mark.parametrize("game_string", ["python_zavandor(players=2)", "python_zavandor()",
                                         "python_zavandor(players=3,seed=4)"])
@pytest.mark.parametrize("style", ["plain", "comments", "rng"])
def test_a_pickled_state_string_runs_nothing_in_deserialize_game_and_state(
        pyspiel: Any, tmp_path: Path, game_string: str, style: str) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(pyspiel.SpielError) as info:
        pyspiel.deserialize_game_and_state(_framed(game_string, _pickled_form(marker), style))
    _one_line(info.value)
    assert not marker.exists()


@pytest.mark.parametrize("transform", ["misere", "zerosum", "cached_tree"])
def test_a_pickled_state_string_runs_nothing_through_a_game_transform(
        pyspiel: Any, tmp_path: Path, transform: str) -> None:
    """OpenSpiel's transforms load a wrapped state by replaying actions, never by unpickling."""
    marker = tmp_path / "pwned"
    text = _framed(f"{transform}(game=python_zavandor())", _pickled_form(marker), "plain")
    with pytest.raises((pyspiel.SpielError, ValueError)) as info:
        pyspiel.deserialize_game_and_state(text)
    _one_line(info.value)
    assert not marker.exists()


def test_other_games_still_load_through_deserialize_game_and_state(pyspiel: Any) -> None:
    game = pyspiel.load_game("connect_four")
    state = game.new_initial_state()
    state.apply_action(3)
    text = pyspiel.serialize_game_and_state(game, state)
    _, copy_ = pyspiel.deserialize_game_and_state(text)
    assert copy_.history() == [3]


# ---- saving and loading ------------------------------------------------------------------------
@pytest.mark.parametrize("draws, decisions", [(0, 0), (2, 0), (4, 0), (4, 30), (4, 3000)])
def test_a_state_round_trips_through_its_text_and_serialize_game_and_state(
        pyspiel: Any, draws: int, decisions: int) -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 3, "seed": 1})
    state = game.new_initial_state()
    for draw in (9, 200, 3, 77)[:draws]:
        state.apply_action(draw)
    rng = random.Random(0)
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    text = state.serialize()
    assert "\n" not in text and json.loads(text)["format"] == "zavandor-openspiel-state"
    for loaded in (game.deserialize_state(text),
                   pyspiel.deserialize_game_and_state(
                       pyspiel.serialize_game_and_state(game, state))[1],
                   copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert type(loaded) is type(state) and loaded is not state
        assert loaded.history() == state.history() and str(loaded) == str(state)
        assert loaded.serialize() == text
        assert loaded.legal_actions() == state.legal_actions()


def test_deepcopy_gives_an_independent_clone(pyspiel: Any) -> None:
    state = _dealt(pyspiel, decisions=5)
    clone = copy.deepcopy(state)
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history()
    assert clone.engine_game.history != state.engine_game.history


def _bases(pyspiel: Any) -> list[str]:
    """State texts to mutate: mid-deal, just dealt, later, finished, and a state built from an
    engine game (as the agent builds them)."""
    from zavandor_env.engine import Game, GameConfig
    from zavandor_env.envs.openspiel import ZavandorState

    game = pyspiel.load_game(GAME_NAME, {"players": 2})
    mid_deal = game.new_initial_state()
    mid_deal.apply_action(5)
    built = ZavandorState(game, Game.new(GameConfig(num_players=2), seed=3))
    return [mid_deal.serialize(), _dealt(pyspiel).serialize(),
            _dealt(pyspiel, decisions=25).serialize(), _dealt(pyspiel, decisions=5000).serialize(),
            built.serialize()]


def _json_values() -> st.SearchStrategy[Any]:
    scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
               | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)


def _mutated(bases: list[str]) -> st.SearchStrategy[str]:
    """Texts from ``bases`` with a JSON field replaced or a stretch of characters rewritten
    (the bases stay out of the strategy's repr, which hypothesis prints)."""
    return st.integers(0, len(bases) - 1).flatmap(
        lambda i: _mutate(bases[i]))  # type: ignore[no-any-return]


@st.composite
def _mutate(draw: st.DrawFn, text: str) -> str:
    if draw(st.booleans()):  # a field anywhere in the JSON replaced by other JSON
        data = json.loads(text)
        node: Any = data
        while True:
            key = draw(st.sampled_from(list(node) if isinstance(node, dict)
                                       else list(range(len(node)))))
            child = node[key]
            if not isinstance(child, (dict, list)) or not child or draw(st.booleans()):
                break
            node = child
        node[key] = draw(_json_values())
        return json.dumps(data, separators=(",", ":"))
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 40)))
    return text[:start] + draw(st.text(max_size=12)) + text[end:]


def _load_or_one_line(pyspiel: Any, load: Any, text: str) -> None:
    try:
        state = load(text)
    except pyspiel.SpielError as exc:
        assert isinstance(exc, ValueError)
        _one_line(exc)
        return
    # A valid state: it answers, and saves to a text that loads to itself.
    assert isinstance(state.is_terminal(), bool)
    if not state.is_terminal():
        assert state.legal_actions()
    assert state.get_game().deserialize_state(state.serialize()).serialize() == state.serialize()


@FUZZ_EXAMPLES
def test_every_mutated_state_string_loads_or_fails_in_one_line(pyspiel: Any,
                                                               examples: int) -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 2})
    bases = _bases(pyspiel)

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(text=_mutated(bases), framed=st.booleans())
    def attack(text: str, framed: bool) -> None:
        if framed:
            _load_or_one_line(pyspiel, lambda t: pyspiel.deserialize_game_and_state(
                _framed(GAME_NAME + "(players=2)", t, "plain"))[1], text)
        else:
            _load_or_one_line(pyspiel, game.deserialize_state, text)

    attack()


def test_oversized_and_non_text_state_strings_fail_in_one_line(pyspiel: Any) -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 2})
    for text in (" " * (2 << 20), "[" * 100_000, '{"format": 1e999}', "",
                 _dealt(pyspiel).serialize().replace('"players":2', '"players":3')):
        with pytest.raises(pyspiel.SpielError) as info:
            game.deserialize_state(text)
        _one_line(info.value)


# ---- the agent spec ----------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"simulations": 10**12}, "simulations must be at most"),
    ({"simulations": 1}, "simulations"),
    ({"simulations": MAX_SEARCH_ITERATIONS + 1}, "simulations"),
    ({"simulations": 0}, "simulations"), ({"simulations": 2.0}, "simulations"),
    ({"simulations": True}, "simulations"),
    ({"rollouts": 10**12}, "rollouts must be at most"),
    ({"rollouts": MAX_ROLLOUTS + 1}, "rollouts"), ({"rollouts": "3"}, "rollouts"),
    ({"uct_c": float("nan")}, "uct_c must be a finite number in"),
    ({"uct_c": float("inf")}, "uct_c"), ({"uct_c": "nan"}, "uct_c"), ({"uct_c": -2.0}, "uct_c"),
    ({"uct_c": True}, "uct_c"), ({"uct_c": None}, "uct_c"),
    ({"bot": "alphazero"}, "bot must be one of ismcts, random"), ({"bot": ["ismcts"]}, "bot"),
])
def test_the_openspiel_agent_refuses_bad_bots_and_budgets_when_built(
        kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        OpenSpielAgent(**kwargs)
    _one_line(info.value)


@pytest.mark.parametrize("spec", ["openspiel:simulations=1000000000000",
                                  "openspiel:rollouts=1000000000000", "openspiel:uct_c=nan",
                                  "openspiel:uct_c=inf", "openspiel:uct_c=1e400"])
def test_an_openspiel_spec_past_the_ceilings_is_refused_when_read(spec: str) -> None:
    with pytest.raises(ValueError, match="simulations|rollouts|uct_c") as info:
        parse_spec(spec).build(0)
    _one_line(info.value)


def test_the_ceilings_themselves_are_accepted(pyspiel: Any) -> None:
    agent = OpenSpielAgent(simulations=MAX_SEARCH_ITERATIONS, rollouts=MAX_ROLLOUTS, uct_c=0)
    assert agent.simulations == MAX_SEARCH_ITERATIONS and agent.rollouts == MAX_ROLLOUTS


# ---- what libraries expect ---------------------------------------------------------------------
def test_an_illegal_action_is_a_spiel_error_and_leaves_the_state(pyspiel: Any) -> None:
    state = _dealt(pyspiel, decisions=3)
    before = state.serialize()
    illegal = max(set(range(state.num_distinct_actions())) - set(state.legal_actions()))
    with pytest.raises(pyspiel.SpielError) as info:
        state.apply_action(illegal)
    assert isinstance(info.value, IllegalActionError)
    assert state.serialize() == before
    fresh = state.get_game().new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="chance outcome"):
        fresh.apply_action(256)
    assert fresh.history() == []


def _shimmy(pyspiel: Any, name: str, config: dict[str, int] | None) -> Any:
    compat = pytest.importorskip("shimmy.openspiel_compatibility",
                                 reason='needs the [integrations] extra (shimmy)')
    return compat.OpenSpielCompatibilityV0(game_name=name, config=config)


# api_test's remarks on Shimmy's unbounded Box, made for every OpenSpiel game (connect_four too).
@pytest.mark.filterwarnings("ignore:Agent's m..imum observation space value is:UserWarning")
@pytest.mark.parametrize(("name", "config"), [("connect_four", None), (GAME_NAME, None),
                                              (GAME_NAME, {"players": 3, "seed": 5})])
def test_pettingzoo_api_test_passes_through_shimmy(pyspiel: Any, name: str,
                                                   config: dict[str, int] | None) -> None:
    from pettingzoo.test import api_test

    api_test(_shimmy(pyspiel, name, config), num_cycles=50)


def _deals(env: Any, seeds: list[int | None]) -> list[int]:
    dealt = []
    for seed in seeds:
        env.reset(seed=seed)
        dealt.append(env.game_state.engine_game.seed)
    return dealt


def test_shimmy_reset_seed_fixes_the_deal(pyspiel: Any) -> None:
    env = _shimmy(pyspiel, GAME_NAME, {"players": 2})
    first = _deals(env, [3, 4, 3])
    assert first[0] == first[2] != first[1]
    assert _deals(_shimmy(pyspiel, GAME_NAME, {"players": 2}), [3, 4]) == first[:2]


def test_a_parameter_seed_gives_different_reproducible_deals_through_shimmy(pyspiel: Any) -> None:
    salted = _deals(_shimmy(pyspiel, GAME_NAME, {"players": 2, "seed": 5}), [0, 1, 2])
    assert len(set(salted)) == 3
    assert _deals(_shimmy(pyspiel, GAME_NAME, {"players": 2, "seed": 5}), [0, 1, 2]) == salted
    assert _deals(_shimmy(pyspiel, GAME_NAME, {"players": 2, "seed": 6}), [0, 1, 2]) != salted
    unseeded = _deals(_shimmy(pyspiel, GAME_NAME, {"players": 2, "seed": 5}), [None] * 3)
    assert len(set(unseeded)) == 3  # not one deal replayed at every reset


@pytest.mark.parametrize(("name", "params"), [("connect_four", {}), (GAME_NAME, {"players": 2})])
def test_rllib_open_spiel_env_plays_to_the_end(pyspiel: Any, name: str,
                                               params: dict[str, int]) -> None:
    pytest.importorskip("ray", reason=NEEDS_RAY)
    wrappers = pytest.importorskip("ray.rllib.env.wrappers.open_spiel", reason=NEEDS_RAY)
    import numpy as np

    np.random.seed(0)  # RLlib draws chance outcomes from NumPy's global generator
    env = wrappers.OpenSpielEnv(pyspiel.load_game(name, params))
    obs, _ = env.reset()
    rng = random.Random(0)
    penalized = False
    for _ in range(20_000):
        [player] = obs
        legal = env.state.legal_actions()
        illegal = sorted(set(range(env.env.num_distinct_actions())) - set(legal))
        if illegal and not penalized:  # RLlib catches the SpielError and plays a legal move
            action, penalized = illegal[0], True
        else:
            action = rng.choice(legal)
        obs, rewards, terminateds, _, _ = env.step({player: action})
        if terminateds["__all__"]:
            break
    assert env.state.is_terminal()
    assert sum(env.state.returns()) == pytest.approx(0.0)
    assert penalized or name == "connect_four"


def _texts(pyspiel: Any, decisions: int = 12) -> tuple[Any, dict[str, Any]]:
    game = pyspiel.load_game(GAME_NAME, {"players": 2, "seed": 1})
    state = game.new_initial_state()
    for draw in (9, 200, 3, 77):
        state.apply_action(draw)
    rng = random.Random(0)
    while len(state.history()) < 4 + decisions and not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return game, json.loads(state.serialize())


@pytest.mark.parametrize("change, match", [
    (lambda d: d["history"].append([0, d["history"][-1][1]]), "not its game's"),
    (lambda d: d["history"].pop(), "not its game's"),
    (lambda d: d["game"]["state"]["config"].update(max_decisions=500), "max_decisions=500"),
    (lambda d: d["game"]["state"]["config"].update(allow_overbid=False), "allow_overbid=False"),
    (lambda d: d.update(deal=[9, 200, 3, 78], history=[[-1, 9], [-1, 200], [-1, 3], [-1, 78],
                                                      *d["history"][4:]]), "seed is not"),
])
def test_a_state_text_whose_parts_disagree_is_refused_as_a_spiel_error(
        pyspiel: Any, change: Any, match: str) -> None:
    """Each part is valid alone (a history of actions, a saved game, a deal); together they
    must describe one state of this game: the history is the game's decisions, the game is
    played under this game's rules, and its seed is the deal's."""
    from zavandor_env.envs.openspiel_text import StateTextError

    game, data = _texts(pyspiel)
    game.deserialize_state(json.dumps(data))  # as saved: accepted
    change(data)
    with pytest.raises(pyspiel.SpielError, match=match) as info:
        game.deserialize_state(json.dumps(data))
    assert isinstance(info.value, StateTextError) and "\n" not in str(info.value)
