"""The rules engine must not pull in any RL library: it is used by search agents, scripts and
other frameworks that should not pay for (or depend on) gymnasium, pettingzoo or torch.

Each check runs in a fresh interpreter, because this test process may already have imported
those libraries for other tests.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FORBIDDEN = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib")

_PROBE = """
import json, sys
import {module}
{use}
loaded = sorted({{name.split(".")[0] for name in sys.modules}})
print(json.dumps(loaded))
"""

# Playing a game touches every rules module, including ones imported lazily.
_PLAY = """
from zavandor_env.engine import Game
game = Game.new(num_players=3, seed=1)
while not game.is_over:
    game.apply(game.legal_actions()[-1])
game.describe()
Game.from_json(game.to_json())
"""


def _modules_after(module: str, use: str = "") -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE.format(module=module, use=use)],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(result.stdout))


@pytest.mark.parametrize(
    "module, use",
    [("zavandor_env.engine", ""), ("zavandor_env.engine", _PLAY), ("zavandor_env", "")],
)
def test_importing_the_engine_loads_no_rl_library(module: str, use: str) -> None:
    loaded = _modules_after(module, use)
    assert "zavandor_env" in loaded  # the probe did import the package
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))


def test_probe_detects_an_rl_library() -> None:
    # Guard against a probe that can never fail: importing one directly must be seen.
    assert "gymnasium" in _modules_after("gymnasium")
