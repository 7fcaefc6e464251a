"""Boolean properties said as adjectives or states, for the grammar reader: "the discontinued products" (found by
:func:`~kgqa.planner.grammar_focus.focus`), "products that are not discontinued", "suppliers that supply discontinued
products" (:func:`flags`): each a condition ``prop = true`` (``false`` after a negation) on the nodes of its label;
and quantities said as states, a property whose words begin with a preposition said bare ("products on order",
"still in stock": unitsOnOrder, unitsInStock): some of it, ``prop > 0`` (:func:`_some`); living or dead, of nodes
that hold a time of death: none, or one (:func:`_living`)."""

from __future__ import annotations

from kgqa.planner import cues
from kgqa.planner.joins import holder_of
from kgqa.planner.query import Where
from kgqa.planner.reading import Reading, is_timed
from kgqa.planner.schema_terms import Term
from kgqa.text import name_words


def flags(r: Reading) -> None:
    """The boolean properties said as a state (:func:`_stated`, beside those read as adjectives of the asked label)
    become conditions on the nodes that hold them, joined where they are another label's."""
    _stated(r)
    _some(r)
    _living(r)
    for it, term in r.flags:
        negated = it.start > 0 and r.doc[it.start - 1].lower_ in cues.NEGATIONS
        holder = holder_of(r, term)
        if holder is None:
            continue
        r.query.where.append(Where(holder, term.prop, "=", not negated))
        r.where_ends.append((it.start, it.end))
        it.term = term
        r.use((it.start - negated, it.end))


def _stated(r: Reading) -> None:
    """A boolean property said as a state of its nodes, anywhere: "products that are (not) discontinued",
    "suppliers that supply discontinued products", "products with a discontinued status", "the most products
    discontinued": a condition on the nodes of the property's label (the word after it a head that restates it)."""
    flagged = {id(it) for it, _ in r.flags}
    for it in r.items:
        t = r.doc[it.end - 1]
        terms = [x for x in it.terms if x.kind == "prop" and not x.on_rel and
                 r.view.prop_type(x.owner, x.prop) == "BOOL"]
        if id(it) in flagged or it in r.asked or it.start in r.used or len(terms) != 1 or \
                t.tag_ not in ("JJ", "VBN", "VBD") or any(v.start <= it.start < v.end for v in r.values):
            continue
        r.flags.append((it, terms[0]))
        nxt = it.end
        if nxt < len(r.doc) and r.lemmas[nxt] in cues.PROPERTY_HEADS | cues.CATEGORY_WORDS and \
                not any(x.start == nxt for x in r.items):
            r.use((nxt, nxt + 1))  # "a discontinued status"


def _some(r: Reading) -> None:
    """"products on order", "still in stock": a number property whose words begin with a preposition (unitsOnOrder:
    "on order"), said from that preposition with no value beside it, holds some: ``prop > 0``."""
    for it in r.items:
        terms = [x for x in it.terms if x.kind == "prop" and not x.on_rel and r.view.is_number(x.owner, x.prop)]
        if len(terms) != 1 or it in r.asked or it.start in r.used or r.doc[it.start].pos_ != "ADP" or \
                any(v.end == it.start or 0 <= v.start - it.end <= 3 and not {"and", ","} & set(r.lemmas[it.end:v.start])
                    for v in r.values):  # "0 in stock", "on order above 20": a value of it
            continue
        holder = holder_of(r, terms[0])
        if holder is None:
            continue
        it.term = terms[0]
        r.query.where.append(Where(holder, terms[0].prop, ">", 0))
        r.where_ends.append((it.start, it.end))
        r.use((it.start, it.end))
        r.use(*[(k, k + 1) for k in range(max(0, it.start - 1), it.start) if r.lemmas[k] == "still"])


def _living(r: Reading) -> None:
    """"laureates still alive", "living laureates", "dead authors": the asked label's one time of death (a property
    whose name says death) is null, or is not (after a negation, the other way)."""
    label = r.query.nodes[r.target]
    died = [p for p in r.view.nodes.get(label, {}) if is_timed(p) and cues.DEATH_WORDS & set(name_words(p))]
    for t in r.doc:
        living, dead = t.lower_ in cues.LIVING_WORDS, t.lower_ in cues.DEAD_WORDS
        if not (living or dead) or t.i in r.used or any(x.start <= t.i < x.end for x in r.items):
            continue
        if not died:
            continue
        prop = next((p for p in died if "year" in name_words(p)), died[0])  # of a year and a date, the year
        negated = t.i > 0 and r.doc[t.i - 1].lower_ in cues.NEGATIONS
        holder = holder_of(r, Term("prop", label, prop))
        if holder is None:
            continue
        r.query.where.append(Where(holder, prop, "IS NULL" if living != negated else "IS NOT NULL"))
        r.where_ends.append((t.i, t.i + 1))
        r.use(*[(k, k + 1) for k in range(max(0, t.i - 1 - negated), t.i + 1)
                if r.lemmas[k] == "still" or k >= t.i - negated])
