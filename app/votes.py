"""The vote ledger: every thumbs up or down the service receives, who (a hashed client key) and when.

A vote is about one answer: (domain, KG version, question, Cypher). An anonymous thumbs-down is only recorded
(``applied`` 0) until ``quorum`` distinct clients agree on that answer; then, or at once with the operator's
token, it is applied for everyone (the caller runs the feedback) and its votes are marked applied. Until then it
concerns only the voter's own copy of the answer (:meth:`VoteLedger.pending`). One SQLite file in WAL mode
under the state folder, shared by every worker; at most ``max_votes`` rows (the oldest go first).
:class:`RateLimiter` bounds the votes one client sends per minute in one serving process.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

VOTES_FILE = "feedback_votes.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS votes (
    id INTEGER PRIMARY KEY, at REAL NOT NULL, client TEXT NOT NULL, domain TEXT NOT NULL,
    kg_version TEXT NOT NULL, question TEXT NOT NULL, cypher TEXT NOT NULL, vote TEXT NOT NULL,
    operator INTEGER NOT NULL DEFAULT 0, applied INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS votes_answer ON votes (domain, kg_version, question, cypher, vote, applied);
CREATE INDEX IF NOT EXISTS votes_client ON votes (client, domain, question, applied);
"""


@dataclass(frozen=True)
class Tally:
    """What one vote came to: ``clients``, the distinct clients with a pending vote like it (this one
    included), and whether the quorum is reached."""

    clients: int
    quorum: int

    @property
    def reached(self) -> bool:
        return self.quorum > 0 and self.clients >= self.quorum


class VoteLedger:
    """The ledger of votes (module docstring). Thread-safe; the file is opened on first use."""

    def __init__(self, state_dir: Path, *, quorum: int, max_votes: int):
        self.path, self.quorum, self.max_votes = Path(state_dir) / VOTES_FILE, quorum, max_votes
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=10, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)
            self._conn = conn
        return self._conn

    def record(self, client: str, domain: str, kg_version: str, question: str, cypher: str, vote: str, *,
               operator: bool = False, applied: bool = False) -> Tally:
        """Stores one vote and returns the tally of pending votes like it (distinct clients)."""
        with self._lock:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("INSERT INTO votes (at, client, domain, kg_version, question, cypher, vote, operator, "
                           "applied) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (time.time(), client, domain, kg_version, question, cypher, vote, int(operator),
                            int(applied)))
                over = db.execute("SELECT count(*) FROM votes").fetchone()[0] - self.max_votes
                if over > 0:
                    db.execute("DELETE FROM votes WHERE id IN (SELECT id FROM votes ORDER BY id LIMIT ?)", (over,))
                clients = db.execute(
                    "SELECT count(DISTINCT client) FROM votes WHERE domain = ? AND kg_version = ? AND question = ? "
                    "AND cypher = ? AND vote = ? AND applied = 0",
                    (domain, kg_version, question, cypher, vote)).fetchone()[0]
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return Tally(clients, self.quorum)

    def mark_applied(self, domain: str, kg_version: str, question: str, cypher: str, vote: str) -> int:
        """Marks the pending votes on one answer applied; returns how many."""
        with self._lock:
            cur = self._db().execute(
                "UPDATE votes SET applied = 1 WHERE domain = ? AND kg_version = ? AND question = ? AND cypher = ? "
                "AND vote = ? AND applied = 0", (domain, kg_version, question, cypher, vote))
            return cur.rowcount

    def pending(self, client: str, domain: str | None, question: str) -> bool:
        """Returns whether ``client`` has a thumbs-down on ``question`` (in ``domain``, or any) not applied
        for everyone: its own next ask of it is computed afresh."""
        if self._conn is None and not self.path.exists():
            return False
        where, args = "client = ? AND question = ?", [client, question]
        if domain is not None:
            where, args = where + " AND domain = ?", [*args, domain]
        with self._lock:
            row = self._db().execute(f"SELECT 1 FROM votes WHERE {where} AND vote = 'down' AND applied = 0 LIMIT 1",
                                     args).fetchone()
        return row is not None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class RateLimiter:
    """A token bucket per client key: ``per_minute`` votes a minute, up to ``per_minute`` at once; at most
    ``max_clients`` buckets are kept (the least recently used go)."""

    def __init__(self, per_minute: int, max_clients: int = 10_000):
        self.rate, self.capacity, self.max_clients = per_minute / 60.0, float(per_minute), max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, client: str) -> float:
        """Takes one token for ``client``: returns 0 when allowed, else the seconds until the next one."""
        if self.capacity <= 0:
            return 0.0
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.pop(client, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
            self._buckets[client] = (tokens - 1 if tokens >= 1 else tokens, now)
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        return wait
