"""Without an optional extra, what needs it says which extra to install, in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WITHOUT_PYSPIEL = "import sys; sys.modules['pyspiel'] = None  # import pyspiel fails\n"


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", WITHOUT_PYSPIEL + code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_openspiel_agent_without_the_extra_is_a_one_line_cli_error(tmp_path: Path) -> None:
    result = _run("from zavandor_env.cli import main\n"
                  "sys.exit(main(['eval', '--agents', 'openspiel:bot=ismcts', 'random', "
                  "'--games', '2', '--quiet', '--no-chart']))", tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "zavandor eval: agent 'openspiel': OpenSpiel needs the openspiel extra: "
        'pip install -e ".[openspiel]"']


def test_the_openspiel_game_classes_without_the_extra_name_it(tmp_path: Path) -> None:
    result = _run("import zavandor_env.envs.openspiel as o\n"
                  "try:\n    o.ZavandorGame\nexcept ImportError as e:\n    print(e)\n", tmp_path)
    assert result.returncode == 0 and 'pip install -e ".[openspiel]"' in result.stdout
