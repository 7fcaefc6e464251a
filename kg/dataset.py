"""What a source reader hands the loader: typed node and relationship tables with their rows, held in memory
(``rows``) or validated and staged as Parquet files for ``COPY FROM`` (``staged``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class NodeTable:
    """A node table: ``columns`` is [(property, Kuzu type)], rows are dicts keyed by property."""

    label: str
    columns: list[tuple[str, str]]
    primary_key: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    staged: list[Path] = field(default_factory=list)  # Parquet files, columns in table order
    staged_rows: int = 0

    @property
    def row_count(self) -> int:
        """Returns how many rows the table has, in memory and staged."""
        return len(self.rows) + self.staged_rows


@dataclass
class RelTable:
    """A relationship table between two labels; each row has ``_from``/``_to`` primary keys plus props."""

    name: str
    from_label: str
    to_label: str
    columns: list[tuple[str, str]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    staged: list[Path] = field(default_factory=list)  # Parquet files: from key, to key, then the columns
    staged_rows: int = 0

    @property
    def row_count(self) -> int:
        """Returns how many rows the table has, in memory and staged."""
        return len(self.rows) + self.staged_rows


@dataclass
class Dataset:
    """The tables of a graph. ``staging``, when set, stages the tables' rows one table per step (nodes before the
    relationships between them) and yields each table once its rows are staged: the loader copies one table
    while the next is staged; until it is drained, ``rows``/``staged`` are incomplete."""

    nodes: list[NodeTable]
    rels: list[RelTable]
    staging: Iterator[NodeTable | RelTable] | None = None
