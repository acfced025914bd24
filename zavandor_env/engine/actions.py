"""The flat action index space: one ``Discrete(NUM_ACTIONS)``, the same for 2-6 players.

Actions come in named, contiguous blocks; every index has a readable name, and
``string_to_action(action_to_string(a)) == a`` for every ``a``::

    0       end_turn                     finish this turn's activities (phase 3)
    1       end_block                    close the open gem/knowledge/auction block
    2-6     buy_<gem>                    buy an opal/sapphire/emerald/diamond/ruby
    7-11    sell_<gem>                   sell one (inactive first); also pays an auction debt
    12-16   activate_<gem>               move an inactive gem onto the magic spiral
    17-21   deactivate_<gem>             move an active gem to the pentagon
    22-26   buy_chip_<cost>              buy the knowledge chip costing 20/25/30/35/40
    27-32   advance_<field>              paid advance; in a free-level decision, the free one
    33-44   open_<artifact>              open an auction on a displayed artifact
    45-53   open_<sentinel>              open an auction on a remaining sentinel
    54-60   bid_plus_<k>                 bid the high bid + k (opening: the minimum + k), k in
                                         0 (opening bid only), 1, 2, 5, 10, 20, 50
    61      pass                         leave the auction (final)
    62-66   lose_<gem>                   Mirror/Cloak victim: return an active gem of this kind
"""

from __future__ import annotations

import operator
from typing import Final, SupportsIndex

from zavandor_env.engine.data import (
    CHIP_COSTS,
    FIELD_NAMES,
    GEM_NAMES,
    NUM_ARTIFACT_TYPES,
    NUM_CHIPS,
    NUM_FIELDS,
    NUM_GEMS,
    NUM_SENTINELS,
)
from zavandor_env.engine.names import ARTIFACT_NAMES, SENTINEL_NAMES

BID_RAISES: Final = (0, 1, 2, 5, 10, 20, 50)

END_TURN: Final = 0
END_BLOCK: Final = 1
BUY_GEM: Final = 2
SELL_GEM: Final = BUY_GEM + NUM_GEMS
ACTIVATE: Final = SELL_GEM + NUM_GEMS
DEACTIVATE: Final = ACTIVATE + NUM_GEMS
BUY_CHIP: Final = DEACTIVATE + NUM_GEMS
ADVANCE: Final = BUY_CHIP + NUM_CHIPS
OPEN_ARTIFACT: Final = ADVANCE + NUM_FIELDS
OPEN_SENTINEL: Final = OPEN_ARTIFACT + NUM_ARTIFACT_TYPES
BID: Final = OPEN_SENTINEL + NUM_SENTINELS
PASS: Final = BID + len(BID_RAISES)
LOSE_GEM: Final = PASS + 1
NUM_ACTIONS: Final = LOSE_GEM + NUM_GEMS

# (block name, first index, size, per-index suffixes)
ACTION_BLOCKS: Final = (
    ("end_turn", END_TURN, 1, ("",)),
    ("end_block", END_BLOCK, 1, ("",)),
    ("buy", BUY_GEM, NUM_GEMS, GEM_NAMES),
    ("sell", SELL_GEM, NUM_GEMS, GEM_NAMES),
    ("activate", ACTIVATE, NUM_GEMS, GEM_NAMES),
    ("deactivate", DEACTIVATE, NUM_GEMS, GEM_NAMES),
    ("buy_chip", BUY_CHIP, NUM_CHIPS, tuple(str(c) for c in CHIP_COSTS)),
    ("advance", ADVANCE, NUM_FIELDS, FIELD_NAMES),
    # Item names come from the one table the scenario notation uses too (names.py).
    ("open", OPEN_ARTIFACT, NUM_ARTIFACT_TYPES, ARTIFACT_NAMES),
    ("open", OPEN_SENTINEL, NUM_SENTINELS, SENTINEL_NAMES),
    ("bid_plus", BID, len(BID_RAISES), tuple(str(k) for k in BID_RAISES)),
    ("pass", PASS, 1, ("",)),
    ("lose", LOSE_GEM, NUM_GEMS, GEM_NAMES),
)


def _build_names() -> tuple[str, ...]:
    names = [""] * NUM_ACTIONS
    for block, first, size, suffixes in ACTION_BLOCKS:
        for i in range(size):
            names[first + i] = f"{block}_{suffixes[i]}" if suffixes[i] else block
    assert all(names) and len(set(names)) == NUM_ACTIONS
    return tuple(names)


ACTION_NAMES: Final = _build_names()
_ACTION_BY_NAME: Final = {name: i for i, name in enumerate(ACTION_NAMES)}


def as_action_index(action: object) -> int:
    """``action`` as a plain int: Python and NumPy integers pass; bools, floats and anything
    else give -1, which is never a legal action (a policy's ``True`` must not mean 1)."""
    if type(action) is int:
        return action
    if isinstance(action, bool):
        return -1
    try:
        return operator.index(action)  # type: ignore[arg-type]  # NumPy ints pass
    except TypeError:  # NumPy bools, floats, anything else
        return -1


def action_to_string(action: SupportsIndex) -> str:
    """Readable name of an action index, e.g. ``"buy_sapphire"`` or ``"bid_plus_5"``."""
    index = as_action_index(action)
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action must be an integer in [0, {NUM_ACTIONS}), got {action!r}")
    return ACTION_NAMES[index]


def string_to_action(name: str) -> int:
    """Index of a readable action name (the inverse of :func:`action_to_string`)."""
    if not isinstance(name, str):
        raise ValueError(f"action name must be a string, got {name!r}")
    try:
        return _ACTION_BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown action name {name!r}") from None


def action_block(action: int) -> str:
    """Name of the block an action index belongs to (``"buy"``, ``"bid_plus"``, ...)."""
    for block, first, size, _ in ACTION_BLOCKS:
        if first <= action < first + size:
            return block
    raise ValueError(f"action must be in [0, {NUM_ACTIONS}), got {action!r}")
