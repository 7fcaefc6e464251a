"""Compute processes: uncached questions are answered outside the processes that serve requests.

Why: a question computed on a thread of the serving process holds that process's GIL (compilation, Kuzu,
the embedder, the LLM), and an answer-cache hit on another thread waits for it: cache hits had a p99 of
hundreds of milliseconds behind compute work. So a serving process (waitress, or each gunicorn worker)
only parses requests, looks answers up in the answer cache and writes responses; a miss goes to this pool.

The pool: :class:`ComputePool` starts one supervisor process (``python -m kgqa.app.compute``), which binds a Unix socket and starts
``processes`` compute processes (``spawn``, so none inherits the server's threads or graph handles; each
at ``nice`` +10, so the serving processes get the CPU first). Each compute process opens its own
:class:`~kgqa.planner.pipeline.Pipeline` (graphs read-only, the shared plan cache) and accepts one
connection at a time: an idle process blocks in ``accept()``, so the kernel hands the next question to
whichever process is free, and the socket's listen backlog is the queue every serving process shares, in
arrival order. No lock is shared between processes: a process killed with SIGKILL holds nothing the others
wait for. The supervisor restarts a compute process that dies, and exits (stopping them) when its owner
is gone.

One question, one connection (:class:`ComputeClient`): the client sends a frame ``{"op", ..., "deadline"}``;
the compute process answers ``b"S"`` when it starts and then a frame with the result. A question not
started before its deadline (``compute_wait_s``) gets 503 with ``Retry-After`` (:class:`Busy`) and is
skipped by the process that accepts it later. Answers are stored in the answer cache by the serving process
(:meth:`Pipeline.keep`), so the compute processes keep no answer cache of their own (a forgotten answer
cannot come back from one).
"""

from __future__ import annotations

import gc
import json
import logging
import multiprocessing as mp
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import fields
from multiprocessing.connection import wait as wait_sentinels
from pathlib import Path
from typing import Any

from kgqa.app.limits import Busy
from kgqa.settings import Settings

log = logging.getLogger("kgqa.compute")
_LEN = struct.Struct("!I")
STARTED = b"S"
WARM_QUESTION = "Who directed The Matrix?"


def warm(pipeline) -> None:
    """Loads what the first question would otherwise wait for: the sentence embedder, once per process at
    start-up (routing, the linker's vector fallback and the vector memory use it), and the router's state."""
    from kgqa.kg.embed import embed_one

    embed_one(WARM_QUESTION)
    pipeline.router.route(WARM_QUESTION)


def freeze_heap() -> None:
    """Moves every object alive now (graphs, indexes, caches' structures) out of the garbage collector's
    reach: a full collection then scans only what requests allocate (it took ~60 ms, a cache hit's p99, with
    the pipeline's objects in it; 170 ms in one question at 20k relationships in a compute process)."""
    gc.collect()
    gc.freeze()


# -- framing ----------------------------------------------------------------------------------------
def send_frame(sock: socket.socket, obj: Any) -> None:
    """Sends ``obj`` as one length-prefixed JSON frame."""
    data = json.dumps(obj, default=str).encode()
    sock.sendall(_LEN.pack(len(data)) + data)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed before the whole frame arrived")
        buf += chunk
    return bytes(buf)


def recv_frame(sock: socket.socket) -> Any:
    """Returns the next length-prefixed JSON frame's object."""
    (n,) = _LEN.unpack(_recv_exact(sock, _LEN.size))
    return json.loads(_recv_exact(sock, n))


# -- the compute process ----------------------------------------------------------------------------
def _orphan_watch(parent: int) -> None:
    """Ends this process once ``parent`` is gone (re-parented: the supervisor died)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def compute_main(listener: socket.socket, settings: Settings, ready, parent: int) -> None:
    """A compute process: opens its pipeline, then answers one accepted connection at a time, forever."""
    from kgqa.planner.pipeline import build_pipeline

    threading.Thread(target=_orphan_watch, args=(parent,), daemon=True).start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the owner stops the pool; Ctrl-C reaches the whole group
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # exit handlers run (shared semaphores unlinked)
    os.nice(max(0, settings.compute_nice))
    pipeline = build_pipeline(settings)
    pipeline.answer_cache = None  # the serving process stores answers (Pipeline.keep)
    warm(pipeline)
    freeze_heap()
    ready.send(os.getpid())  # one small write: atomic on the shared pipe
    last_reload = time.monotonic()
    while True:
        conn, _ = listener.accept()
        if time.monotonic() - last_reload > 1.0:  # a graph loaded or rebuilt since is picked up
            pipeline.reload()
            last_reload = time.monotonic()
        with conn:
            try:
                handle(pipeline, conn)
            except (OSError, ConnectionError, ValueError) as err:  # the client went away: nothing to answer
                log.info("compute connection dropped: %s", err)


def handle(pipeline, conn: socket.socket) -> None:
    """Reads one task from ``conn``, says it started, computes it and sends the result frame.

    Tasks: ``{"op": "ask", "question", "domain"}`` -> ``{"result": Result dict}``; ``{"op": "batch",
    "questions"}`` -> ``{"results": [...]}``; ``{"op": "ping"}`` -> ``{"pid"}``. A task past its ``deadline``
    is dropped unanswered (its client has answered 503)."""
    conn.settimeout(10.0)
    task = recv_frame(conn)
    if time.time() > float(task.get("deadline") or float("inf")):
        return
    conn.sendall(STARTED)
    conn.settimeout(None)
    op = task.get("op")
    try:
        if op == "ask":
            out = {"result": pipeline.ask(task["question"], task.get("domain"), use_answer_cache=False).to_dict()}
        elif op == "batch":
            out = {"results": [r.to_dict() for r in pipeline.ask_batch(task["questions"])]}
        elif op == "ping":
            out = {"pid": os.getpid()}
        else:
            out = {"error": f"unknown op {op!r}"}
    except Exception as err:  # noqa: BLE001 - the serving process answers a generic 500
        log.exception("compute task failed")
        out = {"error": f"{type(err).__name__}: {err}"}
    send_frame(conn, out)


# -- the supervisor ---------------------------------------------------------------------------------
def supervise(path: str, settings: Settings, processes: int, owner: int) -> None:
    """Binds ``path``, keeps ``processes`` compute processes running on it (printing ``ready`` once all have
    opened their pipelines), and stops them on SIGTERM or when ``owner`` is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ctx = mp.get_context("spawn")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)
    listener.bind(path)
    listener.listen(4096)  # the kernel caps it at net.core.somaxconn
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    ready_in, ready = ctx.Pipe(duplex=False)  # compute processes say when their pipeline is open
    opened: set[int] = set()

    def start() -> Any:
        p = ctx.Process(target=compute_main, args=(listener, settings, ready, os.getpid()), name="kgqa-compute")
        p.start()
        return p

    procs = [start() for _ in range(processes)]
    said_ready = False
    try:
        while not stop.is_set() and os.getppid() == owner:
            wait_sentinels([p.sentinel for p in procs] + [ready_in], timeout=0.5)
            while ready_in.poll():
                opened.add(ready_in.recv())
            for i, p in enumerate(procs):
                if not p.is_alive() and not stop.is_set():
                    log.warning("compute process %s exited with %s; starting another", p.pid, p.exitcode)
                    procs[i] = start()
            if not said_ready and all(p.pid in opened for p in procs):
                print("ready " + " ".join(str(p.pid) for p in procs), flush=True)
                said_ready = True
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(5)
            if p.is_alive():
                p.kill()
                p.join()
        listener.close()
        if os.path.exists(path):
            os.unlink(path)


def settings_json(settings: Settings) -> str:
    """Returns ``settings`` as JSON (the supervisor's environment carries it)."""
    return json.dumps({f.name: str(v) if isinstance(v, Path) else v
                       for f in fields(settings) for v in [getattr(settings, f.name)]})


class ComputePool:
    """The supervisor (``python -m kgqa.app.compute``) and its compute processes; ``path`` is the socket a
    :class:`ComputeClient` uses.

    ``start()`` in the process that owns the pool (waitress's, or gunicorn's master before it forks the
    workers), ``stop()`` when it exits. A plain child process, not a ``multiprocessing`` one, so processes
    forked from the owner (gunicorn workers) inherit no bookkeeping that would join it."""

    def __init__(self, settings: Settings, processes: int | None = None):
        self.settings = settings
        self.processes = max(1, processes if processes is not None else settings.compute_processes)
        self.dir = tempfile.mkdtemp(prefix="kgqa-compute-")
        self.path = str(Path(self.dir) / "compute.sock")
        self.proc: subprocess.Popen | None = None
        self.pids: list[int] = []

    def start(self) -> ComputePool:
        """Starts the supervisor (which starts the compute processes); returns self."""
        env = dict(os.environ, KGQA_COMPUTE_SETTINGS=settings_json(self.settings), PYTHONUNBUFFERED="1")
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # parallel across processes, not torch threads:
            env.setdefault(name, "1")  # 2 torch threads per process on 2 busy cores made routing 10x slower
        self.proc = subprocess.Popen([sys.executable, "-m", "kgqa.app.compute", self.path, str(self.processes),
                                      str(os.getpid())], env=env, stdout=subprocess.PIPE, text=True)
        return self

    def wait_ready(self, timeout_s: float = 600.0) -> bool:
        """Returns True once every compute process has opened its pipeline (their pids in ``pids``), False
        when the supervisor exits first or after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while self.proc is not None and not self.pids and time.monotonic() < deadline:
            if not wait_sentinels([self.proc.stdout], timeout=min(1.0, max(0.0, deadline - time.monotonic()))):
                continue
            line = self.proc.stdout.readline()
            if not line:
                return False
            if line.startswith("ready "):
                self.pids = [int(x) for x in line.split()[1:]]
        return bool(self.pids)

    def stop(self) -> None:
        """Stops the supervisor and its compute processes."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self) -> ComputeClient:
        """Returns a client for this pool's socket (usable in any process forked after :meth:`start`)."""
        return ComputeClient(self.path, self.settings.compute_wait_s)


class ComputeClient:
    """Sends questions to the compute pool at ``path``; raises :class:`Busy` when none starts in time."""

    def __init__(self, path: str, wait_s: float, retry_after_s: int = 1):
        self.path, self.wait_s, self.retry_after_s = path, float(wait_s), retry_after_s

    def _call(self, task: dict[str, Any]) -> dict[str, Any]:
        deadline = time.time() + self.wait_s
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            try:
                sock.settimeout(self.wait_s)
                sock.connect(self.path)
                send_frame(sock, task | {"deadline": deadline})
                sock.settimeout(max(0.001, deadline - time.time()))
                started = sock.recv(1)
            except (FileNotFoundError, ConnectionRefusedError) as err:
                raise Busy(f"server busy: the compute processes are not running ({type(err).__name__})",
                           5) from None
            except ConnectionError:  # reset or broken: the process that took the question was killed
                raise Busy("server busy: the compute process went away", self.retry_after_s) from None
            except TimeoutError:
                raise Busy(f"server busy: no compute process started the question within {self.wait_s:g} s",
                           self.retry_after_s) from None
            if started != STARTED:
                raise Busy("server busy: the compute process went away", self.retry_after_s)
            sock.settimeout(None)
            try:
                out = recv_frame(sock)
            except ConnectionError:  # the compute process died mid-question; the supervisor starts another
                raise Busy("server busy: the compute process went away", self.retry_after_s) from None
        finally:
            sock.close()
        if "error" in out:
            raise RuntimeError(f"compute failed: {out['error']}")
        return out

    def ask(self, question: str, domain: str | None) -> dict[str, Any]:
        """Returns the Result dict of ``question`` computed by a compute process."""
        return self._call({"op": "ask", "question": question, "domain": domain})["result"]

    def ask_batch(self, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Returns the Result dicts of a batch computed by one compute process."""
        return self._call({"op": "batch", "questions": questions})["results"]

    def ping(self) -> int:
        """Returns the pid of the compute process that answered."""
        return int(self._call({"op": "ping"})["pid"])


def main(argv: list[str] | None = None) -> int:
    """``python -m kgqa.app.compute SOCKET PROCESSES OWNER_PID`` with ``KGQA_COMPUTE_SETTINGS``: the supervisor."""
    path, processes, owner = (argv if argv is not None else sys.argv[1:])[:3]
    raw = json.loads(os.environ["KGQA_COMPUTE_SETTINGS"])
    names = {f.name: f for f in fields(Settings)}
    settings = Settings(**{k: v for k, v in raw.items() if k in names})
    logging.basicConfig(level=logging.WARNING, format="kgqa-compute %(levelname)s %(message)s")
    supervise(path, settings, int(processes), int(owner))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
