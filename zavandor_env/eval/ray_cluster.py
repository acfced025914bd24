"""Ray for the length of a command (``zavandor eval --ray``, training with ``backend:
rllib``): join a cluster or start a local Ray, and one-line errors when Ray is missing or the
cluster cannot be joined."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from zavandor_env.engine.errors import PicklableError
from zavandor_env.io.params import one_line

#: What to install for the Ray paths (``eval --ray``, training with ``backend: rllib``).
RAY_INSTALL = 'pip install -e ".[ray]"'


class RayMissingError(PicklableError, ImportError):
    """Ray cannot be imported here: ``RayMissingError("--ray")`` reads ``--ray needs the [ray]
    extra (missing: ray): pip install -e ".[ray]"``."""

    def __init__(self, what: str, detail: str = "missing: ray") -> None:
        super().__init__(f"{what} needs the [ray] extra ({detail}): {RAY_INSTALL}")


class RayConnectionError(ConnectionError):
    """The Ray cluster named by ``address`` cannot be joined; the message is one line."""


def import_ray(what: str) -> Any:
    """The ``ray`` module, or :class:`RayMissingError` saying what needs it."""
    try:
        import ray
    except ImportError as exc:
        raise RayMissingError(what, one_line(exc)) from None
    return ray


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None,
                what: str = "--ray") -> Iterator[Any]:
    """Ray for the length of a command: join the cluster at ``address`` ("auto" on one of
    its nodes, "ray://head:10001" from anywhere) or start a local Ray (``num_cpus``, no
    dashboard) and stop it afterwards.  A session this process already holds (a test's, a
    notebook's) is used as it is and left open."""
    import logging

    ray = import_ray(what)
    if ray.is_initialized():
        yield ray
        return
    # The workers' own output would scramble the progress bar; their errors still reach
    # this process as exceptions.
    quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address:
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            detail = one_line(exc)
            raise RayConnectionError(f"cannot join the Ray cluster at {address!r}: {detail} "
                                     "(is it started? see docs/scaling.md)") from None
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)
    try:
        yield ray
    finally:
        ray.shutdown()
