"""Speed of the AEC environment, side by side with PettingZoo peers measured in the same run.

Counting rule (the same for every row, so the figures are comparable): a step is one decision
by a player; the ``None`` steps PettingZoo needs for finished agents are timed but not counted.
Every decision runs the loop a real agent runs: ``last()`` (so the observation and mask are
built), an action, ``step()``.  The action is either uniformly random from the mask, or the
next decision of a recorded game that ends by the rules (heuristic self-play, see
:mod:`zavandor_env.bench.engine`).  Runs whole games for about ``seconds`` after one untimed warm-up
game.  A game counts as truncated when any agent's ``truncation`` flag was set.
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from zavandor_env.bench.records import (
    BenchRow,
    RecordedGame,
    check_seconds,
    games_row,
    rate_row,
)
from zavandor_env.extras import missing

REFERENCE_PEER = "texas_holdem_v4"
PEERS = (REFERENCE_PEER, "connect_four_v3")

# Picks the action of one decision: (observation, info, decision index) -> action.
Chooser = Callable[[Any, dict[str, Any], int], int]


def _play(aec: Any, seed: int | None, choose: Chooser) -> tuple[int, bool]:
    """One whole game; returns (decisions, truncated)."""
    aec.reset(seed=seed)
    steps = 0
    cut = False
    for _agent in aec.agent_iter():
        obs, _reward, terminated, truncated, info = aec.last()
        if terminated or truncated:
            cut = cut or bool(truncated)
            aec.step(None)
            continue
        aec.step(choose(obs, info, steps))
        steps += 1
    return steps, cut


def _random_chooser(seed: int) -> Chooser:
    rng = np.random.default_rng(seed)

    def choose(obs: Any, info: dict[str, Any], _index: int) -> int:
        mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
        legal = np.flatnonzero(mask)
        return int(legal[rng.integers(len(legal))])

    return choose


def bench_aec(make_env: Callable[[], Any], name: str, seconds: float = 3.0,
              seed: int = 0, players: int | None = None) -> BenchRow:
    """Uniformly random play through any PettingZoo AEC env whose observation or info has a
    mask."""
    aec = make_env()
    choose = _random_chooser(seed)
    _play(aec, seed, choose)  # warm-up: imports, caches
    row = games_row(name, players or len(aec.possible_agents), seconds,
                    lambda _i: (*_play(aec, None, choose), 0), "steps/s", rounds=False)
    aec.close()
    return row


def bench_aec_replay(make_env: Callable[[], Any], name: str, games: Sequence[RecordedGame],
                     players: int, seconds: float = 3.0) -> BenchRow:
    """Recorded games (that end by the rules) replayed through a zavandor AEC env, cycling
    through ``games`` for about ``seconds``.  A first, untimed replay checks that the first
    game reaches its recorded end (same seed, same decisions), so the timing is of the real
    games."""
    aec = make_env()

    def replay(i: int) -> tuple[int, int, int]:
        record = games[i % len(games)]
        steps, truncated = _play(aec, record.seed, lambda _o, _i, k: record.actions[k])
        return steps, truncated, record.rounds

    if replay(0)[0] != len(games[0].actions):  # warm-up and check
        raise RuntimeError(f"{name}: recorded game (seed {games[0].seed}) did not replay")
    row = games_row(name, players, seconds, replay, "steps/s")
    aec.close()
    return row


def bench_frames(games: Sequence[RecordedGame], players: int,
                 seconds: float = 3.0) -> BenchRow:
    """``render_mode="rgb_array"`` frames per second of the AEC env along recorded games
    that end by the rules: one decision, then ``render()``, as Gymnasium's ``RecordVideo``
    asks for (the stepping is timed too: it is a small part)."""
    from zavandor_env.envs.aec import raw_env

    aec = raw_env(num_players=players, render_mode="rgb_array")

    def positions() -> Any:
        for i in itertools.count():
            record = games[i % len(games)]
            aec.reset(seed=record.seed)
            for action in record.actions:
                while aec.terminations[aec.agent_selection] or \
                        aec.truncations[aec.agent_selection]:
                    aec.step(None)
                aec.step(action)
                yield aec.render()

    frames = positions()
    next(frames)  # warm-up: imports, fonts
    row = rate_row("zavandor_v0 raw_env, rgb_array frames (positions of heuristic play)", players,
                   "frames/s", seconds, lambda _i: int(next(frames).size > 0))
    aec.close()
    return row


def bench_openspiel(game_name: str, seconds: float = 3.0, seed: int = 0) -> BenchRow:
    """Uniformly random play through OpenSpiel's Python bindings (``pyspiel``, ImportError if
    not installed), doing per decision what our env does: the deciding player's observation
    tensor, the legal actions, a random one applied; chance outcomes sampled (not counted)."""
    import pyspiel

    game = pyspiel.load_game(game_name)
    rng = np.random.default_rng(seed)

    def play(_i: int) -> tuple[int, int, int]:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
        return steps, 0, 0

    return games_row(f"openspiel {game_name} (pyspiel), random play", game.num_players(),
                     seconds, play, "steps/s", rounds=False)


OPENSPIEL_PEERS = ("leduc_poker", "connect_four")


def bench_env_section(
    players: Sequence[int],
    seconds: float = 3.0,
    seed: int = 0,
    recorded: Mapping[int, Sequence[RecordedGame]] | None = None,
    out: Callable[[str], None] = print,
    extras: Callable[[int], list[BenchRow]] | None = None,
) -> list[BenchRow]:
    """The ``zavandor bench`` section for environments: zavandor ``env()`` and ``raw_env`` at
    each player count with random play and (given ``recorded`` games per player count) with
    games that end by the rules, the
    rows ``extras(players)`` adds (the CLI: the batched vector env and MCTS, which live in the
    agents layer), then the PettingZoo and OpenSpiel peers; prints the rows with their ratio
    to texas_holdem_v4 through ``out`` and returns them."""
    from zavandor_env.envs.aec import env, raw_env

    seconds = check_seconds(seconds)
    rows: list[BenchRow] = []
    for n in players:
        for factory, label in ((env, "env()"), (raw_env, "raw_env")):
            make = partial(factory, num_players=n)
            name = f"zavandor_v0 {label}"
            rows.append(bench_aec(make, f"{name}, random play", seconds, seed, n))
            if recorded and recorded.get(n):
                rows.append(bench_aec_replay(make, f"{name}, heuristic games", recorded[n], n,
                                             seconds))
        if recorded and recorded.get(n) and not missing("render"):
            rows.append(bench_frames(recorded[n], n, seconds))
        if extras is not None:
            rows += extras(n)
    reference = None
    for peer in PEERS:
        try:
            module = importlib.import_module(f"pettingzoo.classic.{peer}")
        except ImportError as exc:
            out(f"  (skipped PettingZoo {peer}: {exc}; pip install -e '.[bench]')")
            continue
        rows.append(bench_aec(module.env, f"pettingzoo {peer}, random play", seconds, seed))
        reference = rows[-1] if peer == REFERENCE_PEER else reference
    for game_name in OPENSPIEL_PEERS:
        try:
            rows.append(bench_openspiel(game_name, seconds, seed))
        except ImportError as exc:
            out(f"  (skipped OpenSpiel {game_name}: {exc}; pip install -e '.[bench]')")
            break
    out("AEC environments (last() + mask + step every decision, one core, same run):")
    for row in rows:
        line = "  " + row.text()
        if reference is not None:
            line += f"  {row.per_second / reference.per_second:>5.2f}x {REFERENCE_PEER}"
        out(line)
    return rows

