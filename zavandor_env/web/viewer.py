"""A replay as one self-contained HTML page: ``zavandor replay FILE --html OUT.html``.

The page holds everything it shows (no server, no network: it works from ``file://``): the
board as drawn by :func:`~zavandor_env.render.svg.to_svg` before every decision and after the
last, who decided what from which legal actions, the auctions won, every seat's VP over the
game and, where the replay carries them (``"annotations"``, recorded for agents that explain
their decisions, e.g. a learned policy), the policy's top action probabilities and value
estimate.

Size: one full SVG per decision would make a 4-player game tens of megabytes, but consecutive
boards differ in a few elements.  Each SVG is therefore cut into its elements (at ``><``
boundaries), every distinct element is stored once in a pool, and each frame is a flat list of
runs ``first, count, first, count, ...`` of pool indices; the page's script joins them back.
A 4-player game of about 550 decisions makes a page of about 1 MB this way instead of about
26 MB (``tests/web/test_viewer.py`` keeps it under the budget).
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from zavandor_env.agents.human import AuctionWatcher
from zavandor_env.engine import Game
from zavandor_env.engine.actions import ACTION_NAMES
from zavandor_env.engine.outcome import game_outcome
from zavandor_env.render.svg import to_svg
from zavandor_env.web import asset, fill, script

#: Draws the table (``to_svg(game, seat)``); injectable so tests can time or stub it.
Render = Callable[[Game], str]

_ELEMENT_BOUNDARY = re.compile(r"(?<=>)(?=<)")


class ChunkPool:
    """Distinct SVG pieces, each stored once; a picture becomes runs of piece indices."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self._index: dict[str, int] = {}

    def encode(self, svg: str) -> list[int]:
        """``svg`` as flat runs ``[first, count, ...]``: pieces ``first .. first + count - 1``
        (flat, not pairs: two brackets fewer per run in the page)."""
        runs: list[int] = []
        for piece in _ELEMENT_BOUNDARY.split(svg):
            index = self._index.get(piece)
            if index is None:
                index = self._index[piece] = len(self.pieces)
                self.pieces.append(piece)
            if runs and runs[-2] + runs[-1] == index:
                runs[-1] += 1
            else:
                runs += (index, 1)
        return runs


@dataclass
class ViewerData:
    """What the page shows, as plain JSON-ready values (see :func:`viewer_data`)."""

    players: int
    labels: list[str]
    seed: int | None
    pieces: list[str]
    frames: list[dict[str, Any]]
    outcome: str
    scores: list[int]
    winners: list[int]
    has_policy: bool
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players, "labels": self.labels, "seed": self.seed,
            "actionNames": list(ACTION_NAMES), "pieces": self.pieces, "frames": self.frames,
            "outcome": self.outcome, "scores": self.scores, "winners": self.winners,
            "hasPolicy": self.has_policy, "meta": self.meta,
        }


def _labels(record: dict[str, Any], n: int) -> list[str]:
    """Agent names from the record (``"agents"``), else ``player_<seat>``."""
    names = record.get("agents")
    if isinstance(names, list) and len(names) == n and all(isinstance(x, str) for x in names):
        return list(names)
    return [f"player_{s}" for s in range(n)]


def _finite(value: object) -> bool:
    """A real number the page can show (JSON has no NaN; a bool is not a probability; an
    integer too large for a float, such as ``1`` and 400 zeros, is not one either: turning
    it into a float raises OverflowError)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _annotations(record: dict[str, Any], count: int) -> dict[int, dict[str, Any]]:
    """The well-formed entries of the record's ``"annotations"``, by decision index (a
    malformed entry is skipped: the explanation is an extra, the game itself still shows)."""
    found: dict[int, dict[str, Any]] = {}
    notes = record.get("annotations")
    if not isinstance(notes, list):
        return found
    for note in notes:
        if not isinstance(note, dict):
            continue
        decision, probs, value = note.get("decision"), note.get("probs"), note.get("value")
        if type(decision) is not int or not 0 <= decision < count or not isinstance(probs, dict):
            continue
        clean = {str(k): float(v) for k, v in probs.items() if _finite(v)}
        if not _finite(value):
            value = None  # null (no critic in the file) or anything unreadable
        found[decision] = {"probs": clean, "value": None if value is None else float(value)}
    return found


def viewer_data(record: dict[str, Any], render: Render | None = None) -> ViewerData:
    """Replay ``record`` (validated by :meth:`Game.from_replay_record` first) and collect
    one frame per decision plus the final table.

    Frame ``i`` is the table before decision ``i`` (the last frame: after the last
    decision), with ``seat`` (who decides, -1 at the end), ``round``, ``action`` (the index
    taken, or None), ``legal`` (indices), ``vp`` (per seat, as scored at the last phase 4),
    ``news`` (auctions won or curses caused by decision ``i``) and ``note`` (the policy's
    explanation of decision ``i``, or None).

    Raises:
        ReplayError: the record is malformed or does not replay.
    """
    draw = render or to_svg  # by default the referee's view: a replay shows every hand
    final = Game.from_replay_record(record)
    actions: list[int] = record["actions"]
    n = final.num_players
    labels = _labels(record, n)
    notes = _annotations(record, len(actions))
    watcher = AuctionWatcher(labels)
    pool = ChunkPool()
    game = Game.new(final.config, final.seed)
    frames: list[dict[str, Any]] = []
    for i in range(len(actions) + 1):
        action = actions[i] if i < len(actions) else None
        frame = {
            "svg": pool.encode(draw(game)),
            "seat": game.current_player if action is not None else -1,
            "round": game.round,
            "action": action,
            "legal": list(game.legal_actions()) if action is not None else [],
            "vp": game.scores(),
            "news": [],
            "note": notes.get(i),
        }
        if action is not None:
            game.apply(action)
            frame["news"] = watcher.after(game)
        frames.append(frame)
    outcome = game_outcome(game)
    meta = {k: record[k] for k in ("config",) if k in record}
    return ViewerData(
        players=n, labels=labels, seed=final.seed, pieces=pool.pieces, frames=frames,
        outcome=outcome.describe(), scores=list(outcome.scores), winners=list(outcome.winners),
        has_policy=bool(notes), meta=meta,
    )


def _script_json(data: Any) -> str:
    """JSON safe inside ``<script>``: no ``</script>``, ``<!--`` or ``&`` can appear raw."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(record: dict[str, Any], title: str = "Zavandor replay",
                render: Render | None = None) -> str:
    """The whole viewer page for ``record`` (see the module docstring).

    Raises:
        ReplayError: the record is malformed or does not replay.
    """
    data = viewer_data(record, render)
    return fill(
        asset("viewer.html"),
        title=html.escape(title),
        style=asset("common.css") + asset("viewer.css"),
        data=_script_json(data.to_dict()),
        script=script("viewer.js"),
    )
