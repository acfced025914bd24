"""How ``zavandor serve`` keeps slow or greedy clients from holding it: connection slots, overall
and per client address, and a deadline for reading each request whole."""

from __future__ import annotations

import io
import threading
import time
from typing import Any


class ConnectionSlots:
    """At most ``total`` connections at once, and at most ``per_client`` of one address."""

    def __init__(self, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, client: str) -> bool:
        """A slot for one more connection of ``client``, or False (close it)."""
        with self._lock:
            mine = self._open.get(client, 0)
            if mine >= self.per_client or sum(self._open.values()) >= self.total:
                return False
            self._open[client] = mine + 1
            return True

    def give_back(self, client: str) -> None:
        with self._lock:
            left = self._open.get(client, 1) - 1
            if left > 0:
                self._open[client] = left
            else:
                self._open.pop(client, None)


class _DeadlineReader(io.RawIOBase):
    """A socket's bytes, each wait bounded by what is left of the handler's request deadline
    (``handler.deadline``, monotonic) and by its socket timeout: ``TimeoutError`` once the
    deadline has passed, which ``http.server`` answers by closing the connection.  The socket
    timeout alone restarts with every byte, so a client trickling one byte at a time would
    hold its connection for as long as it liked."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        sock = self.handler.connection
        left = self.handler.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request was not read whole in time")
        sock.settimeout(min(self.handler.timeout, left))
        try:
            return int(sock.recv_into(buffer))
        finally:
            sock.settimeout(self.handler.timeout)  # the answer's writes: the plain timeout


def deadline_reader(handler: Any) -> io.BufferedReader:
    """The buffered ``rfile`` of a request handler whose every read keeps its deadline."""
    return io.BufferedReader(_DeadlineReader(handler))
