"""The times of a question, for the grammar reader: dates and decades as values (:func:`dates`, :func:`decade`),
which property holds the dates or years a value is compared with (:func:`year_prop`, :func:`date_prop`,
:func:`dated`), and of which label (:func:`label_modified`, :func:`value_label_before`)."""

from __future__ import annotations

import re

from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import Reading, Value, is_timed, of_a_life, pick
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.schema_view import ISO_DATE
from kgqa.text import name_words


def dated(r: Reading, term: Term) -> bool:
    """Whether a property term holds dates (a date type, or ISO date text)."""
    return term.kind == "prop" and not term.on_rel and r.view.is_date(term.owner, term.prop)


def date_prop(r: Reading, label: str | None = None, at: int | None = None) -> Term | None:
    """The property of ``label`` (default: the asked one) that holds dates: the only one, else the only one whose
    name shares a stem with a word of the question ("began": a begin time; the nearest before ``at``, a value's
    position, first), a typed date before date text. None where that leaves several or none."""
    label = label or r.query.nodes[r.target]
    props = [p for p in r.view.nodes.get(label, {}) if r.view.is_date(label, p)]
    if len(props) > 1:
        props = cued(r, props, at)
    if len(props) > 1:
        stems = {t.lemma_.lower()[:4] for t in r.doc if len(t.lemma_) >= 4 and not t.is_stop and
                 t.lemma_.lower() not in cues.TIME_HEADS}  # "a date" says none of them
        props = [p for p in props if any(w[:4] in stems for w in name_words(p) if len(w) >= 4)] or props
    if len(props) > 1:
        typed = [p for p in props if r.view.prop_type(label, p) != "STRING"]
        props = typed if len(typed) == 1 else props
    return Term("prop", label, props[0]) if len(props) == 1 else None


def said_time(r: Reading, prop: str, words: list | None = None) -> bool:
    """Whether a time word of the question (of ``words``, when given) cues the property's name ("born": birthDate,
    birthYear; not deathDate)."""
    return bool({w for t in (r.doc if words is None else words) for w in cues.TIME_CUES.get(t.lower_, ())} &
                set(name_words(prop)))


def cued(r: Reading, props: list[str], at: int | None = None) -> list[str]:
    """The properties of ``props`` whose names a time word of the question cues, all of them when it cues none;
    with ``at`` (a value's position), those the time word nearest before it cues first ("born before 1925 and still
    alive": the birth year)."""
    near = _time_word_before(r, at) if at is not None else []
    return [p for p in props if said_time(r, p, near)] or [p for p in props if said_time(r, p)] or props


def _time_word_before(r: Reading, at: int) -> list:
    """The time word nearest before position ``at`` (:data:`cues.TIME_CUES`), as a list of one, else empty."""
    return [t for t in r.doc[:at] if t.lower_ in cues.TIME_CUES][-1:]


def said_by(r: Reading, term: Term, at: int) -> None:
    """The time word nearest before a value's position ``at`` that cues ``term``'s property ("laureates born before
    1925": birthYear) says that property: a relationship it may also name (BORN_IN) is not joined for it."""
    near = _time_word_before(r, at)
    if not near or not said_time(r, term.prop, near):
        return
    for it in r.items:
        if it.start <= near[0].i < it.end and it.term is None and it.kinds() == {"rel"}:
            it.term = term
            r.use((it.start, it.end))


def time_cues(r: Reading) -> list[int]:
    """The positions of the question's words that say a time a property holds ("born", "die")."""
    return [t.i for t in r.doc if t.lower_ in cues.TIME_CUES or t.lemma_.lower() in cues.TIME_CUES]


def year_prop(r: Reading, label: str | None = None, at: int | None = None) -> Term | None:
    """The one property of ``label`` (default: the asked one) that holds years or dates, by its name; of several,
    the one whose name a word of the question cues ("born": birthYear, not deathYear; the nearest before ``at``, a
    value's position, first), then the one that holds whole years (awardYear beside the dateAwarded text)."""
    label = label or r.query.nodes[r.target]
    props = [p for p in r.view.nodes.get(label, {}) if is_timed(p)]
    if len(props) > 1:
        props = cued(r, props, at)
    if len(props) > 1:
        years = [p for p in props if "year" in name_words(p) and r.view.prop_type(label, p).startswith("INT")]
        props = years if len(years) == 1 else props
    return Term("prop", label, props[0]) if len(props) == 1 else None


def event_year(r: Reading, label: str) -> Term | None:
    """The year of what a label's nodes are known by, where the label holds only the times of a life (a birth, a
    death): the :func:`year_prop` of the one label joined to it that holds one ("the 2020 winners": of the medal
    they won); else None."""
    own = [p for p in r.view.nodes.get(label, {}) if is_timed(p)]
    if not own or not all(of_a_life(p) for p in own):
        return None
    found = {t for _, _, other in r.view.neighbours(label) if other != label and
             (t := year_prop(r, other)) is not None and not of_a_life(t.prop)}
    return found.pop() if len(found) == 1 else None


def noun_year(r: Reading, v: Value) -> Term | None:
    """The year a number says before a label's noun ("the 1903 prize"): that label's, or that of what its nodes are
    known by ("the 2020 winners": their medal's, :func:`event_year`); else None."""
    owner = label_modified(r, v) if v.kind == "number" and isinstance(v.value, int) and 1800 <= v.value <= 2100 \
        else None
    return event_year(r, owner) or year_prop(r, owner) if owner is not None else None


def label_modified(r: Reading, v: Value) -> str | None:
    """The label of the noun a value modifies ("the 1962 Peace Prize", "the 2020 chemistry award"), else None."""
    tok = r.doc[v.start]
    while tok.dep_ in ("nummod", "compound", "amod", "nmod") and tok.head.i != tok.i and tok.head.i > tok.i:
        tok = tok.head
    if tok.i == v.start:
        return None
    named = next((x for x in r.items if x.start <= tok.i < x.end and pick(x, "label", None) is not None), None)
    return pick(named, "label", None).owner if named is not None else None


def value_label_before(r: Reading, v: Value) -> str | None:
    """The label of a linked value said right before, a preposition between ("the Nobel Prize in Physics in
    1921": the Physics prize's), else None."""
    before = next((x for x in r.values if x.kind == "linked" and x.end <= v.start and
                   all(t.pos_ == "ADP" for t in r.doc[x.end:v.start])), None)
    return before.label if before is not None and before.end >= v.start - 1 else None


def dates(r: Reading) -> None:
    """ISO dates, quoted or not ("before 1989-09-03", "after '2005-08-23 02:06:01'"), become values of kind "date":
    one value, not the numbers the tokenizer splits them into."""
    for v in r.values:
        if v.kind == "text" and isinstance(v.value, str) and ISO_DATE.fullmatch(v.value.strip()):
            v.kind = "date"
    taken = {i for v in r.values for i in range(v.start, v.end)}
    for m in re.finditer(r"(?<![\w-])" + ISO_DATE.pattern + r"(?![\w-])", r.doc.text):
        span = r.doc.char_span(m.start(), m.end(), alignment_mode="expand")
        if span is not None and not any(i in taken for i in range(span.start, span.end)):
            r.values.append(Value(span.start, span.end, m.group(), "date"))
    months(r)


def months(r: Reading) -> None:
    """A month named after "in", "during" or "of" ("orders shipped in August", "in the month of 'December'")
    becomes a value of kind "month", its number: a condition on a date's month."""
    lem = r.lemmas
    for v in r.values:
        if v.kind == "text" and isinstance(v.value, str) and v.value.strip().lower() in cues.MONTHS and \
                set(lem[max(0, v.start - 3):v.start]) & cues.MONTH_OPENERS:
            v.kind, v.value = "month", cues.MONTHS[v.value.strip().lower()]
    taken = {i for v in r.values for i in range(v.start, v.end)}
    for t in r.doc:  # a month's full name, not a property's ("the temperature in Mar": its Mar)
        if t.i not in taken and t.lower_ in cues.MONTHS and t.text[:1].isupper() and len(t.text) > 3 - (
                t.lower_ == "may") and not r.terms.lookup([t.lower_]) and set(lem[max(0, t.i - 3):t.i]) & cues.MONTH_OPENERS:
            r.values.append(Value(t.i, t.i + 1, cues.MONTHS[t.lower_], "month"))


def decade(t) -> int | None:
    """The first year of a decade written "1920s" or "90s" (after "the", a century's last decades before its
    first), else None."""
    digits = t.lower_.removesuffix("s")
    if t.lower_ == digits or not digits.isdigit() or digits[-1] != "0" or t.i == 0 or \
            t.doc[t.i - 1].lower_ not in ("the", "'", "’"):
        return None
    if len(digits) == 4:
        return int(digits)
    return (1900 if int(digits) >= 30 else 2000) + int(digits) if len(digits) == 2 else None
