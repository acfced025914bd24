"""Smoke test of an installed zavandor-env, run from outside the source tree.

cibuildwheel runs it on every release wheel (``[tool.cibuildwheel] test-command``) and
tests/project/test_packaging.py on the wheel and the sdist installed in fresh environments.  It
plays a
game through ``zavandor_env.env()`` and ``gymnasium.make("Zavandor-v0")`` with the core
dependencies alone, checks that the version has one value everywhere, and that the native core
(required) is built and plays the same game as the Python rules, its oracle (``--native`` is
accepted and changes nothing: the check always runs).  Prints ``ok`` and exits 0, or fails
with the reason.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys


def play_aec(num_players: int, seed: int) -> int:
    """One whole game through the PettingZoo AEC env, each seat playing its first legal
    action; the number of decisions."""
    import numpy as np

    import zavandor_env

    env = zavandor_env.env(num_players=num_players)
    env.reset(seed=seed)
    decisions = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            action = None
        else:
            action = int(np.flatnonzero(observation["action_mask"])[0])
            decisions += 1
        env.step(action)
    env.close()
    assert decisions > 0, "the game had no decision"
    return decisions


def play_gymnasium(seed: int) -> None:
    """A few steps of ``gymnasium.make("Zavandor-v0")`` against its default opponents."""
    import gymnasium
    import numpy as np

    import zavandor_env  # noqa: F401  (registers Zavandor-v0)

    env = gymnasium.make("Zavandor-v0")
    _, info = env.reset(seed=seed)
    for _ in range(50):
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    env.close()


def check_native() -> None:
    """The native core is built and deals and plays exactly as the Python rules, its oracle."""
    from zavandor_env.engine import Game, native_available, native_status
    from zavandor_env.engine.oracle import OracleGame

    assert native_available(), f"no native core: {native_status()}"
    core = Game.new(num_players=3, seed=4)
    oracle = OracleGame.new(num_players=3, seed=4)
    assert core.native_core is not None and oracle.native_core is None
    for _ in range(200):
        if core.is_over:
            break
        action = core.legal_actions()[0]
        core.apply(action)
        oracle.apply(action)
    assert core.to_json() == oracle.to_json(), "the core and the oracle played different games"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--native", action="store_true",
                        help="accepted for old callers: the native core is always required")
    args = parser.parse_args(argv)
    import zavandor_env

    installed = importlib.metadata.version("zavandor-env")
    assert zavandor_env.__version__ == installed, (zavandor_env.__version__, installed)
    del args
    check_native()
    for players in (2, 4):
        play_aec(players, seed=players)
    play_gymnasium(seed=0)
    assert "torch" not in sys.modules, "playing a game imported torch"
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
