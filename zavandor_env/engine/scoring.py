"""Victory points, recounted from scratch (phase 4), and the winners."""

from __future__ import annotations

from operator import mul

from zavandor_env.engine.data import (
    ARTIFACTS,
    GEM_VP,
    MAX_LEVEL,
    NUM_GEMS,
    RAVEN_ARTIFACTS,
    SENTINEL_BASE_VP,
    SENTINELS,
    TOAD_ARTIFACTS,
    TOP_LEVEL_VP,
    Gem,
    Sen,
)
from zavandor_env.engine.state import GameState, PlayerState

_ARTIFACT_VP = tuple(a.vp for a in ARTIFACTS)


def gem_vp(player: PlayerState) -> int:
    """VP from active gems (inactive gems score nothing)."""
    return sum(map(mul, player.active, GEM_VP))


def sentinel_units(player: PlayerState, sentinel: int) -> int:
    """How many bonus units a sentinel counts for this player (before cap and multiplier)."""
    active, arts = player.active, player.artifacts
    if sentinel == Sen.PHOENIX:
        return sum(1 for g in range(NUM_GEMS) if active[g])
    if sentinel == Sen.OWL:
        return sum(1 for level in player.levels if level >= MAX_LEVEL)
    if sentinel == Sen.FOX:
        return active[Gem.SAPPHIRE]
    if sentinel == Sen.TOAD:
        return sum(arts[a] for a in TOAD_ARTIFACTS)
    if sentinel == Sen.UNICORN:
        return active[Gem.DIAMOND]
    if sentinel == Sen.TOMCAT:
        return active[Gem.OPAL]
    if sentinel == Sen.SCARAB:
        return active[Gem.EMERALD]
    if sentinel == Sen.RAVEN:
        return sum(arts[a] for a in RAVEN_ARTIFACTS)
    return active[Gem.RUBY]  # salamander


def sentinel_vp(player: PlayerState, sentinel: int) -> int:
    """5 VP plus the sentinel's bonus, capped as printed."""
    spec = SENTINELS[sentinel]
    bonus = spec.per_unit * sentinel_units(player, sentinel)
    if spec.cap is not None:
        bonus = min(bonus, spec.cap)
    return SENTINEL_BASE_VP + bonus


def victory_points(player: PlayerState) -> int:
    """The player's VP total from scratch: gems, top levels, artifacts, sentinels."""
    if player.eliminated:
        return 0
    vp = gem_vp(player)
    for level in player.levels:
        if level >= MAX_LEVEL:
            vp += TOP_LEVEL_VP
    arts = player.artifacts
    if any(arts):
        vp += sum(map(mul, arts, _ARTIFACT_VP))
    for sentinel in player.sentinels:
        vp += sentinel_vp(player, sentinel)
    return vp


def rescore(state: GameState) -> None:
    """Phase 4 recount: the new totals replace the old ones."""
    for p in state.players:
        p.vp = victory_points(p)
        p.gem_vp = 0 if p.eliminated else gem_vp(p)


def winners(state: GameState) -> list[int]:
    """Seats with the most VP among players still in the game (ties share the win)."""
    alive = [p for p in state.players if not p.eliminated]
    if not alive:
        return []
    best = max(p.vp for p in alive)
    return [p.seat for p in alive if p.vp == best]
