"""The scorecard: deterministic cards, one row per opponent and player count, skipped rows
reported, and the CLI's one-line errors.  Tiny cards only (2 games, cheap opponents)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from zavandor_env.agents.mcts import MCTSAgent
from zavandor_env.agents.registry import make_agent, parse_spec
from zavandor_env.cli import main
from zavandor_env.eval.run_settings import format_spec
from zavandor_env.eval.scorecard import (
    SHIPPED_POLICY,
    ScorecardConfig,
    ScorecardError,
    run_scorecard,
)
from zavandor_env.eval.scorecard_report import wrap_title

SHIPPED_2P = SHIPPED_POLICY.format(n=2)


def _card(tmp_path: Path, name: str, **kw) -> tuple[str, str, Path]:  # noqa: ANN003
    """Play a tiny card, write it to ``tmp_path/name``; its JSON, Markdown and directory."""
    options = {"spec": "heuristic", "players": (2,), "games": 2,
               "opponents": ("random", "naive"), "workers": 1, **kw}
    card = run_scorecard(ScorecardConfig(**options), progress=False)
    out = tmp_path / name
    card.write(out)
    return ((out / "scorecard.json").read_text(encoding="utf-8"),
            (out / "scorecard.md").read_text(encoding="utf-8"), out)


def test_same_seed_gives_a_byte_identical_card_whatever_the_workers(tmp_path):
    json_a, md_a, out_a = _card(tmp_path, "a", seed=3)
    json_b, md_b, out_b = _card(tmp_path, "b", seed=3, workers=2)
    assert json_a == json_b and md_a == md_b
    # Times vary between runs: they live in their own file, never in the card.
    assert "seconds" not in json_a and json.loads((out_a / "timing.json").read_text())["rows"]
    assert (out_a / "scorecard.png").stat().st_size > 0


def test_another_seed_changes_the_numbers(tmp_path):
    rows_a = json.loads(_card(tmp_path, "a", seed=0)[0])["rows"]
    rows_b = json.loads(_card(tmp_path, "b", seed=1)[0])["rows"]

    def numbers(rows: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "deal_seeds"} for r in rows]

    assert numbers(rows_a) != numbers(rows_b)


def test_the_card_has_a_row_per_opponent_and_player_count(tmp_path):
    text, md, _ = _card(tmp_path, "c", players=(3, 2, 2), opponents=("mcts", "random"),
                        mcts_iterations=1)
    card = json.loads(text)
    # Card order whatever the order given: counts ascending, opponents in the standard order.
    assert card["players"] == [2, 3] and card["opponents"] == ["random", "mcts"]
    assert [(r["players"], r["opponent"]) for r in card["rows"]] == [
        (2, "random"), (2, "mcts"), (3, "random"), (3, "mcts")]
    for row in card["rows"]:
        # 2 games per row, rounded up to a multiple of the player count (seat rotation).
        assert row["games"] == {2: 2, 3: 3}[row["players"]]
        assert row["chance"] == round(1 / row["players"], 4)
        lo, hi = row["win_rate_ci95"]
        assert 0 <= lo <= row["win_rate"] <= hi <= 1
    assert set(card["ratings"]) == {"2", "3"}
    assert set(card["ratings"]["3"]) == {"candidate", "random", "mcts"}
    mcts = card["rows"][1]["opponent_spec"]
    assert mcts == ("mcts:iterations=1,algorithm=tree,policy=heuristic,rollout=heuristic,"
                    "horizon_rounds=1,"
                    "opponent_model=search,max_depth=0,c=0.7,prior_weight=1.0,eval_scale=5.0,"
                    "search_all=false,avoid_curse=true,no_ruin=false")
    assert "IS-MCTS tree search" in md
    assert "--mcts-iterations 1" in card["command"] and "| 3 | mcts | 3 |" in md
    assert card["rules"]["allow_overbid"] is False  # the shipped policies' training rules


def test_the_mcts_opponent_is_the_tree_search_every_parameter_pinned():
    # The published cards were measured with the IS-MCTS tree search, MCTSAgent's default
    # before the flat search: the opponent must stay that search whatever the defaults.
    spec = ScorecardConfig(spec="random", mcts_iterations=16).opponent("mcts", 2)
    assert parse_spec(format_spec(spec)).params == spec.params  # the card's string round-trips
    agent = make_agent(format_spec(spec))  # the opponent as the card writes it
    assert isinstance(agent, MCTSAgent)
    assert (agent.algorithm, agent.iterations, agent.seconds, agent.policy, agent.rollout,
            agent.horizon_rounds, agent.opponent_model, agent.max_depth, agent.c,
            agent.prior_weight, agent.eval_scale, agent.search_all, agent.avoid_curse) == (
        "tree", 16, None, "heuristic", "heuristic", 1, "search", 0, 0.7, 1.0, 5.0, False, True)
    # Every search parameter of the tree search is in the spec (switch_z and min_pairs are
    # flat-only; net ... rollout_steps belong to policy=network, refused with any other
    # policy; engine changes the speed, not the play).
    tree_params = set(inspect.signature(MCTSAgent).parameters) - {
        "seed", "seconds", "weights", "engine", "switch_z", "min_pairs",
        "net", "c_puct", "opponent_temperature", "fpu_reduction", "rollout_steps"}
    assert set(spec.params) == tree_params


def test_a_missing_shipped_policy_is_reported_not_a_crash(tmp_path):
    text, md, out = _card(tmp_path, "d", opponents=("random", "shipped"),
                          shipped_policies={2: str(tmp_path / "missing.npz")})
    card = json.loads(text)
    assert [r["opponent"] for r in card["rows"]] == ["random"]
    assert card["skipped"][0]["opponent"] == "shipped"
    assert "does not exist" in card["skipped"][0]["reason"] and "Skipped rows" in md
    # A policy ships for every player count: the default card's shipped row plays at 6 too.
    card6 = run_scorecard(ScorecardConfig("random", players=(6,), games=2,
                                          opponents=("shipped",), workers=1), progress=False)
    assert [r.opponent for r in card6.rows] == ["shipped"] and not card6.skipped


def test_a_shipped_policy_that_does_not_load_is_skipped(tmp_path):
    broken = tmp_path / "broken.npz"
    broken.write_text("not a policy", encoding="utf-8")
    card = run_scorecard(ScorecardConfig("random", players=(2,), games=2, opponents=("shipped",),
                                         shipped_policies={2: str(broken)}, workers=1),
                         progress=False)
    assert not card.rows and "does not load" in card.skipped[0].reason


def test_a_policy_card_records_the_file_and_flags_a_mirror_match(tmp_path):
    text, md, _ = _card(tmp_path, "f", spec=f"policy:path={SHIPPED_2P}",
                        opponents=("shipped",))
    card = json.loads(text)
    policy = card["candidate"]["policy_file"]
    assert policy["path"] == SHIPPED_2P and len(policy["sha256"]) == 64
    assert policy["obs_fingerprint"] == card["observation_fingerprint"]
    assert card["shipped_policies"]["2"]["sha256"] == policy["sha256"]
    assert "mirror match" in md


@pytest.mark.parametrize("kw", [{"players": (7,)}, {"games": 0}, {"seed": -1},
                                {"opponents": ("expert",)}, {"mcts_iterations": 0},
                                {"game_options": {"characters": ["elf", "witch"]},
                                 "players": (4,)}])
def test_bad_configs_are_refused(kw):
    with pytest.raises(ScorecardError):
        ScorecardConfig("heuristic", **kw)


def test_cli_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["scorecard", "--help"])
    assert exc.value.code == 0 and "reference opponent" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["nobody"],                                     # unknown agent
    ["mcts:speed=3"],                               # unknown parameter
    ["policy:path=no/such/policy.npz"],             # missing file
    ["human"],                                      # asks a person
    ["heuristic", "--players", "7"],
    ["heuristic", "--players", "two"],
    ["heuristic", "--games", "0"],
    ["heuristic", "--opponents", "expert"],
    ["heuristic", "--game", "no/such/game.yaml"],
])
def test_cli_errors_are_one_line_with_exit_code_2(argv, capsys, tmp_path):
    assert _exit_code(["scorecard", *argv, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing played, nothing left behind


def test_cli_writes_the_card_and_refuses_to_overwrite_it_unasked(tmp_path, capsys):
    out = tmp_path / "card"
    argv = ["scorecard", "heuristic", "--players", "2", "--games", "2", "--opponents", "random",
            "--workers", "1", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "scorecard.json", "scorecard.md", "scorecard.png", "timing.json"]
    assert "2  random" in capsys.readouterr().out  # the console table
    first = (out / "scorecard.json").read_bytes()
    assert main(argv) == 2 and "--overwrite" in capsys.readouterr().err
    assert main([*argv, "--overwrite"]) == 0 and (out / "scorecard.json").read_bytes() == first
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    assert main([*argv, "--overwrite"]) == 2 and "did not write" in capsys.readouterr().err


def _exit_code(argv: list[str]) -> int:
    """The command's exit code, whether argparse exits (bad value) or main returns it."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_the_figure_title_wraps_a_long_spec_at_its_joints() -> None:
    title = "Scorecard: policy:path=train/checkpoints/selfplay_2p/policy.npz,label=x"
    lines = wrap_title(title, 30).split("\n")
    assert len(lines) > 1 and all(len(line) <= 30 for line in lines)
    assert "".join(lines).replace(" ", "") == title.replace(" ", "")
    assert all(line[-1] in " /,=" or line is lines[-1] for line in lines[:-1] + [lines[-1]])
    assert wrap_title("Scorecard: heuristic", 30) == "Scorecard: heuristic"
