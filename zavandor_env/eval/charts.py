"""The figures' shared parts: matplotlib without a display, a figure saved at once, and the
bars of a win rate's interval."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zavandor_env.io.files import write_atomic


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (no display needed), every text drawn as it
    is: agent labels come from the user and from run folders, and ``$...$`` in one must not be
    parsed as math (a bad macro would fail every chart; a good one would draw a look-alike)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["text.parse_math"] = False
    plt.rcParams["text.usetex"] = False
    return plt


def save_figure(fig: Any, path: Path, dpi: int) -> Path:
    """Write ``fig`` as a PNG at once (a full disk leaves no file cut short) and close it.
    No "Software" stamp: the figure then depends only on the data and matplotlib."""
    try:
        write_atomic(path, lambda fh: fig.savefig(fh, format="png", dpi=dpi,
                                                  metadata={"Software": None}))
    finally:
        pyplot().close(fig)
    return path


def interval_bars(rates: Sequence[float],
                  intervals: Sequence[tuple[float, float]]) -> list[list[float]]:
    """``yerr`` of bars at ``rates`` reaching their ``intervals`` (never below zero)."""
    return [[max(0.0, rate - lo) for rate, (lo, _) in zip(rates, intervals)],
            [max(0.0, hi - rate) for rate, (_, hi) in zip(rates, intervals)]]
