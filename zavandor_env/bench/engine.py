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
Both rows play the very same games.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from zavandor_env.bench.records import BenchRow, RecordedGame, check_seconds
from zavandor_env.engine import Game, GameConfig
from zavandor_env.engine.native import core_module

__all__ = ["BenchRow", "RecordedGame", "check_seconds"]  # re-exported: the rows' one definition


def _row(name: str, n: int, decisions: int, games: int, rounds: int, truncated: int,
         seconds: float, unit: str = "decisions/s") -> BenchRow:
    return BenchRow(name, n, decisions / seconds, unit, games, truncated / max(1, games),
                    rounds / max(1, games), decisions / max(1, games), seconds)


def bench_engine(num_players: int, seconds: float = 3.0, seed: int = 0) -> BenchRow:
    """Uniformly random legal play through :class:`Game` for about ``seconds``."""
    seconds = check_seconds(seconds)
    rng = random.Random(seed)
    config = GameConfig(num_players=num_players)
    decisions = games = rounds = truncated = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        game = Game.new(config, seed=seed + games)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[int(rng.random() * len(legal))])
            decisions += 1
        games += 1
        rounds += game.round
        truncated += game.truncated
        if time.perf_counter() >= deadline:
            break
    return _row("engine [Game API], uniformly random play", num_players, decisions,
                games, rounds, truncated, time.perf_counter() - start)


def bench_engine_native(num_players: int, seconds: float = 3.0, seed: int = 0) -> BenchRow:
    """Uniformly random play inside the C++ core (its own loop and generator) for about
    ``seconds``, in batches of games timed in C++."""
    seconds = check_seconds(seconds)
    native = core_module()
    config = GameConfig(num_players=num_players).to_dict()
    decisions = games = 0
    spent = 0.0
    batch = 16
    while spent < seconds:
        taken, elapsed = native.bench_random(config, seed + games, batch)
        decisions, games, spent = decisions + taken, games + batch, spent + elapsed
        batch = min(batch * 2, 4096)
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

    seconds = check_seconds(seconds)
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
    row = _row("heuristic self-play (agents included)", num_players,
               sum(len(g.actions) for g in games), len(games), sum(g.rounds for g in games),
               sum(g.truncated for g in games), spent)
    return row, games


def bench_replay(games: Sequence[RecordedGame], num_players: int,
                 seconds: float = 3.0) -> BenchRow:
    """The engine's side of recorded games (``legal_actions()`` + ``apply()`` for every
    decision), cycling through ``games`` for about ``seconds``."""
    seconds = check_seconds(seconds)
    if not games:
        raise ValueError("bench_replay needs at least one recorded game")
    config = GameConfig(num_players=num_players)
    decisions = played = rounds = truncated = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        record = games[played % len(games)]
        game = Game.new(config, seed=record.seed)
        for action in record.actions:
            game.legal_actions()  # an agent needs them for every decision
            game.apply(action)
        decisions += len(record.actions)
        played += 1
        rounds += game.round
        truncated += game.truncated
        if time.perf_counter() >= deadline:
            break
    return _row("engine [Game API], replayed heuristic games", num_players, decisions,
                played, rounds, truncated, time.perf_counter() - start)


def bench_replay_native(games: Sequence[RecordedGame], num_players: int,
                        seconds: float = 3.0) -> BenchRow:
    """The recorded games replayed inside the C++ core (legal actions computed and each
    decision checked against them, as :meth:`Game.apply` does), for about ``seconds``."""
    seconds = check_seconds(seconds)
    if not games:
        raise ValueError("bench_replay_native needs at least one recorded game")
    native = core_module()
    config = GameConfig(num_players=num_players).to_dict()
    seeds = [g.seed for g in games]
    actions = [list(g.actions) for g in games]
    decisions = played = 0
    spent = 0.0
    repeats = 1
    while spent < seconds:
        taken, elapsed = native.bench_replay(config, seeds, actions, repeats)
        decisions, played, spent = decisions + taken, played + repeats * len(games), spent + elapsed
        repeats = min(repeats * 2, 1024)
    rounds = sum(g.rounds for g in games) / len(games)
    truncated = sum(g.truncated for g in games) / len(games)
    return BenchRow("engine [C++ loop], replayed heuristic games", num_players,
                    decisions / spent, "decisions/s", played, truncated, rounds,
                    decisions / played, spent)


def _mid_game(num_players: int, seed: int, record: RecordedGame | None) -> Game:
    """Halfway through ``record`` when given (a game that ends by the rules), else where
    random play reaches round 5 or ends."""
    config = GameConfig(num_players=num_players)
    if record is not None:
        game = Game.new(config, seed=record.seed)
        for action in record.actions[: len(record.actions) // 2]:
            game.apply(action)
    else:
        rng = random.Random(seed)
        game = Game.new(config, seed=seed)
        while not game.is_over and game.round < 5:
            legal = game.legal_actions()
            game.apply(legal[int(rng.random() * len(legal))])
    return game


def bench_clone(num_players: int, seconds: float = 1.0, seed: int = 0,
                record: RecordedGame | None = None) -> BenchRow:
    """Clones per second of a mid-game state (see :func:`_mid_game`) through
    :meth:`Game.clone`."""
    seconds = check_seconds(seconds)
    game = _mid_game(num_players, seed, record)
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            game.clone()
        count += 100
    elapsed = time.perf_counter() - start
    return BenchRow("engine [Game API], clone a mid-game state", num_players,
                    count / elapsed, "clones/s", seconds=elapsed)


def bench_clone_native(num_players: int, seconds: float = 1.0, seed: int = 0,
                       record: RecordedGame | None = None) -> BenchRow:
    """Clones per second of the same mid-game state inside the C++ core."""
    seconds = check_seconds(seconds)
    core = _mid_game(num_players, seed, record).native_core
    native = core_module()
    count, spent, batch = 0, 0.0, 1000
    while spent < seconds:
        spent += native.bench_clones(core, batch)
        count += batch
        batch = min(batch * 2, 1_000_000)
    return BenchRow("engine [C++ loop], clone a mid-game state", num_players,
                    count / spent, "clones/s", seconds=spent)


def engine_section(num_players: int, seconds: float,
                   seed: int) -> tuple[list[BenchRow], list[RecordedGame]]:
    """The engine rows of one player count: random play, heuristic self-play (recorded),
    the recorded games replayed, clones; each through the Game API and in a C++ loop."""
    selfplay, recorded = record_heuristic_games(num_players, seconds, seed)
    clone_seconds = min(1.0, seconds)
    rows = [bench_engine(num_players, seconds, seed),
            bench_engine_native(num_players, seconds, seed), selfplay,
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

    seconds = check_seconds(seconds)
    positions = searched_positions(num_players, seed)
    # The IS-MCTS tree search with a one-round horizon around the heuristic, as the published
    # rows were measured (the agent's default is now the flat search around the planner, whose
    # iterations are whole-game playouts).
    agent = MCTSAgent(seed=seed, iterations=iterations, algorithm="tree",
                      horizon_rounds=1, policy="heuristic")
    done = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        position = positions[decisions % len(positions)]
        agent.reset(position.current_player, num_players)
        agent.last_iterations = 0  # a decision the agent does not search adds none
        agent.act(None, position.view(position.current_player), position.legal_actions())
        done += agent.last_iterations
        decisions += 1
    elapsed = time.perf_counter() - start
    return BenchRow(f"mcts, {iterations} iterations per decision", num_players,
                    done / elapsed, "iterations/s", seconds=elapsed)


def bench_netsearch(num_players: int, seconds: float = 3.0, seed: int = 0,
                    iterations: int = 64) -> BenchRow:
    """Iterations per second of the network-guided search (``mcts:policy=network``: the
    shipped policy of the player count, ``iterations`` per decision, the search's defaults)
    on the searched decisions of a heuristic game, cycling through its positions for about
    ``seconds``."""
    from zavandor_env.agents.netsearch import DEFAULT_NET, NetworkSearch, cached_policy
    from zavandor_env.resources import data_path

    seconds = check_seconds(seconds)
    positions = searched_positions(num_players, seed)
    policy = cached_policy(str(data_path(DEFAULT_NET.format(n=num_players))))
    search = NetworkSearch(policy, iterations=iterations)
    done = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        position = positions[decisions % len(positions)]
        done += search.run(position, position.current_player, decisions).iterations
        decisions += 1
    elapsed = time.perf_counter() - start
    return BenchRow(f"mcts:policy=network, {iterations} iterations per decision",
                    num_players, done / elapsed, "iterations/s", seconds=elapsed)


def search_and_vector_rows(num_players: int, seconds: float = 3.0,
                           seed: int = 0) -> list[BenchRow]:
    """Rows of what runs in C++ beyond the engine: the batched vector env (N=64, random and
    heuristic opponents), MCTS iterations per second, and the network-guided search's."""
    from zavandor_env.bench.vector import bench_vector_row

    # Under the rulebook's Curse a random learner is out within a round (games of ~5 learner
    # steps: new deals dominate); with the affordability filter games run their full length.
    rows = [bench_vector_row(num_players, 64, seconds, opponents, **options)
            for options in ({}, {"allow_overbid": False})
            for opponents in ("random", "heuristic")]
    rows.append(bench_mcts(num_players, seconds, seed))
    if hasattr(core_module(), "netmcts_search"):
        rows.append(bench_netsearch(num_players, seconds, seed))
    return rows
