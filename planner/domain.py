"""One open graph the pipeline answers over: :class:`Domain`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgqa.planner.compiler import Compiler
from kgqa.planner.schema_view import SchemaView
from kgqa.protocols import GraphBackend


@dataclass
class Domain:
    name: str
    graph: GraphBackend
    view: SchemaView
    compiler: Compiler
    index: Any = None
