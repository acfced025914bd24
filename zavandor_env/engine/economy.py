"""Energy handling: dust change, automatic payment and the phase-4 hand limit.

Payment composition and hand-limit discards are automatic (no agent decision), by rules that
never lose value they need not lose:

* **Payment** (``pay``): among all combinations of usable hand items whose total covers the
  price, take the one with the smallest overpayment whose change can be returned in dust
  chits without loss; only if every covering combination leaves change of 1 or 3 (which
  2/5/10 chits cannot return) is 1 lost.  Among combinations with the same total, the items
  given away are those with the most hand-limit load per unit of value (small dust and low
  cards go first, concentrated cards are kept), so what is left fits the hand limit best.
  Change comes back in the chits that use the fewest hand-limit slots.
* **Hand limit** (``enforce_hand_limit``): the kept subset maximises total value within the
  limit, after exchanging dust upward (never breaking a chit into smaller ones; an exchange
  such as 2+2+2 -> 5 that loses value is made only when it keeps more value).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul
from typing import Final

from zavandor_env.engine.data import (
    CONC_TOKEN0,
    DUST_CHITS,
    DUST_LOAD,
    DUST_TOKEN0,
    NUM_CARD_TOKENS,
    NUM_TOKENS,
    TOKEN_COLOUR,
    TOKEN_LOAD,
    TOKEN_VALUE,
)
from zavandor_env.engine.state import GameState, PlayerState

_CHANGE_TABLE_SIZE: Final = 256


def _min_load_chits(amount: int, chits: tuple[int, ...]) -> list[int] | None:
    """Chit counts (aligned with DUST_CHITS) paying ``amount`` exactly in the fewest slots."""
    best: list[tuple[int, list[int]] | None] = [None] * (amount + 1)
    best[0] = (0, [0] * len(DUST_CHITS))
    for a in range(1, amount + 1):
        for i, chit in enumerate(DUST_CHITS):
            if chit not in chits or chit > a or best[a - chit] is None:
                continue
            load, counts = best[a - chit]  # type: ignore[misc]
            cand = load + DUST_LOAD[i]
            if best[a] is None or cand < best[a][0]:  # type: ignore[index]
                new = counts[:]
                new[i] += 1
                best[a] = (cand, new)
    entry = best[amount]
    return None if entry is None else entry[1]


def _change_table(chits: tuple[int, ...]) -> list[tuple[int, ...]]:
    table: list[tuple[int, ...]] = []
    for amount in range(_CHANGE_TABLE_SIZE):
        counts = _min_load_chits(amount, chits)
        if counts is None:  # 1 or 3 with 2/5/10 chits: give one less
            counts = _min_load_chits(amount - 1, chits)
        table.append(tuple(counts))  # type: ignore[arg-type]
    return table


_CHANGE = (_change_table((2, 5, 10)), _change_table((1, 2, 5, 10)))

# Give-away order for payments: most hand-limit load per unit of value first.
PAY_ORDER: Final = tuple(
    sorted(range(NUM_TOKENS), key=lambda t: (-TOKEN_LOAD[t] / TOKEN_VALUE[t], TOKEN_VALUE[t]))
)


def dust_chits(amount: int, one_value_dust: bool = False) -> tuple[int, ...]:
    """Chit counts (1, 2, 5, 10) for ``amount`` in the fewest hand-limit slots.

    Without 1-value dust an amount of 1 or 3 cannot be represented; one less is given (the
    rulebook, "Phase 3": there is no 1-value chit, so change of 1 may be lost).
    """
    table = _CHANGE[one_value_dust]
    if amount < _CHANGE_TABLE_SIZE:
        return table[amount]
    tens = (amount - _CHANGE_TABLE_SIZE + 20) // 10  # keep the remainder inside the table
    rest = table[amount - 10 * tens]
    return rest[:3] + (rest[3] + tens,)


def gain_dust(player: PlayerState, amount: int, one_value_dust: bool = False) -> int:
    """Give ``amount`` of dust as chits; returns the value lost to missing 1-chits (0 or 1)."""
    if amount <= 0:
        return 0
    counts = dust_chits(amount, one_value_dust)
    hand = player.hand
    given = 0
    for i, n in enumerate(counts):
        if n:
            hand[DUST_TOKEN0 + i] += n
            given += n * DUST_CHITS[i]
    return amount - given


def hand_value(hand: Sequence[int]) -> int:
    """Total energy value of a hand vector."""
    return sum(map(mul, hand, TOKEN_VALUE))


def hand_load(hand: Sequence[int]) -> int:
    """Hand-limit slots used by a hand vector."""
    return sum(map(mul, hand, TOKEN_LOAD))


def return_token(state: GameState, token: int, count: int) -> None:
    """Put spent or discarded items back: cards to their discard pile, concentrated cards to
    the open supply (publisher's glossary; docs/rules.md C1), dust to the bank (unlimited)."""
    if token < NUM_CARD_TOKENS:
        state.discards[TOKEN_COLOUR[token]].extend([token] * count)
    elif token < DUST_TOKEN0:
        state.concentrated_supply[token - CONC_TOKEN0] += count


def choose_payment(hand: list[int], amount: int, one_value_dust: bool = False) -> list[int]:
    """The items (counts per token) that pay ``amount`` by the documented rule.

    Raises ValueError if the hand is worth less than ``amount``.
    """
    items: list[int] = []
    for t in PAY_ORDER:
        n = hand[t]
        if n:
            items.extend([t] * n)
    reach = 1
    prefix = [1]
    for t in items:
        reach |= reach << TOKEN_VALUE[t]
        prefix.append(reach)
    top = reach >> amount
    if not top:
        raise ValueError(f"hand worth {hand_value(hand)} cannot pay {amount}")
    total = amount
    target = fallback = -1
    while top:
        if top & 1:
            change = total - amount
            if one_value_dust or (change != 1 and change != 3):
                target = total
                break
            if fallback < 0:
                fallback = total
        top >>= 1
        total += 1
    if target < 0:
        target = fallback
    chosen = [0] * NUM_TOKENS
    rest = target
    for i in range(len(items) - 1, -1, -1):
        if (prefix[i] >> rest) & 1:
            continue  # reachable without item i: keep it
        t = items[i]
        chosen[t] += 1
        rest -= TOKEN_VALUE[t]
    return chosen


def pay(state: GameState, player: PlayerState, amount: int) -> int:
    """Pay ``amount`` from the player's usable hand, returning change in dust.

    Returns the value lost (0 or 1).  The caller guarantees the hand covers the amount.
    """
    if amount <= 0:
        return 0
    one = state.config.one_value_dust
    chosen = choose_payment(player.hand, amount, one)
    hand = player.hand
    paid = 0
    for t in range(NUM_TOKENS):
        n = chosen[t]
        if n:
            hand[t] -= n
            paid += n * TOKEN_VALUE[t]
            return_token(state, t, n)
    return gain_dust(player, paid - amount, one)


def settle(state: GameState, player: PlayerState) -> int:
    """Settle the player's running balance: pay what is owed, or take sale proceeds as dust."""
    balance = player.balance
    player.balance = 0
    if balance > 0:
        return pay(state, player, balance)
    return gain_dust(player, -balance, state.config.one_value_dust)


def _best_dust(
    held: tuple[int, ...], slots: int, one_value_dust: bool
) -> tuple[int, tuple[int, ...]]:
    """The most dust value that fits in ``slots`` hand-limit slots, with its chits.

    ``held`` counts the player's 1/2/5/10 chits.  Chits may only be exchanged *upward*, for
    bigger ones (the rulebook, "Phase 4"): a kept 10 is a held 10 or a group of smaller chits worth
    >= 10, a kept 5 a held 5 or smaller chits worth >= 5, a kept 2 a held 2 (or 1+1), a kept 1
    a held 1; a chit is never broken into smaller ones.  Held 10s are kept first, held 5s go
    to kept 5s first and then in pairs to new 10s (each saves the most 2s), and 1-chits make
    a lossy group (2+2+2 -> 5, 5+2+2+2 -> 10) exact.
    """
    c1, c2, c5, c10 = held
    if one_value_dust and c1 > 1:
        # 1+1 -> 2 loses nothing; try it with the pairs merged and with the ones kept apart
        # (a single 1 makes a lossy group exact, which pairs cannot).
        merged = _best_dust((c1 % 2, c2 + c1 // 2, c5, c10), slots, True)
        apart = _best_dust_apart(held, slots, True)
        return merged if merged[0] >= apart[0] else apart
    return _best_dust_apart(held, slots, one_value_dust)


def _best_dust_apart(
    held: tuple[int, ...], slots: int, one_value_dust: bool
) -> tuple[int, tuple[int, ...]]:
    c1, c2, c5, c10 = held
    best_value, best_counts = 0, (0, 0, 0, 0)
    for n10 in range(slots // 3, -1, -1):
        s10 = slots - 3 * n10
        for n5 in range(s10 // 2, -1, -1):
            from5 = min(n5, c5)
            fives = c5 - from5
            lossy = n5 - from5  # kept 5s made of three 2s
            twos = 3 * lossy
            tens = max(0, n10 - c10)  # kept 10s made of smaller chits
            pairs = min(tens, fives // 2)
            tens -= pairs
            if tens and fives - 2 * pairs:
                tens -= 1  # 5 + 2 + 2 + 2
                twos += 3
                lossy += 1
            twos += 5 * tens
            ones_in_groups = min(c1, lossy) if one_value_dust else 0
            twos -= ones_in_groups
            if twos > c2:
                continue
            s5 = s10 - 2 * n5
            n2 = min(s5, c2 - twos)
            n1 = min(s5 - n2, c1 - ones_in_groups)
            value = 10 * n10 + 5 * n5 + 2 * n2 + n1
            if value > best_value:
                best_value, best_counts = value, (n1, n2, n5, n10)
    return best_value, best_counts


def enforce_hand_limit(state: GameState, player: PlayerState, limit: int) -> int:
    """Discard down to ``limit`` hand-limit slots keeping the most value; returns value lost."""
    hand = player.hand
    if hand_load(hand) <= limit:
        return 0
    cards = sorted(
        (t for t in range(NUM_CARD_TOKENS) for _ in range(hand[t])),
        key=lambda t: -TOKEN_VALUE[t],
    )
    concs = sorted(
        (t for t in range(CONC_TOKEN0, DUST_TOKEN0) for _ in range(hand[t])),
        key=lambda t: -TOKEN_VALUE[t],
    )
    held = tuple(hand[DUST_TOKEN0 + i] for i in range(len(DUST_CHITS)))
    before = hand_value(hand)
    one = state.config.one_value_dust
    card_prefix = [0]
    for t in cards:
        card_prefix.append(card_prefix[-1] + TOKEN_VALUE[t])
    best: tuple[int, int, int, tuple[int, ...]] = (-1, 0, 0, (0, 0, 0, 0))
    conc_value = 0
    for k in range(len(concs) + 1):
        if k:
            conc_value += TOKEN_VALUE[concs[k - 1]]
        if 3 * k > limit:
            break
        for m in range(min(len(cards), limit - 3 * k) + 1):
            dust_value, chits = _best_dust(held, limit - 3 * k - m, one)
            value = conc_value + card_prefix[m] + dust_value
            if value > best[0]:
                best = (value, k, m, chits)
    _, k, m, chits = best
    for t in cards[m:]:
        hand[t] -= 1
        return_token(state, t, 1)
    for t in concs[k:]:
        hand[t] -= 1
        return_token(state, t, 1)
    for i, n in enumerate(chits):
        hand[DUST_TOKEN0 + i] = n
    return before - hand_value(hand)
