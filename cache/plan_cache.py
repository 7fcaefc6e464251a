"""The plan cache (CacheRAG §4.2): verified plans indexed Domain -> Aspect, retrieved with MMR.

Entries live in one SQLite file (WAL mode, no pickles: JSON columns), so a pre-warm job can write while
a server reads. Each :class:`PlanCache` keeps an in-memory two-layer index ``C[domain][aspect]`` (plus a
``C[domain]["*"]`` bucket for the relaxation of Algorithm 2) and, before every retrieval, compares
``PRAGMA data_version`` with the last value seen: when another connection committed, new rows are read
(and the index rebuilt if rows were deleted), so readers see other processes' entries without a restart.

Similarity. ``sim="bm25"`` (the paper's default) scores the bucket with BM25 (rank-bm25's Okapi
variant, tokenized lower-cased questions without stop words). Raw BM25 is unbounded, so relevance is
normalized per query to [0, 1] by dividing by the best score in the bucket. Candidate-to-candidate
similarity uses the same BM25 weights: ``B[j, k]`` is the score of question ``k`` used as a query
against question ``j``; ``Sim(j, k) = (B[j, k] + B[k, j]) / 2 / sqrt(B[j, j] B[k, k])``, clipped to [0, 1]
(1 for near duplicates, 0 for questions sharing no token). ``sim="embedding"`` uses cosine similarity of
``kg.embed`` vectors, clipped at 0. MMR (Algorithm 2) then runs over the ``pool`` most relevant entries
of the bucket: ``argmax_j λ·Sim(q, Q_j) − (1−λ)·max_{k∈S} Sim(Q_j, Q_k)``.

Per-bucket BM25 weights are kept as a sparse matrix and rebuilt lazily, only for buckets that changed.
Bounded mode keeps at most ``bound`` entries per (domain, aspect) bucket and evicts the least recently
used (``last_used`` is refreshed by retrieval; touches are flushed to the file in batches).

Provenance and demotion. Every entry records where it came from: ``"prewarm"`` (the offline job),
``"online"`` (learned by the pipeline while answering; also what older files' entries count as) or ``"user"``
(a thumbs up, ``kgqa.planner.feedback``). A thumbs down *demotes* rather than deletes: the row stays with
``demoted = 1`` but leaves every bucket, so it is never retrieved as an exemplar nor filled as a template. A
deleted plan would come straight back, since the compiler produces the same Cypher for the same question
and the pipeline would learn it again; a demoted row keeps its dedupe key, and re-learning it (online or
pre-warm) leaves it demoted. Only a user's thumbs up on the same plan lifts the demotion. A demoted
(question, Cypher) pair also blocks template reuse for that question: :meth:`PlanCache.reuse` skips a
template whose fill would give that question that Cypher again, while the template still serves the other
questions it fits (its own answer was not voted down). Demoted rows do not
count toward the bounded mode's per-bucket limit. Files written before these columns existed are migrated
on open (``ALTER TABLE ... ADD COLUMN`` with defaults). Demotions change no row id, so a counter in the
``plan_meta`` table tells other connections to rebuild their index.

Size: one class and its in-memory index (BM25 buckets, MMR, the SQLite file, bounded LRU) are one
concept that shares a lock; the template filling it uses lives in :mod:`kgqa.cache.templates`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from kgqa.kg.cypher import inline_params
from kgqa.text import STOPWORDS, fold

DB_NAME = "plan_cache.sqlite"
ALL = "*"
_TOKEN = re.compile(r"[\w']+")
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
_COLUMNS = ("id", "question", "isr", "cypher", "operators", "answer", "domain", "aspect", "verified_at",
            "kg_version", "template", "last_used", "hits", "provenance", "demoted", "code_version")
PROVENANCES = ("prewarm", "online", "user")
_GENERATION = "flags_generation"  # plan_meta key: bumped whenever a stored entry's demotion/provenance changes


def tokenize(text: str) -> list[str]:
    """Returns the case-folded word tokens of ``text`` without :data:`kgqa.text.STOPWORDS` (the BM25
    vocabulary)."""
    return [t for t in _TOKEN.findall(text.casefold()) if t not in STOPWORDS]


def normalize_question(text: str) -> str:
    return re.sub(r"[\s?.!]+$", "", " ".join(text.casefold().split()))


@dataclass
class PlanEntry:
    """One verified plan: question, ISR, Cypher, operators used, the answer, and where it is indexed."""

    question: str
    cypher: str
    domain: str
    aspect: str = "general"
    isr: dict[str, Any] = field(default_factory=dict)
    operators: list[str] = field(default_factory=list)
    answer: str = ""
    kg_version: str = ""
    template: dict[str, Any] | None = None
    verified_at: float = field(default_factory=time.time)
    last_used: float = 0.0
    hits: int = 0
    provenance: str = "online"  # "prewarm" (autogen job), "online" (learned while answering), "user" (thumbs up)
    demoted: bool = False  # thumbs down: kept as a tombstone, never reused as a template nor an exemplar
    code_version: str = ""  # the compiler code that verified it ("" = unknown); templates of other code are not reused
    id: int | None = None

    def dedupe_key(self) -> str:
        text = "\x1f".join(self.block_key())
        return hashlib.sha1(text.encode()).hexdigest()

    def block_key(self) -> tuple[str, str, str]:
        """(normalized question, domain, Cypher without extra whitespace): what makes an entry unique."""
        return normalize_question(self.question), self.domain, " ".join(self.cypher.split())

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def _from_row(cls, row: tuple) -> PlanEntry:
        r = dict(zip(_COLUMNS, row))
        return cls(question=r["question"], cypher=r["cypher"], domain=r["domain"], aspect=r["aspect"],
                   isr=json.loads(r["isr"]), operators=json.loads(r["operators"]), answer=r["answer"],
                   kg_version=r["kg_version"], template=json.loads(r["template"]) if r["template"] else None,
                   verified_at=r["verified_at"], last_used=r["last_used"], hits=r["hits"],
                   provenance=r["provenance"], demoted=bool(r["demoted"]), code_version=r["code_version"] or "",
                   id=r["id"])


class _Bucket:
    """Entry ids of one bucket with lazily built BM25 weights (and embeddings)."""

    __slots__ = ("ids", "dirty", "weights", "counts", "vocab", "emb")

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.dirty = True
        self.weights = None  # csr (n_docs, vocab): BM25 term weight of each term in each doc
        self.counts = None  # csr (n_docs, vocab): term counts (docs used as queries)
        self.vocab: dict[str, int] = {}
        self.emb: np.ndarray | None = None

    def add(self, eid: int) -> None:
        self.ids.append(eid)
        self.dirty, self.emb = True, None

    def remove(self, eids: set[int]) -> None:
        self.ids = [i for i in self.ids if i not in eids]
        self.dirty, self.emb = True, None

    def build(self, tokens: list[list[str]]) -> None:
        """BM25Okapi (rank-bm25) over the bucket, kept as a sparse weight matrix for fast scoring."""
        from rank_bm25 import BM25Okapi

        docs = [t if t else ["\x00"] for t in tokens]  # rank-bm25 needs non-empty documents
        bm = BM25Okapi(docs)
        vocab: dict[str, int] = {}
        rows, cols, w, c = [], [], [], []
        k1, b, avgdl = bm.k1, bm.b, bm.avgdl or 1.0
        for i, (freqs, dl) in enumerate(zip(bm.doc_freqs, bm.doc_len)):
            norm = k1 * (1 - b + b * dl / avgdl)
            for term, tf in freqs.items():
                j = vocab.setdefault(term, len(vocab))
                rows.append(i)
                cols.append(j)
                c.append(tf)
                w.append(bm.idf.get(term, 0.0) * tf * (k1 + 1) / (tf + norm))
        shape = (len(docs), max(1, len(vocab)))
        self.weights = sparse.csr_matrix((w, (rows, cols)), shape=shape, dtype=np.float64)
        self.counts = sparse.csr_matrix((c, (rows, cols)), shape=shape, dtype=np.float64)
        self.vocab, self.dirty = vocab, False

    def query_vector(self, tokens: list[str]) -> np.ndarray:
        q = np.zeros(self.weights.shape[1])
        for t in tokens:
            j = self.vocab.get(t)
            if j is not None:
                q[j] += 1.0
        return q


class PlanCache:
    """Persistent, multi-process plan cache with a Domain -> Aspect index and MMR retrieval."""

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
        self._buckets: dict[str, dict[str, _Bucket]] = {}
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
            for row in self._conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM plans ORDER BY id"):
                self._index(PlanEntry._from_row(row))

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
        new = [PlanEntry._from_row(r) for r in self._conn.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM plans WHERE id > ? ORDER BY id", (self._max_id,))]
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
        dom.setdefault(e.aspect, _Bucket()).add(e.id)
        dom.setdefault(ALL, _Bucket()).add(e.id)

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

    def __enter__(self) -> PlanCache:
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
                    for d in dict.fromkeys(r[_COLUMNS.index("domain")] for r in rows):
                        evicted += [r[0] for r in self._conn.execute(
                            "SELECT id FROM plans WHERE domain = ? AND demoted = 0 "
                            "ORDER BY last_used DESC, id DESC LIMIT -1 OFFSET ?", (d, self.domain_bound))]
                if self.bound > 0:
                    # demoted entries are tombstones: they neither count toward the bound nor get evicted
                    for d, a in dict.fromkeys((r[_COLUMNS.index("domain")], r[_COLUMNS.index("aspect")])
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
            stored = [PlanEntry._from_row(r) for r in rows]
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
        return self._conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM plans WHERE dedupe = ?",
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

    def _bucket(self, domain: str, aspect: str | None, k: int) -> _Bucket | None:
        """``C[d][a]``, relaxed to ``C[d][*]`` when it holds fewer than ``k`` entries (Algorithm 2)."""
        dom = self._buckets.get(domain)
        if not dom:
            return None
        bucket = dom.get(aspect) if aspect not in (None, ALL) else None
        if bucket is None or len(bucket.ids) < k:
            bucket = dom.get(ALL)
        return bucket

    def _relevance(self, bucket: _Bucket, question: str, sim: str) -> np.ndarray:
        if sim == "bm25":
            if bucket.dirty:
                bucket.build([self._tokens[i] for i in bucket.ids])
            raw = bucket.weights @ bucket.query_vector(tokenize(question))
            top = raw.max() if raw.size else 0.0
            return raw / top if top > 0 else np.zeros_like(raw)
        if sim == "embedding":
            qv = _embed([question])[0]
            return np.clip(self._embeddings(bucket) @ qv, 0.0, 1.0)
        raise ValueError(f"unknown similarity {sim!r} (bm25 or embedding)")

    def _embeddings(self, bucket: _Bucket) -> np.ndarray:
        if bucket.emb is None:
            missing = [i for i in bucket.ids if i not in self._vectors]
            if missing:
                for i, v in zip(missing, _embed([self._entries[i].question for i in missing])):
                    self._vectors[i] = v
            bucket.emb = np.stack([self._vectors[i] for i in bucket.ids]) if bucket.ids else np.zeros((0, 384))
        return bucket.emb

    def _pairwise(self, bucket: _Bucket, idx: np.ndarray, sim: str) -> np.ndarray:
        """Sim(Q_j, Q_k) in [0, 1] among the pool's entries (see the module docstring)."""
        if sim == "embedding":
            e = self._embeddings(bucket)[idx]
            return np.clip(e @ e.T, 0.0, 1.0)
        w, c = bucket.weights[idx], bucket.counts[idx]
        b = (w @ c.T).toarray()  # b[j, k]: question k as the query, question j as the document
        sym = (b + b.T) / 2.0
        diag = np.sqrt(np.clip(np.diag(b), 1e-12, None))
        return np.clip(sym / np.outer(diag, diag), 0.0, 1.0)

    def _scored_bucket(self, question: str, domain: str, aspect: str | None, k: int, sim: str):
        """(bucket, relevance of each entry) for a retrieval, or (None, None) when there is nothing to rank.
        The caller holds the lock."""
        self._sync()
        self.counters["retrievals"] += 1
        bucket = self._bucket(domain, aspect, k)
        if bucket is None or not bucket.ids or k <= 0:
            return None, None
        return bucket, self._relevance(bucket, question, sim)

    def retrieve(self, question: str, domain: str, aspect: str | None = None, k: int = 5, lam: float = 0.5,
                 sim: str = "bm25", min_relevance: float = 0.0) -> list[PlanEntry]:
        """Up to ``k`` relevant and mutually diverse plans for ``question`` (MMR, Algorithm 2).

        Entries with normalized relevance below ``min_relevance`` are not considered (0 keeps all, as in
        the paper; a higher floor gives an empty context on a severe miss).
        """
        with self._lock:
            bucket, rel = self._scored_bucket(question, domain, aspect, k, sim)
            if bucket is None:
                return []
            idx = _top(rel, self.pool, min_relevance)
            if idx.size == 0:
                return []
            pair = self._pairwise(bucket, idx, sim)
            chosen = _mmr(rel[idx], pair, k, lam)
            out = [self._entries[bucket.ids[idx[c]]] for c in chosen]
            self._touch(out)
            return out

    def top_k_bm25(self, question: str, domain: str, aspect: str | None = None, k: int = 5,
                   sim: str = "bm25") -> list[PlanEntry]:
        """The ``k`` most relevant plans without diversity (the "w/o MMR" ablation)."""
        with self._lock:
            bucket, rel = self._scored_bucket(question, domain, aspect, k, sim)
            if bucket is None:
                return []
            idx = _top(rel, k, 0.0)
            out = [self._entries[bucket.ids[i]] for i in idx]
            self._touch(out)
            return out

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

    # -- pipeline hooks (duck-typed: the planner passes its Domain and Mention objects) --------------------
    def learn(self, question: str, isr, d, cypher: str, params: dict, r, *,
              provenance: str = "online") -> PlanEntry | None:
        """Store a verified plan from the pipeline, with its parameterized template (``provenance``:
        "online" when the pipeline learns it while answering, "user" for a thumbs up). Returns the stored
        entry, or None when the plan is not learned: a string constant of the query (a node name, a category,
        a CONTAINS operand) that no span of the question explains would be applied to every later question
        the template fits, so such a plan is refused (``counters["learn_refusals"]``)."""
        from kgqa.cache.templates import Binding, make_template

        spec = d.view.spec
        bindings = [Binding(c["name"], c["key"], c["label"], c.get("prop")) for c in (r.candidates or [])
                    if c.get("source") == "exact"]
        try:
            template = make_template(question, cypher, params, bindings=bindings, keys=spec.primary_keys,
                                     display=spec.display)
        except Exception:  # noqa: BLE001 - a plan without a template is still a good exemplar
            template = None
        if template is not None and template.unexplained:
            with self._lock:
                self.counters["learn_refusals"] += 1
            return None
        tpl = template.to_dict() if template is not None else None
        isr_d = isr.to_dict() if hasattr(isr, "to_dict") else dict(isr or {})
        return self.add(PlanEntry(question=question, cypher=r.cypher or cypher, domain=d.name,
                                  aspect=isr_d.get("aspect") or "general", isr=isr_d, operators=list(r.operators),
                                  answer=r.answer, kg_version=d.graph.version, template=tpl,
                                  provenance=provenance))

    def reuse(self, question: str, d, isr, mentions, *, candidates: int = 10) -> tuple[str, dict] | None:
        """(cypher, params) of a cached template this question fills exactly, else None.

        Only entries of the same domain, aspect and KG version (and compiler code, when this cache knows
        its ``code_version``) are tried; entity slots fill through the domain's entity index, category slots
        through the schema's exact value index."""
        found = self.reuse_entry(question, d, isr, mentions, candidates=candidates)
        return None if found is None else (found[1].cypher, found[1].params)

    def reuse_entry(self, question: str, d, isr, mentions, *, candidates: int = 10):
        """:meth:`reuse`, returning (entry, :class:`~kgqa.cache.templates.Fill`) or None: the caller learns
        which plan answered (to demote it when its result is contradicted)."""
        tried, found = self._reusable(question, d, isr, mentions, candidates)
        with self._lock:
            if found is None:
                if tried:
                    self.counters["reuse_refusals"] += 1
                return None
            self.counters["reuse_hits"] += 1
            self._touch([found[0]])  # only the plan actually reused counts as used (bounded LRU)
        return found

    def reusable(self, question: str, d, isr, mentions, *, candidates: int = 10):
        """(entry, :class:`~kgqa.cache.templates.Fill`) of the template :meth:`reuse` would fill for this
        question, else None; counts nothing and touches nothing (feedback asks which plan answered)."""
        return self._reusable(question, d, isr, mentions, candidates)[1]

    def _reusable(self, question: str, d, isr, mentions, candidates: int):
        """(whether the aspect bucket exists, (entry, fill) or None)."""
        from kgqa.cache.templates import PlanTemplate, Span, fill

        aspect = getattr(isr, "aspect", None) or "general"
        with self._lock:
            self._sync()
            bucket = self._buckets.get(d.name, {}).get(aspect)
            if bucket is None:
                return False, None
            # the aspect bucket itself, never relaxed to C[d][*]: a small bucket's entries must not be
            # crowded out of the candidates by other aspects' entries that could not be used anyway
            rel = self._relevance(bucket, question, "bm25")
            ranked = [self._entries[bucket.ids[i]] for i in _top(rel, candidates, 0.0)]
            blocked = {c for q, dom, c in self._blocked if dom == d.name and q == normalize_question(question)}
        ranked = [e for e in ranked if e.template and e.kg_version == d.graph.version
                  and (not self.code_version or e.code_version == self.code_version)]
        link = domain_linker(d, mentions)
        lookup = domain_lookup(d)
        spans = [Span(m.text, m.label) for m in mentions or [] if getattr(m, "label", None)]
        for e in ranked:
            f = fill(PlanTemplate.from_dict(e.template), question, link, lookup=lookup, spans=spans)
            if f is not None and blocked and " ".join(inline_params(f.cypher, f.params).split()) in blocked:
                continue  # this question's plan was voted down: no template may give it back
            if f is not None:
                return True, (e, f)
        return True, None


def domain_linker(d, mentions):
    """Returns ``link(text, label)`` for filling entity slots: the planner's exact mentions first, then the
    domain's entity index (``d`` is the planner's domain: ``view.spec``, ``index``)."""
    index = getattr(d, "index", None)
    spec = d.view.spec

    def link(text: str, label: str):
        from kgqa.types import EntityCandidate

        for m in mentions or []:  # exact value matches found by the planner's own linker
            if m.label == label and m.text.casefold() == text.casefold():
                key = m.value if m.prop == spec.primary_keys.get(label) else None
                name = m.value if m.prop == spec.display_prop(label) else None
                if key is not None or name is not None:
                    return [EntityCandidate(label, str(key if key is not None else name),
                                            str(name if name is not None else key), float(m.score), m.prop)]
        if index is None:
            return []
        return index.link(text, k=5, labels=[label])

    return link


def domain_lookup(d):
    """Returns ``lookup(label, prop, text)`` for filling category slots: the one value of the schema's exact
    value index that ``text`` names, else None."""
    values = getattr(d.view, "values", {}) or {}

    def lookup(label: str, prop: str, text: str):
        hits = {v for (lb, p, v) in values.get(fold(text), []) if lb == label and p == prop}
        return next(iter(hits)) if len(hits) == 1 else None

    return lookup


def _embed(texts: list[str]) -> np.ndarray:
    from kgqa.kg.embed import embed

    return embed(texts)


def _top(rel: np.ndarray, n: int, floor: float) -> np.ndarray:
    """Indices of the ``n`` highest relevances (>= floor), best first, ties by position."""
    cand = np.flatnonzero(rel >= floor) if floor > 0 else np.arange(rel.size)
    if cand.size > n:
        part = np.argpartition(-rel[cand], n - 1)[:n]
        cand = cand[part]
    order = np.lexsort((cand, -rel[cand]))
    return cand[order]


def _mmr(rel: np.ndarray, pair: np.ndarray, k: int, lam: float) -> list[int]:
    """Greedy MMR over a pool: positions chosen, in selection order."""
    n = rel.size
    chosen: list[int] = []
    max_sim = np.zeros(n)
    free = np.ones(n, dtype=bool)
    for _ in range(min(k, n)):
        score = lam * rel - (1.0 - lam) * max_sim
        score[~free] = -math.inf
        j = int(np.argmax(score))
        chosen.append(j)
        free[j] = False
        max_sim = np.maximum(max_sim, pair[:, j])
    return chosen
