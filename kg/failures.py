"""Failures a batch job survives: one item's error is skipped and counted by kind, never fatal to the run.

Kinds: ``guard`` (the read-only guard refused the query), ``timeout`` (the query ran past its bound),
``engine`` (Kuzu or a Bolt server refused or failed it, EXPLAIN included), ``compile`` (the plan names
something the schema lacks), ``load`` (a graph that could not be loaded or opened), ``error`` (anything else).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgqa.kg.db import QueryError, QueryTimeout
from kgqa.kg.safety import UnsafeQueryError

KINDS = ("guard", "timeout", "engine", "compile", "load", "error")
_BY_NAME = {"UnsafeQueryError": "guard", "QueryTimeout": "timeout", "QueryError": "engine", "RuntimeError": "engine"}


def failure_kind(err: BaseException) -> str:
    """Returns the kind (:data:`KINDS`) of ``err``."""
    if isinstance(err, UnsafeQueryError):
        return "guard"
    if isinstance(err, QueryTimeout):
        return "timeout"
    if isinstance(err, (QueryError, RuntimeError)):  # kuzu raises RuntimeError where it is called directly
        return "engine"
    if isinstance(err, ValueError):
        return "compile"
    return "error"


def kind_of_error(text: str) -> str:
    """Returns the kind of a pipeline's ``error`` text (``"QueryTimeout: ..."``, its exception's name first)."""
    return _BY_NAME.get(str(text).split(":", 1)[0].strip(), "error")


@dataclass
class Failures:
    """Counts of failures by kind, with the first message of each kind."""

    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)

    def add(self, err: BaseException | str, kind: str | None = None) -> str:
        """Counts ``err`` (an exception, or a message with its ``kind``) and returns its kind."""
        if isinstance(err, BaseException):
            kind, text = kind or failure_kind(err), f"{type(err).__name__}: {err}"
        else:
            kind, text = kind or "error", str(err)
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.first.setdefault(kind, text[:200])
        return kind

    def merge(self, counts: dict[str, int]) -> None:
        for kind, n in counts.items():
            self.counts[kind] = self.counts.get(kind, 0) + n

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def text(self) -> str:
        """Returns ``"2 failed (guard 1, engine 1)"``, or ``"0 failed"``."""
        parts = [f"{k} {self.counts[k]}" for k in (*KINDS, *sorted(set(self.counts) - set(KINDS))) if self.counts.get(k)]
        return f"{self.total} failed" + (f" ({', '.join(parts)})" if parts else "")
