"""The package's face: what ``dir(zavandor_env)`` and a star import show, and the defaults that
``SingleAgentEnv()`` shares with ``gymnasium.make("Zavandor-v0")``."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np

import zavandor_env
from zavandor_env import SingleAgentEnv

PUBLIC = {"GYM_ID", "PETTINGZOO_ID", "SingleAgentEnv", "env", "evaluate", "raw_env",
          "register_gymnasium", "register_pettingzoo", "zavandor_v0"}


def test_dir_lists_the_public_names_and_the_lazy_exports() -> None:
    names = set(dir(zavandor_env))
    assert PUBLIC | {"__version__"} <= names
    assert set(zavandor_env.__all__) == PUBLIC


def test_dir_hides_the_modules_the_package_uses_internally() -> None:
    names = set(dir(zavandor_env))
    assert not names & {"sys", "importlib", "Any", "annotations"}
    assert not [name for name in names if name.startswith("_") and not name.startswith("__")]


def test_every_public_name_resolves() -> None:
    for name in zavandor_env.__all__:
        assert getattr(zavandor_env, name) is not None, name


def test_a_star_import_gives_exactly_the_public_names() -> None:
    code = ("before = set(globals())\n"
            "from zavandor_env import *\n"
            "print(sorted(set(globals()) - before - {'before'}))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout.strip() == str(sorted(PUBLIC))


def _first_legal_trajectory(env: gymnasium.Env, seed: int, steps: int) -> list[np.ndarray]:
    """The observations of ``steps`` decisions, the learner always taking its first legal
    action, the episode restarted with the next seed when it ends."""
    seen = []
    observation, info = env.reset(seed=seed)
    for _ in range(steps):
        seen.append(observation)
        action = int(np.flatnonzero(info["action_mask"])[0])
        observation, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            seed += 1
            observation, info = env.reset(seed=seed)
    return seen


def test_single_agent_env_and_gymnasium_make_share_their_default_opponents() -> None:
    plain = SingleAgentEnv()
    made = gymnasium.make("Zavandor-v0")
    assert [o.name for o in plain.opponents] == ["novice"]
    assert [o.name for o in made.unwrapped.opponents] == ["novice"]
    # The same seeds give the same games: the opponents are the same players.
    ours = _first_legal_trajectory(plain, seed=3, steps=60)
    theirs = _first_legal_trajectory(made, seed=3, steps=60)
    assert all(np.array_equal(a, b) for a, b in zip(ours, theirs, strict=True))


def test_random_opponents_are_still_one_argument_away() -> None:
    env = SingleAgentEnv(num_players=3, opponents=None)
    assert env.opponents == (None, None)
