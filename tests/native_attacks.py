"""Hostile calls of the native core's exported functions: each must raise a Python exception
(a one-line ``ValueError``, ``TypeError`` or ``OverflowError``), never crash, read out of
bounds or allocate without bound.  The fast tier runs it in a child process (a crash is a
failed test, not a dead test run); ``.ci/sanitize`` runs it under ASan and UBSan:

    python -m tests.native_attacks
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from zavandor_env.engine import native
from zavandor_env.engine.data import NUM_TOKENS


def attacks() -> list[tuple[str, Callable[[], Any]]]:
    m = native.core_module()
    import zavandor_env.encoding.observation  # noqa: F401  (installs the real scales)

    size = m.observation_size()
    nan_scale = np.ones(size, np.float32)
    nan_scale[3] = math.nan
    calls: list[tuple[str, Callable[[], Any]]] = []
    for amount in (-1, -7, -2**31, 2**31 - 1, 2**63, 10**9):
        for one in (False, True):
            calls.append((f"_dust_chits({amount}, {one})",
                          lambda a=amount, o=one: m._dust_chits(a, o)))
    for hand, amount in (([0] * NUM_TOKENS, -1), ([0] * NUM_TOKENS, -2**31),
                         ([2**31 - 1] + [0] * (NUM_TOKENS - 1), 5), ([-1] * NUM_TOKENS, 1),
                         ([1] * (NUM_TOKENS - 1), 1), ([1] * (NUM_TOKENS + 1), 1),
                         ([900] * NUM_TOKENS, 100), ([1] * NUM_TOKENS, 10**9), ("x" * 29, 1)):
        calls.append((f"_choose_payment(hand of {len(hand)}, {amount})",
                      lambda h=hand, a=amount: m._choose_payment(h, a, False)))
    calls.append(("set_observation_scale(NaN)", lambda: m.set_observation_scale(nan_scale)))
    for bound in (math.nan, math.inf, -1.0, 0.0):
        calls.append((f"set_observation_scale(bound={bound})",
                      lambda b=bound: m.set_observation_scale(np.ones(size, np.float32), b)))
    return calls


def main() -> int:
    failures = 0
    for name, call in attacks():
        try:
            call()
        except (ValueError, TypeError, OverflowError) as exc:
            if "\n" in str(exc):
                print(f"{name}: a message of several lines: {exc!r}")
                failures += 1
            continue
        print(f"{name}: accepted (it must be refused)")
        failures += 1
    from zavandor_env.encoding.observation import configure_native

    configure_native()  # the real scales again (a refused call changed nothing anyway)
    print(f"native attacks: {len(attacks())} calls, {failures} not refused cleanly")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
