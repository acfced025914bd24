"""Evaluation: games between agents and what they say, one module per role.

* ``match``: one game between agents (``play_game``), the one game driver;
* ``tournament``: what a tournament plays (agents, lineups, deals, seat rotations), its
  game records; ``tournament_file``: tournament files from anyone, checked;
  ``tournament_run``: playing the games (in this process, a process pool or Ray;
  ``ray_cluster``), the one driver of seat-rotated games, which the ladder and the scorecard
  use too; ``tournament_journal``: the finished games on disk, for ``--resume``;
  ``tournament_report``: the report of ``zavandor eval``;
* ``ladder`` (the standard agents and the run), ``ladder_schedule`` (its balanced tables),
  ``ladder_report`` (its files and the leaderboard);
* ``scorecard`` (the standard evaluation of one agent) and ``scorecard_report`` (its files);
* shared: ``run_folder`` (every report folder: checked, locked, ``--overwrite``,
  ``--resume``), ``run_settings`` (what the ladder and the scorecard share), ``stats``
  (win rates, intervals, ratings), ``journal`` (append-only journals), ``charts``.
"""
