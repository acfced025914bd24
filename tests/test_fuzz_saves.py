"""The saved-game fuzz as a test layer: a bounded, seeded sample of ``tests/fuzz_saves.py``
(the long run is ``python -m tests.fuzz_saves --saves 20000 --seed 0``)."""

from __future__ import annotations

from tests.fuzz_saves import REGRESSIONS, run
from zavandor_env.engine import Phase

SAMPLE_SAVES = 800  # about 20 s: every phase and player count many times over


def test_mutated_saves_are_refused_in_one_line_or_play_identically_on_both_backends() -> None:
    report = run(SAMPLE_SAVES, seed=0)
    assert report.failures == []
    assert report.tried == SAMPLE_SAVES + len(REGRESSIONS)
    assert report.outcomes["refused"] > 0 and report.outcomes["played"] > 0
    assert set(report.phases) == {p.name for p in Phase}
    assert set(report.players) == {2, 3, 4, 5, 6}
