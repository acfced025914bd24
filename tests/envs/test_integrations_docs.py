"""Every python block of docs/integrations.md runs, as a user of that library would run it:
PettingZoo's test utilities, Gymnasium's ``check_env`` and vector wrappers on ``make_vec``,
SB3 / sb3-contrib on the single env and on the public native ``VecEnv``, Tianshou (PettingZoo
multi-agent and Gymnasium DQN), TorchRL (``GymEnv``, ``PettingZooWrapper``,
``check_env_specs``, its DQN recipe) and OpenSpiel (``random_sim_test`` and its IS-MCTS).

Each block runs whole in a fresh interpreter started in an empty folder, on this checkout's
code; a block may shorten its run with ``STEPS = ...  # test: N`` (as in
tests/project/test_readme.py).
A block whose library is missing is skipped, naming the extra that brings it.  Each block
asserts what it checks (the run went to the end, nothing illegal was played where the library
masks).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
SECTION = re.compile(r"^## (.+)$", re.M)
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
SHORTEN = re.compile(r"^(\s*\w+\s*=\s*)[^#\n]+#\s*test:\s*(\S+)\s*$", re.M)
#: The module each section's library is imported as, and the extra that installs it.
NEEDS = {"PettingZoo": ("pettingzoo", "rl"), "Gymnasium": ("gymnasium", "rl"),
         "Stable-Baselines3": ("sb3_contrib", "rl"), "Tianshou": ("tianshou", "integrations"),
         "TorchRL": ("torchrl", "integrations"), "OpenSpiel": ("pyspiel", "openspiel"),
         "skrl": ("skrl", "integrations"),
         # AgileRL pins its own PettingZoo: no extra; tests/envs/test_integrations_routes.py runs
         # its snippet in a virtual environment of its own.
         "AgileRL": ("agilerl", "")}


def _python_blocks() -> list[tuple[str, int, str]]:
    """(section title, index within the section, code) of every python block."""
    blocks = []
    starts = [(m.start(), m.group(1)) for m in SECTION.finditer(GUIDE)]
    for (start, title), end in zip(starts, [s for s, _ in starts[1:]] + [len(GUIDE)]):
        for k, (lang, body) in enumerate(BLOCK.findall(GUIDE[start:end])):
            if lang == "python":
                blocks.append((title, k, body))
    return blocks


BLOCKS = _python_blocks()


def _library(title: str) -> tuple[str, str]:
    for prefix, need in NEEDS.items():
        if title.startswith(prefix):
            return need
    raise AssertionError(f"docs/integrations.md section {title!r} names no known library")


def test_every_library_has_a_runnable_snippet() -> None:
    titles = {title for title, _, _ in BLOCKS}
    assert all(any(t.startswith(prefix) for t in titles) for prefix in NEEDS)


@pytest.mark.slow
@pytest.mark.parametrize(("title", "index", "code"), BLOCKS,
                         ids=[f"{t.split()[0].strip(':')}-{k}" for t, k, _ in BLOCKS])
def test_integration_snippet_runs(title: str, index: int, code: str, tmp_path: Path) -> None:
    module, extra = _library(title)
    if importlib.util.find_spec(module) is None:
        pytest.skip(f'needs the [{extra}] extra: pip install -e ".[{extra}]"' if extra else
                    f"needs {module} in a virtual environment of its own (see its section)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    short = SHORTEN.sub(lambda m: f"{m.group(1)}{m.group(2)}", code)
    result = subprocess.run([sys.executable, "-c", short], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (
        f"docs/integrations.md {title!r} block {index} failed:\n{short}\n--- stderr ---\n"
        f"{result.stderr[-3000:]}")
