"""The one door for everything from outside.

Every file, folder, text and spec a user may be sent is read, bounded and checked here before
the engine, a bot or a trainer sees it; every file we write is written here, atomically.
``docs/security.md`` lists each boundary with what checks it and the test that holds it.

* :mod:`~zavandor_env.io.files` -- bounded bytes, JSON and YAML as plain data, atomic writes;
* :mod:`~zavandor_env.io.limits` -- the documented ceiling of every count that sizes work or
  memory (workers, envs, threads, widths, agents, lineups, budgets).

Errors are :class:`~zavandor_env.io.files.UntrustedInputError` (a ``ValueError``) with a
one-line message; callers wrap it in their own error type when they have one.
"""

from __future__ import annotations

from .files import UntrustedInputError

__all__ = ["UntrustedInputError"]
