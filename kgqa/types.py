"""Typed objects passed between pipeline stages: question -> ISR -> plan -> Cypher -> rows -> answer."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


class InputError(ValueError):
    """A question the service refuses before doing any work (empty, too long, unknown domain)."""


Status = Literal["answered", "dont_know", "error", "refused"]


@dataclass
class ISR:
    """Intermediate Semantic Representation (CacheRAG Definition 2): natural-language terms only."""

    entity: str | None = None  # raw topic entity as written in the question
    constraints: list[str] = field(default_factory=list)  # semantic constraints, NL phrases
    domain: str | None = None  # domain hint
    aspect: str = "general"  # core intent, second layer of the plan cache index
    answer_type: str | None = None  # what is asked for ("films", "director", "count", ...)
    literals: list[str] = field(default_factory=list)  # quoted strings, numbers, years found in the question

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class EntityCandidate:
    label: str
    key: str  # primary-key value
    name: str  # display name
    score: float
    prop: str = ""  # property the name matched on
    source: str = ""  # "exact", "fts", "vector", "fuzzy"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Attempt:
    """One Cypher tried: its origin, and Kuzu's error text when it failed."""

    cypher: str
    origin: str  # "template", "compiler", "repair", "expansion", ...
    error: str | None = None
    rows: int | None = None


@dataclass
class Subgraph:
    """A small typed subgraph: nodes keyed by (label, key), edges as (src, rel, dst, props)."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)  # "Label:key" -> {"_label", props...}
    edges: list[dict[str, Any]] = field(default_factory=list)  # {"src","rel","dst","props"}

    def add_node(self, label: str, key: Any, props: dict[str, Any]) -> str:
        nid = f"{label}:{key}"
        self.nodes.setdefault(nid, {"_label": label, **props})
        return nid

    def add_edge(self, src: str, rel: str, dst: str, props: dict[str, Any] | None = None) -> None:
        edge = {"src": src, "rel": rel, "dst": dst, "props": props or {}}
        if edge not in self.edges:
            self.edges.append(edge)

    def merge(self, other: Subgraph) -> Subgraph:
        for nid, props in other.nodes.items():
            self.nodes.setdefault(nid, props)
        for e in other.edges:
            if e not in self.edges:
                self.edges.append(e)
        return self

    def __len__(self) -> int:
        return len(self.nodes) + len(self.edges)

    def to_dict(self) -> dict:
        return {"nodes": self.nodes, "edges": self.edges}


@dataclass
class Result:
    """What a question gets back, from any entry point (CLI, REST, eval, batch)."""

    question: str
    domain: str | None = None
    status: Status = "dont_know"
    answer: str = ""
    cypher: str | None = None  # the query with its parameters written in (runs as is: same rows)
    cypher_run: str | None = None  # the query text exactly as executed, with ``params`` bound beside it
    params: dict[str, Any] = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    isr: dict[str, Any] | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    subgraph: dict[str, Any] | None = None
    evidence: str = "rows"  # "rows", "subgraph", "vector-memory", "none"
    operators: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    cache: dict[str, Any] = field(default_factory=lambda: {"answer_hit": False, "plan_hit": False, "llm_calls": 0})
    error: str | None = None
    kg_version: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def view(self) -> dict:
        """Returns the fields as a new dict sharing their values (no deep copy, ~100x faster than
        :meth:`to_dict` with rows): the same JSON, for serializing at once (a server's response)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict) -> Result:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
