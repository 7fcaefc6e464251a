"""Reading a question into a :class:`~kgqa.planner.frame.Frame`, by an ordered list of rules.

:func:`read` takes the values and schema words the :class:`~kgqa.planner.lexicon.Lexicon` finds in the
question, sets up a :class:`Reading` (the frame being filled, plus where labels and properties are named)
and applies :data:`RULES` in order, each a function ``rule(reading) -> None`` that fills part of the frame
from what the rules before it decided. The order matters and is the whole algorithm: anchors are chosen before
the target, the target before properties are re-owned, conditions before superlatives, superlatives
before plain aggregates, and the asked property last.

Only names that exist in the graph's :class:`~kgqa.planner.schema_view.SchemaView` are ever used.

Size: one rule per question shape, each small; the rules read one shared :class:`Reading`
(:mod:`~kgqa.planner.rules.state`) and live in modules by what they read (``words``, ``conditions``,
``time``, ``text``, ``order``, ``aggregates``, ``asks``, ``declines`` of this package);
listing them here, in one tuple, keeps their order visible.
"""

from __future__ import annotations

from collections.abc import Callable

from kgqa.planner.frame import Frame, Mention
from kgqa.planner.lexicon import Lexicon
from kgqa.planner.rules.aggregates import (
    aggregates,
    count_against_average,
    count_comparison,
    led_group,
    times,
)
from kgqa.planner.rules.asks import asked_property, connections, entity_comparison, relationship_property
from kgqa.planner.rules.conditions import (
    aggregate_comparisons,
    comparisons,
    differences,
    parts,
    property_comparisons,
    same_values,
)
from kgqa.planner.rules.declines import negated_properties, unsupported
from kgqa.planner.rules.order import implicit_order, sorted_by, superlatives
from kgqa.planner.rules.state import Reading
from kgqa.planner.rules.text import booleans, held_amounts, string_conditions
from kgqa.planner.rules.time import ages, arithmetic, years
from kgqa.planner.rules.words import (
    also_exists,
    anchors,
    negations,
    of_labels,
    owners,
    schema_words,
    target,
    their_labels,
    value_words,
)

Rule = Callable[[Reading], None]
RULES: tuple[Rule, ...] = (schema_words, anchors, target, their_labels, of_labels, negations, owners, value_words, differences,
                           parts, same_values,
                           property_comparisons, aggregate_comparisons,
                           arithmetic, comparisons, years,
                           string_conditions, booleans, times, also_exists, superlatives, sorted_by, implicit_order, aggregates, led_group,
                           asked_property, held_amounts,
                           relationship_property, negated_properties, entity_comparison, count_comparison,
                           count_against_average, ages, connections, unsupported)


def read(question: str, lex: Lexicon, mentions: list[Mention] | None = None) -> Frame:
    """Returns the frame of ``question`` over ``lex``'s graph, read by :data:`RULES` in order. ``mentions``
    (default: :meth:`Lexicon.value_mentions`) become the anchors and literals; each linked one is set, in
    place, to the reading chosen for it."""
    q = question.strip()
    mentions = lex.value_mentions(q) if mentions is None else mentions
    blocked = [(m.start, m.end) for m in mentions]
    reading = Reading(lex.view, lex, q, q.lower(), Frame(question=q), mentions, blocked, lex.scan(q, blocked))
    for rule in RULES:
        rule(reading)
    reading.frame.consumed = list(reading.used)
    return reading.frame
