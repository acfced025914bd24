"""Shipped files are found from any folder: a relative path falls back to the package's copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from zavandor_env.engine import GameConfig
from zavandor_env.resources import PACKAGE_DIR, data_path


def test_relative_paths_fall_back_to_the_shipped_files(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    found = data_path("configs/game/standard_4p.yaml")
    assert found == PACKAGE_DIR / "configs/game/standard_4p.yaml" and found.is_file()
    assert GameConfig.from_yaml("configs/game/standard_4p.yaml").num_players == 4
    assert data_path("train/checkpoints/selfplay_2p/policy.npz").is_file()


def test_a_file_in_the_working_folder_wins_over_the_shipped_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs" / "game").mkdir(parents=True)
    (tmp_path / "configs/game/standard_4p.yaml").write_text("num_players: 3\n")
    assert data_path("configs/game/standard_4p.yaml") == Path("configs/game/standard_4p.yaml")
    assert GameConfig.from_yaml("configs/game/standard_4p.yaml").num_players == 3


def test_a_missing_path_is_returned_unchanged_for_the_caller_to_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert data_path("configs/nothing.yaml") == Path("configs/nothing.yaml")
