"""What every training config part shares: the error, the number types of the schema, the
checks' one-line wording, and the checks that read another layer without building anything
(an agent spec is parsed, never built; no environment, no search)."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Annotated, Any, Literal

import annotated_types
from pydantic import BeforeValidator, Field

from zavandor_env.io import limits

#: The one opponent key of ``opponent_weights`` that is not an agent spec: a frozen past copy
#: of the learner, drawn from the run's pool (the same key as ``envs.opponents.SNAPSHOT``,
#: repeated here because building a config imports no environment).
SNAPSHOT = "snapshot"

#: Largest seed: seeds are ``seed + step`` and NumPy's must stay below 2**32 (the checkpoint
#: bounds the step the same way).
MAX_SEED = 2**31 - 1
#: Longest run name: it names the run folder (with the seed and time), and file systems allow
#: 255 bytes per name.
MAX_NAME_CHARS = 100


class TrainConfigError(ValueError):
    """A training config is invalid; the message names the offending key."""


def _number(value: Any) -> Any:
    """A number written as text (``"1e5"``: YAML 1.1 reads an exponent without a dot as a
    string, and so does ``--set``) is read as one; anything else is left to the type check."""
    if isinstance(value, str):
        if len(value) > limits.MAX_NUMBER_CHARS:  # float() of a megabyte string: no number
            raise ValueError(f"must be a number, got a string of {len(value):,} characters")
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"must be a number, got {value!r}") from None
    return value


def _whole(value: Any) -> Any:
    """``1e5`` (a float) counts as the integer it is; ``2.5`` stays a float and is refused, and
    so does ``1e300`` (a 301-digit integer would only be refused by its bound, at length)."""
    value = _number(value)
    whole = isinstance(value, float) and value.is_integer() and abs(value) < 2.0**63
    return int(value) if whole else value


# Numbers of the schema; every other type is strict (engine.schema.STRICT), so ``true`` is no
# integer and ``3`` no bool, and a NaN or an infinity is no number.
Int = Annotated[int, BeforeValidator(_whole)]
Real = Annotated[float, BeforeValidator(_number)]
Count = Annotated[Int, Field(ge=1)]
Natural = Annotated[Int, Field(ge=0)]
Positive = Annotated[Real, Field(gt=0)]
Share = Annotated[Real, Field(ge=0, le=1)]
Weight = Annotated[float, Field(ge=0)]


def doc(text: str) -> Any:
    """A field's description (``--help``, configs/README.md); the spaces of the source's line
    breaks are folded."""
    return Field(description=" ".join(text.split()))


def require(ok: bool, name: str, message: str) -> None:
    """Raise :class:`TrainConfigError` ``config key '<name>' <message>`` unless ``ok``."""
    if not ok:
        raise TrainConfigError(f"config key {name!r} {message}")


def network_weights(net_arch: list[int]) -> int:
    """Weights of the actor of ``net_arch`` (the observation in, one logit per action out)."""
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    sizes = [int(OBS_SIZE), *net_arch, int(NUM_ACTIONS)]
    return sum(a * b for a, b in zip(sizes, sizes[1:]))


def check_agent_spec(key: str, spec: Any, build: bool = False) -> Any:
    """The :class:`~zavandor_env.agents.registry.AgentSpec` of ``spec``, parsed (and with
    ``build``, built once, so a ``policy`` spec's file must load); raise naming config key
    ``key``."""
    from zavandor_env.agents.registry import parse_spec

    try:
        parsed = parse_spec(spec)
        if parsed.interactive:
            raise ValueError(f"agent {parsed.agent!r} asks a person for every decision")
        if build:
            parsed.build(seed=0).close()
    except (ValueError, TypeError) as exc:
        raise TrainConfigError(f"config key {key!r}: agent spec {spec!r}: {exc}") from None
    return parsed


# ---- the schema in words (configs/README.md) -------------------------------------------------
_TYPE_WORDS = {int: "integer", float: "number", str: "string", bool: "true/false"}
_BOUNDS = {annotated_types.Ge: ">=", annotated_types.Gt: ">", annotated_types.Le: "<=",
           annotated_types.Lt: "<"}


def type_text(hint: Any) -> str:
    """A type of the schema in words with its bounds: ``integer >= 1``, ``number > 0 or
    null``, ``one of `ppo`, `exit```."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        return _bounded(type_text(args[0]), args[1:])
    if origin in (typing.Union, types.UnionType):
        return " or ".join("null" if a is type(None) else type_text(a) for a in args)
    if origin is Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"list of {type_text(args[0])}"
    if origin is dict:
        return "mapping" if args[1] is Any else f"mapping to {type_text(args[1])}"
    return _TYPE_WORDS.get(hint, getattr(hint, "__name__", str(hint)))


def _bounded(text: str, metadata: tuple[Any, ...]) -> str:
    """``text`` with the bounds among ``metadata`` (annotated-types bounds, alone or inside a
    pydantic ``Field``): ``number > 0, <= 1``."""
    bounds = [f"{_BOUNDS[type(b)]} {dataclasses.astuple(b)[0]}"
              for item in metadata for b in getattr(item, "metadata", [item])
              if type(b) in _BOUNDS]
    return " ".join([text, ", ".join(bounds)]) if bounds else text


def schema_rows(cls: type, prefix: str = "") -> list[str]:
    """One Markdown table row per field of the config part ``cls``: key, type, default,
    meaning (``prefix`` names its section)."""
    import json

    hints = typing.get_type_hints(cls, include_extras=True)
    schema = vars(cls)["__pydantic_fields__"]  # name -> pydantic FieldInfo
    rows = []
    for f in dataclasses.fields(cls):
        if f.name in ("config_path", "ppo", "exit", "rllib"):
            continue
        default = (f.default_factory() if f.default_factory is not dataclasses.MISSING
                   else f.default)
        kind = type_text(hints[f.name]).replace("|", "\\|")
        rows.append(f"| `{prefix}{f.name}` | {kind} | `{json.dumps(default)}` | "
                    f"{schema[f.name].description or ''} |")
    return rows
