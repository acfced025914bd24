"""Speed benchmarks of the engine: uniformly random play, and games that end by the rules.

Uniformly random players do not play the game as people do (their games end early in a curse
or run to the ``max_rounds`` safety limit), so ``zavandor bench`` also times **games that end
by the rules**: heuristic self-play, recorded once (:func:`record_heuristic_games`, a row of
its own with the agents' thinking time included), then replayed decision by decision
(:func:`bench_replay`: ``legal_actions()`` as an agent would need it, then ``apply()``).  Every
row reports the share of its games that a safety limit cut off.

A "decision" is one action chosen by a player (forced decisions the engine takes by itself
are not counted, as in the peer benchmarks).  Everything runs in this one process, on one core.

Each engine row is timed on the C++ core twice: driven decision by decision through the
:class:`Game` API (``[Game API]``: what an agent loop in Python gets) and by a loop inside C++
(``[C++ loop]``: the engine itself, as OpenSpiel's and Pgx's native figures are measured).
Both rows play the very same games.  The recorded games are also replayed on the oracle
(``[oracle]``: the Python rules, :class:`~zavandor_env.engine.oracle.OracleGame`), the row
the core's speed-up over the rules it is checked against is read from.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from zavandor_env.bench.records import (
    BenchRow,
    RecordedGame,
    check_seconds,
    games_row,
    rate_row,
    time_calls,
)
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.native import core_module
from zavandor_env.engine.oracle import OracleGame

__all__ = ["BenchRow", "RecordedGame", "check_seconds"]  # re-exported: the rows' one definition


def _play_random(game: Game, rng: random.Random, until_round: int | None = None) -> int:
    """Uniformly random legal play until the game ends (or reaches ``until_round``); returns
    the decisions taken."""
    decisions = 0
    while not game.is_over and (until_round is None or game.round < until_round):
        legal = game.legal_actions()
        game.apply(legal[int(rng.random() * len(legal))])
        decisions += 1
    return decisions


def bench_engine(num_players: int, seconds: float = 3.0, seed: int = 0) -> BenchRow:
    """Uniformly random legal play through :class:`Game` for about ``seconds``."""
    rng = random.Random(seed)
    config = GameConfig(num_players=num_players)

    def play(i: int) -> tuple[int, int, int]:
        game = Game.new(config, seed=seed + i)
        return _play_random(game, rng), game.truncated, game.round

    return games_row("engine [Game API], uniformly random play", num_players, seconds, play)


def _native_batches(seconds: float, run: Callable[[int, int], tuple[int, float]], batch: int,
                    cap: int) -> tuple[int, int, float]:
    """Call ``run(units so far, batch)`` (C++ work of ``batch`` units, returning its count and
    seconds), doubling ``batch`` up to ``cap``, until ``seconds`` of C++ time: the counts, the
    units and the seconds."""
    done = units = 0
    spent = 0.0
    while spent < seconds:
        taken, elapsed = run(units, batch)
        done, units, spent = done + taken, units + batch, spent + elapsed
        batch = min(batch * 2, cap)
    return done, units, spent


def bench_engine_native(num_players: int, seconds: float = 3.0, seed: int = 0) -> BenchRow:
    """Uniformly random play inside the C++ core (its own loop and generator) for about
    ``seconds``, in batches of games timed in C++."""
    config = GameConfig(num_players=num_players).to_dict()
    decisions, games, spent = _native_batches(
        seconds, lambda done, batch: core_module().bench_random(config, seed + done, batch),
        16, 4096)
    return BenchRow("engine [C++ loop], uniformly random play", num_players,
                    decisions / spent, "decisions/s", games, None, None, decisions / games,
                    spent)


def record_heuristic_games(
    num_players: int, seconds: float = 3.0, seed: int = 0, min_games: int = 2,
) -> tuple[BenchRow, list[RecordedGame]]:
    """Heuristic self-play for about ``seconds`` (at least ``min_games`` games): the row of
    whole-game speed with the agents' thinking included, and the games to replay."""
    from zavandor_env.agents.heuristic import HeuristicAgent  # the bench is a top-level tool
    from zavandor_env.eval.match import play_game

    config = GameConfig(num_players=num_players)
    agents = [HeuristicAgent(seed=seat) for seat in range(num_players)]
    games: list[RecordedGame] = []
    spent = 0.0
    while spent < seconds or len(games) < min_games:
        result = play_game(agents, seed=seed + len(games), config=config, record_replay=True)
        assert result.replay is not None
        spent += result.seconds
        games.append(RecordedGame(result.seed, tuple(result.replay["actions"]), result.rounds,
                                  result.truncated))
    decisions = sum(len(g.actions) for g in games)
    row = BenchRow("heuristic self-play (agents included)", num_players, decisions / spent,
                   "decisions/s", len(games), sum(g.truncated for g in games) / len(games),
                   sum(g.rounds for g in games) / len(games), decisions / len(games), spent)
    return row, games


def bench_replay(games: Sequence[RecordedGame], num_players: int,
                 seconds: float = 3.0, rules: type[Game] = Game) -> BenchRow:
    """The engine's side of recorded games (``legal_actions()`` + ``apply()`` for every
    decision), cycling through ``games`` for about ``seconds``; ``rules=OracleGame`` times the
    Python rules, the oracle, on the same games (the row the core's speed-up is read from)."""
    config = GameConfig(num_players=num_players)
    where = "oracle" if rules is OracleGame else "Game API"

    def play(i: int) -> tuple[int, int, int]:
        record = games[i % len(games)]
        game = rules.new(config, seed=record.seed)
        for action in record.actions:
            game.legal_actions()  # an agent needs them for every decision
            game.apply(action)
        return len(record.actions), game.truncated, game.round

    return games_row(f"engine [{where}], replayed heuristic games", num_players, seconds, play)


def bench_replay_native(games: Sequence[RecordedGame], num_players: int,
                        seconds: float = 3.0) -> BenchRow:
    """The recorded games replayed inside the C++ core (legal actions computed and each
    decision checked against them, as :meth:`Game.apply` does), for about ``seconds``."""
    config = GameConfig(num_players=num_players).to_dict()
    seeds = [g.seed for g in games]
    actions = [list(g.actions) for g in games]
    decisions, repeats, spent = _native_batches(
        seconds, lambda _done, batch: core_module().bench_replay(config, seeds, actions, batch),
        1, 1024)
    played = repeats * len(games)
    return BenchRow("engine [C++ loop], replayed heuristic games", num_players,
                    decisions / spent, "decisions/s", played,
                    sum(g.truncated for g in games) / len(games),
                    sum(g.rounds for g in games) / len(games), decisions / played, spent)


def _mid_game(num_players: int, seed: int, record: RecordedGame | None) -> Game:
    """Halfway through ``record`` when given (a game that ends by the rules), else where
    random play reaches round 5 or ends."""
    config = GameConfig(num_players=num_players)
    if record is None:
        game = Game.new(config, seed=seed)
        _play_random(game, random.Random(seed), until_round=5)
        return game
    game = Game.new(config, seed=record.seed)
    for action in record.actions[: len(record.actions) // 2]:
        game.apply(action)
    return game


def bench_clone(num_players: int, seconds: float = 1.0, seed: int = 0,
                record: RecordedGame | None = None) -> BenchRow:
    """Clones per second of a mid-game state (see :func:`_mid_game`) through
    :meth:`Game.clone`."""
    game = _mid_game(num_players, seed, record)

    def clones(_i: int) -> int:
        for _ in range(100):
            game.clone()
        return 100

    return rate_row("engine [Game API], clone a mid-game state", num_players, "clones/s",
                    seconds, clones)


def bench_clone_native(num_players: int, seconds: float = 1.0, seed: int = 0,
                       record: RecordedGame | None = None) -> BenchRow:
    """Clones per second of the same mid-game state inside the C++ core."""
    core = _mid_game(num_players, seed, record).native_core
    count, _, spent = _native_batches(
        seconds, lambda _done, batch: (batch, core_module().bench_clones(core, batch)),
        1000, 1_000_000)
    return BenchRow("engine [C++ loop], clone a mid-game state", num_players,
                    count / spent, "clones/s", seconds=spent)


def engine_section(num_players: int, seconds: float,
                   seed: int) -> tuple[list[BenchRow], list[RecordedGame]]:
    """The engine rows of one player count: random play, heuristic self-play (recorded),
    the recorded games replayed (on the oracle too), clones; each through the Game API and
    in a C++ loop."""
    seconds = check_seconds(seconds)
    selfplay, recorded = record_heuristic_games(num_players, seconds, seed)
    clone_seconds = min(1.0, seconds)
    rows = [bench_engine(num_players, seconds, seed),
            bench_engine_native(num_players, seconds, seed), selfplay,
            bench_replay(recorded, num_players, seconds, rules=OracleGame),
            bench_replay(recorded, num_players, seconds),
            bench_replay_native(recorded, num_players, seconds),
            bench_clone(num_players, clone_seconds, record=recorded[0]),
            bench_clone_native(num_players, clone_seconds, record=recorded[0])]
    return rows, recorded


def searched_positions(num_players: int, seed: int, limit: int = 200) -> list[Game]:
    """Copies of the first ``limit`` positions of a seeded heuristic game where a search
    agent would search (a turn or bid decision with a choice): what the search rows time."""
    from zavandor_env.agents.heuristic import HeuristicAgent

    game = Game.new(GameConfig(num_players=num_players), seed=seed)
    players = [HeuristicAgent(seed=s) for s in range(num_players)]
    for s, player in enumerate(players):
        player.reset(s, num_players)
    positions: list[Game] = []
    while not game.is_over and len(positions) < limit:
        seat = game.current_player
        if game.phase in (0, 1) and len(game.legal_actions()) > 1:  # TURN, BID: searched
            positions.append(game.clone())
        game.apply(players[seat].act(None, game.view(seat), game.legal_actions()))
    return positions


def bench_mcts(num_players: int, seconds: float = 3.0, seed: int = 0,
               iterations: int = 64) -> BenchRow:
    """MCTS iterations per second (``iterations`` per decision) on the searched decisions of
    a heuristic game, cycling through its positions for about ``seconds``."""
    from zavandor_env.agents.mcts import MCTSAgent

    positions = searched_positions(num_players, seed)
    # The IS-MCTS tree search with a one-round horizon around the heuristic, as the published
    # rows were measured (the agent's default is now the flat search around the planner, whose
    # iterations are whole-game playouts).
    agent = MCTSAgent(seed=seed, iterations=iterations, algorithm="tree",
                      horizon_rounds=1, policy="heuristic")

    def search(i: int) -> int:
        position = positions[i % len(positions)]
        agent.reset(position.current_player, num_players)
        agent.last_iterations = 0  # a decision the agent does not search adds none
        agent.act(None, position.view(position.current_player), position.legal_actions())
        return agent.last_iterations

    return rate_row(f"mcts, {iterations} iterations per decision", num_players, "iterations/s",
                    seconds, search)


def bench_netsearch(num_players: int, seconds: float = 3.0, seed: int = 0,
                    iterations: int = 64) -> BenchRow:
    """Iterations per second of the network-guided search (``mcts:policy=network``: the
    shipped policy of the player count, ``iterations`` per decision, the search's defaults)
    on the searched decisions of a heuristic game, cycling through its positions for about
    ``seconds``."""
    from zavandor_env.agents.netsearch import DEFAULT_NET, NetworkSearch, cached_policy
    from zavandor_env.resources import data_path

    positions = searched_positions(num_players, seed)
    policy = cached_policy(str(data_path(DEFAULT_NET.format(n=num_players))))
    net = NetworkSearch(policy, iterations=iterations)

    def search(i: int) -> int:
        position = positions[i % len(positions)]
        return int(net.run(position, position.current_player, i).iterations)

    return rate_row(f"mcts:policy=network, {iterations} iterations per decision", num_players,
                    "iterations/s", seconds, search)


def bench_vector_row(num_players: int, num_envs: int = 64, seconds: float = 3.0,
                     opponents: Any = "random", seed: int = 0, **options: Any) -> BenchRow:
    """Learner steps per second of :class:`~zavandor_env.envs.vector.ZavandorVectorEnv` with
    ``num_envs`` games (``opponents`` played natively, ``options`` as the env's) and uniformly
    random legal learner actions, for about ``seconds`` in this process, with games, truncated
    share and rounds; rule ``options`` that differ from the rulebook's are named in the row."""
    import numpy as np

    from zavandor_env.envs.vector import ZavandorVectorEnv

    env = ZavandorVectorEnv(num_envs, num_players, opponents=opponents, seed=seed, copy=False,
                            **options)
    rng = np.random.default_rng(seed)
    env.reset()

    def steps(_i: int) -> tuple[int, int, int]:
        """16 steps of every game: the games they finished, truncated ones, their rounds."""
        games = truncated = rounds = 0
        for _ in range(16):
            mask = env.action_masks()
            scores = rng.random(mask.shape)  # their argmax: a uniformly random legal action
            scores[~mask] = -1.0
            _obs, _rew, _term, trunc, infos = env.step(scores.argmax(axis=1))
            if "final_info" in infos:
                finished = infos["_final_info"]
                games += int(finished.sum())
                truncated += int(trunc.sum())
                rounds += int(np.asarray(infos["final_info"]["rounds"])[finished].sum())
        return games, truncated, rounds

    games, truncated, rounds, calls, elapsed = time_calls(seconds, steps)
    env.close()
    taken = calls * 16 * num_envs
    return BenchRow(
        name=f"vector env N={num_envs} vs {opponents} (native)"
             + "".join(f", {k}={v}" for k, v in sorted(options.items())),
        players=num_players, per_second=taken / elapsed, unit="steps/s", games=games,
        truncated_share=truncated / games if games else None,
        rounds_per_game=rounds / games if games else None,
        per_game=taken / games if games else None, seconds=elapsed,
    )


def search_and_vector_rows(num_players: int, seconds: float = 3.0,
                           seed: int = 0) -> list[BenchRow]:
    """Rows of what runs in C++ beyond the engine: the batched vector env (N=64, random and
    heuristic opponents), MCTS iterations per second, and the network-guided search's."""
    seconds = check_seconds(seconds)
    # Under the rulebook's Curse a random learner is out within a round (games of ~5 learner
    # steps: new deals dominate); with the affordability filter games run their full length.
    rows = [bench_vector_row(num_players, 64, seconds, opponents, **options)
            for options in ({}, {"allow_overbid": False})
            for opponents in ("random", "heuristic")]
    rows.append(bench_mcts(num_players, seconds, seed))
    if hasattr(core_module(), "netmcts_search"):
        rows.append(bench_netsearch(num_players, seconds, seed))
    return rows
