"""CSV tables validated while they stream, staged as Parquet files for Kuzu's ``COPY FROM``.

Each file is read by Arrow's multithreaded CSV reader in blocks, typed by the schema, checked (no empty or
duplicate primary key; every relationship endpoint in the key set of its label, kept in memory as one
Arrow array per label) and appended to ``<staging>/<n>.parquet``: memory holds one block and the key
sets, whatever the file's size. Whenever Arrow cannot vouch for a file (a row that does not parse, a failed
check, a value it reads otherwise, such as ``yes`` for true or a list), the file is read again row by row by
:mod:`kgqa.kg.csv_source`, which names the file and line of the first problem, or, when there is none,
stages the rows it typed itself. Both readers accept the same files and give the same values.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Callable, Container, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from kgqa.kg.arrow_tables import arrow_type, column, rows_table
from kgqa.kg.csv_source import check_node_header, check_rel_header, node_rows, rel_rows, table_file
from kgqa.kg.dataset import Dataset, NodeTable, RelTable
from kgqa.kg.ddl import SourceError, parse_ddl

BLOCK_BYTES = 16 << 20  # Arrow reads this much CSV at a time
CHUNK_ROWS = 100_000  # rows per Parquet chunk on the row-by-row path
_TRUE = [v for w in ("true", "t", "1", "yes") for v in {w, w.upper(), w.capitalize()}]
_FALSE = [v for w in ("false", "f", "0", "no") for v in {w, w.upper(), w.capitalize()}]


class _Unsure(Exception):
    """Arrow read the file but cannot vouch for it: the row-by-row reader decides."""


def stage_csv_dataset(schema: str | Path, csv_dir: str | Path, staging: str | Path) -> Dataset:
    """Returns the dataset the schema file declares, every table's validated rows staged as Parquet files
    under ``staging`` (``table.staged``); a problem is a SourceError naming the file and line."""
    data = stream_csv_dataset(schema, csv_dir, staging)
    for _ in data.staging or ():
        pass
    data.staging = None
    return data


def stream_csv_dataset(schema: str | Path, csv_dir: str | Path, staging: str | Path) -> Dataset:
    """Returns the dataset the schema file declares, its tables staged one by one as ``data.staging`` is read
    (see :class:`~kgqa.kg.dataset.Dataset`); a problem is a SourceError naming the file and line, raised by the
    step that reads the file."""
    csv_dir, staging = Path(csv_dir), Path(staging)
    if not csv_dir.is_dir():
        raise SourceError(csv_dir, 0, "no such CSV folder")
    staging.mkdir(parents=True, exist_ok=True)
    node_tables, rel_tables = parse_ddl(schema)

    def stage() -> Iterator[NodeTable | RelTable]:
        nodes = {t.label: t for t in node_tables}
        keys: dict[str, Container] = {}
        files = (staging / f"{i}.parquet" for i in itertools.count())
        for t in node_tables:
            keys[t.label] = stage_nodes(t, table_file(csv_dir, t.label), next(files))
            yield t
        for t in rel_tables:
            stage_rels(t, table_file(csv_dir, t.name), nodes, keys, next(files))
            yield t

    return Dataset(node_tables, rel_tables, stage())


def header_of(path: Path) -> list[str] | None:
    """Returns the stripped header of a CSV file, or None when it cannot be read (the row reader says why)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            row = next(csv.reader(fh, strict=True), None)
    except (csv.Error, UnicodeDecodeError):
        return None
    return [h.strip() for h in row] if row is not None else None


def stage_nodes(table: NodeTable, path: Path, out: Path) -> Container:
    """Stages a node table's CSV file at ``out``; returns its primary keys (an Arrow array, or a set on the
    rare row-by-row route of a key type Arrow does not carry)."""
    header = header_of(path)
    if header is not None:
        check_node_header(path, header, table)
        types = dict(table.columns)
        if all(_csv_type(types[h]) for h in header):
            try:
                return _arrow_nodes(table, path, header, out)
            except (_Unsure, pa.ArrowException):
                out.unlink(missing_ok=True)
                table.staged.clear()
                table.staged_rows = 0
    seen: dict[Any, int] = {}
    _stage_rows(table, node_rows(table, path, seen), [(c, c, t) for c, t in table.columns], out)
    key_type = arrow_type(dict(table.columns)[table.primary_key])
    arr = column(list(seen), key_type) if key_type is not None else None
    return arr if arr is not None else set(seen)


def stage_rels(table: RelTable, path: Path, nodes: dict[str, NodeTable], keys: dict[str, Container],
               out: Path) -> None:
    """Stages a relationship table's CSV file at ``out``; every endpoint must be among ``keys`` of its label."""
    header = header_of(path)
    ends = (nodes[table.from_label], nodes[table.to_label])
    key_types = [dict(n.columns)[n.primary_key] for n in ends]
    if header is not None:
        check_rel_header(path, header, table)
        types = dict(table.columns)
        fast = all(isinstance(keys[n.label], pa.Array) for n in ends) and \
            all(_csv_type(t) for t in [*key_types, *(types[h] for h in header[2:])])
        if fast:
            try:
                _arrow_rels(table, path, header, [keys[n.label] for n in ends], key_types, out)
                return
            except (_Unsure, pa.ArrowException):
                out.unlink(missing_ok=True)
                table.staged.clear()
                table.staged_rows = 0
    sets = {n.label: keys[n.label] if isinstance(keys[n.label], set) else set(keys[n.label].to_pylist())
            for n in ends}
    fields = [("_from", "from", key_types[0]), ("_to", "to", key_types[1]), *((c, c, t) for c, t in table.columns)]
    _stage_rows(table, rel_rows(table, path, nodes, sets), fields, out)


def _csv_type(typ: str) -> bool:
    """Whether Arrow's CSV reader parses Kuzu type ``typ`` as the row reader does (lists it does not)."""
    return not typ.endswith("[]") and arrow_type(typ) is not None


def _reader(path: Path, names: list[str], types: list[pa.DataType]) -> pacsv.CSVStreamingReader:
    return pacsv.open_csv(
        path, read_options=pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=BLOCK_BYTES),
        parse_options=pacsv.ParseOptions(newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(column_types=dict(zip(names, types)), null_values=[""],
                                             strings_can_be_null=True, quoted_strings_can_be_null=True,
                                             true_values=_TRUE, false_values=_FALSE))


def _arrow_nodes(table: NodeTable, path: Path, header: list[str], out: Path) -> pa.Array:
    types = dict(table.columns)
    order = [c for c, _ in table.columns]
    keys = []
    with _Writer(table, out) as writer:
        for batch in _reader(path, header, [arrow_type(types[h]) for h in header]):
            tbl = pa.Table.from_batches([batch]).select(order)
            key = tbl.column(table.primary_key)
            if key.null_count:
                raise _Unsure
            keys.append(key)
            writer.write(tbl)
    key_type = arrow_type(types[table.primary_key])
    arr = pa.chunked_array([c for k in keys for c in k.chunks], type=key_type).combine_chunks()
    if pc.count_distinct(arr).as_py() != len(arr):
        raise _Unsure  # a duplicate key: the row reader names its line
    return arr


def _arrow_rels(table: RelTable, path: Path, header: list[str], ends: list[pa.Array], key_types: list[str],
                out: Path) -> None:
    types = dict(table.columns)
    props = header[2:]
    names = ["from", "to", *props]
    order = ["from", "to", *(c for c, _ in table.columns)]
    known = [_membership(keys) for keys in ends]
    with _Writer(table, out) as writer:
        for batch in _reader(path, names, [arrow_type(key_types[0]), arrow_type(key_types[1]),
                                           *(arrow_type(types[p]) for p in props)]):
            tbl = pa.Table.from_batches([batch]).select(order)
            for name, within in zip(("from", "to"), known):
                col = tbl.column(name)
                if col.null_count or not within(col):
                    raise _Unsure  # an endpoint that is not there: the row reader names its line
            writer.write(tbl)


def _membership(keys: pa.Array) -> Callable[[pa.ChunkedArray], bool]:
    """Returns a test that every value of a column is among ``keys`` (distinct, no nulls): a range test when
    the keys are every integer from the least to the greatest (keys numbered 1..n), else a hash lookup."""
    if pa.types.is_integer(keys.type) and len(keys):
        low, high = (v.as_py() for v in pc.min_max(keys).values())
        if high - low + 1 == len(keys):
            def within(col: pa.ChunkedArray) -> bool:
                if not len(col):
                    return True
                least, most = (v.as_py() for v in pc.min_max(col).values())
                return low <= least and most <= high
            return within
    return lambda col: bool(pc.all(pc.is_in(col, value_set=keys)).as_py())


def _stage_rows(table: NodeTable | RelTable, rows: Iterable[dict[str, Any]], fields: list[tuple[str, str, str]],
                out: Path) -> None:
    """Stages typed rows in chunks; rows of a type Arrow does not carry stay in ``table.rows``."""
    with _Writer(table, out) as writer:
        for chunk in _batched(rows, CHUNK_ROWS):
            tbl = rows_table(chunk, fields)
            if tbl is None:
                table.rows.extend(chunk)
            else:
                writer.write(tbl)


def _batched(rows: Iterable[dict[str, Any]], n: int) -> Iterator[list[dict[str, Any]]]:
    it = iter(rows)
    while chunk := list(itertools.islice(it, n)):
        yield chunk


class _Writer:
    """Appends tables to one Parquet file, recorded on ``table`` (``staged``, ``staged_rows``) when closed."""

    def __init__(self, table: NodeTable | RelTable, path: Path):
        self.table, self.path, self.writer, self.rows = table, path, None, 0

    def __enter__(self) -> _Writer:
        return self

    def write(self, tbl: pa.Table) -> None:
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, tbl.schema, compression="none", use_dictionary=False)
        self.writer.write_table(tbl.cast(self.writer.schema))
        self.rows += tbl.num_rows

    def __exit__(self, *exc) -> None:
        if self.writer is not None:
            self.writer.close()
            if exc[0] is None:
                self.table.staged.append(self.path)
                self.table.staged_rows += self.rows

