"""What a source reader hands the loader: typed node and relationship tables with their rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class NodeTable:
    """A node table: ``columns`` is [(property, Kuzu type)], rows are dicts keyed by property."""

    label: str
    columns: list[tuple[str, str]]
    primary_key: str
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class RelTable:
    """A relationship table between two labels; each row has ``_from``/``_to`` primary keys plus props."""

    name: str
    from_label: str
    to_label: str
    columns: list[tuple[str, str]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Dataset:
    nodes: list[NodeTable]
    rels: list[RelTable]
