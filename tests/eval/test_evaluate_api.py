"""``zavandor_env.evaluate()`` (zavandor_env/eval/evaluate.py) and ``python:module:Class``
specs (agents/registry.py): your own agents in the tournament, with intervals."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import zavandor_env
from tests.cli.test_cli import assert_one_line_error, zavandor
from zavandor_env.agents.adapters import CallableAgent
from zavandor_env.agents.base import RandomAgent
from zavandor_env.agents.registry import AgentSpecError, parse_spec
from zavandor_env.eval.stats import wilson_interval
from zavandor_env.eval.tournament import TournamentConfig

BOT = textwrap.dedent("""
    from pathlib import Path

    from zavandor_env.agents.base import Agent

    Path(__file__).with_suffix(".imported").touch()  # the tests see who imported it

    class LastLegal(Agent):
        name = "last"

        def __init__(self, seed=None, offset=0):
            super().__init__(seed)
            self.offset = offset

        def act(self, observation, view, legal_actions):
            return legal_actions[-1 - min(self.offset, len(legal_actions) - 1)]

    class NotAnAgent:
        pass
""")


@pytest.fixture
def bot_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An importable module of the user's (``zavbot_user``) with an Agent subclass."""
    (tmp_path / "zavbot_user.py").write_text(BOT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _rates(summary: dict) -> dict[str, tuple[float, list[float]]]:
    return {a["label"]: (a["win_rate"], a["win_rate_ci95"]) for a in summary["agents"]}


def test_specs_give_the_summary_zavandor_eval_writes(tmp_path: Path) -> None:
    ours = zavandor_env.evaluate(["heuristic", "random"], players=2, games=8, seed=3)
    proc = zavandor("eval", "--agents", "heuristic", "random", "--games", "8", "--seed", "3",
                    "--no-chart", "--quiet", "--out", "ev", cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    written = json.loads((tmp_path / "ev" / "summary.json").read_text())
    assert ours["agents"] == written["agents"] and ours["games"] == written["games"] == 8


def test_objects_functions_and_torch_modules_play_beside_specs() -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(710, 16), torch.nn.Tanh(), torch.nn.Linear(16, 67))

    def last_legal(obs: np.ndarray, mask: np.ndarray) -> int:
        assert obs.shape == (710,) and obs.dtype == np.float32 and mask.shape == (67,)
        return int(np.flatnonzero(mask)[-1])

    summary = zavandor_env.evaluate([last_legal, net, RandomAgent(), "random"], players=4,
                                    games=8, seed=1, workers=1)
    rates = _rates(summary)
    assert set(rates) == {"last_legal", "Sequential", "random", "random-2"}
    for agent in summary["agents"]:
        assert agent["seats_played"] == 8  # one lineup of four, every seat in turn
        assert agent["win_rate_ci95"] == pytest.approx(wilson_interval(agent["wins"], 8),
                                                       abs=1e-4)


def test_a_torch_module_plays_in_forked_workers_after_torch_ran_here() -> None:
    """A forked worker inherits torch's thread pool unusable: without one thread set in
    each worker, copying the module's weights there waits forever (a subprocess, so a hang
    fails this test instead of the suite)."""
    pytest.importorskip("torch")
    code = textwrap.dedent("""
        import torch, zavandor_env
        net = torch.nn.Sequential(torch.nn.Linear(710, 128), torch.nn.Linear(128, 67))
        net(torch.zeros(256, 710))  # large enough to start the parent's thread pool
        s = zavandor_env.evaluate([net, "random"], games=4, workers=2)
        print(sorted(a["label"] for a in s["agents"]))
    """)
    from tests.cli.test_cli import child_env

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=child_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['Sequential', 'random']"


def test_a_stateful_object_is_copied_for_each_seat() -> None:
    class Counting(CallableAgent):
        def __init__(self) -> None:
            super().__init__(lambda obs, mask: int(np.flatnonzero(mask)[0]))
            self.seen = 0

        def act(self, observation, view, legal_actions):  # type: ignore[no-untyped-def]
            self.seen += 1
            return super().act(observation, view, legal_actions)

    mine = Counting()
    zavandor_env.evaluate([mine, "random"], players=2, games=2, workers=1)
    assert mine.seen == 0  # the copies played, not the object given


def test_an_illegal_answer_names_the_action_and_the_game() -> None:
    with pytest.raises(RuntimeError, match=r"game failed: .*chose action 66, which is not "
                                           r"legal here") as info:
        zavandor_env.evaluate([lambda obs, mask: 66, "random"], games=2, workers=1)
    assert "\n" not in str(info.value)


def test_what_is_no_agent_is_refused_before_any_game() -> None:
    with pytest.raises(TypeError, match="an agent must be a spec, an Agent, a function"):
        zavandor_env.evaluate([42, "random"])

    class Locked(RandomAgent):
        def __init__(self) -> None:
            super().__init__()
            self.lock = threading.Lock()

    with pytest.raises(TypeError, match="cannot be copied for each seat"):
        zavandor_env.evaluate([Locked(), "random"])
    with pytest.raises(AgentSpecError, match="unknown agent"):
        zavandor_env.evaluate(["nonsense", "random"])


# ---- python:module:Class -------------------------------------------------------------------
def test_a_class_of_your_own_plays_from_python(bot_module: Path) -> None:
    summary = zavandor_env.evaluate(["python:zavbot_user:LastLegal,offset=1", "random"],
                                    games=4, workers=1)
    assert set(_rates(summary)) == {"LastLegal(offset=1)", "random"}
    spec = parse_spec("python:zavbot_user:LastLegal,label=mine", allow_import=True)
    assert spec.label == "mine" and spec.build(seed=0).offset == 0


def test_a_class_of_your_own_plays_from_the_command_line(bot_module: Path) -> None:
    env_path = {"PYTHONPATH": str(bot_module)}
    proc = subprocess.run(
        [sys.executable, "-m", "zavandor_env.cli", "eval", "--agents",
         "python:zavbot_user:LastLegal", "random", "--games", "4", "--no-chart", "--quiet",
         "--out", str(bot_module / "ev")],
        capture_output=True, text=True, timeout=120, cwd=bot_module,
        env=_child_env_with(env_path))
    assert proc.returncode == 0, proc.stderr
    labels = [a["label"] for a in json.loads((bot_module / "ev" / "summary.json")
                                             .read_text())["agents"]]
    assert sorted(labels) == ["LastLegal", "random"]


def _child_env_with(extra: dict[str, str]) -> dict[str, str]:
    from tests.cli.test_cli import child_env

    env = child_env()
    env["PYTHONPATH"] = extra["PYTHONPATH"] + (":" + env["PYTHONPATH"]
                                               if env.get("PYTHONPATH") else "")
    return env


@pytest.mark.parametrize("spec, message", [
    ("python:zavbot_user:NotAnAgent", "is not a subclass of zavandor_env.agents.base.Agent"),
    ("python:zavbot_user:Missing", "cannot import zavbot_user:Missing"),
    ("python:no_such_module_zz:X", "the module must be importable"),
    ("python:../evil:X", "write python:package.module:Class"),
    ("python:zavbot_user:LastLegal,depth=3", "bad parameters for agent"),
])
def test_a_bad_class_spec_is_one_line(bot_module: Path, spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message) as info:
        zavandor_env.evaluate([spec, "random"], games=2, workers=1)
    assert "\n" not in str(info.value)


def test_no_file_can_name_a_class_to_import(bot_module: Path, tmp_path: Path) -> None:
    """Importing runs the module's code: a spec read from a file (a tournament file, a
    training config, a run folder) never may, nor a parse without the caller's consent."""
    with pytest.raises(AgentSpecError, match="only on the command line"):
        parse_spec("python:zavbot_user:LastLegal")
    with pytest.raises(AgentSpecError, match="only on the command line"):
        parse_spec({"agent": "python:zavbot_user:LastLegal"})
    tournament = tmp_path / "t.yaml"
    tournament.write_text("agents: ['python:zavbot_user:LastLegal', random]\ngames: 2\n",
                          encoding="utf-8")
    with pytest.raises(ValueError, match="only on the command line"):
        TournamentConfig.from_yaml(tournament)
    proc = subprocess.run([sys.executable, "-m", "zavandor_env.cli", "eval", str(tournament),
                           "--no-chart"], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env=_child_env_with({"PYTHONPATH": str(bot_module)}))
    assert_one_line_error(proc, "only on the command line")
    assert not (bot_module / "zavbot_user.imported").exists()
