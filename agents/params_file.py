"""Checking an agent's parameters: its tunable numbers from a mapping or a YAML file (heuristic
weights, planner parameters: schema dataclasses, see ``engine.schema``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self


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


class ParamsFile:
    """What a parameter dataclass (heuristic weights, planner parameters) shares: it is read
    from a mapping or from section ``_SECTION`` of a YAML file (``_WHAT`` names it in
    errors), and :meth:`resolve` fills given keys in over a file's values (by default the
    shipped ``_DEFAULT``)."""

    _SECTION = ""
    _WHAT = ""
    _DEFAULT = Path()

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Self:
        return cls(**{str(key): value for key, value in data.items()})  # type: ignore[call-arg]

    @classmethod
    def from_yaml(cls, path: str | Path) -> Self:
        return cls.from_mapping(read_yaml_section(path, cls._SECTION, cls._WHAT))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload, no-any-return]

    @classmethod
    def resolve(cls, given: Self | Mapping[str, Any] | None,
                config: str | Path | None = None) -> Self:
        """Full parameters: ``given`` itself, or the YAML file ``config``'s (default: the
        shipped file, else the built-in defaults) with the keys of ``given`` overridden
        (checked as a whole by the schema; a ``given`` that is no mapping is refused)."""
        if isinstance(given, cls):
            return given
        if config is None and not cls._DEFAULT.exists():
            base = cls()
        else:  # the reader checks ``config``: text naming a regular file
            base = cls.from_yaml(cls._DEFAULT if config is None else config)
        if given is None:
            return base
        if not isinstance(given, Mapping):  # e.g. weights=abc from a spec string
            raise ValueError(f"overrides of {cls.__name__} must be a mapping of its "
                             f"fields, got {type(given).__name__}")
        changes = {str(key): value for key, value in given.items()}
        return dataclasses.replace(base, **changes) if changes else base  # type: ignore[type-var]
