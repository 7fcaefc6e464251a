"""Reading a question by its grammar against the graph's own schema, into a :class:`~kgqa.planner.query.Query`.

The question is parsed (:mod:`kgqa.planner.parse`); runs of its words are mapped onto labels, node and
relationship properties and relationship types by their forms (:mod:`kgqa.planner.schema_terms`); values
(linked graph values, quoted literals, numbers) are attached to the property written before them, with the
comparison written between (:mod:`kgqa.planner.cues`). Then :data:`COMPONENTS` run in order over one
:class:`Reading`, each filling part of the query: what is asked (:func:`focus`), the conditions
(:func:`conditions`, and comparisons with an overall average: :func:`overall`), the pattern that joins every label used (:func:`pattern`, :mod:`kgqa.planner.joins`), and
counts, aggregates, groups, superlatives and orders (:func:`kgqa.planner.shape.shape`). The state they share is
one :class:`~kgqa.planner.reading.Reading`. :func:`coverage` last: a content word nothing explained
makes the reading decline, listing the words, and so does a choice the schema leaves open (two labels
that own a property, two paths between labels): nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgqa.planner import cues
from kgqa.planner.attach import (
    bound_prop,
    comparator,
    named_before,
    prop_before,
    string_op,
    trailing_comparator,
    value_after,
)
from kgqa.planner.frame import Mention
from kgqa.planner.joins import copy_path, edge_of, holder_of, join_label, many_along, other_end, path_to
from kgqa.planner.parse import parse, quoted_spans, quoted_value
from kgqa.planner.query import Absent, Column, Edge, Overall, Where
from kgqa.planner.reading import (
    MAX_READINGS,
    Item,
    Reading,
    Value,
    is_timed,
    parse_number,
    pick,
    pick_prop,
    term_name,
    typed_value,
)
from kgqa.planner.schema_terms import SchemaTerms, Term
from kgqa.planner.schema_view import SchemaView
from kgqa.planner.shape import ROWID, shape
from kgqa.text import name_words


# -- reading the words -----------------------------------------------------------------------------
def values(r: Reading) -> None:
    """Linked values and quoted literals (from the lexicon's mentions), then numbers, become :class:`Value`s."""
    doc = r.doc
    for m in r.mentions:
        span = doc.char_span(m.start, m.end, alignment_mode="expand")
        if span is None or (not m.label and len(span) > 1):
            continue  # a quoted schema name ('book 45'), read as words
        if m.label and len(span) == 1 and span[0].pos_ in ("VERB", "AUX", "ADP", "ADV", "DET", "PRON", "SCONJ") \
                and span[0].text.islower() and quoted_value(span[0]) is None:
            continue  # "tracks that belong to": a lower-case verb or function word, not the track 'Belong'
        kind = "linked" if m.label else "text"
        options = tuple(dict.fromkeys([(m.label, m.prop)] + [(a[0], a[1]) for a in m.alternatives])) if m.label else ()
        r.values.append(Value(span.start, span.end, m.value, kind, m.label, m.prop, options))
    linked = sorted((v for v in r.values if v.kind == "linked"), key=lambda v: v.start)
    for a, b in zip(linked, linked[1:]):
        if b.start == a.end:
            common = [o for o in a.options if o[0] in {lb for lb, _ in b.options}]
            if common:
                a.label, a.prop = common[0]
                b.label, b.prop = next(o for o in b.options if o[0] == a.label)
                a.options = (common[0],)
                b.options = ((b.label, b.prop),)
    taken = {i for v in r.values for i in range(v.start, v.end)}
    for t in doc:
        if t.i in taken:
            continue
        q = quoted_value(t)
        if q is not None:
            r.values.append(Value(t.i, t.i + 1, q, "text"))
        elif t.like_num and t.pos_ in ("NUM", "PROPN", "NOUN", "ADJ"):
            number = parse_number(t.text)
            if number is not None and not (t.lower_ == "one" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ in ("of", "or")) \
                    and not (t.lower_ == "one" and t.i > 0 and doc[t.i - 1].lower_ in ("in", "for", "on", "at", "by")):
                r.values.append(Value(t.i, t.i + 1, number, "number"))
    r.values.sort(key=lambda v: v.start)
    for v in r.values:
        if v.kind == "number" and v.end < len(doc) and doc[v.end].lower_ in cues.MULTIPLIERS:
            v.value = v.value * cues.MULTIPLIERS[doc[v.end].lower_]  # "$10 million"
            v.end += 1
    low = [t.lower_ for t in doc]
    for v in r.values:
        # "the top 5", "the 3 oldest", "limit to 10": how many rows, not a condition
        if v.kind == "number" and isinstance(v.value, int) and (
                low[max(0, v.start - 1):v.start] and low[v.start - 1] in cues.TOP_WORDS | {"limit", "last"}
                or low[max(0, v.start - 2):v.start] == ["limit", "to"]
                or (v.end < len(doc) and doc[v.end].tag_ in ("JJS", "RBS"))):
            v.kind = "limit"
    ranked = any(t.tag_ in ("JJS", "RBS") or t.lower_ in cues.TOP_WORDS for t in doc)
    for v in r.values:
        nxt = doc[v.end] if v.end < len(doc) else None
        if ranked and v.kind == "number" and isinstance(v.value, int) and nxt is not None and nxt.tag_ == "NNS" \
                and v.start > 0 and doc[v.start - 1].pos_ in ("DET", "VERB", "AUX", "PRON", "PUNCT") \
                or (v.kind == "number" and v.start == 1 and doc[0].lower_ in ("list", "show", "find", "name", "give")):
            v.kind = "limit"  # "Which three countries have the most ...", "List 5 filings ..."

def schema(r: Reading) -> None:
    """Runs of words outside the values that name labels, properties or relationship types."""
    blocked = {i for v in r.values for i in range(v.start, v.end)}
    words = ["" if t.i in blocked or t.is_punct or _order_word(r, t.i) else t.lower_ for t in r.doc]
    quiet = cues.FILLER - cues.NAMING_FILLER
    r.items = [Item(a, b, terms) for a, b, terms in r.terms.match(words)
               if not all(w in quiet for w in words[a:b]) or any(t.exact for t in terms)]
    _shared_heads(r, words)
    for it in r.items:
        if it.end < len(words) and words[it.end] in cues.INDIVIDUALS and "label" in it.kinds() and \
                not any(x.start == it.end for x in r.items):
            it.end += 1  # "faculty members": the faculty, one by one
    for it in r.items:
        rels = {t.owner for t in it.terms if t.kind == "rel"}
        if rels and it.kinds() == {"rel"}:
            r.rels_named.extend(sorted(rels))
    # weak evidence for a path: a word that shares its first five letters with a relationship's name
    stems = {w[:5] for w in words if len(w) >= 5}
    r.rels_hinted = [rel for rel in r.view.rels if any(len(w) >= 5 and w[:5] in stems for w in name_words(rel))]
    for rel in r.rels_hinted:
        own = {w[:5] for w in name_words(rel) if len(w) >= 5}
        r.hints[rel] = [i for i, w in enumerate(words) if len(w) >= 5 and w[:5] in own]


def _order_word(r: Reading, i: int) -> bool:
    """Whether token ``i`` is the "order" of "in (ascending) order of": a word of the sort, no schema name."""
    return r.doc[i].lower_ == "order" and i > 0 and r.doc[i - 1].lower_ in cues.DESCENDING | cues.ASCENDING | {"in"}


def _shared_heads(r: Reading, words: list[str]) -> None:
    """"the first and last name", "the minimum and maximum price": a word before "and" (or a comma) that shares
    the head noun of the property named after it names the property of its own words with that head."""
    taken = {i for it in r.items for i in range(it.start, it.end)}
    for it in list(r.items):
        owners = {t.owner for t in it.terms if t.kind == "prop"}
        k = it.start - 1
        while it.end - it.start >= 2 and owners and k >= 1 and words[k] in ("and", "or", ",") and words[k - 1] \
                and k - 1 not in taken:
            terms = {t for t in r.terms.lookup([words[k - 1]] + words[it.start + 1:it.end])
                     if t.kind == "prop" and t.owner in owners}
            if not terms:
                break
            r.items.append(Item(k - 1, k, terms))
            k -= 2
    r.items.sort(key=lambda x: x.start)


# -- what is asked ---------------------------------------------------------------------------------
def focus(r: Reading) -> None:
    """The label asked about and the properties asked for: the first label named, or the label the first
    named properties belong to ("the names of the heads"); "who" asks for the graph's person label."""
    lem = r.lemmas
    labels = [it for it in r.items if "label" in it.kinds()]
    label = None
    if labels:
        first = labels[0]
        term = pick(first, "label", None) or r.choose(
            first.start, sorted((t for t in first.terms if t.kind == "label"), key=term_name), "is asked about")
        if term is None:
            return
        label = term.owner
        first.term = term
        r.use((first.start, first.end))
        nxt = first.end
        if nxt < len(r.doc) and r.doc[nxt].lower_ in ("name", "names", "title", "titles") and \
                not any(x.start <= nxt < x.end for x in r.items):
            r.use((nxt, nxt + 1))  # "the department name": what names a department
    elif lem and lem[0] == "who" and r.view.spec.who:
        label = r.view.spec.who
        r.use((0, 1))
    else:
        owners = _common_owners([it for it in r.items if "prop" in it.kinds()])
        if len(owners) == 1:
            label = owners[0]
        elif owners:
            r.decline(f"which of {', '.join(owners)} is asked about")
            return
    if label is None:
        rels = {t.owner for it in r.items for t in it.terms if t.kind in ("rel", "prop") and t.on_rel or t.kind == "rel"}
        ends = {src for rel in rels for src, _ in r.view.rels.get(rel, [])}
        if len(ends) == 1:
            label = ends.pop()
    if label is None:
        r.decline("what is asked about")
        return
    r.target = r.var_for(label)
    if labels:
        low = [t.lower_ for t in r.doc]
        k = labels[0].start
        while k > 0 and (low[k - 1] in ("the", "all", "a", "an", "each", "every") or
                         any(v.start == k - 1 and v.kind == "limit" for v in r.values)):
            k -= 1
        if low[max(0, k - 2):k] in (["name", "of"], ["names", "of"], ["title", "of"], ["titles", "of"]):
            r.use((k - 2, k))  # "the names of the heads": what names them
    info = [i for i, w in enumerate(lem) if w in ("information", "detail", "everything", "info", "attribute")]
    if info and (lem[info[0] - 1:info[0]] in (["all"], ["the"]) or lem[info[0] - 2:info[0] - 1] == ["all"] or
                 any(it.end == info[0] and "label" in it.kinds() for it in r.items)):
        r.all_props = True
        r.use((info[0], info[0] + 1))
    # the properties asked for: the run of property words before the first label or condition word, and those of
    # a later sentence that asks for more of the same ("... ? Give me their first names.")
    first_label = labels[0].start if labels else len(r.doc)
    later = [t.i for t in r.doc if t.is_sent_start and t.i > first_label and t.lemma_.lower() in cues.ASK_VERBS]
    last = None
    for it in r.items:
        if later and it.start > later[0]:
            if "label" in it.kinds() and pick(it, "label", None) is not None and \
                    pick(it, "label", None).owner == label:
                r.use((it.start, it.end))  # "Return the city and its GDP"
                r.show_target = True
                continue
        elif it.start >= first_label and not (labels and it.start == labels[0].end and not r.asked and any(
                t.kind == "prop" and t.owner == label for t in it.terms)) and not (
                last is not None and last.start >= first_label and "and" in lem[last.end:it.start] and
                all(w in ("and", ",", "the", "number", "of", "their", "its") or w in cues.AGGREGATES
                    for w in lem[last.end:it.start])):  # "the student ids and the number of hours played"
            continue
        if last is not None and any(lem[k] in cues.ENDS_ASKED and not (lem[k] == "of" and lem[k - 1] in (
                "number", "amount", *cues.AGGREGATES)) for k in range(last.end, it.start)):
            break  # "the maximum enrollment across all schools": what follows the preposition is no column
        term = pick(it, "prop", label)
        if term is None or value_after(r, it) or bound_prop(r, it):
            continue
        if it.end - it.start == 1 and lem[it.start] in ("number", "count", "amount") and \
                lem[it.end:it.end + 1] == ["of"] and not term.exact:
            continue  # "the number of patients": a count, not RoomNumber
        head = r.doc[it.end - 1]
        if any(r.doc[k].tag_ in ("JJS", "RBS") for k in range(max(0, it.start - 2), it.start)):
            continue  # "the top 3 most expensive products": the order, not a column
        shared = it.end < len(r.doc) and r.doc[it.end].lower_ in ("and", "or", ",") and any(
            x.start == it.end + 1 and x.end - x.start >= 2 for x in r.items)  # "the first and last name"
        if (head.dep_ == "amod" and not shared) or (head.tag_ in ("JJ", "VBN") and it.end < first_label + 1 and
                                   r.doc[it.end].i == first_label):
            if r.view.prop_type(term.owner, term.prop) == "BOOL":
                r.flags.append((it, term))  # "the discontinued products": a condition, not a column
            continue
        it.term = term
        r.asked.append(it)
        last = it
    if lem[:1] == ["where"] and not r.asked:
        _where_asked(r, label)


def _where_asked(r: Reading, label: str) -> None:
    """"Where is the club 'X' located?": the one property of the asked label named as a place is asked; the
    place verb restates it."""
    places = [p for p in r.view.nodes.get(label, {}) if any(w in p.lower() for w in cues.PLACE_WORDS)
              and r.view.prop_type(label, p) == "STRING"]
    if len(places) != 1:
        return
    r.asked.append(Item(0, 1, {Term("prop", label, places[0])}, Term("prop", label, places[0])))
    r.use((0, 1), *[(t.i, t.i + 1) for t in r.doc if t.lemma_.lower() in cues.PLACE_VERBS])


# -- comparisons with an overall figure -------------------------------------------------------------------
def overall(r: Reading) -> None:
    """"whose height is lower than the average", "budgets above the average budget": the property written before
    the comparison against its own average over every node of its label. An average of part of them ("the average
    salary of the instructors in Physics") is declined."""
    if r.target is None:
        return
    lem, low = r.lemmas, [t.lower_ for t in r.doc]
    for i, w in enumerate(lem):
        if w not in cues.OVERALL or i in r.used:
            continue
        before = [it for it in r.items if it.end <= i and "prop" in it.kinds()]
        after = next((x for x in r.items if x.start == i + 1 and "prop" in x.kinds()), None)
        if before and i - before[-1].end <= 6 and not any(x.start >= before[-1].end and x.end <= i for x in r.items):
            it = before[-1]
            op, spans = comparator(low, it.end, i)
        elif after is not None:  # "with greater than average budget"
            it = after
            op, spans = comparator(low, max([x.end for x in r.items if x.end <= i] + [i - 4, 0]), i)
        else:
            continue
        if op not in ("<", ">", "<=", ">="):
            continue
        term = pick(it, "prop", r.query.nodes[r.target]) or pick_prop(it, r)
        if term is None or term.on_rel or not r.view.is_number(term.owner, term.prop):
            continue
        end = i + 1
        nxt = next((x for x in r.items if x.start == end), None)
        if nxt is not None and any(t.kind == "prop" and (t.owner, t.prop) == (term.owner, term.prop) for t in nxt.terms):
            end = nxt.end  # "the average budget"
        if lem[end:end + 1] == ["of"]:
            k = end + 1
            while k < len(lem) and lem[k] in ("all", "the", "every"):
                k += 1
            whole = next((x for x in r.items if x.start == k and any(
                t.kind == "label" and t.owner == term.owner for t in x.terms)), None)
            if whole is None or (whole.end < len(lem) and lem[whole.end] in ("in", "of", "from", "with", "who", "that")):
                r.decline(f"the {w} of which {term.owner} nodes")
                return
            end = whole.end
        holder = holder_of(r, term)
        if holder is None:
            continue
        r.query.where.append(Where(holder, term.prop, op, Overall(cues.OVERALL[w], term.owner, term.prop)))
        first = min(it.start, i)
        r.values = [v for v in r.values if not first <= v.start < end]  # "more" is no value here
        r.where_ends.append((it.start, end))
        it.term = term
        r.use(*spans, (it.start, it.end), (i - (lem[i - 1:i] == ["overall"]), max(end, it.end)))


# -- negation --------------------------------------------------------------------------------------
def negation(r: Reading) -> None:
    """"dorms that do not have a TV Lounge", "instructors who did not teach", "courses without prerequisites":
    the label or relationship named after a negation (before any value) must have no such node or edge from
    the asked one: a NOT EXISTS of the path to it, the conditions on that node inside it."""
    if r.target is None:
        return
    label = r.query.nodes[r.target]
    for i, t in enumerate(r.doc):
        if t.lower_ not in cues.NEGATIONS:
            continue
        value_at = next((v.start for v in r.values if v.start > i and v.kind != "limit"), len(r.doc))
        found = [x for x in r.items if i < x.start <= i + 5 and x.start < value_at and x.kinds() & {"label", "rel"}]
        if found and r.negated:
            r.decline("two negations")
            return
        # "faculty who do not participate in any activity": the verb may name another label's relationship;
        # then the label after it says what is not there
        for it in found:
            term = _negate(r, it, label)
            if term is None:
                continue
            r.use((i, i + 1), (it.start, it.end))
            if t.lower_ in ("not", "n't", "never"):
                r.use(*[(k, k + 1) for k in range(max(0, i - 2), i) if r.doc[k].lemma_ in ("do", "be", "have")])
            if term.kind == "label":
                join_label(r, term.owner)
            break


def _negate(r: Reading, it: Item, label: str) -> Term | None:
    """Records the label or relationship ``it`` names as not there from the asked node, returning its term;
    None when it names neither as such (a relationship that does not touch the asked label)."""
    term = pick(it, "label", None)
    if term is not None and term.owner != label:
        r.negated[term.owner] = Absent()
        it.term = term
        return term
    if it.kinds() != {"rel"}:
        return None
    rels = [t.owner for t in it.terms if any(label in pair for pair in r.view.rels.get(t.owner, []))]
    if len(rels) != 1:
        return None
    a = Absent()
    pair = next(p for p in r.view.rels[rels[0]] if label in p)
    far = r.var_for(pair[1] if pair[0] == label else pair[0], f"not:{rels[0]}")
    a.edges.append(Edge(f"r{len(r.query.edges) + 9}", rels[0], *((r.target, far) if pair[0] == label
                                                                 else (far, r.target))))
    r.negated[rels[0]] = a
    r.absent_of[far] = a
    a.own.add(far)
    r.query.absent.append(a)
    it.term = Term("rel", rels[0])
    return it.term


# -- conditions ------------------------------------------------------------------------------------
def conditions(r: Reading) -> None:
    """Each value constrains the property written before it (with the comparison between), else the property
    it was linked to; "between A and B" is a range; a quoted text after "contains/starts/ends" a substring."""
    if r.target is None:
        return
    lem = r.lemmas
    for it, term in r.flags:
        negated = it.start > 0 and r.doc[it.start - 1].lower_ in cues.NEGATIONS
        r.query.where.append(Where(r.target, term.prop, "=", not negated))
        r.where_ends.append((it.start, it.end))
        it.term = term
        r.use((it.start - negated, it.end))
    done: set[int] = set()
    ors: dict[tuple[str, str], tuple[int, int]] = {}  # (holder, prop) -> (its equality's index, value end)
    for k, v in enumerate(r.values):
        if k in done or v.kind == "limit":
            continue
        gap = v.end
        while gap < len(lem) and (lem[gap] in ("or", "more", "less", "fewer", "different", "distinct", "unique")):
            gap += 1
        counted = next((it for it in r.items if it.start == gap and "label" in it.kinds()), None)
        if v.kind == "number" and counted is not None and isinstance(v.value, int):
            _count_bound(r, v, counted, low_ops=[t.lower_ for t in r.doc])
            continue
        named = next((it for it in r.items if it.start == gap and "prop" in it.kinds()), None)
        if v.kind == "number" and named is not None and not any(
                _is_number(r, t) or r.view.is_numeric_text(t.owner, t.prop) for t in named.terms if t.kind == "prop"):
            r.decline(f"{v.value} {r.doc[named.start:named.end].text}")  # "more than one region": a count of text
            continue
        nxt = r.doc[gap] if gap < len(r.doc) else None
        if v.kind == "number" and nxt is not None and nxt.tag_ == "NNS" and not any(
                it.start <= gap < it.end for it in r.items):
            r.decline(f"{v.value} {nxt.text}")  # "more than 2 records": a count of what
            continue
        prop_item = prop_before(r, v)
        low = [t.lower_ if t.i not in r.used else "" for t in r.doc]  # words read already compare nothing
        op, op_span = comparator(low, prop_item.end if prop_item and prop_item.end <= v.start else max(0, v.start - 4),
                                 v.start)  # "with at least 100000 salary": the comparison before the value
        trailing, tspan = trailing_comparator(low, v.end)
        if trailing and op is None:  # "100 or higher"; not "above 50 or below 46"
            op, op_span = trailing, [tspan]
        if op is None and prop_item is not None and prop_item.end <= v.start:
            ahead, ahead_span = comparator(low, max(0, prop_item.start - 3), prop_item.start)
            if ahead in ("<", ">", "<=", ">=", "<>"):  # "above age 46", "before the year of 2010", "not in country"
                op, op_span = ahead, op_span + ahead_span
        if op == "BETWEEN_START":
            op = "BETWEEN"
        substring = string_op(lem, prop_item.end if prop_item else max(0, v.start - 3), v.start)
        aged = [t.lower_ for t in r.doc[max(0, v.start - 3):v.start] if t.lower_ in ("older", "younger")]
        if aged and v.kind == "number":
            ages = [p for p in r.view.nodes.get(r.query.nodes[r.target], {}) if p.lower() in cues.AGE_WORDS]
            if len(ages) != 1:
                r.decline(f"{aged[0]} by what")
                continue
            prop_item = None
            term = Term("prop", r.query.nodes[r.target], ages[0])
        else:
            term = None
        if term is None and prop_item is not None:
            term = pick(prop_item, "prop", _governor(r, prop_item) or r.query.nodes.get(r.target))
            if term is None:
                term = pick_prop(prop_item, r)
        if term is not None and v.kind in ("linked", "text") and not term.on_rel and not substring \
                and not r.terms.holds(term.owner, term.prop, v.value):
            # "a beneficiary bank from 'Singapore'": the property named does not hold the value; one that holds
            # it and whose name extends the words written does (beneficiary_bank_country)
            term = _holding(r, term, v, prop_item)
            if term is None:
                continue
        year = v.kind == "number" and isinstance(v.value, int) and 1800 <= v.value <= 2100
        if year and term is not None and not term.on_rel and not is_timed(term.prop) and \
                r.view.prop_type(term.owner, term.prop) not in ("INT16", "INT32") and \
                any(w in ("after", "before", "since", "in", "during") for w in low[max(0, v.start - 3):v.start]):
            term = _year_prop(r, term.owner)  # "a host city after 2010": the year the hosting holds
            prop_item = None
        if term is None and year:
            # "opened between 2000 and 2005", "wines made before 2000"; "an exhibition in 2004": the label's named
            named = next((x for x in reversed(r.items) if x.end <= v.start and v.start - x.end <= 2 and
                          pick(x, "label", None) is not None), None)
            term = _year_prop(r, pick(named, "label", None).owner) if named is not None else None
            term = term or _year_prop(r)
        if term is None and v.kind == "number":
            term = _key_named(r, v)  # "student 1004", "department 520": the key of the label named just before
        if term is None and v.kind == "number" and _money(r, v):
            term = _money_prop(r)  # "transactions above $10 million": the one amount the labels hold
        if term is None and v.kind == "linked":
            at = v.start - (named_before(lem, v.start) and r.doc[v.start - 1].tag_ == "VBN")
            before = next((pick(x, "label", None) for x in r.items if x.end == at), None)
            owner = before.owner if before is not None and any(lb == before.owner for lb, _ in v.options) else v.label
            term = Term("prop", owner, next(p for lb, p in v.options if lb == owner) if owner != v.label else v.prop)
            # "the album 'Balls to the Wall'": the value of the label named just before it
        if term is None and v.kind == "text" and named_before(lem, v.start):
            label = r.query.nodes[r.target]
            term = Term("prop", label, r.view.display(label))
        if term is None:
            r.decline(f"what {r.doc[v.start:v.end].text} is")
            continue
        if term.kind == "prop" and not term.on_rel and r.view.is_empty(term.owner, term.prop):
            r.decline(f"no {term.owner} has any {term.prop}")  # "items with more than 100 votes": none has votes
            continue
        if isinstance(v.value, str) and parse_number(v.value) is None and _is_number(r, term):
            # "a dorm with a TV Lounge" read onto dormid: a word is no number; the value's own property, if linked
            if v.kind != "linked" or _is_number(r, Term("prop", v.label, v.prop)):
                r.decline(f"{v.value!r} as {term.owner}.{term.prop}")
                continue
            term, prop_item = Term("prop", v.label, v.prop), None
        value = v.value
        if term.kind == "prop" and not term.on_rel:
            value = typed_value(r.view.prop_type(term.owner, term.prop), value)
        if substring and isinstance(value, str):
            op = substring[0]
            r.use(substring[1])
        # "between 10 and 20"
        if k + 1 < len(r.values) and lem[v.start - 1:v.start] == ["between"] and \
                lem[v.end:v.end + 1] == ["and"] and r.values[k + 1].start == v.end + 1:
            hi = r.values[k + 1]
            done.add(k + 1)
            op, value = "BETWEEN", (value, typed_value(r.view.prop_type(term.owner, term.prop), hi.value))
            r.use((v.start - 1, hi.end))
        holder = holder_of(r, term)
        if holder is None:
            continue
        fn = _aggregate_before(r, prop_item, term)
        if fn is not None and op in ("<", ">", "<=", ">=", "=", None) and not isinstance(value, str):
            # "departments whose average salary is above 42000": a bound on the aggregate per asked node
            r.bounds.append((Column(holder, term.prop, fn), op or "=", value))
            prop_item.term = term
            k = next((j for j in range(prop_item.start - 1, -1, -1) if r.lemmas[j] in cues.AGGREGATES), prop_item.start)
            r.use((k, prop_item.end), (v.start, v.end), *op_span)
            continue
        verbs = [it for it in r.items if it.kinds() == {"rel"}]
        apposed = any(it.end == v.start and "label" in it.kinds() for it in r.items)  # "the dept 'History'"
        if v.kind == "linked" and prop_item is None and holder == r.target and not r.asked and verbs and \
                not apposed and \
                not (r.doc[v.start:v.end].root.dep_ in ("nsubj", "nsubjpass", "attr") and
                     lem[0] not in ("who", "which", "what")):
            # "Who does Paul Blythe follow?", "Who acted alongside Keanu Reeves?": the named node is not the one
            # asked for; along a relationship of the label to itself it is the edge's other end
            holder = other_end(r, v)
            if holder is None:
                continue
        if isinstance(value, str) and op in ("<", ">", "<=", ">=") and not any(c.isdigit() for c in value):
            op = "="  # "courses under the 'Computer Science' subject": words have no order
        prev = ors.get((holder, term.prop))
        if (op or "=") == "=" and prev is not None and "or" in lem[prev[1]:v.start] and \
                all(w in ("or", ",", "either", "'", '"', "the", "be") for w in lem[prev[1]:v.start]):
            # "whose residence is either 'Brandon' or 'Birtle'": one of the values
            w0 = r.query.where[prev[0]]
            listed = list(w0.value) if w0.op == "IN" else [w0.value]
            r.query.where[prev[0]] = Where(holder, term.prop, "IN", listed + [value])
            r.where_ends[prev[0]] = (r.where_ends[prev[0]][0], v.end)
            ors[(holder, term.prop)] = (prev[0], v.end)
            r.use((prev[1], v.end))
            continue
        if (op or "=") == "=":
            ors[(holder, term.prop)] = (len(r.query.where), v.end)
        if holder in r.absent_of:
            r.absent_of[holder].where.append(Where(holder, term.prop, op or "=", value))
        else:
            r.query.where.append(Where(holder, term.prop, op or "=", value))
            r.where_ends.append((prop_item.start if prop_item else v.start, v.end))
        if prop_item is not None:
            prop_item.term = term
            r.use((prop_item.start, prop_item.end))
        r.use((v.start, v.end), *op_span)
        if named_before(lem, v.start) and lem[v.start - 1] in ("name", "call", "title", "named", "called", "titled") \
                and r.doc[v.start - 1].tag_ == "VBN":
            r.use((v.start - 1, v.start))  # "the employee called Ebba"
    _disjunctions(r)
    for w in r.query.where:
        if w.op == "<>" and w.holder != r.target:
            r.decline(f"not {w.value!r} (none of them, or one that is not)")
    _conjunctions(r)


def _conjunctions(r: Reading) -> None:
    """Two values of one property said with "and": of a node joined many to each asked node, each value on a
    node of its own ("students who play both Canoeing and Kayaking": two activities); of the asked node itself,
    or of the one node joined to it, either value ("the Marketing and Finance departments", "Latin and Pop
    tracks"): one node cannot hold both."""
    q = r.query
    same: dict[tuple[str, str], list[int]] = {}
    for k, w in enumerate(q.where):
        if w.op == "=" and not isinstance(w.value, (list, tuple)):
            same.setdefault((w.holder, w.prop), []).append(k)
    gone: set[int] = set()
    for (holder, prop), ks in same.items():
        if len(ks) < 2:
            continue
        spans = [r.where_ends[k] for k in ks]
        if not all("and" in r.lemmas[a[1]:b[0]] or "," in r.lemmas[a[1]:b[0]] or "both" in r.lemmas[a[1]:b[0]]
                   for a, b in zip(spans, spans[1:])) or any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
            r.decline("two values of one property at once (both)")
            return
        if any("how" in r.lemmas[a[1]:b[0]] for a, b in zip(spans, spans[1:])):
            r.decline("two values of one property, each asked apart")  # "how many are male and how many female"
            return
        path = path_to(q, r.target, holder)
        many = holder != r.target and path is not None and many_along(r.view, q, path, r.target)
        if not many and "both" in r.lemmas[max(0, spans[0][0] - 5):spans[-1][0]]:
            r.decline("two values of one property at once (both)")  # "industries of both a company in X and ..."
            return
        if not many:
            q.where[ks[0]] = Where(holder, prop, "IN", [q.where[k].value for k in ks])
            gone.update(ks[1:])
        else:
            for n, k in enumerate(ks[1:], start=1):
                q.where[k] = Where(copy_path(r, path, f"both{n}"), prop, "=", q.where[k].value)
        r.use(*[(a[1], b[0]) for a, b in zip(spans, spans[1:])])
    q.where[:] = [w for k, w in enumerate(q.where) if k not in gone]
    r.where_ends[:] = [e for k, e in enumerate(r.where_ends) if k not in gone]


def _aggregate_before(r: Reading, it: Item | None, term: Term) -> str | None:
    """The aggregate written just before a numeric property ("whose average salary", "a total amount"), when the
    property is not the asked node's own (one value each: nothing to aggregate), else None."""
    if it is None or it.start == 0 or term.on_rel or not _is_number(r, term):
        return None
    k = it.start - 1
    if any(x.end == it.start and pick(x, "label", None) is not None and pick(x, "label", None).owner == term.owner
           for x in r.items):  # "the average course credits"
        k = next(x.start for x in r.items if x.end == it.start) - 1
    word = r.lemmas[k] if k >= 0 else ""
    if word not in cues.AGGREGATES or word == "overall" or term.owner == r.query.nodes.get(r.target):
        return None
    return cues.AGGREGATES[word]


def _governor(r: Reading, it: Item) -> str | None:
    """The label of the noun a property word modifies in the parse ("the customer with id 10": customer), when
    that noun names a label that owns the property."""
    tok = r.doc[it.end - 1]
    for _ in range(3):
        if tok.head is tok:
            return None
        tok = tok.head
        owner = next((x for x in r.items if x.start <= tok.i < x.end and "label" in x.kinds()), None)
        if owner is not None:
            lab = pick(owner, "label", None)
            if lab is not None and any(t.kind == "prop" and t.owner == lab.owner for t in it.terms):
                return lab.owner
            return None
    return None


def _disjunctions(r: Reading) -> None:
    """"a height over 5000 or a prominence over 1000": conditions written with "or" between them hold either."""
    w = r.query.where
    ends = r.where_ends
    for k in range(len(w) - 1, 0, -1):
        a_end, b_start = ends[k - 1][1], ends[k][0]
        if a_end <= b_start and "or" in r.lemmas[a_end:b_start] and w[k].op != "IN" and w[k - 1].op != "IN":
            either = Where(w[k - 1].holder, "", "OR", (w[k - 1], w[k]))
            w[k - 1:k + 1] = [either]
            ends[k - 1:k + 1] = [(ends[k - 1][0], ends[k][1])]
            r.use((a_end, b_start))


def _is_number(r: Reading, term: Term) -> bool:
    """Whether a property term holds numbers (of a node or a relationship)."""
    typ = r.view.rel_props.get(term.owner, {}).get(term.prop) if term.on_rel else r.view.prop_type(term.owner, term.prop)
    return bool(typ) and typ.startswith(("INT", "UINT", "DOUBLE", "FLOAT", "DECIMAL", "SERIAL"))


def _key_named(r: Reading, v: Value) -> Term | None:
    """The numeric key of the label written just before a number ("advises student 1004"), else None."""
    named = next((x for x in r.items if x.end == v.start and "label" in x.kinds()), None)
    term = pick(named, "label", None) if named is not None else None
    if term is None:
        return None
    key = r.view.key(term.owner)
    if not key or key == ROWID or not (r.view.is_number(term.owner, key) or r.view.is_numeric_text(term.owner, key)):
        return None
    named.term = term
    r.use((named.start, named.end))
    return Term("prop", term.owner, key)


def _money(r: Reading, v: Value) -> bool:
    """Whether a number is said as money ("$500,000", "1 million USD")."""
    around = [r.doc[k].lower_ for k in (v.start - 1, v.end) if 0 <= k < len(r.doc)]
    return r.doc[v.start].text.startswith(("$", "€", "£")) or any(w in cues.CURRENCY_SIGNS for w in around)


def _money_prop(r: Reading) -> Term | None:
    """The one numeric property, of the labels the question names, whose name says money, else None."""
    labels = set(r.query.nodes.values()) | {t.owner for x in r.items for t in x.terms if t.kind == "label"}
    found = [Term("prop", lb, p) for lb in sorted(labels) for p in r.view.nodes.get(lb, {})
             if r.view.is_number(lb, p) and any(w in p.lower() for w in cues.MONEY_WORDS)]
    return found[0] if len(found) == 1 else None


def _year_prop(r: Reading, label: str | None = None) -> Term | None:
    """The one property of ``label`` (default: the asked one) that holds years or dates, by its name."""
    label = label or r.query.nodes[r.target]
    props = [p for p in r.view.nodes.get(label, {}) if is_timed(p)]
    return Term("prop", label, props[0]) if len(props) == 1 else None


def _count_bound(r: Reading, v: Value, it: Item, low_ops: list[str]) -> None:
    """"students with at least two allergies": a bound on how many nodes of that label each row reaches."""
    term = pick(it, "label", None)
    if term is None or term.owner == r.query.nodes.get(r.target):
        r.decline(f"{v.value} {r.doc[it.start:it.end].text} of what")
        return
    op, span = comparator(low_ops, max(0, v.start - 4), v.start)
    trailing, tspan = trailing_comparator(low_ops, v.end)
    if trailing:
        op, span = trailing, span + [tspan]
    span.append((v.end, it.start))
    var = r.vars.get(term.owner) or join_label(r, term.owner)
    if var is None:
        return
    it.term = term
    if (op, v.value) in ((">=", 1), (">", 0)):  # "at least one entity": there is one, the join says it
        r.use((v.start, v.end), (it.start, it.end), *span)
        return
    r.bounds.append((Column(var, None, "count", True), op or "=", v.value))
    r.use((v.start, v.end), (it.start, it.end), *span)


# -- joining the labels ----------------------------------------------------------------------------
def pattern(r: Reading) -> None:
    """Every other label, property owner and relationship the question names is joined to the asked label
    along the shortest schema path (relationships the question names preferred); two such paths and no word
    to choose between them is a decline."""
    if r.target is None:
        return
    target_label = r.query.nodes[r.target]
    # relationships named by a verb or noun, or owning a property used: an edge from the asked label
    for it in r.items:
        if it.term is None and it.kinds() == {"rel"}:  # a word that may also name a property is not read as a verb
            rels = [t.owner for t in it.terms if t.kind == "rel"]
            exact = [t.owner for t in it.terms if t.kind == "rel" and t.exact]
            touching = [x for x in (exact or rels) if any(target_label in pair for pair in r.view.rels.get(x, []))]
            joined = [x for x in rels if x in r.rel_var]
            if len(joined) == 1:
                touching = joined  # "visited ... in season 2": the relationship whose property is already used
            if len(touching) > 1:
                term = r.choose(it.start, [Term("rel", x) for x in touching], f"'{r.doc[it.start:it.end].text}' means")
                touching = [term.owner] if term else []
            if len(touching) == 1:
                it.term = Term("rel", touching[0])
                edge_of(r, touching[0])
                r.use((it.start, it.end))
    for it in r.items:
        if it.term is None and "label" in it.kinds() and it not in r.asked:
            term = pick(it, "label", None)
            if term is None:
                continue
            it.term = term
            if term.owner != target_label:
                var = join_label(r, term.owner)
                low = [t.lower_ for t in r.doc]
                named = low[max(0, it.start - 2):it.start] in (["name", "of"], ["names", "of"], ["title", "of"],
                                                               ["titles", "of"])
                if var is not None and r.view.display(term.owner) != ROWID and (r.doc[it.end - 1].dep_ == "conj" or named or
                                        low[max(0, it.start - 1):it.start] in (["their"], ["its"])):
                    r.shown.append(var)  # "the names of members and their parties": each party beside them
                    if named:
                        r.use((it.start - 2, it.start))
            r.use((it.start, it.end))
    inner = {v for a in r.query.absent for v in a.own}
    if any(e.src in inner or e.dst in inner for e in r.query.edges):
        r.decline("what the negation covers")  # a node said not to be there, also joined as there------------------------------------------------------------------


def coverage(r: Reading) -> None:
    """Declines when a content word is left unexplained: a plan that ignores it answers another question."""
    quiet = cues.FILLER - cues.TELLING_FILLER  # "the types of games", "the names of the hosts" say something
    r.use(*[(t.i, t.i + 1) for t in r.doc if t.lower_ in cues.UNITS and t.i > 0 and r.doc[t.i - 1].like_num and
            not any(it.start <= t.i < it.end for it in r.items)])  # "1,000,000 USD"
    left = [t.text for t in r.doc if t.i not in r.used and not t.is_punct and t.lower_ not in quiet
            and t.lemma_.lower() not in quiet and t.pos_ not in ("DET", "ADP", "PRON", "AUX", "CCONJ", "SCONJ", "PART")
            and not (t.is_stop and t.pos_ not in ("NOUN", "VERB", "ADJ", "PROPN", "NUM") and t.lower_ not in cues.NEGATIONS)]
    left += [t.text for t in r.doc if t.i not in r.used and (t.lower_ in cues.NEGATIONS or t.lower_ in cues.SCOPE_WORDS)]
    joined = r.query.edges or r.query.absent
    said = {i for v in r.values for i in range(v.start, v.end) if i in r.used}
    restating = {t.text for t in r.doc if t.pos_ == "VERB" and t.i not in r.used and (joined and any(
        c.dep_ in ("prep", "agent", "dative") and any(g.i in r.used for g in c.children) or
        c.dep_ == "dobj" and _names_label(r, c.i) and t.lemma_.lower() in cues.LIGHT_VERBS for c in t.children)
        or joined and _relative_read(r, t) or any(
        c.dep_ == "prep" and any(g.i in said for g in c.subtree) for c in t.children))}
    restating -= _naming_other(r, restating)
    restating |= _named_on_path(r)
    restating |= {t.text for t in r.doc if joined and t.lemma_.lower() in cues.PLACE_VERBS and t.i not in r.used}
    left = [w for w in left if w not in restating]  # "wines produced in Sonoma": the verb of the join
    if left:
        r.decline(", ".join(repr(w) for w in dict.fromkeys(left)))


def _relative_read(r: Reading, verb: Any) -> bool:
    """Whether ``verb``, a light verb, heads a relative clause of a label read, every content word under it read
    too ("the artist who made the album 'X'"): it joins what was read."""
    if verb.dep_ not in ("relcl", "acl") or not _names_label(r, verb.head.i) or \
            verb.lemma_.lower() not in cues.LIGHT_VERBS:
        return False
    words = [t for t in verb.subtree if t.i != verb.i and not t.is_punct and not t.is_stop]
    return bool(words) and all(t.i in r.used for t in words) and any(_names_label(r, t.i) for t in words)


def _names_label(r: Reading, i: int) -> bool:
    """Whether token ``i`` is read as a label of the query ("the artist who made the album")."""
    return i in r.used and any(it.start <= i < it.end and it.term is not None and it.term.kind == "label"
                               for it in r.items)


def _named_on_path(r: Reading) -> set[str]:
    """The unread words that share their stem with a label or relationship the query joins through ("students
    enrolled in courses" through Student_Course_Enrolment): the join says them."""
    q = r.query
    names = [*q.nodes.values(), *(e.rel for e in q.edges)] + [e.rel for a in q.absent for e in a.edges]
    stems = {w[:5] for n in names for w in name_words(n) if len(w) >= 5}
    return {t.text for t in r.doc if t.i not in r.used and t.pos_ in ("VERB", "NOUN", "ADJ") and len(t.lower_) >= 5
            and (t.lower_[:5] in stems or t.lemma_.lower()[:5] in stems)}


def _naming_other(r: Reading, verbs: set[str]) -> set[str]:
    """The verbs that share their stem with a schema name the query does not use ("advised by" and the property
    Advisor, while the join goes through activities): such a verb names that, not the join."""
    q = r.query
    used = {e.rel for e in q.edges} | {w.prop for w in q.where} | {c.prop for c in q.columns if c.prop} | \
        set(q.nodes.values())
    names = [n for n in [*r.view.nodes, *r.view.rels, *(p for props in r.view.nodes.values() for p in props)]
             if n not in used]
    stems = {w[:5] for n in names for w in name_words(n) if len(w) >= 5}
    lemma = {t.text: t.lemma_.lower() for t in r.doc}
    return {v for v in verbs if len(lemma[v]) >= 5 and (lemma[v][:5] in stems or v.lower()[:5] in stems)}


Component = Callable[[Reading], None]
COMPONENTS: tuple[Component, ...] = (values, schema, focus, negation, overall, conditions, pattern, shape,
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
        if words and all(terms.lookup([w]) for w in words):
            continue
        out.append((a, b))
    return tuple(out)


# -- helpers ---------------------------------------------------------------------------------------


def _holding(r: Reading, term: Term, v: Value, it: Item | None) -> Term | None:
    """The property holding value ``v`` whose name starts with the words written, else a decline saying that
    none holds it. The words tried, longest first: the item after a possessive joined to the one before it ("the
    originator bank's country": originator_bank_country), the item's own words ("originator bank":
    originator_bank, not originator_bank_id), the chosen property's name."""
    from kgqa.text import name_words

    saids = []
    if it is not None:
        own = [w for w in r.lemmas[it.start:it.end] if w.isalnum()]
        before = next((x for x in r.items if x.end == it.start - 1), None)
        if before is not None and r.doc[it.start - 1].tag_ == "POS":
            saids.append([w for w in r.lemmas[before.start:before.end] if w.isalnum()] + own)
        saids.append(own)
    saids.append(name_words(term.prop or ""))
    labels = set(r.query.nodes.values()) | {t.owner for x in r.items for t in x.terms if t.kind == "label"}
    for said in saids:
        fits = [(lb, p) for lb, p in v.options if said and name_words(p)[:len(said)] == said and
                (lb, p) != (term.owner, term.prop) and (lb == term.owner or lb in labels)]
        if len(fits) == 1:
            return Term("prop", fits[0][0], fits[0][1])
    r.decline(f"no {term.owner} has {term.prop} {v.value!r}")
    return None


def _common_owners(items: list[Item]) -> list[str]:
    owners = None
    for it in items:
        mine = {t.owner for t in it.terms if t.kind == "prop" and not t.on_rel}
        owners = mine if owners is None else (owners & mine or owners)
    return sorted(owners or [])


