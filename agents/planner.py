"""``planner``: a scripted rule-based player with one fixed plan, found by measurement against
``naive`` (sozav's computer player) -- the project's strongest rule-based baseline.

Where it comes from (docs/benchmarks-history.md, "The planner"): the value-based ``heuristic``
loses to ``naive``, and weights or saving rules did not change that; the shipped 2-player
policy beats ``naive`` nearly always with a plain plan -- sapphires in every slot, Energy Flow
and Artifacts knowledge, nearly every artifact at about its printed minimum, sentinels late.
This agent writes that plan down as steps, the way ``naive`` does (one action per call, the
first step that applies), and its few numbers were tuned with seeded tournaments against
``naive`` (its strength: docs/benchmarks.md, "The planner").

The planner is implemented once, in C++ (``native/src/naive.cpp``, beside ``naive``, whose
bookkeeping it shares; it also plays MCTS rollouts and vectorised opponents); this module holds
its parameters and the agent class that hands each decision to the native core.

The turn (phase 3), first step that applies:

1. **Sentinel** -- as ``naive``: one of the still-available sentinels with the best bonus for
   this seat, opened at 120 as soon as 120 net of modifiers is affordable from liquid energy
   (cash plus the sale value of inactive gems); never the fifth (game-ending) sentinel unless
   taking it leaves this seat strictly ahead.
2. **Gems** -- the target kind is the best kind the seat may buy now, capped at ``gem_cap``
   (sapphire by default): bought when a slot is free or an active gem of a lower kind can make
   room (the displaced gem turns into liquid energy), if liquid energy covers it.
3. **Artifact** (from round ``artifacts_first_round`` on; before that after step 4) -- open
   the displayed artifact with the most VP per net energy that the seat may own, wants and can
   pay from cash.
4. **Knowledge** -- one paid level per round: the first field of ``knowledge_order`` that is
   below level 4, entered with the pentagon chip or the cheapest unbought chip; a field already
   entered is raised before the next one is started.
5. **End the turn.**

Bidding: raise by 1 while the bid stays below ``artifact_bid_factor`` x the printed minimum net
of the seat's discounts (by player count: contested at 2 players, where each artifact exists
once), or ``sentinel_bid_factor`` x 120 plus a third of any sentinel discount; the fifth
sentinel is bid for exactly while taking it would leave the seat strictly ahead.  Never more
than liquid energy.

Everything else -- the virtual gem arrangement (best kinds active), funding a purchase by
selling inactive gems, the modifiers m(item), the sentinel bonuses, ``wants``, debts, Mirror and
Cloak losses, free levels -- is ``naive``'s bookkeeping,
except that a Fire track below level 4 does not stop this player from buying (``naive``'s druid
rule would freeze a druid that never raises Fire).  The agent never stalls for the same reasons
``naive`` does not: every purchase spends cash and sales fund only the purchase that asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, Strict, field_validator

from zavandor_env.agents.naive import ScriptedBot
from zavandor_env.agents.params_file import ParamsFile
from zavandor_env.engine.data import FIELD_NAMES, GEM_NAMES
from zavandor_env.engine.native import core_module
from zavandor_env.engine.schema import checked
from zavandor_env.resources import PACKAGE_DIR

__all__ = ["PlannerAgent", "PlannerParams", "native_planner_params", "resolve_params"]

DEFAULT_CONFIG = PACKAGE_DIR / "configs" / "agents" / "planner.yaml"


@checked(ValueError, what="planner parameter")
class PlannerParams(ParamsFile):
    """The planner's numbers (``configs/agents/planner.yaml``)."""

    _SECTION, _WHAT, _DEFAULT = "params", "planner parameters", DEFAULT_CONFIG

    gem_cap: str = "sapphire"  # the best gem kind it buys
    knowledge_order: Annotated[list[str], Field(min_length=1)] = field(default_factory=lambda: [
        "energy_flow", "artifacts", "accumulation", "sages", "gemstones", "fire"])
    artifacts_first_round: Annotated[int, Field(ge=1)] = 10  # from this round on, artifacts
    # come before knowledge
    # highest bid, net of discounts, as a multiple of an artifact's printed minimum, per player
    # count ("2" or "1.1" from a file are taken as 2 and 1.1)
    artifact_bid_factor: dict[Annotated[int, Strict(False)],
                              Annotated[float, Strict(False), Field(gt=0)]] = field(
        default_factory=lambda: {2: 1.1, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0})
    # highest sentinel bid as a multiple of 120
    sentinel_bid_factor: Annotated[float, Field(gt=0)] = 1.15

    @field_validator("gem_cap")
    @classmethod
    def _a_gem(cls, name: str) -> str:
        if name not in GEM_NAMES:
            raise ValueError(f"must be one of {list(GEM_NAMES)}, got {name!r}")
        return name

    @field_validator("knowledge_order")
    @classmethod
    def _distinct_fields(cls, order: list[str]) -> list[str]:
        if any(f not in FIELD_NAMES for f in order) or len(set(order)) != len(order):
            raise ValueError(f"must list distinct fields of {list(FIELD_NAMES)}, got {order!r}")
        return order

    @field_validator("artifact_bid_factor")
    @classmethod
    def _every_player_count(cls, factors: dict[int, float]) -> dict[int, float]:
        if set(factors) != {2, 3, 4, 5, 6}:
            raise ValueError(f"must give a positive factor for each of 2-6 players, "
                             f"got {factors!r}")
        return factors

    @property
    def gem_cap_kind(self) -> int:
        return GEM_NAMES.index(self.gem_cap)

    @property
    def field_order(self) -> tuple[int, ...]:
        return tuple(FIELD_NAMES.index(f) for f in self.knowledge_order)


#: Full parameters: given ones, or a file's (default: the shipped ``planner.yaml``) with given
#: keys overridden.
resolve_params = PlannerParams.resolve


def native_planner_params(params: PlannerParams) -> Any:
    """``params`` as the native module's ``PlannerParams`` (indices instead of names), for
    ``NativePlanner`` and the MCTS rollouts (``native/src/naive.hpp``)."""
    factors = [1.0] * 7
    for players, factor in params.artifact_bid_factor.items():
        factors[players] = factor
    return core_module().PlannerParams(
        gem_cap=params.gem_cap_kind,
        field_order=list(params.field_order),
        artifacts_first_round=params.artifacts_first_round,
        artifact_bid_factor=factors,
        sentinel_bid_factor=float(params.sentinel_bid_factor),
    )


class PlannerAgent(ScriptedBot):
    """The planner (see the module docstring).  Seeded: the same seed, seat and game give the
    same decisions.  It shares :class:`~zavandor_env.agents.naive.ScriptedBot`'s ``act`` (the
    safe fallback and its ``fallbacks`` count: 0 in the tests).

    Args:
        seed: draws the choice among equally good sentinels.
        params: a :class:`PlannerParams`, a mapping of overrides, or None for
            ``configs/agents/planner.yaml``.
        config: path of a parameters YAML file (instead of the shipped one).
    """

    name = "planner"

    def __init__(self, seed: int | None = None,
                 params: PlannerParams | Mapping[str, Any] | None = None,
                 config: str | Path | None = None) -> None:
        self.params = resolve_params(params, config)
        super().__init__(seed)

    def _make_bot(self, seed: int) -> Any:
        return core_module().NativePlanner(native_planner_params(self.params), seed)
