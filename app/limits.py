"""The service's front-door bounds: a compute gate, slow-client timeouts, fixed metric labels, safe headers.

* :class:`ComputeGate` bounds the heavy requests (a batch of several questions, a long question; the server
  decides which): at most ``slots`` run and at most ``queue`` wait, each for at most ``wait_s``; any other is refused at once
  with 503 and a ``Retry-After`` header (:class:`Busy`). The waitress threads the gate does not hand out stay
  free for ``/health``, ``/metrics`` and the rest.
* :func:`create_hardened_server` builds the waitress server with a connection limit, an idle timeout, a
  bounded request head and a *request timeout*: a connection whose request (head and body) is not complete
  that many seconds after its first byte is closed, so clients that drip one header line every few seconds
  cannot hold the connection slots.
* :func:`method_label` maps an HTTP method to a fixed set (anything else is ``other``), so metric labels do
  not grow with what clients send.
* :data:`SECURITY_HEADERS` are sent with every response (CSP, X-Frame-Options, nosniff, no referrer).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})

# the chat page loads only its own script and style and talks only to this origin
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
                               "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def method_label(method: str) -> str:
    """Returns ``method`` when it is a standard HTTP method, else ``"other"`` (a bounded label set)."""
    return method if method in METHODS else "other"


class Busy(Exception):
    """No compute slot within the wait bound: the request gets 503 with ``Retry-After: retry_after_s``."""

    def __init__(self, message: str, retry_after_s: int):
        super().__init__(message)
        self.message, self.retry_after_s = message, retry_after_s


class ComputeGate:
    """At most ``slots`` computing requests, ``queue`` waiting ones, each waiting at most ``wait_s``."""

    def __init__(self, slots: int, queue: int, wait_s: float):
        self.slots, self.queue, self.wait_s = max(1, int(slots)), max(0, int(queue)), max(0.0, float(wait_s))
        self._sem = threading.BoundedSemaphore(self.slots)
        self._lock = threading.Lock()
        self._waiting = 0
        self._running = 0
        self._mean_s = 1.0  # moving average of compute time: what Retry-After suggests
        self.counts = {"admitted": 0, "rejected": 0}

    def retry_after_s(self) -> int:
        """Returns the suggested wait before retrying, in whole seconds (1..60)."""
        return int(min(60, max(1, math.ceil(self._mean_s))))

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Holds a compute slot for the block, or raises :class:`Busy` (queue full, or no slot in time)."""
        got = self._sem.acquire(blocking=False)
        if not got:
            with self._lock:
                if self._waiting >= self.queue:
                    self.counts["rejected"] += 1
                    raise Busy(f"server busy: {self.slots} requests are computing and {self._waiting} wait",
                               self.retry_after_s())
                self._waiting += 1
            try:
                got = self._sem.acquire(timeout=self.wait_s) if self.wait_s > 0 else False
            finally:
                with self._lock:
                    self._waiting -= 1
            if not got:
                with self._lock:
                    self.counts["rejected"] += 1
                raise Busy(f"server busy: no compute slot within {self.wait_s:g} s", self.retry_after_s())
        t0 = time.perf_counter()
        with self._lock:
            self._running += 1
            self.counts["admitted"] += 1
        try:
            yield
        finally:
            elapsed = time.perf_counter() - t0
            with self._lock:
                self._running -= 1
                self._mean_s = 0.8 * self._mean_s + 0.2 * elapsed
            self._sem.release()

    def stats(self) -> dict[str, int]:
        """Returns {slots, queue, running, waiting, admitted, rejected}."""
        with self._lock:
            return {"slots": self.slots, "queue": self.queue, "running": self._running, "waiting": self._waiting,
                    **self.counts}


# -- waitress with a request timeout ---------------------------------------------------------------
def _timed_channel_class():
    from waitress.channel import HTTPChannel

    class TimedChannel(HTTPChannel):
        """An HTTP channel that remembers when its current, incomplete request began arriving."""

        request_started: float | None = None

        def received(self, data):
            before = self.request
            out = super().received(data)
            if self.request is None:
                self.request_started = None
            elif self.request is not before or self.request_started is None:
                self.request_started = time.time()
            return out

    return TimedChannel


def close_slow_requests(server, now: float, request_timeout_s: float) -> int:
    """Marks for closing every channel of ``server`` whose incomplete request began more than
    ``request_timeout_s`` ago; returns how many."""
    n = 0
    for channel in list(server.active_channels.values()):
        started = getattr(channel, "request_started", None)
        if started is not None and channel.request is not None and now - started > request_timeout_s:
            channel.will_close = True
            n += 1
    return n


def create_hardened_server(app, *, host: str, port: int, threads: int, connection_limit: int,
                           idle_timeout_s: float, request_timeout_s: float, max_header_bytes: int):
    """Returns a waitress server for ``app`` on ``host:port`` with the bounds of the module docstring
    (maintenance runs every second: idle connections and slow requests are closed within a second of
    their bound)."""
    from waitress.server import create_server

    server = create_server(app, host=host, port=port, threads=threads, ident="kgqa",
                           connection_limit=connection_limit, channel_timeout=max(1, int(idle_timeout_s)),
                           cleanup_interval=1, max_request_header_size=max_header_bytes)
    server.channel_class = _timed_channel_class()
    base = server.maintenance
    server.slow_requests_closed = 0

    def maintenance(now: float) -> None:
        base(now)
        server.slow_requests_closed += close_slow_requests(server, now, request_timeout_s)

    server.maintenance = maintenance
    return server
