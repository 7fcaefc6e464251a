"""Words that restate what a reading already says, read with it: a generic head after a property's word ("phone
numbers"), a property's word said again beside the one that named it ("worth the most in today's money"), "those
cities" after the cities are shown (:func:`restated_heads`, :func:`said_again`, :func:`those_restated`)."""

from __future__ import annotations

from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import Item, Reading, is_timed
from kgqa.text import name_words


def restated_heads(r: Reading) -> list[tuple[int, int]]:
    """The words that restate a property already read: a generic head after the property's word ("phone
    numbers", "allergy type": :data:`cues.PROPERTY_HEADS`), a noun between the property's word and its value ("a
    ship via code '3'": :data:`cues.VALUE_HEADS`), and a word of a value's own property after the value
    ("employees who live in Calgary city")."""
    out = []
    for it in r.items:
        nxt = r.doc[it.end] if it.end < len(r.doc) else None
        if it.term is not None and it.term.kind == "prop" and it.end - 1 in r.used and nxt is not None and \
                nxt.i not in r.used and nxt.lemma_.lower() in cues.PROPERTY_HEADS and r.doc[it.end - 1].dep_ == "compound":
            out.append((nxt.i, nxt.i + 1))
        elif it.term is not None and it.term.kind == "prop" and it.end - 1 in r.used and nxt is not None and \
                nxt.i not in r.used and nxt.lemma_.lower() in cues.NUMBER_HEADS and \
                r.doc[it.end - 1].dep_ in ("compound", "amod") and not it.term.on_rel and \
                r.view.is_number(it.term.owner, it.term.prop):
            out.append((nxt.i, nxt.i + 1))  # "an enrollment size of above 20000": Enrollment
        elif it.term is not None and it.term.kind == "prop" and it.end - 1 in r.used and nxt is not None and \
                nxt.i not in r.used and nxt.lemma_.lower() in cues.TIME_HEADS and \
                r.doc[it.end - 1].dep_ in ("compound", "amod") and _dated(r, it):
            out.append((nxt.i, nxt.i + 1))  # "ordered by their founding years": Founded, a year
        elif it.term is not None and it.term.kind == "prop" and it.end - 1 in r.used and nxt is not None and \
                nxt.i not in r.used and nxt.lemma_.lower() in cues.VALUE_HEADS and \
                any(v.start in (nxt.i + 1, nxt.i + 2) and v.start in r.used for v in r.values):
            out.append((nxt.i, nxt.i + 1))  # "orders with a ship via code '3'": the value of shipVia
    for v in r.values:
        nxt = r.doc[v.end] if v.end < len(r.doc) else None
        if v.prop and v.start in r.used and nxt is not None and nxt.i not in r.used and \
                nxt.lemma_.lower() in name_words(v.prop):
            out.append((nxt.i, nxt.i + 1))
        # "shops in state Ohio", "the towns in the state of Utah": the word before the value
        before = v.start - 2 if v.start >= 2 and r.doc[v.start - 1].lower_ == "of" else v.start - 1
        prev = r.doc[before] if before >= 0 else None
        if v.prop and v.kind == "linked" and v.start in r.used and prev is not None and prev.i not in r.used and \
                prev.pos_ in ("NOUN", "PROPN") and prev.lemma_.lower() in name_words(v.prop):
            out.append((prev.i, v.start))
    return out


def said_again(r: Reading) -> list[tuple[int, int]]:
    """A word of a property that the query already ranks by, read there from another word of it, said again beside
    it ("worth the most in today's money": two words of one adjusted amount), or right after the word of a property
    it compares ("earlier than the average release year": the release is the year)."""
    q = r.query
    ranked = {(q.nodes.get(c.holder) or q.rel_of(c.holder), c.prop) for c, _ in q.order if c.prop}
    compared = {(q.nodes.get(w.holder) or q.rel_of(w.holder), w.prop) for w in q.where if w.prop}
    out = []
    for it in r.items:
        said = {(t.owner, t.prop) for t in it.terms}
        if it.kinds() != {"prop"} or len(said) != 1 or any(k in r.used for k in range(it.start, it.end)):
            continue
        for x in r.items:
            named = {(x.term.owner, x.term.prop)} if x.term is not None else {(t.owner, t.prop) for t in x.terms}
            if x is it or named != said or any(k not in r.used for k in range(x.start, x.end)):
                continue
            gap = min(abs(x.start - it.end), abs(it.start - x.end))
            if said <= ranked and gap <= 4 or said <= compared and x.end == it.start:
                out.append((it.start, it.end))
                break
    for it in r.items:  # "the average release year": a time's head word after the word of a time compared
        named = {(it.term.owner, it.term.prop)} if it.term is not None else {(t.owner, t.prop) for t in it.terms}
        k = it.end
        if k < len(r.doc) and k not in r.used and r.lemmas[k] in cues.TIME_HEADS and len(named) == 1 and \
                named <= ranked | compared and all(j in r.used for j in range(it.start, it.end)) and \
                r.view.is_number(*next(iter(named))):
            out.append((k, k + 1))
    return out


def those_restated(r: Reading) -> list[tuple[int, int]]:
    """The spans of "those cities" and "these names" that name a column already shown ("the average age for each
    city and what are those cities?")."""
    shown = {(r.query.nodes.get(c.holder), c.prop) for c in r.query.columns if c.prop and not c.is_aggregate}
    return [(it.start - 1, it.end) for it in r.items if it.start > 0 and r.lemmas[it.start - 1] in ("those", "these")
            and it.start not in r.used and any(t.kind == "prop" and (t.owner, t.prop) in shown for t in it.terms)]


def _dated(r: Reading, it: Item) -> bool:
    """Whether the property ``it`` names holds a time: named so (a date or year), or a number named by the verb
    the question writes as its word ("founding": Founded)."""
    t = it.term
    return is_timed(t.prop) or r.view.is_date(t.owner, t.prop) or \
        r.view.is_number(t.owner, t.prop) and r.doc[it.end - 1].tag_ in ("VBG", "VBN")
