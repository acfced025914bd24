"""The conventions every ``zavandor`` command keeps: help and examples, "did you mean",
progress and colour only on a terminal, train's start and end lines, and ``zavandor publish``
that never overwrites a policy folder unasked.

In-process (``main(argv)`` with captured output) wherever no real process or terminal matters;
a terminal is faked by a stream whose ``isatty()`` is true.
"""

from __future__ import annotations

import builtins
import io
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.outputs_helpers import child_env
from zavandor_env.cli import COMMANDS, build_parser, main, package_version
from zavandor_env.resources import PACKAGE_DIR, data_path

SHIPPED_2P = PACKAGE_DIR / "train" / "checkpoints" / "selfplay_2p"
TINY_GAME = "max_rounds: 3\nnum_players: 2\n"


class Terminal(io.StringIO):
    """A captured stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``main(argv)``'s exit code (argparse's SystemExit included), stdout and stderr."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def fake_run(tmp_path: Path) -> Path:
    """A run folder as training leaves it (its policy and config): the shipped 2p policy's."""
    run = tmp_path / "runs" / "selfplay_2p__1__20260101-120000"
    run.mkdir(parents=True)
    for name in ("policy.npz", "config.yaml"):
        shutil.copyfile(SHIPPED_2P / name, run / name)
    return run


# ---- 1. help ----------------------------------------------------------------------------------
def test_bare_zavandor_prints_the_help_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main([], capsys)
    assert code == 0 and not err
    assert out.startswith("usage: zavandor") and "examples:" in out
    assert all(f"    {name}" in out for name, _ in COMMANDS)


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["--version"], capsys)
    assert code == 0 and out.strip() == f"zavandor {package_version()}"
    assert package_version() not in ("", "unknown")


def example_lines(help_text: str) -> list[str]:
    """The commands of a help's ``examples:`` block."""
    block = help_text.partition("\nexamples:\n")[2]
    assert block, "no examples: block"
    return [line.strip() for line in block.splitlines() if line.strip().startswith("zavandor ")]


@pytest.mark.parametrize("command", [name for name, _ in COMMANDS])
def test_every_command_help_has_examples_that_parse(command: str) -> None:
    parser = build_parser()
    lines = example_lines(parser.commands[command].format_help())
    own = [line for line in lines if shlex.split(line)[1] == command]
    assert len(own) >= 2  # (a command's examples may first make its input with another)
    for line in lines:
        words = shlex.split(line)
        args = build_parser().parse_args(words[1:])  # a bad flag would exit here
        assert args.command == words[1]
        shipped = [w.partition("path=")[2] or w for w in words[2:]]
        for word in shipped:  # a shipped file named in an example is there, from any folder
            if word.startswith(("configs/", "train/checkpoints/")):
                assert data_path(word).exists(), (line, word)


def test_the_top_level_examples_name_real_commands(capsys: pytest.CaptureFixture[str]) -> None:
    for line in example_lines(build_parser().format_help()):
        words = shlex.split(line)[1:]
        if "--help" in words:
            continue
        assert build_parser().parse_args(words).command == words[0]


def test_train_help_lists_every_shipped_config_with_its_description() -> None:
    text = build_parser().commands["train"].format_help()
    assert "Trains a policy by self-play" in text  # a description, not only options
    shipped = sorted((PACKAGE_DIR / "configs").glob("*.yaml"))
    assert len(shipped) >= 5
    for path in shipped:
        line = next((ln for ln in text.splitlines() if f"configs/{path.name} " in ln), None)
        assert line is not None, f"{path.name} is not listed"
        header = path.read_text().splitlines()[0].lstrip("# ")
        described = line.split(path.name, 1)[1].strip()
        assert described and header.startswith(described.rstrip(".").split("...")[0]), line


# ---- 2. did you mean ----------------------------------------------------------------------------
def test_a_mistyped_command_suggests_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["evl", "--agents", "heuristic", "random"], capsys)
    line = one_line(err)
    assert code == 2 and line.startswith("zavandor: ")
    assert "did you mean 'eval'?" in line and len(line) < 120


def test_a_mistyped_option_is_named_by_its_command_with_the_closest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_main(["eval", "--agents", "heuristic", "random", "--gmes", "3"], capsys)
    line = one_line(err)
    assert code == 2 and line.startswith("zavandor eval: ")
    assert "--gmes" in line and "'--games'" in line and "zavandor eval --help" in line


@pytest.mark.parametrize("override, typo, meant", [
    ("totl_timesteps=5", "totl_timesteps", "ppo.total_timesteps"),
    ("game.max_round=40", "max_round", "max_rounds"),
])
def test_an_unknown_set_key_is_one_short_line_with_the_closest_keys(
    override: str, typo: str, meant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(["train", "--set", override], capsys)
    line = one_line(err)
    assert code == 2 and line.startswith("zavandor train: ")
    assert f"'{typo}'" in line and f"did you mean '{meant}'?" in line
    assert len(line) < 160
    assert not (tmp_path / "runs").exists()


def test_an_unknown_key_in_a_config_file_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("mine.yaml").write_text("name: mine\ntotl_timesteps: 5\n")
    code, _, err = run_main(["train", "--config", "mine.yaml"], capsys)
    line = one_line(err)
    assert code == 2 and "mine.yaml" in line and "did you mean 'ppo.total_timesteps'?" in line
    assert len(line) < 160


# ---- 3. progress bars and colour only on a terminal ----------------------------------------
def eval_argv(tmp_path: Path) -> list[str]:
    game = tmp_path / "tiny.yaml"
    game.write_text(TINY_GAME)
    return ["eval", "--agents", "heuristic", "random", "--games", "2", "--game", str(game),
            "--workers", "1", "--no-chart", "--out", str(tmp_path / "out")]


def test_no_progress_bar_goes_into_a_redirected_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_main(eval_argv(tmp_path), capsys)
    assert code == 0, err
    assert "games:" not in err and "\r" not in err


def test_a_progress_bar_is_drawn_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(eval_argv(tmp_path)) == 0
    assert "games:" in terminal.getvalue()


@pytest.mark.parametrize("terminal", [False, True])
def test_the_training_bar_is_drawn_only_on_a_terminal(
    terminal: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("stable_baselines3")
    from zavandor_env.train.common.run import progress_bar
    from zavandor_env.train.config import default_config_path, load_config

    stream = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    cfg = load_config(default_config_path(), [f"runs_dir={tmp_path}"])
    assert cfg.progress_bar  # the config asks for one: only the terminal decides
    bar = progress_bar(cfg, 0)  # the bar the PPO trainer draws
    bar.update(64)
    bar.close()
    assert (cfg.name in stream.getvalue()) is terminal


def play_until_quit(argv: list[str], stdout: io.StringIO,
                    monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``zavandor play`` prints before the person types ``quit``."""
    monkeypatch.setattr(builtins, "input", lambda prompt: "quit")
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["play", "random", "--seed", "1", *argv]) == 0
    return stdout.getvalue()


def test_play_writes_colour_to_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" in play_until_quit([], Terminal(), monkeypatch)


@pytest.mark.parametrize("flag", ["--no-colour", "--no-color"])
def test_play_refuses_colour_when_asked(flag: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" not in play_until_quit([flag], Terminal(), monkeypatch)


def test_play_honours_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in play_until_quit([], Terminal(), monkeypatch)


def test_play_writes_no_colour_into_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    shown = play_until_quit([], io.StringIO(), monkeypatch)
    assert "Legal actions" in shown and "\x1b[" not in shown


# ---- 4. train: where the run is, and what to do with it -------------------------------------
def test_a_new_run_prints_its_folder_when_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from zavandor_env.train.common.run import open_run
    from zavandor_env.train.config import default_config_path, load_config

    cfg = load_config(default_config_path(), [f"runs_dir={tmp_path}"])
    _, run_dir, _, _ = open_run(cfg, None, None, print, "ppo")
    assert capsys.readouterr().out.strip() == f"run folder: {run_dir}"


def test_a_resumed_run_prints_its_folder_when_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    run = fake_run(tmp_path)  # a config but no checkpoint: it stops right after the start
    code, out, err = run_main(["train", "--resume", str(run)], capsys)
    assert code == 2 and "checkpoint" in one_line(err)
    assert out.strip() == f"run folder: {run} (resuming)"


def test_the_end_of_a_run_prints_commands_that_evaluate_and_publish_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    from zavandor_env.cli.train import report

    monkeypatch.chdir(tmp_path)
    run = fake_run(tmp_path).relative_to(tmp_path)
    report(run)
    printed = capsys.readouterr().out
    commands = {label: shlex.split(line.partition(":")[2])
                for line in printed.splitlines()
                for label in ("evaluate it", "publish it") if line.strip().startswith(label)}
    assert set(commands) == {"evaluate it", "publish it"}, printed
    evaluate, publish = commands["evaluate it"], commands["publish it"]
    assert evaluate[:2] == ["zavandor", "eval"] and "--players" in evaluate
    # The very commands, made short: a later --games wins over the printed one.
    assert main([*evaluate[1:], "--games", "2", "--workers", "1", "--quiet", "--no-chart"]) == 0
    assert main([*publish[1:], "--games", "1"]) == 0
    out = Path(publish[publish.index("--out") + 1])
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "eval.json", "policy.npz"]


# ---- 5. zavandor publish ----------------------------------------------------------------------
def test_publish_refuses_a_shipped_policy_folder_without_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    before = {p.name: p.read_bytes() for p in SHIPPED_2P.iterdir()}
    code, _, err = run_main(["publish", str(fake_run(tmp_path)), "--out", str(SHIPPED_2P)],
                            capsys)
    line = one_line(err)
    assert code == 2 and line.startswith("zavandor publish: ")
    assert "shipped with the package" in line and "--overwrite" in line
    assert {p.name: p.read_bytes() for p in SHIPPED_2P.iterdir()} == before


def test_publish_refuses_a_folder_with_files_and_overwrite_keeps_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    run, out = fake_run(tmp_path), tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code, _, err = run_main(["publish", str(run), "--out", str(out), "--games", "1"], capsys)
    assert code == 2 and "not empty" in one_line(err) and not (out / "policy.npz").exists()
    code, _, err = run_main(["publish", str(run), "--out", str(out), "--games", "1",
                             "--overwrite"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [
        "config.yaml", "eval.json", "notes.txt", "policy.npz"]
    assert (out / "policy.npz").read_bytes() == (run / "policy.npz").read_bytes()


def test_publish_of_a_folder_that_is_no_run_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_main(["publish", str(tmp_path), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "config.yaml" in one_line(err)
    assert not (tmp_path / "out").exists()


def test_publish_never_writes_into_the_run_it_publishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    run = fake_run(tmp_path)
    before = sorted(p.name for p in run.iterdir())
    code, _, err = run_main(["publish", str(run), "--out", str(run), "--overwrite"], capsys)
    assert code == 2 and "the run folder itself" in one_line(err)
    assert sorted(p.name for p in run.iterdir()) == before


def test_publish_help_documents_its_arguments_with_an_example() -> None:
    text = build_parser().commands["publish"].format_help()
    for word in ("RUN_DIR", "--out DIR", "--games", "--seed", "--overwrite", "examples:"):
        assert word in text, word


def test_python_m_publish_is_the_same_command(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "zavandor_env.train.common.publish", str(fake_run(tmp_path)),
         "--out", str(SHIPPED_2P)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env=child_env())
    assert proc.returncode == 2
    assert "shipped with the package" in one_line(proc.stderr)
