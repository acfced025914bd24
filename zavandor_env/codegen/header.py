"""The generated C++ header ``native/src/generated/constants.hpp``.

Every number, table, enum, kind code, default and field list that the native core shares with
Python is written here from the Python definitions, so the C++ sources hold no hand-typed
twin: a rule-table change in ``zavandor_env/engine/data.py`` reaches the native core by
``python -m zavandor_env.codegen`` and a rebuild.  :func:`render` is a pure function of the
imported Python modules (byte-identical on every run); the header ends with a hash of its own
text, which the extension exposes as ``_native.CONSTANTS_HASH`` so a test can tell a core built
from a stale header.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import types
import typing
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any

HEADER_PATH = "native/src/generated/constants.hpp"
REBUILD = "NPY_NUM_BUILD_JOBS=2 python setup.py build_ext --inplace"
_HASH_PREFIX = 'inline constexpr const char CONSTANTS_HASH[] = "'


class CodegenError(RuntimeError):
    """A Python definition the generator cannot express in C++ (the message says which)."""


# ---- value formatting -----------------------------------------------------------------------
def _int(value: object, what: str) -> str:
    # bool and IntEnum members are ints too; both print as plain numbers (true/false for bool).
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, int):
        raise CodegenError(f"{what}: expected an integer, got {value!r}")
    return str(int(value))


def _double(value: object, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CodegenError(f"{what}: expected a number, got {value!r}")
    # repr() is the shortest text that reads back as the same double, so C++ parses the
    # literal to exactly Python's value.
    text = repr(float(value))
    return text if ("." in text or "e" in text or "inf" in text) else text + ".0"


def _char(value: object, what: str) -> str:
    if not isinstance(value, str) or len(value) != 1 or not value.isalnum():
        raise CodegenError(f"{what}: expected one letter or digit, got {value!r}")
    return f"'{value}'"


def _string(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.replace("_", "").isalnum():
        raise CodegenError(f"{what}: expected a plain name, got {value!r}")
    return f'"{value}"'


#: How a value of each C++ type is written ("int?": an int or None, written as -1).
_FORMAT: dict[str, Callable[[Any, str], str]] = {
    "int": _int,
    "long long": _int,
    "bool": lambda value, what: _int(bool(value), what),
    "double": _double,
    "char": _char,
    "const char*": _string,
    "int?": lambda value, what: "-1" if value is None else _int(value, what),
}


def _ints(values: Sequence[object], what: str) -> str:
    return "{" + ", ".join(_int(v, f"{what}[{i}]") for i, v in enumerate(values)) + "}"


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, text: str = "") -> None:
        self.lines.append(text)

    def section(self, title: str, source: str) -> None:
        self.line()
        self.line(f"// ---- {title} ({source}) " + "-" * max(4, 80 - len(title) - len(source)))

    def const(self, name: str, value: object, kind: str = "int") -> None:
        self.line(f"inline constexpr {kind} {name} = {_FORMAT[kind](value, name)};")

    def array(self, name: str, values: Sequence[object], kind: str = "int") -> None:
        body = ", ".join(_FORMAT[kind](v, f"{name}[{i}]") for i, v in enumerate(values))
        self.line(f"inline constexpr {kind} {name}[{len(values)}] = {{{body}}};")

    def table(self, name: str, rows: Sequence[Sequence[object]]) -> None:
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            raise CodegenError(f"{name}: rows of different lengths {sorted(widths)}")
        body = ", ".join(_ints(r, f"{name}[{i}]") for i, r in enumerate(rows))
        self.line(f"inline constexpr int {name}[{len(rows)}][{widths.pop()}] = {{{body}}};")

    def enum(self, name: str, members: Sequence[tuple[str, int]], base: str = "int") -> None:
        body = ", ".join(f"{m} = {_int(v, name + '.' + m)}" for m, v in members)
        self.line(f"enum {name} : {base} {{ {body} }};")


def _members(enum: type[IntEnum], prefix: str = "") -> list[tuple[str, int]]:
    return [(prefix + m.name, int(m.value)) for m in enum]


# ---- dataclass tables -----------------------------------------------------------------------
def _field_kind(cls: type, f: dataclasses.Field[Any]) -> str:
    """The C++ type of a field of one of data.py's record dataclasses."""
    hints = typing.get_type_hints(cls)
    hint = hints[f.name]
    if hint is bool:
        return "bool"
    if hint is str:
        return "char" if f.name == "letter" else "const char*"
    if isinstance(hint, type) and issubclass(hint, int):  # int and IntEnums
        return "int"
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and set(
        typing.get_args(hint)
    ) == {int, type(None)}:
        return "int?"  # None is written as -1
    raise CodegenError(f"{cls.__name__}.{f.name}: no C++ type for {hint!r}")


def _record_table(w: _Writer, struct: str, array: str, records: Sequence[Any]) -> None:
    cls = type(records[0])
    fields = dataclasses.fields(cls)
    kinds = [_field_kind(cls, f) for f in fields]
    w.line(f"struct {struct} {{")
    for f, kind in zip(fields, kinds):
        note = "  // -1: None" if kind == "int?" else ""
        w.line(f"  {kind.rstrip('?')} {f.name};{note}")
    w.line("};")
    w.line(f"inline constexpr {struct} {array}[{len(records)}] = {{")
    for r in records:
        values = (_FORMAT[kind](getattr(r, f.name), f"{array}.{f.name}")
                  for f, kind in zip(fields, kinds))
        w.line("    {" + ", ".join(values) + "},")
    w.line("};")


# ---- the sections ---------------------------------------------------------------------------
def _sizes(w: _Writer) -> None:
    from zavandor_env.engine import data

    w.section("basic sizes", "engine/data.py")
    for name in ("NUM_GEMS", "NUM_COLOURS", "NUM_FIELDS", "MAX_LEVEL", "MAX_PLAYERS",
                 "MIN_PLAYERS", "NUM_TOKENS", "NUM_CARD_TOKENS", "CONC_TOKEN0", "DUST_TOKEN0",
                 "NUM_CHIPS", "NUM_ARTIFACT_TYPES", "NUM_SENTINELS"):
        w.const(name, getattr(data, name))
    w.const("NUM_CHARACTERS", len(data.CHARACTERS))
    w.const("NUM_DUST_CHITS", len(data.DUST_CHITS))


def _state_codes(w: _Writer) -> None:
    from zavandor_env.engine import state
    from zavandor_env.engine.config import MAX_DECISIONS, MAX_ROUNDS
    from zavandor_env.io import saved_games as validation

    w.section("state codes", "engine/state.py")
    w.enum("Phase", _members(state.Phase))
    w.enum("Block", _members(state.Block, "BLOCK_"))
    w.const("ITEM_ARTIFACT", state.ITEM_ARTIFACT)
    w.const("ITEM_SENTINEL", state.ITEM_SENTINEL)
    w.section("saved-state ceilings", "io/saved_games.py, engine/config.py")
    for name in ("MAX_DUST_CHITS", "MAX_SAGES_DUST", "MAX_VP", "MAX_AMOUNT"):
        w.const(name, getattr(validation, name))
    w.const("MAX_ROUNDS", MAX_ROUNDS)
    w.const("MAX_DECISIONS", MAX_DECISIONS)


def _tables(w: _Writer) -> None:
    from zavandor_env.engine import data, economy

    w.section("enums", "engine/data.py")
    w.enum("Gem", _members(data.Gem))
    w.enum("Colour", _members(data.Colour))
    # F_ prefix: the artifact table is called ARTIFACTS, as in data.py.
    w.enum("Field", _members(data.Field, "F_"))
    w.enum("Art", _members(data.Art))
    w.enum("Sen", _members(data.Sen))

    w.section("energy cards, gems, knowledge", "engine/data.py")
    for name in ("TOTAL_ENERGY_CARDS", "CONCENTRATED_PER_COLOUR", "CONCENTRATED_BONUS_DUST",
                 "CARDS_PER_CONCENTRATED", "GEM_DISCOUNT_PERCENT_PER_LEVEL", "MAX_RUBIES",
                 "BASE_ACTIVE_SLOTS", "BELT_SLOTS", "WAND_SLOTS", "OPAL_GROUP_SIZE",
                 "OPAL_DUST_PER_GROUP", "TOP_LEVEL_VP", "FIRE_LEVEL_FOR_RUBIES",
                 "DRUID_RUBY_FIRE_LEVEL", "SAGES_CARDS_PER_LEVEL", "DRUID", "HAND_LIMIT_BASE",
                 "HAND_LIMIT_FLOOR", "MASK_SENTINEL_DISCOUNT", "SENTINEL_MIN_BID",
                 "SENTINEL_BASE_VP", "SENTINELS_TO_END", "MODIFIER_VP_THRESHOLD", "CARD_LOAD",
                 "CONCENTRATED_LOAD"):
        w.const(name, getattr(data, name))
    w.const("CHEAPEST_CHIP", min(data.CHIP_COSTS))
    for name in ("CONCENTRATED_VALUE", "GEM_BASE_COST", "GEM_VP", "GEM_SUPPLY",
                 "ACCUMULATION_SLOTS_BY_LEVEL", "START_GEMS", "OPAL_DUST_BY_REMAINDER",
                 "HAND_LIMIT_FIELD_MODIFIER", "ENERGY_FLOW_DUST_BY_LEVEL",
                 "ARTIFACT_DISCOUNT_BY_LEVEL", "SENTINEL_DISCOUNT_BY_LEVEL", "CHIP_COSTS",
                 "TOAD_ARTIFACTS", "RAVEN_ARTIFACTS", "DUST_CHITS", "DUST_LOAD",
                 "EMPTY_DECK_DUST"):
        w.array(name, getattr(data, name))
    w.line("// [gem][Gemstones level]: gem_cost / gem_sale_value of data.py.")
    w.table("GEM_COST_TABLE", data.GEM_COST_TABLE)
    w.table("GEM_SALE_TABLE", data.GEM_SALE_TABLE)
    w.table("LEVEL_COSTS", data.LEVEL_COSTS)
    w.line("// (artifact, sentinel) price modifiers by turn-order position I..VI.")
    w.table("POSITION_MODIFIER", data.POSITION_MODIFIER)

    w.section("characters, artifacts, sentinels", "engine/data.py")
    _record_table(w, "CharacterSpec", "CHARACTERS", data.CHARACTERS)
    _record_table(w, "ArtifactSpec", "ARTIFACTS", data.ARTIFACTS)
    w.array("ARTIFACT_LETTERS", data.ARTIFACT_LETTERS, "char")
    w.line("struct CrossDiscount {")
    w.line("  int target;")
    w.line("  int source;")
    w.line("  int per_copy;")
    w.line("};")
    rows = ", ".join(_ints(r, "ARTIFACT_CROSS_DISCOUNTS") for r in data.ARTIFACT_CROSS_DISCOUNTS)
    w.line(f"inline constexpr CrossDiscount ARTIFACT_CROSS_DISCOUNTS"
           f"[{len(data.ARTIFACT_CROSS_DISCOUNTS)}] = {{{rows}}};")
    w.line("// COPIES_BY_PLAYERS[num_players]; 0 where data.py has no entry.")
    copies = [data.COPIES_BY_PLAYERS.get(n, 0) for n in range(data.MAX_PLAYERS + 1)]
    w.array("COPIES_BY_PLAYERS", copies)
    _record_table(w, "SentinelSpec", "SENTINELS", data.SENTINELS)

    w.section("hand tokens", "engine/data.py, engine/economy.py")
    w.line("// The card tokens (colour, value) of data.CARD_TOKENS, and the cards of each.")
    w.array("CARD_TOKEN_COLOUR", [c for c, _ in data.CARD_TOKENS])
    w.array("CARD_TOKEN_COUNT", [data.ENERGY_DECKS[c][v] for c, v in data.CARD_TOKENS])
    begins = [next(i for i, (c, _) in enumerate(data.CARD_TOKENS) if c == colour)
              for colour in range(data.NUM_COLOURS)]
    w.line("// First card token of each colour, and one past the last.")
    w.array("COLOUR_TOKEN_BEGIN", [*begins, data.NUM_CARD_TOKENS])
    w.array("TOKEN_VALUE", data.TOKEN_VALUE)
    w.array("TOKEN_LOAD", data.TOKEN_LOAD)
    w.array("TOKEN_COLOUR", data.TOKEN_COLOUR)
    w.line("// economy.PAY_ORDER: give-away order for payments.")
    w.array("PAY_ORDER", economy.PAY_ORDER)
    w.line("// economy._CHANGE_TABLE_SIZE: amounts with a precomputed change.")
    w.const("CHANGE_TABLE_SIZE", economy._CHANGE_TABLE_SIZE)


def _actions(w: _Writer) -> None:
    from zavandor_env.engine import actions

    w.section("the flat action index space", "engine/actions.py")
    w.line("// In namespace zav::act because Phase already uses the names BID and LOSE_GEM.")
    w.line("namespace act {")
    w.const("NUM_BID_RAISES", len(actions.BID_RAISES))
    w.array("BID_RAISES", actions.BID_RAISES)
    for name in ("END_TURN", "END_BLOCK", "BUY_GEM", "SELL_GEM", "ACTIVATE", "DEACTIVATE",
                 "BUY_CHIP", "ADVANCE", "OPEN_ARTIFACT", "OPEN_SENTINEL", "BID", "PASS",
                 "LOSE_GEM", "NUM_ACTIONS"):
        w.const(name, getattr(actions, name))
    w.line("}  // namespace act")
    w.line("inline constexpr int NUM_ACTIONS = act::NUM_ACTIONS;")


# GameConfig fields with a type of their own, converted by hand in bindings.cpp.
_CONFIG_SPECIAL = ("characters",)


def _config(w: _Writer) -> None:
    from zavandor_env.engine.config import GameConfig

    hints = typing.get_type_hints(GameConfig)
    annotated = typing.get_type_hints(GameConfig, include_extras=True)
    ints, bools, keys = [], [], []
    for f in dataclasses.fields(GameConfig):
        name, hint = f.name, hints[f.name]
        keys.append(name)
        if name in _CONFIG_SPECIAL:
            continue
        # The integer bounds are the config's own (the ge and le of its Field).
        metadata = [m for extra in typing.get_args(annotated[name])[1:]
                    for m in getattr(extra, "metadata", ())]
        bounds = {k: getattr(m, k) for m in metadata for k in ("ge", "le") if hasattr(m, k)}
        if hint is bool:
            bools.append((name, f.default))
        elif hint is int and len(bounds) == 2:
            ints.append((name, f.default, bounds["ge"], bounds["le"]))
        else:
            raise CodegenError(
                f"GameConfig.{name}: the native core takes bool options and int options "
                f"bounded by ge and le only, not {hint!r} (convert it by hand in bindings.cpp "
                "and list it in zavandor_env/codegen/header.py _CONFIG_SPECIAL)")
    w.section("GameConfig", "engine/config.py, dataclasses.fields(GameConfig)")
    w.line("// X(name, default, lowest, highest): the integer fields.")
    w.line("#define ZAV_CONFIG_INTS(X) \\")
    w.lines.extend(f"  X({n}, {_int(d, n)}, {_int(lo, n)}, {_int(hi, n)}) \\"
                   for n, d, lo, hi in ints)
    w.line("  /* end */")
    w.line("// X(name, default): the boolean rule options.")
    w.line("#define ZAV_RULE_OPTIONS(X) \\")
    w.lines.extend(f"  X({n}, {_int(bool(d), n)}) \\" for n, d in bools)
    w.line("  /* end */")
    w.line("// Every key of GameConfig.to_dict(), in field order.")
    w.line(f"inline constexpr const char* CONFIG_KEYS[{len(keys)}] = "
           "{" + ", ".join(_string(k, "GameConfig") for k in keys) + "};")


def _heuristic(w: _Writer) -> None:
    from zavandor_env.agents import heuristic, novice

    w.section("the heuristic", "agents/heuristic.py, agents/novice.py")
    w.array("GEM_INCOME", heuristic.GEM_INCOME, "double")
    w.array("SAGES_CARD_VALUE", heuristic.SAGES_CARD_VALUE)
    w.const("DEFAULT_EXPECTED_ROUNDS", heuristic.DEFAULT_EXPECTED_ROUNDS)
    w.const("NOVICE_DEFAULT_BLUNDER", novice.DEFAULT_BLUNDER, "double")
    names = [f.name for f in dataclasses.fields(heuristic.HeuristicWeights)]
    if names[0] != "expected_rounds":
        raise CodegenError("HeuristicWeights: expected_rounds must stay its first field "
                           "(a mapping, converted by hand in bind_bots.cpp)")
    hints = typing.get_type_hints(heuristic.HeuristicWeights)
    for name in names[1:]:
        if hints[name] not in (int, float):
            raise CodegenError(f"HeuristicWeights.{name}: the native heuristic holds numbers "
                               f"only, not {hints[name]!r}")
    w.line("// X(name): the number fields of HeuristicWeights after expected_rounds, in order.")
    w.line("#define ZAV_HEURISTIC_WEIGHTS(X) \\")
    w.lines.extend(f"  X({n}) \\" for n in names[1:])
    w.line("  /* end */")


# MCTSAgent.__init__ parameters that never reach the native search (handled in Python).
_MCTS_PYTHON_ONLY = ("self", "seed", "search_all", "weights", "engine", "no_ruin", "net", "c_puct",
                     "opponent_temperature", "fpu_reduction", "rollout_steps")
# (net ... rollout_steps: the network search's, agents/netsearch.py, its own defaults generated.)
# The MctsParams member each searched parameter's Python default sets ("": none, the rollout
# is the policy's; bind_search.cpp).
_MCTS_MEMBERS = {
    "iterations": "long long iterations", "seconds": "double seconds",
    "policy": "ScriptedPolicy policy", "rollout": "", "horizon_rounds": "int horizon_rounds",
    "c": "double c", "prior_weight": "double prior_weight", "eval_scale": "double eval_scale",
    "avoid_curse": "bool avoid_curse", "algorithm": "bool flat", "switch_z": "double switch_z",
    "min_pairs": "int min_pairs", "opponent_model": "bool policy_opponents",
    "max_depth": "int max_depth",
}
# Parameters whose member holds a yes/no answer about the Python value.
_MCTS_ANSWERS: dict[str, Callable[[Any], bool]] = {
    "algorithm": lambda v: v == "flat", "opponent_model": lambda v: v != "search"}
# mcts_search parameter keys beyond the agent's own parameters.
_MCTS_EXTRA_KEYS = ("planner", "max_seconds")


def _member_default(decl: str, value: Any) -> str:
    """A Python default written for the C++ member ``decl`` (``"double c"``); a seconds
    budget of None is 0.0, an enum member is named by the value in capitals."""
    kind, name = decl.rsplit(" ", 1)
    if kind == "double" and value is None:
        return "0.0"
    if kind in _FORMAT:
        return _FORMAT[kind](value, name)
    return f"{kind}::{str(value).upper()}"


def _search_defaults(w: _Writer, cls: type, owner: str, struct: str, prefix: str,
                     python_only: Sequence[str], members: dict[str, str],
                     answers: dict[str, Callable[[Any], bool]],
                     extra_keys: Sequence[str]) -> None:
    """The X-macro ``ZAV_<prefix>_DEFAULTS`` of ``struct`` members from the defaults of
    ``cls.__init__`` (the parameters not in ``python_only``; ``owner`` names the class), and
    the keys its search takes."""
    params = inspect.signature(cls.__init__).parameters  # type: ignore[misc]
    searched = [n for n in params if n not in python_only]
    unknown = [n for n in searched if n not in members]
    if unknown:
        raise CodegenError(
            f"{owner} parameter(s) {unknown}: say in zavandor_env/codegen/header.py how "
            f"the native search takes them (_{prefix}_MEMBERS) or that it does not "
            f"(_{prefix}_PYTHON_ONLY)")
    w.line(f"// X(member declaration, default): {struct} members from {owner}'s "
           "defaults.")
    w.line(f"#define ZAV_{prefix}_DEFAULTS(X) \\")
    for name in searched:
        value = params[name].default
        if members[name]:
            value = answers[name](value) if name in answers else value
            w.line(f"  X({members[name]}, {_member_default(members[name], value)}) \\")
    w.line("  /* end */")
    keys = [*searched, *extra_keys]
    w.line(f"// The keys {prefix.lower()}_search accepts.")
    w.line(f"inline constexpr const char* {prefix}_PARAM_KEYS[{len(keys)}] = "
           "{" + ", ".join(_string(k, owner) for k in keys) + "};")


def _mcts(w: _Writer) -> None:
    from zavandor_env.agents import mcts

    w.section("MCTSAgent", "agents/mcts.py")
    w.const("MCTS_MAX_ITERATIONS", mcts.MAX_ITERATIONS)
    w.const("MCTS_MAX_SECONDS", mcts.MAX_SECONDS, "double")
    _search_defaults(w, mcts.MCTSAgent, "MCTSAgent", "MctsParams", "MCTS", _MCTS_PYTHON_ONLY,
                     _MCTS_MEMBERS, _MCTS_ANSWERS, _MCTS_EXTRA_KEYS)


# NetworkSearch.__init__ parameters (agents/netsearch.py) that never reach the native search.
_NETMCTS_PYTHON_ONLY = ("self", "policy")
# The NetMctsParams member each of its parameters' Python default sets.
_NETMCTS_MEMBERS = {name: f"{kind} {name}" for name, kind in (
    ("iterations", "long long"), ("seconds", "double"), ("c_puct", "double"),
    ("fpu_reduction", "double"), ("root_noise", "double"), ("noise_fraction", "double"),
    ("temperature", "double"), ("opponent_temperature", "double"), ("rollout", "NetRollout"),
    ("rollout_steps", "int"), ("avoid_curse", "bool"))}
# netmcts_search parameter keys beyond NetworkSearch's own.
_NETMCTS_EXTRA_KEYS = ("max_seconds", "profile")


def _netmcts(w: _Writer) -> None:
    from zavandor_env.agents import netsearch

    w.section("NetworkSearch", "agents/netsearch.py")
    _search_defaults(w, netsearch.NetworkSearch, "NetworkSearch", "NetMctsParams", "NETMCTS",
                     _NETMCTS_PYTHON_ONLY, _NETMCTS_MEMBERS, {}, _NETMCTS_EXTRA_KEYS)


def _naive(w: _Writer) -> None:
    from zavandor_env.agents import naive
    from zavandor_env.engine import determinize

    w.section("determinizer, naive player", "engine/determinize.py, agents/naive.py")
    w.const("MAX_REDRAWS", determinize._MAX_REDRAWS)
    w.line("namespace naive_consts {")
    for name in ("GEMS_ADVANCE_MARGIN", "DISCOUNT_SHARE"):
        w.const(name, getattr(naive, name))
    for name in ("BID_LIMIT_FACTOR", "MASK_BID_LIMIT_FACTOR", "JITTER_MINUS", "JITTER_ZERO"):
        w.const(name, getattr(naive, name), "double")
    w.const("BIG_BID", naive._BIG_BID)
    w.array("TRACK_SEQUENCE", naive._TRACK_SEQUENCE)
    w.array("FREE_ADVANCE_ARTIFACTS", naive._FREE_ADVANCE_ARTIFACTS)
    w.line("}  // namespace naive_consts")


def _vec(w: _Writer) -> None:
    from zavandor_env.envs import vector as v
    w.section("VecLearner codes", "zavandor_env/envs/vector.py")
    w.enum("VecStatus", [("VEC_READY", v.READY), ("VEC_PENDING", v.PENDING),
                         ("VEC_DONE", v.DONE)], "int8_t")
    kinds = sorted(((n, getattr(v, n)) for n in dir(v) if n.startswith("KIND_")),
                   key=lambda item: item[1])
    w.enum("VecKind", kinds, "int8_t")


def _body() -> str:
    w = _Writer()
    w.line("// GENERATED by `python -m zavandor_env.codegen` -- do not edit.")
    w.line("//")
    w.line("// Every constant the native core shares with Python, written from the Python")
    w.line("// definitions (zavandor_env/codegen/header.py says which).  Change the Python side,")
    w.line("// run `python -m zavandor_env.codegen`, rebuild; docs/native.md has the details.")
    w.line("#pragma once")
    w.line()
    w.line("#include <cstdint>")
    w.line()
    w.line("namespace zav {")
    for section in (_sizes, _state_codes, _tables, _actions, _config, _heuristic, _mcts,
                    _netmcts, _naive, _vec):
        section(w)
    w.line()
    return "\n".join(w.lines) + "\n"


def content_hash(body: str) -> str:
    """The hash the header records of its own text (everything before the hash line)."""
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def render() -> str:
    """The whole header text."""
    body = _body()
    return (body + "// The hash of the text above; the extension exposes it as CONSTANTS_HASH.\n"
            + _HASH_PREFIX + content_hash(body) + '";\n\n}  // namespace zav\n')
