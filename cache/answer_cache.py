"""The answer cache (paper 001 §2.4): an O(1) LRU of finished results, optionally memory-efficient.

Keys are the normalized question (case-folded outside quoted literals, whitespace collapsed, final
punctuation stripped) with the domain (the one asked for; routed questions have their own) and the KG version, so a rebuilt graph never serves stale answers. Values are result dicts
(``kgqa.types.Result.to_dict()``).

With ``prune_rows=N`` the row, candidate, attempt and subgraph context of a value is cut to its first N
items. With ``compress=True`` (the memory-efficient variant) a value is stored as JSON bytes, compressed
with zlib-ng only when the payload is at least ``compress_min_bytes`` long and compression saves at least 10%.
Deflate is primed with a preset dictionary (:data:`ZDICT`: the JSON shape of a result, its field names
and stock phrases, followed by the entry's own key: normalized question, domain, KG version), so a typical
1 KiB result compresses about as well as a large one.
``get`` reverses this transparently and marks pruned values with ``cache["rows_pruned"] = True``. The
cache is bounded by entries and by stored bytes, counts hits, misses and evictions, and takes one lock.

An optional semantic fallback (GRACE, paper 002) answers a miss with the cached question of the same
domain and KG version whose embedding is most similar, when the cosine reaches ``semantic_threshold``
(off by default: a near-identical question can still ask something else).
"""

from __future__ import annotations

import copy
import json
import os
import re
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.cache.templates import quoted_spans
from kgqa.jsonl import numbered_jsonl

_RAW, _JSON, _ZLIB = 0, 1, 2
_TRAIL = re.compile(r"[\s?.!,;:]+$")
CONTEXT_LIST_FIELDS = ("rows", "candidates", "attempts")
# deflate preset dictionary: what most results repeat (zlib reads it as if it preceded the value; nearer the
# end is cheaper to refer to). Only in-memory bytes depend on it: ``save`` writes plain JSON.
ZDICT = (
    b'"subgraph":{"nodes":{},"edges":[{"src":"","rel":"","dst":"","props":{}}]},"operators":["depth","breadth",'
    b'"vector_memory"],"evidence":"subgraph","evidence":"vector-memory","status":"refused","status":"error",'
    b'"answer":"None: the knowledge graph has no results matching the question.","semantic_hit":true,'
    b'"cypher":"MATCH (n)-[r]->(m) WHERE toLower() CONTAINS toLower() RETURN DISTINCT count(*) AS n ORDER BY '
    b'DESC LIMIT 10","candidates":[{"label":"","key":"","name":"","score":0.9,"prop":"title","source":"fuzzy"},'
    b'{"label":"","key":"","name":"","score":1.0,"prop":"name","source":"exact"}],"attempts":[{"cypher":"MATCH '
    b'(p:Person)-[:DIRECTED]->(m:Movie) WHERE m.title = $v0 RETURN DISTINCT p.name","origin":"template",'
    b'"origin":"compiler","error":null,"rows":0}],"subgraph":null,"evidence":"none","evidence":"rows",'
    b'"operators":[],"timings_ms":{"answer_cache":0.01,"parse_route":1.94,"link":3.96,"cache_retrieval":0.5,'
    b'"compile":15.01,"repair":8.65,"execute":3.96,"dispatch":0.03,"expansion":1.0,"summarize":0.03,'
    b'"vector_memory":2.0,"cache_update":0.5},"cache":{"answer_hit":false,"plan_hit":false,"llm_calls":0,'
    b'"exemplar_rels":[]},"error":null,"kg_version":"","isr":{"entity":"","constraints":[],"domain":"",'
    b'"aspect":"attribute","aspect":"aggregation","aspect":"relation","answer_type":null,"literals":[]},'
    b'{"question":"","domain":"","status":"dont_know","answer":"I don\'t know: the knowledge graph gave no '
    b'evidence that answers this question.","status":"answered","answer":"","cypher":"","columns":[],'
    b'"rows":[[""],[""]],')


def normalize_question(question: str) -> str:
    """Returns the question whitespace-collapsed, without final punctuation, and case-folded outside its
    quoted literals: a quoted literal is a query operand (``CONTAINS 'Ch'``) that the query compares as
    written, so "containing 'Ch'" and "containing 'ch'" are different keys, while "Who directed The Matrix"
    and "who directed the matrix" (linked case-insensitively) are one."""
    text = " ".join(question.split())
    out, pos = [], 0
    for a, b in quoted_spans(text):
        out += [text[pos:a].casefold(), text[a:b]]
        pos = b
    out.append(text[pos:].casefold())
    return _TRAIL.sub("", "".join(out))


@dataclass
class _Item:
    kind: int  # _RAW (a dict), _JSON (bytes) or _ZLIB (compressed bytes)
    payload: Any
    size: int  # bytes stored (JSON size for raw dicts)
    original: int  # JSON size before pruning and compression
    pruned: bool
    question: str
    vector: np.ndarray | None = None


class AnswerCache:
    """Thread-safe LRU of result dicts, bounded by entries and bytes."""

    def __init__(self, max_entries: int = 4096, max_bytes: int = 64 * 1024 * 1024, *, prune_rows: int = 0,
                 compress_min_bytes: int = 512, compress: bool = False, semantic_threshold: float = 0.0,
                 min_saving: float = 0.10, level: int = 6):
        self.max_entries, self.max_bytes = int(max_entries), int(max_bytes)
        self.prune_rows, self.compress_min_bytes, self.compress = int(prune_rows), int(compress_min_bytes), compress
        self.semantic_threshold, self.min_saving, self.level = float(semantic_threshold), min_saving, level
        self._data: OrderedDict[tuple[str, str, str], _Item] = OrderedDict()
        self._lock = threading.Lock()
        self._bytes = 0
        self._counts = {"hits": 0, "semantic_hits": 0, "misses": 0, "evictions": 0, "puts": 0}

    @staticmethod
    def key(question: str, domain: str | None, kg_version: str | None) -> tuple[str, str, str]:
        return normalize_question(question), domain or "", kg_version or ""

    # -- encode / decode ---------------------------------------------------------------------------------
    @staticmethod
    def _zdict(k: tuple[str, str, str]) -> bytes:
        """:data:`ZDICT` followed by the entry's key, which its value repeats (question, domain, version)."""
        q, domain, version = k
        return ZDICT + f'"domain":"{domain}","kg_version":"{version}","question":"{q}'.encode()

    def _encode(self, value: dict, k: tuple[str, str, str]) -> _Item:
        question = k[0]
        raw = json.dumps(value, default=str, separators=(",", ":")).encode()
        pruned = False
        if self.prune_rows > 0:
            value, pruned = prune(value, self.prune_rows)
        if not self.compress:
            size = len(json.dumps(value, default=str, separators=(",", ":")).encode()) if pruned else len(raw)
            return _Item(_RAW, copy.deepcopy(value), size, len(raw), pruned, question)
        data = json.dumps(value, default=str, separators=(",", ":")).encode() if pruned else raw
        if len(data) >= self.compress_min_bytes:
            from zlib_ng import zlib_ng

            packer = zlib_ng.compressobj(self.level, zlib_ng.DEFLATED, 15, 9, zlib_ng.Z_DEFAULT_STRATEGY,
                                         self._zdict(k))
            packed = packer.compress(data) + packer.flush()
            if len(packed) <= (1.0 - self.min_saving) * len(data):
                return _Item(_ZLIB, packed, len(packed), len(raw), pruned, question)
        return _Item(_JSON, data, len(data), len(raw), pruned, question)

    @classmethod
    def _decode(cls, item: _Item, k: tuple[str, str, str]) -> dict:
        if item.kind == _RAW:
            return copy.deepcopy(item.payload)
        data = item.payload
        if item.kind == _ZLIB:
            from zlib_ng import zlib_ng

            unpacker = zlib_ng.decompressobj(15, cls._zdict(k))
            data = unpacker.decompress(data) + unpacker.flush()
        return json.loads(data)

    # -- the stored form, for a shared tier -------------------------------------------------------------
    def pack(self, question: str, domain: str | None, kg_version: str | None, value: dict) -> bytes:
        """Returns ``value`` as this cache stores it (pruned, compressed with the key-primed dictionary),
        as bytes another process decodes with :meth:`unpack`."""
        k = self.key(question, domain, kg_version)
        item = self._encode(value, k)
        body = json.dumps(item.payload, default=str).encode() if item.kind == _RAW else item.payload
        return bytes([item.kind, int(item.pruned)]) + body

    def unpack(self, question: str, domain: str | None, kg_version: str | None, data: bytes) -> dict:
        """Returns the result dict packed by :meth:`pack` (a pruned one marked ``rows_pruned``)."""
        k = self.key(question, domain, kg_version)
        kind, pruned = data[0], bool(data[1])
        payload = json.loads(data[2:]) if kind == _RAW else bytes(data[2:])
        item = _Item(kind, payload, len(data), len(data), pruned, k[0])
        return self._mark(self._decode(item, k), item, semantic=False)

    # -- API -----------------------------------------------------------------------------------------
    def get(self, question: str, domain: str | None, kg_version: str | None) -> dict | None:
        """The cached result dict, or ``None``; a pruned value has ``cache["rows_pruned"] = True``."""
        k = self.key(question, domain, kg_version)
        with self._lock:
            item = self._data.get(k)
            if item is not None:
                self._data.move_to_end(k)
                self._counts["hits"] += 1
                return self._mark(self._decode(item, k), item, semantic=False)
        if self.semantic_threshold > 0:
            hit = self._semantic(k)
            if hit is not None:
                return hit
        with self._lock:
            self._counts["misses"] += 1
        return None

    def _mark(self, value: dict, item: _Item, *, semantic: bool) -> dict:
        cache = value.get("cache")
        if isinstance(cache, dict):
            cache = dict(cache)
            if item.pruned:
                cache["rows_pruned"] = True
            if semantic:
                cache["semantic_hit"] = True
                cache["semantic_question"] = item.question
            value["cache"] = cache
        elif item.pruned or semantic:
            value["cache"] = {"rows_pruned": item.pruned, **({"semantic_hit": True} if semantic else {})}
        return value

    def _semantic(self, k: tuple[str, str, str]) -> dict | None:
        with self._lock:
            pool = [(key, it) for key, it in self._data.items() if key[1:] == k[1:]]
        if not pool:
            return None
        from kgqa.kg.embed import embed

        missing = [it for _, it in pool if it.vector is None]
        if missing:
            vecs = embed([it.question for it in missing])
            for it, v in zip(missing, vecs):
                it.vector = v
        q = embed([k[0]])[0]
        sims = np.stack([it.vector for _, it in pool]) @ q
        best = int(np.argmax(sims))
        if float(sims[best]) < self.semantic_threshold:
            return None
        key, item = pool[best]
        with self._lock:
            if self._data.get(key) is not item:
                return None
            self._data.move_to_end(key)
            self._counts["semantic_hits"] += 1
            value = self._decode(item, key)
        return self._mark(value, item, semantic=True)

    def put(self, question: str, domain: str | None, kg_version: str | None, value: dict) -> bool:
        """Store ``value``; returns False when it alone exceeds ``max_bytes`` (not cached)."""
        k = self.key(question, domain, kg_version)
        item = self._encode(value, k)
        if item.size > self.max_bytes or self.max_entries <= 0:
            return False
        with self._lock:
            old = self._data.pop(k, None)
            if old is not None:
                self._bytes -= old.size
            self._data[k] = item
            self._bytes += item.size
            self._counts["puts"] += 1
            while len(self._data) > self.max_entries or self._bytes > self.max_bytes:
                _, gone = self._data.popitem(last=False)
                self._bytes -= gone.size
                self._counts["evictions"] += 1
        return True

    def peek(self, question: str, domain: str | None, kg_version: str | None) -> dict | None:
        """The stored result for exactly this key (no semantic fallback), without counting a hit or a miss
        and without refreshing its LRU position: what the service answered, for feedback."""
        k = self.key(question, domain, kg_version)
        with self._lock:
            item = self._data.get(k)
            return None if item is None else self._mark(self._decode(item, k), item, semantic=False)

    def discard(self, question: str, domain: str | None, kg_version: str | None) -> bool:
        """Forget the answer stored for this key (a thumbs down); True when there was one."""
        k = self.key(question, domain, kg_version)
        with self._lock:
            item = self._data.pop(k, None)
            if item is None:
                return False
            self._bytes -= item.size
            return True

    def invalidate(self, domain: str | None = None, keep_version: str | None = None) -> int:
        """Drop entries of ``domain`` (all domains when None) whose KG version is not ``keep_version``."""
        with self._lock:
            drop = [k for k in self._data if (domain is None or k[1] == domain) and k[2] != (keep_version or "")]
            for k in drop:
                self._bytes -= self._data.pop(k).size
            return len(drop)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._data)

    def __bool__(self) -> bool:
        """Always true: an empty cache is still a cache (``cache or default()`` must keep it)."""
        return True

    def __contains__(self, key: tuple[str, str | None, str | None]) -> bool:
        return self.key(*key) in self._data

    def keys(self) -> list[tuple[str, str, str]]:
        """Keys from least to most recently used."""
        with self._lock:
            return list(self._data)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            original = sum(it.original for it in self._data.values())
            stored = self._bytes
            lookups = self._counts["hits"] + self._counts["semantic_hits"] + self._counts["misses"]
            return {
                "entries": len(self._data), "max_entries": self.max_entries, "max_bytes": self.max_bytes,
                "original_bytes": original, "stored_bytes": stored,
                "ratio": round(stored / original, 4) if original else 1.0,
                "saved_pct": round(100.0 * (1 - stored / original), 2) if original else 0.0,
                "pruned": sum(1 for it in self._data.values() if it.pruned),
                "compressed": sum(1 for it in self._data.values() if it.kind == _ZLIB),
                "hit_rate": round((self._counts["hits"] + self._counts["semantic_hits"]) / lookups, 4)
                if lookups else 0.0,
                "memory_efficient": self.compress, **self._counts,
            }

    # -- persistence -------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> int:
        """Write the entries (LRU order kept) to ``path`` atomically as JSON lines; returns the count."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            items = [(k, self._mark(self._decode(it, k), it, semantic=False), it.pruned) for k, it in self._data.items()]
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                for (q, d, v), value, pruned in items:
                    fh.write(json.dumps({"q": q, "d": d, "v": v, "pruned": pruned, "value": value},
                                        default=str) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return len(items)

    def load(self, path: str | Path) -> int:
        """Add the entries of a file written by :meth:`save` (missing file: 0)."""
        path = Path(path)
        if not path.exists():
            return 0
        n = 0
        for _, rec in numbered_jsonl(path):
            if self.put(rec["q"], rec["d"] or None, rec["v"] or None, rec["value"]):
                n += 1
        return n


def prune(value: dict, n: int) -> tuple[dict, bool]:
    """A copy of ``value`` with rows, candidates, attempts and the subgraph cut to ``n`` items."""
    out, pruned = dict(value), False
    for name in CONTEXT_LIST_FIELDS:
        items = out.get(name)
        if isinstance(items, list) and len(items) > n:
            out[name], pruned = items[:n], True
    sub = out.get("subgraph")
    if isinstance(sub, dict):
        sub = dict(sub)
        nodes, edges = sub.get("nodes"), sub.get("edges")
        if isinstance(nodes, dict) and len(nodes) > n:
            sub["nodes"], pruned = dict(list(nodes.items())[:n]), True
        if isinstance(edges, list) and len(edges) > n:
            sub["edges"], pruned = edges[:n], True
        out["subgraph"] = sub
    if pruned:
        out["rows_total"] = len(value.get("rows") or [])
    return out, pruned
