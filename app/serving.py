"""Running the app under waitress: :class:`BackgroundServer` (tests), :func:`hardened_server` and :func:`serve`."""

from __future__ import annotations

import signal
import sys
import threading

from flask import Flask

from kgqa.app.compute import ComputePool, freeze_heap, warm
from kgqa.app.limits import create_hardened_server
from kgqa.app.server import Inflight, create_app
from kgqa.settings import Settings


class BackgroundServer:
    """A waitress server for ``app`` on a background thread (tests, the browser check).

    ``with BackgroundServer(app) as srv: srv.url`` — port 0 picks a free loopback port. The server has the
    service's bounds (:func:`kgqa.app.limits.create_hardened_server`) from ``settings`` (default: the app's
    pipeline's).
    """

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0, threads: int | None = None,
                 settings: Settings | None = None):
        settings = settings or app.extensions["kgqa"]["pipeline"].settings
        self.server = hardened_server(app, settings, host=host, port=port, threads=threads)
        self.url = f"http://{host}:{self.server.effective_port}/"
        self.thread = threading.Thread(target=self.server.run, name="kgqa-waitress", daemon=True)

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        from waitress import wasyncore

        srv = self.server
        if self.thread.is_alive() and getattr(srv, "trigger", None) is not None:
            # close the sockets from the loop's own thread (closing them from here races its select() into
            # EBADF); an empty socket map ends the loop
            try:
                srv.trigger.pull_trigger(lambda: wasyncore.close_all(srv._map))
            except OSError:
                pass  # the loop closed its trigger between the check and the pull: it is ending already
            self.thread.join(timeout=5)
        if self.thread.is_alive():
            srv.close()
            self.thread.join(timeout=5)
        srv.task_dispatcher.shutdown()


def hardened_server(app: Flask, settings: Settings, *, host: str | None = None, port: int | None = None,
                    threads: int | None = None):
    """Returns the waitress server for ``app`` with the connection, idle, request and header bounds of
    ``settings`` (``host``/``port``/``threads`` override theirs)."""
    return create_hardened_server(
        app, host=settings.host if host is None else host, port=settings.port if port is None else port,
        threads=threads or settings.threads, connection_limit=settings.http_connection_limit,
        idle_timeout_s=settings.http_idle_timeout_s, request_timeout_s=settings.http_request_timeout_s,
        max_header_bytes=settings.http_max_header_bytes)


def serve(settings: Settings) -> None:
    """Open the graphs and caches, start the compute processes (``compute_processes``; 0: compute on the
    request threads, warmed here), and serve the API and chat page with waitress in this process, bounded
    against slow clients (:func:`hardened_server`; ``kgqa serve --workers N`` > 1 is
    :mod:`kgqa.app.workers`). SIGTERM drains: the listening socket closes, requests in progress finish (up to
    ``drain_s``), then the process exits and stops the compute processes."""
    from waitress import wasyncore

    from kgqa.planner.pipeline import build_pipeline

    sys.setswitchinterval(0.001)  # a cache hit's thread gets the GIL back quickly from other threads
    pool = ComputePool(settings).start() if settings.compute_processes > 0 else None
    try:
        pipeline = build_pipeline(settings)
        if pool is None:
            warm(pipeline)
        elif not pool.wait_ready():
            raise RuntimeError("the compute processes did not start")
        # kill -HUP re-reads the domain registry (as POST /domains/reload does), off the signal handler's frame
        signal.signal(signal.SIGHUP, lambda *_: threading.Thread(target=pipeline.reload, daemon=True).start())
        app = create_app(pipeline, pool.client() if pool is not None else None)
        freeze_heap()
        server = hardened_server(app, settings)
        inflight: Inflight = app.extensions["kgqa"]["inflight"]

        def drain() -> None:
            server.trigger.pull_trigger(lambda: wasyncore.dispatcher.close(server))  # no new connections
            drained = inflight.wait_idle(settings.drain_s)
            print(f"kgqa: SIGTERM, {'drained' if drained else 'drain timed out with'} "
                  f"{inflight.count} requests in progress; stopping", flush=True)
            server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))

        signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=drain, daemon=True).start())
        print(f"kgqa serving {', '.join(pipeline.domains)} on http://{settings.host}:{server.effective_port}/"
              + (f" ({pool.processes} compute processes)" if pool is not None else ""), flush=True)
        try:
            server.run()
        finally:
            server.close()
    finally:
        if pool is not None:
            pool.stop()
