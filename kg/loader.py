"""Build one Kuzu database per domain from its source, atomically and idempotently.

A :class:`~kgqa.kg.sources.Source` says what to load (the bundled graphs, a schema with CSV files, a
Cypher script) and its ``read()`` gives a :class:`Dataset` (typed node and relationship tables with their
rows). This module turns it into ``graphs_dir/<name>/graph.kuzu`` plus the derived spec, the annotations,
the entity index files and ``meta.json``; an existing Kuzu database is registered in place instead (the
folder records its path; the database is opened read-only and never written):

* idempotent: the build is skipped when ``meta.json`` already carries the same version (a hash of the
  source files, the annotations and the loader version), unless ``force``;
* atomic: everything is built in ``graphs_dir/.<domain>.tmp-<pid>/``, ``meta.json`` is written last, and
  the finished folder is swapped in with ``os.rename``, so ``graphs_dir/<domain>`` is always either the
  previous complete graph or the new complete graph, never a half-built one;
* rows are loaded with Kuzu's ``COPY FROM``: the validated Parquet files a CSV source stages under
  ``graphs_dir/.<domain>.tmp-<pid>/staging/`` (removed once loaded), or Arrow tables of the rows a reader
  holds in memory; values never pass through Cypher text.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path

import kuzu

from kgqa.kg.annotations import FILE_NAME as ANNOTATIONS_FILE
from kgqa.kg.annotations import read_annotations
from kgqa.kg.arrow_tables import rows_table
from kgqa.kg.cypher import ident, literal
from kgqa.kg.dataset import Dataset, NodeTable, RelTable
from kgqa.kg.db import DB_FILE, META_FILE, Graph, GraphMeta, open_database
from kgqa.kg.ddl import SourceError
from kgqa.kg.derive import derive_spec
from kgqa.kg.domains import BUNDLED
from kgqa.kg.entity_names import ENTRIES_FILE, create_fts_indexes, names_json, save_names
from kgqa.kg.registry import check_name, registered
from kgqa.kg.schema import GraphSchema
from kgqa.kg.sources import Source, bundled_source
from kgqa.kg.spec import SPEC_FILE, DomainSpec, annotate
from kgqa.settings import Settings

STAGING = "staging"
BATCH = 100_000  # rows per COPY of an in-memory table


# -- DDL and data statements -------------------------------------------------------------------------
def node_ddl(t: NodeTable) -> str:
    cols = ", ".join(f"{ident(c)} {typ}" for c, typ in t.columns)
    return f"CREATE NODE TABLE {ident(t.label)}({cols}, PRIMARY KEY({ident(t.primary_key)}))"


def rel_ddl(t: RelTable) -> str:
    cols = "".join(f", {ident(c)} {typ}" for c, typ in t.columns)
    return f"CREATE REL TABLE {ident(t.name)}(FROM {ident(t.from_label)} TO {ident(t.to_label)}{cols})"


def node_insert(t: NodeTable) -> str:
    props = ", ".join(f"{ident(c)}: CAST(r.{ident(c)} AS {typ})" for c, typ in t.columns)
    return f"UNWIND $rows AS r CREATE (:{ident(t.label)} {{{props}}})"


def rel_insert(t: RelTable, pk: dict[str, tuple[str, str]]) -> str:
    (fk, ftype), (tk, ttype) = pk[t.from_label], pk[t.to_label]
    props = ", ".join(f"{ident(c)}: CAST(r.{ident(c)} AS {typ})" for c, typ in t.columns)
    return (f"UNWIND $rows AS r MATCH (a:{ident(t.from_label)} {{{ident(fk)}: CAST(r._from AS {ftype})}}), "
            f"(b:{ident(t.to_label)} {{{ident(tk)}: CAST(r._to AS {ttype})}}) "
            f"CREATE (a)-[:{ident(t.name)} {{{props}}}]->(b)")


# -- versions and paths ------------------------------------------------------------------------------
def is_current(graph_dir: Path, version: str, *, index: bool = True) -> bool:
    """True when ``graph_dir`` holds a complete graph of ``version`` (and its entity index, if asked)."""
    graph_dir = Path(graph_dir)
    if not (graph_dir / META_FILE).exists():
        return False
    try:
        meta = GraphMeta.read(graph_dir)
    except (ValueError, TypeError, OSError):
        return False
    if meta.version != version or not meta.database_path(graph_dir).exists():
        return False
    return not (index and not (graph_dir / ENTRIES_FILE).exists())


@contextmanager
def _lock(graphs_dir: Path, domain: str) -> Iterator[None]:
    """One builder per domain at a time, across processes (test sessions share a home)."""
    with open(graphs_dir / f".{domain}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clean_leftovers(graphs_dir: Path, domain: str) -> None:
    """Remove temp folders of dead builders; bring back an old graph a crash left renamed aside."""
    final = graphs_dir / domain
    for path in sorted(graphs_dir.glob(f".{domain}.*-*")):
        kind, _, pid = path.name.rpartition("-")
        if not pid.isdigit() or (int(pid) != os.getpid() and _pid_alive(int(pid))):
            continue
        if kind.endswith(".old") and not final.exists() and (path / META_FILE).exists():
            os.rename(path, final)  # crashed between the two renames of a swap
        else:
            shutil.rmtree(path, ignore_errors=True)


# -- building ----------------------------------------------------------------------------------------
def _progress(enabled: bool):
    if not enabled:
        return nullcontext(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), transient=False)


def copyable(t: RelTable) -> bool:
    """Whether Kuzu's COPY can load relationship table ``t``: it binds the endpoint columns as ``from`` and
    ``to``, so a property of either name (any case) is loaded with ``UNWIND`` instead."""
    return not any(c.lower() in ("from", "to") for c, _ in t.columns)


def _parquet_rows(path: Path, fields: list[tuple[str, str, str]]) -> list[dict]:
    """The rows of a staged Parquet file, keyed as the ``UNWIND`` insert reads them."""
    import pyarrow.parquet as pq

    names = {column: key for key, column, _ in fields}
    return [{names.get(k, k): v for k, v in row.items()} for row in pq.read_table(path).to_pylist()]


def load_dataset(conn: kuzu.Connection, data: Dataset, domain: str = "", *, progress: bool = True,
                 staged: Callable[[], None] | None = None) -> None:
    """Create the tables of ``data`` and load its rows through ``conn`` (an empty writable database) with
    ``COPY FROM``: staged Parquet files as they are, rows in memory as Arrow tables of :data:`BATCH` rows.
    A chunk with a value Arrow does not carry (DECIMAL, UUID, ...) is inserted with ``UNWIND`` instead.
    ``staged()`` is called once every row is staged or in memory, while the last tables are copied."""
    pk = {t.label: (t.primary_key, dict(t.columns)[t.primary_key]) for t in data.nodes}
    for t in data.nodes:
        conn.execute(node_ddl(t))
    for t in data.rels:
        conn.execute(rel_ddl(t))
    fields = {t.label: [(c, c, typ) for c, typ in t.columns] for t in data.nodes}
    fields |= {t.name: [("_from", "from", pk[t.from_label][1]), ("_to", "to", pk[t.to_label][1]),
                        *((c, c, typ) for c, typ in t.columns)] for t in data.rels}
    with _progress(progress) as bar:
        if data.staging is None and staged is not None:
            staged()
        tables = [*data.nodes, *data.rels] if data.staging is None else _ahead(_then(data.staging, staged))
        for table in tables:
            name = table.label if isinstance(table, NodeTable) else table.name
            insert = node_insert(table) if isinstance(table, NodeTable) else rel_insert(table, pk)
            task = bar.add_task(f"{domain} {name}", total=table.row_count) if bar else None
            copy = f"COPY {ident(name)} FROM "
            for path in table.staged:
                if isinstance(table, RelTable) and not copyable(table):
                    rows = _parquet_rows(path, fields[name])
                    for i in range(0, len(rows), BATCH):
                        conn.execute(insert, {"rows": rows[i:i + BATCH]})
                    continue
                conn.execute(copy + literal(str(path)))
            if bar:
                bar.advance(task, table.staged_rows)
            for i in range(0, len(table.rows), BATCH):
                chunk = table.rows[i:i + BATCH]
                by_copy = not isinstance(table, RelTable) or copyable(table)
                frame = rows_table(chunk, fields[name]) if by_copy else None  # noqa: F841 - COPY reads the variable by name
                if frame is not None:
                    conn.execute(copy + "frame")
                else:
                    conn.execute(insert, {"rows": chunk})
                if bar:
                    bar.advance(task, len(chunk))
    data.staging = None


def _then(items: Iterator[NodeTable | RelTable], done: Callable[[], None] | None) -> Iterator[NodeTable | RelTable]:
    yield from items
    if done is not None:
        done()


def _ahead(items: Iterator[NodeTable | RelTable]) -> Iterator[NodeTable | RelTable]:
    """Yields ``items``, the next one computed (staged) in a thread while the caller copies the current one:
    Kuzu's ``COPY`` runs without Python's lock, so staging and copying overlap."""
    with ThreadPoolExecutor(1, thread_name_prefix="kgqa-stage") as pool:
        following = pool.submit(next, items, None)
        while (item := following.result()) is not None:
            following = pool.submit(next, items, None)
            yield item


def count_tables(conn: kuzu.Connection) -> tuple[dict[str, int], dict[str, int]]:
    nodes, rels = {}, {}
    res = conn.execute("CALL show_tables() RETURN name, type")
    tables = []
    while res.has_next():
        tables.append(res.get_next())
    for name, kind in tables:
        pattern = f"MATCH (n:{ident(name)}) RETURN count(n)" if kind == "NODE" else \
            f"MATCH ()-[r:{ident(name)}]->() RETURN count(r)"
        (nodes if kind == "NODE" else rels)[name] = conn.execute(pattern).get_next()[0]
    return nodes, rels


def build_domain(domain: str, data_dir: str | Path, graphs_dir: str | Path, *, force: bool = False,
                 progress: bool = True, index: bool = True, annotations: bool = True) -> GraphMeta:
    """Returns the meta of bundled graph ``domain``, built from ``data_dir`` unless already current.

    ``index=False`` skips the entity index (FTS + names file); used only by tests of the loader itself.
    """
    return build_graph(domain, bundled_source(domain, data_dir, annotations=annotations), graphs_dir,
                       force=force, progress=progress, index=index)


def build_graph(name: str, source: Source, graphs_dir: str | Path, *, force: bool = False,
                progress: bool = True, index: bool = True,
                staged: Callable[[], None] | None = None,
                beside: Callable[[Graph, Future[DomainSpec]], None] | None = None) -> GraphMeta:
    """Returns the meta of graph ``name`` built (or registered) from ``source`` under ``graphs_dir``, unless
    it is already current. A name already taken by a graph of another source is an error.

    The source's version (a hash of its files) is computed while the files are validated and copied;
    ``staged()`` is called once the rows are validated, while Kuzu copies the last tables (Python is then
    free: a derived part can load what it needs); ``beside(graph, spec)``, when given, builds a further derived part of a new graph while its spec and
    entity index are built: it reads the graph, still in its build folder, from a thread of its own, and
    ``spec`` is a future of the graph's spec."""
    graphs_dir = Path(graphs_dir)
    graphs_dir.mkdir(parents=True, exist_ok=True)
    check_name(name)
    final = graphs_dir / name
    with ThreadPoolExecutor(1, thread_name_prefix="kgqa-version") as pool, _lock(graphs_dir, name):
        version = pool.submit(source.version)
        _clean_leftovers(graphs_dir, name)
        taken = registered(graphs_dir).get(name)
        if taken is not None and taken.source and not same_origin(taken.source, source.describe()):
            raise NameClash(f"a domain named {name!r} already exists (from {describe_origin(taken.source)}); "
                            f"remove it first: kgqa domains remove {name}")
        if not force and (final / META_FILE).exists() and is_current(final, version.result(), index=index):
            return GraphMeta.read(final)
        tmp = graphs_dir / f".{name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            meta = _build_into(tmp, name, source, version, progress=progress, index=index, staged=staged,
                               beside=beside)
            _swap(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return meta


class NameClash(ValueError):
    """A load under a name that a graph of another source already has."""


def same_origin(old: dict, new: dict) -> bool:
    """Whether two recorded sources are the same kind of source at the same paths."""
    return old.get("kind") == new.get("kind") and (old.get("kind") == "bundled" or old.get("files") == new.get("files"))


def describe_origin(source: dict) -> str:
    """Returns a recorded source in words: its kind and first file."""
    files = source.get("files") or []
    return f"{source.get('kind', '?')} {files[0]}" if files and source.get("kind") != "bundled" else \
        str(source.get("kind", "?"))


def _build_into(tmp: Path, name: str, source: Source, version: Future[str], *, progress: bool, index: bool,
                staged: Callable[[], None] | None,
                beside: Callable[[Graph, Future[DomainSpec]], None] | None) -> GraphMeta:
    meta = GraphMeta(domain=name, version="", source=source.describe(),
                     database=str(source.database) if source.database else "")
    if source.read is not None:
        data = source.read(tmp / STAGING)
        db = open_database(tmp / DB_FILE)
        conn = kuzu.Connection(db)
        try:
            load_dataset(conn, data, name, progress=progress, staged=staged)
            node_counts, rel_counts = count_tables(conn)
            _check_counts(data, node_counts, rel_counts)
            meta.node_counts = {t.label: node_counts[t.label] for t in data.nodes}
            meta.rel_counts = {t.name: rel_counts[t.name] for t in data.rels}
            conn.execute("CHECKPOINT")
        finally:
            conn.close()
            db.close()
            shutil.rmtree(tmp / STAGING, ignore_errors=True)
    meta.version = version.result()
    meta.write(tmp)  # provisional, so the folder opens as a graph; the folder is not registered before the swap
    try:
        graph = Graph(tmp, read_only=source.read is None, domain=name)
    except RuntimeError as err:
        raise SourceError(meta.database_path(tmp), 0, "cannot open as a Kuzu database (a database of another "
                          f"Kuzu version, or not a database; kgqa uses kuzu {kuzu.__version__}): {err}") from None
    try:
        spec_ready: Future[DomainSpec] = Future()
        with ThreadPoolExecutor(1, thread_name_prefix="kgqa-beside") as pool:
            other = pool.submit(beside, graph, spec_ready) if beside is not None else None
            try:
                if source.read is None:
                    meta.node_counts, meta.rel_counts = count_tables_of(graph)
                spec = derive_spec(graph, name)
                spec.write(tmp / SPEC_FILE)
                if source.annotations is not None:
                    ann = read_annotations(source.annotations, GraphSchema.from_graph(graph, samples=0))
                    (tmp / ANNOTATIONS_FILE).write_text(json.dumps(ann, indent=1, ensure_ascii=False),
                                                        encoding="utf-8")
                    spec = annotate(spec, ann)
            except BaseException as err:
                spec_ready.set_exception(err)
                raise
            spec_ready.set_result(spec)
            tables = {label: dict(props) for label, props in graph.catalog().nodes.items()}
            text, names, distinct = names_json(graph, spec, tables) if index else ("", 0, 0)
            if other is not None:
                other.result()  # before any DDL and the checkpoint, which wait for open read transactions
        if index:
            full_max = Settings.from_env().entity_full_max
            full = distinct <= full_max
            if source.read is not None and full:
                create_fts_indexes(lambda cypher: graph.execute_unchecked(cypher).rows, spec)
            save_names(tmp, text, embed=full)
            if not full:
                meta.notes.append(f"entity index: {names:,} names, more than {full_max:,} distinct "
                                  "(KGQA_ENTITY_FULL_MAX): linked by the token/trigram index alone, without name "
                                  "embeddings or Kuzu FTS indexes")
        if source.read is not None:
            graph.execute_unchecked("CHECKPOINT")
    finally:
        graph.close()
    meta.built_at = datetime.now(UTC).isoformat(timespec="seconds")
    meta.write(tmp)  # last: a folder without a complete meta.json is never taken for a graph
    return meta


def count_tables_of(graph: Graph) -> tuple[dict[str, int], dict[str, int]]:
    """Returns ({label: nodes}, {type: relationships}) of an open graph."""
    schema = GraphSchema.from_graph(graph, samples=0)
    return {k: v.count for k, v in schema.nodes.items()}, {k: v.count for k, v in schema.rels.items()}


def _check_counts(data: Dataset, nodes: dict[str, int], rels: dict[str, int]) -> None:
    """Every row must have landed: a relationship whose endpoint is missing would vanish silently."""
    want = {t.label: t.row_count for t in data.nodes} | {t.name: t.row_count for t in data.rels}
    got = nodes | rels
    bad = {k: (want[k], got.get(k)) for k in want if got.get(k) != want[k]}
    if bad:
        raise RuntimeError(f"loaded counts differ from the source rows (want, got): {bad}")


def _swap(tmp: Path, final: Path) -> None:
    """Put ``tmp`` at ``final``; the previous graph is renamed aside first, then removed."""
    old = final.parent / f".{final.name}.old-{os.getpid()}"
    if final.exists():
        os.rename(final, old)
    os.rename(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def build_all(data_dir: str | Path, graphs_dir: str | Path, *, domains: list[str] | None = None,
              force: bool = False, progress: bool = True, index: bool = True) -> dict[str, GraphMeta]:
    """Build every bundled graph (or ``domains``); returns {domain: meta}."""
    return {d: build_domain(d, data_dir, graphs_dir, force=force, progress=progress, index=index)
            for d in (domains or list(BUNDLED))}
