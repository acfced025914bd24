"""The documentation is true: docs/observation.md and docs/actions.md are generated from the code
and current, and every code block of the guide pages runs as a reader would run it.

* ``python`` blocks run whole, each in a fresh interpreter started in an empty folder (not the
  repository), so they rely only on the installed package; ``STEPS = ...  # test: N`` shortens
  a long run for the test (as in tests/project/test_readme.py).
* ``bash`` blocks run whole under ``bash -eu`` in an empty folder, as typed, with ``zavandor``
  standing for this interpreter's command line.  A command that starts a long or interactive
  job (a training run from a config or a resume, the web server, terminal play) is checked
  with ``--help`` instead of being run, ``tensorboard`` only by importing it, and ``pip``
  refuses (a test must never install into whatever Python is on the PATH).
* ``sh`` blocks are not run: installs, and the measurement commands of docs/benchmarks.md
  (hours of games).

docs/integrations.md has its own runner (tests/envs/test_integrations_docs.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from zavandor_env.codegen.observation_docs import DOCS_DIR, GENERATED
from zavandor_env.encoding.observation import OBS_SIZE, SLICES
from zavandor_env.engine import ACTION_NAMES

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
SHORTEN = re.compile(r"^(\s*\w+\s*=\s*)[^#\n]+#\s*test:\s*(\S+)\s*$", re.M)
#: The guide pages whose blocks run, relative to the repository.
PAGES = ("docs/index.md", "docs/environment.md", "docs/engine.md", "docs/native.md",
         "docs/commands.md", *sorted(str(p.relative_to(ROOT))
                                     for p in (ROOT / "docs" / "tutorials").glob("*.md")))
#: Blocks that train or time for longer than the fast tier allows: (page, a text they hold).
SLOW = (("docs/tutorials/train.md", "MaskablePPO"), ("docs/tutorials/publish.md", "publish"),
        ("docs/commands.md", "zavandor bench"))
#: ``zavandor`` wrapped for bash: long or interactive jobs answer --help instead of running.
ZAVANDOR_SHIM = """
zavandor() {
    case "$1 $*" in
        "serve "*|"play "*|"train "*--config*|"train "*--resume*)
            "$PYTHON" -m zavandor_env.cli "$@" --help >/dev/null ;;
        *) "$PYTHON" -m zavandor_env.cli "$@" ;;
    esac
}
tensorboard() { "$PYTHON" -c "import tensorboard"; }
pip() { echo "the docs test does not run pip (use an sh block for installs)" >&2; return 1; }
"""


def _blocks() -> list[tuple[str, int, str, str]]:
    """(page, index on the page, language, code) of every python and bash block."""
    found = []
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for index, (lang, code) in enumerate(BLOCK.findall(text)):
            if lang in ("python", "bash"):
                found.append((page, index, lang, code))
    return found


def _params() -> list[object]:
    params = []
    for page, index, lang, code in _blocks():
        slow = any(page == p and marker in code for p, marker in SLOW)
        params.append(pytest.param(page, lang, code, id=f"{page}:{index}",
                                   marks=[pytest.mark.slow] if slow else []))
    return params


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["MPLBACKEND"] = "Agg"
    env["PYTHON"] = sys.executable
    return env


def test_every_guide_page_has_runnable_blocks() -> None:
    pages = {page for page, _, _, _ in _blocks()}
    assert pages == set(PAGES), f"pages without a python or bash block: {set(PAGES) - pages}"


@pytest.mark.parametrize(("page", "lang", "code"), _params())
def test_docs_block_runs(page: str, lang: str, code: str, tmp_path: Path) -> None:
    if lang == "python":
        code = SHORTEN.sub(lambda m: f"{m.group(1)}{m.group(2)}", code)
        command = [sys.executable, "-c", code]
    else:
        command = ["bash", "-euc", ZAVANDOR_SHIM + code]
    result = subprocess.run(command, cwd=tmp_path, env=_env(), capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, (
        f"{page} {lang} block failed:\n{code}\n--- stderr ---\n{result.stderr[-3000:]}")


def test_the_shim_runs_short_jobs_and_only_checks_long_ones(tmp_path: Path) -> None:
    """The bash wrapper must really run a command (a failing one fails the block) and must
    not start a web server or an hour of training."""
    bad = subprocess.run(["bash", "-euc", ZAVANDOR_SHIM + "zavandor eval --agents nobody"],
                         cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "nobody" in bad.stderr
    long = subprocess.run(["bash", "-euc", ZAVANDOR_SHIM + "zavandor serve --agents heuristic"],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120)
    assert long.returncode == 0
    pip = subprocess.run(["bash", "-euc", ZAVANDOR_SHIM + "pip install nothing"],
                         cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60)
    assert pip.returncode == 1 and "does not run pip" in pip.stderr


# ---- the generated pages ---------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_doc_is_current(name: str) -> None:
    path = DOCS_DIR / name
    assert path.exists(), f"{path} is missing: run python -m zavandor_env.codegen"
    assert path.read_text(encoding="utf-8") == GENERATED[name](), (
        f"{path} is stale: run python -m zavandor_env.codegen"
    )


def test_observation_doc_covers_every_field_and_the_size() -> None:
    text = GENERATED["observation.md"]()
    assert f"float32[{OBS_SIZE}]" in text
    for name in SLICES:
        assert f"`{name.split('.')[-1]}`" in text


def test_actions_doc_names_every_action() -> None:
    text = GENERATED["actions.md"]()
    for index, name in enumerate(ACTION_NAMES):
        assert f"| {index} | `{name}` |" in text
