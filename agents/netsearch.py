"""Network-guided search: the public API the agent and the expert-iteration trainer call.

STUB (step 1 of issue 19): the API is final, the search is not.  :meth:`NetworkSearch.run`
here spreads ``iterations`` visits over the legal actions in proportion to the policy's
masked softmax and plays the most visited; the native determinized PUCT search replaces it
without changing a signature.

    from zavandor_env.agents.netsearch import NetworkSearch, SearchResult
    search = NetworkSearch(policy, iterations=200, c_puct=1.5, root_noise=0.3)
    result = search.run(game, seat, seed)     # game: a native-backend Game
    result.action, result.visits, result.value, result.iterations
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zavandor_env.engine import Game
from zavandor_env.engine.actions import NUM_ACTIONS
from zavandor_env.envs.observation import ObservationEncoder

from .policy_file import NumpyPolicy


@dataclass(frozen=True)
class SearchResult:
    """One search's outcome for the deciding seat.

    Attributes:
        action: the move (the most visited root action, or sampled by visit counts with a
            ``temperature`` > 0).
        visits: int32 ``[NUM_ACTIONS]``, the root visit counts (0 for unsearched actions).
        value: the root's mean value for the seat, a win estimate in [0, 1].
        iterations: iterations completed.
    """

    action: int
    visits: np.ndarray
    value: float
    iterations: int


class NetworkSearch:
    """A determinized PUCT search around a policy network (see the module docstring).

    Args:
        policy: the network: prior, leaf value (its critic) and opponent model.
        iterations: iterations per search (used when ``seconds`` is None).
        seconds: wall-clock budget per search (overrides ``iterations``).
        c_puct: PUCT exploration constant.
        root_noise: Dirichlet alpha of the root noise (0: none; self-play training uses it).
        noise_fraction: weight of the noise in the root prior.
        temperature: the move is sampled from visits ** (1 / temperature) (0: most visited).
        opponent_temperature: softmax temperature of the network playing the other seats
            (0: greedy).
    """

    def __init__(self, policy: NumpyPolicy, *, iterations: int = 64, seconds: float | None = None,
                 c_puct: float = 1.5, root_noise: float = 0.0, noise_fraction: float = 0.25,
                 temperature: float = 0.0, opponent_temperature: float = 1.0) -> None:
        self.policy = policy
        self.iterations = iterations
        self.seconds = seconds
        self.c_puct = c_puct
        self.root_noise = root_noise
        self.noise_fraction = noise_fraction
        self.temperature = temperature
        self.opponent_temperature = opponent_temperature
        self._encoder = ObservationEncoder()

    def run(self, game: Game, seat: int, seed: int) -> SearchResult:
        """Search the decision of ``seat`` (the deciding player) in ``game``."""
        if seat != game.current_player:
            raise ValueError(f"seat {seat} is not the deciding player {game.current_player}")
        legal = list(game.legal_actions())
        if not legal:
            raise ValueError("no decision is pending")
        obs = self._encoder.encode_game(game, seat)
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[legal] = True
        probs = self.policy.probabilities(obs, mask)
        rng = np.random.default_rng(seed)
        if self.root_noise > 0:
            noise = rng.dirichlet([self.root_noise] * len(legal))
            probs[legal] = (1 - self.noise_fraction) * probs[legal] + self.noise_fraction * noise
        n = self.iterations
        visits = np.floor(probs * n).astype(np.int32)
        visits[int(np.argmax(probs))] += n - int(visits.sum())
        if self.temperature > 0:
            weights = visits.astype(np.float64) ** (1.0 / self.temperature)
            action = int(rng.choice(NUM_ACTIONS, p=weights / weights.sum()))
        else:
            action = int(np.argmax(visits))
        value = self.policy.value(obs)
        win = 0.5 if value is None else float(np.clip((value + 1.0) / 2.0, 0.0, 1.0))
        return SearchResult(action=action, visits=visits, value=win, iterations=n)


__all__ = ["NetworkSearch", "SearchResult"]
