"""A graph from a Kuzu schema file and one CSV per table (``kgqa load --schema S --csv DIR``).

Each table ``T`` of the schema has ``DIR/T.csv`` with a header row. Node files: the table's columns,
named in the header (any order). Relationship files: the FROM and TO primary keys first (any header
names), then the relationship's columns by name — Kuzu's ``COPY FROM`` convention. Every value is checked
against its column type before anything is built; a problem is a :class:`~kgqa.kg.ddl.SourceError` naming
the file and line (a row that does not parse, the wrong number of fields, a duplicate or empty primary key,
a relationship whose endpoint does not exist).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
from collections.abc import Callable, Container, Iterator
from pathlib import Path
from typing import Any

from kgqa.kg.dataset import Dataset, NodeTable, RelTable
from kgqa.kg.ddl import SourceError, parse_ddl

_TRUE, _FALSE = {"true", "t", "1", "yes"}, {"false", "f", "0", "no"}


def convert(typ: str) -> Callable[[str], Any]:
    """Returns the function that turns a CSV field into a value of Kuzu type ``typ`` (ValueError if it can't)."""
    if typ.endswith("[]"):
        inner = convert(typ[:-2])
        return lambda raw: [inner(str(v)) for v in list_items(raw)]
    base = re.match(r"[A-Z0-9_]*", typ).group()
    if base.startswith(("INT", "UINT")) or base == "SERIAL":
        return lambda raw: int(raw.strip())
    if base in ("DOUBLE", "FLOAT", "DECIMAL"):
        return lambda raw: float(raw.strip())
    if base == "BOOLEAN":
        return boolean
    if base == "DATE":
        return lambda raw: dt.date.fromisoformat(raw.strip()).isoformat()
    if base == "TIMESTAMP":
        return lambda raw: dt.datetime.fromisoformat(raw.strip()).isoformat(sep=" ")
    return lambda raw: raw


def boolean(raw: str) -> bool:
    """Returns the truth value of a CSV boolean field (true/false, t/f, 1/0, yes/no)."""
    low = raw.strip().lower()
    if low in _TRUE or low in _FALSE:
        return low in _TRUE
    raise ValueError(f"{raw!r} is not a boolean")


def list_items(raw: str) -> list[Any]:
    """Returns the items of a list field written as JSON (``["a","b"]``) or as ``[a,b]``."""
    text = raw.strip()
    try:
        value = json.loads(text)
        if isinstance(value, list):
            return value
    except json.JSONDecodeError:
        pass
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError(f"{raw!r} is not a list (write [a,b] or a JSON list)")
    body = text[1:-1].strip()
    return [v.strip() for v in body.split(",")] if body else []


def table_file(csv_dir: Path, table: str) -> Path:
    """Returns ``csv_dir/<table>.csv`` (the name's case may differ), or raises SourceError when absent."""
    exact = csv_dir / f"{table}.csv"
    if exact.is_file():
        return exact
    folded = [p for p in csv_dir.glob("*.csv") if p.stem.casefold() == table.casefold()]
    if len(folded) == 1:
        return folded[0]
    raise SourceError(exact, 0, f"no CSV file for table {table!r}")


def records(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Returns the header and the (line, fields) of every non-empty record of one CSV file."""
    header, rows = stream_records(path)
    return header, list(rows)


def stream_records(path: Path) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """Returns the header and an iterator over the (line, fields) of the non-empty records of one CSV file,
    read as they are consumed (the file stays open until the iterator is exhausted)."""
    fh = open(path, encoding="utf-8-sig", newline="")
    reader = csv.reader(fh, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as err:
        fh.close()
        raise SourceError(path, reader.line_num, f"cannot parse CSV: {err}") from None
    except UnicodeDecodeError as err:
        fh.close()
        raise SourceError(path, 1, f"not UTF-8 text ({err.reason})") from None
    if header is None:
        fh.close()
        raise SourceError(path, 1, "empty file: a header row is required")

    def rows() -> Iterator[tuple[int, list[str]]]:
        with fh:
            while True:
                line = reader.line_num + 1
                try:
                    fields = next(reader)
                except StopIteration:
                    return
                except csv.Error as err:
                    raise SourceError(path, reader.line_num, f"cannot parse CSV: {err}") from None
                except UnicodeDecodeError as err:
                    raise SourceError(path, 1, f"not UTF-8 text ({err.reason})") from None
                if fields and any(f.strip() for f in fields):
                    yield line, fields

    return [h.strip() for h in header], rows()


def read_nodes(table: NodeTable, csv_dir: Path) -> dict[Any, int]:
    """Fills ``table.rows`` from its CSV; returns {primary key: line} for the endpoint checks."""
    seen: dict[Any, int] = {}
    table.rows.extend(node_rows(table, table_file(csv_dir, table.label), seen))
    return seen


def check_node_header(path: Path, header: list[str], table: NodeTable) -> None:
    """Raises SourceError (line 1) unless ``header`` names each column of ``table`` once, in any order."""
    want = [c for c, _ in table.columns]
    unknown = [h for h in header if h not in want]
    missing = [c for c in want if c not in header]
    if unknown or missing or len(set(header)) != len(header):
        raise SourceError(path, 1, f"header {header} does not match the columns of {table.label!r} {want}"
                                   + (f"; unknown {unknown}" if unknown else "") + (f"; missing {missing}" if missing else ""))


def node_rows(table: NodeTable, path: Path, seen: dict[Any, int]) -> Iterator[dict[str, Any]]:
    """Yields the typed rows of a node table's CSV file as they are read, recording {key: line} in ``seen``;
    the first problem is a SourceError naming the file and line."""
    header, rows = stream_records(path)
    check_node_header(path, header, table)
    conv = [convert(dict(table.columns)[h]) for h in header]
    for line, fields in rows:
        row = typed(path, line, header, fields, conv)
        key = row[table.primary_key]
        if key is None:
            raise SourceError(path, line, f"empty primary key {table.primary_key!r}")
        if key in seen:
            raise SourceError(path, line, f"duplicate primary key {table.primary_key} = {key!r} "
                                          f"(first on line {seen[key]})")
        seen[key] = line
        yield row


def typed(path: Path, line: int, header: list[str], fields: list[str], conv: list[Callable]) -> dict[str, Any]:
    """Returns one record as {column: value}; an empty field is null."""
    if len(fields) != len(header):
        raise SourceError(path, line, f"{len(fields)} fields, the header has {len(header)}")
    row = {}
    for name, raw, fn in zip(header, fields, conv):
        if raw == "":
            row[name] = None
            continue
        try:
            row[name] = fn(raw)
        except ValueError as err:
            raise SourceError(path, line, f"column {name!r}: {err}") from None
    return row


def read_rels(table: RelTable, csv_dir: Path, nodes: dict[str, NodeTable], keys: dict[str, dict]) -> None:
    """Fills ``table.rows`` (``_from``/``_to`` plus columns) from its CSV; endpoints must exist."""
    table.rows.extend(rel_rows(table, table_file(csv_dir, table.name), nodes, keys))


def check_rel_header(path: Path, header: list[str], table: RelTable) -> None:
    """Raises SourceError (line 1) unless ``header`` is two endpoint columns, then each column of ``table`` once."""
    props = header[2:]
    want = [c for c, _ in table.columns]
    if len(header) < 2 or sorted(props) != sorted(want) or len(set(props)) != len(props):
        raise SourceError(path, 1, f"header {header}: expected the FROM and TO keys, then the columns of "
                                   f"{table.name!r} {want}")


def rel_rows(table: RelTable, path: Path, nodes: dict[str, NodeTable], keys: dict[str, Container]
             ) -> Iterator[dict[str, Any]]:
    """Yields the typed rows (``_from``/``_to`` plus columns) of a relationship table's CSV file as they are
    read; an endpoint missing from ``keys`` (label -> primary keys) is a SourceError naming the file and line."""
    header, rows = stream_records(path)
    check_rel_header(path, header, table)
    props = header[2:]
    ends = (table.from_label, table.to_label)
    pk_type = [dict(nodes[e].columns)[nodes[e].primary_key] for e in ends]
    conv = [convert(pk_type[0]), convert(pk_type[1]), *(convert(dict(table.columns)[p]) for p in props)]
    names = ["_from", "_to", *props]
    for line, fields in rows:
        row = typed(path, line, names, fields, conv)
        for end, field in zip(ends, ("_from", "_to")):
            if row[field] not in keys[end]:
                raise SourceError(path, line, f"{'FROM' if field == '_from' else 'TO'} endpoint {row[field]!r} "
                                              f"is not a {end} ({nodes[end].primary_key})")
        yield row


def read_csv_dataset(schema: str | Path, csv_dir: str | Path) -> Dataset:
    """Returns the dataset the schema file declares, with every table's rows read from ``csv_dir``."""
    csv_dir = Path(csv_dir)
    if not csv_dir.is_dir():
        raise SourceError(csv_dir, 0, "no such CSV folder")
    node_tables, rel_tables = parse_ddl(schema)
    nodes = {t.label: t for t in node_tables}
    keys = {t.label: read_nodes(t, csv_dir) for t in node_tables}
    for t in rel_tables:
        read_rels(t, csv_dir, nodes, keys)
    return Dataset(node_tables, rel_tables)


def source_files(schema: str | Path, csv_dir: str | Path) -> list[Path]:
    """Returns the files a CSV graph is built from (the schema and every CSV), for its version hash."""
    return [Path(schema), *sorted(Path(csv_dir).glob("*.csv"))]
