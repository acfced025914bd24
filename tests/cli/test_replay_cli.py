"""`zavandor replay` and `zavandor play` from the command line."""

from __future__ import annotations

import builtins
import json

from zavandor_env.agents.base import RandomAgent
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.cli import main
from zavandor_env.engine import Game, GameConfig
from zavandor_env.eval.match import play_game


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
        err = capsys.readouterr().err
        assert "cannot read" in err or "not valid JSON" in err, err
        assert len(err.strip().splitlines()) == 1
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


# ---- hostile files: one line, nothing raw reaches the terminal ---------------------------
def short_replay() -> dict:
    """A short finished-by-limit game (few decisions: the tests below stay fast)."""
    config = GameConfig(num_players=2, max_rounds=1)
    result = play_game([RandomAgent(seed=1), RandomAgent(seed=2)], seed=3, config=config,
                       record_replay=True)
    assert result.replay is not None
    return dict(result.replay)


def test_replay_escapes_control_characters_in_agent_labels(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps({**short_replay(),
                                "agents": ["\x1b]0;pwned\x07\x1b[2Jevil\r", "bidi\u202eright"]}))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\u202e" not in out
    assert "(\\x1b]0;pwned\\x07\\x1b[2Jevil\\r)" in out and "bidi\\u202eright" in out


def test_replay_refuses_deeply_nested_json_in_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text('{"format": 1, "agents": ' + "[" * 100_000 + "]" * 100_000 + "}")
    for argv in (["replay", str(path)], ["replay", str(path), "--html", str(tmp_path / "o.html")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "nests deeper" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.html").exists()


def test_replay_refuses_out_of_range_numbers_in_one_line(tmp_path, capsys):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(short_replay())[:-1] + ', "annotations": [{"decision": 0, '
                    '"probs": {}, "value": 1e400}]}')
    assert main(["replay", str(path), "--html", str(tmp_path / "o.html")]) == 2
    err = capsys.readouterr().err
    assert "out of range" in err and len(err.strip().splitlines()) == 1


def test_an_error_quoting_a_file_name_is_escaped_too(tmp_path, capsys):
    path = tmp_path / "\x1b[31mred.json"
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[31mred.json" in err
