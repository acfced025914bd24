"""``zavandor eval --ray``: the same games as the process pool, as Ray tasks, with the same
results and files for the same seeds; and one-line errors for ``--ray`` without Ray and
``--address`` without ``--ray``.  The Ray tests are skipped without the ``[ray]`` extra."""

from __future__ import annotations

import csv
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from zavandor_env.agents.registry import parse_spec
from zavandor_env.cli import main
from zavandor_env.eval.tournament import TournamentConfig
from zavandor_env.eval.tournament_run import run_tournament

POLICY = Path(__file__).resolve().parents[2] / "train" / "checkpoints" / "selfplay_2p"
#: Three agents (three lineups), one of them a policy that reads the encoded observation.
AGENTS = ["heuristic", "novice", f"policy:path={POLICY / 'policy.npz'},deterministic=false"]
#: The one wall-clock figure of summary.json (and column of games.csv): never reproducible.
WALL_CLOCK = "mean_seconds_per_game"


@pytest.fixture(scope="module")
def ray_local() -> Any:
    """A small local Ray shared by the tests (``eval --ray`` uses a session it finds open)."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    yield ray
    ray.shutdown()


def evaluate(out: Path, *extra: str) -> None:
    args = ["eval", "--agents", *AGENTS, "--games", "4", "--seed", "17", "--out", str(out),
            "--quiet", "--no-chart", "--save-replays", *extra]
    assert main(args) == 0


def games_rows(out: Path) -> list[dict[str, str]]:
    with open(out / "games.csv", newline="", encoding="utf-8") as fh:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(fh)]


@pytest.mark.slow  # a tournament on Ray through the command line
def test_eval_on_ray_writes_the_local_pools_results(ray_local: Any, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    evaluate(tmp_path / "pool", "--workers", "2")
    evaluate(tmp_path / "ray", "--ray")
    local = (tmp_path / "pool" / "summary.json").read_text()
    remote = (tmp_path / "ray" / "summary.json").read_text()
    # Byte for byte, once the wall-clock figure (which differs between any two runs, local
    # ones too) is set aside.
    assert WALL_CLOCK in local
    strip = [line for line in local.splitlines() if WALL_CLOCK not in line]
    assert strip == [line for line in remote.splitlines() if WALL_CLOCK not in line]
    assert json.loads(local)["games"] == 12
    assert games_rows(tmp_path / "pool") == games_rows(tmp_path / "ray")
    replays = sorted(p.name for p in (tmp_path / "pool" / "replays").iterdir())
    assert replays and replays == sorted(p.name for p in (tmp_path / "ray" / "replays").iterdir())
    for name in replays:
        assert ((tmp_path / "pool" / "replays" / name).read_bytes()
                == (tmp_path / "ray" / "replays" / name).read_bytes()), name
    assert "wrote" in capsys.readouterr().out


@pytest.mark.slow  # starts a local Ray
def test_run_tournament_on_ray_returns_the_same_records_in_the_same_order(
        ray_local: Any) -> None:
    config = TournamentConfig(agents=[parse_spec("heuristic"), parse_spec("random")],
                              num_players=3, games=6, seed=4, workers=1)
    here = run_tournament(config, progress=False)
    seen: list[Any] = []
    there = run_tournament(config, progress=False, on_record=seen.append, use_ray=True)
    assert len(seen) == len(there) == len(here) == 6
    assert [(r.task, r.labels, r.scores, r.ranks, r.decisions) for r in here] == \
        [(r.task, r.labels, r.scores, r.ranks, r.decisions) for r in there]


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_ray_without_the_extra_is_one_line_naming_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as without the extra
    out = tmp_path / "out"
    assert main(["eval", "--agents", "random", "random:label=r2", "--ray", "--out",
                 str(out)]) == 2
    line = one_line(capsys)
    assert "--ray" in line and 'pip install -e ".[ray]"' in line
    assert not out.exists()  # refused before any directory or game


def test_address_without_ray_is_refused(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    assert main(["eval", "--agents", "random", "random:label=r2", "--address", "auto",
                 "--out", str(tmp_path / "out")]) == 2
    assert "--ray" in one_line(capsys)


def test_a_cluster_that_cannot_be_joined_is_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("ray client connection timeout")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    out = tmp_path / "out"
    assert main(["eval", "--agents", "random", "random:label=r2", "--ray", "--address",
                 "ray://nowhere:10001", "--out", str(out)]) == 2
    line = one_line(capsys)
    assert "ray://nowhere:10001" in line and "timeout" in line
    assert not out.exists()
