"""The plan cache's SQLite file and in-memory index (:class:`PlanFile`): sync, writes, demotion, bounded LRU.

Entries live in one SQLite file (WAL mode, no pickles: JSON columns), so a pre-warm job can write while
a server reads. Each :class:`PlanFile` keeps an in-memory two-layer index ``C[domain][aspect]`` (plus a
``C[domain]["*"]`` bucket for the relaxation of Algorithm 2) and, before every retrieval, compares
``PRAGMA data_version`` with the last value seen: when another connection committed, new rows are read
(and the index rebuilt if rows were deleted), so readers see other processes' entries without a restart.

Bounded mode keeps at most ``bound`` entries per (domain, aspect) bucket and evicts the least recently
used (``last_used`` is refreshed by retrieval; touches are flushed to the file in batches).

Provenance and demotion. Every entry records where it came from: ``"prewarm"`` (the offline job),
``"online"`` (learned by the pipeline while answering; also what older files' entries count as) or ``"user"``
(a thumbs up, ``kgqa.planner.feedback``). A thumbs down *demotes* rather than deletes: the row stays with
``demoted = 1`` but leaves every bucket, so it is never retrieved as an exemplar nor filled as a template. A
deleted plan would come straight back, since the compiler produces the same Cypher for the same question
and the pipeline would learn it again; a demoted row keeps its dedupe key, and re-learning it (online or
pre-warm) leaves it demoted. Only a user's thumbs up on the same plan lifts the demotion. A demoted
(question, Cypher) pair also blocks template reuse for that question: :meth:`kgqa.cache.plan_cache.PlanCache.reuse` skips a
template whose fill would give that question that Cypher again, while the template still serves the other
questions it fits (its own answer was not voted down). Demoted rows do not
count toward the bounded mode's per-bucket limit. Files written before these columns existed are migrated
on open (``ALTER TABLE ... ADD COLUMN`` with defaults). Demotions change no row id, so a counter in the
``plan_meta`` table tells other connections to rebuild their index.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.cache.plan_entry import COLUMNS, PROVENANCES, PlanEntry, tokenize
from kgqa.cache.plan_rank import Bucket

DB_NAME = "plan_cache.sqlite"
ALL = "*"
_FLUSH_EVERY_S = 5.0
_FLUSH_MAX = 256

_SCHEMA = """
CREATE TABLE IF NOT EXISTS plans (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dedupe TEXT NOT NULL UNIQUE,
    question TEXT NOT NULL,
    isr TEXT NOT NULL,
    cypher TEXT NOT NULL,
    operators TEXT NOT NULL,
    answer TEXT NOT NULL,
    domain TEXT NOT NULL,
    aspect TEXT NOT NULL,
    verified_at REAL NOT NULL,
    kg_version TEXT NOT NULL,
    template TEXT,
    last_used REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0,
    provenance TEXT NOT NULL DEFAULT 'online',
    demoted INTEGER NOT NULL DEFAULT 0,
    code_version TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS plans_bucket ON plans(domain, aspect, last_used);
CREATE TABLE IF NOT EXISTS plan_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""
# columns added after the first release: (name, DDL) applied with ALTER TABLE to older files
_MIGRATIONS = (("provenance", "provenance TEXT NOT NULL DEFAULT 'online'"),
               ("demoted", "demoted INTEGER NOT NULL DEFAULT 0"),
               ("code_version", "code_version TEXT NOT NULL DEFAULT ''"))
_GENERATION = "flags_generation"  # plan_meta key: bumped whenever a stored entry's demotion/provenance changes


class PlanFile:
    """The persistent, multi-process store of verified plans with its Domain -> Aspect index."""

    def __init__(self, path: str | Path, *, bound: int = 0, pool: int = 50, domain_bound: int = 0,
                 code_version: str = ""):
        """``bound``: most live entries per (domain, aspect) bucket; ``domain_bound``: per domain (0 = no
        limit; least recently used evicted first). ``code_version``: stamped on entries added through this
        object, and the only one whose templates :meth:`reuse` fills (a plan verified by other compiler code
        may no longer be what this code would build)."""
        path = Path(path)
        if path.suffix not in (".sqlite", ".db"):
            path = path / DB_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.bound, self.pool = path, int(bound), int(pool)
        self.domain_bound, self.code_version = int(domain_bound), str(code_version or "")
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(_SCHEMA)
        self._migrate()
        self._entries: dict[int, PlanEntry] = {}
        self._tokens: dict[int, list[str]] = {}
        self._vectors: dict[int, np.ndarray] = {}
        self._buckets: dict[str, dict[str, Bucket]] = {}
        self._blocked: set[tuple[str, str, str]] = set()  # block_key() of demoted entries
        self._max_id = 0
        self._data_version = -1
        self._generation = 0
        self._touched: dict[int, tuple[float, int]] = {}  # id -> (last_used, extra hits) not yet written
        self._last_flush = time.monotonic()
        self.counters = {"retrievals": 0, "refreshes": 0, "evictions": 0, "reuse_hits": 0, "reuse_refusals": 0,
                         "learn_refusals": 0, "purged": 0}
        self._reload()

    # -- synchronisation with the file -------------------------------------------------------------
    def _migrate(self) -> None:
        """Adds the columns a file written by an older version lacks (``ALTER TABLE ... ADD COLUMN`` with a
        default: entries from before provenance was recorded count as "online", none is demoted)."""
        def missing() -> list[str]:
            have = {row[1] for row in self._conn.execute("PRAGMA table_info(plans)")}
            return [ddl for name, ddl in _MIGRATIONS if name not in have]

        if not missing():
            return
        with self._write():  # another process may be migrating the same file
            for ddl in missing():
                self._conn.execute(f"ALTER TABLE plans ADD COLUMN {ddl}")

    def _read_generation(self) -> int:
        row = self._conn.execute("SELECT value FROM plan_meta WHERE key = ?", (_GENERATION,)).fetchone()
        return int(row[0]) if row else 0

    def _bump_generation(self) -> None:
        """Inside a write transaction: tells other connections that stored flags changed (an UPDATE moves
        no id, so :meth:`_sync`'s count/sum check alone would not notice it)."""
        self._conn.execute("INSERT INTO plan_meta (key, value) VALUES (?, 1) "
                           "ON CONFLICT(key) DO UPDATE SET value = value + 1", (_GENERATION,))
        self._generation = self._read_generation()

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction (``BEGIN IMMEDIATE``): committed when the block ends, rolled back when it
        raises."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise

    def _reload(self) -> None:
        with self._lock:
            self._entries.clear()
            self._tokens.clear()
            self._buckets.clear()
            self._blocked.clear()
            self._max_id = 0
            self._data_version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            self._generation = self._read_generation()
            for row in self._conn.execute(f"SELECT {', '.join(COLUMNS)} FROM plans ORDER BY id"):
                self._index(PlanEntry.from_row(row))

    def _sync(self) -> None:
        """Pick up commits of other connections (cheap when there are none)."""
        dv = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if dv == self._data_version:
            return
        self._data_version = dv
        self.counters["refreshes"] += 1
        if self._read_generation() != self._generation:  # a demotion or promotion elsewhere: rebuild
            self._reload()
            return
        n, total = self._conn.execute("SELECT count(*), coalesce(sum(id), 0) FROM plans").fetchone()
        new = [PlanEntry.from_row(r) for r in self._conn.execute(
            f"SELECT {', '.join(COLUMNS)} FROM plans WHERE id > ? ORDER BY id", (self._max_id,))]
        if (len(self._entries) + len(new) != n
                or sum(self._entries) + sum(e.id for e in new) != total):  # deletions elsewhere: rebuild
            self._reload()
            return
        for e in new:
            self._index(e)

    def _index(self, e: PlanEntry) -> None:
        assert e.id is not None
        self._entries[e.id] = e
        self._tokens[e.id] = tokenize(e.question)
        self._max_id = max(self._max_id, e.id)
        if e.demoted:  # kept (entries(), stats) but in no bucket: never an exemplar, never a template
            self._blocked.add(e.block_key())
            return
        dom = self._buckets.setdefault(e.domain, {})
        dom.setdefault(e.aspect, Bucket()).add(e.id)
        dom.setdefault(ALL, Bucket()).add(e.id)

    def _unindex(self, ids: Iterable[int]) -> None:
        ids = set(ids)
        touched: set[tuple[str, str]] = set()
        for i in ids:
            e = self._entries.pop(i, None)
            self._tokens.pop(i, None)
            self._vectors.pop(i, None)
            self._touched.pop(i, None)
            if e is not None:
                touched.update({(e.domain, e.aspect), (e.domain, ALL)})
                self._blocked.discard(e.block_key())
        for d, a in touched:
            bucket = self._buckets.get(d, {}).get(a)
            if bucket is not None:
                bucket.remove(ids)
                if not bucket.ids:
                    del self._buckets[d][a]

    def _flush_touches(self) -> None:
        if not self._touched:
            return
        rows = [(lu, h, i) for i, (lu, h) in self._touched.items()]
        self._touched.clear()
        self._conn.executemany("UPDATE plans SET last_used = max(last_used, ?), hits = hits + ? WHERE id = ?", rows)
        self._last_flush = time.monotonic()

    def flush(self) -> None:
        """Write pending ``last_used``/``hits`` updates of retrievals to the file."""
        with self._lock:
            with self._write():
                self._flush_touches()

    def close(self) -> None:
        with self._lock:
            try:
                self.flush()
            finally:
                self._conn.close()

    def __enter__(self) -> PlanFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------------
    def add(self, entry: PlanEntry) -> PlanEntry:
        """Store a verified plan (continual learning). A duplicate (same normalized question, domain and
        Cypher) refreshes the existing entry instead. In bounded mode the bucket's LRU entries beyond
        ``bound`` are evicted in the same transaction."""
        return self.add_many([entry])[0]

    def add_many(self, entries: Iterable[PlanEntry]) -> list[PlanEntry]:
        """:meth:`add` for many entries in one transaction (pre-warm)."""
        entries = list(entries)
        for entry in entries:
            if entry.provenance not in PROVENANCES:
                raise ValueError(f"unknown provenance {entry.provenance!r} (one of {', '.join(PROVENANCES)})")
        now = time.time()
        with self._lock:
            self._sync()
            rows, evicted = [], []
            with self._write():
                self._flush_touches()
                for entry in entries:
                    entry.last_used = entry.last_used or now
                    entry.code_version = entry.code_version or self.code_version
                    rows.append(self._insert(entry))
                if self.domain_bound > 0:
                    for d in dict.fromkeys(r[COLUMNS.index("domain")] for r in rows):
                        evicted += [r[0] for r in self._conn.execute(
                            "SELECT id FROM plans WHERE domain = ? AND demoted = 0 "
                            "ORDER BY last_used DESC, id DESC LIMIT -1 OFFSET ?", (d, self.domain_bound))]
                if self.bound > 0:
                    # demoted entries are tombstones: they neither count toward the bound nor get evicted
                    for d, a in dict.fromkeys((r[COLUMNS.index("domain")], r[COLUMNS.index("aspect")])
                                              for r in rows):
                        evicted += [r[0] for r in self._conn.execute(
                            "SELECT id FROM plans WHERE domain = ? AND aspect = ? AND demoted = 0 "
                            "ORDER BY last_used DESC, id DESC LIMIT -1 OFFSET ?", (d, a, self.bound))]
                if evicted:
                    evicted = list(dict.fromkeys(evicted))
                    self._conn.executemany("DELETE FROM plans WHERE id = ?", [(i,) for i in evicted])
                if any(e.provenance == "user" or e.demoted for e in entries):  # may change a demotion
                    self._bump_generation()
            gone = set(evicted)
            stored = [PlanEntry.from_row(r) for r in rows]
            self._unindex([s.id for s in stored if s.id in self._entries] + evicted)
            for s in {s.id: s for s in stored}.values():
                if s.id not in gone:
                    self._index(s)
            self.counters["evictions"] += len(evicted)
            self._sync()  # our own commit does not move data_version; anything else's does
            for entry, s in zip(entries, stored):
                entry.id = s.id
            return stored

    def _insert(self, entry: PlanEntry) -> tuple:
        values = (entry.dedupe_key(), entry.question, json.dumps(entry.isr, default=str), entry.cypher,
                  json.dumps(entry.operators), entry.answer, entry.domain, entry.aspect, entry.verified_at,
                  entry.kg_version, json.dumps(entry.template, default=str) if entry.template else None,
                  entry.last_used, entry.hits, entry.provenance, int(entry.demoted), entry.code_version)
        # a duplicate keeps its first provenance and its demotion (re-learning a demoted plan online or in a
        # pre-warm run does not revive it); a demoted entry demotes it, and a user's verified entry makes it
        # "user" and lifts the demotion
        self._conn.execute(
            "INSERT INTO plans (dedupe, question, isr, cypher, operators, answer, domain, aspect, "
            "verified_at, kg_version, template, last_used, hits, provenance, demoted, code_version) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(dedupe) DO UPDATE SET isr=excluded.isr, operators=excluded.operators, "
            "answer=excluded.answer, aspect=excluded.aspect, verified_at=excluded.verified_at, "
            "kg_version=excluded.kg_version, template=coalesce(excluded.template, template), "
            "code_version=CASE WHEN excluded.code_version != '' THEN excluded.code_version ELSE code_version END, "
            "last_used=max(last_used, excluded.last_used), "
            "provenance=CASE WHEN excluded.provenance = 'user' AND excluded.demoted = 0 THEN 'user' "
            "ELSE provenance END, "
            "demoted=CASE WHEN excluded.demoted = 1 THEN 1 WHEN excluded.provenance = 'user' THEN 0 "
            "ELSE demoted END", values)
        return self._conn.execute(f"SELECT {', '.join(COLUMNS)} FROM plans WHERE dedupe = ?",
                                  (values[0],)).fetchone()

    def invalidate(self, domain: str, keep_version: str) -> int:
        """Drop the domain's entries built against another KG version; returns how many were dropped."""
        with self._lock:
            self._sync()
            with self._write():
                self._flush_touches()
                ids = [r[0] for r in self._conn.execute(
                    "SELECT id FROM plans WHERE domain = ? AND kg_version != ?", (domain, keep_version))]
                self._conn.executemany("DELETE FROM plans WHERE id = ?", [(i,) for i in ids])
            self._unindex(ids)
            self._sync()
            return len(ids)

    def demote(self, ids: Iterable[int]) -> list[PlanEntry]:
        """Demote entries (a user's thumbs down): each stays in the file as a tombstone with ``demoted = 1``,
        so re-learning the same plan (same question, domain and Cypher) online or in a pre-warm run keeps it
        demoted, but leaves every bucket: it is never again an MMR/BM25 exemplar nor a reusable template.
        A later thumbs up on the same plan (:meth:`add` with provenance "user") lifts the demotion. Returns the
        entries demoted by this call (those already demoted or gone are skipped)."""
        ids = sorted({int(i) for i in ids})
        with self._lock:
            self._sync()
            with self._write():
                self._flush_touches()
                done = [i for i in ids if (row := self._conn.execute(
                    "SELECT demoted FROM plans WHERE id = ?", (i,)).fetchone()) is not None and not row[0]]
                self._conn.executemany("UPDATE plans SET demoted = 1 WHERE id = ?", [(i,) for i in done])
                if done:
                    self._bump_generation()
            out = []
            for i in done:
                e = self._entries.get(i)
                if e is not None:
                    self._unindex([i])
                    e.demoted = True
                    self._index(e)
                    out.append(e)
            self._sync()
            return out

    def purge(self, ids: Iterable[int] | None = None, *, domain: str | None = None, provenance: str | None = None,
              demoted: bool | None = None, stale_code: bool = False) -> list[PlanEntry]:
        """Delete the entries matching every filter given (``ids``; ``domain``; ``provenance``; demoted or
        not; ``stale_code``: verified by other compiler code than this cache's ``code_version``) and return
        them. With no filter at all nothing is deleted (use :meth:`clear`). A purged plan is gone: the
        pipeline may learn it again, which a demotion would prevent."""
        if ids is None and domain is None and provenance is None and demoted is None and not stale_code:
            return []
        want = None if ids is None else {int(i) for i in ids}
        with self._lock:
            self._sync()
            gone = [e for e in self._entries.values()
                    if (want is None or e.id in want) and (domain is None or e.domain == domain)
                    and (provenance is None or e.provenance == provenance)
                    and (demoted is None or e.demoted == demoted)
                    and (not stale_code or e.code_version != self.code_version)]
            if not gone:
                return []
            with self._write():
                self._flush_touches()
                self._conn.executemany("DELETE FROM plans WHERE id = ?", [(e.id,) for e in gone])
                self._bump_generation()
            self._unindex([e.id for e in gone])
            self.counters["purged"] += len(gone)
            self._sync()
            return gone

    def clear(self) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM plans")
            self._touched.clear()
            self._reload()

    # -- reading -------------------------------------------------------------------------------------
    def __len__(self) -> int:
        with self._lock:
            self._sync()
            return len(self._entries)

    def __bool__(self) -> bool:
        """Always true: an empty cache is still a cache (``cache or default()`` must keep it)."""
        return True

    def get(self, entry_id: int) -> PlanEntry | None:
        with self._lock:
            self._sync()
            return self._entries.get(entry_id)

    def entries(self, domain: str | None = None) -> list[PlanEntry]:
        """Every stored entry of ``domain`` (all domains when None), demoted ones included."""
        with self._lock:
            self._sync()
            return [e for e in self._entries.values() if domain is None or e.domain == domain]

    def with_cypher(self, domain: str, cypher: str) -> list[PlanEntry]:
        """The entries of ``domain`` whose Cypher is ``cypher`` (whitespace aside), demoted ones included."""
        want = " ".join(cypher.split())
        return [e for e in self.entries(domain) if " ".join(e.cypher.split()) == want]

    def _touch(self, entries: list[PlanEntry]) -> None:
        now = time.time()
        for e in entries:
            e.last_used, e.hits = now, e.hits + 1
            _, extra = self._touched.get(e.id, (0.0, 0))
            self._touched[e.id] = (now, extra + 1)
        if len(self._touched) >= _FLUSH_MAX or (max(self.bound, self.domain_bound) > 0 and time.monotonic() - self._last_flush > _FLUSH_EVERY_S):
            try:
                self.flush()
            except sqlite3.OperationalError:  # a busy writer elsewhere: keep the touches for later
                pass

    # -- figures ----------------------------------------------------------------------------------------
    def size_bytes(self) -> int:
        """Bytes of stored entry payloads (text and JSON columns): what bounded mode saves."""
        with self._lock:
            n, = self._conn.execute(
                "SELECT coalesce(sum(length(question) + length(isr) + length(cypher) + length(operators) + "
                "length(answer) + length(domain) + length(aspect) + length(kg_version) + "
                "coalesce(length(template), 0)), 0) FROM plans").fetchone()
            return int(n)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            self._sync()
            buckets = {d: {a: len(b.ids) for a, b in dom.items() if a != ALL} for d, dom in self._buckets.items()}
            provenance = {p: 0 for p in PROVENANCES}
            for e in self._entries.values():
                provenance[e.provenance] = provenance.get(e.provenance, 0) + 1
            return {"entries": len(self._entries), "buckets": buckets,
                    "templates": sum(1 for e in self._entries.values() if e.template and not e.demoted),
                    "demoted": sum(1 for e in self._entries.values() if e.demoted), "provenance": provenance,
                    "stale_code": sum(1 for e in self._entries.values()
                                      if self.code_version and e.code_version != self.code_version),
                    "bound": self.bound, "domain_bound": self.domain_bound, "size_bytes": self.size_bytes(),
                    **self.counters}
