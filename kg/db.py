"""Safe access to one embedded Kuzu graph: read-only serving, guarded queries, timeouts, row caps.

``Graph`` is the graph backend protocol's Kuzu engine (dialect and catalogue: :mod:`kgqa.kg.kuzu_engine`). Every query passes :func:`check_read_only`
before Kuzu sees it; serving connections additionally open the database read-only, so a query can never
modify the graph. Results come back as :class:`QueryResult` with plain Python values.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kuzu

from kgqa.kg.backend import Catalog
from kgqa.kg.kuzu_engine import KUZU, kuzu_catalog
from kgqa.kg.safety import UnsafeQueryError, check_read_only

DB_FILE = "graph.kuzu"
META_FILE = "meta.json"


class QueryError(RuntimeError):
    """Kuzu refused or failed the query; ``str(err)`` is Kuzu's own message (used for repair)."""


class QueryTimeout(QueryError):
    """The query ran past its timeout and was interrupted."""


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool = False  # True when the row cap cut the result
    elapsed_ms: float = 0.0


@dataclass
class GraphMeta:
    domain: str
    version: str  # content hash of the source data + loader version: the kg_version of caches
    node_counts: dict[str, int] = field(default_factory=dict)
    rel_counts: dict[str, int] = field(default_factory=dict)
    built_at: str = ""
    source: dict[str, Any] = field(default_factory=dict)  # where the graph came from (kgqa.kg.sources)
    database: str = ""  # an existing database registered in place (``kgqa load --kuzu``); "" = DB_FILE here
    notes: list[str] = field(default_factory=list)  # what the build sampled instead of reading in full

    def database_path(self, graph_dir: Path) -> Path:
        """Returns the Kuzu database of the graph in ``graph_dir``."""
        return Path(self.database) if self.database else Path(graph_dir) / DB_FILE

    @classmethod
    def read(cls, graph_dir: Path) -> GraphMeta:
        data = json.loads((Path(graph_dir) / META_FILE).read_text())
        return cls(**data)

    def write(self, graph_dir: Path) -> None:
        (Path(graph_dir) / META_FILE).write_text(json.dumps(self.__dict__, indent=2, sort_keys=True))


# Kuzu reserves ``max_db_size`` of virtual address space for every open database; its default (8 TiB) lets a
# process hold only ~15 at once (47-bit address space). The graphs here are < 1 GiB, benchmark graphs a few.
MAX_DB_SIZE = 1 << 36  # 64 GiB


def open_database(path: str | Path, *, read_only: bool = False, buffer_pool_mb: int = 0) -> kuzu.Database:
    """``kuzu.Database`` with a bounded address-space reservation and, when given, a buffer-pool cap."""
    return kuzu.Database(str(path), read_only=read_only, buffer_pool_size=max(0, buffer_pool_mb) << 20,
                         max_db_size=MAX_DB_SIZE)


class Graph:
    """One domain's Kuzu database, opened read-only by default, with a small connection pool: the embedded
    engine of the graph backend protocol (:class:`kgqa.protocols.GraphBackend`)."""

    dialect = KUZU
    engine = "kuzu"

    def __init__(self, graph_dir: str | Path, *, read_only: bool = True, timeout_ms: int = 5000,
                 row_cap: int = 1000, pool_size: int = 4, domain: str | None = None, buffer_pool_mb: int = 0):
        self.dir = Path(graph_dir)
        meta_path = self.dir / META_FILE
        self.meta = GraphMeta.read(self.dir) if meta_path.exists() else None
        path = self.dir / DB_FILE if self.dir.is_dir() or not self.dir.suffix else self.dir
        if self.meta is not None and self.meta.database:
            path = self.meta.database_path(self.dir)
        if read_only and not Path(path).exists():
            raise FileNotFoundError(f"no graph at {path}: run `kgqa load` first")
        self.read_only = read_only
        self.timeout_ms = timeout_ms
        self.row_cap = row_cap
        # Kuzu's default buffer pool is 80% of RAM per database; the service caps it, so a query that
        # builds huge intermediate results fails with a query error instead of exhausting the machine
        self.db = open_database(path, read_only=read_only, buffer_pool_mb=buffer_pool_mb)
        self._pool: queue.LifoQueue[kuzu.Connection] = queue.LifoQueue()
        for _ in range(max(1, pool_size)):
            self._pool.put(kuzu.Connection(self.db))
        self.domain = domain or (self.meta.domain if self.meta else self.dir.name)
        self.version = self.meta.version if self.meta else "unversioned"
        self._fts_loaded: set[int] = set()
        self._lock = threading.Lock()
        self._catalog: Catalog | None = None

    def catalog(self) -> Catalog:
        """Returns the graph's catalogue (read once when the database is read-only)."""
        if self._catalog is None or not self.read_only:
            cat = kuzu_catalog(self)
            if not self.read_only:
                return cat
            self._catalog = cat
        return self._catalog

    # -- connections -------------------------------------------------------------------------
    @contextmanager
    def connection(self) -> Iterator[kuzu.Connection]:
        conn = self._pool.get()
        try:
            yield conn
        finally:
            self._pool.put(conn)

    def close(self) -> None:
        while not self._pool.empty():
            self._pool.get_nowait().close()
        self.db.close()

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- queries -----------------------------------------------------------------------------
    def query(self, cypher: str, params: dict | None = None, *, timeout_ms: int | None = None,
              row_cap: int | None = None) -> QueryResult:
        """Run a guarded read-only query. Raises UnsafeQueryError, QueryTimeout or QueryError."""
        check_read_only(cypher)
        return self._run(cypher, params, timeout_ms=timeout_ms, row_cap=row_cap)

    def explain(self, cypher: str, params: dict | None = None) -> str | None:
        """Validate a query with Kuzu ``EXPLAIN``: None when it compiles, else Kuzu's error text."""
        try:
            check_read_only(cypher)
        except UnsafeQueryError as err:
            return f"Unsafe query: {err}"
        try:
            self._run("EXPLAIN " + cypher, params, timeout_ms=self.timeout_ms, row_cap=1)
        except QueryError as err:
            return str(err)
        return None

    def _run(self, cypher: str, params: dict | None, *, timeout_ms: int | None,
             row_cap: int | None) -> QueryResult:
        import time

        cap = self.row_cap if row_cap is None else row_cap
        with self.connection() as conn:
            conn.set_query_timeout(int(timeout_ms or self.timeout_ms))
            t0 = time.perf_counter()
            try:
                result = conn.execute(cypher, params or {})
            except RuntimeError as err:
                msg = str(err)
                if "interrupted" in msg.lower() or "timeout" in msg.lower():
                    raise QueryTimeout(f"query exceeded {timeout_ms or self.timeout_ms} ms and was stopped") from err
                raise QueryError(msg) from err
            if isinstance(result, list):  # several statements: never produced by a checked query
                result = result[-1]
            try:
                columns = list(result.get_column_names())
                rows: list[list[Any]] = []
                truncated = False
                while result.has_next():
                    if len(rows) >= cap:
                        truncated = True
                        break
                    rows.append(list(result.get_next()))
            except RuntimeError as err:
                msg = str(err)
                if "interrupted" in msg.lower() or "timeout" in msg.lower():
                    raise QueryTimeout(f"query exceeded {timeout_ms or self.timeout_ms} ms and was stopped") from err
                raise QueryError(msg) from err
            finally:
                result.close()
            return QueryResult(columns, rows, truncated, (time.perf_counter() - t0) * 1000)

    def execute_unchecked(self, cypher: str, params: dict | None = None) -> QueryResult:
        """For builders and index creation only (never for user input): no guard, no row cap."""
        return self._run(cypher, params, timeout_ms=600_000, row_cap=10**9)

    def columns(self, cypher: str, types: list[str], params: dict | None = None) -> list[list[Any]]:
        """For builders only (never for user input): returns the result column by column, read as an Arrow
        table when the columns' Kuzu ``types`` give the same values that way, else row by row."""
        from kgqa.kg.arrow_tables import reads_as_rows

        if reads_as_rows(types):
            return [c.to_pylist() for c in self.table(cypher, params).columns]
        rows = self.execute_unchecked(cypher, params).rows
        return [[r[i] for r in rows] for i in range(len(types))]

    def table(self, cypher: str, params: dict | None = None, *, in_order: bool = True):
        """For builders only (never for user input): returns the whole result as a ``pyarrow.Table`` (columns
        named as returned), read without converting each value to Python; ``in_order``: on one thread, so a
        scan's rows come in the order the table stores them, as a build reads them every time (else on Kuzu's
        threads, in no set order). Raises QueryError."""
        conn = kuzu.Connection(self.db, num_threads=1 if in_order else 0)
        try:
            conn.set_query_timeout(600_000)
            result = conn.execute(cypher, params or {})
            try:
                return result.get_as_arrow(chunk_size=1_000_000)
            finally:
                result.close()
        except RuntimeError as err:
            raise QueryError(str(err)) from err
        finally:
            conn.close()

    # -- helpers -----------------------------------------------------------------------------
    def load_fts(self) -> None:
        """``LOAD EXTENSION fts`` once per connection (statically linked in kuzu 0.11.3)."""
        with self._lock:
            conns = []
            while not self._pool.empty():
                conns.append(self._pool.get_nowait())
            try:
                for c in conns:
                    if id(c) not in self._fts_loaded:
                        try:
                            c.execute("LOAD EXTENSION fts")
                        except RuntimeError:
                            pass  # already loaded
                        self._fts_loaded.add(id(c))
            finally:
                for c in conns:
                    self._pool.put(c)


def render_value(value: Any) -> Any:
    """A JSON-friendly rendering of a Kuzu value (nodes and rels become dicts without internals)."""
    if isinstance(value, dict):
        if "_label" in value and "_id" in value:
            return {k: render_value(v) for k, v in value.items() if not k.startswith("_")} | {
                "_label": value["_label"]}
        return {k: render_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [render_value(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value
