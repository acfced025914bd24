"""How long the property-based attacks of the input boundaries run in each test tier.

A fuzz test takes ``examples`` from :data:`FUZZ_EXAMPLES`: a short run in the fast tier (README's
test command) and a long one in the slow tier, with the same strategies and the same checks::

    @FUZZ_EXAMPLES
    def test_every_mutated_tournament_file_is_one_line(examples):
        @settings(max_examples=examples, **FUZZ_SETTINGS)
        @given(...)
        def attack(...): ...
        attack()

Hypothesis draws from a fixed seed (``derandomize``), so a failure replays on every machine.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck

#: Examples per fuzz test: fast tier, slow tier.
FAST_EXAMPLES = 40
SLOW_EXAMPLES = 1_000

FUZZ_EXAMPLES = pytest.mark.parametrize(
    "examples",
    [pytest.param(FAST_EXAMPLES, id="fast"),
     pytest.param(SLOW_EXAMPLES, id="slow", marks=pytest.mark.slow)],
)

#: Settings shared by every fuzz test: reproducible, no wall-clock deadline (CI machines vary),
#: no example database written into the tree.
FUZZ_SETTINGS: dict[str, Any] = {
    "deadline": None,
    "derandomize": True,
    "database": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                              HealthCheck.data_too_large],
}
