"""What a step's ``info`` says about the result: only values every RL library can batch.

Replay buffers (Tianshou, TorchRL) and vector wrappers stack ``info`` dicts key by key across
steps, so a key that appears only on the last step, or holds a Python object, breaks them
(Tianshou pads the missing rows with ``None`` and refuses the buffer).  Every step's ``info``
therefore carries the same result keys, with batchable values, whether the game is running or
over (:data:`RESULT_KEYS`):

* ``game_over`` (bool): the episode has ended, by the rules, by a safety limit or by an
  illegal action;
* ``terminated`` / ``truncated`` (bool): the game ended by the rules / was cut off by a safety
  limit (both false while it runs, and after an illegal action);
* ``illegal_action`` (bool): this agent's illegal action ended the game;
* ``scores`` (int32[P]), ``ranks`` (int32[P]), ``winners`` (int8[P], 1 for each seat that won
  by the rules), ``rounds`` (int): the result, all zeros while the game runs.

Flags are Python ``bool`` and counts Python ``int`` (never NumPy scalars, which Gymnasium's
vector envs would batch as object arrays); the dtype rule of every face is in
:mod:`.contract`.

The rich :class:`~zavandor_env.engine.outcome.Outcome` (``describe()``, ``won(seat)``) is not
in ``info``: ask the environment, ``env.unwrapped.outcome()``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zavandor_env.engine.outcome import Outcome

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
        "game_over": True, "terminated": bool(outcome.terminated),
        "truncated": bool(outcome.truncated), "illegal_action": bool(illegal_action),
        "scores": np.array(outcome.scores, np.int32),
        "ranks": np.array(outcome.ranks, np.int32),
        "winners": winners,
        "rounds": int(outcome.rounds),
    }


# ---- batched (vector faces) -----------------------------------------------------------------
def batched_values(masks: np.ndarray, seats: np.ndarray, num_players: int) -> dict[str, Any]:
    """The info of ``N`` running games as Gymnasium's ``SyncVectorEnv`` batches
    :func:`running_info` plus ``action_mask`` and ``seat``: ``action_mask`` int8[N, A],
    ``seat`` and ``rounds`` int64[N], flags bool[N], ``scores`` / ``ranks`` int32[N, P],
    ``winners`` int8[N, P] (new arrays; :func:`with_presence` adds the ``_key`` masks)."""
    n = len(seats)
    return {
        "action_mask": masks.astype(np.int8), "seat": seats.astype(np.int64),
        "game_over": np.zeros(n, bool), "terminated": np.zeros(n, bool),
        "truncated": np.zeros(n, bool), "illegal_action": np.zeros(n, bool),
        "scores": np.zeros((n, num_players), np.int32),
        "ranks": np.zeros((n, num_players), np.int32),
        "winners": np.zeros((n, num_players), np.int8), "rounds": np.zeros(n, np.int64),
    }


def with_presence(values: dict[str, Any], present: np.ndarray) -> dict[str, Any]:
    """``values`` with Gymnasium's ``_key`` mask (a copy of ``present``) after each key."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        out[key] = value
        out[f"_{key}"] = present.copy()
    return out


def fill_result(info: dict[str, Any], row: int, outcome: Outcome,
                illegal_action: bool = False) -> None:
    """Write the result of game slot ``row`` (what :func:`result_info` says) into the batched
    ``info`` of :func:`batched_values`."""
    for key, value in result_info(outcome, illegal_action).items():
        info[key][row] = value
