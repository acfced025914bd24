"""The ladder (``zavandor ladder``): end to end through the CLI at 2, 4 and 6 players,
byte-identical output, ratings that order a rigged field, the balanced schedule, resuming,
the doc section and one-line errors.  Cheap agents only (random and the heuristic: microseconds
per decision); the standard list with its searches runs in the slow tier."""

from __future__ import annotations

import errno
import importlib.util
import itertools
import json
from pathlib import Path

import pytest

from zavandor_env.agents.registry import parse_spec
from zavandor_env.cli import main
from zavandor_env.eval import ladder as ld
from zavandor_env.eval.ladder import (
    STANDARD_AGENTS,
    LadderConfig,
    LadderError,
    LadderTournament,
    run_ladder,
    schedule_tables,
)
from zavandor_env.eval.ladder_report import DOC_BEGIN, DOC_END
from zavandor_env.eval.ladder_schedule import pair_counts
from zavandor_env.eval.tournament import schedule

#: Six cheap agents (so 6 players have a table): three random, three heuristic.
CHEAP = ["random", "random:label=random2", "random:label=random3",
         "heuristic", "heuristic:label=heuristic2", "heuristic:label=heuristic3"]


def _ladder_cli(out: Path, *extra: str, players: tuple[str, ...] = ("2", "4", "6")) -> int:
    return main(["ladder", "--players", *players, "--games", "1", "--agents", *CHEAP,
                 "--workers", "1", "--out", str(out), "--quiet", *extra])


def _exit_code(argv: list[str]) -> int:
    """The command's exit code, whether argparse exits (bad value) or main returns it."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_a_tiny_ladder_runs_end_to_end_at_2_4_and_6_players(tmp_path, capsys):
    out = tmp_path / "ladder"
    assert _ladder_cli(out) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "cost.json", "ladder.json", "ladder.png", "leaderboard.md"]  # journals removed
    data = json.loads((out / "ladder.json").read_text(encoding="utf-8"))
    assert sorted(data["boards"]) == ["2", "4", "6"]
    two, four, six = (data["boards"][n] for n in ("2", "4", "6"))
    assert len(two["schedule"]["tables"]) == 15 and len(two["games"]) == 30  # 15 pairs x 2
    assert len(four["schedule"]["tables"]) == 6 and len(four["games"]) == 24
    assert len(six["schedule"]["tables"]) == 1 and len(six["games"]) == 6
    for board in (two, four, six):
        assert {row["label"] for row in board["ratings"]} == {parse_spec(a).label for a in CHEAP}
        assert all(row["rating_interval"][0] < row["rating_mu"] < row["rating_interval"][1]
                   for row in board["ratings"])
        first = board["ratings"][0]["label"]  # every other agent has a cell and a count
        assert len(board["win_matrix"][first]) == len(board["win_matrix_games"][first]) == 5
    md = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "### 2 players" in md and "### 6 players" in md and "| **heuristic** |" in md
    cost = json.loads((out / "cost.json").read_text(encoding="utf-8"))
    assert cost["boards"]["4"]["agents"]["heuristic"]["seconds_per_decision"] >= 0
    assert "6 players, 6 games:" in capsys.readouterr().out


def test_the_same_inputs_give_byte_identical_ladder_files_whatever_the_workers(tmp_path):
    assert _ladder_cli(tmp_path / "a", "--no-chart") == 0
    assert main(["ladder", "--players", "2", "4", "6", "--games", "1", "--agents", *CHEAP,
                 "--workers", "2", "--out", str(tmp_path / "b"), "--quiet", "--no-cost",
                 "--no-chart"]) == 0
    for name in ("ladder.json", "leaderboard.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_the_search_and_the_policy_on_fixed_budgets_play_the_same_ladder_twice(tmp_path):
    agents = ["mcts:policy=planner,iterations=8,label=mcts",
              "policy:path=train/checkpoints/selfplay_{n}p/policy.npz,label=shipped", "random"]
    if importlib.util.find_spec("pyspiel") is not None:
        # OpenSpiel's IS-MCTS draws its worlds from the agent's seed, never the OS's.
        agents.append("openspiel:bot=ismcts,simulations=4,label=ismcts")
    for out, workers in (("a", "1"), ("b", "2")):
        assert main(["ladder", "--players", "2", "--games", "2", "--agents", *agents,
                     "--workers", workers, "--out", str(tmp_path / out), "--quiet",
                     "--no-cost", "--no-chart"]) == 0
    for name in ("ladder.json", "leaderboard.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_another_seed_plays_other_deals():
    def games(seed: int) -> list[dict]:
        ladder = run_ladder(LadderConfig(players=(2,), games=2, seed=seed,
                                         agents=("random", "heuristic"), workers=1),
                            progress=False, probe=False)
        return ladder.to_dict()["boards"]["2"]["games"]

    first, other = games(0), games(5)
    assert [g["seed"] for g in other] == [5, 5] and first != other


def test_ratings_put_the_heuristic_above_random():
    ladder = run_ladder(LadderConfig(players=(2,), games=6, agents=("random", "heuristic"),
                                     workers=1), progress=False, probe=False)
    board = ladder.to_dict()["boards"]["2"]
    assert [row["label"] for row in board["ratings"]] == ["heuristic", "random"]
    mu = {row["label"]: row["rating_mu"] for row in board["ratings"]}
    assert mu["heuristic"] > mu["random"]
    assert board["win_matrix"]["heuristic"]["random"] == 1.0
    assert board["win_matrix_games"]["heuristic"]["random"] == 6


@pytest.mark.parametrize(("k", "n"), [(k, n) for n in (3, 4, 5, 6) for k in range(n, 13)])
def test_the_schedule_seats_every_agent_equally_and_every_pair_meets(k, n):
    tables = schedule_tables(k, n)
    assert all(len(set(t)) == n for t in tables)
    at = [sum(i in t for t in tables) for i in range(k)]
    assert len(set(at)) == 1  # every agent at as many tables
    meetings = pair_counts(tables, k)
    assert min(meetings.values()) >= 1  # every pair meets
    assert schedule_tables(k, n) == tables  # deterministic


def test_two_players_is_a_full_round_robin_and_seven_at_four_a_perfect_design():
    assert schedule_tables(5, 2) == list(itertools.combinations(range(5), 2))
    meetings = pair_counts(schedule_tables(7, 4), 7)
    assert set(meetings.values()) == {2}  # the (7, 4, 2) difference set
    assert len(schedule_tables(7, 6)) == 7 and set(pair_counts(
        schedule_tables(7, 6), 7).values()) == {5}


def test_every_agent_sits_in_every_seat_equally_often():
    agents = [parse_spec(a) for a in CHEAP[:5]]
    tour = LadderTournament(agents, num_players=4, games=4, workers=1,
                            tables=tuple(schedule_tables(5, 4)))
    seats: dict[tuple[str, int], int] = {}
    for task in schedule(tour):
        lineup = tour.lineups()[task.lineup]
        for seat in range(4):  # the tournament's rotation: seat s holds lineup[(s - r) % n]
            label = lineup[(seat - task.rotation) % 4].label
            seats[label, seat] = seats.get((label, seat), 0) + 1
    assert len(seats) == 20 and set(seats.values()) == {4}


def test_a_killed_ladder_resumes_to_the_same_result(tmp_path):
    config = LadderConfig(players=(2, 4), games=2, agents=tuple(CHEAP[:4]), workers=1)
    whole = run_ladder(config, progress=False, probe=False).to_dict()
    out = tmp_path / "run"
    out.mkdir()
    run_ladder(config, progress=False, probe=False, out_dir=out)  # journals stay: not written
    journal = out / "games_4p.jsonl"
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:3]) + lines[3][:10], encoding="utf-8")  # torn line
    (out / "games_2p.jsonl").unlink()  # killed before the 2-player games... as if not begun
    resumed = run_ladder(config, progress=False, probe=False, out_dir=out, resume=True)
    assert resumed.to_dict() == whole


def test_the_cli_resumes_and_refuses_to_overwrite_unasked(tmp_path, capsys):
    out = tmp_path / "ladder"
    assert _ladder_cli(out, "--no-cost", players=("2",)) == 0
    first = (out / "ladder.json").read_bytes()
    assert _ladder_cli(out, players=("2",)) == 2 and "--overwrite" in capsys.readouterr().err
    assert _ladder_cli(out, "--overwrite", "--no-cost", players=("2",)) == 0
    assert (out / "ladder.json").read_bytes() == first
    (out / "games_2p.jsonl").write_text("{}\n", encoding="utf-8")  # an interrupted run's
    assert _ladder_cli(out, players=("2",)) == 2 and "--resume" in capsys.readouterr().err
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    assert _ladder_cli(out, "--overwrite", players=("2",)) == 2
    assert "did not write" in capsys.readouterr().err


def test_a_ladder_whose_journal_cannot_grow_stops_in_one_line_and_keeps_its_games(
        tmp_path, capsys, monkeypatch):
    from zavandor_env.eval.journal import Journal

    append, calls = Journal.append, []

    def full_disk(self, entry) -> None:  # the first game is recorded, then the disk is full
        calls.append(entry)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        append(self, entry)

    monkeypatch.setattr(Journal, "append", full_disk)
    out = tmp_path / "ladder"
    assert _ladder_cli(out, "--no-cost", players=("2",)) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "cannot record the games" in line and "No space left" in line and "--resume" in line
    assert len((out / "games_2p.jsonl").read_text().splitlines()) == 2  # header and one game


def test_update_doc_replaces_only_the_marked_section(tmp_path):
    doc = tmp_path / "leaderboard.md"
    doc.write_text(f"# Title\n\nkept\n\n{DOC_BEGIN}\nold\n{DOC_END}\n\nkept too\n",
                   encoding="utf-8")
    out = tmp_path / "ladder"
    assert _ladder_cli(out, "--update-doc", str(doc), players=("2",)) == 0
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nkept\n\n") and text.endswith(f"{DOC_END}\n\nkept too\n")
    assert "old" not in text and "### 2 players" in text and "### Cost per row" in text


def test_the_standard_agents_use_fixed_budgets_and_leave_out_what_cannot_be_built():
    labels = [a.label for a in STANDARD_AGENTS]
    assert labels[:7] == ["random", "novice", "heuristic", "naive", "planner",
                          "mcts-planner", "shipped"]
    for agent in STANDARD_AGENTS:
        params = agent.at(2).params
        assert "seconds" not in params
        if agent.at(2).agent == "mcts":
            assert isinstance(params["iterations"], int)
    assert {a.label for a in STANDARD_AGENTS if a.optional} == {"mcts-network",
                                                                "openspiel-ismcts"}
    assert "{n}p" in next(a.spec for a in STANDARD_AGENTS if a.label == "shipped")


def test_the_distilled_network_sits_where_it_was_shipped_and_is_left_out_elsewhere():
    entries, skipped = ld.plan(LadderConfig(players=(2, 4, 6)))
    for n in (2, 4):
        exit_entry = next(e for e in entries[n] if e.label == "exit")
        assert exit_entry.spec.params["path"] == f"train/checkpoints/exit_{n}p/policy.npz"
    assert "exit" not in [e.label for e in entries[6]]
    left_out = [(s.players, s.label, s.reason) for s in skipped if s.label == "exit"]
    assert left_out == [(6, "exit", "train/checkpoints/exit_6p/policy.npz does not exist")]


def test_an_optional_agent_that_cannot_be_built_is_left_out_with_its_reason(monkeypatch):
    broken = ld.StandardAgent("broken", "mcts:policy=nothing,iterations=4", "x", optional=True)
    monkeypatch.setattr(ld, "STANDARD_AGENTS", (*STANDARD_AGENTS[:2], broken))
    entries, skipped = ld.plan(LadderConfig(players=(2,)))
    assert [e.label for e in entries[2]] == ["random", "novice"]
    assert [(s.label, s.players) for s in skipped] == [("broken", 2)] and "policy" in \
        skipped[0].reason
    present = ld.StandardAgent("present", "random", "x", optional=True)
    monkeypatch.setattr(ld, "STANDARD_AGENTS", (*STANDARD_AGENTS[:2], present))
    entries, skipped = ld.plan(LadderConfig(players=(2,)))  # optional, and built: it plays
    assert [e.label for e in entries[2]] == ["random", "novice", "present"] and not skipped
    required = ld.StandardAgent("needed", "mcts:policy=nothing,iterations=4", "x")
    monkeypatch.setattr(ld, "STANDARD_AGENTS", (*STANDARD_AGENTS[:2], required))
    with pytest.raises(ValueError, match="policy"):
        ld.plan(LadderConfig(players=(2,)))


def test_a_spec_with_the_player_count_keeps_one_label_at_every_count():
    spec = "policy:path=train/checkpoints/selfplay_{n}p/policy.npz"
    entries, _ = ld.plan(LadderConfig(players=(2, 4), agents=(spec, *CHEAP[:3])))
    labels = {n: entries[n][0].label for n in (2, 4)}
    assert labels[2] == labels[4] == "policy(path=train/checkpoints/selfplay_{n}p/policy.npz)"
    assert entries[4][0].spec.params["path"] == "train/checkpoints/selfplay_4p/policy.npz"


def test_cli_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ladder", "--help"])
    assert exc.value.code == 0 and "win matrix" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["--players", "7"],
    ["--players", "two"],
    ["--games", "0"],
    ["--seed", "-1"],
    ["--agents", "random", "nobody"],                     # unknown agent
    ["--agents", "random", "mcts:speed=3"],               # unknown parameter
    ["--agents", "random", "mcts:seconds=0.05"],          # a time budget
    ["--agents", "random", "human"],                      # asks a person
    ["--agents", "random", "random"],                     # the same label twice
    ["--agents", "random", "heuristic", "--players", "4"],  # fewer agents than seats
    ["--agents", "random", "policy:path=no/such/{n}p.npz"],
    ["--agents", "random", "heuristic", "--resume"],      # resume in --out that has none
    ["--agents", "random", "heuristic", "--update-doc", "no/such/doc.md"],
    ["--agents", "random", "heuristic", "--game", "no/such/game.yaml"],
])
def test_cli_errors_are_one_line_with_exit_code_2(argv, capsys, tmp_path):
    assert _exit_code(["ladder", *argv, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing played, nothing left behind


def test_bad_configs_are_refused():
    for kw in ({"players": ()}, {"players": (1,)}, {"games": 0}, {"seed": -2},
               {"workers": 0}, {"game_options": {"num_players": 2}},
               {"agents": tuple(f"random:label=r{i}" for i in range(ld.MAX_AGENTS + 1))}):
        with pytest.raises(LadderError):
            LadderConfig(**kw)  # type: ignore[arg-type]
    with pytest.raises(LadderError, match="at least 3 agents"):
        schedule_tables(2, 3)


@pytest.mark.slow
def test_the_standard_ladder_runs_at_2_4_and_6_players(tmp_path):
    """The CI run of the standard list (its searches included) with the smallest --games."""
    out = tmp_path / "standard"
    assert main(["ladder", "--players", "2", "4", "6", "--games", "1", "--out", str(out),
                 "--quiet", "--no-cost"]) == 0  # the probe is the fast tier's to test
    data = json.loads((out / "ladder.json").read_text(encoding="utf-8"))
    for n in ("2", "4", "6"):
        labels = [a["label"] for a in data["boards"][n]["agents"]]
        assert labels[:7] == ["random", "novice", "heuristic", "naive", "planner",
                              "mcts-planner", "shipped"]
