"""Ctrl-C stops a long native MCTS search at once: the search runs without the GIL and checks
for signals about every 10 ms, so a KeyboardInterrupt is raised in the caller."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.interrupt import terminal_sigint

ROOT = Path(__file__).resolve().parents[2]

#: A child that starts a search of a million iterations (hours) and says when.
CHILD = """
import sys
from zavandor_env.agents.mcts import MCTSAgent
from zavandor_env.engine import Game
game = Game.new(num_players=4, seed=2)
agent = MCTSAgent(seed=0, iterations=1_000_000, algorithm=sys.argv[1])
agent.reset(game.current_player, 4)
print("searching", flush=True)
try:
    agent.act(None, game.view(game.current_player), game.legal_actions())
except KeyboardInterrupt:
    print("interrupted", flush=True)
    raise
print("returned", flush=True)
"""


@pytest.mark.parametrize("algorithm", ["flat", "tree"])
def test_ctrl_c_stops_a_long_native_search_with_keyboard_interrupt(algorithm: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, algorithm], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=terminal_sigint)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "searching", proc.communicate()[1]
        time.sleep(0.5)  # well inside the search
        assert proc.poll() is None
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "interrupted" in out and "returned" not in out
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    assert took < 5.0
