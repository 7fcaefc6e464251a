"""A Neo4j-compatible server over Bolt as a graph backend (Neo4j, Memgraph, ArcadeDB), and its dialect.

* :class:`Neo4jDialect` rewrites the planner's canonical (Kuzu) Cypher into Neo4j Cypher: function names
  (``lower`` -> ``toLower``), Kuzu-only functions into operators (``contains(a, b)`` -> ``a CONTAINS b``),
  ``label(x)`` into ``type(r)`` / ``head(labels(n))``, 1-based list subscripts and slices into 0-based
  ones, ``substring``'s 1-based start, ``CAST(x AS T)`` into ``toString``/``toInteger``/``toFloat``/``datetime``,
  ``nullif`` into ``CASE``, ``to_epoch_ms(t)`` into ``t.epochMillis``.
  String literals and back-quoted names are never touched.
* :class:`BoltEngine` runs a query through the official ``neo4j`` driver in a READ session, after
  :func:`kgqa.kg.safety.check_read_only` has passed both the canonical and the rewritten text (ArcadeDB,
  for one, accepts writes in a read session), with a transaction timeout and a row cap (records are
  fetched in batches of cap + 1 and the rest discarded). Values come back in Kuzu's shapes (a node is a
  dict with ``_label``/``_id``, a relationship adds ``_src``/``_dst``, a path has ``_nodes``/``_rels``),
  so rendering, caches and comparisons are engine-blind.
* :meth:`BoltEngine.catalog` introspects the server with plain Cypher (``db.labels()`` when the server
  has it, ``keys()``, sampled value types, uniqueness constraints or a unique, always-present property as
  the key): nothing here knows any graph.
* :func:`register_bolt` is ``kgqa load --name NAME --bolt URI``: the graph is introspected, never copied
  or written; :func:`import_graph` is the documented one-off import of a local graph into a server.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from kgqa.kg.backend import BOLT_KIND, Catalog, Dialect, read_catalog
from kgqa.kg.cypher import ident
from kgqa.kg.db import META_FILE, GraphMeta, QueryError, QueryResult, QueryTimeout
from kgqa.kg.safety import UnsafeQueryError, check_read_only
from kgqa.text import name_words

BOLT_LOADER_VERSION = "bolt-register-1"

# -- dialect -------------------------------------------------------------------------------------------
_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`(?:[^`]|``)*`", re.S)
_CALL = re.compile(r"(?<![\w.$`])([A-Za-z_]\w*)\s*\(")
_REL_VAR = re.compile(r"-\s*\[\s*([A-Za-z_]\w*)")
# words followed by "(" that are clauses or operators, not functions
_NOT_FUNCTIONS = frozenset("""match optional where and or xor not in return with unwind exists count call
as is distinct on when then else case union all any none single""".split())
_NAMESPACED_CALL = re.compile(r"(?<![\w$`])([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)+)\s*\(")
# the only statements that bypass the Cypher guard: fixed introspection reads written here, never input
INTROSPECTION = frozenset({"CALL db.labels()", "CALL db.relationshipTypes()", "SHOW CONSTRAINTS"})
_KEYWORDS_BEFORE_LIST = frozenset("""in return with and or not xor where when then else case by distinct as set
unwind yield limit skip contains""".split())


def _split_args(text: str) -> list[str]:
    """Returns the top-level comma-separated arguments of ``text`` (literals already masked)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [a.strip() for a in out] if text.strip() else []


def _close(text: str, start: int, open_ch: str, close_ch: str) -> int:
    """Returns the index of the bracket closing the one at ``start`` (-1 when unbalanced)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
    return -1


_CAST_TO = {"STRING": "toString", "INT64": "toInteger", "INT32": "toInteger", "INT16": "toInteger",
            "INT8": "toInteger", "INT128": "toInteger", "UINT64": "toInteger", "UINT32": "toInteger",
            "DOUBLE": "toFloat", "FLOAT": "toFloat", "BOOL": "toBoolean", "BOOLEAN": "toBoolean",
            "DATE": "date", "TIMESTAMP": "datetime"}


class Neo4jDialect(Dialect):
    """Neo4j 5 Cypher (also what Memgraph and ArcadeDB's Bolt plugin read)."""

    name = "neo4j"
    renames = {"lower": "toLower", "upper": "toUpper", "string_split": "split", "ltrim": "lTrim", "rtrim": "rTrim", "to_string": "toString", "to_int64": "toInteger",
               "to_double": "toFloat", "array_length": "size", "len": "size", "list_len": "size"}

    def translate(self, cypher: str) -> str:
        """Returns the canonical ``cypher`` in Neo4j's dialect (literals and quoted names unchanged)."""
        masked, saved = self._mask(cypher)
        rel_vars = set(_REL_VAR.findall(masked))
        out = self._subscripts(self._calls(masked, rel_vars))
        return self._unmask(out, saved)

    # literals and quoted names are replaced by placeholders while rewriting
    @staticmethod
    def _mask(cypher: str) -> tuple[str, list[str]]:
        saved: list[str] = []

        def keep(m: re.Match) -> str:
            saved.append(m.group(0))
            return f"\x00{len(saved) - 1}\x01"
        return _TOKEN.sub(keep, cypher), saved

    @staticmethod
    def _unmask(text: str, saved: list[str]) -> str:
        return re.sub(r"\x00(\d+)\x01", lambda m: saved[int(m.group(1))], text)

    def _calls(self, text: str, rel_vars: set[str]) -> str:
        pos, out = 0, []
        while True:
            m = _CALL.search(text, pos)
            if m is None:
                out.append(text[pos:])
                return "".join(out)
            open_at = m.end() - 1
            close_at = _close(text, open_at, "(", ")")
            if close_at < 0:
                out.append(text[pos:])
                return "".join(out)
            name = m.group(1)
            if name.lower() in _NOT_FUNCTIONS:  # a clause: keep it, rewrite inside
                out.append(text[pos:open_at + 1])
                pos = open_at + 1
                continue
            inner = self._calls(text[open_at + 1:close_at], rel_vars)
            out.append(text[pos:m.start()])
            call = self._call(name, inner, rel_vars)
            out.append(text[m.start():open_at] + "(" + inner + ")" if call is None else call)
            pos = close_at + 1

    def check(self, text: str) -> None:
        """Refuses what the Kuzu-shaped guard does not know in Neo4j Cypher: namespaced functions
        (``apoc.*``, ``gds.*``, ``db.*``: plugins that write, load files or run Cypher strings)."""
        masked, _ = self._mask(text)
        m = _NAMESPACED_CALL.search(masked)
        if m:
            raise UnsafeQueryError(f"the server function {m.group(1)}() is not allowed")

    def _call(self, name: str, inner: str, rel_vars: set[str]) -> str | None:
        low = name.lower()
        args = _split_args(inner)
        if low == "label" and len(args) == 1:
            return f"type({args[0]})" if args[0] in rel_vars else f"head(labels({args[0]}))"
        if low in ("contains", "starts_with", "ends_with", "prefix", "suffix") and len(args) == 2:
            op = {"contains": "CONTAINS", "starts_with": "STARTS WITH", "prefix": "STARTS WITH"}.get(low, "ENDS WITH")
            return f"({args[0]} {op} {args[1]})"
        if low in ("list_contains", "array_contains", "list_has") and len(args) == 2:
            return f"({args[1]} IN {args[0]})"
        if low in ("list_concat", "array_concat", "list_cat") and len(args) == 2:
            return f"({args[0]} + {args[1]})"
        if low == "regexp_matches" and len(args) == 2:
            return f"({args[0]} =~ ('(?s).*' + {args[1]} + '.*'))"  # Kuzu searches, Neo4j matches whole
        if low == "substring" and len(args) == 3:  # Kuzu counts from 1, Neo4j from 0
            return f"substring({args[0]}, ({args[1]}) - 1, {args[2]})"
        if low == "nullif" and len(args) == 2:
            return f"CASE WHEN {args[0]} = {args[1]} THEN null ELSE {args[0]} END"
        if low == "to_epoch_ms" and len(args) == 1:
            return f"({args[0]}).epochMillis"
        if low in ("list_extract", "array_extract") and len(args) == 2:
            return f"({args[0]})[({args[1]}) - 1]"
        if low == "cast" and len(args) == 1:
            m = re.match(r"(?is)(.*)\s+as\s+(\w+)\s*$", args[0])
            if m and m.group(2).upper() in _CAST_TO:
                return f"{_CAST_TO[m.group(2).upper()]}({m.group(1).strip()})"
        new = self.renames.get(low)
        return f"{new}({inner})" if new else None

    @staticmethod
    def _subscripts(text: str) -> str:
        """Kuzu subscripts ``x[i]`` and slices ``x[a:b]`` count from 1 (slices include their end);
        Neo4j's from 0 (``x[i-1]``, ``x[a-1..b]``). Pattern brackets (after ``-``) and list literals
        (after ``(``, ``,``, an operator or a keyword) are left alone."""
        out, i = [], 0
        while i < len(text):
            ch = text[i]
            if ch != "[":
                out.append(ch)
                i += 1
                continue
            close = _close(text, i, "[", "]")
            if close < 0:
                out.append(text[i:])
                break
            before = "".join(out).rstrip()
            word = re.search(r"(\w+)$", before)
            subscript = bool(before) and (before[-1] in ")]\x01" or (
                word is not None and word.group(1).lower() not in _KEYWORDS_BEFORE_LIST))
            inner = Neo4jDialect._subscripts(text[i + 1:close])
            if subscript and not before.endswith("-"):
                parts = _split_colon(inner)
                if len(parts) == 2:
                    lo, hi = parts[0].strip(), parts[1].strip()
                    lo_s = f"({lo}) - 1" if lo else ""
                    out.append(f"[{lo_s}..{hi}]")
                elif inner.strip() and ".." not in inner:
                    out.append(f"[({inner}) - 1]")
                else:
                    out.append(f"[{inner}]")
            else:
                out.append(f"[{inner}]")
            i = close + 1
        return "".join(out)


def _split_colon(text: str) -> list[str]:
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0:
            return [text[:i], text[i + 1:]]
    return [text]


NEO4J = Neo4jDialect()

# -- values ----------------------------------------------------------------------------------------------


def to_kuzu_value(value: Any) -> Any:
    """Returns a driver value in the shape Kuzu gives (nodes, relationships and paths as dicts; temporal
    values as Python dates and datetimes)."""
    from neo4j.graph import Node, Path, Relationship

    if isinstance(value, Node):
        labels = sorted(value.labels)
        return {k: to_kuzu_value(v) for k, v in value.items()} | {"_label": labels[0] if labels else "",
                                                                "_id": value.element_id}
    if isinstance(value, Relationship):
        return {k: to_kuzu_value(v) for k, v in value.items()} | {
            "_label": value.type, "_id": value.element_id,
            "_src": value.start_node.element_id if value.start_node is not None else None,
            "_dst": value.end_node.element_id if value.end_node is not None else None}
    if isinstance(value, Path):
        return {"_nodes": [to_kuzu_value(n) for n in value.nodes],
                "_rels": [to_kuzu_value(r) for r in value.relationships]}
    if isinstance(value, list):
        return [to_kuzu_value(v) for v in value]
    if isinstance(value, dict):
        return {k: to_kuzu_value(v) for k, v in value.items()}
    if hasattr(value, "to_native"):
        return value.to_native()
    return value


def canonical_type(values: list[Any]) -> str:
    """Returns the canonical (Kuzu) type name of sampled property values."""
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            return "BOOL"
        if isinstance(v, int):
            return "INT64"
        if isinstance(v, float):
            return "DOUBLE"
        if isinstance(v, str):
            return "STRING"
        if isinstance(v, datetime):
            return "TIMESTAMP"
        if isinstance(v, date):
            return "DATE"
        if isinstance(v, list):
            inner = canonical_type(v)
            return f"{inner}[]" if inner != "ANY" else "STRING[]"
    return "ANY"


# -- engine ----------------------------------------------------------------------------------------------
class BoltEngine:
    """A graph on a Neo4j-compatible server, read through the ``neo4j`` driver (see the module doc)."""

    dialect = NEO4J
    engine = "bolt"
    read_only = True

    def __init__(self, uri: str, *, database: str = "", user: str = "", password: str = "",
                 graph_dir: str | Path | None = None, domain: str = "", version: str = "unversioned",
                 timeout_ms: int = 5000, row_cap: int = 1000, pool_size: int = 4):
        import neo4j

        self.uri, self.database = uri, database or None
        self.dir = Path(graph_dir) if graph_dir is not None else Path(".")
        self.domain, self.version = domain or (database or "bolt"), version
        self.timeout_ms, self.row_cap = timeout_ms, row_cap
        auth = (user, password) if user else None
        self.driver = neo4j.GraphDatabase.driver(uri, auth=auth, max_connection_pool_size=max(1, pool_size),
                                                 connection_timeout=10.0)
        self._catalog: Catalog | None = None
        self._lock = threading.Lock()
        self.meta: GraphMeta | None = None

    @classmethod
    def from_meta(cls, graph_dir: Path, meta: GraphMeta, *, user: str = "", password: str = "",
                  **kwargs) -> BoltEngine:
        """Returns the engine of a graph registered with :func:`register_bolt` (its ``meta.json``);
        ``user``/``password`` (the settings') win over the user recorded at registration."""
        src = meta.source
        engine = cls(src["uri"], database=src.get("database") or "", user=user or src.get("user") or "",
                     password=password, graph_dir=graph_dir, domain=meta.domain, version=meta.version, **kwargs)
        engine.meta = meta
        return engine

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> BoltEngine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- queries -------------------------------------------------------------------------------------
    def query(self, cypher: str, params: dict | None = None, *, timeout_ms: int | None = None,
              row_cap: int | None = None) -> QueryResult:
        """Runs a guarded read-only query (canonical Cypher). Raises UnsafeQueryError, QueryTimeout or
        QueryError."""
        check_read_only(cypher)
        return self._run(self.dialect.translate(cypher), params, timeout_ms=timeout_ms, row_cap=row_cap)

    def explain(self, cypher: str, params: dict | None = None) -> str | None:
        """Validates a query with the server's ``EXPLAIN``: None when it compiles, else the server's error."""
        try:
            check_read_only(cypher)
        except UnsafeQueryError as err:
            return f"Unsafe query: {err}"
        try:
            self._run(self.dialect.explain(self.dialect.translate(cypher)), params, timeout_ms=self.timeout_ms,
                      row_cap=1)
        except UnsafeQueryError as err:  # the dialect's own check (server functions such as apoc.*)
            return f"Unsafe query: {err}"
        except QueryError as err:
            return str(err)
        return None

    def execute_unchecked(self, cypher: str, params: dict | None = None) -> QueryResult:
        """Introspection reads without a row cap. Still guarded: a server graph is never written."""
        if cypher in INTROSPECTION:
            return self._run(cypher, params, timeout_ms=600_000, row_cap=10**9)
        check_read_only(cypher)
        return self._run(self.dialect.translate(cypher), params, timeout_ms=600_000, row_cap=10**9)

    def _run(self, text: str, params: dict | None, *, timeout_ms: int | None, row_cap: int | None) -> QueryResult:
        import neo4j
        from neo4j.exceptions import ClientError, DriverError, Neo4jError

        if text not in INTROSPECTION:
            check_read_only(text)  # the text actually sent passes the guard too
            self.dialect.check(text)
        cap = self.row_cap if row_cap is None else row_cap
        limit_ms = int(timeout_ms or self.timeout_ms)
        t0 = time.perf_counter()
        try:
            with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS,
                                     fetch_size=min(max(cap + 1, 1), 10_000)) as session:
                result = session.run(neo4j.Query(text, timeout=limit_ms / 1000.0), params or {})
                columns = list(result.keys())
                rows, truncated = [], False
                for record in result:
                    if len(rows) >= cap:
                        truncated = True
                        break
                    rows.append([to_kuzu_value(v) for v in record.values()])
                    if (time.perf_counter() - t0) * 1000 > limit_ms:
                        raise QueryTimeout(f"query exceeded {limit_ms} ms and was stopped")
        except ClientError as err:
            code = err.code or ""
            if "Timeout" in code or "TimedOut" in code or "Terminated" in code:
                raise QueryTimeout(f"query exceeded {limit_ms} ms and was stopped") from err
            raise QueryError(err.message or str(err)) from err
        except Neo4jError as err:
            raise QueryError(err.message or str(err)) from err
        except DriverError as err:
            raise QueryError(f"graph server {self.uri}: {err}") from err
        return QueryResult(columns, rows, truncated, (time.perf_counter() - t0) * 1000)

    # -- schema ----------------------------------------------------------------------------------------
    def catalog(self) -> Catalog:
        """Returns the server graph's catalogue (introspected once per engine)."""
        with self._lock:
            if self._catalog is None:
                self._catalog = introspect(self)
            return self._catalog


def _names(engine: BoltEngine, procedure: str, scan: str) -> list[str]:
    """The server's labels or relationship types: its ``db.*`` procedure, else a scan."""
    try:
        rows = engine._run(f"CALL {procedure}()", None, timeout_ms=60_000, row_cap=10**6).rows
    except QueryError:
        rows = engine._run(scan, None, timeout_ms=600_000, row_cap=10**6).rows
    out: list[str] = []
    for (value,) in rows:
        for v in value if isinstance(value, list) else [value]:
            if v not in out:
                out.append(v)
    return sorted(out)


def _props(engine: BoltEngine, pattern: str, sample: int = 2000) -> list[tuple[str, str]]:
    rows = engine.execute_unchecked(f"MATCH {pattern} WITH n LIMIT {sample} UNWIND keys(n) AS k "
                                    "RETURN DISTINCT k ORDER BY k").rows
    out = []
    for (k,) in rows:
        vals = engine.execute_unchecked(f"MATCH {pattern} WHERE n.{ident(k)} IS NOT NULL RETURN n.{ident(k)} "
                                        "LIMIT 5").rows
        out.append((k, canonical_type([v[0] for v in vals])))
    return out


def _constraint_keys(engine: BoltEngine) -> dict[str, str]:
    """label -> property of a single-property uniqueness (or node key) constraint, where the server says."""
    try:
        res = engine.execute_unchecked("SHOW CONSTRAINTS")
    except (QueryError, UnsafeQueryError):
        return {}
    cols, out = res.columns, {}
    if not {"labelsOrTypes", "properties"} <= set(cols):
        return out
    for row in res.rows:
        rec = dict(zip(cols, row))
        kind = str(rec.get("type", ""))
        if ("UNIQUE" in kind or "KEY" in kind) and rec.get("labelsOrTypes") and len(rec.get("properties") or []) == 1:
            out.setdefault(rec["labelsOrTypes"][0], rec["properties"][0])
    return out


def _key(engine: BoltEngine, label: str, props: list[tuple[str, str]], declared: str | None) -> str:
    """The label's key: a declared unique property, else a property every node has with no duplicate
    (id-like names first, then name-like, then strings), else the first property."""
    if declared:
        return declared
    if not props:
        return ""
    parts = ", ".join(f"count(n.{ident(p)}) AS c{i}, count(DISTINCT n.{ident(p)}) AS d{i}"
                      for i, (p, _) in enumerate(props))
    row = engine.execute_unchecked(f"MATCH (n:{ident(label)}) RETURN count(n) AS total, {parts}").rows[0]
    total = row[0]
    unique = [(p, t) for i, (p, t) in enumerate(props) if row[1 + 2 * i] == total == row[2 + 2 * i]]
    if not unique:
        return props[0][0]

    def rank(item: tuple[str, str]) -> tuple[int, int, int, str]:
        words = name_words(item[0])
        last = words[-1] if words else ""
        return (0 if last in ("id", "key", "code") else 1, 0 if last in ("name", "title") else 1,
                0 if item[1] == "STRING" else 1, item[0])
    return min(unique, key=rank)[0]


def introspect(engine: BoltEngine) -> Catalog:
    """Returns the catalogue of a server graph, read with plain Cypher (see the module doc)."""
    cat = Catalog()
    declared = _constraint_keys(engine)
    for label in _names(engine, "db.labels", "MATCH (n) RETURN DISTINCT labels(n)"):
        props = _props(engine, f"(n:{ident(label)})")
        if not props and not engine.execute_unchecked(f"MATCH (n:{ident(label)}) RETURN n LIMIT 1").rows:
            continue  # a label the server knows but no node carries
        key = _key(engine, label, props, declared.get(label))
        cat.nodes[label] = sorted(props, key=lambda p: (p[0] != key, p[0]))
        cat.keys[label] = key
    for rel in _names(engine, "db.relationshipTypes", "MATCH ()-[r]->() RETURN DISTINCT type(r)"):
        pairs = engine.execute_unchecked(f"MATCH (a)-[r:{ident(rel)}]->(b) RETURN DISTINCT labels(a), labels(b)").rows
        found = sorted({(la, lb) for a, b in pairs for la in a for lb in b if la in cat.nodes and lb in cat.nodes})
        if not found:
            continue
        cat.rels[rel] = found
        cat.rel_props[rel] = _props(engine, f"()-[n:{ident(rel)}]->()")
    return cat


# -- registration and import --------------------------------------------------------------------------
def server_counts(engine: BoltEngine) -> tuple[dict[str, int], dict[str, int]]:
    """Returns ({label: nodes}, {type: relationships}) on the server."""
    cat = engine.catalog()
    nodes = {lb: engine.query(f"MATCH (n:{ident(lb)}) RETURN count(n)").rows[0][0] for lb in cat.nodes}
    rels = {t: engine.query(f"MATCH ()-[n:{ident(t)}]->() RETURN count(n)").rows[0][0] for t in cat.rels}
    return nodes, rels


def register_bolt(graphs_dir: str | Path, name: str, uri: str, *, database: str = "", user: str = "",
                  password: str = "", annotations: str | Path | None = None, index: bool = True) -> GraphMeta:
    """Registers the graph served at ``uri`` (``database`` on it) as domain ``name``: its catalogue is
    introspected, its spec derived (and completed by ``annotations``), its entity names indexed beside the
    registry entry. The server graph is only read. Returns the meta; the version hashes the server, the
    catalogue and the counts, so a changed server graph registered again gets a new version."""
    from kgqa.kg.annotations import FILE_NAME as ANNOTATIONS_FILE
    from kgqa.kg.annotations import read_annotations
    from kgqa.kg.derive import derive_spec
    from kgqa.kg.entity_names import collect_entries, save_entries
    from kgqa.kg.registry import check_name
    from kgqa.kg.schema import GraphSchema
    from kgqa.kg.spec import SPEC_FILE, annotate

    graphs_dir = Path(graphs_dir)
    check_name(name)
    final = graphs_dir / name
    if (final / META_FILE).exists():
        old = GraphMeta.read(final)
        if old.source.get("kind") != BOLT_KIND:
            raise ValueError(f"domain {name!r} is already a {old.source.get('kind')} graph; "
                             f"remove it first (kgqa domains remove {name})")
    tmp = graphs_dir / f".{name}.bolt-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        with BoltEngine(uri, database=database, user=user, password=password, graph_dir=tmp,
                        domain=name) as engine:
            cat = engine.catalog()
            if not cat.nodes:
                raise ValueError(f"no nodes in the graph at {uri}" + (f" (database {database})" if database else ""))
            nodes, rels = server_counts(engine)
            h = hashlib.sha256(f"{BOLT_LOADER_VERSION}\0{uri}\0{database}\0".encode())
            h.update(json.dumps([cat.__dict__, nodes, rels], sort_keys=True, default=str).encode())
            ann_path = Path(annotations) if annotations else None
            if ann_path is not None:
                h.update(ann_path.read_bytes())
            meta = GraphMeta(domain=name, version=h.hexdigest(), node_counts=nodes, rel_counts=rels,
                             source={"kind": BOLT_KIND, "uri": uri, "database": database, "user": user,
                                     "files": [], "annotations": str(ann_path.resolve()) if ann_path else None})
            engine.version = meta.version
            spec = derive_spec(engine, name)
            spec.write(tmp / SPEC_FILE)
            if ann_path is not None:
                ann = read_annotations(ann_path, GraphSchema.from_graph(engine, samples=0))
                (tmp / ANNOTATIONS_FILE).write_text(json.dumps(ann, indent=1, ensure_ascii=False), encoding="utf-8")
                spec = annotate(spec, ann)
            if index:
                save_entries(tmp, collect_entries(lambda q: engine.execute_unchecked(q).rows, spec,
                                                  tables={lb: dict(p) for lb, p in cat.nodes.items()}))
        meta.built_at = datetime.now(UTC).isoformat(timespec="seconds")
        meta.write(tmp)  # last: a folder without meta.json is never taken for a graph
        aside = graphs_dir / f".{name}.old-{os.getpid()}"
        if final.exists():
            os.rename(final, aside)
        os.rename(tmp, final)
        shutil.rmtree(aside, ignore_errors=True)
        return meta
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def import_graph(graph, uri: str, *, database: str = "", user: str = "", password: str = "",
                 batch: int = 500) -> dict[str, int]:
    """The one-off import of a local graph (any engine with ``catalog()``/``query``) into an EMPTY
    server database: nodes with their properties, relationships with theirs, matched by key. This is the
    only code that writes to a server; serving never does. Returns {label or type: rows written}."""
    import neo4j

    cat = read_catalog(graph)
    driver = neo4j.GraphDatabase.driver(uri, auth=(user, password) if user else None)
    written: dict[str, int] = {}
    try:
        with driver.session(database=database or None) as s:
            if s.run("MATCH (n) RETURN count(n) AS c").single()["c"]:
                raise ValueError(f"the server database at {uri} is not empty; import only into an empty one")
            for label, props in cat.nodes.items():
                cols = ", ".join(f"n.{ident(p)} AS {ident(p)}" for p, _ in props)
                rows = graph.query(f"MATCH (n:{ident(label)}) RETURN {cols}", row_cap=10**9)
                recs = [{c: v for c, v in zip(rows.columns, r) if v is not None} for r in rows.rows]
                for i in range(0, len(recs), batch):
                    s.run(f"UNWIND $rows AS row CREATE (n:{ident(label)}) SET n = row", rows=recs[i:i + batch]).consume()
                written[label] = len(recs)
            for rel, pairs in cat.rels.items():
                n = 0
                for src, dst in pairs:
                    ka, kb = cat.keys[src], cat.keys[dst]
                    cols = "".join(f", r.{ident(p)} AS {ident(p)}" for p, _ in cat.rel_props.get(rel, []))
                    rows = graph.query(f"MATCH (a:{ident(src)})-[r:{ident(rel)}]->(b:{ident(dst)}) "
                                       f"RETURN a.{ident(ka)} AS a, b.{ident(kb)} AS b{cols}", row_cap=10**9)
                    recs = [{"a": r[0], "b": r[1], "p": {c: v for c, v in zip(rows.columns[2:], r[2:]) if v is not None}}
                            for r in rows.rows]
                    for i in range(0, len(recs), batch):
                        s.run(f"UNWIND $rows AS row MATCH (a:{ident(src)} {{{ident(ka)}: row.a}}) "
                              f"MATCH (b:{ident(dst)} {{{ident(kb)}: row.b}}) "
                              f"CREATE (a)-[r:{ident(rel)}]->(b) SET r = row.p", rows=recs[i:i + batch]).consume()
                    n += len(recs)
                written[rel] = n
    finally:
        driver.close()
    return written
