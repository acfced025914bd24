"""An example bot to copy when writing your own: a greedy one-ply player in plain Python.

It is deliberately simple (and weak: it never bids for an artifact or a sentinel, so it
loses to every scripted player), but it shows the whole agent contract in a few lines:

1. subclass :class:`~zavandor_env.agents.base.Agent` and implement :meth:`act`;
2. decide from the :class:`~zavandor_env.engine.view.PlayerView` (what this seat may know),
   never from the game itself;
3. return one of ``legal_actions``; draw randomness only from ``self.rng`` (seeded by the
   tournament, so games replay exactly).

How it decides: it samples one full game consistent with what it knows
(:func:`~zavandor_env.engine.determinize.determinize`: the hidden cards are redrawn), tries
every legal action on a copy of that sample, and keeps the action after which its own seat
looks best by :func:`evaluate` (VP, income to come, energy in hand) -- if it looks better
than ending the turn or passing, so it never spends for nothing.

Try it: ``zavandor eval --agents one_ply heuristic --games 20``.  To register a copy of your
own under a name, add it to ``_CLASSES`` in :mod:`zavandor_env.agents.registry` (and its
parameters to :mod:`zavandor_env.agents.spec_params`), or pass the agent object itself to
:func:`zavandor_env.eval.match.play_game`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zavandor_env.agents.base import Agent
from zavandor_env.engine.actions import BID, END_TURN, OPEN_ARTIFACT, PASS
from zavandor_env.engine.determinize import determinize
from zavandor_env.engine.view import PlayerView

#: Energy one more active gem of each kind (opal, sapphire, emerald, diamond, ruby) brings
#: per round, roughly.
GEM_INCOME = (3, 5, 8, 10, 15)
#: Energy one victory point is worth (about what a sentinel costs per VP).
VP_WORTH = 12
#: How long a game lasts, in rounds (about 15-17; the exact figure matters little here).
EXPECTED_ROUNDS = 16
#: The share of future income that ends up well spent.
INCOME_EFFICIENCY = 0.5
#: Energy one knowledge level is worth (discounts, slots, hand limit: a rough average).
LEVEL_WORTH = 20
#: Energy in hand counts for less than its face value: the hand limit destroys what is not
#: spent, so spending it on something worth a little less still pays.
HAND_SHARE = 0.7


def evaluate(view: PlayerView, rounds_left: int) -> float:
    """How good the viewing seat's position looks, in energy: its VP, the income its active
    gems will bring in ``rounds_left`` rounds, its knowledge (a chip waiting to be placed
    counts as half a level), and the energy it holds now (so spending is a cost)."""
    me = view.me
    income = sum(count * GEM_INCOME[gem] for gem, count in enumerate(me.active))
    return (me.current_vp * VP_WORTH + income * rounds_left * INCOME_EFFICIENCY
            + (sum(me.levels) + me.pentagon_chips / 2) * LEVEL_WORTH + me.liquid * HAND_SHARE)


class OnePlyAgent(Agent):
    """Greedy one-ply search on one sampled game (see the module docstring).

    Args:
        seed: seeds the sampling of the hidden cards.
    """

    name = "one_ply"

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        if len(legal_actions) == 1:  # nothing to choose: skip the work
            return legal_actions[0]
        # One full game consistent with what this seat knows (never the real hidden cards).
        sample = determinize(view, self.rng)
        rounds_left = max(1, EXPECTED_ROUNDS - view.round)
        quiet = next((a for a in (END_TURN, PASS) if a in legal_actions), None)
        # Ending the turn or passing is the default: another action must look better than
        # the position as it is.  (Ending the turn is never tried itself: its payment and the
        # others' moves would blur the comparison.)  Auctions take many moves to pay off, so
        # a one-ply look cannot judge them: openings are left out.
        best = quiet if quiet is not None else legal_actions[0]
        best_value = evaluate(sample.view(view.seat), rounds_left) if quiet is not None \
            else float("-inf")
        for action in legal_actions:
            if action == quiet or OPEN_ARTIFACT <= action < BID:
                continue
            game = sample.clone()
            game.apply(action)
            value = evaluate(game.view(view.seat), rounds_left)
            if value > best_value:
                best, best_value = action, value
        return best


__all__ = ["OnePlyAgent", "evaluate"]
