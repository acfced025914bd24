"""Every code block of README.md (and every python block of the guides in GUIDES) runs, as a
new user would run it.

* ``python`` blocks run whole, each in a fresh interpreter started in an empty folder (not the
  repository), so they may only rely on the installed package.  A block may shorten a long
  run for the test with a line ``STEPS = ...  # test: N`` (the test replaces the value by N).
* ``bash`` blocks: the first one holds README's two set-up-and-go commands, which must be the
  very commands ``.ci/run`` runs; in the others every line that starts with ``zavandor`` is run
  from an empty folder (with ``--help`` appended when it starts a long or interactive job:
  training, terminal play, the web server).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
BLOCKS = [(lang, body) for lang, body in BLOCK.findall(README)]
PYTHON_BLOCKS = [body for lang, body in BLOCKS if lang == "python"]
BASH_BLOCKS = [body for lang, body in BLOCKS if lang == "bash"]
# Guides whose python blocks run the same way (each in a fresh interpreter, empty folder).
GUIDES = ("docs/native.md",)
GUIDE_BLOCKS = [(guide, body) for guide in GUIDES
                for lang, body in BLOCK.findall((ROOT / guide).read_text(encoding="utf-8"))
                if lang == "python"]
SHORTEN = re.compile(r"^(\s*\w+\s*=\s*)[^#\n]+#\s*test:\s*(\S+)\s*$", re.M)
# Commands that start a long job: the test checks they parse (--help) instead of running them.
LONG_JOBS = ("zavandor train", "zavandor play", "zavandor serve")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["MPLBACKEND"] = "Agg"
    return env


def test_readme_has_code_blocks() -> None:
    assert len(PYTHON_BLOCKS) >= 3 and len(BASH_BLOCKS) >= 2


def _first_slow(count: int) -> list[object]:
    """Block indices, the first in the slow tier: README's first python block is the
    quickstart (a training run); its first command block runs eval, replay, bench and
    selfcheck one after another."""
    return [pytest.param(i, marks=pytest.mark.slow) if i == 0 else i for i in range(count)]


@pytest.mark.parametrize("index", _first_slow(len(PYTHON_BLOCKS)))
def test_readme_python_block_runs(index: int, tmp_path: Path) -> None:
    code = SHORTEN.sub(lambda m: f"{m.group(1)}{m.group(2)}", PYTHON_BLOCKS[index])
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (
        f"README python block {index} failed:\n{code}\n--- stderr ---\n{result.stderr[-3000:]}")


@pytest.mark.parametrize("index", range(len(GUIDE_BLOCKS)))
def test_guide_python_block_runs(index: int, tmp_path: Path) -> None:
    guide, code = GUIDE_BLOCKS[index]
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (
        f"{guide} python block failed:\n{code}\n--- stderr ---\n{result.stderr[-3000:]}")


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


@pytest.mark.parametrize("index", _first_slow(len(_command_blocks())))
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
