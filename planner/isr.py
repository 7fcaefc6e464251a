"""ISR parsing (CacheRAG §4.1 stage 1): topic entity, constraints, domain hint and aspect, in the
question's own words — never schema predicates.

The embedded 135M model cannot be trusted with this, so the parser is deterministic: the entity is the
linked mention, constraints are the question's content phrases, the aspect is the intent class used as
the second layer of the plan cache index. With a strong model behind an OpenAI-compatible endpoint,
:func:`parse_isr_llm` refines the same fields.
"""

from __future__ import annotations

import re

from kgqa.planner.compiler import STOP
from kgqa.types import ISR

ASPECTS = ("count", "aggregate", "ranking", "comparison", "filter", "relation", "attribute", "lookup")
def aspect_of(question: str) -> str:
    q = question.lower()
    if re.search(r"\bhow many\b|\bnumber of\b|\bcount\b", q) and not re.search(r"\b(top|most|least)\b", q):
        return "count"
    if re.search(r"\b(average|mean|total|sum)\b", q):
        return "aggregate"
    if re.search(r"\b(top|most|least|highest|lowest|largest|smallest|cheapest|expensive|best|first \d)\b", q):
        return "ranking"
    if re.search(r"\b(more|less|fewer|greater|older|younger|earlier|later) than\b|\bbetween\b|\bcompare", q):
        return "comparison" if re.search(r"\bthan\b.*\b[A-Z]", question) else "filter"
    if re.search(r"\b(above|below|over|under|at least|at most|containing|starting with|before|after|in \d{4})\b", q):
        return "filter"
    if re.match(r"\s*(when|what year|what is the|what was the)\b", q):
        return "attribute"
    if re.search(r"\b(who|whom)\b|\bby\b|\bwith\b", q):
        return "relation"
    return "lookup"


def parse_isr(question: str, mentions=(), domain: str | None = None) -> ISR:
    entity = next((m.text for m in mentions if getattr(m, "label", "")), None)
    literals = re.findall(r"'([^']+)'|\"([^\"]+)\"", question)
    literals = [a or b for a, b in literals] + re.findall(r"\b\d+(?:\.\d+)?\b", question)
    spans = [(m.start, m.end) for m in mentions]
    rest = "".join(" " if any(a <= i < b for a, b in spans) else ch for i, ch in enumerate(question))
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*", rest) if w.lower() not in STOP]
    constraints = [" ".join(words[i:i + 2]) for i in range(0, len(words), 2)]
    return ISR(entity=entity, constraints=constraints, domain=domain, aspect=aspect_of(question),
               literals=literals)


def parse_isr_llm(question: str, programs, base: ISR) -> ISR:
    """Let a capable LLM refine entity/constraints; fall back to ``base`` on any failure."""
    try:
        out = programs.extract_isr(question)
    except Exception:  # noqa: BLE001 - the deterministic ISR stands
        return base
    if not out:
        return base
    entity = out.get("entity") or base.entity
    if entity and entity.lower() not in question.lower():
        entity = base.entity  # the ISR must use the question's own words
    aspect = out.get("aspect") if out.get("aspect") in ASPECTS else base.aspect
    constraints = [c for c in out.get("constraints", []) if isinstance(c, str)] or base.constraints
    return ISR(entity=entity, constraints=constraints, domain=base.domain, aspect=aspect,
               answer_type=out.get("answer_type"), literals=base.literals)
