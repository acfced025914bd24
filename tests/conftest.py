"""Shared test setup: the rule and property suites run on the core and on the oracle.

Every test marked ``core_and_oracle`` (the rules modules mark themselves with a module-level
``pytestmark = pytest.mark.core_and_oracle``) runs twice: once as written, on the C++ core,
and once with ``Game.new`` and ``Game.from_dict`` building oracle games
(:class:`~zavandor_env.engine.oracle.OracleGame`, the Python rules), so a scenario built with
``scenario.build``, a replay or a game made by ``Game.new`` is checked on each.

Two tiers: README's ``python -m pytest -n 2 -q`` runs the fast tier (pyproject's addopts
deselect ``slow``); ``python -m pytest -n 2 -q -m slow`` runs the slow tier (wheel builds,
training runs, long differential and strength runs), which ``.ci/run`` runs after the fast one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from zavandor_env.engine.oracle import games_on_the_oracle

RULES_ON = ("core", "oracle")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("core_and_oracle") is not None:
        # A plain parameter (a test may ask for ``rules_on`` to know which run it is); the
        # autouse fixture below makes the oracle run build oracle games.
        metafunc.fixturenames.append("rules_on")
        metafunc.parametrize("rules_on", RULES_ON)


@pytest.fixture(autouse=True)
def _rules_on_the_oracle(request: pytest.FixtureRequest) -> Iterator[None]:
    """On the ``oracle`` run of a ``core_and_oracle`` test, ``Game.new`` and ``Game.from_dict``
    (and so ``replay``, ``from_json``, ``scenario.build``) build oracle games, whether or not
    the test asks for ``rules_on`` (a fixture that only ``pytest_generate_tests`` names is
    never called)."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("rules_on") == "oracle":
        with games_on_the_oracle():
            yield
    else:
        yield


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
    from zavandor_env.train.common import timed
    from zavandor_env.train.exit import run as exit_module
    real = timed.TimedPolicies

    def with_fast_clock(run_dir: Any, minutes: Any) -> Any:
        readings = iter(range(0, 10**9, 60))
        return real(run_dir, minutes, clock=lambda: float(next(readings)))

    monkeypatch.setattr(timed, "TimedPolicies", with_fast_clock)
    monkeypatch.setattr(exit_module, "TimedPolicies", with_fast_clock)
