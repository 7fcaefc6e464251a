"""Boolean properties said as adjectives or states, for the grammar reader: "the discontinued products" (found by
:func:`~kgqa.planner.reader.focus.focus`), "products that are not discontinued", "suppliers that supply discontinued
products" (:func:`flags`): each a condition ``prop = true`` (``false`` after a negation) on the nodes of its label;
and quantities said as states, a property whose words begin with a preposition said bare ("products on order",
"still in stock": unitsOnOrder, unitsInStock): some of it, ``prop > 0`` (:func:`_some`); living or dead, of nodes
that hold a time of death: none, or one (:func:`_living`); a property said as had or not ("suppliers that have a
fax number listed", "customers without a region"): held, or null (:func:`_held`)."""

from __future__ import annotations

from kgqa.planner.query import Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.joins import holder_of
from kgqa.planner.reader.reading import Reading, is_timed
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.schema_view import MISSING_TEXT
from kgqa.text import name_words


def flags(r: Reading) -> None:
    """The boolean properties said as a state (:func:`_stated`, beside those read as adjectives of the asked label)
    become conditions on the nodes that hold them, joined where they are another label's."""
    _stated(r)
    _some(r)
    _living(r)
    _held(r)
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
    if not died:
        return
    prop = next((p for p in died if "year" in name_words(p)), died[0])  # of a year and a date, the year
    for t in r.doc:
        living, dead = t.lower_ in cues.LIVING_WORDS, t.lower_ in cues.DEAD_WORDS
        if not (living or dead) or t.i in r.used or any(x.start <= t.i < x.end for x in r.items):
            continue
        negated = t.i > 0 and r.doc[t.i - 1].lower_ in cues.NEGATIONS
        holder = holder_of(r, Term("prop", label, prop))
        if holder is None:
            continue
        r.query.where.append(Where(holder, prop, "IS NULL" if living != negated else "IS NOT NULL"))
        r.where_ends.append((t.i, t.i + 1))
        r.use(*[(k, k + 1) for k in range(max(0, t.i - 1 - negated), t.i + 1)
                if r.lemmas[k] == "still" or k >= t.i - negated])


def _held(r: Reading) -> None:
    """"suppliers that have a fax number listed", "customers with a fax", "customers that do not have a region",
    "customers without a fax": a property of the asked label (not a flag) said as the object of "have" or after
    "with", and no value beside it, is held (``IS NOT NULL``), or not after a negation (``IS NULL``)."""
    label = r.query.nodes[r.target]
    for it in r.items:
        terms = [t for t in it.terms if t.kind == "prop" and not t.on_rel and t.owner == label and
                 r.view.prop_type(t.owner, t.prop) != "BOOL" and not _yes_no(r, t.owner, t.prop)]
        if len(terms) != 1 or it.kinds() != {"prop"} or it in r.asked or it.term is not None or \
                any(i in r.used for i in range(it.start, it.end)):
            continue  # not "devices that have no devices in stock", nor "chips that have wifi" ('Yes' or 'No')
        end = it.end + (r.lemmas[it.end:it.end + 1] == ["number"] and not any(x.start == it.end for x in r.items))
        head = r.doc[end - 1]
        det = r.doc[it.start - 1] if it.start > 0 and r.doc[it.start - 1].pos_ == "DET" else None
        have = head.head if head.dep_ == "dobj" and head.head.lemma_.lower() == "have" else None
        prep = head.head if head.dep_ == "pobj" and head.head.lower_ in ("with", "without") else None
        verb = have or prep
        if verb is None or verb.i >= it.start or any(t.lower_ not in ("a", "an", "no", "any")
                                                     for t in r.doc[verb.i + 1:it.start]) or \
                any(0 <= v.start - end <= 3 for v in r.values):
            continue  # not "students with the most common city code"
        negations = [c for c in (have.children if have is not None else ()) if c.dep_ == "neg"]
        negated = bool(negations) or det is not None and det.lower_ == "no" or verb.lower_ == "without"
        holder = holder_of(r, terms[0])
        if holder is None:
            continue
        it.term, prop = terms[0], terms[0].prop
        r.query.where.append(_missing(r, holder, label, prop) if negated else Where(holder, prop, "IS NOT NULL"))
        r.where_ends.append((it.start, end))
        if not negated and r.view.prop_type(label, prop) == "STRING":
            for word in MISSING_TEXT:  # text exports write "no value" as words too
                r.query.where.append(Where(holder, prop, "<>", word))
                r.where_ends.append((it.start, end))
        after = [k for k in range(end, min(end + 2, len(r.doc))) if r.lemmas[k] in cues.HELD_WORDS]
        r.use((it.start, end), (verb.i, verb.i + 1), *[(c.i, c.i + 1) for c in negations],
              *([(det.i, det.i + 1)] if det is not None else []), *[(k, k + 1) for k in after])


def _missing(r: Reading, holder: str, label: str, prop: str) -> Where:
    """``holder.prop`` holds no value: null, or for text the words exports write for none (``MISSING_TEXT``)."""
    none = Where(holder, prop, "IS NULL")
    if r.view.prop_type(label, prop) != "STRING":
        return none
    return Where(holder, prop, "OR", (none, *(Where(holder, prop, "=", word) for word in MISSING_TEXT)))


def _yes_no(r: Reading, owner: str, prop: str) -> bool:
    """Whether a text property holds words for yes or no ('Yes', 'N'): a flag written as text, not a value had."""
    return any((lb, p) == (owner, prop) for w in cues.YES_NO_WORDS for lb, p, *_ in r.view.values.get(w, []))
