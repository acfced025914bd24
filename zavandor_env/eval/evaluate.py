"""``zavandor_env.evaluate()``: ``zavandor eval`` from Python, for agents of your own.

The same tournament (lineups, seat rotations, shared deals: :mod:`zavandor_env.eval.tournament`)
on the same driver and workers, returning the dict ``zavandor eval`` writes as
``summary.json``: per agent its ``label``, ``win_rate`` and Wilson ``win_rate_ci95``, mean
rank and VP, and an OpenSkill rating when the ``eval`` extra is installed.

An agent may be a spec (``"heuristic"``, ``"policy:path=...npz"``, a mapping, an
:class:`AgentSpec`; ``python:module:Class`` too, since naming it here is the caller's own
choice), an :class:`Agent` object, a function ``(observation, action_mask) -> action`` or a
torch module (:mod:`zavandor_env.agents.adapters`).  Objects are copied for each seat they
fill, so a stateful agent never plays two seats with one state.  The games run in worker
processes (all cores by default), which inherit the objects by ``fork`` on Linux and macOS;
with ``workers=1`` they play in this process.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from zavandor_env.agents.base import Agent
from zavandor_env.agents.registry import AgentSpec, AgentSpecError, parse_spec
from zavandor_env.eval.tournament import TournamentConfig, check_agents
from zavandor_env.eval.tournament_report import TournamentReport
from zavandor_env.eval.tournament_run import run_tournament

__all__ = ["ObjectSpec", "evaluate"]


@dataclasses.dataclass(frozen=True)
class ObjectSpec(AgentSpec):
    """An agent held in memory as a tournament entrant: ``make()`` gives a fresh copy for
    each seat; ``agent`` says what it is in the report (``object:ClassName``)."""

    make: Callable[[], Agent] | None = dataclasses.field(default=None, compare=False,
                                                          repr=False)

    def __post_init__(self) -> None:
        if self.make is None or not self.label:
            raise AgentSpecError("an ObjectSpec needs make and a label")

    @property
    def interactive(self) -> bool:
        return False

    def build(self, seed: int | None = None) -> Agent:
        assert self.make is not None
        agent = self.make()
        agent.name = self.label
        return agent


def _as_agent(entry: Any) -> Agent:
    """An :class:`Agent` of an object entry: itself, or a function / torch module adapted."""
    from zavandor_env.agents.adapters import CallableAgent, TorchModuleAgent

    if isinstance(entry, Agent):
        return entry
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(entry, torch.nn.Module):
        return TorchModuleAgent(entry)
    if callable(entry):
        return CallableAgent(entry)
    raise TypeError(f"an agent must be a spec, an Agent, a function (observation, mask) -> "
                    f"action or a torch module, got {type(entry).__name__}")


def _copier(agent: Agent) -> Callable[[], Agent]:
    """A fresh copy of ``agent`` per call, refused now (not in a worker) if it cannot be."""
    try:
        copy.deepcopy(agent)
    except Exception as exc:  # a lock, an open file, a C object without copy support
        raise TypeError(f"agent {agent.name!r} cannot be copied for each seat it plays "
                        f"({type(exc).__name__}: {exc}); give a spec or a copyable "
                        "object") from None
    return lambda: copy.deepcopy(agent)


def _entrants(agents: Sequence[Any]) -> list[AgentSpec]:
    """Each entry as an :class:`AgentSpec`; objects get their name as label, made unique
    against every other entrant's (``random`` beside a ``RandomAgent()``: ``random-2``)."""
    specs: list[AgentSpec | Agent] = []
    for entry in agents:
        if isinstance(entry, AgentSpec):
            specs.append(entry)
        elif isinstance(entry, (str, Mapping)):
            specs.append(parse_spec(entry, allow_import=True))  # this call is the caller's own
        else:
            specs.append(_as_agent(entry))
    taken = {s.label for s in specs if isinstance(s, AgentSpec)}
    out: list[AgentSpec] = []
    for item in specs:
        if isinstance(item, Agent):
            base = item.name if item.name not in ("agent", "") else type(item).__name__
            label, k = base, 2
            while label in taken:
                label, k = f"{base}-{k}", k + 1
            taken.add(label)
            item = ObjectSpec(f"object:{type(item).__name__}", {}, label, make=_copier(item))
        out.append(item)
    return out


def evaluate(agents: Sequence[Any], *, players: int = 2, games: int = 200, seed: int = 0,
             workers: int | None = None, game_options: Mapping[str, Any] | None = None,
             progress: bool = False) -> dict[str, Any]:
    """Play a seat-rotated tournament and return its summary, as ``zavandor eval`` writes it.

    Args:
        agents: the entrants (see the module docstring).  With fewer entrants than seats the
            first plays against the others cycled over the remaining seats (``[mine,
            "heuristic"]`` at 4 players: yours against three heuristics).
        players: players per game, 2-6.
        games: games per lineup, rounded up to a multiple of ``players`` (every entrant sits
            in every seat equally often); deal ``d`` uses game seed ``seed + d``.
        seed: the first deal's seed.
        workers: processes (None: every core; 1: this process).
        game_options: :class:`~zavandor_env.engine.GameConfig` fields (the rulebook's rules by
            default; ``{"allow_overbid": False}`` is the affordability filter training uses).
        progress: draw a progress bar.

    Returns:
        ``summary.json``'s dict: ``agents`` (best first, each with ``label``, ``seats_played``,
        ``wins``, ``win_rate``, ``win_rate_ci95``, ``mean_rank``, ``mean_vp``, ``rating_*``
        and ``win_rate_by_seat``), ``head_to_head``, ``games`` and the settings.

    Raises:
        ValueError: a bad spec, setting or game option (one line naming it).
        TypeError: an entry that is no agent, or an object that cannot be copied.
        RuntimeError: a game failed, e.g. an agent chose an illegal action (one line naming
            the game, its seed and the action).
    """
    config = TournamentConfig(_entrants(agents), num_players=players, games=games, seed=seed,
                              workers=workers, game_options=dict(game_options or {}))
    check_agents(config)
    records = run_tournament(config, progress=progress)
    return TournamentReport.build(config, records).to_dict()
