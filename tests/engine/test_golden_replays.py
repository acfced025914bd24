"""Golden replays: recorded games whose outcome may change only with a rule change.

Each file in ``tests/golden`` holds a replay record (config, seed, decisions) of a game played
to the real end, its outcome (rounds, scores, winners, every purchase with its bid and price,
and a hash of the final state) and the deciding seat's observation at three fixed decisions
(a hash of the float32 vector and a few decoded fields).  A failure here means the engine now
plays those decisions differently, or the observation encoder now encodes them differently.
If that follows a deliberate change of the rules (or of the observation layout), run
``python -m zavandor_env.codegen`` (or ``--only golden``) and review the diff; otherwise it is
a regression.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden.regenerate import (
    GAMES,
    PINNED_FIELDS,
    dump,
    observation_pins,
    outcome,
    pin_decisions,
    state_hash,
)
from zavandor_env.engine import Game

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FILES = sorted(GOLDEN.glob("*.json"))


def test_every_listed_golden_exists_and_no_stray_one() -> None:
    assert [p.stem for p in FILES] == sorted(stem for stem, _, _ in GAMES)
    players = {json.loads(p.read_text())["replay"]["config"]["num_players"] for p in FILES}
    assert {2, 4, 6} <= players


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_replay_reproduces_its_outcome(path: Path) -> None:
    record = json.loads(path.read_text())
    expected = record["outcome"]
    game = Game.from_replay_record(record["replay"])
    assert game.terminated and expected["terminated"]
    # Compared one by one so that a failure says what moved before the hash does.
    assert game.state.round == expected["rounds"]
    assert game.scores() == expected["scores"]
    assert game.winners() == expected["winners"]
    assert game.state.num_decisions == expected["num_decisions"]
    assert [list(p) for p in game.state.purchases] == expected["purchases"]
    assert state_hash(game) == expected["state_sha256"]
    assert outcome(game) == expected


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_replay_reproduces_its_pinned_observations(path: Path) -> None:
    record = json.loads(path.read_text())
    expected = record["observations"]
    decisions = [pin["decision"] for pin in expected]
    assert decisions == pin_decisions(len(record["replay"]["actions"]))
    actual = observation_pins(record["replay"], decisions)
    for got, want in zip(actual, expected, strict=True):
        assert (got["decision"], got["seat"]) == (want["decision"], want["seat"])
        # Field by field first, so a failure names what moved before the hash does.
        for name in PINNED_FIELDS:
            assert got["decoded"][name] == want["decoded"][name], (want["decision"], name)
        assert got["obs_sha256"] == want["obs_sha256"], want["decision"]


def test_golden_purchases_record_prices_paid() -> None:
    # Across the goldens some price differs from its bid (modifiers or discounts applied).
    records = [
        r for p in FILES for r in json.loads(p.read_text())["outcome"]["purchases"]
    ]
    assert records and any(bid != price for *_, bid, price in records)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_file_is_in_canonical_form(path: Path) -> None:
    # The files are written by regenerate.py only; a hand edit would show here.
    assert path.read_text() == dump(json.loads(path.read_text()))
