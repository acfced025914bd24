"""The shipped policies load and play exactly as they did when they shipped.

The project promises that the ``train/checkpoints/*/policy.npz`` files keep loading and playing
the same moves whatever changes around them (the observation encoder, the ``.npz`` loader, the
agent, the engine).  ``tests/golden/policies/shipped.json`` pins, per checkpoint, the file's
SHA-256 and one greedy self-play game on a fixed deal: every seat that checkpoint's policy, the
default rules of its player count.  A failure names the checkpoint and what moved.

Entries are never rewritten.  A newly shipped checkpoint gets its entry with

    python tests/agents/test_shipped_policies_play_as_recorded.py NAME [NAME ...]

which refuses to touch an entry that exists (the file's diff then shows only the new lines).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":  # run as a script: the repository root holds `zavandor_env`
    sys.path.insert(0, str(ROOT))

from tests.golden.regenerate import dump  # noqa: E402  (flat lists on one line)
from zavandor_env.agents import PolicyAgent  # noqa: E402
from zavandor_env.engine import GameConfig  # noqa: E402
from zavandor_env.eval.match import play_game  # noqa: E402

CHECKPOINTS = ROOT / "train" / "checkpoints"
GOLDEN = ROOT / "tests" / "golden" / "policies" / "shipped.json"
DEAL_SEED = 20261204  # the deal every recorded game is played on


def _players(name: str) -> int:
    """The player count a checkpoint was trained for (its folder name ends ``_<n>p``)."""
    return int(name.rsplit("_", 1)[1].removesuffix("p"))


def record(name: str) -> dict[str, Any]:
    """What the golden file pins for checkpoint ``name``: the file's hash and its game."""
    path = CHECKPOINTS / name / "policy.npz"
    players = _players(name)
    agents = [PolicyAgent(path, seed=seat) for seat in range(players)]
    decisions: list[int] = []
    result = play_game(
        agents,
        seed=DEAL_SEED,
        config=GameConfig(num_players=players),
        on_decision=lambda _game, _seat, action: decisions.append(action),
    )
    return {
        "players": players,
        "policy_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "deal_seed": DEAL_SEED,
        "num_decisions": len(decisions),
        "actions_sha256": hashlib.sha256(json.dumps(decisions).encode()).hexdigest(),
        "first_actions": decisions[:20],
        "scores": list(result.scores),
    }


def _golden() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(GOLDEN.read_text())
    return data


def test_every_shipped_checkpoint_has_a_recorded_game() -> None:
    shipped = sorted(p.parent.name for p in CHECKPOINTS.glob("*/policy.npz"))
    assert shipped, "no checkpoints found"
    assert sorted(_golden()) == shipped, (
        "tests/golden/policies/shipped.json must hold exactly the shipped checkpoints; add a "
        "new one with `python tests/agents/test_shipped_policies_play_as_recorded.py NAME`"
    )


@pytest.mark.parametrize("name", sorted(_golden()) if GOLDEN.is_file() else [])
def test_the_shipped_policy_is_unchanged_and_plays_its_recorded_game(name: str) -> None:
    expected = _golden()[name]
    actual = record(name)
    assert actual["policy_sha256"] == expected["policy_sha256"], (
        f"{name}/policy.npz changed: a shipped policy file must never be rewritten"
    )
    for key in ("first_actions", "num_decisions", "actions_sha256", "scores"):
        assert actual[key] == expected[key], (
            f"{name} no longer plays its recorded game ({key} differs): the encoder, the "
            f"loader, the agent or the rules changed what a shipped policy does"
        )


def main(names: list[str]) -> None:
    golden = _golden() if GOLDEN.is_file() else {}
    for name in names:
        if name in golden:
            raise SystemExit(f"{name} is recorded already; recorded entries are never rewritten")
        if not (CHECKPOINTS / name / "policy.npz").is_file():
            raise SystemExit(f"no checkpoint {str(CHECKPOINTS / name)!r}")
        golden[name] = record(name)
        print(f"{name}: {golden[name]['num_decisions']} decisions, "
              f"scores {golden[name]['scores']}")
    GOLDEN.write_text(dump(dict(sorted(golden.items()))))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        raise SystemExit(f"usage: python {Path(__file__).name} CHECKPOINT_NAME [...]")
    main(sys.argv[1:])
