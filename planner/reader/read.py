"""Reading a question by its grammar against the graph's own schema, into a :class:`~kgqa.planner.query.Query`.

The question is parsed (:mod:`kgqa.planner.reader.parse`); runs of its words are mapped onto labels, node and
relationship properties and relationship types by their forms (:mod:`kgqa.planner.reader.schema_terms`); values
(linked graph values, quoted literals, numbers) are attached to the property written before them, with the
comparison written between (:mod:`kgqa.planner.reader.cues`). Then :data:`COMPONENTS` run in order over one
:class:`Reading`, each filling part of the query: the values (:mod:`~kgqa.planner.reader.values`) and schema
words (:mod:`~kgqa.planner.reader.words`), two named nodes compared by a time, read whole (:mod:`~kgqa.planner.reader.pairs`), what is asked
(:mod:`~kgqa.planner.reader.focus`), negations, comparisons with an overall figure and of one
property with another (:mod:`~kgqa.planner.reader.scope`), the conditions (:mod:`~kgqa.planner.reader.conditions`), the pattern that
joins every label used (:mod:`~kgqa.planner.reader.coverage`, :mod:`~kgqa.planner.reader.joins`), and counts,
aggregates and groups (:mod:`~kgqa.planner.reader.shape`), superlatives and orders (:mod:`~kgqa.planner.reader.order`),
a relationship a property's word brought in kept apart from another joining the same nodes (:func:`~kgqa.planner.reader.joins.apart`),
"the same" node two relationships reach (:func:`~kgqa.planner.reader.joins.same_node`),
the values shown as evidence beside what is asked (:func:`~kgqa.planner.reader.shape.evidence`). The state they share is
one :class:`~kgqa.planner.reader.reading.Reading`. :func:`coverage` last: a content word nothing explained
makes the reading decline, listing the words, and so does a choice the schema leaves open (two labels
that own a property, two paths between labels): nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgqa.planner.frame import Mention
from kgqa.planner.reader import cues
from kgqa.planner.reader.conditions import conditions
from kgqa.planner.reader.coverage import coverage, pattern
from kgqa.planner.reader.focus import focus
from kgqa.planner.reader.joins import apart, same_node
from kgqa.planner.reader.pairs import pair
from kgqa.planner.reader.parse import parse, quoted_spans
from kgqa.planner.reader.reading import (
    MAX_READINGS,
    Reading,
    term_name,
)
from kgqa.planner.reader.schema_terms import SchemaTerms, Term
from kgqa.planner.reader.scope import negation, overall, same_as, versus
from kgqa.planner.reader.shape import evidence, shape
from kgqa.planner.reader.typed import typed
from kgqa.planner.reader.values import values
from kgqa.planner.reader.word_forms import forms
from kgqa.planner.reader.words import schema
from kgqa.planner.schema_view import SchemaView

Component = Callable[[Reading], None]
COMPONENTS: tuple[Component, ...] = (values, schema, pair, focus, negation, overall, versus, same_as, conditions,
                                     pattern, shape, apart, same_node, typed, evidence,
                                     coverage)


def read_query(question: str, view: SchemaView, terms: SchemaTerms, mentions: list[Mention]) -> list[Reading]:
    """Returns the readings of ``question`` that explain it, one per way of settling the choices the schema
    leaves open (at most :data:`MAX_READINGS`), or the one reading that declines, saying what was not
    understood."""
    doc = parse(question, _literals(question, terms))
    todo: list[dict[Any, Term]] = [{}]
    done: list[Reading] = []
    first: Reading | None = None
    tried = 0
    while todo and tried < MAX_READINGS:
        choices = todo.pop(0)
        tried += 1
        r = Reading(view, terms, doc, list(mentions), choices=dict(choices))
        for component in COMPONENTS:
            if r.settled and component is not coverage:
                continue
            component(r)
            if r.declined and component is not coverage:
                break
        first = first or r
        if not r.declined:
            done.append(r)
        elif r.open:
            start, options = r.open[0]
            todo.extend(choices | {start: t} for t in sorted(options, key=term_name))
    return done or [first]


def _literals(question: str, terms: SchemaTerms) -> tuple[tuple[int, int], ...]:
    """The quoted spans that are values: not those that quote a schema name ('VISITS2', 'season 3')."""
    out = []
    for a, b, text in quoted_spans(question):
        words = [w for w in text.lower().split() if not w.isdigit()]
        before = question[:a].lower().replace('"', " ").replace("'", " ").split()[-3:]
        searched = any(forms(w) & cues.SUBSTRING_WORDS for w in before)
        if words and all(terms.lookup([w]) for w in words) and not searched:
            continue  # not 'Party' in "names that contain 'Party'": a text searched for
        out.append((a, b))
    return tuple(out)


