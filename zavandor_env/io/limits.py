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
#: Environments of one vector env or training run (2-4 in the shipped configs, 64 in the
#: benchmarks).
MAX_ENVS: Final = 4096
#: Threads of torch or of the native search (1 is fastest for our small networks).
MAX_THREADS: Final = 256
#: Units of one hidden layer, and hidden layers of one network (128 x 2 shipped).
MAX_LAYER_WIDTH: Final = 8192
MAX_LAYERS: Final = 32
#: Weights of one network (actor or critic): the shipped 128 x 128 actor has 116,000; this
#: many float32 weights take 134 MB, about 1 GB with the critic, gradients and Adam's moments.
MAX_NETWORK_WEIGHTS: Final = 1 << 25
#: Decisions of one PPO rollout, ``n_steps * n_envs`` (2,048 shipped): its buffer holds an
#: observation of 710 floats and a mask per decision, about 3 KB, so 3.3 GB at the ceiling.
MAX_ROLLOUT_DECISIONS: Final = 1 << 20
#: Teacher decisions a PPO run imitates first (``ppo.imitate_decisions``): each holds an
#: observation of 710 floats and a mask, about 3 KB, so 3.3 GB at the ceiling, as a rollout.
MAX_IMITATION_DECISIONS: Final = 1 << 20
#: Passes over one rollout or replay window (2-4 shipped).
MAX_EPOCHS: Final = 1_000
#: Frozen snapshots in a training run's opponent pool (4-10 shipped).
MAX_POOL_SNAPSHOTS: Final = 1_000
#: Games in an expert-iteration replay window, ``exit_games * exit_replay_generations``
#: (2,000 shipped: 500 x 4 at 2 players, 440,000 decisions, 1.4 GB; a 4-player game
#: labels about 600 decisions).  The replay file's own cap still applies.
MAX_REPLAY_GAMES: Final = 5_000
#: Agents in one tournament file (the standard ladder has 12).
MAX_AGENTS: Final = 64
#: Lineups one tournament may play; counted before any is built (a 2p round robin of 64
#: agents has 2,016).
MAX_LINEUPS: Final = 100_000
#: Games of one eval, tournament or ladder table (the published ladder plays 1,536).  The
#: schedule and the journal's index hold every game (about 100 bytes each), so this also
#: bounds their memory at about 100 MB; a million 2p games take about 14 hours on 2 cores.
MAX_GAMES: Final = 1_000_000
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
#: Characters of one number in a YAML file (a 64-bit seed has 19 digits).
MAX_NUMBER_CHARS: Final = 64
#: Values (scalars, lists, mappings, keys included) of one YAML file (the largest shipped
#: config has about 200).
MAX_YAML_NODES: Final = 10_000
