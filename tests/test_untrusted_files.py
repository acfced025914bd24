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
