"""The one door for everything from outside.

Every file, folder, text and spec a user may be sent is read, bounded and checked here before
the engine, a bot or a trainer sees it; every file we write is written here, atomically.
``docs/security.md`` lists each boundary with what checks it and the test that holds it.

* :mod:`~zavandor_env.io.files` -- bounded bytes, JSON and YAML as plain data, atomic writes;
* :mod:`~zavandor_env.io.plain_yaml` -- the YAML 1.2 core loader behind it, linear in time;
* :mod:`~zavandor_env.io.params` -- typed named parameters (agent specs), paths as regular files;
* :mod:`~zavandor_env.io.folders` -- run, eval and ladder folders: no symlink in or out, one
  writer at a time;
* :mod:`~zavandor_env.io.journals` -- JSON-lines journals, streamed and checked line by line;
* :mod:`~zavandor_env.io.csvfiles` -- the one CSV writer (no live spreadsheet formulas);
* :mod:`~zavandor_env.io.limits` -- the documented ceiling of every count that sizes work or
  memory (workers, envs, threads, widths, agents, lineups, budgets).

Saved games and replays are read by :mod:`zavandor_env.engine.game` through these readers, and
OpenSpiel state strings by :mod:`zavandor_env.envs.openspiel_text`.

Errors are :class:`~zavandor_env.io.files.UntrustedInputError` (a ``ValueError``) with a
one-line message; callers wrap it in their own error type when they have one.
"""

from __future__ import annotations

from zavandor_env.io.files import UntrustedInputError

__all__ = ["UntrustedInputError"]
