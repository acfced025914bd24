"""The saved-game fuzz as a test layer: a bounded, seeded sample of ``tests/fuzz_saves.py``
(the long run is ``python -m tests.fuzz_saves --saves 20000 --seed 0``)."""

from __future__ import annotations

import pytest

from tests.fuzz_saves import REGRESSIONS, run
from zavandor_env.engine import Phase

# The fast tier's sample and the slow tier's (about 20 s): every phase and player count.
FAST_SAVES, SAMPLE_SAVES = 200, 800


@pytest.mark.parametrize("saves", [FAST_SAVES, pytest.param(SAMPLE_SAVES, marks=pytest.mark.slow)])
def test_mutated_saves_are_refused_in_one_line_or_play_identically_on_core_and_oracle(
        saves: int) -> None:
    report = run(saves, seed=0)
    assert report.failures == []
    assert report.tried == saves + len(REGRESSIONS)
    assert report.outcomes["refused"] > 0 and report.outcomes["played"] > 0
    assert set(report.phases) == {p.name for p in Phase}
    assert set(report.players) == {2, 3, 4, 5, 6}
