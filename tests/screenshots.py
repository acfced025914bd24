"""Writes the documentation's browser pictures: ``python -m tests.screenshots docs/images``.

``viewer.png``: the replay viewer on a mid-game decision of the committed 2-player policy
against the heuristic, with the policy's panel; ``serve.png``: ``zavandor serve`` mid-game
against the heuristic after a few sensible clicks.  Needs what tests/web/test_browser.py needs
(Debian's ``chromium`` and ``chromium-driver``, the ``selenium`` package).  Not a test module:
pytest does not collect it; the slow tier runs it once into a temporary folder.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.web.test_browser import (
    _missing,
    open_policy_replay,
    start_browser,
    wait_for_new_decision,
)
from zavandor_env.web.server import AppServer, Table

# Buttons clicked first, so that the pictured table has gems, bids and knowledge on it.
PREFERRED = ("buy_sapphire", "buy_opal", "activate", "advance", "bid_plus_1", "pass",
             "end_block", "end_turn")


def viewer_picture(browser: Any, target: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        open_policy_replay(browser, Path(folder))
        browser.execute_script("window.scrollTo(0, 0)")
        browser.save_screenshot(str(target / "viewer.png"))


def serve_picture(browser: Any, target: Path) -> None:
    server = AppServer(Table(["heuristic"], seat=0, seed=12), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        browser.get(server.url)
        body = browser.find_element("tag name", "body")
        for _ in range(60):  # until round 4 with an auction won
            if server.table.game.state.round >= 4 and server.table.auctions:
                break
            buttons = browser.find_elements("css selector", "#actions button.action")
            names = [b.text for b in buttons]
            pick = next((buttons[names.index(n)] for p in PREFERRED for n in names
                         if n.startswith(p)), buttons[0])
            before = body.get_attribute("data-decision")
            pick.click()
            wait_for_new_decision(browser, before)
        browser.save_screenshot(str(target / "serve.png"))
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m tests.screenshots OUT_DIR", file=sys.stderr)
        return 2
    if (why := _missing()) is not None:
        print(f"cannot take the pictures: {why}", file=sys.stderr)
        return 1
    target = Path(args[0])
    target.mkdir(parents=True, exist_ok=True)
    browser = start_browser()
    try:
        viewer_picture(browser, target)
        serve_picture(browser, target)
    finally:
        browser.quit()
    print(f"wrote {target / 'viewer.png'} and {target / 'serve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
