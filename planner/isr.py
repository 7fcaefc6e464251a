"""ISR parsing (CacheRAG §4.1 stage 1): topic entity, constraints, literals, domain and aspect, in the
question's own words — never schema predicates.

The parser is deterministic (no LLM): the entity is the first mention the linker tied to a label, the
constraints are the question's remaining content words (linked spans and stopwords removed) in pairs,
the literals its quoted strings and numbers, and the aspect (:func:`aspect_of`) is a regular-expression
intent class, one of :data:`ASPECTS`, used as the second layer of the plan cache index. When nothing
compiles, the pipeline may ask the LLM to name the topic entity (``Pipeline._llm_entity`` in
``planner/pipeline.py``); that adds a mention for compilation and leaves the ISR as parsed here.
"""

from __future__ import annotations

import re

from kgqa.planner.lexicon import STOP
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
