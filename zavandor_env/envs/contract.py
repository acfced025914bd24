"""The one contract every face of the environment keeps (``docs/integrations.md`` has the
table, ``tests/envs/test_env_contract.py`` holds every face to it).

* **Illegal actions**: ``illegal_action="terminate"`` (the default of every face but the
  unwrapped ``raw_env``) ends the episode of the offending seat, paying it ``illegal_reward``,
  with ``info["illegal_action"]`` true; ``"raise"`` raises a ``ValueError``
  (:class:`~zavandor_env.engine.IllegalActionError` where one game is played) and changes
  nothing.
* **A finished game's mask is never all-False** where a library samples from it: the mask of a
  Gymnasium-facing slot whose game is over (the last ``info`` of an episode, a vector slot
  waiting for its next-step autoreset) allows :data:`FINISHED_ACTION` alone, an action that is
  never applied (the episode is over: the next ``step`` of a vector slot ignores it, a single
  env must be reset first).  ``-inf`` masking then never turns a row into NaN.
* **Info values** follow one dtype rule (the tables are in ``tests/envs/test_env_contract.py``):
  flags are Python ``bool`` and counts Python ``int`` in an unbatched ``info`` (``game_over``,
  ``terminated``, ``truncated``, ``illegal_action``; ``rounds``, ``seat``); arrays are NumPy
  of a fixed dtype (``action_mask`` int8[A]; ``scores`` and ``ranks`` int32[P], ``winners``
  int8[P]).  A vector face batches them exactly as Gymnasium's ``SyncVectorEnv`` does: ``bool[N]``,
  ``int64[N]``, and the array's dtype with a leading ``N``, each key with its ``_key`` mask.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from gymnasium import spaces

from zavandor_env.encoding.observation import OBS_BOUND, OBS_SIZE
from zavandor_env.engine.actions import END_TURN, NUM_ACTIONS

#: The illegal-action modes, by the one name every face uses (``illegal_action=``).
ILLEGAL_ACTION_MODES: Final = ("terminate", "raise")

#: The one action a finished game's mask allows (``end_turn``, index 0): never applied.
FINISHED_ACTION: Final = END_TURN


def check_illegal_action(value: object) -> str:
    """``value`` if it is an illegal-action mode, else a one-line ``ValueError``."""
    if value not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {value!r}")
    return str(value)


def observation_space() -> spaces.Box:
    """The space of one observation vector, the same on every face (a new object: spaces
    carry their own generator)."""
    return spaces.Box(-OBS_BOUND, OBS_BOUND, (OBS_SIZE,), np.float32)


def finished_mask(dtype: type = np.int8) -> np.ndarray:
    """The mask of a finished game: :data:`FINISHED_ACTION` alone (a new array)."""
    mask: np.ndarray = np.zeros(NUM_ACTIONS, dtype=dtype)
    mask[FINISHED_ACTION] = 1
    return mask
