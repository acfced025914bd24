"""Ceilings for every count from outside that sizes work or memory.

A number in a config, a tournament file, an agent spec or a run folder is refused in one line
when it passes its ceiling here, before any process, array or search is sized by it.  Each
ceiling sits far above what a real run uses (the figure beside it) and far below what would
exhaust a machine; ``docs/security.md`` lists them with the checks that apply them.
"""

from __future__ import annotations

from typing import Final

#: Worker processes of an eval, ladder, tournament or expert-iteration run (2 on CI; the
#: largest machines we target have 192 cores).
MAX_WORKERS: Final = 256
#: Environments of one vector env or training run (64 in the shipped configs).
MAX_ENVS: Final = 4096
#: Threads of torch or of the native search (1 is fastest for our small networks).
MAX_THREADS: Final = 256
#: Units of one hidden layer, and hidden layers of one network (128 x 2 shipped).
MAX_LAYER_WIDTH: Final = 8192
MAX_LAYERS: Final = 32
#: Agents in one tournament file (the standard ladder has 12).
MAX_AGENTS: Final = 64
#: Lineups one tournament may play; counted before any is built (a 2p round robin of 64
#: agents has 2,016).
MAX_LINEUPS: Final = 100_000
#: Games of one eval, tournament or ladder table (the published ladder plays 1,536).
MAX_GAMES: Final = 10_000_000
#: Lines of one journal (games.jsonl), and its size on disk.
MAX_JOURNAL_LINES: Final = MAX_GAMES
MAX_JOURNAL_BYTES: Final = 1 << 30
#: One journal line (a game's record is about 1 KiB).
MAX_JOURNAL_LINE_BYTES: Final = 1 << 20
#: Search budgets: iterations or simulations of one decision, and seconds of one decision.
MAX_SEARCH_ITERATIONS: Final = 1_000_000
MAX_SEARCH_SECONDS: Final = 3_600.0
#: Random rollouts of one search leaf.
MAX_ROLLOUTS: Final = 10_000
#: Seconds one game may be said to have taken in a journal (a 6p MCTS game takes minutes).
MAX_GAME_SECONDS: Final = 7 * 24 * 3_600.0
#: Seeds: what NumPy's generators take, and what fits the journals' and the core's integers.
MAX_SEED: Final = 2**63 - 1
