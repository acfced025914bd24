"""README.md is the front door: its first screen says what the project is and how to start, every
code block in it runs as a new user would run it, and every name and link it shows exists.

* ``python`` blocks run whole, each in a fresh interpreter started in an empty folder (not the
  repository), so they may only rely on the installed package.  A block may shorten a long
  run for the test with a line ``STEPS = ...  # test: N`` (the test replaces the value by N).
* ``bash`` blocks: the first one holds README's two set-up-and-go commands, which must be the
  very commands ``.ci/run`` runs; in the others every line that starts with ``zavandor`` is run
  from an empty folder (with ``--help`` appended when it starts a long or interactive job:
  training, terminal play, the web server).

The python blocks of the documentation pages run in tests/encoding/test_env_docs.py.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
BLOCKS = [(lang, body) for lang, body in BLOCK.findall(README)]
PYTHON_BLOCKS = [body for lang, body in BLOCKS if lang == "python"]
BASH_BLOCKS = [body for lang, body in BLOCKS if lang == "bash"]
SHORTEN = re.compile(r"^(\s*\w+\s*=\s*)[^#\n]+#\s*test:\s*(\S+)\s*$", re.M)
# Commands that start a long job: the test checks they parse (--help) instead of running them.
LONG_JOBS = ("zavandor train", "zavandor play", "zavandor serve")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["MPLBACKEND"] = "Agg"
    return env


def test_readme_has_code_blocks() -> None:
    assert len(PYTHON_BLOCKS) >= 1 and len(BASH_BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_readme_python_block_runs(index: int, tmp_path: Path) -> None:
    code = SHORTEN.sub(lambda m: f"{m.group(1)}{m.group(2)}", PYTHON_BLOCKS[index])
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (
        f"README python block {index} failed:\n{code}\n--- stderr ---\n{result.stderr[-3000:]}")


def test_readme_setup_commands_are_what_ci_runs() -> None:
    first = [line.split("#")[0].strip() for line in BASH_BLOCKS[0].splitlines()]
    commands = [line for line in first if line]
    assert len(commands) == 2, "README's first screen has exactly two set-up-and-go commands"
    install, tests = commands
    ci = (ROOT / ".ci" / "run").read_text()
    ci_installs = [shlex.split(line)[5:] for line in ci.splitlines()
                   if line.startswith("python -m pip install --quiet ")]
    for part in install.split("&&")[:-1]:  # the installs; the last part is the main job
        words = shlex.split(part)
        assert words[:2] == ["pip", "install"], part
        assert words[2:] in ci_installs, f"{part!r} is not what .ci/run installs"
    assert install.split("&&")[-1].strip() == "zavandor train"
    assert tests in ci, f"README's test command {tests!r} is not what .ci/run runs"
    slow = f"{tests} -m slow"  # the slow tier, named next to the first screen
    assert f"`{slow}`" in README and slow in ci


def _command_blocks() -> list[list[str]]:
    blocks = []
    for body in BASH_BLOCKS[1:]:
        lines = [line.split(" #")[0].strip() for line in body.splitlines()]
        blocks.append([line for line in lines if line.startswith("zavandor ")])
    return [b for b in blocks if b]


@pytest.mark.parametrize("index", range(len(_command_blocks())))
def test_readme_commands_run_in_order(index: int, tmp_path: Path) -> None:
    """A block's commands run one after another in one empty folder, as a user types them
    (a later command may read what an earlier one wrote)."""
    for line in _command_blocks()[index]:
        words = shlex.split(line)
        if line.startswith(LONG_JOBS):
            words.append("--help")
        command = [sys.executable, "-m", "zavandor_env.cli", *words[1:]]
        result = subprocess.run(command, cwd=tmp_path, env=_env(), capture_output=True,
                                text=True, timeout=600)
        assert result.returncode == 0, f"{line!r} failed:\n{result.stderr[-3000:]}"


# ---- the first screen, the names and the links ---------------------------------------------
FIRST_SCREEN = "\n".join(README.splitlines()[:40])
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def test_first_screen_says_what_it_is_and_how_to_start() -> None:
    """What a reader needs before scrolling: the game's size, how one wins, what the env gives,
    the picture, the set-up commands and the example."""
    for fact in ("2–6 players", "20 rounds", "decisions", "most victory", "action mask",
                 "observation", "docs/images/table_4p_spectator.png",
                 "pip install torch==2.13.0", "python -m pytest -n 2 -q"):
        assert fact in FIRST_SCREEN, f"README's first 40 lines lack {fact!r}"
    assert f"```python\n{PYTHON_BLOCKS[0]}```" in FIRST_SCREEN, "the example is on the first screen"


def test_readme_example_is_ten_lines() -> None:
    code = [line for line in PYTHON_BLOCKS[0].splitlines() if line.strip()]
    assert len(code) <= 10, f"README's example has {len(code)} lines of code"
    assert "action_mask" in PYTHON_BLOCKS[0]


def test_readme_is_short() -> None:
    words = len(README.split())
    assert words < 900, f"README has {words} words; move detail to docs/"


def test_readme_figures_name_their_command() -> None:
    """The game-size figures on the first screen come with the command that measured them."""
    assert "209 decisions" in FIRST_SCREEN and "zavandor eval --agents heuristic naive" in README
    assert "91%" not in README, "an unmeasured checkpoint figure is back"


def test_readme_says_which_mcts_is_which() -> None:
    for spec in ("mcts:algorithm=tree", "mcts:policy=network", "IS-MCTS"):
        assert spec in README


def test_readme_says_it_is_not_affiliated_with_the_publisher() -> None:
    assert "not affiliated" in README and "Lookout Games" in README


def test_readme_links_and_images_exist() -> None:
    targets = [t for t in LINK.findall(README) if "://" not in t]
    assert targets, "README links to its documentation"
    for target in targets:
        path = (ROOT / target.split("#")[0]).resolve()
        assert path.is_file(), f"README links to {target}, which does not exist"


@pytest.mark.parametrize("code", [
    "import zavandor_env; zavandor_env.env; zavandor_env.raw_env; zavandor_env.SingleAgentEnv",
    "from zavandor_env import zavandor_v0; zavandor_v0.env; zavandor_v0.raw_env",
    "import gymnasium, zavandor_env; gymnasium.spec('Zavandor-v0')",
    "from zavandor_env.engine import Game",
    "from zavandor_env.agents import make_agent; make_agent('planner')",
])
def test_public_names_readme_shows_resolve(code: str) -> None:
    """The names README shows keep working (they are the public API users copy)."""
    for name in ("raw_env", "zavandor_v0", "SingleAgentEnv", "Zavandor-v0", "Game",
                 "make_agent"):
        assert name in README
    exec(code, {})  # noqa: S102  (a fixed list of import lines above)
