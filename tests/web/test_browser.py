"""The replay viewer and the web app in a real browser: headless Chromium driven by Selenium.

Needs Debian's ``chromium`` and ``chromium-driver`` packages (``/usr/bin/chromium``,
``/usr/bin/chromedriver``) and the ``selenium`` package; without them every test here is
skipped with the reason.  The driver is given by path, so Selenium Manager never tries to
download a browser.

The documentation's pictures (``docs/images/viewer.png``, ``serve.png``) are written by a
script, ``python -m tests.screenshots docs/images``, which uses this module's browser set-up.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.policy import PolicyAgent
from zavandor_env.engine import Game
from zavandor_env.eval.match import play_game
from zavandor_env.web.server import AppServer
from zavandor_env.web.viewer import render_html

CHROMIUM = os.environ.get("ZAVANDOR_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("ZAVANDOR_CHROMEDRIVER", "/usr/bin/chromedriver")
CHECKPOINT = Path(__file__).parents[2] / "train" / "checkpoints" / "selfplay_2p" / "policy.npz"
WAIT = 20.0  # seconds: generous for a slow, shared CI machine


def _missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (Path(path).is_file() or shutil.which(path)):
            return f"{path} not found (apt-get install -y {package})"
    return None


def test_ci_has_a_browser() -> None:
    """CI installs chromium (.ci/run), so there the browser tests must run, not skip."""
    if os.environ.get("CI") == "true":
        assert _missing() is None, f"CI cannot run the browser tests: {_missing()}"


_NO_BROWSER = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


def start_browser() -> Any:
    """A headless Chromium (Selenium's driver) with the documentation pictures' window size."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1500,1000", "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    return driver


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = start_browser()
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver: Any, condition: Callable[[Any], Any], what: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT).until(condition, message=f"waited for {what}")


def by_id(driver: Any, name: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, name)


def press(driver: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def shown_index(driver: Any) -> int:
    return int(driver.find_element("tag name", "body").get_attribute("data-index"))


# ---- the replay viewer ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def viewer_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    result = play_game([HeuristicAgent(seed=1), HeuristicAgent(seed=2)], seed=6,
                       record_replay=True)
    assert result.replay is not None
    record = {**result.replay, "agents": result.labels}
    path = tmp_path_factory.mktemp("viewer") / "replay.html"
    path.write_text(render_html(record), encoding="utf-8")
    return path, record


@_NO_BROWSER
def test_viewer_steps_jumps_and_shows_the_final_vp(browser: Any,
                                                    viewer_page: tuple[Path, dict]) -> None:
    from selenium.webdriver.common.keys import Keys

    path, record = viewer_page
    last = len(record["actions"])
    browser.get(path.as_uri())  # file://: the page needs no server
    wait_for(browser, lambda d: d.find_element("tag name", "body").get_attribute("data-index"),
             "the first frame")
    assert shown_index(browser) == 0
    assert browser.execute_script("return document.querySelectorAll('#board svg').length") == 1
    assert by_id(browser, "position").text.startswith(f"decision 1 / {last}")
    press(browser, Keys.ARROW_RIGHT)
    press(browser, Keys.ARROW_RIGHT)
    assert shown_index(browser) == 2
    press(browser, Keys.ARROW_LEFT)
    assert shown_index(browser) == 1
    by_id(browser, "next").click()
    assert shown_index(browser) == 2
    # The log names the decision and its legal actions chips include the one taken.
    chosen = browser.find_element("css selector", "#legal .chip.chosen").text
    first_seat = Game.new(Game.from_replay_record(record).config, record["seed"])
    for action in record["actions"][:2]:
        first_seat.apply(action)
    assert chosen == browser.execute_script(
        "return JSON.parse(document.getElementById('replay-data').textContent)"
        f".actionNames[{record['actions'][2]}]")
    assert f"player_{first_seat.current_player}" in by_id(browser, "decision").text
    press(browser, Keys.END)
    assert shown_index(browser) == last
    final = Game.from_replay_record(record).scores()
    shown = [int(by_id(browser, f"vp-seat-{s}").text) for s in range(len(final))]
    assert shown == final
    assert any(word in by_id(browser, "decision").text for word in (" won ", "cut off"))
    by_id(browser, "prev").click()
    assert shown_index(browser) == last - 1
    press(browser, Keys.HOME)
    assert shown_index(browser) == 0
    start = Game.new(Game.from_replay_record(record).config, record["seed"]).scores()
    assert [int(by_id(browser, f"vp-seat-{s}").text) for s in range(len(final))] == start
    # The slider jumps; the log entry of the current decision is highlighted.
    browser.execute_script("const s = document.getElementById('slider'); s.value = 40;"
                           "s.dispatchEvent(new Event('input'));")
    assert shown_index(browser) == 40
    assert browser.find_element("css selector", "#log li.current").text.startswith("#41")
    # Space plays and pauses.
    by_id(browser, "speed").find_element("css selector", "option[value='40']").click()
    press(browser, Keys.SPACE)
    wait_for(browser, lambda d: shown_index(d) >= 45, "playback to advance")
    press(browser, Keys.SPACE)
    paused = shown_index(browser)
    assert by_id(browser, "play").text.endswith("Play")
    browser.execute_script("return new Promise(r => setTimeout(r, 300))")
    assert shown_index(browser) == paused
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def open_policy_replay(browser: Any, folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A replay of the committed 2-player policy against the heuristic, opened in ``browser``
    at a mid-game decision with a few candidates (also the docs' picture): (record, note)."""
    result = play_game([PolicyAgent(CHECKPOINT, seed=0), HeuristicAgent(seed=1)], seed=2,
                       record_replay=True)
    assert result.replay is not None
    record = {**result.replay, "agents": ["policy", "heuristic"]}
    page = folder / "policy.html"
    page.write_text(render_html(record, title="Zavandor replay: policy vs heuristic"))
    browser.get(page.as_uri())
    half = len(record["actions"]) // 2
    note = next(n for n in record["annotations"] if len(n["probs"]) >= 3
                and n["decision"] >= half)
    browser.execute_script("const s = document.getElementById('slider');"
                           f"s.value = {note['decision']}; s.dispatchEvent(new Event('input'));")
    return record, note


@_NO_BROWSER
def test_viewer_shows_the_policys_view(browser: Any, tmp_path: Path) -> None:
    _record, note = open_policy_replay(browser, tmp_path)
    assert by_id(browser, "policy-panel").is_displayed()
    rows = browser.find_elements("css selector", "#policy .prob")
    assert [r.find_element("css selector", ".name").text for r in rows] == list(note["probs"])
    assert "value estimate" in by_id(browser, "policy").text
    # The committed 2-player file carries the critic: the estimate is shown to 3 decimals.
    assert note["value"] is not None
    assert f"value estimate: {note['value']:.3f}" in by_id(browser, "policy").text


# ---- the web app (the ``app`` fixture is in conftest.py) --------------------------------
def wait_for_new_decision(browser: Any, before: str | None) -> None:
    """Wait until the page has drawn the table after the click of decision ``before``."""
    wait_for(browser, lambda d: d.find_element("tag name", "body")
             .get_attribute("data-decision") != before, "the table after a click")


def click_until_over(browser: Any, choose: Callable[[list[Any]], Any], limit: int) -> int:
    """Click a legal-action button (``choose``) until the page says the game is over; the
    number of clicks."""
    body = browser.find_element("tag name", "body")
    for clicks in range(limit):
        if body.get_attribute("data-over") == "1":
            return clicks
        before = body.get_attribute("data-decision")
        buttons = browser.find_elements("css selector", "#actions button.action")
        assert buttons, "not over, yet no legal action to click"
        choose(buttons).click()
        wait_for_new_decision(browser, before)
    raise AssertionError(f"the game did not end within {limit} clicks")


@_NO_BROWSER
def test_web_app_plays_a_whole_game_by_clicks(browser: Any, app: AppServer) -> None:
    browser.get(app.url)
    wait_for(browser, lambda d: d.find_elements("css selector", "#actions button.action"),
             "the first legal actions")
    assert "You are player_0" in by_id(browser, "who").text
    assert browser.find_elements("css selector", "#board svg")
    rng = random.Random(5)
    clicks = click_until_over(browser, lambda buttons: rng.choice(buttons), limit=400)
    assert clicks > 0
    status = by_id(browser, "status").text
    state = app.table.state()
    assert state["over"] and status.startswith("Game over:")
    if state["winners"]:
        winner = "you" if state["winners"] == [0] else f"player_{state['winners'][0]}"
        assert f"{winner}" in status and "won" in status
    assert not browser.find_elements("css selector", "#actions button.action")
    shown = [int(by_id(browser, f"score-{s}").text) for s in range(2)]
    with urllib.request.urlopen(app.url + "api/replay", timeout=10) as response:
        record = json.load(response)
    assert Game.from_replay_record(record).scores() == shown == state["scores"]
    # Every auction won is announced with its price.
    for purchase in Game.from_replay_record(record).purchases:
        assert f"for {purchase.price} energy" in by_id(browser, "auctions").text
    # A new game starts from the header.
    by_id(browser, "seed").send_keys("8")
    by_id(browser, "new").click()
    wait_for(browser, lambda d: d.find_element("tag name", "body").get_attribute("data-over")
             == "0", "a new game")
    assert "seed 8" in by_id(browser, "who").text
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.slow
@_NO_BROWSER
def test_the_screenshot_script_writes_the_docs_pictures(tmp_path: Path) -> None:
    """``python -m tests.screenshots DIR`` (docs/images' pictures) writes both PNG files."""
    from tests import screenshots

    assert screenshots.main([str(tmp_path / "images")]) == 0
    for name in ("viewer.png", "serve.png"):
        data = (tmp_path / "images" / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n") and len(data) > 10_000, name


# ---- another origin against the web app ----------------------------------------------------
_FOREIGN_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>another site</title></head><body>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="{target}api/new" enctype="text/plain" target="sink">
  <input name='{{"seed": 5, "pad": "' value='"}}'>
</form>
<script>
"use strict";
// What any page a person visits can try against the app on 127.0.0.1.
const target = "{target}";
const results = {{}};
async function attempt(name, request) {{
  try {{
    const response = await request;
    results[name] = "answered " + response.type + " " + response.status;
  }} catch (err) {{
    results[name] = "failed " + err;
  }}
}}
(async () => {{
  await attempt("simple", fetch(target + "api/new", {{method: "POST", mode: "no-cors",
    headers: {{"Content-Type": "text/plain"}}, body: '{{"seed": 5}}'}}));
  await attempt("json", fetch(target + "api/new", {{method: "POST",
    headers: {{"Content-Type": "application/json"}}, body: '{{"seed": 6}}'}}));
  await attempt("page", fetch(target));  // the page holds the token: unreadable from here
  document.body.dataset.results = JSON.stringify(results);
  document.getElementById("form").submit();
}})();
</script></body></html>
"""


@pytest.fixture
def foreign_site(app: AppServer) -> Iterator[str]:
    """A second tiny server on another port: a page of another origin (``localhost`` against
    the app's ``127.0.0.1``: another site too) that tries to start a game in the app."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    body = _FOREIGN_PAGE.format(target=app.url).encode()

    class ForeignPage(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 -- http.server's naming
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    site = ThreadingHTTPServer(("127.0.0.1", 0), ForeignPage)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{site.server_address[1]}/"
    finally:
        site.shutdown()
        site.server_close()
        thread.join(5)


@_NO_BROWSER
def test_a_page_of_another_origin_cannot_start_a_game(browser: Any, app: AppServer,
                                                      foreign_site: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from zavandor_env.web import server as web

    answered: list[tuple[str, str, int]] = []  # (method, path, status) of every request

    def log_request(handler: Any, code: Any = "-", size: Any = "-") -> None:
        answered.append((handler.command, handler.path, int(code)))

    monkeypatch.setattr(web._Handler, "log_request", log_request)
    before = (app.table.seed, list(app.table.game.history))
    browser.get(foreign_site)
    results = json.loads(wait_for(browser, lambda d: d.find_element("tag name", "body")
                                  .get_attribute("data-results"), "the page's fetches"))
    wait_for(browser, lambda d: sum(m == "POST" for m, _, _ in answered) >= 2,
             "the no-cors fetch and the form to reach the app")
    posts = [status for method, _, status in answered if method == "POST"]
    assert posts and all(status in (403, 415) for status in posts), answered
    assert results["json"].startswith("failed"), results  # its preflight is refused
    assert results["page"].startswith("failed"), results  # no CORS: the token stays unread
    assert (app.table.seed, list(app.table.game.history)) == before
    # The app's own page still plays, and breaks none of its policies (CSP included).
    browser.get_log("browser")  # the other page's refused requests: read, so not counted
    browser.get(app.url)
    wait_for(browser, lambda d: d.find_elements("css selector", "#actions button.action"),
             "the app's legal actions")
    before_click = browser.find_element("tag name", "body").get_attribute("data-decision")
    browser.find_elements("css selector", "#actions button.action")[0].click()
    wait_for_new_decision(browser, before_click)
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
