"""The one reader of JSON/YAML from outside and the one atomic writer (zavandor_env/io/files.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zavandor_env.io.files import (
    MAX_DEPTH,
    UntrustedInputError,
    load_json,
    load_yaml,
    parse_json,
    parse_yaml,
    read_bounded,
    write_atomic,
)


@pytest.mark.parametrize("text, problem", [
    ("[" * 100_000, "nests deeper"),                       # RecursionError inside json
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nests deeper"),  # parses, still too deep
    ("NaN", "not a number"),
    ("[Infinity]", "not a number"),
    ("1e400", "out of range"),
    ("9" * 5000, "digits"),
    (b"\xff\xfe[]", "not UTF-8"),
    ("{", "not valid JSON"),
])
def test_hostile_json_is_refused_in_one_line(text: str | bytes, problem: str) -> None:
    with pytest.raises(UntrustedInputError, match=problem) as info:
        parse_json(text, what="replay")
    assert "\n" not in str(info.value) and str(info.value).startswith("replay")


def test_json_within_limits_parses() -> None:
    deep = "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH
    assert parse_json('{"a": [1, 2.5, null, true]}', what="x") == {"a": [1, 2.5, None, True]}
    assert parse_json(deep, what="x") is not None


@pytest.mark.parametrize("text, problem", [
    ("a: &x [1]\nb: *x\n", "aliases"),                      # the billion-laughs building block
    ("a: !!python/object/apply:os.system [echo]", "tags"),
    ("a: !!binary aGk=", "tags"),
    ("x: !!set {a}", "tags"),
    ("[" * 10_000, "nests deeper"),
    ("- " * 1000 + "x", "nests deeper"),
    ("a: .inf", "not finite"),
    ("a: b: c", "mapping values are not allowed here"),
    (b"\x00\xff binary", "not UTF-8"),
])
def test_hostile_yaml_is_refused_in_one_line(text: str | bytes, problem: str) -> None:
    with pytest.raises(UntrustedInputError, match=problem) as info:
        parse_yaml(text, what="config")
    assert "\n" not in str(info.value)


def test_plain_yaml_parses() -> None:
    assert parse_yaml("a: 1\nb: [x, 2.5]\nc: {d: null}\n", what="x") == {
        "a": 1, "b": ["x", 2.5], "c": {"d": None}}


def test_files_past_their_cap_are_not_read(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text("[" + "1," * 1000 + "1]")
    with pytest.raises(UntrustedInputError, match="larger than 100 bytes"):
        load_json(big, what="replay", max_bytes=100)
    with pytest.raises(UntrustedInputError, match="larger than 100 bytes"):
        load_yaml(big, what="config", max_bytes=100)
    with pytest.raises(UntrustedInputError, match="cannot read config"):
        load_yaml(tmp_path / "missing.yaml", what="config")


def test_atomic_write_replaces_whole_or_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomic(target, "old")
    write_atomic(target, b"new")
    assert target.read_text() == "new"
    assert os.stat(target).st_mode & 0o777 == 0o644

    def fails_halfway(fh: object) -> None:
        fh.write(b"half")  # type: ignore[attr-defined]
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_atomic(target, fails_halfway)
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no .tmp left


# ---- YAML numbers: the YAML 1.2 core schema, bounded, in linear time ----------------------
@pytest.mark.parametrize("text, value", [
    ("a: 1:30", "1:30"),                       # YAML 1.1's base-60 integer 90: a string now
    ("a: " + "1:" * 400 + "1.5", "1:" * 400 + "1.5"),  # was an OverflowError traceback
    ("a: " + "1:" * 3000 + "1", "1:" * 3000 + "1"),    # was a 3,000-part integer
    ("a: 010", 10), ("a: 0o17", 15), ("a: 0x1F", 31), ("a: -12", -12), ("a: 1_000", 1000),
    ("a: 1e5", 100000.0), ("a: -2.5E-3", -0.0025), ("a: .5", 0.5),
    ("a: yes", "yes"), ("a: off", "off"), ("a: 2024-01-01", "2024-01-01"),
    ("a: true", True), ("a: FALSE", False), ("a: ~", None), ("a:", None), ("a: '010'", "010"),
    ("a: 9223372036854775807", 2**63 - 1),
])
def test_yaml_resolves_the_core_schema_only(text: str, value: object) -> None:
    assert parse_yaml(text, what="config") == {"a": value}


@pytest.mark.parametrize("text, problem", [
    ("a: 0x" + "f" * 5000, "a number of 5,002 characters"),  # passed, failed far away
    ("a: " + "9" * 5000, "a number of 5,000 characters"),
    ("a: " + "1" * 65, "a number of 65 characters"),
    ("a: 1e400", "not finite"), ("a: -.inf", "not finite"), ("a: .nan", "not finite"),
    ("a: 1\na: 2", "duplicate key 'a'"),
    ("a: [" + "1," * 20_000 + "1]", "more than 10,000 values"),
])
def test_yaml_numbers_and_sizes_past_their_bounds_are_one_line(text: str, problem: str) -> None:
    with pytest.raises(UntrustedInputError, match=problem) as info:
        parse_yaml(text, what="config")
    assert "\n" not in str(info.value)


def test_a_megabyte_of_base60_digits_is_a_string_not_big_integer_arithmetic() -> None:
    # YAML 1.1 turned it into an integer by quadratic arithmetic (45 s for 1 MiB) before any
    # check could look at it; as a string it is read in one linear pass.
    text = "seed: " + "1:" * ((1 << 20) // 2 - 8) + "1"
    assert parse_yaml(text, what="config")["seed"].startswith("1:1:1:")


def test_a_long_list_is_refused_where_it_passes_the_ceiling_not_read_to_its_end() -> None:
    from zavandor_env.io.limits import MAX_YAML_NODES

    with pytest.raises(UntrustedInputError) as info:
        parse_yaml("a:\n" + "- 1\n" * 200_000, what="config")
    line = int(str(info.value).rsplit("(line ", 1)[1].split(",")[0])
    assert line < MAX_YAML_NODES + 10  # the reader stopped there, 190,000 lines early


def test_every_shipped_yaml_file_reads_as_before() -> None:
    import yaml

    root = Path(__file__).resolve().parents[2]
    paths = [*root.glob("configs/**/*.yaml"), *root.glob("train/checkpoints/*/config.yaml")]
    assert len(paths) > 20
    for path in paths:
        assert load_yaml(path, what="config") == yaml.safe_load(path.read_text()), path


@pytest.mark.parametrize("path", [0, 1, 7, True, b"config.yaml", None, 2.5])
def test_the_bounded_reader_never_takes_a_number_as_a_file_descriptor(path: object) -> None:
    """``open(0)`` would read stdin and close it: whatever reaches the one reader must be a
    file name (a second line of defence behind the spec and config checks)."""
    with pytest.raises(UntrustedInputError, match="must be a file name"):
        read_bounded(path, what="config", max_bytes=100)  # type: ignore[arg-type]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_or_a_device_is_refused_at_once_not_read_forever(tmp_path: Path) -> None:
    """A FIFO named where a file is expected (``zavandor replay FIFO``, ``eval --game FIFO``,
    a tournament file) used to block the command forever; a device never ends."""
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(UntrustedInputError, match="is not a regular file"):
            read_bounded(path, what="saved game", max_bytes=100)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("argv", [["replay", "{fifo}"], ["eval", "{fifo}"],
                                  ["eval", "--agents", "random", "random", "--game", "{fifo}"]])
def test_the_commands_refuse_a_fifo_in_one_line(tmp_path: Path, argv: list[str]) -> None:
    import subprocess
    import sys

    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    result = subprocess.run([sys.executable, "-m", "zavandor_env.cli",
                             *(a.format(fifo=fifo) for a in argv)],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode != 0
    assert "not a regular file" in result.stderr and result.stderr.count("\n") == 1, \
        result.stderr
