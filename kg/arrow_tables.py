"""Kuzu column types as Arrow types, and rows as Arrow tables: what ``COPY FROM`` reads (files or frames)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

_SCALARS = {"INT8": pa.int8(), "INT16": pa.int16(), "INT32": pa.int32(), "INT64": pa.int64(), "UINT8": pa.uint8(),
            "UINT16": pa.uint16(), "UINT32": pa.uint32(), "UINT64": pa.uint64(), "DOUBLE": pa.float64(),
            "FLOAT": pa.float32(), "BOOLEAN": pa.bool_(), "STRING": pa.string(), "DATE": pa.date32(),
            "TIMESTAMP": pa.timestamp("us")}


def arrow_type(typ: str) -> pa.DataType | None:
    """Returns the Arrow type ``COPY FROM`` loads into a Kuzu column of type ``typ`` (lists included), or None
    for a type kgqa loads row by row instead (DECIMAL, INT128, SERIAL, UUID, BLOB, INTERVAL)."""
    if typ.endswith("[]"):
        inner = arrow_type(typ[:-2])
        return pa.list_(inner) if inner is not None else None
    return _SCALARS.get(typ)


def column(values: list[Any], typ: pa.DataType) -> pa.Array | None:
    """Returns ``values`` as an Arrow array of ``typ`` (ISO date and time strings are parsed), or None when a
    value does not fit."""
    try:
        return pa.array(values, type=typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
        pass
    try:
        return pa.array(values).cast(typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError, OverflowError):
        return None


def rows_table(rows: list[dict[str, Any]], fields: list[tuple[str, str, str]]) -> pa.Table | None:
    """Returns the rows as a table with one column per (row key, column name, Kuzu type) of ``fields``, in
    that order, or None when a type or a value has no Arrow form (the caller loads those rows otherwise)."""
    arrays, names = [], []
    for key, name, typ in fields:
        atype = arrow_type(typ)
        arr = column([r.get(key) for r in rows], atype) if atype is not None else None
        if arr is None:
            return None
        arrays.append(arr)
        names.append(name)
    return pa.Table.from_arrays(arrays, names=names)


# Kuzu types whose values an Arrow result gives back as the same Python values as the row reader (a UUID comes
# as text, a map as pairs: those are read as rows)
_READ_SAME = frozenset({"INT8", "INT16", "INT32", "INT64", "INT128", "UINT8", "UINT16", "UINT32", "UINT64", "SERIAL",
                        "DOUBLE", "FLOAT", "DECIMAL", "BOOL", "BOOLEAN", "STRING", "DATE", "TIMESTAMP", "BLOB"})


def reads_as_rows(types: list[str]) -> bool:
    """Whether columns of these Kuzu types read through Arrow give the values the row reader gives."""
    return all(t.split("(")[0] in _READ_SAME for t in types)
