"""What "where" and "when" ask of the asked label with no property named (:func:`where_asked`,
:func:`when_asked`): a place it holds or reaches, the date (or year) a verb cues."""

from __future__ import annotations

from kgqa.planner.reader import cues
from kgqa.planner.reader.joins import doer
from kgqa.planner.reader.reading import Item, Reading
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.reader.times import date_prop, said_time, time_cues, year_prop


def where_asked(r: Reading, label: str) -> None:
    """"Where is the club 'X' located?": the one property of the asked label named as a place is asked; the
    place verb restates it."""
    places = [p for p in r.view.nodes.get(label, {}) if any(w in p.lower() for w in cues.PLACE_WORDS)
              and r.view.prop_type(label, p) == "STRING"]
    if not places:
        _place_reached(r, label)
    if len(places) != 1:
        return
    r.asked.append(Item(0, 1, {Term("prop", label, places[0])}, Term("prop", label, places[0])))
    r.use((0, 1), *[(t.i, t.i + 1) for t in r.doc if t.lemma_.lower() in cues.PLACE_VERBS])


def _place_reached(r: Reading, label: str) -> None:
    """"Where was Niels Bohr born?", "Where did Marie Curie work?": the node at the far end of the one relationship
    of the asked label a verb names (:func:`~kgqa.planner.reader.joins.doer`) is asked, shown beside the asked
    node."""
    far = doer(r, frozenset({label}))
    if far is not None:
        r.asked.append(Item(0, 1, {Term("label", far)}, Term("label", far)))
        r.use((0, 1))
        # "Where were the winners of the 1962 Peace Prize born?": who, and where (not "Where was Niels Bohr born?")
        r.show_target = not any(v.kind == "linked" and v.label == label for v in r.values)


def when_asked(r: Reading, label: str) -> None:
    """"When was Albert Einstein born?", "When did Frederick Sanger die?": the asked label's one date the verb cues
    (its year where it holds no date) is asked; the verb restates it."""
    said = time_cues(r)
    if not said:
        return
    term = date_prop(r, label) or year_prop(r, label)
    if term is None or not said_time(r, term.prop):
        return
    r.asked.append(Item(0, 1, {term}, term))
    r.use((0, 1), *[(i, i + 1) for i in said])
