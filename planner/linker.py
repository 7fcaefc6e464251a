"""Entity linking for the compiler: exact graph values first, then the fuzzy entity index.

Exact (case/accent-insensitive) value matches come from the schema view's value index; spans that match
nothing exactly ("Tom Hangs", "Nolan") go to :class:`kgqa.kg.entity_index.EntityIndex`, which ranks candidates
by FTS, trigram and embedding similarity. Ambiguity stays visible: every candidate is reported.
"""

from __future__ import annotations

import difflib
import re

from kgqa.planner.compiler import Compiler
from kgqa.planner.frame import Mention
from kgqa.types import EntityCandidate

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
        runs = _capitalized_runs(question, index)
        found = runs + index.find_mention_spans(question)
    except Exception:  # noqa: BLE001 - linking must never break answering
        runs, found = [], []
    for start, end, text, cands in runs:
        # "Richard Feynman": a given and a family name that matched exactly one by one, when the whole run
        # names one node ("Richard P. Feynman"), is that node, not two conditions no node may meet together
        inside = [m for m in mentions if start <= m.start and m.end <= end and m.label]
        words = set(re.findall(r"\w+", text.lower()))
        if (len(inside) > 1 and len({m.label for m in inside}) == 1 and len({m.prop for m in inside}) == len(inside)
                and words <= set(re.findall(r"\w+", cands[0].name.lower()))):
            mentions = [m for m in mentions if m not in inside]
            taken = [(m.start, m.end) for m in mentions]
    for start, end, text, cands in found:
        # the span's own position: the first place its text occurs may be inside another word
        # ("th" inside "the" for a quoted 'th')
        if question[start:end] != text:
            continue
        inside = [m for m in mentions if start <= m.start and m.end <= end and (m.start, m.end) != (start, end)]
        if inside and cands and cands[0].source in ("exact", "casefold") and \
                not any(start < b and a < end for a, b in taken if not any((m.start, m.end) == (a, b) for m in inside)):
            # "The Night Train to Lyon": a whole title said exactly, not the city 'Lyon' inside it
            mentions = [m for m in mentions if m not in inside]
            taken = [t for t in taken if not any((m.start, m.end) == t for m in inside)]
        if any(start < b and a < end for a, b in taken):
            continue
        if not cands or cands[0].score < FUZZY_MIN or text.lower() in compiler.lex.entries:
            continue
        if cands[0].source not in ("exact", "casefold") and 2 * len(str(cands[0].name)) < len(text):
            continue  # "had more than 3" is not the key '3': a fuzzy match must spell most of the words it takes
        tied = [c for c in cands if c.score >= cands[0].score - 0.02]
        named = [c for c in tied if c.prop in (spec.primary_keys.get(c.label), compiler.view.display(c.label))]
        if not named and len({c.key for c in tied if (c.label, c.prop) == (tied[0].label, tied[0].prop)}) > 1:
            continue  # "the Comp. Sci. department" matched as many instructors' department: no one node named
        if named and named[0] is not cands[0]:
            cands = [named[0]] + [c for c in cands if c is not named[0]]  # the node the text names, not a holder
        candidates.extend(cands[:5])
        top = cands[0]
        prop = spec.primary_keys.get(top.label)
        alts = [(c.label, spec.primary_keys.get(c.label), c.key) for c in cands[1:3] if c.score >= top.score - 0.02
                and (not named or c in named)]
        mentions.append(Mention(start, start + len(text), text, top.label, prop, top.key, top.score, alts))
        taken.append((start, start + len(text)))
    mentions.sort(key=lambda m: m.start)
    return mentions, candidates


def _clear_lead(cands: list[EntityCandidate], margin: float = 0.05, floor: float = 0.7) -> bool:
    """A fuzzy match is trusted below FUZZY_MIN only when it is well ahead of the runner-up."""
    return cands[0].score >= floor and (len(cands) == 1 or cands[0].score - cands[1].score >= margin)


def _capitalized_runs(question: str, index) -> list[tuple[int, int, str, list[EntityCandidate]]]:
    """Runs of two or more capitalised words ("Tom Hangs"), linked whole, before shorter windows: returns
    [(start, end, text, candidates)]."""
    out = []
    for m in re.finditer(r"(?:[A-Z][\w'.-]+\s+){1,5}[A-Z][\w'.-]+", question):
        text = m.group(0)
        if text.endswith(".") and not re.search(r"\b[A-Z][a-z]?\.$", text):
            text = text.rstrip(".")  # "reviewed by Brittany Harris.": the sentence's full stop, not the name's
        cands = index.link(text, k=5)
        whole = cands and difflib.SequenceMatcher(None, text.lower(), cands[0].name.lower()).ratio() >= 0.75
        if whole and _clear_lead(cands):
            # trusted below FUZZY_MIN: the whole run reads like the name and no other node is close
            cands = [cands[0].__class__(**{**cands[0].to_dict(), "score": max(cands[0].score, FUZZY_MIN)})] + cands[1:]
            out.append((m.start(), m.start() + len(text), text, cands))
    return out
