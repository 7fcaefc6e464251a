"""How people phrase questions about a graph's relationships and properties (paraphrases for synthesis).

A :class:`Phrasebook` holds one graph's phrasings, read from its annotations file: for a relationship and
the direction from the anchor to the answer, ``np`` is a noun phrase naming the answer set, ``q`` whole
questions, ``count`` counting questions (``{x}`` is the anchor); attribute, filter and comparison phrasings
are keyed ``Label.prop``. Anything not listed is phrased from the schema's own names, so a graph without
annotations still gets questions.
"""

from __future__ import annotations

from kgqa.planner.lexicon import plural as english_plural
from kgqa.planner.schema_view import split_camel


class Phrasebook:
    """One graph's phrasings, from the ``phrases`` of its annotations file (all optional)::

        relationships: {"wroteBook out": {np: "the books {x} wrote", q: [...], count: [...]}}
        attributes:    {"Book.published_year": ["When was {x} published?"]}
        filters:       {"Book.page_count": {">": ["Which books have more than {v} pages?"], "<": [...]}}
        comparisons:   {"Author.birth_year": {"lower": ["Who is older, {x} or {y}?"], "higher": [...]}}
        property_words: {"page_count": "length"}

    Anything not listed is phrased from the schema's own names."""

    def __init__(self, table: dict | None = None):
        t = table or {}
        self.rels = {tuple(k.split(" ", 1)): v for k, v in t.get("relationships", {}).items()}
        self.attrs = {tuple(k.split(".", 1)): v for k, v in t.get("attributes", {}).items()}
        self.filters = {tuple(k.split(".", 1)): v for k, v in t.get("filters", {}).items()}
        self.compares = {tuple(k.split(".", 1)): {side == "higher": qs for side, qs in v.items()}
                         for k, v in t.get("comparisons", {}).items()}
        self.prop_words = dict(t.get("property_words", {}))

    def words(self, prop: str) -> str:
        """Returns how a property is said ("birth year" for ``born`` when annotated, else its split name)."""
        return self.prop_words.get(prop) or split_camel(prop)

    def rel_phrases(self, rel: str, direction: str, target: str) -> dict[str, list[str] | str]:
        """Returns the phrasings of ``(rel, direction)``: the annotated ones, or built from the schema names."""
        known = self.rels.get((rel, direction))
        if known:
            return known
        verb, t = rel.lower().replace("_", " "), plural(target)
        np = f"the {t} that {{x}} {verb}" if direction == "out" else f"the {t} that {verb} {{x}}"
        return {"np": np, "q": [f"What are {np}?", f"List {np}."], "count": [f"What is the number of {np}?"]}


def noun(label: str) -> str:
    return split_camel(label)


def plural(label: str) -> str:
    """Returns how several nodes of a label are called in a question ("people" for Person)."""
    word = noun(label)
    return "people" if word == "person" else english_plural(word)
