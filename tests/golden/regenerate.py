"""Rewrite the golden replays in this folder.

Run ONLY after a deliberate change of the rules (or of the saved-state format, whose hash the
goldens record), never to make a failing test pass: a golden replay that changes outcome
without a rule change means the engine's behaviour drifted.  Review the diff of the JSON
files (scores, winners, rounds) and say in the commit which rule change moved them.

    python tests/golden/regenerate.py

Each file holds one game of the thrifty test policy played to the real end (>= 5 sentinels):
its replay record (config, seed, decisions) and the outcome to compare against.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository root, for `tests.policies`

from tests.policies import ThriftyPolicy, play
from zavandor_env.engine import Game, GameConfig

# (file stem, config options, seed): 2, 4 and 6 players; one game with chosen characters and
# the non-default rule options, so the goldens also pin those rules down.
GAMES: tuple[tuple[str, dict[str, Any], int], ...] = (
    ("2p_seed101", {"num_players": 2}, 101),
    ("4p_seed202", {"num_players": 4}, 202),
    ("6p_seed303", {"num_players": 6}, 303),
    (
        "4p_seed404_options",
        {
            "num_players": 4,
            "characters": ["druid", "fairy", "witch", "kobold"],
            "one_value_dust": True,
            "catchup_small_games": True,
        },
        404,
    ),
)


def state_hash(game: Game) -> str:
    """SHA-256 of the final state's JSON (RNG and history included)."""
    return hashlib.sha256(game.to_json().encode()).hexdigest()


def outcome(game: Game) -> dict[str, Any]:
    """What a golden file pins down besides the replay record itself."""
    return {
        "terminated": game.terminated,
        "rounds": game.state.round,
        "scores": game.scores(),
        "winners": game.winners(),
        "num_decisions": game.state.num_decisions,
        "state_sha256": state_hash(game),
    }


def build(options: dict[str, Any], seed: int) -> dict[str, Any]:
    game = Game.new(GameConfig(**options), seed=seed)
    play(game, ThriftyPolicy(seed))
    if not game.terminated:
        raise SystemExit(f"seed {seed} {options} did not reach the real end; pick another seed")
    return {"replay": game.replay_record(), "outcome": outcome(game)}


def dump(record: dict[str, Any]) -> str:
    """Indented JSON with the decision list on one line (a readable diff on regeneration)."""
    actions = record["replay"]["actions"]
    shown = {**record, "replay": {**record["replay"], "actions": "@ACTIONS@"}}
    text = json.dumps(shown, indent=1).replace('"@ACTIONS@"', json.dumps(actions))
    return text + "\n"


def main() -> None:
    for stem, options, seed in GAMES:
        path = HERE / f"{stem}.json"
        record = build(options, seed)
        path.write_text(dump(record))
        o = record["outcome"]
        print(f"{path.name}: {o['rounds']} rounds, scores {o['scores']}, winners {o['winners']}")


if __name__ == "__main__":
    main()
