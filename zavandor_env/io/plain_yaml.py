"""YAML read as plain data: the loader behind :func:`~zavandor_env.io.files.parse_yaml`.

PyYAML's safe loader follows YAML 1.1, whose implicit types are more than a config needs and
cost more than a config should: ``1:30`` is the base-60 integer 90 (a 1 MiB ``1:1:1:...``
took 45 s of quadratic big-integer arithmetic, then overflowed any float), ``010`` is octal,
``yes``/``no``/``on``/``off`` are booleans, ``2024-01-01`` is a date, and integers of any
length (a 5,000-digit ``0x...``) come back as Python ints that fail far from the file.

This loader resolves the YAML 1.2 core schema instead, in time linear in the text:

* ``null``/``Null``/``NULL``/``~``/nothing is null; ``true``/``True``/``TRUE`` and the
  ``false`` forms are booleans; everything else that is no number is a string;
* integers: decimal ``[-+]?[0-9]+`` (``010`` is ten), ``0o17``, ``0x1F``; floats:
  ``1.5``, ``.5``, ``1e5``, ``-2.5E-3``; ``_`` may separate decimal digits (``1_000``),
  as YAML 1.1 and Python allow;
* a number is at most :data:`~zavandor_env.io.limits.MAX_NUMBER_CHARS` characters long
  and finite (``.inf``, ``.nan`` and ``1e400`` are refused);
* no tags, no aliases (the "billion laughs"), no merge keys, no duplicate keys;
* at most :data:`~zavandor_env.io.files.MAX_DEPTH` levels of nesting and
  :data:`~zavandor_env.io.limits.MAX_YAML_NODES` nodes: PyYAML reads lazily, so a file of
  a million list items stops after the ceiling's worth instead of being built in full.

Every refusal is a ``yaml.YAMLError`` whose problem and mark ``parse_yaml`` puts on one line.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

from zavandor_env.io.limits import MAX_NUMBER_CHARS, MAX_YAML_NODES

_NULL = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL = re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")
_DIGITS = r"[0-9]+(?:_[0-9]+)*"
_INT = re.compile(rf"(?:[-+]?{_DIGITS}|0o[0-7]+|0x[0-9a-fA-F]+)\Z")
_FLOAT = re.compile(rf"(?:[-+]?(?:\.{_DIGITS}|{_DIGITS}(?:\.(?:{_DIGITS})?)?)(?:[eE][-+]?[0-9]+)?"
                    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")
_TAG = "tag:yaml.org,2002:"


def _number_text(loader: Any, node: Any) -> str:
    text = str(loader.construct_scalar(node))
    if len(text) > MAX_NUMBER_CHARS:
        _refuse(f"a number of {len(text):,} characters (at most {MAX_NUMBER_CHARS})", node)
    return text


def _construct_int(loader: Any, node: Any) -> int:
    text = _number_text(loader, node)
    if text.startswith("0x"):
        return int(text, 16)
    if text.startswith("0o"):
        return int(text, 8)
    return int(text)  # sign and single underscores between digits: Python's rules too


def _construct_float(loader: Any, node: Any) -> float:
    text = _number_text(loader, node)
    value = float(text.lower().replace(".inf", "inf").replace(".nan", "nan"))
    if not math.isfinite(value):
        _refuse(f"number {text} is not finite", node)
    return value


def _refuse(problem: str, node: Any) -> None:
    import yaml

    raise yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


@cache
def plain_data_loader(max_depth: int) -> type:
    """The loader class for ``yaml.load`` (see the module docstring); ``max_depth`` levels of
    nesting at most.  Made once per depth: PyYAML keeps resolvers and constructors on it."""
    import yaml

    class PlainDataLoader(yaml.SafeLoader):
        """PyYAML's safe loader with the YAML 1.2 core schema, bounded numbers, no tags,
        aliases or duplicate keys, and ceilings on depth and node count."""

        yaml_implicit_resolvers: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}
        yaml_constructors = dict(yaml.SafeLoader.yaml_constructors)

        def __init__(self, stream: Any) -> None:
            super().__init__(stream)
            self.depth = 0
            self.nodes = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise yaml.composer.ComposerError(
                    None, None, "aliases (*name) are not allowed", event.start_mark)
            if getattr(event, "tag", None) is not None:  # only an explicit tag sets it
                raise yaml.composer.ComposerError(
                    None, None, f"tags ({event.tag}) are not allowed", event.start_mark)
            self.nodes += 1
            if self.nodes > MAX_YAML_NODES:
                raise yaml.composer.ComposerError(
                    None, None, f"holds more than {MAX_YAML_NODES:,} values", event.start_mark)
            if not isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                return super().compose_node(parent, index)
            self.depth += 1
            if self.depth > max_depth:
                raise yaml.composer.ComposerError(
                    None, None, f"nests deeper than {max_depth} levels", event.start_mark)
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key = self.construct_object(key_node)
                    if key in seen:
                        _refuse(f"duplicate key {str(key)[:80]!r}", key_node)
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]

    for tag, pattern, first in (
            ("null", _NULL, ["~", "n", "N", ""]),
            ("bool", _BOOL, list("tTfF")),
            ("int", _INT, list("-+0123456789")),
            ("float", _FLOAT, list("-+.0123456789"))):
        PlainDataLoader.add_implicit_resolver(_TAG + tag, pattern, first)
    PlainDataLoader.add_constructor(_TAG + "int", _construct_int)
    PlainDataLoader.add_constructor(_TAG + "float", _construct_float)
    return PlainDataLoader
