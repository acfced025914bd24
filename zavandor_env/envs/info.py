"""What a step's ``info`` says about the result: only values every RL library can batch.

Replay buffers (Tianshou, TorchRL) and vector wrappers stack ``info`` dicts key by key across
steps, so a key that appears only on the last step, or holds a Python object, breaks them
(Tianshou pads the missing rows with ``None`` and refuses the buffer).  Every step's ``info``
therefore carries the same result keys, with NumPy values, whether the game is running or
over (:data:`RESULT_KEYS`):

* ``game_over`` (bool): the episode has ended, by the rules, by a safety limit or by an
  illegal action;
* ``terminated`` / ``truncated`` (bool): the game ended by the rules / was cut off by a safety
  limit (both false while it runs, and after an illegal action);
* ``illegal_action`` (bool): this agent's illegal action ended the game;
* ``scores`` (int32[P]), ``ranks`` (int32[P]), ``winners`` (int8[P], 1 for each seat that won
  by the rules), ``rounds`` (int): the result, all zeros while the game runs.

The rich :class:`~zavandor_env.engine.outcome.Outcome` (``describe()``, ``won(seat)``) is not
in ``info``: ask the environment, ``env.unwrapped.outcome()``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.outcome import Outcome

#: The result keys of every step's ``info`` (see the module docstring).
RESULT_KEYS = ("game_over", "terminated", "truncated", "illegal_action", "scores", "ranks",
               "winners", "rounds")


def running_info(num_players: int) -> dict[str, Any]:
    """The result keys of a step whose game is still running.  Every call makes new arrays:
    the caller keeps what a step returns (Gymnasium's ``check_env`` refuses infos of two
    calls that share an object)."""
    zeros = np.zeros(num_players, np.int32)
    return {"game_over": False, "terminated": False, "truncated": False,
            "illegal_action": False, "scores": zeros, "ranks": zeros.copy(),
            "winners": np.zeros(num_players, np.int8), "rounds": 0}


def result_info(outcome: Outcome, illegal_action: bool = False) -> dict[str, Any]:
    """The result keys of the step that ends a game with ``outcome``; ``illegal_action``:
    this agent's illegal action ended it (the outcome is then that of the unfinished game)."""
    winners = np.zeros(outcome.num_players, np.int8)
    winners[list(outcome.winners)] = 1
    return {
        "game_over": True, "terminated": outcome.terminated, "truncated": outcome.truncated,
        "illegal_action": illegal_action,
        "scores": np.array(outcome.scores, np.int32),
        "ranks": np.array(outcome.ranks, np.int32),
        "winners": winners,
        "rounds": outcome.rounds,
    }
