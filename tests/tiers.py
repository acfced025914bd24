"""Parametrize helpers for the two test tiers (see tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

ALL_PLAYERS = (2, 3, 4, 5, 6)


def spread(values: Iterable[Any], fast: Iterable[Any]) -> list[Any]:
    """``values`` for a parametrize: those in ``fast`` run in the fast tier, the others are
    marked ``slow`` (the slow tier)."""
    keep = set(fast)
    return [v if v in keep else pytest.param(v, marks=pytest.mark.slow) for v in values]


def players(fast: Iterable[int] = (2, 3, 4)) -> list[Any]:
    """2-6 players for a parametrize, with ``fast`` in the fast tier and the rest slow."""
    return spread(ALL_PLAYERS, fast)
