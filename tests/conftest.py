"""Shared test setup: the rule and property suites run on both engine backends.

Every test marked ``both_backends`` (the rules modules mark themselves with a module-level
``pytestmark = pytest.mark.both_backends``) runs twice, once with the native core and once
with the pure-Python engine as the default backend (``ZAVANDOR_BACKEND``), so a scenario built
with ``scenario.build`` or a game made by ``Game.new`` is checked on each.  Without the native
core only the Python run exists.

Two tiers: README's ``python -m pytest -n 2 -q`` runs the fast tier (pyproject's addopts
deselect ``slow``); ``python -m pytest -n 2 -q -m slow`` runs the slow tier (wheel builds,
training runs, long differential and strength runs), which ``.ci/run`` runs after the fast one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from zavandor_env.engine import native_available

BACKENDS = ("native", "python") if native_available() else ("python",)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("both_backends") is not None:
        # A plain parameter (a test may ask for ``engine_backend`` to know which run it is);
        # the autouse fixture below makes it the default backend of the run.
        metafunc.fixturenames.append("engine_backend")
        metafunc.parametrize("engine_backend", BACKENDS)


@pytest.fixture(autouse=True)
def _engine_backend_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sets ``ZAVANDOR_BACKEND`` to the run's ``engine_backend`` parameter, whether or not the
    test asks for it (a fixture that only ``pytest_generate_tests`` names is never called)."""
    callspec = getattr(request.node, "callspec", None)
    backend = callspec.params.get("engine_backend") if callspec is not None else None
    if backend is not None:
        monkeypatch.setenv("ZAVANDOR_BACKEND", backend)


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


@pytest.fixture
def minute_per_reading_marks(monkeypatch: pytest.MonkeyPatch) -> None:
    """``keep_policy_minutes`` marks on a clock that advances a minute per reading, in both
    trainers: a mark of a few milliseconds has passed by the first update however fast the
    machine (on a real clock a fast CI machine finished a tiny generation before it)."""
    from zavandor_env.train import exit as exit_module
    from zavandor_env.train import timed

    real = timed.TimedPolicies

    def with_fast_clock(run_dir: Any, minutes: Any) -> Any:
        readings = iter(range(0, 10**9, 60))
        return real(run_dir, minutes, clock=lambda: float(next(readings)))

    monkeypatch.setattr(timed, "TimedPolicies", with_fast_clock)
    monkeypatch.setattr(exit_module, "TimedPolicies", with_fast_clock)
