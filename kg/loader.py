"""Build one Kuzu database per domain from the source data, atomically and idempotently.

A domain module (``kg.domains.<domain>``) says what to load: ``source_files(data_dir)`` and
``read(data_dir) -> Dataset`` (typed node and relationship tables with their rows). This module turns a
:class:`Dataset` into ``graphs_dir/<domain>/graph.kuzu`` plus ``meta.json``:

* idempotent: the build is skipped when ``meta.json`` already carries the same version (a hash of the
  source files and :data:`LOADER_VERSION`), unless ``force``;
* atomic: everything is built in ``graphs_dir/.<domain>.tmp-<pid>/``, ``meta.json`` is written last, and
  the finished folder is swapped in with ``os.rename``, so ``graphs_dir/<domain>`` is always either the
  previous complete graph or the new complete graph, never a half-built one;
* values are always passed as query parameters (``UNWIND $rows``), never spliced into Cypher.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kuzu

from kgqa.kg.dataset import Dataset, NodeTable, RelTable
from kgqa.kg.db import DB_FILE, META_FILE, GraphMeta, open_database
from kgqa.kg.domains import SPECS

LOADER_VERSION = "kg-loader-1"
BATCH = 1000


def q(name: str) -> str:
    """Back-quote an identifier (``Order`` is a reserved word in Kuzu)."""
    return "`" + name.replace("`", "``") + "`"


# -- DDL and data statements -------------------------------------------------------------------------
def node_ddl(t: NodeTable) -> str:
    cols = ", ".join(f"{q(c)} {typ}" for c, typ in t.columns)
    return f"CREATE NODE TABLE {q(t.label)}({cols}, PRIMARY KEY({q(t.primary_key)}))"


def rel_ddl(t: RelTable) -> str:
    cols = "".join(f", {q(c)} {typ}" for c, typ in t.columns)
    return f"CREATE REL TABLE {q(t.name)}(FROM {q(t.from_label)} TO {q(t.to_label)}{cols})"


def node_insert(t: NodeTable) -> str:
    props = ", ".join(f"{q(c)}: CAST(r.{q(c)} AS {typ})" for c, typ in t.columns)
    return f"UNWIND $rows AS r CREATE (:{q(t.label)} {{{props}}})"


def rel_insert(t: RelTable, pk: dict[str, tuple[str, str]]) -> str:
    (fk, ftype), (tk, ttype) = pk[t.from_label], pk[t.to_label]
    props = ", ".join(f"{q(c)}: CAST(r.{q(c)} AS {typ})" for c, typ in t.columns)
    return (f"UNWIND $rows AS r MATCH (a:{q(t.from_label)} {{{q(fk)}: CAST(r._from AS {ftype})}}), "
            f"(b:{q(t.to_label)} {{{q(tk)}: CAST(r._to AS {ttype})}}) "
            f"CREATE (a)-[:{q(t.name)} {{{props}}}]->(b)")


# -- versions and paths ------------------------------------------------------------------------------
def domain_module(domain: str):
    if domain not in SPECS:
        raise ValueError(f"unknown domain {domain!r}; known: {', '.join(SPECS)}")
    return importlib.import_module(f"kgqa.kg.domains.{domain}")


def source_version(domain: str, data_dir: Path) -> str:
    """sha256 over the loader version, the domain and every source file (name and bytes)."""
    h = hashlib.sha256(f"{LOADER_VERSION}\0{domain}\0".encode())
    for path in sorted(domain_module(domain).source_files(Path(data_dir))):
        h.update(path.name.encode() + b"\0")
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def _index_builder():
    """``kg.entity_index.build_index`` when that module is there, else None."""
    try:
        module = importlib.import_module("kgqa.kg.entity_index")
        return module.build_index, getattr(module, "ENTRIES_FILE", None)
    except (ImportError, AttributeError):
        return None, None


def is_current(graph_dir: Path, version: str, *, index: bool = True) -> bool:
    """True when ``graph_dir`` holds a complete graph of ``version`` (and its entity index, if asked)."""
    graph_dir = Path(graph_dir)
    if not (graph_dir / META_FILE).exists() or not (graph_dir / DB_FILE).exists():
        return False
    try:
        if GraphMeta.read(graph_dir).version != version:
            return False
    except (ValueError, TypeError, OSError):
        return False
    builder, entries_file = _index_builder()
    return not (index and builder and entries_file and not (graph_dir / entries_file).exists())


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


def load_dataset(conn: kuzu.Connection, data: Dataset, domain: str = "", *, progress: bool = True) -> None:
    """Create the tables of ``data`` and insert its rows through ``conn`` (an empty writable database)."""
    pk = {t.label: (t.primary_key, dict(t.columns)[t.primary_key]) for t in data.nodes}
    for t in data.nodes:
        conn.execute(node_ddl(t))
    for t in data.rels:
        conn.execute(rel_ddl(t))
    steps = [(t.label, node_insert(t), t.rows) for t in data.nodes]
    steps += [(t.name, rel_insert(t, pk), t.rows) for t in data.rels]
    with _progress(progress) as bar:
        for name, stmt, rows in steps:
            task = bar.add_task(f"{domain} {name}", total=len(rows)) if bar else None
            for i in range(0, len(rows), BATCH):
                chunk = rows[i:i + BATCH]
                conn.execute(stmt, {"rows": chunk})
                if bar:
                    bar.advance(task, len(chunk))


def count_tables(conn: kuzu.Connection) -> tuple[dict[str, int], dict[str, int]]:
    nodes, rels = {}, {}
    res = conn.execute("CALL show_tables() RETURN name, type")
    tables = []
    while res.has_next():
        tables.append(res.get_next())
    for name, kind in tables:
        pattern = f"MATCH (n:{q(name)}) RETURN count(n)" if kind == "NODE" else \
            f"MATCH ()-[r:{q(name)}]->() RETURN count(r)"
        (nodes if kind == "NODE" else rels)[name] = conn.execute(pattern).get_next()[0]
    return nodes, rels


def build_domain(domain: str, data_dir: str | Path, graphs_dir: str | Path, *, force: bool = False,
                 progress: bool = True, index: bool = True) -> GraphMeta:
    """Build ``graphs_dir/<domain>`` from ``data_dir`` unless it is already current; return its meta.

    ``index=False`` skips the entity index (FTS + names file); used only by tests of the loader itself.
    """
    data_dir, graphs_dir = Path(data_dir), Path(graphs_dir)
    graphs_dir.mkdir(parents=True, exist_ok=True)
    module = domain_module(domain)
    version = source_version(domain, data_dir)
    final = graphs_dir / domain
    with _lock(graphs_dir, domain):
        _clean_leftovers(graphs_dir, domain)
        if not force and is_current(final, version, index=index):
            return GraphMeta.read(final)
        tmp = graphs_dir / f".{domain}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            meta = _build_into(tmp, domain, module.read(data_dir), version, progress=progress, index=index)
            _swap(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return meta


def _build_into(tmp: Path, domain: str, data: Dataset, version: str, *, progress: bool,
                index: bool) -> GraphMeta:
    db = open_database(tmp / DB_FILE)
    conn = kuzu.Connection(db)
    try:
        load_dataset(conn, data, domain, progress=progress)
        node_counts, rel_counts = count_tables(conn)
        _check_counts(data, node_counts, rel_counts)
        node_counts = {t.label: node_counts[t.label] for t in data.nodes}
        rel_counts = {t.name: rel_counts[t.name] for t in data.rels}
        builder, _ = _index_builder()
        if index and builder is not None:
            builder(conn, tmp, SPECS[domain])
        conn.execute("CHECKPOINT")
    finally:
        conn.close()
        db.close()
    meta = GraphMeta(domain=domain, version=version, node_counts=node_counts, rel_counts=rel_counts,
                     built_at=datetime.now(UTC).isoformat(timespec="seconds"))
    meta.write(tmp)  # last: a folder without meta.json is never taken for a graph
    return meta


def _check_counts(data: Dataset, nodes: dict[str, int], rels: dict[str, int]) -> None:
    """Every row must have landed: a relationship whose endpoint is missing would vanish silently."""
    want = {t.label: len(t.rows) for t in data.nodes} | {t.name: len(t.rows) for t in data.rels}
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
    """Build every domain (or ``domains``); returns {domain: meta}."""
    return {d: build_domain(d, data_dir, graphs_dir, force=force, progress=progress, index=index)
            for d in (domains or list(SPECS))}
