"""Quantifiers over a joined label that no reading here says (:func:`every_other`): "customers who ordered
products from all categories" asks for a division, every one of the categories, which coverage leaves unread."""

from __future__ import annotations

from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import Reading, pick


def every_other(r: Reading) -> list[str]:
    """"customers who ordered products from all categories", "bookings for every court": a quantifier
    (:data:`cues.EVERY_WORDS`) before a joined label that is not the asked one asks for every one of them, which no
    reading here says; the word is left unread. Not beside a figure ("the average of all students"), not one a
    figure compared with reads ("than the average score of all games"), not "each" read as a group."""
    if r.target is None or any(c.is_aggregate for c in r.query.columns):
        return []
    out = []
    for t in r.doc:
        before = r.doc[t.i - 1].lower_ if t.i > 0 and r.doc[t.i - 1].pos_ == "ADP" else None
        if t.lower_ not in cues.EVERY_WORDS or not (before == "from" or before and t.lower_ == "every") or \
                t.lower_ == "each" and t.i in r.used or any(a <= t.i < b for a, b in r.where_ends):
            continue  # not "the grade points of all enrollments", "for all film markets"
        k = t.i + 1 + (t.i + 1 < len(r.doc) and r.doc[t.i + 1].lower_ == "the")
        named = next((pick(x, "label", None) for x in r.items if x.start == k), None)
        if named is not None and r.vars.get(named.owner) not in (None, r.target):
            out.append(t.text)
    return out
