"""Self-play training for zavandor-env: MaskablePPO against an opponent pool, with TensorBoard.

Entry points: ``zavandor train`` (:mod:`train.cli`) and :func:`train.selfplay.train`.
Modules: ``config`` (TrainConfig + YAML), ``selfplay`` (the run), ``envs`` (training
environments and their statistics), ``opponents`` / ``pool`` (snapshots and the per-episode
draw), ``callbacks`` (charts, evaluation, checkpoints), ``evaluate``, ``rating``, ``export``
(weights-only policy files) and ``publish`` (a run -> a committed checkpoint folder).
Importing this package imports nothing heavy.
"""
