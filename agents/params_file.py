"""Checking an agent's parameters: its tunable numbers from a mapping or a YAML file (heuristic
weights, planner parameters) and its on/off flags -- the one place for their one-line errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Protocol, TypeVar


def check_flags(**flags: object) -> None:
    """One-line ``ValueError`` for the first flag that is not a real boolean: an agent spec's
    ``true``/``false`` are booleans, and a string such as ``"maybe"`` must not count as true."""
    for name, value in flags.items():
        if type(value) is not bool:
            raise ValueError(f"{name} must be true or false, got {value!r}")


def check_known_keys(cls: type, data: Mapping[str, Any], what: str) -> None:
    """One-line ``ValueError`` naming the keys of ``data`` that are not fields of the dataclass
    ``cls`` (``what``: e.g. "heuristic weight")."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown {what}(s) {unknown}; known: {sorted(known)}")


def read_yaml_section(path: str | Path, section: str, what: str) -> dict[str, Any]:
    """The mapping under ``section`` of the YAML file (or the whole file when it has no such
    key); an empty file is an empty mapping.  One-line ``ValueError`` if the file cannot be
    read, is not plain YAML data (bounded, see ``engine.files``) or is not a mapping."""
    from zavandor_env.engine.files import load_yaml

    data = load_yaml(path, what=what) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: {what} must be a mapping")
    body = data.get(section, data)
    if not isinstance(body, dict):
        raise ValueError(f"{path}: {what} must be a mapping")
    return body


class _FromMapping(Protocol):
    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Any: ...


P = TypeVar("P", bound=_FromMapping)


def with_overrides(base: P, overrides: Mapping[str, Any] | None) -> P:
    """``base`` (a dataclass with ``from_mapping``) with the keys of ``overrides`` replaced,
    checked as a whole; ``base`` itself when there is nothing to override."""
    if not overrides:
        return base
    merged = asdict(base)  # type: ignore[call-overload]
    merged.update(overrides)
    return type(base).from_mapping(merged)  # type: ignore[no-any-return]
