"""Compact, conservation-safe set-up of mid-game positions (for rule tests and debugging).

:func:`build` returns a :class:`~zavandor_env.engine.game.Game` positioned at the start of a
player's phase-3 turn, with every seat's holdings written in a short text notation::

    game = build(
        num_players=3,
        players=[
            {"active": "opal:3 sapphire", "hand": "blue5 green7 conc_red dust10:2",
             "levels": "fire:3 sages:1", "artifacts": "spellbook"},
            {"hand": "dust10:5"},
            {},
        ],
        display=["magic_mirror", "elixir", "talisman"],
        turn_order=[1, 0, 2],
    )

Notation (items separated by spaces, ``name:count`` repeats an item):

* gems -- ``opal sapphire emerald diamond ruby``;
* hand tokens -- energy cards ``blue3..7 green5..10 white8..12 red13..17``, concentrated cards
  ``conc_blue conc_green conc_white conc_red``, dust chits ``dust2 dust5 dust10`` (``dust1``
  only with the ``one_value_dust`` variant);
* fields -- ``gemstones energy_flow fire sages artifacts accumulation`` with the level as
  count (``fire:3``);
* artifacts -- the names used in the action names (``spellbook``, ``magic_mirror``...: the
  ``open_<artifact>`` actions; the whole action name ``open_magic_mirror`` works too) or the
  short aliases ``belt mirror protection mask wand chalice cloak`` (one table: ``names.py``);
* sentinels -- ``phoenix owl fox toad unicorn tomcat scarab raven salamander`` (or
  ``open_phoenix``...).

An unknown name raises :class:`ScenarioError` listing the known ones.

Everything handed out is *taken* from the table: gems from the gem supply, energy cards from
their colour's draw pile, concentrated cards from their supply, artifacts from the artifact
deck (or, when the deck has none left, the display) and sentinels from the open sentinels,
so the conservation laws of the real game hold (dust is unlimited, as in the engine).  Asking
for more than the table holds raises :class:`ScenarioError`.

The position is laid out on the oracle's live state (:class:`~.oracle.OracleGame`, the Python
rules), then loaded onto the C++ core like a saved game.

A built game is not a replay of ``(config, seed, actions)``: its ``history`` starts empty and
it has no initial forced decisions taken.  Scored VP are recounted from the holdings (unless a
seat gives ``vp``), turn order follows the rulebook's phase-1 rule unless ``turn_order`` is
given, and the position price modifiers are set from the order and the scored VP.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from difflib import get_close_matches
from typing import Any, SupportsIndex

from zavandor_env.engine.actions import END_TURN, string_to_action
from zavandor_env.engine.config import GameConfig
from zavandor_env.engine.data import (
    ARTIFACTS,
    CHARACTERS,
    CHIP_COSTS,
    COLOUR_NAMES,
    CONC_TOKEN0,
    DUST_CHITS,
    DUST_TOKEN0,
    FIELD_NAMES,
    GEM_NAMES,
    NUM_CARD_TOKENS,
    NUM_CHIPS,
    NUM_TOKENS,
    SENTINELS,
    TOKEN_COLOUR,
)
from zavandor_env.engine.economy import gain_dust
from zavandor_env.engine.flow import _determine_turn_order, assign_position_modifiers, begin_turn
from zavandor_env.engine.game import Game
from zavandor_env.engine.hands import token_notation
from zavandor_env.engine.hands import token_word as _token_word
from zavandor_env.engine.names import (
    ARTIFACT_ALIASES,
    ARTIFACT_NAMES,
    OPEN_PREFIX,
    SENTINEL_NAMES,
)
from zavandor_env.engine.oracle import OracleGame
from zavandor_env.engine.scoring import rescore
from zavandor_env.engine.state import Phase, PlayerState

#: Characters dealt when none are named: the ones whose starting field has no ongoing
#: price effect come first, so default scenarios use plain gem and artifact prices.
DEFAULT_CHARACTERS = ("druid", "fairy", "mage", "kobold", "witch", "elf")

__all__ = [
    "ARTIFACT_ALIASES",
    "DEFAULT_CHARACTERS",
    "ScenarioError",
    "artifact_index",
    "build",
    "finish_round",
    "parse_tokens",
    "play",
    "sentinel_index",
    "token_index",
    "token_names",
]

_PLAYER_KEYS = frozenset({"active", "inactive", "hand", "dust", "levels", "chips", "pentagon",
                          "artifacts", "sentinels", "sages", "sages_dust", "vp", "gem_vp",
                          "druid_ruby_used"})


class ScenarioError(ValueError):
    """A scenario description is malformed or asks for more than the table holds."""


# ---- notation ----------------------------------------------------------------------------
def _items(text: str) -> list[tuple[str, int]]:
    """``"a b:2"`` -> ``[("a", 1), ("b", 2)]``."""
    if not isinstance(text, str):
        raise ScenarioError(f"expected a notation string, got {text!r}")
    out = []
    for word in text.split():
        name, _, count = word.partition(":")
        try:
            n = int(count) if count else 1
        except ValueError:
            raise ScenarioError(f"bad count in {word!r}") from None
        if n < 0:
            raise ScenarioError(f"negative count in {word!r}")
        out.append((name, n))
    return out


def _counts(text: str, size: int, index: Callable[[str], int]) -> list[int]:
    """Notation as a count vector of ``size`` items, ``index`` giving each name's item."""
    counts = [0] * size
    for name, n in _items(text):
        counts[index(name)] += n
    return counts


_TOKEN_BY_WORD = {_token_word(t): t for t in range(NUM_TOKENS)}


def token_index(name: str) -> int:
    """Hand-token index of a notation name such as ``"blue5"``, ``"conc_red"``, ``"dust10"``."""
    if name not in _TOKEN_BY_WORD:
        raise ScenarioError(f"unknown hand token {name!r} (e.g. blue5, conc_red, dust10)")
    return _TOKEN_BY_WORD[name]


def parse_tokens(text: str) -> list[int]:
    """A hand in notation as a count vector over the hand tokens."""
    return _counts(text, NUM_TOKENS, token_index)


#: Inverse of :func:`parse_tokens`: a count vector in notation, ordered by token index, e.g.
#: ``"blue5:2 dust10"``.
token_names = token_notation


def _named(text: str, names: Sequence[str], what: str) -> list[int]:
    def index(name: str) -> int:
        if name not in names:
            raise ScenarioError(f"unknown {what} {name!r}; known: {' '.join(names)}")
        return names.index(name)

    return _counts(text, len(names), index)


def artifact_index(name: str) -> int:
    """Artifact type of a name as in the action names (``"magic_mirror"``), of the whole
    action name (``"open_magic_mirror"``) or of a short alias (``"mirror"``)."""
    return _item_index(name, ARTIFACT_NAMES, ARTIFACT_ALIASES, "artifact")


def sentinel_index(name: str) -> int:
    """Sentinel of ``"phoenix"`` or of the whole action name ``"open_phoenix"``."""
    return _item_index(name, SENTINEL_NAMES, {}, "sentinel")


def _item_index(name: str, names: tuple[str, ...], aliases: dict[str, str], what: str) -> int:
    if not isinstance(name, str):
        raise ScenarioError(f"{what} name must be a string, got {name!r}")
    bare = name.removeprefix(OPEN_PREFIX)
    bare = aliases.get(bare, bare)
    if bare in names:
        return names.index(bare)
    close = get_close_matches(bare, list(names) + list(aliases), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = " ".join(names) + (f"; aliases {' '.join(aliases)}" if aliases else "")
    raise ScenarioError(f"unknown {what} {name!r}{hint}; known: {shown}")


# ---- building ----------------------------------------------------------------------------
def build(
    num_players: int = 3,
    *,
    players: Sequence[Mapping[str, Any]] | None = None,
    characters: Sequence[str] | None = None,
    seed: SupportsIndex = 0,
    turn_order: Sequence[int] | None = None,
    turn_player: int | None = None,
    display: Sequence[str] | None = None,
    deck_top: Sequence[str] = (),
    decks: Mapping[str, str] | None = None,
    artifact_auctioned: bool = False,
    round: int = 1,
    **options: Any,
) -> Game:
    """A game at the start of ``turn_player``'s phase-3 turn with the given holdings.

    Args:
        num_players: 2-6.
        players: one mapping per seat (missing seats get the defaults).  Keys (all optional):
            ``active`` / ``inactive`` gems (default: the starting 2 opals + 1 sapphire active);
            ``hand`` tokens (default empty); ``dust`` extra dust amount, chitted in the fewest
            slots; ``levels`` (fields not named are at 0, except the character's starting
            field, which is at 1 unless named with a higher level); ``chips`` bought chip
            costs, e.g. ``"20 25"`` (default: the cheapest chips that the placed non-starting
            fields and the pentagon need); ``pentagon`` chips waiting unplaced (default 0, or
            the bought chips not placed); ``artifacts``; ``sentinels``; ``sages`` cards under
            the turn-order card and ``sages_dust``; ``vp`` and ``gem_vp`` scored at the last
            phase 4 (default: recounted from the holdings); ``druid_ruby_used``.
        characters: one name per seat (default :data:`DEFAULT_CHARACTERS`).
        seed: seeds the deck shuffles and every later random draw (any integer >= 0).
        turn_order: seats in order I, II, ...; default: the phase-1 rule on the scored VP.
        turn_player: whose turn it is (default position I).
        display: artifacts face up (default: as dealt by the seed).
        deck_top: artifacts to put on top of the artifact deck, the first drawn first.
        decks: per colour name, the exact draw pile (top = last item); that colour's other
            cards not held by anyone go to its discard pile.
        artifact_auctioned: whether an artifact was auctioned this round (the next phase 1
            refills the display only then).
        round: the round number.
        **options: other :class:`GameConfig` fields (``no_split_blocks=False``...).
    """
    if characters is None:
        characters = DEFAULT_CHARACTERS[:num_players]
    config = GameConfig(num_players=num_players, characters=tuple(characters), **options)
    specs = list(players or [])
    if len(specs) > num_players:
        raise ScenarioError(f"{len(specs)} player specs for {num_players} players")
    specs += [{}] * (num_players - len(specs))

    # The position is laid out on the oracle's live state, then loaded onto the core.
    oracle = OracleGame.new(config, seed)
    state = oracle.state
    _clear_table(state)
    state.round = round
    if display is not None:
        _lay_out_display(state, display)
    for seat, spec in enumerate(specs):
        _make_player(state, seat, spec)
    for name in reversed(list(deck_top)):
        state.artifact_deck.append(_take_artifact(state, artifact_index(name)))
    for colour_name, text in (decks or {}).items():
        _set_deck(state, colour_name, text)
    state.artifact_auctioned = artifact_auctioned
    _score(state, specs)
    _start_turn(state, turn_order, turn_player)
    return Game.from_dict(oracle.to_dict())


def _lay_out_display(state: Any, display: Sequence[str]) -> None:
    """Put the dealt display back on the deck and face up the named artifacts instead."""
    state.artifact_deck.extend(reversed(state.display))
    state.display = []
    for name in display:
        state.display.append(_take_artifact(state, artifact_index(name)))


def _score(state: Any, specs: Sequence[Mapping[str, Any]]) -> None:
    """Recount every seat's VP, then apply the VP the specs give."""
    rescore(state)
    for seat, spec in enumerate(specs):
        if "vp" in spec:
            state.players[seat].vp = int(spec["vp"])
        if "gem_vp" in spec:
            state.players[seat].gem_vp = int(spec["gem_vp"])


def _start_turn(state: Any, turn_order: Sequence[int] | None, turn_player: int | None) -> None:
    """Set the turn order (the phase-1 rule when not given) and begin ``turn_player``'s
    phase-3 turn (default: position I)."""
    if turn_order is None:
        _determine_turn_order(state)
    else:
        if sorted(turn_order) != list(range(state.config.num_players)):
            raise ScenarioError(f"turn_order must list every seat once, got {list(turn_order)}")
        state.turn_order = list(turn_order)
        assign_position_modifiers(state)
    if turn_player is None:
        turn_player = state.turn_order[0]
    if turn_player not in state.turn_order:
        raise ScenarioError(f"turn_player {turn_player} is not a seat")
    state.turn_index = state.turn_order.index(turn_player)
    begin_turn(state, turn_player)


def _clear_table(state: Any) -> None:
    """Undo round 1's hands and gems: every card back into its deck, reshuffled."""
    for p in state.players:
        for t in range(NUM_CARD_TOKENS):
            state.decks[TOKEN_COLOUR[t]].extend([t] * p.hand[t])
        for t in p.sages_tokens:
            state.decks[TOKEN_COLOUR[t]].append(t)
        for c in range(4):
            state.concentrated_supply[c] += p.hand[CONC_TOKEN0 + c]
        for g in range(5):
            state.gem_supply[g] += p.active[g] + p.inactive[g]
    for c in range(4):
        state.decks[c].extend(state.discards[c])
        state.discards[c] = []
        state.rng.shuffle(state.decks[c])
    state.players = [PlayerState(p.seat, p.character) for p in state.players]


def _make_player(state: Any, seat: int, spec: Mapping[str, Any]) -> None:
    unknown = set(spec) - _PLAYER_KEYS
    if unknown:
        raise ScenarioError(
            f"seat {seat}: unknown keys {sorted(unknown)}; known: {sorted(_PLAYER_KEYS)}"
        )
    p = state.players[seat]
    start_field = CHARACTERS[p.character].start_field
    active = _named(spec.get("active", "opal:2 sapphire"), GEM_NAMES, "gem")
    inactive = _named(spec.get("inactive", ""), GEM_NAMES, "gem")
    for g in range(5):
        need = active[g] + inactive[g]
        if need > state.gem_supply[g]:
            raise ScenarioError(f"seat {seat}: only {state.gem_supply[g]} {GEM_NAMES[g]}s left")
        state.gem_supply[g] -= need
    p.active, p.inactive = active, inactive

    hand = parse_tokens(spec.get("hand", ""))
    for t in range(NUM_TOKENS):
        for _ in range(hand[t]):
            _take_token(state, t, seat)
    p.hand = hand
    if spec.get("dust"):
        gain_dust(p, int(spec["dust"]), state.config.one_value_dust)
    for t in _expand(parse_tokens(spec.get("sages", ""))):
        if t >= NUM_CARD_TOKENS:
            raise ScenarioError(f"seat {seat}: 9-Sages cards must be energy cards")
        _take_token(state, t, seat)
        p.sages_tokens.append(t)
    p.sages_dust = int(spec.get("sages_dust", 0))

    if "levels" in spec:
        p.levels = _levels(seat, spec["levels"], start_field)
    else:
        p.levels[start_field] = 1
    if any(level > 4 for level in p.levels):
        raise ScenarioError(f"seat {seat}: levels go up to 4")
    placed = sum(1 for f, lv in enumerate(p.levels) if lv and f != start_field)
    if "chips" in spec:
        # Every bought chip is either placed in a field or waits in the pentagon.
        costs = sorted({int(c) for c in str(spec["chips"]).split()})
        for c in costs:
            if c not in CHIP_COSTS:
                raise ScenarioError(f"seat {seat}: no chip costs {c}; chips cost {CHIP_COSTS}")
            p.chips_bought[CHIP_COSTS.index(c)] = True
        p.pentagon_chips = int(spec.get("pentagon", len(costs) - placed))
        if p.pentagon_chips < 0 or placed + p.pentagon_chips != len(costs):
            raise ScenarioError(
                f"seat {seat}: {len(costs)} chips bought but {placed} placed and "
                f"{p.pentagon_chips} in the pentagon"
            )
    else:
        p.pentagon_chips = int(spec.get("pentagon", 0))
        needed = placed + p.pentagon_chips
        if needed > NUM_CHIPS:
            raise ScenarioError(f"seat {seat}: needs {needed} chips, a board has {NUM_CHIPS}")
        for i in range(needed):
            p.chips_bought[i] = True

    for a, n in enumerate(_counts(spec.get("artifacts", ""), len(ARTIFACTS), artifact_index)):
        for _ in range(n):
            _take_artifact(state, a)
        p.artifacts[a] = n
    sentinels = _counts(spec.get("sentinels", ""), len(SENTINELS), sentinel_index)
    for s, n in enumerate(sentinels):
        if n:
            if n > 1 or state.sentinel_owner[s] != -1:
                raise ScenarioError(f"seat {seat}: sentinel {SENTINELS[s].name} is taken")
            state.sentinel_owner[s] = seat
            p.sentinels.append(s)
    p.druid_ruby_used = bool(spec.get("druid_ruby_used", False))


def _levels(seat: int, text: str, start_field: int) -> list[int]:
    """Knowledge levels from notation.  The character's starting field is printed on the
    board at level 1 and levels never go down, so it is kept at 1 when not named and a
    lower level for it is refused (never silently dropped)."""
    levels = _named(text, FIELD_NAMES, "field")
    named = {name for name, _ in _items(text)}
    field = FIELD_NAMES[start_field]
    if field not in named:
        levels[start_field] = 1
    elif levels[start_field] < 1:
        raise ScenarioError(
            f"seat {seat}: the starting field {field} is at level 1 or more, got {field}:0"
        )
    return levels


def _expand(counts: Sequence[int]) -> list[int]:
    return [t for t, n in enumerate(counts) for _ in range(n)]


def _take_token(state: Any, token: int, seat: int) -> None:
    if token < NUM_CARD_TOKENS:
        deck = state.decks[TOKEN_COLOUR[token]]
        if token not in deck:
            raise ScenarioError(f"seat {seat}: no {_token_word(token)} card left in its deck")
        deck.remove(token)
    elif token < DUST_TOKEN0:
        colour = token - CONC_TOKEN0
        if not state.concentrated_supply[colour]:
            raise ScenarioError(f"seat {seat}: no {_token_word(token)} card left in the supply")
        state.concentrated_supply[colour] -= 1
    elif DUST_CHITS[token - DUST_TOKEN0] == 1 and not state.config.one_value_dust:
        raise ScenarioError("dust1 exists only with the one_value_dust variant")


def _take_artifact(state: Any, art: int) -> int:
    """Take an artifact card from the deck, or else from the display (as if bought)."""
    if art in state.artifact_deck:
        state.artifact_deck.remove(art)
    elif art in state.display:
        state.display.remove(art)
    else:
        raise ScenarioError(f"no {ARTIFACTS[art].name} left in the artifact deck or display")
    return art


def _set_deck(state: Any, colour_name: str, text: str) -> None:
    if colour_name not in COLOUR_NAMES:
        raise ScenarioError(f"unknown colour {colour_name!r}; known: {' '.join(COLOUR_NAMES)}")
    colour = COLOUR_NAMES.index(colour_name)
    pile = state.decks[colour] + state.discards[colour]
    wanted = _expand(parse_tokens(text))
    deck = []
    for t in wanted:
        if TOKEN_COLOUR[t] != colour or t >= NUM_CARD_TOKENS or t not in pile:
            raise ScenarioError(f"{_token_word(t)} is not an unheld {colour_name} card")
        pile.remove(t)
        deck.append(t)
    state.decks[colour] = deck
    state.discards[colour] = pile


# ---- driving -----------------------------------------------------------------------------
def play(game: Game, actions: str) -> Game:
    """Apply space-separated action names in order (e.g. ``"open_talisman bid_plus_0"``)."""
    for name in actions.split():
        game.apply(string_to_action(name))
    return game


def finish_round(game: Game) -> Game:
    """End every remaining phase-3 turn of this round, running phase 4 and the next round's
    phases 1-2 (the game must be waiting on a turn player's activities)."""
    start = game.round
    while not game.is_over and game.round == start:
        if game.phase != Phase.TURN:
            raise ScenarioError(f"finish_round needs a phase-3 turn, not {game.phase.name}")
        game.apply(END_TURN)
    return game
