"""The names file of entity linking: one row per (label, key, name, prop), its name vectors and FTS indexes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from kgqa.kg.cypher import ident, literal
from kgqa.kg.entity_lexical import fold
from kgqa.kg.spec import DomainSpec

ENTRIES_FILE = "entities.json"
VECTORS_FILE = "entities.npz"


class Entry(NamedTuple):
    """One name of one node in the names file."""

    label: str
    key: Any  # primary-key value as stored
    name: str  # the matched text
    prop: str  # property the text comes from
    display: str  # display value of the node


def _rows(run: Callable[[str], Iterable[list]], cypher: str) -> list[list]:
    return [list(r) for r in run(cypher)]


def _conn_runner(conn) -> Callable[[str], list[list]]:
    def run(cypher: str) -> list[list]:
        res = conn.execute(cypher)
        rows = []
        while res.has_next():
            rows.append(res.get_next())
        res.close()
        return rows
    return run


def graph_runner(graph) -> Callable[[str], list[list]]:
    return lambda cypher: graph.execute_unchecked(cypher).rows


def _node_tables(run) -> dict[str, dict[str, str]]:
    """label -> {property: type} for every node table."""
    tables = {}
    for row in _rows(run, "CALL show_tables() RETURN *"):
        name, kind = row[1], row[2]
        if kind == "NODE":
            tables[name] = {r[1]: r[2] for r in _rows(run, f"CALL table_info({literal(name)}) RETURN *")}
    return tables


def collect_entries(run: Callable[[str], Iterable[list]], spec: DomainSpec,
                    tables: dict[str, dict[str, str]] | None = None) -> list[Entry]:
    """Every (label, key, name, prop) of the spec's name-like properties present in the graph; ``tables``
    (label -> {property: type}, from the engine's catalogue) spares reading Kuzu's catalogue."""
    tables = _node_tables(run) if tables is None else tables
    columns = lambda cypher, types: [list(c) for c in zip(*_rows(run, cypher))]  # noqa: E731
    return [Entry(*row) for row in entry_rows(columns, spec, tables)]


def _label_queries(spec: DomainSpec, tables: dict[str, dict[str, str]]
                   ) -> Iterator[tuple[str, list[str], str, list[str]]]:
    """Yields (label, name properties present, the query of its keys, display values and names, the Kuzu types
    of those columns) for each label with name-like properties in ``tables`` (label -> {property: type})."""
    for label, props in spec.name_props.items():
        if label not in tables:
            continue
        pk = spec.primary_keys[label]
        disp = spec.display_prop(label)
        present = [p for p in props if p in tables[label]]
        if not present or pk not in tables[label]:
            continue
        cols = ", ".join(f"n.{ident(p)} AS c{j}" for j, p in enumerate(present))
        yield (label, present, f"MATCH (n:{ident(label)}) RETURN n.{ident(pk)} AS k, n.{ident(disp)} AS d, {cols}",
               [tables[label].get(p, "") for p in (pk, disp, *present)])


def _label_rows(label: str, present: list[str], found: list[list]) -> list[list]:
    """The names file's rows of one label from its query's columns (keys, display values, one per name)."""
    if len(present) == 1:  # the usual case, without the per-row set of the loop below
        prop = present[0]
        texts = [v if v is None or isinstance(v, str) else str(v) for v in found[2]]
        return [[label, key, text.strip(), prop, display if isinstance(display, str) else
                 str(display if display is not None else key)]
                for key, display, text in zip(found[0], found[1], texts) if text is not None and text.strip()]
    out = []
    for key, display, *values in zip(*found):
        display = str(display if display is not None else key)
        seen = set()
        for prop, value in zip(present, values):
            if value is None:
                continue
            text = value if isinstance(value, str) else str(value)
            if text in seen or not text.strip():
                continue
            seen.add(text)
            out.append([label, key, text.strip(), prop, display])
    return out


def entry_rows(columns: Callable[[str, list[str]], list[list]], spec: DomainSpec,
               tables: dict[str, dict[str, str]]) -> list[list]:
    """Returns the names file's rows, ``[label, key, name, prop, display]``, of the spec's name-like properties
    present in ``tables`` (label -> {property: type}); ``columns(cypher, types)`` returns a query's result column
    by column."""
    out: list[list] = []
    for label, present, cypher, types in _label_queries(spec, tables):
        found = columns(cypher, types)
        if found and found[0]:
            out += _label_rows(label, present, found)
    return out


def names_json(graph, spec: DomainSpec, tables: dict[str, dict[str, str]]) -> tuple[str, int, int]:
    """Returns the names file's text (the JSON of :func:`entry_rows`, in the same order), its number of rows
    and its number of distinct names, read from ``graph`` (a :class:`~kgqa.kg.db.Graph`) as Arrow tables: a
    label's rows are written by Arrow's string kernels (:func:`_json_rows`), no Python object per row, unless
    they need more than that (several name properties, control characters, keys of other types), then
    through Python rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from kgqa.kg.arrow_tables import reads_as_rows

    parts: list[str] = []
    names: list = []
    for label, present, cypher, types in _label_queries(spec, tables):
        table = graph.table(cypher) if reads_as_rows(types) else None
        fast = _json_rows(label, present, table, types) if table is not None else None
        if fast is not None:
            parts.append(fast[0])
            names.append(fast[1])
            continue
        found = [c.to_pylist() for c in table.columns] if table is not None else graph.columns(cypher, types)
        rows = _label_rows(label, present, found) if found and found[0] else []
        parts.append(json.dumps(rows, ensure_ascii=False)[1:-1])
        names.append(pa.array([r[2] for r in rows], type=pa.string()))
    every = pa.chunked_array(names, type=pa.string())
    distinct = pc.count_distinct(every).as_py() if len(every) else 0
    return "[" + ", ".join(p for p in parts if p) + "]", len(every), distinct


_INTEGERS = frozenset({"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "SERIAL"})
# characters json.dumps escapes, or str.strip() strips, besides the space, a quote and a backslash
_NOT_PLAIN = r"[\x{0}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]"


def _json_rows(label: str, present: list[str], table, types: list[str]):
    """Returns (the JSON of one label's names file rows, without the brackets; the names as an Arrow array),
    built by Arrow's string kernels, or None when a row needs Python (see :func:`names_json`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(present) != 1:
        return None
    key_type, disp_type, name_type = types
    if name_type != "STRING" or key_type not in _INTEGERS | {"STRING"} or disp_type not in (key_type, "STRING") \
            or table.num_rows == 0:
        return None
    key, disp, name = table.columns
    texts = [c for c, t in zip(table.columns, types) if t == "STRING"]
    if any(pc.any(pc.match_substring_regex(c, _NOT_PLAIN)).as_py() for c in texts):
        return None
    keep = pc.not_equal(pc.utf8_trim(pc.fill_null(name, ""), characters=" "), "")
    key, disp, name = (c.filter(keep) for c in (key, disp, name))
    name = pc.utf8_trim(name, characters=" ")
    key_text = key if key_type == "STRING" else pc.cast(key, pa.string())
    disp = pc.coalesce(disp if disp_type == "STRING" else pc.cast(disp, pa.string()), key_text)

    def quoted(col):  # a JSON string: no character here needs escaping but a quote and a backslash
        escaped = pc.replace_substring(pc.replace_substring(col, "\\", "\\\\"), '"', '\\"')
        return pc.binary_join_element_wise('"', escaped, '"', "")

    closing = pc.binary_join_element_wise(quoted(disp), "]", "")
    rows = pc.binary_join_element_wise("[" + json.dumps(label, ensure_ascii=False),
                                       quoted(key) if key_type == "STRING" else key_text, quoted(name),
                                       json.dumps(present[0], ensure_ascii=False), closing, ", ")
    return ", ".join(rows.to_pylist()), name.combine_chunks()


def _variants(entries: list[Entry]) -> tuple[list[str], list[list[int]]]:
    """Distinct texts to embed (each name and its folded variant) -> the entries they stand for."""
    index: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        for text in {e.name, fold(e.name)}:
            if text:
                index.setdefault(text, []).append(i)
    texts = sorted(index)
    return texts, [index[t] for t in texts]


def embed_entries(entries: list[Entry], limit: int | None = None) -> dict[str, np.ndarray]:
    """Returns the vectors file's arrays: embeddings of the entries' name texts and, per text, the entries it
    stands for; none at all when there are more than ``limit`` distinct names (a sample would rarely hold the
    name asked about, and the lexical index links names at any size)."""
    from kgqa.kg.embed import embed

    if limit is not None and len({e.name for e in entries}) > limit:
        texts, owners = [], []
    else:
        texts, owners = _variants(entries)
    vectors = embed(texts) if texts else np.zeros((0, 384), dtype=np.float32)
    offsets = np.zeros(len(owners) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(o) for o in owners])
    flat = np.array([i for o in owners for i in o], dtype=np.int64)
    return {"vectors": vectors.astype(np.float32), "offsets": offsets, "owners": flat}


def create_fts_indexes(run: Callable[[str], Iterable[list]], spec: DomainSpec) -> list[str]:
    """``CREATE_FTS_INDEX`` per label over its STRING name properties; returns the index names."""
    tables = _node_tables(run)
    try:
        run("LOAD EXTENSION fts")
    except RuntimeError:
        pass  # already loaded on this connection
    made = []
    for label, props in spec.name_props.items():
        cols = [p for p in props if tables.get(label, {}).get(p) == "STRING"]
        if not cols:
            continue
        idx = fts_index_name(label)
        try:
            run(f"CALL DROP_FTS_INDEX('{label}', '{idx}')")
        except RuntimeError:
            pass  # not there yet
        col_list = ", ".join(f"'{c}'" for c in cols)
        run(f"CALL CREATE_FTS_INDEX('{label}', '{idx}', [{col_list}])")
        made.append(idx)
    return made


def fts_index_name(label: str) -> str:
    return f"fts_{label.lower()}"


def build_index(conn, graph_dir: Path, spec: DomainSpec) -> None:
    """Build FTS indexes (in the database) and the name/embedding files (beside it) for ``spec``.

    ``conn`` is a writable ``kuzu.Connection``; call at the end of a graph build.
    """
    run = _conn_runner(conn)
    graph_dir = Path(graph_dir)
    entries = collect_entries(run, spec)
    create_fts_indexes(run, spec)
    save_entries(graph_dir, entries)


def save_entries(graph_dir: Path, entries: list[Entry] | list[list], *, vectors_max: int | None = None) -> None:
    """Writes the names file and the vectors file (no embeddings above ``vectors_max`` distinct names), of
    entries or of :func:`entry_rows`."""
    rows = [[e.label, e.key, e.name, e.prop, e.display] if isinstance(e, Entry) else e for e in entries]
    save_names(graph_dir, json.dumps(rows, ensure_ascii=False),
               embed=vectors_max is None or full_index(rows, vectors_max))


def save_names(graph_dir: Path, text: str, *, embed: bool) -> None:
    """Writes the names file (``text``: the JSON of :func:`entry_rows`) and the vectors file: the names'
    embeddings when ``embed``, else none."""
    graph_dir.mkdir(parents=True, exist_ok=True)
    (graph_dir / ENTRIES_FILE).write_text(text, encoding="utf-8")
    np.savez(graph_dir / VECTORS_FILE, **embed_entries([Entry(*r) for r in json.loads(text)] if embed else []))


def full_index(entries: list[Entry] | list[list], full_max: int) -> bool:
    """Whether a graph's names (entries, or :func:`entry_rows`) are few enough (at most ``full_max`` distinct)
    for embeddings and FTS too."""
    return len({e.name if isinstance(e, Entry) else e[2] for e in entries}) <= full_max


def load_entries(graph_dir: Path) -> list[Entry] | None:
    path = Path(graph_dir) / ENTRIES_FILE
    if not path.exists():
        return None
    return [Entry(*row) for row in json.loads(path.read_text(encoding="utf-8"))]
