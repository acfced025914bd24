"""Shared test setup: the rule and property suites run on both engine backends.

Every test of the modules in :data:`BOTH_BACKENDS` runs twice, once with the native core and
once with the pure-Python engine as the default backend (``ZAVANDOR_BACKEND``), so a scenario
built with ``scenario.build`` or a game made by ``Game.new`` is checked on each.  Without the
native core only the Python run exists.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from zavandor_env.engine import native_available

BOTH_BACKENDS = frozenset({
    "test_rules_auction", "test_rules_round", "test_rules_scenario", "test_rules_turn",
    "test_properties", "test_golden_replays", "test_engine_api", "test_engine_scripting",
    "test_economy",
})
BACKENDS = ("native", "python") if native_available() else ("python",)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.module.__name__.rsplit(".", 1)[-1] in BOTH_BACKENDS:
        metafunc.fixturenames.append("engine_backend")
        metafunc.parametrize("engine_backend", BACKENDS, indirect=True)


@pytest.fixture
def engine_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The default engine backend for this test (see the module docstring)."""
    monkeypatch.setenv("ZAVANDOR_BACKEND", request.param)
    return str(request.param)


@pytest.fixture(autouse=True)
def _engine_backend_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sets the parametrized backend even where pytest does not run ``engine_backend`` (a
    fixture name added by ``pytest_generate_tests`` is not in the test's fixture closure, so
    pytest 9 never calls it: the "python" runs used to play on the native default)."""
    callspec = getattr(request.node, "callspec", None)
    backend = callspec.params.get("engine_backend") if callspec is not None else None
    if backend is not None:
        monkeypatch.setenv("ZAVANDOR_BACKEND", backend)


@pytest.fixture
def only_with_slow_selected(request: pytest.FixtureRequest) -> None:
    """Skips the test unless the run selects slow tests (``pytest -m slow``): for comparisons
    too long even for the default run's slow marker."""
    expr = request.config.getoption("markexpr") or ""
    if "slow" not in expr or "not slow" in expr:
        pytest.skip("run with -m slow")


@pytest.fixture
def app() -> Iterator[object]:
    """A ``zavandor serve`` app on 127.0.0.1 (a free port) serving from a thread, for tests
    that send it real requests (the security tests) or drive it with a browser."""
    from zavandor_env.web.server import AppServer, Table

    server = AppServer(Table(["random"], seat=0, seed=21), host="127.0.0.1", port=0)
    # A short poll: shutdown() at the end of each test returns in milliseconds, not 0.5 s.
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
