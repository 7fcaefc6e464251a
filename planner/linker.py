"""Entity linking for the compiler: exact graph values first, then the fuzzy entity index.

Exact (case/accent-insensitive) value matches come from the schema view's value index; spans that match
nothing exactly ("Tom Hangs", "Nolan") go to :class:`kg.entity_index.EntityIndex`, which ranks candidates
by FTS, trigram and embedding similarity. Ambiguity stays visible: every candidate is reported.
"""

from __future__ import annotations

from planner.compiler import Compiler, Mention
from planner.types import EntityCandidate

FUZZY_MIN = 0.8  # a fuzzy candidate must be at least this confident to anchor a query


def link_mentions(question: str, compiler: Compiler, index=None) -> tuple[list[Mention], list[EntityCandidate]]:
    mentions = compiler.value_mentions(question)
    candidates = [EntityCandidate(m.label, str(m.value), str(m.value), 1.0, m.prop, "exact")
                  for m in mentions if m.label]
    if index is None:
        return mentions, candidates
    taken = [(m.start, m.end) for m in mentions]
    spec = compiler.view.spec
    try:
        found = index.find_mentions(question)
    except Exception:  # noqa: BLE001 - linking must never break answering
        found = []
    for text, cands in found:
        start = question.find(text)
        if start < 0 or any(start < b and a < start + len(text) for a, b in taken):
            continue
        if not cands or cands[0].score < FUZZY_MIN or text.lower() in compiler.lex.entries:
            continue
        candidates.extend(cands[:5])
        top = cands[0]
        prop = spec.primary_keys.get(top.label)
        alts = [(c.label, spec.primary_keys.get(c.label), c.key) for c in cands[1:3] if c.score >= top.score - 0.02]
        mentions.append(Mention(start, start + len(text), text, top.label, prop, top.key, top.score, alts))
        taken.append((start, start + len(text)))
    mentions.sort(key=lambda m: m.start)
    return mentions, candidates
