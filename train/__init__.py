"""Self-play training for zavandor-env: MaskablePPO against an opponent pool, with TensorBoard.

Entry points: ``zavandor train`` (:mod:`train.cli`) and :func:`train.selfplay.train`.
Modules: ``config`` (TrainConfig + YAML), ``selfplay`` (the run), ``checkpointing``
(kill-safe checkpoints, pickle-free resume), ``envs`` (training environments and their
statistics), ``opponents`` / ``pool`` (snapshots, agent specs and the per-episode draw),
``callbacks`` (charts, evaluation, checkpoints), ``evaluate`` (on the one game driver),
``rating``, ``export`` (an SB3 actor -> weights-only policy file) and ``publish`` (a run -> a
committed checkpoint folder).  Importing this package imports nothing heavy.
"""

if __name__ == "train":  # the repository's folder imported by its own name: an alias, no copy
    from zavandor_env._aliases import alias_package

    alias_package("train", "zavandor_env.train")
