"""The league: who plays each seat of an episode, decided by the policy mapping function.

Modules (all built when the algorithm is built, so the set never changes during a run and a
resume restores the same one):

* ``main`` -- the learning policy, the only one trained;
* ``snap_0`` ... ``snap_{pool_size-1}`` -- slots for frozen snapshots of ``main``: taking a
  snapshot copies ``main``'s weights into the next slot (the oldest is overwritten once all
  are full), and only filled slots are ever drawn;
* ``scripted_0`` ... -- one per agent spec of ``opponent_weights`` (``random``, ``heuristic``,
  ``mcts:iterations=16``...), played inside the environment (see :mod:`.env`).

:class:`LeagueMapping` is RLlib's ``policy_mapping_fn``: for each episode it puts ``main`` in
one seat (``learner_seat``, or a seat drawn per episode) and draws every other seat's opponent
by ``opponent_weights`` -- the key ``snapshot`` drawing a filled slot (the newest with chance
``latest_snapshot_share``, else uniformly among the older ones), as the SB3 pool does.  The
draw is seeded by the episode's id, so every seat's call for one episode agrees on the whole
lineup without shared state.  The mapping is plain data: the trainer sends a new one to every
env runner whenever a snapshot fills a slot.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from zavandor_env.envs.opponents import PoolSpec
from zavandor_env.train.config import SNAPSHOT, TrainConfig

MAIN = "main"


def scripted_id(k: int) -> str:
    return f"scripted_{k}"


@dataclass
class LeagueMapping:
    """``policy_mapping_fn(agent_id, episode)`` of one league state (see the module docstring).

    Attributes:
        num_players: seats per game.
        learner_seat: ``main``'s seat, or None to draw one per episode.
        weights: draw weight per opponent key (``snapshot`` or an agent spec).
        scripted: agent spec -> its module id.
        slots: filled snapshot slot ids, oldest first.
        latest_share: chance that a drawn snapshot is the newest one.
    """

    num_players: int
    learner_seat: int | None
    weights: dict[str, float]
    scripted: dict[str, str]
    slots: list[str] = field(default_factory=list)
    latest_share: float = 0.5

    def lineup(self, episode_id: str) -> list[str]:
        """The module id of every seat of the episode with this id: the other seats drawn
        as the SB3 pool draws them (:meth:`PoolSpec.draw`, a slot standing for its file)."""
        rng = random.Random(episode_id)  # a str seed is hashed stably (not Python's hash())
        n = self.num_players
        main = self.learner_seat if self.learner_seat is not None else rng.randrange(n)
        pool = PoolSpec(self.weights, [(slot, slot) for slot in self.slots], self.latest_share)
        # (slot, slot) or (agent spec, None) per other seat; only snapshots weighted and none
        # yet: "random" until the first
        drawn = pool.draw(rng, n - 1)
        others = iter([slot or self.scripted.get(key, MAIN) for key, slot in drawn])
        return [MAIN if seat == main else next(others) for seat in range(n)]

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        seat = int(str(agent_id).rpartition("_")[2])
        return self.lineup(str(episode.id_))[seat]


class League:
    """The snapshot slots of a run: which slot holds which snapshot, and the mapping of the
    current state.  Plain data, saved with every checkpoint."""

    def __init__(self, cfg: TrainConfig) -> None:
        self.cfg = cfg
        #: the agent specs played inside the environment, in delegate order (config order)
        self.specs = [spec for spec in cfg.opponent_weights if spec != SNAPSHOT]
        #: filled slots, oldest first: (slot id, snapshot label)
        self.filled: list[tuple[str, str]] = []

    @property
    def scripted(self) -> dict[str, str]:
        return {spec: scripted_id(k) for k, spec in enumerate(self.specs)}

    def slot_ids(self) -> list[str]:
        return [f"snap_{k}" for k in range(self.cfg.pool_size)]

    def next_slot(self) -> str:
        """The slot the next snapshot goes to: an empty one, else the oldest."""
        used = {slot for slot, _ in self.filled}
        free = [s for s in self.slot_ids() if s not in used]
        return free[0] if free else self.filled[0][0]

    def add(self, slot: str, label: str) -> None:
        self.filled = [f for f in self.filled if f[0] != slot] + [(slot, label)]

    def label(self, module_id: str) -> str:
        """The label of a module in charts and ratings (``learner``, ``snap@<step>``, or the
        agent spec's label)."""
        from zavandor_env.agents.registry import parse_spec

        if module_id == MAIN:
            return "learner"
        for slot, label in self.filled:
            if slot == module_id:
                return label
        for spec, mid in self.scripted.items():
            if mid == module_id:
                return parse_spec(spec).label
        return module_id

    def mapping(self) -> LeagueMapping:
        cfg = self.cfg
        return LeagueMapping(cfg.num_players, cfg.learner_seat, dict(cfg.opponent_weights),
                             self.scripted, [slot for slot, _ in self.filled],
                             cfg.latest_snapshot_share)

    def state_dict(self) -> dict[str, Any]:
        return {"filled": [list(f) for f in self.filled]}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        valid = set(self.slot_ids())
        self.filled = [(str(s), str(label)) for s, label in data.get("filled", [])
                       if s in valid]
