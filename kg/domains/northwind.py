"""Northwind from its CSV files, with the schema the Neo4j Northwind example (and text2cypher) assumes.

Every CSV column becomes a STRING property, except the few typed below; literal ``NULL`` strings are kept
as they are (questions compare ``s.region = 'NULL'``). Keys are the ``*ID`` columns.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from kgqa.kg.dataset import Dataset, NodeTable, RelTable

FILES = {"Product": "products.csv", "Category": "categories.csv", "Supplier": "suppliers.csv",
         "Customer": "customers.csv", "Order": "orders.csv"}
DETAILS = "order-details.csv"
PRIMARY_KEYS = {"Product": "productID", "Category": "categoryID", "Supplier": "supplierID",
                "Customer": "customerID", "Order": "orderID"}
TYPES = {  # (label, column) -> Kuzu type; everything else is STRING
    ("Product", "unitPrice"): "DOUBLE",
    ("Product", "unitsInStock"): "INT64",
    ("Product", "unitsOnOrder"): "INT64",
    ("Product", "reorderLevel"): "INT64",
    ("Product", "discontinued"): "BOOLEAN",
    ("ORDERS", "quantity"): "INT64",
}
ORDERS_COLUMNS = ["orderID", "unitPrice", "productID", "quantity", "discount"]


def convert(value: str, typ: str):
    """A CSV cell as the Python value for ``typ`` (``discontinued`` is true unless "0")."""
    if typ == "STRING":
        return value
    if typ == "BOOLEAN":
        return value.strip() != "0"
    if value.strip() in ("", "NULL"):
        return None
    return float(value) if typ == "DOUBLE" else int(value)


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    csv.field_size_limit(sys.maxsize)  # categories.csv carries large hex pictures
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def source_files(data_dir: Path) -> list[Path]:
    base = Path(data_dir) / "northwind"
    return [base / name for name in [*FILES.values(), DETAILS]]


def _typed(label: str, header: list[str], rows: list[dict[str, str]]) -> tuple[list, list[dict]]:
    columns = [(c, TYPES.get((label, c), "STRING")) for c in header]
    return columns, [{c: convert(row[c], t) for c, t in columns} for row in rows]


def read(data_dir: Path) -> Dataset:
    base = Path(data_dir) / "northwind"
    raw = {label: read_csv(base / name) for label, name in FILES.items()}
    nodes = []
    for label, (header, rows) in raw.items():
        columns, typed = _typed(label, header, rows)
        nodes.append(NodeTable(label, columns, PRIMARY_KEYS[label], typed))

    products, orders = raw["Product"][1], raw["Order"][1]
    part_of = RelTable("PART_OF", "Product", "Category",
                       rows=[{"_from": p["productID"], "_to": p["categoryID"]} for p in products])
    supplies = RelTable("SUPPLIES", "Supplier", "Product",
                        rows=[{"_from": p["supplierID"], "_to": p["productID"]} for p in products])
    purchased = RelTable("PURCHASED", "Customer", "Order",
                         rows=[{"_from": o["customerID"], "_to": o["orderID"]} for o in orders])
    header, details = read_csv(base / DETAILS)
    missing = set(ORDERS_COLUMNS) - set(header)
    if missing:
        raise ValueError(f"{DETAILS} lacks columns {sorted(missing)}")
    columns, typed = _typed("ORDERS", ORDERS_COLUMNS, details)
    order_lines = RelTable("ORDERS", "Order", "Product", columns,
                           [{"_from": d["orderID"], "_to": d["productID"]} | d for d in typed])
    return Dataset(nodes, [part_of, supplies, purchased, order_lines])
