"""The saved text of a ``python_zavandor`` state: one line of JSON, every field checked on load.

OpenSpiel's default serialization of a Python game pickles the state's attributes, and loading
such a string unpickles it: whoever wrote the string runs code in the reader's process.  Our
states are saved as data instead::

    {"format": "zavandor-openspiel-state", "version": 1, "players": 3,
     "deal": [17, 200, 3, 41], "history": [[-1, 17], ..., [0, 22]], "game": {...}}

* ``deal``: the chance outcomes drawn so far (a game is dealt by :data:`DEAL_DRAWS` draws);
* ``history``: OpenSpiel's ``(player, action)`` history of the state (player -1: chance);
* ``game``: the engine game, as a saved game (:meth:`zavandor_env.engine.Game.to_dict`), which
  :meth:`~zavandor_env.engine.Game.from_dict` checks in full; ``null`` while the deal is drawn.

The text is bounded (:data:`MAX_STATE_CHARS`) and parsed by
:func:`~zavandor_env.io.files.parse_json`; anything wrong is one line of
:class:`StateTextError`, which is both OpenSpiel's ``SpielError`` and a ``ValueError``.
Nothing here unpickles, and a string in OpenSpiel's pickled form is refused before it is read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.io.files import UntrustedInputError, parse_json

__all__ = ["DEAL_DRAWS", "DEAL_OUTCOMES", "MAX_STATE_CHARS", "StateRecord", "StateTextError",
           "dump_state", "parse_state", "split_game_and_state"]

FORMAT: Final = "zavandor-openspiel-state"
VERSION: Final = 1
#: The deal: this many chance draws of :data:`DEAL_OUTCOMES` outcomes (a 32-bit deal number).
DEAL_DRAWS: Final = 4
DEAL_OUTCOMES: Final = 256
#: Longest state text accepted.  A state at the engine's cap of 20,000 decisions takes about
#: 220,000 characters (10 per decision: its action in the saved game, its pair in the history).
MAX_STATE_CHARS: Final = 1 << 20
#: What OpenSpiel's own (pickled) form of a Python state starts with.
_PICKLED_TAG: Final = "history="
_KEYS: Final = frozenset({"format", "version", "players", "deal", "history", "game"})
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
# OpenSpiel's section headers (spiel.cc): what pyspiel.deserialize_game_and_state reads.
_META, _GAME, _STATE, _RNG = "[Meta]", "[Game]", "[State]", "[GameRNGState]"


class StateTextError(pyspiel.SpielError, ValueError):  # type: ignore[misc]  # no stubs
    """A state text that is not a ``python_zavandor`` state: one line, caught as OpenSpiel's
    ``SpielError`` (what its loaders raise) or as a ``ValueError`` (what ours raise)."""


@dataclass(frozen=True)
class StateRecord:
    """A parsed state text whose fields have their types and ranges (the engine game is
    checked by :meth:`~zavandor_env.engine.Game.from_dict` when it is built)."""

    deal: tuple[int, ...]
    history: tuple[tuple[int, int], ...]
    game: dict[str, Any] | None


def dump_state(players: int, deal: Sequence[int], history: Sequence[tuple[int, int]],
               game: dict[str, Any] | None) -> str:
    """The one-line text of a state (see the module docstring)."""
    return json.dumps({"format": FORMAT, "version": VERSION, "players": players,
                       "deal": list(deal), "history": [list(pair) for pair in history],
                       "game": game}, separators=(",", ":"))


def _fail(message: str) -> StateTextError:
    return StateTextError(f"python_zavandor state: {message}")


def _is_int(value: Any, lo: int, hi: int) -> bool:
    return type(value) is int and lo <= value < hi


def parse_state(text: Any, players: int, max_history: int) -> StateRecord:
    """The fields of a state text for a game of ``players`` seats whose histories are at
    most ``max_history`` long, or :class:`StateTextError`."""
    if isinstance(text, str) and text.startswith(_PICKLED_TAG):
        raise _fail("this is OpenSpiel's pickled form, which is refused because loading it "
                    "would run code; save states with state.serialize()")
    try:
        data = parse_json(text, what="text", max_bytes=MAX_STATE_CHARS)
    except UntrustedInputError as exc:
        raise _fail(str(exc)) from None
    if not isinstance(data, dict) or set(data) != _KEYS:
        raise _fail(f"must be a JSON object with the keys {sorted(_KEYS)}")
    if data["format"] != FORMAT or data["version"] != VERSION:
        raise _fail(f"not of format {FORMAT!r} version {VERSION}")
    if data["players"] != players or type(data["players"]) is not int:
        raise _fail(f"it is not a state of this {players}-player game")
    deal = _parse_deal(data["deal"])
    history = _parse_history(data["history"], players, max_history)
    game = data["game"]
    if game is None:
        if len(deal) == DEAL_DRAWS or list(history) != [(_CHANCE, d) for d in deal]:
            raise _fail("a state without a game must be one whose deal is being drawn")
    elif not isinstance(game, dict):
        raise _fail("game must be a saved game (a JSON object) or null")
    elif len(deal) not in (0, DEAL_DRAWS):
        raise _fail("a state with a game has a whole deal or none")
    if (list(history[:len(deal)]) != [(_CHANCE, d) for d in deal]
            or any(player == _CHANCE for player, _ in history[len(deal):])):
        raise _fail("the history must start with the deal's draws and hold no other chance "
                    "outcome")
    return StateRecord(deal, history, game)


def _parse_deal(deal: Any) -> tuple[int, ...]:
    if (not isinstance(deal, list) or len(deal) > DEAL_DRAWS
            or not all(_is_int(d, 0, DEAL_OUTCOMES) for d in deal)):
        raise _fail(f"deal must be at most {DEAL_DRAWS} integers from 0 to {DEAL_OUTCOMES - 1}")
    return tuple(deal)


def _parse_history(history: Any, players: int, max_history: int) -> tuple[tuple[int, int], ...]:
    if not isinstance(history, list) or len(history) > max_history:
        raise _fail(f"history must be a list of at most {max_history:,} [player, action] pairs")
    pairs = []
    for pair in history:
        ok = isinstance(pair, list) and len(pair) == 2 and (
            (pair[0] == _CHANCE and _is_int(pair[1], 0, DEAL_OUTCOMES))
            or (_is_int(pair[0], 0, players) and _is_int(pair[1], 0, NUM_ACTIONS)))
        if not ok or type(pair[0]) is not int:
            raise _fail("history must hold [player, action] pairs of a player -1 (chance) to "
                        f"{players - 1} and an action of that player")
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)


def split_game_and_state(text: Any) -> tuple[str, str, str]:
    """``(game string, random-state section, state text)`` of a
    ``serialize_game_and_state`` text, read by the same rules as OpenSpiel's reader: blank
    lines and lines that start with ``#`` are skipped, and sections come in the order
    meta, game, state.  Refuses (one line) what OpenSpiel would refuse, and oversized text."""
    if not isinstance(text, str):
        raise _fail(f"a serialized game and state must be text, got {type(text).__name__}")
    if len(text) > MAX_STATE_CHARS + 4096:  # the state plus a game string and headers
        raise _fail(f"text is larger than {MAX_STATE_CHARS + 4096:,} characters")
    sections: list[list[str]] = [[], [], []]
    current = -1
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        header = {_META: 0, _GAME: 1, _STATE: 2}.get(line)
        if header is not None:
            if header != current + 1:
                raise _fail("sections must be [Meta], [Game], [State] in this order")
            current = header
        elif current < 0:
            raise _fail("text before the [Meta] section")
        else:
            sections[current].append(line)
    game, _, rng = "\n".join(sections[1]).partition(_RNG)
    return game.removesuffix("\n"), rng, "\n".join(sections[2])
