"""The times of a question, for the grammar reader: which property holds the dates or years a value is compared
with (:func:`year_prop`, :func:`date_prop`, :func:`dated`)."""

from __future__ import annotations

from kgqa.planner.reading import Reading, is_timed
from kgqa.planner.schema_terms import Term
from kgqa.text import name_words


def dated(r: Reading, term: Term) -> bool:
    """Whether a property term holds dates (a date type, or ISO date text)."""
    return term.kind == "prop" and not term.on_rel and r.view.is_date(term.owner, term.prop)


def date_prop(r: Reading, label: str | None = None) -> Term | None:
    """The property of ``label`` (default: the asked one) that holds dates: the only one, else the only one whose
    name shares a stem with a word of the question ("began": a begin time), a typed date before date text. None
    where that leaves several or none."""
    label = label or r.query.nodes[r.target]
    props = [p for p in r.view.nodes.get(label, {}) if r.view.is_date(label, p)]
    if len(props) > 1:
        stems = {t.lemma_.lower()[:4] for t in r.doc if len(t.lemma_) >= 4 and not t.is_stop}
        props = [p for p in props if any(w[:4] in stems for w in name_words(p) if len(w) >= 4)] or props
    if len(props) > 1:
        typed = [p for p in props if r.view.prop_type(label, p) != "STRING"]
        props = typed if len(typed) == 1 else props
    return Term("prop", label, props[0]) if len(props) == 1 else None


def year_prop(r: Reading, label: str | None = None) -> Term | None:
    """The one property of ``label`` (default: the asked one) that holds years or dates, by its name."""
    label = label or r.query.nodes[r.target]
    props = [p for p in r.view.nodes.get(label, {}) if is_timed(p)]
    return Term("prop", label, props[0]) if len(props) == 1 else None
