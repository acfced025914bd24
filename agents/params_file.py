"""Checking an agent's parameters: its tunable numbers from a mapping or a YAML file (heuristic
weights, planner parameters: schema dataclasses, see ``engine.schema``) and its on/off flags."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar


def check_flags(**flags: object) -> None:
    """One-line ``ValueError`` for the first flag that is not a real boolean: an agent spec's
    ``true``/``false`` are booleans, and a string such as ``"maybe"`` must not count as true."""
    for name, value in flags.items():
        if type(value) is not bool:
            raise ValueError(f"{name} must be true or false, got {value!r}")


def read_yaml_section(path: str | Path, section: str, what: str) -> dict[str, Any]:
    """The mapping under ``section`` of the YAML file (or the whole file when it has no such
    key); an empty file is an empty mapping.  One-line ``ValueError`` if ``path`` is not text
    naming a regular file (``zavandor_env.io.params.regular_file``), cannot be read, is not
    plain YAML data (bounded, see ``zavandor_env.io.files``) or is not a mapping."""
    from zavandor_env.io.files import load_yaml
    from zavandor_env.io.params import regular_file

    # Text naming a regular file, checked before anything opens it: open(0) would read (and
    # then close) standard input, and a FIFO or /dev/zero would block or never end.
    path = regular_file(path, what=what)
    data = load_yaml(path, what=what) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: {what} must be a mapping")
    body = data.get(section, data)
    if not isinstance(body, dict):
        raise ValueError(f"{path}: {what} must be a mapping")
    return body


P = TypeVar("P")


def with_overrides(base: P, overrides: Mapping[str, Any] | None) -> P:
    """``base`` (a parameter dataclass) with the keys of ``overrides`` replaced, checked as a
    whole by its schema; ``base`` itself when there is nothing to override."""
    if overrides is None:
        return base
    if not isinstance(overrides, Mapping):  # e.g. weights=abc from a spec string
        raise ValueError(f"overrides of {type(base).__name__} must be a mapping of its "
                         f"fields, got {type(overrides).__name__}")
    if not overrides:
        return base
    changes = {str(key): value for key, value in overrides.items()}
    return dataclasses.replace(base, **changes)  # type: ignore[type-var]
