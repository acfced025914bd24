"""Rewrite the golden replays in this folder.

Run ONLY after a deliberate change of the rules (or of the saved-state format, whose hash the
goldens record), never to make a failing test pass: a golden replay that changes outcome
without a rule change means the engine's behaviour drifted.  Review the diff of the JSON
files (scores, winners, rounds) and say in the commit which rule change moved them.

    python -m zavandor_env.codegen --only golden   (or plain: every derived artifact)

Each file holds one game of the thrifty test policy played to the real end (>= 5 sentinels):
its replay record (config, seed, decisions), the outcome to compare against (with the record
of every purchase: who won which item for what bid and what price), and the observations of
the deciding seat at three fixed decisions (a hash of the float32 vector plus a few decoded
fields, so a failure says which field moved).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository root, for `tests.policies`

from tests.policies import ThriftyPolicy, play  # noqa: E402 (after the path insert)
from zavandor_env.encoding.observation import ObservationEncoder, decode  # noqa: E402
from zavandor_env.engine import Game, GameConfig  # noqa: E402

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
            "allow_overbid": False,  # the affordability filter of the training configs
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
        "purchases": [list(record) for record in game.state.purchases],
        "state_sha256": state_hash(game),
    }


# Decoded observation fields pinned beside the hash: global, the observer's seat, his hand.
PINNED_FIELDS = (
    "round", "phase", "block", "high_bid", "display", "sentinel_available", "gem_supply",
    "player0.active_gems", "player0.levels", "player0.artifacts", "player0.vp",
    "player0.cards", "player0.dust", "player1.active_gems", "player1.vp",
    "me.hand_value", "me.liquid", "me.max_payable", "me.price_at_high_bid",
)


def pin_decisions(num_actions: int) -> list[int]:
    """The three decisions whose observations a golden file pins: early, middle, last."""
    return [num_actions // 10, num_actions // 2, num_actions - 1]


def observation_pin(game: Game, decision: int, encoder: ObservationEncoder) -> dict[str, Any]:
    """The deciding seat's observation before ``decision``: its SHA-256 (little-endian
    float32 bytes) and :data:`PINNED_FIELDS` decoded, rounded to 4 decimals."""
    seat = game.current_player
    obs = encoder.encode(game.state, seat)
    named = decode(obs)
    return {
        "decision": decision,
        "seat": seat,
        "obs_sha256": hashlib.sha256(obs.astype("<f4").tobytes()).hexdigest(),
        "decoded": {
            name: [round(float(x), 4) for x in named[name]] for name in PINNED_FIELDS
        },
    }


def observation_pins(replay: dict[str, Any], decisions: list[int]) -> list[dict[str, Any]]:
    """Replay ``replay`` and pin the observation before each of ``decisions``."""
    game = Game.new(GameConfig.from_dict(replay["config"]), seed=replay["seed"])
    encoder = ObservationEncoder()
    pins = []
    for index, action in enumerate(replay["actions"]):
        if index in decisions:
            pins.append(observation_pin(game, index, encoder))
        game.apply(action)
    return pins


def build(options: dict[str, Any], seed: int) -> dict[str, Any]:
    game = Game.new(GameConfig(**options), seed=seed)
    play(game, ThriftyPolicy(seed))
    if not game.terminated:
        raise SystemExit(f"seed {seed} {options} did not reach the real end; pick another seed")
    replay = game.replay_record()
    pins = observation_pins(replay, pin_decisions(len(replay["actions"])))
    return {"replay": replay, "outcome": outcome(game), "observations": pins}


_FLAT_LIST = re.compile(r"\[[^\[\]{}]*\]")  # a list holding no list or object


def dump(record: dict[str, Any]) -> str:
    """Indented JSON with every flat list on one line (a readable diff on regeneration)."""
    text = json.dumps(record, indent=1)
    return _FLAT_LIST.sub(lambda m: json.dumps(json.loads(m.group())), text) + "\n"


def golden_files() -> dict[Path, str]:
    """Every golden file's path and the text it must hold (``python -m zavandor_env.codegen``
    compares or writes them)."""
    return {HERE / f"{stem}.json": dump(build(options, seed)) for stem, options, seed in GAMES}


def main() -> None:
    for path, text in golden_files().items():
        path.write_text(text)
        o = json.loads(text)["outcome"]
        print(f"{path.name}: {o['rounds']} rounds, scores {o['scores']}, winners {o['winners']}")


if __name__ == "__main__":
    main()
