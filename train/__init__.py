"""Training for zavandor-env: three trainers over a small common core, each in its own package.

- ``config``: the training config (the common keys and one section per trainer) and its YAML;
- ``common/``: what every trainer shares: the run folder and its life (``run``), kill-safe
  checkpoints with a pickle-free resume (``checkpointing``), the evaluation on the one game
  driver (``evaluate``), the charts of the training games (``charts``), the opponent pool
  (``pool``), the rating, the wall-clock policies (``timed``), the warm start
  (``init_policy``) and ``publish``;
- ``ppo/``: self-play MaskablePPO (``selfplay``, its SB3 ``callbacks``, the SB3 <-> ``.npz``
  ``export``);
- ``exit/``: expert iteration (``run``, ``selfplay`` games, the ``model``, ``checkpoint``);
- ``rllib/``: RLlib PPO on Ray;
- ``cli``: ``zavandor train``.

Importing this package imports nothing heavy.
"""

if __name__ == "train":  # the repository's folder imported by its own name: an alias, no copy
    from zavandor_env._aliases import alias_package

    alias_package("train", "zavandor_env.train")
