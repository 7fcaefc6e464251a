"""``kgqa serve --workers N``: N processes under gunicorn (threaded workers, application preloaded).

Why gunicorn: it is the kept pre-fork WSGI server. With ``preload_app`` the master imports the whole
service once (torch, the embedder, Kuzu, Flask) and the workers share those pages copy-on-write; each
worker then opens its own read-only graph handles and caches after the fork (:func:`post_worker_init`),
because neither Kuzu databases nor driver connections may cross a fork. The master restarts a worker that
dies (``kill -9``) while the others keep serving, and SIGTERM is a graceful stop: workers close their
listening sockets and finish the requests in progress within ``drain_s`` (``graceful_timeout``).
Waitress, the single-process server, has no process model.

The compute processes (:mod:`kgqa.app.compute`) are started by the master before it forks the workers and
shared by all of them: a worker serves answer-cache hits and I/O, and sends uncached questions to the pool,
so the pool keeps running when a worker is killed, and the master stops it when it exits.

Workers share the plan cache (SQLite WAL: every write a transaction, visible to the others) and, with
``KGQA_REDIS_URL``, the answer cache's Redis tier.
"""

from __future__ import annotations

import os
import sys
import threading

from gunicorn.app.base import BaseApplication

from kgqa.app.compute import ComputePool, freeze_heap, warm
from kgqa.settings import Settings


class LazyApp:
    """The WSGI app of one worker, built after the fork (the master only imports)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.app = None
        self.pool: ComputePool | None = None  # started in the master, shared by the workers
        self._lock = threading.Lock()

    def build(self) -> None:
        """Opens this worker's pipeline (graphs read-only, caches) and builds its Flask app."""
        from kgqa.app.server import create_app
        from kgqa.planner.pipeline import build_pipeline

        with self._lock:
            if self.app is None:
                sys.setswitchinterval(0.001)
                pipeline = build_pipeline(self.settings)
                if self.pool is None:
                    warm(pipeline)
                self.app = create_app(pipeline, self.pool.client() if self.pool is not None else None)
                freeze_heap()

    def __call__(self, environ, start_response):
        if self.app is None:
            self.build()
        return self.app(environ, start_response)


class KgqaGunicorn(BaseApplication):
    """gunicorn configured from :class:`Settings` (no config file, no command line of its own)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.lazy = LazyApp(settings)
        super().__init__()

    def load_config(self) -> None:
        s = self.settings
        lazy, domains = self.lazy, []

        def post_worker_init(worker) -> None:
            lazy.build()

        def on_exit(server) -> None:
            if lazy.pool is not None:
                lazy.pool.stop()

        def when_ready(server) -> None:
            from kgqa.kg.registry import registered

            domains.extend(registered(s.graphs_dir))
            host, port = server.LISTENERS[0].sock.getsockname()[:2]
            if lazy.pool is not None and not lazy.pool.wait_ready():
                raise RuntimeError("the compute processes did not start")
            pool = f", {lazy.pool.processes} compute processes" if lazy.pool is not None else ""
            print(f"kgqa serving {', '.join(domains)} with {s.workers} workers (gunicorn, pid {os.getpid()}"
                  f"{pool}) on http://{host}:{port}/", flush=True)

        for key, value in {
            "bind": f"{s.host}:{s.port}", "workers": str(s.workers), "worker_class": "gthread",
            "threads": str(s.threads), "preload_app": True, "graceful_timeout": str(int(s.drain_s)),
            "timeout": "300", "keepalive": "75",
            "post_worker_init": post_worker_init, "when_ready": when_ready, "on_exit": on_exit, "accesslog": None,
            "errorlog": "-", "loglevel": "warning", "proc_name": "kgqa",
        }.items():
            self.cfg.set(key, value)

    def load(self):
        import kgqa.app.server  # noqa: F401 - preloaded in the master: its imports are shared by every worker
        import kgqa.planner.pipeline  # noqa: F401

        if self.settings.compute_processes > 0 and self.lazy.pool is None:  # before the workers fork
            self.lazy.pool = ComputePool(self.settings).start()
        return self.lazy


def serve_workers(settings: Settings) -> None:
    """Runs the service in ``settings.workers`` gunicorn processes until SIGTERM/SIGINT."""
    KgqaGunicorn(settings).run()
