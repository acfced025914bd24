"""Reward schemes: what each seat receives when a game ends, plus optional VP shaping.

All terminal schemes are given once, on the step that ends the game by the rules
(``terminated``).  A game cut off at ``max_rounds`` (``truncated``) gives no terminal reward
unless ``score_truncated`` is on, in which case it is scored like a finished game from the VP
at the last phase 4.  Eliminated players (Curse of the 9 Sages) rank below every player
still in the game (and have 0 VP for ``vp_margin``).

``"win"`` (default, zero-sum): the k seats sharing the most VP get ``+1/k`` each and the
other n-k seats get ``-1/(n-k)`` each; if every seat ties, everyone gets 0.  So a sole win is
+1, a 2-way shared win +1/2, and a loss -1 in 2-player games, -1/3 in 4-player games
(n-1 losers share -1).  A seat playing like its opponents expects 0.

``"rank"`` (zero-sum): rank 1 gets +1, last gets -1, linear in between
(``1 - 2 * (rank - 1) / (n - 1)``); tied seats share the average of their ranks.

``"vp_margin"``: ``(my VP - best other VP) / 50``: positive for the winner, negative for the
others, 0 for a tie at the top.

Shaping (``vp_delta`` coefficient, default 0): on every step each seat also receives
``vp_delta * (VP now - VP before the step)``, i.e. when phase 4 rescores.  Summed over a game
it telescopes to ``vp_delta * (final VP - starting VP)``.
"""

from __future__ import annotations

from typing import Final

REWARD_SCHEMES: Final = ("win", "rank", "vp_margin")
VP_MARGIN_SCALE: Final = 50.0


def terminal_rewards(scheme: str, vps: list[int], alive: list[bool]) -> list[float]:
    """Per-seat terminal rewards for final VP ``vps`` (eliminated seats have ``alive`` False)."""
    n = len(vps)
    points = [vp if ok else -1 for vp, ok in zip(vps, alive)]  # eliminated below any score
    if scheme == "win":
        best = max(points)
        winners = [i for i in range(n) if points[i] == best]
        k = len(winners)
        if k == n:
            return [0.0] * n
        return [1.0 / k if points[i] == best else -1.0 / (n - k) for i in range(n)]
    if scheme == "rank":
        rewards = []
        for i in range(n):
            above = sum(1 for p in points if p > points[i])
            tied = sum(1 for p in points if p == points[i])
            mean_rank = above + (tied - 1) / 2  # 0-based average rank among the tied
            rewards.append(1.0 - 2.0 * mean_rank / (n - 1))
        return rewards
    if scheme == "vp_margin":
        out = []
        for i in range(n):
            others = max(vps[j] if alive[j] else 0 for j in range(n) if j != i)
            mine = vps[i] if alive[i] else 0
            out.append((mine - others) / VP_MARGIN_SCALE)
        return out
    raise ValueError(f"unknown reward scheme {scheme!r}; choose from {REWARD_SCHEMES}")
