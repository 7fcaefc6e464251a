"""Reading a question by its grammar against the graph's own schema, into a :class:`~kgqa.planner.query.Query`.

The question is parsed (:mod:`kgqa.planner.parse`); runs of its words are mapped onto labels, node and
relationship properties and relationship types by their forms (:mod:`kgqa.planner.schema_terms`); values
(linked graph values, quoted literals, numbers) are attached to the property written before them, with the
comparison written between (:mod:`kgqa.planner.cues`). Then :data:`COMPONENTS` run in order over one
:class:`Reading`, each filling part of the query: the values (:mod:`~kgqa.planner.grammar_values`) and schema
words (:mod:`~kgqa.planner.grammar_words`), two named nodes compared by a time, read whole (:mod:`~kgqa.planner.grammar_pairs`), what is asked
(:mod:`~kgqa.planner.grammar_focus`), negations, comparisons with an overall figure and of one
property with another (:mod:`~kgqa.planner.grammar_scope`), the conditions (:mod:`~kgqa.planner.grammar_conditions`), the pattern that
joins every label used (:mod:`~kgqa.planner.grammar_coverage`, :mod:`~kgqa.planner.joins`), and counts,
aggregates and groups (:mod:`~kgqa.planner.shape`), superlatives and orders (:mod:`~kgqa.planner.grammar_order`),
a relationship a property's word brought in kept apart from another joining the same nodes (:func:`~kgqa.planner.joins.apart`),
"the same" node two relationships reach (:func:`~kgqa.planner.joins.same_node`),
the values shown as evidence beside what is asked (:func:`~kgqa.planner.shape.evidence`). The state they share is
one :class:`~kgqa.planner.reading.Reading`. :func:`coverage` last: a content word nothing explained
makes the reading decline, listing the words, and so does a choice the schema leaves open (two labels
that own a property, two paths between labels): nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgqa.planner import cues
from kgqa.planner.frame import Mention
from kgqa.planner.grammar_conditions import conditions
from kgqa.planner.grammar_coverage import coverage, pattern
from kgqa.planner.grammar_focus import focus
from kgqa.planner.grammar_pairs import pair
from kgqa.planner.grammar_scope import negation, overall, same_as, versus
from kgqa.planner.grammar_types import typed
from kgqa.planner.grammar_values import values
from kgqa.planner.grammar_words import schema
from kgqa.planner.joins import apart, same_node
from kgqa.planner.parse import parse, quoted_spans
from kgqa.planner.reading import (
    MAX_READINGS,
    Reading,
    term_name,
)
from kgqa.planner.schema_terms import SchemaTerms, Term
from kgqa.planner.schema_view import SchemaView
from kgqa.planner.shape import evidence, shape
from kgqa.planner.word_forms import forms

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


