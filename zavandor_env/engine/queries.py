"""Read-only facts derived from the state (never cached: they are cheap and always right)."""

from __future__ import annotations

from zavandor_env.engine.data import (
    ACCUMULATION_SLOTS_BY_LEVEL,
    ARTIFACT_CROSS_DISCOUNTS,
    ARTIFACT_DISCOUNT_BY_LEVEL,
    ARTIFACTS,
    BASE_ACTIVE_SLOTS,
    DRUID,
    DRUID_RUBY_FIRE_LEVEL,
    FIRE_LEVEL_FOR_RUBIES,
    GEM_SALE_TABLE,
    HAND_LIMIT_BASE,
    HAND_LIMIT_FIELD_MODIFIER,
    HAND_LIMIT_FLOOR,
    MASK_SENTINEL_DISCOUNT,
    MAX_RUBIES,
    NUM_GEMS,
    SENTINEL_DISCOUNT_BY_LEVEL,
    SENTINEL_MIN_BID,
    Art,
    Field,
    Gem,
)
from zavandor_env.engine.economy import hand_value
from zavandor_env.engine.state import ITEM_ARTIFACT, GameState, PlayerState

_HAND_LIMIT_FIELDS = tuple(
    (f, m) for f, m in enumerate(HAND_LIMIT_FIELD_MODIFIER) if m
)  # fields whose first level changes the hand limit
_BALL_HAND_LIMIT = ARTIFACTS[Art.CRYSTAL_BALL].hand_limit
_WAND_HAND_LIMIT = ARTIFACTS[Art.WAND].hand_limit
# The artifact producing one card of each colour per round, if any (blue, green, white, red).
_COLOUR_PRODUCER: tuple[Art | None, ...] = (None, Art.CRYSTAL_OF_PROTECTION, None, Art.CHALICE)


def hand_limit(player: PlayerState) -> int:
    """Cards the player may keep after phase 3 (track start + field modifiers + artifacts)."""
    limit = HAND_LIMIT_BASE
    levels = player.levels
    for f, modifier in _HAND_LIMIT_FIELDS:
        if levels[f]:
            limit += modifier
    arts = player.artifacts
    limit += _BALL_HAND_LIMIT * arts[Art.CRYSTAL_BALL] + _WAND_HAND_LIMIT * arts[Art.WAND]
    return limit if limit > HAND_LIMIT_FLOOR else HAND_LIMIT_FLOOR


def active_slots(player: PlayerState) -> int:
    """How many gems the player may have active."""
    arts = player.artifacts
    return (
        BASE_ACTIVE_SLOTS
        + ACCUMULATION_SLOTS_BY_LEVEL[player.levels[Field.ACCUMULATION]]
        + ARTIFACTS[Art.BELT].slots * arts[Art.BELT]
        + ARTIFACTS[Art.WAND].slots * arts[Art.WAND]
    )


def liquid(player: PlayerState) -> int:
    """Usable energy net of the running balance (what the player can still spend now)."""
    return hand_value(player.hand) - player.balance


def gems_sale_value(player: PlayerState) -> int:
    """What selling every gem the player owns would raise at the current price."""
    sale = 0
    level = player.levels[Field.GEMSTONES]
    for g in range(NUM_GEMS):
        n = player.active[g] + player.inactive[g]
        if n:
            sale += n * GEM_SALE_TABLE[g][level]
    return sale


def max_payable(player: PlayerState) -> int:
    """The largest price the player could pay, selling every gem if need be (Curse test)."""
    return liquid(player) + gems_sale_value(player)


def rubies_owned(player: PlayerState) -> int:
    return player.active[Gem.RUBY] + player.inactive[Gem.RUBY]


def may_own_gem(state: GameState, player: PlayerState, gem: int) -> bool:
    """Whether the player has the means to buy this kind of gem (ignoring cost and supply)."""
    if gem <= Gem.SAPPHIRE:
        return True
    if gem == Gem.EMERALD:
        return player.artifacts[Art.SPELLBOOK] > 0
    if gem == Gem.DIAMOND:
        return player.artifacts[Art.ELIXIR] > 0
    if rubies_owned(player) >= MAX_RUBIES:
        return False
    return player.levels[Field.FIRE] >= FIRE_LEVEL_FOR_RUBIES or druid_ruby_available(
        state, player
    )


def druid_ruby_available(state: GameState, player: PlayerState) -> bool:
    """The Druid's exclusive single ruby at Fire level 3 (option ``druid_l3_ruby``)."""
    return (
        state.config.druid_l3_ruby
        and player.character == DRUID
        and not player.druid_ruby_used
        and player.levels[Field.FIRE] == DRUID_RUBY_FIRE_LEVEL
    )


def artifact_price(state: GameState, player: PlayerState, art: int, bid: int) -> int:
    """Energy the player pays for an artifact won at ``bid`` (modifiers and discounts)."""
    price = bid + state.art_mod[player.seat]
    arts = player.artifacts
    for target, source, per_copy in ARTIFACT_CROSS_DISCOUNTS:
        if target == art:
            price -= per_copy * arts[source]
    price -= ARTIFACT_DISCOUNT_BY_LEVEL[player.levels[Field.ARTIFACTS]]
    return max(0, price)


def sentinel_price(state: GameState, player: PlayerState, bid: int) -> int:
    """Energy the player pays for a sentinel won at ``bid`` (modifiers and discounts)."""
    price = bid + state.sen_mod[player.seat]
    price -= MASK_SENTINEL_DISCOUNT * player.artifacts[Art.MASK]
    price -= SENTINEL_DISCOUNT_BY_LEVEL[player.levels[Field.ARTIFACTS]]
    return max(0, price)


def item_price(state: GameState, player: PlayerState, kind: int, item: int, bid: int) -> int:
    if kind == ITEM_ARTIFACT:
        return artifact_price(state, player, item, bid)
    return sentinel_price(state, player, bid)


def item_min_bid(kind: int, item: int) -> int:
    return ARTIFACTS[item].min_bid if kind == ITEM_ARTIFACT else SENTINEL_MIN_BID


def may_acquire(player: PlayerState, kind: int, item: int) -> bool:
    """A player may own only one Magic Belt and one Magic Wand."""
    return not (
        kind == ITEM_ARTIFACT and ARTIFACTS[item].only_one and player.artifacts[item] > 0
    )


def has_means_for_colour(state: GameState, player: PlayerState, colour: int) -> bool:
    """9-Sages substitution test: has the player a means to get cards of this colour?

    Means to get a colour (docs/rules.md decision 13): owning a gem of that colour (active or
    inactive: an inactive one may be activated), owning an artifact that produces it (Crystal of
    Protection: green, Chalice of Fire: red), or being allowed to buy its gem
    (:func:`may_own_gem`: sapphires always, emeralds with a Spellbook, diamonds with an
    Elixir, rubies at Fire 4 or with the Druid's unused Fire-3 ruby).  So blue always has
    means, and a Druid who spent his Fire-3 ruby still has means for red while he owns it.
    """
    gem = colour + 1  # colour c is produced by gem c + 1 (see data)
    if player.active[gem] or player.inactive[gem]:
        return True
    producer = _COLOUR_PRODUCER[colour]
    if producer is not None and player.artifacts[producer] > 0:
        return True
    # The 5-ruby cap in may_own_gem never hides means here: at the cap he owns rubies.
    return may_own_gem(state, player, gem)

