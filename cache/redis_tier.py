"""A shared answer-cache tier in Redis, in front of which each process keeps its in-process cache.

:class:`TieredAnswerCache` has the :class:`~kgqa.cache.answer_cache.AnswerCache` API. A lookup asks the
process's own LRU first, then Redis; a Redis hit is copied into the LRU. A put goes to both. Entries in
Redis are stored exactly as the LRU stores them (pruned rows, zlib-ng with the key-primed dictionary:
:meth:`AnswerCache.pack`), expire after ``ttl_s``, and are keyed by domain, KG version and the normalized
question, so a rebuilt graph never gets an old answer; :meth:`invalidate` also deletes the other versions'
keys. Hits, misses and puts of every worker are counted in one Redis hash, so ``stats()`` (``/cache/stats``,
``/metrics``) is the whole service's. A lookup does not wait for its count: counts are added to the hash by
a thread of each process, batched while one write is in flight (a hit served from the process's LRU makes
no Redis round trip; another process's counts reach the hash within that write's time, and ``stats()``
writes its own process's first).

When Redis is down or slow (connect timeout 0.2 s, command timeout 0.5 s) the request goes on with the
in-process cache alone; the tier is retried after ``retry_s``; ``health()`` says so. No request fails
because of Redis.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import Counter
from typing import Any

from kgqa.cache.answer_cache import AnswerCache, normalize_question

PREFIX = "kgqa:answer:"
STATS_KEY = "kgqa:answer-stats"


class TieredAnswerCache:
    """The process's :class:`AnswerCache` backed by a shared Redis tier (see the module doc)."""

    def __init__(self, local: AnswerCache, url: str, *, ttl_s: int = 86400, retry_s: float = 5.0,
                 namespace: str = ""):
        import redis

        self.local, self.url, self.ttl_s, self.retry_s = local, url, int(ttl_s), retry_s
        self.prefix = PREFIX + (namespace + ":" if namespace else "")
        self.stats_key = STATS_KEY + (":" + namespace if namespace else "")
        self.redis = redis.Redis.from_url(url, socket_connect_timeout=0.2, socket_timeout=0.5,
                                          health_check_interval=0)
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._last_error = ""
        self._failures = 0
        self._pending: Counter[str] = Counter()  # counts not yet in the shared hash
        self._counted = threading.Condition()
        self._writing = threading.Lock()
        self._counter_pid = 0  # the process whose counter thread runs (none crosses a fork)

    # -- the Redis side, never raising -----------------------------------------------------------------
    def _call(self, fn, default=None):
        """Returns ``fn()`` (a Redis command), or ``default`` while the tier is down (retried every
        ``retry_s``)."""
        import redis

        with self._lock:
            if self._down_since is not None and time.monotonic() - self._down_since < self.retry_s:
                return default
        try:
            out = fn()
        except (redis.RedisError, OSError) as err:
            with self._lock:
                self._down_since = time.monotonic()
                self._last_error = f"{type(err).__name__}: {err}"
                self._failures += 1
            return default
        with self._lock:
            self._down_since = None
        return out

    def rkey(self, question: str, domain: str | None, kg_version: str | None) -> str:
        """Returns the Redis key of an entry: prefix, domain, KG version, hash of the normalized question."""
        digest = hashlib.sha256(normalize_question(question).encode()).hexdigest()[:32]
        return f"{self.prefix}{domain or ''}:{kg_version or ''}:{digest}"

    def _count(self, field: str) -> None:
        """Adds one to ``field`` of the shared counts, written by this process's counter thread."""
        with self._counted:
            self._pending[field] += 1
            if self._counter_pid != os.getpid():
                self._counter_pid = os.getpid()
                threading.Thread(target=self._count_loop, name="kgqa-answer-counts", daemon=True).start()
            self._counted.notify()

    def _count_loop(self) -> None:
        while True:
            with self._counted:
                self._counted.wait_for(lambda: self._pending)
            self.flush_counts()

    def flush_counts(self) -> None:
        """Writes this process's pending counts to the shared hash (dropped while the tier is down)."""
        with self._writing:  # a caller returns after any write in flight (stats() then reads all of ours)
            with self._counted:
                counts, self._pending = self._pending, Counter()
            if counts:
                def write() -> None:
                    pipe = self.redis.pipeline(transaction=False)
                    for field, n in counts.items():
                        pipe.hincrby(self.stats_key, field, n)
                    pipe.execute()
                self._call(write)

    # -- AnswerCache API ---------------------------------------------------------------------------------
    def get(self, question: str, domain: str | None, kg_version: str | None) -> dict | None:
        """Returns the cached result dict (this process's LRU, then Redis), or None."""
        hit = self.local.get(question, domain, kg_version)
        if hit is not None:
            self._count("hits")
            return hit
        data = self._call(lambda: self.redis.get(self.rkey(question, domain, kg_version)))
        if data is None:
            self._count("misses")
            return None
        value = self.local.unpack(question, domain, kg_version, data)
        self._count("hits")
        self._count("shared_hits")
        self.local.put(question, domain, kg_version, value)
        return self.local.peek(question, domain, kg_version) or value

    def put(self, question: str, domain: str | None, kg_version: str | None, value: dict) -> bool:
        """Stores ``value`` in this process's LRU and in Redis (with the TTL); False when too large."""
        ok = self.local.put(question, domain, kg_version, value)
        if ok:
            data = self.local.pack(question, domain, kg_version, value)
            key = self.rkey(question, domain, kg_version)
            self._call(lambda: self.redis.pipeline(transaction=False).set(key, data, ex=self.ttl_s)
                       .hincrby(self.stats_key, "puts", 1).execute())
        return ok

    def peek(self, question: str, domain: str | None, kg_version: str | None) -> dict | None:
        """Returns the stored result for this key without counting (LRU, then Redis)."""
        hit = self.local.peek(question, domain, kg_version)
        if hit is not None:
            return hit
        data = self._call(lambda: self.redis.get(self.rkey(question, domain, kg_version)))
        return None if data is None else self.local.unpack(question, domain, kg_version, data)

    def discard(self, question: str, domain: str | None, kg_version: str | None) -> bool:
        """Forgets the answer in this process and in Redis; True when either had it."""
        here = self.local.discard(question, domain, kg_version)
        there = self._call(lambda: self.redis.delete(self.rkey(question, domain, kg_version)), 0)
        return bool(here or there)

    def invalidate(self, domain: str | None = None, keep_version: str | None = None) -> int:
        """Drops entries of ``domain`` (all when None) of any KG version but ``keep_version``, here and in
        Redis; returns how many."""
        n = self.local.invalidate(domain, keep_version)
        pattern = f"{self.prefix}{domain}:*" if domain else f"{self.prefix}*"
        keep = f"{self.prefix}{domain}:{keep_version or ''}:" if domain else None

        def drop() -> int:
            gone = 0
            for key in self.redis.scan_iter(match=pattern, count=1000):
                text = key.decode() if isinstance(key, bytes) else key
                if keep is not None and text.startswith(keep):
                    continue
                if keep is None and keep_version and text.split(":")[-2] == keep_version:
                    continue
                gone += self.redis.delete(key)
            return gone
        return n + (self._call(drop, 0) or 0)

    def clear(self) -> None:
        """Empties this process's LRU and the shared tier (its keys and counters)."""
        self.local.clear()

        def wipe() -> None:
            for key in self.redis.scan_iter(match=f"{self.prefix}*", count=1000):
                self.redis.delete(key)
            self.redis.delete(self.stats_key)
        self._call(wipe)

    def shared_keys(self) -> list[str]:
        """Returns the entry keys in Redis (sorted), [] while it is down."""
        keys = self._call(lambda: [k.decode() for k in self.redis.scan_iter(match=f"{self.prefix}*", count=1000)], [])
        return sorted(keys)

    def keys(self) -> list[tuple[str, str, str]]:
        return self.local.keys()

    def __len__(self) -> int:
        return len(self.local)

    def __bool__(self) -> bool:
        return True

    def __contains__(self, key) -> bool:
        return key in self.local

    def save(self, path) -> int:
        return self.local.save(path)

    def load(self, path) -> int:
        return self.local.load(path)

    # -- health and stats --------------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        """Returns the tier's state: ``{"redis": "up"|"down", "url", "error", "failures"}`` (pings when it
        was down and the retry time has passed)."""
        self._call(self.redis.ping)
        with self._lock:
            up = self._down_since is None
            return {"redis": "up" if up else "down", "url": _redact(self.url), "failures": self._failures,
                    **({} if up else {"error": self._last_error,
                                      "fallback": "in-process answer cache only"})}

    def stats(self) -> dict[str, Any]:
        """Returns this process's LRU stats plus the shared tier's: entries in Redis and hits, misses and
        puts counted by every worker (``shared``)."""
        out = dict(self.local.stats())
        out["process"] = {k: out[k] for k in ("entries", "hits", "misses", "puts", "stored_bytes") if k in out}
        out["process"]["pid"] = os.getpid()
        self.flush_counts()

        def shared() -> dict[str, Any]:
            counts = {k.decode(): int(v) for k, v in self.redis.hgetall(self.stats_key).items()}
            entries = sum(1 for _ in self.redis.scan_iter(match=f"{self.prefix}*", count=1000))
            lookups = counts.get("hits", 0) + counts.get("misses", 0)
            return {"entries": entries, "hits": counts.get("hits", 0), "misses": counts.get("misses", 0),
                    "shared_hits": counts.get("shared_hits", 0), "puts": counts.get("puts", 0),
                    "hit_rate": round(counts.get("hits", 0) / lookups, 4) if lookups else 0.0,
                    "ttl_s": self.ttl_s}
        tier = self._call(shared)
        out["tier"] = self.health()
        if tier is not None:
            out["shared"] = tier
            for k in ("entries", "hits", "misses", "hit_rate"):
                out[k] = tier[k]  # the service's figures, across workers
        return out


def _redact(url: str) -> str:
    """Returns ``url`` without a password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
