"""`zavandor replay` and `zavandor play` from the command line."""

from __future__ import annotations

import builtins
import json

from zavandor_env.agents.base import RandomAgent
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.match import play_game
from zavandor_env.cli import main
from zavandor_env.engine import Game, GameConfig


def test_replay_file_round_trips_to_the_same_final_state(tmp_path, capsys):
    result = play_game([HeuristicAgent(seed=1), RandomAgent(seed=2)], seed=9, record_replay=True)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(result.replay))
    rebuilt = Game.from_replay_record(json.loads(path.read_text()))
    assert rebuilt.scores() == result.scores and rebuilt.state.round == result.rounds
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"[{result.decisions}/{result.decisions}]" in out and "Final VP" in out


def test_replay_rejects_malformed_files_with_exit_code_2(tmp_path, capsys):
    cases = {
        "not_json.json": "{oops",
        "missing.json": json.dumps({"format": 1}),
        "bad_action.json": json.dumps({"format": 1, "config": GameConfig().to_dict(), "seed": 1,
                                       "actions": [66, 66]}),
        "bad_config.json": json.dumps({"format": 1, "config": {"num_players": 9}, "seed": 1,
                                       "actions": []}),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        assert main(["replay", str(path)]) == 2, name
        assert "cannot read" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "absent.json")]) == 2


def test_play_cli_lets_a_human_finish_a_game(tmp_path, monkeypatch, capsys):
    answers = iter(["help", "end_turn", "pass", "0"] + ["end_turn"] * 0)

    def fake_input(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            return "end_turn" if "end_turn" in capsys_buffer[-1] else "pass"

    capsys_buffer = [""]
    real_print = builtins.print

    def spy_print(*args, **kwargs):
        capsys_buffer.append(" ".join(str(a) for a in args))
        real_print(*args, **kwargs)

    monkeypatch.setattr(builtins, "input", fake_input)
    monkeypatch.setattr(builtins, "print", spy_print)
    save = tmp_path / "mine.json"
    rc = main(["play", "pass", "--seed", "2", "--no-colour", "--save", str(save)])
    assert rc == 0
    assert Game.from_replay_record(json.loads(save.read_text())).is_over
