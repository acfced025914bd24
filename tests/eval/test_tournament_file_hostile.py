"""Tournament files from strangers (zavandor_env/eval/tournament_file.py): every field
type-checked and held to its ceiling (zavandor_env/io/limits.py), lineups counted before any
is built, every problem one line, in Python and through ``zavandor eval``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zavandor_env.agents.registry import parse_spec
from zavandor_env.cli import main
from zavandor_env.eval.tournament import TournamentConfig
from zavandor_env.io import limits


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return path


def _refused(path: Path, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``words`` in the one-line ValueError of ``from_yaml`` and of ``zavandor eval``."""
    with pytest.raises(ValueError, match=re.escape(words)) as info:
        TournamentConfig.from_yaml(path)
    assert "\n" not in str(info.value)
    assert main(["eval", str(path), "--quiet", "--out", str(path.parent / "out")]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_a_small_file_asking_for_millions_of_lineups_is_refused_before_building_any(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 80 agents at 6 players: C(80, 6) = 300,500,200 lineups, from a 1.7 KB file (built up
    # front, they exhausted the memory).
    agents = ", ".join(f"{{agent: random, label: r{i}}}" for i in range(40))
    path = _file(tmp_path, f"agents: [{agents}]\nnum_players: 6\n")
    _refused(path, "3,838,380 lineups", capsys)  # C(40, 6), past MAX_LINEUPS
    many = ", ".join(f"{{agent: random, label: r{i}}}" for i in range(80))
    _refused(_file(tmp_path, f"agents: [{many}]\nnum_players: 6\n"), "80 agents", capsys)


def test_lineups_and_games_are_counted_against_their_ceilings() -> None:
    from zavandor_env.eval.tournament_file import lineup_count

    specs = [parse_spec(f"random:label=r{i}") for i in range(limits.MAX_AGENTS)]
    assert lineup_count(64, 2) == 2016 and lineup_count(3, 4) == 1 and lineup_count(4, 4) == 1
    config = TournamentConfig(specs, num_players=2, games=2)
    assert len(config.lineups()) == 2016 and config.lineups() is config.lineups()  # built once
    with pytest.raises(ValueError, match=r"games \(at most 1,000,000\)"):
        TournamentConfig(specs, num_players=2, games=10_000)  # 2,016 x 10,000 games
    with pytest.raises(ValueError, match="number of agents"):
        TournamentConfig(specs + [parse_spec("heuristic")], num_players=2)


@pytest.mark.parametrize("line, words", [
    ("workers: 100000", "workers must be an integer 1..256, got 100000"),
    ("workers: abc", "workers must be an integer 1..256, got 'abc'"),
    ("workers: true", "workers must be an integer 1..256, got True"),
    ("games: 2.5", "games must be an integer 1..1,000,000, got 2.5"),
    ("games: 100000000", "games must be an integer"),
    ("seed: 1.5", "seed must be an integer"),
    ("seed: -1", "seed must be an integer"),
    ("seed: 9223372036854775807", "seed must be an integer 0..9,223,372,036,854,775,"),
    ("num_players: '3'", "num_players must be an integer 2..6, got '3'"),
    ("num_players: true", "num_players must be an integer 2..6, got True"),
    ("players: 7", "num_players must be an integer 2..6, got 7"),
    ("players: 3\nnum_players: 3", "num_players or players, not both"),
    ("game_options: [1]", "game_options must be a mapping"),
    ("game_options: {1: 2}", "game_options must be a mapping"),
    ("game_options: {max_rounds: [1]}", "max_rounds"),
    ("game_options: {num_players: 3}", "game_options must not hold num_players"),
    ("save_replays: 'yes'", "save_replays must be true or false"),
    ("1: 2", "unknown key(s) 1"),
    ("seed: " + "1:" * 2000 + "1", "seed must be an integer"),
    ("seed: 0x" + "f" * 5000, "a number of 5,002 characters"),
])
def test_every_field_of_the_wrong_type_or_past_its_ceiling_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, words: str) -> None:
    _refused(_file(tmp_path, f"agents: [heuristic, random]\n{line}\n"), words, capsys)


@pytest.mark.parametrize("agents, words", [
    ("[1]", "agent spec must be a non-empty string"),
    ("[{agent: random, params: [1]}]", "params of agent 'random' must be a mapping"),
    ("{a: 1}", "'agents' must be a list"),
])
def test_malformed_agent_entries_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              agents: str, words: str) -> None:
    _refused(_file(tmp_path, f"agents: {agents}\n"), words, capsys)


def test_the_python_api_is_held_to_the_same_types() -> None:
    spec = parse_spec("random")
    for changes in ({"workers": 2.0}, {"games": True}, {"seed": "1"}, {"num_players": 2.0},
                    {"save_replays": 1}, {"game_options": None}):
        with pytest.raises(ValueError) as info:
            TournamentConfig([spec], **changes)  # type: ignore[arg-type]
        assert list(changes)[0] in str(info.value)
    with pytest.raises(ValueError, match="agents must be a list of agent specs"):
        TournamentConfig(["random"])  # type: ignore[list-item]


@pytest.mark.parametrize("command", [["eval", "--agents", "random", "heuristic"], ["ladder"],
                                     ["scorecard", "heuristic"]])
def test_the_workers_flag_has_the_same_ceiling(command: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "--workers", "100000"])
    assert info.value.code == 2
    assert "--workers: must be 1..256, got 100000" in capsys.readouterr().err


def test_the_shipped_tournament_files_load(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2] / "configs" / "eval"
    for path in sorted(root.glob("*.yaml")):
        assert TournamentConfig.from_yaml(path).lineups()
