"""The evaluator: statistics, fair seating, shared deals, rigged results, the CLI."""

from __future__ import annotations

import json

import pytest

from zavandor_env.agents.registry import parse_spec
from zavandor_env.cli import main
from zavandor_env.eval.stats import SeatRecord, summarize, wilson_interval
from zavandor_env.eval.tournament import TournamentConfig
from zavandor_env.eval.tournament_report import TournamentReport
from zavandor_env.eval.tournament_run import run_tournament


def test_wilson_interval_matches_known_values():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(200, 200)
    assert hi == 1.0 and lo == pytest.approx(0.9812, abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    narrow = wilson_interval(900, 1000)
    wide = wilson_interval(90, 100)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]


def test_summary_counts_shared_wins_ranks_and_head_to_head():
    games = [
        [SeatRecord("a", 10, 1, 1.0), SeatRecord("b", 5, 2, 0.0)],
        [SeatRecord("b", 7, 1, 0.5), SeatRecord("a", 7, 1, 0.5)],
    ]
    agents, h2h, meetings = summarize(games)
    assert agents["a"].win_rate == 0.75 and agents["b"].win_rate == 0.25
    assert agents["a"].mean_rank == 1.0 and agents["b"].mean_rank == 1.5
    assert h2h["a"]["b"] == 0.75 and h2h["b"]["a"] == 0.25 and meetings["a"]["b"] == 2
    assert agents["a"].mu > agents["b"].mu  # OpenSkill agrees with the results


def test_rigged_pairing_heuristic_beats_an_agent_that_never_spends():
    config = TournamentConfig([parse_spec("heuristic"), parse_spec("pass")], num_players=2,
                              games=6, workers=1)
    records = run_tournament(config, progress=False)
    report = TournamentReport.build(config, records)
    h, p = report.agents["heuristic"], report.agents["pass"]
    assert h.win_rate == 1.0 and p.win_rate == 0.0 and h.seats == 6
    assert h.win_ci[0] > 0.5 and report.head_to_head["heuristic"]["pass"] == 1.0


def test_every_agent_plays_every_seat_on_the_same_deals():
    config = TournamentConfig([parse_spec("heuristic"), parse_spec("random"), parse_spec("pass")],
                              num_players=3, games=6, seed=40, workers=1,
                              game_options={"max_rounds": 3})
    records = run_tournament(config, progress=False)
    assert len(records) == 6
    for label in ("heuristic", "random", "pass"):
        seats = sorted(r.labels.index(label) for r in records)
        assert seats == [0, 0, 1, 1, 2, 2]
    by_deal: dict[int, set] = {}
    for r in records:
        by_deal.setdefault(r.task.deal, set()).add(r.task.rotation)
    assert by_deal == {0: {0, 1, 2}, 1: {0, 1, 2}}


def test_lineups_for_fewer_and_more_agents_than_seats():
    few = TournamentConfig([parse_spec("heuristic"), parse_spec("random")], num_players=4)
    assert [s.label for s in few.lineups()[0]] == ["heuristic", "random", "random", "random"]
    many = TournamentConfig([parse_spec(a) for a in ("heuristic", "random", "pass")],
                            num_players=2)
    assert len(many.lineups()) == 3


def test_tournament_rejects_duplicate_labels_and_bad_files(tmp_path):
    with pytest.raises(ValueError, match="unique"):  # a round robin with a repeated entrant
        TournamentConfig([parse_spec("random"), parse_spec("random"), parse_spec("heuristic")])
    bad = tmp_path / "t.yaml"
    bad.write_text("agents: [random]\nplayerz: 3\n")
    with pytest.raises(ValueError, match="playerz"):
        TournamentConfig.from_yaml(bad)


def test_eval_cli_runs_in_parallel_and_writes_reports(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    cfg.write_text("num_players: 2\ngames: 4\nseed: 3\nagents:\n  - heuristic\n"
                   "  - {agent: mcts, label: m2, params: {iterations: 2}}\n"
                   "game_options: {max_rounds: 4}\n")
    out = tmp_path / "out"
    rc = main(["eval", str(cfg), "--workers", "2", "--out", str(out), "--save-replays", "--quiet"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 4 and {a["label"] for a in summary["agents"]} == {"heuristic", "m2"}
    assert (out / "chart.png").stat().st_size > 0
    assert len(list((out / "replays").glob("*.json"))) == 4
    assert "win rate" in capsys.readouterr().out


def test_eval_cli_reports_bad_agents_with_exit_code_2(capsys):
    assert main(["eval", "--agents", "heuristic", "wizard", "--quiet"]) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_eval_cli_takes_rule_options_and_player_count_from_a_game_file(tmp_path, capsys):
    game_file = tmp_path / "game.yaml"
    game_file.write_text("num_players: 3\none_value_dust: true\n")
    rc = main(["eval", "--agents", "heuristic", "random", "--game", str(game_file),
               "--games", "3", "--workers", "1", "--out", str(tmp_path / "out"), "--quiet",
               "--no-chart"])
    assert rc == 0
    assert "3 players" in capsys.readouterr().out


def test_eval_cli_rejects_a_game_file_that_does_not_fit(tmp_path, capsys):
    game_file = tmp_path / "game.yaml"
    game_file.write_text("characters: [witch, elf, druid]\nnum_players: 3\n")
    rc = main(["eval", "--agents", "heuristic", "random", "--game", str(game_file),
               "--players", "2", "--quiet"])
    assert rc == 2 and "characters" in capsys.readouterr().err


# ---- fail early, never mix results ------------------------------------------------------
def test_tournament_config_refuses_negative_seed_and_workers():
    with pytest.raises(ValueError, match="seed"):
        TournamentConfig([parse_spec("random")], seed=-1)
    with pytest.raises(ValueError, match="workers"):
        TournamentConfig([parse_spec("random")], workers=0)


def test_check_agents_fails_in_this_process_before_any_game(tmp_path):
    from zavandor_env.eval.tournament import check_agents

    config = TournamentConfig([parse_spec("heuristic"),
                               parse_spec(f"policy:path={tmp_path / 'none.npz'}")])
    with pytest.raises(ValueError, match="none.npz"):
        check_agents(config)
    check_agents(TournamentConfig([parse_spec("heuristic"), parse_spec("mcts:iterations=2")]))


def test_a_tournament_with_an_interactive_agent_plays_in_this_process(monkeypatch):
    import os

    from zavandor_env.agents.human import HumanAgent

    pids = set()

    def first_legal(self, observation, view, legal_actions):
        pids.add(os.getpid())  # a forked worker would record its own pid
        return legal_actions[0]

    monkeypatch.setattr(HumanAgent, "act", first_legal)
    config = TournamentConfig([parse_spec("human"), parse_spec("random")], games=4, workers=2,
                              game_options={"max_rounds": 2})
    assert config.interactive
    records = run_tournament(config, progress=False)
    assert len(records) == 4 and pids == {os.getpid()}


def test_report_write_refuses_or_replaces_an_earlier_report(tmp_path):
    from zavandor_env.eval.run_folder import OutputDirError
    from zavandor_env.eval.tournament_report import prepare_output_dir

    def report(seed, replays):
        config = TournamentConfig([parse_spec("heuristic"), parse_spec("random")], games=2,
                                  seed=seed, workers=1, save_replays=replays,
                                  game_options={"max_rounds": 2})
        return TournamentReport.build(config, run_tournament(config, progress=False))

    out = tmp_path / "out"
    report(1, True).write(out, chart=False)
    assert (out / "replays").is_dir()
    with pytest.raises(OutputDirError, match="overwrite"):
        prepare_output_dir(out)
    with pytest.raises(OutputDirError, match="already holds"):
        report(2, False).write(out, chart=False)
    report(2, False).write(out, chart=False, replace=True)
    assert not (out / "replays").exists()
    assert json.loads((out / "summary.json").read_text())["seed"] == 2


def test_default_output_dirs_are_unique_even_within_one_second(tmp_path):
    from zavandor_env.eval.run_folder import default_output_dir

    first = default_output_dir("heuristic-random", root=tmp_path)
    second = default_output_dir("heuristic-random", root=tmp_path)
    assert first != second and first.is_dir() and second.is_dir()
    assert second.name.startswith(first.name) and first.name.endswith("-heuristic-random")


def test_malformed_tournament_yaml_is_one_line(tmp_path):
    bad = tmp_path / "t.yaml"
    bad.write_text("agents: [heuristic\n")
    with pytest.raises(ValueError, match="not valid YAML") as info:
        TournamentConfig.from_yaml(bad)
    assert "\n" not in str(info.value)


def test_one_agent_may_fill_several_seats_of_a_full_seating() -> None:
    config = TournamentConfig(agents=[parse_spec("heuristic"), parse_spec("random"),
                                      parse_spec("random"), parse_spec("random")],
                              num_players=4, games=4, workers=1)
    assert [s.label for s in config.lineups()[0]] == ["heuristic", "random", "random", "random"]
    report = TournamentReport.build(config, run_tournament(config, progress=False))
    assert report.agents["random"].seats == 12 and report.agents["heuristic"].seats == 4


def test_different_agents_under_one_label_are_refused() -> None:
    with pytest.raises(ValueError, match="labels must be unique"):
        TournamentConfig(agents=[parse_spec("heuristic"), parse_spec("mcts:label=heuristic")],
                         num_players=2)


@pytest.mark.parametrize("text, problem", [
    ("agents: " + "[" * 20_000 + "]" * 20_000 + "\n", "nests deeper"),  # was a RecursionError
    ("agents: !!binary aGVsbG8=\n", "tags"),
    ("agents: !!python/object/apply:os.system [echo hi]\n", "tags"),
    (b"agents: [\xff\xfe]\n", "not UTF-8"),
    ("a: &x [1]\nagents: *x\n", "aliases"),
])
def test_hostile_tournament_yaml_is_refused_in_one_line(tmp_path, capsys, text, problem):
    bad = tmp_path / "t.yaml"
    (bad.write_bytes if isinstance(text, bytes) else bad.write_text)(text)
    with pytest.raises(ValueError, match=problem) as info:
        TournamentConfig.from_yaml(bad)
    assert "\n" not in str(info.value)
    assert main(["eval", str(bad), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert problem in err and len(err.strip().splitlines()) == 1


def test_eval_prints_labels_from_a_file_with_control_characters_escaped(tmp_path, capsys):
    cfg = tmp_path / "t.yaml"
    cfg.write_text('agents: [heuristic, {agent: random, label: "r\\e[2J\\u202e"}]\n'
                   "games: 2\ngame_options: {max_rounds: 1}\n")
    assert main(["eval", str(cfg), "--workers", "1", "--out", str(tmp_path / "out"),
                 "--quiet", "--no-chart"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "r\\x1b[2J\\u202e" in out


@pytest.mark.parametrize("label", [r"$\undefinedmacro$", r"$\mathrm{heuristic}$"])
def test_a_label_with_dollars_is_drawn_as_text_not_math(tmp_path, label):
    """A user's label is never parsed as matplotlib math: a bad macro used to fail every
    chart (so no report, and a failing --resume), a good one drew a look-alike."""
    cfg = tmp_path / "t.yaml"
    cfg.write_text("num_players: 2\ngames: 2\nseed: 3\nagents:\n  - random\n"
                   f"  - {{agent: heuristic, label: '{label}'}}\n"
                   "game_options: {max_rounds: 2}\n")
    out = tmp_path / "out"
    assert main(["eval", str(cfg), "--workers", "1", "--out", str(out), "--quiet"]) == 0
    assert (out / "chart.png").stat().st_size > 0
    from zavandor_env.eval.charts import pyplot

    plt = pyplot()
    fig, ax = plt.subplots()
    text = ax.text(0, 0, label)
    fig.canvas.draw()
    assert text.get_text() == label and not text._preprocess_math(label)[1]
    plt.close(fig)


@pytest.mark.parametrize(("line", "flag"), [("workers: abc", ["--workers", "1"]),
                                            ("games: -3", ["--games", "2"]),
                                            ("seed: 1.5", ["--seed", "1"])])
def test_a_bad_value_in_the_file_is_refused_even_where_a_flag_replaces_it(
        tmp_path, capsys, line, flag):
    cfg = tmp_path / "t.yaml"
    cfg.write_text(f"num_players: 2\nagents: [random, heuristic]\n{line}\n")
    rc = main(["eval", str(cfg), *flag, "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and line.split(":")[0] in err and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


def test_without_openskill_the_ratings_are_null_and_say_why(monkeypatch):
    """Without the [eval] extra nothing is rated: the summary holds null (not a rating of 0),
    and the table says n/a and which install rates them."""
    import sys

    from zavandor_env.eval.stats import seat_records, summarize

    games = [seat_records(["a", "b"], [10, 5], [1, 2], [0]),
             seat_records(["a", "b"], [3, 8], [2, 1], [1])]
    rated, _, _ = summarize(games)
    if rated["a"].rated:  # openskill is installed here: a rating, then none without it
        assert rated["a"].to_dict()["rating_mu"] is not None
    monkeypatch.setitem(sys.modules, "openskill.models", None)
    agents, _, _ = summarize(games)
    assert not agents["a"].rated and agents["a"].to_dict()["rating_mu"] is None
    assert agents["a"].to_dict()["rating_ordinal"] is None
