"""Automatic payment, dust change and the phase-4 hand limit, checked against brute force on
small random hands (every sub-multiset of the hand is tried)."""

from __future__ import annotations

import itertools
import random

import pytest

from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.data import (
    CONC_TOKEN0,
    DUST_CHITS,
    DUST_LOAD,
    DUST_TOKEN,
    DUST_TOKEN0,
    NUM_CARD_TOKENS,
    NUM_TOKENS,
    TOKEN_LOAD,
    TOKEN_VALUE,
)
from zavandor_env.engine.economy import (
    choose_payment,
    dust_chits,
    enforce_hand_limit,
    gain_dust,
    hand_load,
    hand_value,
    pay,
    settle,
)

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle

ONE, TWO, FIVE, TEN = (DUST_TOKEN[v] for v in DUST_CHITS)


def random_hand(
    rng: random.Random, size: int, one_value_dust: bool = False, dust_share: float = 0.45
) -> list[int]:
    """A hand of ``size`` items mixing cards, concentrated cards and dust chits."""
    tokens = list(range(NUM_CARD_TOKENS)) + list(range(CONC_TOKEN0, DUST_TOKEN0))
    dust = [TWO, FIVE, TEN] + ([ONE] if one_value_dust else [])
    hand = [0] * NUM_TOKENS
    for _ in range(size):
        pool = dust if rng.random() < dust_share else tokens
        hand[rng.choice(pool)] += 1
    return hand


def sub_hands(hand: list[int]):
    """Every sub-multiset of a hand, as count vectors."""
    held = [t for t in range(NUM_TOKENS) if hand[t]]
    for counts in itertools.product(*(range(hand[t] + 1) for t in held)):
        sub = [0] * NUM_TOKENS
        for t, n in zip(held, counts):
            sub[t] = n
        yield sub


def fresh_player(one_value_dust: bool = False):
    game = Game.new(GameConfig(num_players=2, one_value_dust=one_value_dust), seed=0)
    return game.state, game.state.players[0]


# ---- dust change ---------------------------------------------------------------------------------
def min_load_chits(amount: int, chits: tuple[int, ...]) -> int | None:
    """Fewest hand-limit slots paying ``amount`` exactly in the given chits (None: impossible)."""
    load = {v: DUST_LOAD[DUST_CHITS.index(v)] for v in chits}
    best: list[int | None] = [0] + [None] * amount
    for a in range(1, amount + 1):
        options = [best[a - v] + load[v] for v in chits if v <= a and best[a - v] is not None]
        best[a] = min(options) if options else None
    return best[amount]


@pytest.mark.parametrize("one_value_dust", [False, True])
def test_dust_chits_pay_each_amount_in_the_fewest_slots(one_value_dust: bool) -> None:
    chits = (1, 2, 5, 10) if one_value_dust else (2, 5, 10)
    for amount in list(range(300)) + [511, 1000, 1003, 12345]:
        counts = dust_chits(amount, one_value_dust)
        value = sum(n * v for n, v in zip(counts, DUST_CHITS))
        load = sum(n * w for n, w in zip(counts, DUST_LOAD))
        assert min(counts) >= 0
        if not one_value_dust:
            assert counts[0] == 0  # no 1-value chit exists
        if one_value_dust or amount not in (1, 3):
            assert value == amount, amount
        else:
            assert value == amount - 1  # a surplus of 1 is lost
        if amount <= 300:
            assert load == min_load_chits(value, chits), amount


def test_gain_dust_reports_the_lost_unit() -> None:
    _, player = fresh_player()
    before = hand_value(player.hand)
    assert gain_dust(player, 3) == 1 and hand_value(player.hand) == before + 2
    assert gain_dust(player, 17) == 0 and hand_value(player.hand) == before + 19
    assert gain_dust(player, 0) == 0 and gain_dust(player, -5) == 0


# ---- payment ------------------------------------------------------------------------------------
def check_payment(hand: list[int], amount: int, one_value_dust: bool) -> None:
    chosen = choose_payment(hand, amount, one_value_dust)
    assert all(0 <= c <= h for c, h in zip(chosen, hand)), "pays only with held items"
    total = hand_value(chosen)
    assert total >= amount
    covering = {hand_value(sub) for sub in sub_hands(hand)}
    covering = {t for t in covering if t >= amount}
    lossless = {t for t in covering if one_value_dust or t - amount not in (1, 3)}
    if lossless:
        assert total == min(lossless), "smallest overpayment that change can return"
    else:
        assert total == min(covering) and total - amount in (1, 3)
    if amount in covering:
        assert total == amount, "exact payment when possible"
    # Through pay(): the hand shrinks by the amount (and the lost unit, if any).
    state, player = fresh_player(one_value_dust)
    player.hand = hand[:]
    lost = pay(state, player, amount)
    assert lost == (0 if lossless else 1)
    assert hand_value(player.hand) == hand_value(hand) - amount - lost
    assert min(player.hand) >= 0


@pytest.mark.parametrize("one_value_dust", [False, True])
def test_payment_matches_brute_force_on_small_hands(one_value_dust: bool) -> None:
    rng = random.Random(1 + one_value_dust)
    for _ in range(400):
        hand = random_hand(rng, rng.randint(1, 7), one_value_dust)
        value = hand_value(hand)
        amount = rng.randint(1, value)
        check_payment(hand, amount, one_value_dust)


def test_payment_edge_amounts() -> None:
    rng = random.Random(7)
    for _ in range(100):
        hand = random_hand(rng, rng.randint(1, 6))
        value = hand_value(hand)
        for amount in {1, 2, 3, value - 3, value - 1, value} - {0}:
            if 0 < amount <= value:
                check_payment(hand, amount, False)


def test_payment_beyond_the_hand_raises() -> None:
    hand = [0] * NUM_TOKENS
    hand[TEN] = 2
    with pytest.raises(ValueError):
        choose_payment(hand, 21)


def test_payment_gives_away_dust_before_a_concentrated_card_of_equal_value() -> None:
    # 10 + 10 dust (6 slots) or a concentrated blue card (20, 3 slots): keep the card.
    hand = [0] * NUM_TOKENS
    hand[TEN] = 2
    hand[CONC_TOKEN0] = 1
    chosen = choose_payment(hand, 20)
    assert chosen[TEN] == 2 and chosen[CONC_TOKEN0] == 0


@pytest.mark.parametrize(
    "chits, amount, lost, left",
    [
        ({FIVE: 1}, 4, 1, 0),  # change 1 cannot be returned
        ({FIVE: 1, TWO: 1}, 4, 1, 2),  # 5 (change 1) or 7 (change 3): loss unavoidable
        ({FIVE: 1, TWO: 2}, 4, 0, 5),  # 2 + 2 pays exactly
        ({TEN: 1}, 4, 0, 6),  # change 6 = three 2-chits
        ({TEN: 1}, 7, 1, 2),  # change 3 -> 2
        ({TEN: 1, FIVE: 1}, 8, 0, 7),  # the 10 alone, change 2 (not 15, change 7)
        ({TEN: 1, FIVE: 1}, 12, 1, 2),  # only 15 covers: change 3 -> 2
    ],
)
def test_change_loses_one_only_when_unavoidable(chits, amount, lost, left) -> None:
    state, player = fresh_player()
    player.hand = [0] * NUM_TOKENS
    for token, n in chits.items():
        player.hand[token] = n
    assert pay(state, player, amount) == lost
    assert hand_value(player.hand) == left


def test_settle_pays_a_debt_and_turns_a_credit_into_dust() -> None:
    state, player = fresh_player()
    player.hand = [0] * NUM_TOKENS
    player.hand[TEN] = 3
    player.balance = 12
    assert settle(state, player) == 0
    assert player.balance == 0 and hand_value(player.hand) == 18
    player.balance = -7
    settle(state, player)
    assert player.balance == 0 and hand_value(player.hand) == 25


# ---- hand limit ---------------------------------------------------------------------------------
def set_partitions(items: list[int]):
    """Every partition of a list into blocks (items treated as distinct)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first]] + partition
        for i in range(len(partition)):
            yield partition[:i] + [[first] + partition[i]] + partition[i + 1 :]


def dust_keep_table(chits: list[int]) -> dict[int, int]:
    """Brute force over the rulebook's upward exchange: slots used -> most dust value kept.

    Every partition of the held chits is tried; each block is discarded, kept as is (a single
    chit), or exchanged for one larger chit when all its members are smaller and together
    worth at least that chit (5 + 5 -> 10, 2 + 2 + 2 -> 5 losing 1); chits are never broken.
    """
    load = dict(zip(DUST_CHITS, DUST_LOAD))
    best: dict[int, int] = {}
    for partition in set_partitions(chits):
        table = {0: 0}
        for block in partition:
            options = [(0, 0)]
            if len(block) == 1:
                options.append((load[block[0]], block[0]))
            else:
                options += [
                    (load[big], big) for big in (2, 5, 10) if max(block) < big <= sum(block)
                ]
            merged: dict[int, int] = {}
            for used, value in table.items():
                for extra_load, extra_value in options:
                    key = used + extra_load
                    merged[key] = max(merged.get(key, 0), value + extra_value)
            table = merged
        for used, value in table.items():
            best[used] = max(best.get(used, 0), value)
    return best


def best_kept_value(hand: list[int], limit: int) -> int:
    """Brute force: the most value a hand can keep within ``limit`` slots (any subset of its
    cards and concentrated cards, plus the best upward exchange of its dust)."""
    chits = [v for i, v in enumerate(DUST_CHITS) for _ in range(hand[DUST_TOKEN0 + i])]
    dust = dust_keep_table(chits)
    items = hand[:DUST_TOKEN0] + [0] * (NUM_TOKENS - DUST_TOKEN0)
    best = 0
    for sub in sub_hands(items):
        slots = limit - hand_load(sub)
        if slots >= 0:
            kept_dust = max(v for used, v in dust.items() if used <= slots)
            best = max(best, hand_value(sub) + kept_dust)
    return best


@pytest.mark.parametrize("one_value_dust", [False, True])
@pytest.mark.parametrize("dust_share", [0.45, 0.9])
def test_hand_limit_keeps_the_most_value(one_value_dust: bool, dust_share: float) -> None:
    rng = random.Random(11 + one_value_dust + 2 * (dust_share > 0.5))
    trimmed = 0
    for _ in range(250):
        hand = random_hand(rng, rng.randint(1, 8), one_value_dust, dust_share)
        limit = rng.randint(1, 12)
        state, player = fresh_player(one_value_dust)
        player.hand = hand[:]
        discards_before = [len(p) for p in state.discards]
        supply_before = state.concentrated_supply[:]
        lost = enforce_hand_limit(state, player, limit)
        kept = player.hand
        assert min(kept) >= 0
        if hand_load(hand) <= limit:
            assert kept == hand and lost == 0
            continue
        trimmed += 1
        assert hand_load(kept) <= limit
        assert lost == hand_value(hand) - hand_value(kept) >= 0
        assert hand_value(kept) == best_kept_value(hand, limit), (hand, limit)
        for t in range(DUST_TOKEN0):
            assert kept[t] <= hand[t]  # cards are only discarded, never made
        # Discarded cards go to their discard piles, concentrated cards to the supply.
        dropped_cards = sum(hand[t] - kept[t] for t in range(NUM_CARD_TOKENS))
        assert sum(len(p) for p in state.discards) - sum(discards_before) == dropped_cards
        for c in range(4):
            dropped = hand[CONC_TOKEN0 + c] - kept[CONC_TOKEN0 + c]
            assert state.concentrated_supply[c] - supply_before[c] == dropped
        if not one_value_dust:
            assert kept[ONE] == 0
    assert trimmed > 100  # most cases really exceed the limit


def test_hand_limit_never_breaks_a_chit() -> None:
    # One 10-chit (3 slots) in a 2-slot limit is lost whole: it cannot become a 5.
    state, player = fresh_player()
    player.hand = [0] * NUM_TOKENS
    player.hand[TEN] = 1
    assert enforce_hand_limit(state, player, 2) == 10 and hand_value(player.hand) == 0


def test_hand_limit_exchanges_dust_upward() -> None:
    # Five 2-chits (5 slots, value 10) fit a 3-slot limit as one 10-chit.
    state, player = fresh_player()
    player.hand = [0] * NUM_TOKENS
    player.hand[TWO] = 5
    assert enforce_hand_limit(state, player, 3) == 0
    assert player.hand[TEN] == 1 and hand_value(player.hand) == 10


def test_hand_load_and_value_count_every_token() -> None:
    hand = [1] * NUM_TOKENS
    assert hand_value(hand) == sum(TOKEN_VALUE)
    assert hand_load(hand) == sum(TOKEN_LOAD)
    assert hand_value([0] * NUM_TOKENS) == hand_load([0] * NUM_TOKENS) == 0
