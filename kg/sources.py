"""Where a graph comes from: the bundled graphs, a schema with CSV files, a Cypher script, or an existing
Kuzu database. A :class:`Source` says which files make the graph's version, how to read its rows, and
what to record in the registry; :mod:`kgqa.kg.loader` builds (or registers) it.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgqa.kg.dataset import Dataset
from kgqa.kg.ddl import SourceError
from kgqa.kg.domains import BUNDLED

LOADER_VERSION = "kg-loader-5"  # 3: the spec derives key_parts; 4: COPY FROM, sampled derived parts; 5: a display
# property named after its label in any number (Herbs.Herb)


@dataclass
class Source:
    """One graph's origin. ``read`` is None for a database registered where it is (never built, never
    written); ``annotations`` is the optional annotations file (JSON or YAML)."""

    kind: str  # "bundled", "csv", "cypher" or "kuzu"
    files: list[Path]
    read: Callable[[Path], Dataset] | None  # given a staging folder for validated files
    annotations: Path | None = None
    database: Path | None = None

    def describe(self) -> dict[str, Any]:
        """Returns what the registry records of this source (kind and absolute paths)."""
        return {"kind": self.kind, "files": [str(p.resolve()) for p in self.files],
                "annotations": str(self.annotations.resolve()) if self.annotations else None}

    def version(self) -> str:
        """Returns the graph version: sha256 over the loader version, the kind and every file (name and bytes;
        size and modification time for a database registered in place) and the annotations file."""
        h = hashlib.sha256(f"{LOADER_VERSION}\0{self.kind}\0".encode())
        for path in [*self.files, *([self.annotations] if self.annotations else [])]:
            h.update(path.name.encode() + b"\0")
            if self.kind == "kuzu" and path == self.database:
                st = os.stat(path)
                h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
                continue
            with open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
        return h.hexdigest()


def existing(path: str | Path, what: str) -> Path:
    """Returns ``path`` when it exists, else raises SourceError naming it."""
    path = Path(path).expanduser()
    if not path.exists():
        raise SourceError(path, 0, f"no such {what}")
    return path


def bundled_source(domain: str, data_dir: str | Path, *, annotations: bool = True) -> Source:
    """Returns one of the bundled graphs (:data:`kgqa.kg.domains.BUNDLED`), read from ``data_dir`` by its
    reader module, with its annotations file unless ``annotations`` is False."""
    if domain not in BUNDLED:
        raise ValueError(f"unknown bundled graph {domain!r}; bundled: {', '.join(BUNDLED)}")
    module = importlib.import_module(f"kgqa.kg.domains.{domain}")
    data_dir = Path(data_dir)
    ann = Path(module.__file__).with_suffix(".json")
    return Source("bundled", sorted(module.source_files(data_dir)), lambda staging: module.read(data_dir),
                  ann if annotations and ann.exists() else None)


def csv_source(schema: str | Path, csv_dir: str | Path, annotations: str | Path | None = None) -> Source:
    """Returns a graph declared by a Kuzu DDL file with one CSV per table in ``csv_dir``."""
    from kgqa.kg.csv_source import source_files
    from kgqa.kg.csv_stage import stream_csv_dataset

    schema, csv_dir = existing(schema, "schema file"), existing(csv_dir, "CSV folder")
    return Source("csv", source_files(schema, csv_dir), lambda staging: stream_csv_dataset(schema, csv_dir, staging),
                  existing(annotations, "annotations file") if annotations else None)


def cypher_source(script: str | Path, annotations: str | Path | None = None) -> Source:
    """Returns a graph created by a Cypher CREATE script."""
    from kgqa.kg.cypher_source import read_script

    script = existing(script, "Cypher script")
    return Source("cypher", [script], lambda staging: read_script(script),
                  existing(annotations, "annotations file") if annotations else None)


def kuzu_source(database: str | Path, annotations: str | Path | None = None) -> Source:
    """Returns an existing Kuzu database, registered where it is: opened read-only, never copied or written."""
    database = existing(database, "Kuzu database").resolve()
    return Source("kuzu", [database], None, existing(annotations, "annotations file") if annotations else None,
                  database)
