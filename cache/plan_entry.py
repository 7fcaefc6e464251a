"""A plan cache entry (:class:`PlanEntry`), its SQLite row layout and the question tokenizer."""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from kgqa.text import STOPWORDS

_TOKEN = re.compile(r"[\w']+")
# the ``plans`` columns a row is read with, in order
COLUMNS = ("id", "question", "isr", "cypher", "operators", "answer", "domain", "aspect", "verified_at",
           "kg_version", "template", "last_used", "hits", "provenance", "demoted", "code_version")
PROVENANCES = ("prewarm", "online", "user")


def tokenize(text: str) -> list[str]:
    """Returns the case-folded word tokens of ``text`` without :data:`kgqa.text.STOPWORDS` (the BM25
    vocabulary)."""
    return [t for t in _TOKEN.findall(text.casefold()) if t not in STOPWORDS]


def normalize_question(text: str) -> str:
    return re.sub(r"[\s?.!]+$", "", " ".join(text.casefold().split()))


@dataclass
class PlanEntry:
    """One verified plan: question, ISR, Cypher, operators used, the answer, and where it is indexed."""

    question: str
    cypher: str
    domain: str
    aspect: str = "general"
    isr: dict[str, Any] = field(default_factory=dict)
    operators: list[str] = field(default_factory=list)
    answer: str = ""
    kg_version: str = ""
    template: dict[str, Any] | None = None
    verified_at: float = field(default_factory=time.time)
    last_used: float = 0.0
    hits: int = 0
    provenance: str = "online"  # "prewarm" (autogen job), "online" (learned while answering), "user" (thumbs up)
    demoted: bool = False  # thumbs down: kept as a tombstone, never reused as a template nor an exemplar
    code_version: str = ""  # the compiler code that verified it ("" = unknown); templates of other code are not reused
    id: int | None = None

    def dedupe_key(self) -> str:
        text = "\x1f".join(self.block_key())
        return hashlib.sha1(text.encode()).hexdigest()

    def block_key(self) -> tuple[str, str, str]:
        """(normalized question, domain, Cypher without extra whitespace): what makes an entry unique."""
        return normalize_question(self.question), self.domain, " ".join(self.cypher.split())

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_row(cls, row: tuple) -> PlanEntry:
        r = dict(zip(COLUMNS, row))
        return cls(question=r["question"], cypher=r["cypher"], domain=r["domain"], aspect=r["aspect"],
                   isr=json.loads(r["isr"]), operators=json.loads(r["operators"]), answer=r["answer"],
                   kg_version=r["kg_version"], template=json.loads(r["template"]) if r["template"] else None,
                   verified_at=r["verified_at"], last_used=r["last_used"], hits=r["hits"],
                   provenance=r["provenance"], demoted=bool(r["demoted"]), code_version=r["code_version"] or "",
                   id=r["id"])
