"""Comparisons with an overall figure ("above the average budget", :func:`overall`), of one property with another
("a support rate lower than the oppose rate", :func:`versus`), with what a named node holds ("in the same
department as Clara", :func:`same_as`) and negations ("hotels that do
not have a Sauna", :func:`negation`), for the grammar reader."""

from __future__ import annotations

from collections.abc import Iterator

from kgqa.planner.query import Absent, Column, Edge, Overall, Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.alike import alike
from kgqa.planner.reader.attach import comparator, denied_after
from kgqa.planner.reader.bounds import values_asked
from kgqa.planner.reader.joins import copy_path, holder_of, join_label, path_to
from kgqa.planner.reader.measures import measured_props, verb_timed
from kgqa.planner.reader.reading import (
    Item,
    Reading,
    Value,
    pick,
    pick_prop,
    term_name,
)
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.reader.times import date_prop, said_time, time_cues, year_prop
from kgqa.text import name_words


def overall(r: Reading) -> None:
    """"whose height is lower than the average", "budgets above the average budget", "salaries less than the
    largest salary", "greater than that of all instructors in Biology": the property written before the comparison
    against a figure of that property over the nodes of its label, all of them or those a value of the same label
    names. "than all/any" compares with the highest (or, for "less", the lowest); "than some", with the lowest."""
    if r.target is None:
        return
    lem, low = r.lemmas, [t.lower_ for t in r.doc]
    for i, w in enumerate(lem):
        than = max((k for k in range(max(0, i - 5), i) if low[k] == "than"), default=None)
        some = low[i] == "one" and low[i - 2:i] == ["at", "least"]  # "more than at least one instructor"
        if i in r.used or not (w in cues.OVERALL or than is not None and (low[i] in cues.EXTREMES or
                                                                         low[i] in cues.QUANTIFIERS or some)):
            continue
        cut = i if w in cues.OVERALL else than + 1  # "greater than the salary of all ...": the salary before "than"
        said = [x for x in r.items if cut <= x.start and x.end <= i]
        if said and not (len(said) == 1 and "prop" in said[0].kinds() and lem[said[0].end:i] in (["of"], ["of", "the"])):
            continue
        if not all(lem[k] in ("the", "that", "those", "of", "one", "at", "least") or any(x.start <= k < x.end for x in said)
                   for k in range(cut, i)):
            continue  # "than the average price of all products": "all" inside another figure
        found = next((c for c in _compared(r, i, cut, than) if not said or
                      (c[0].owner, c[0].prop) in {(t.owner, t.prop) for t in said[0].terms}), None)
        if found is None:
            continue
        term, it, op, spans = found
        if said:
            said[0].term = term  # "than the salary of all instructors": the same property, restated
        fn = cues.OVERALL.get(w) or cues.EXTREMES.get(low[i])
        if fn is None:  # "than all engineers", "than some songs in English"
            every = not some and cues.QUANTIFIERS[low[i]]
            fn = ("max" if op[0] == ">" else "min") if every else ("min" if op[0] == ">" else "max")
            if some:
                spans.append((i - 2, i))
        end = i + 1
        nxt = next((x for x in r.items if x.start == end), None)
        if nxt is not None and any(t.kind == "prop" and (t.owner, t.prop) == (term.owner, term.prop) for t in nxt.terms):
            end = nxt.end  # "the average budget"
            if nxt in r.asked:  # "who is older than the average age": a figure compared with, not a column asked
                r.asked.remove(nxt)
        among: tuple = ()
        quantified = low[i] in cues.QUANTIFIERS or some
        of = lem[end:end + 1] in (["of"], ["for"], ["among"])
        if of and term.on_rel and (ends := _all_at_an_end(r, end + 1, term.owner)):
            end, of = ends, False  # "the average score of all games": of every edge that scores one
        if of or quantified:
            part = _part(r, end + of, term.owner, term.prop)
            if part is None and (quantified or lem[end] == "of") or part is not None and part[1] is None:
                if quantified:
                    continue
                r.decline(f"the {w} of which {term.owner} nodes")  # "the average salary of the instructors who ..."
                return
            if part is not None:
                among, end = part
        holder = holder_of(r, term)
        if holder is None:
            continue
        r.query.where.append(Where(holder, term.prop, op, Overall(fn, term.owner, term.prop, among, term.on_rel)))
        first = min(it.start, i)
        r.values = [v for v in r.values if not first <= v.start < end]  # "more" is no value here
        r.where_ends.append((it.start, end))
        it.term = term
        r.use(*spans, (it.start, it.end), (min(cut, i - (lem[i - 1:i] == ["overall"])), max(end, it.end)))


def _all_at_an_end(r: Reading, k: int, rel: str) -> int | None:
    """Where "all <label>" (or "the <label>") said from token ``k`` ends, the label at an end of relationship type
    ``rel``: the figure is over all its edges; else None."""
    while k < len(r.lemmas) and r.lemmas[k] in ("all", "the", "every"):
        k += 1
    it = next((x for x in r.items if x.start == k), None)
    ends = {lb for pair in r.view.rels.get(rel, []) for lb in pair}
    named = pick(it, "label", None) if it is not None else None
    rest = [t for t in r.doc[it.end:] if not t.is_punct] if it is not None else []
    if named is None or named.owner not in ends or rest and rest[0].lower_ not in ("and", "or"):
        return None  # not "of games they have played": of some
    it.term = named
    return it.end


def versus(r: Reading) -> None:
    """"whose support rate is lower than their oppose rate", "a higher checking balance than savings balance": one
    number property compared with another of the same nodes (or of nodes joined), not with a value; one date with
    another ("shipped after the required date", "a ship date later than the due date")."""
    if r.target is None:
        return
    low = [t.lower_ for t in r.doc]
    for k, w in enumerate(low):
        if w not in ("than", "after", "before") or k in r.used:
            continue
        j = k + 1
        while j < len(low) and low[j] in ("the", "their", "its", "that", "those", "of", "in"):
            j += 1
        right = next((x for x in r.items if x.start == j and "prop" in x.kinds()), None)
        left = max((x for x in r.items if x.end <= k and k - x.end <= 3 and "prop" in x.kinds()), key=lambda x: x.end,
                   default=None)
        if left is None and w != "than" and k > 0 and r.doc[k - 1].pos_ == "VERB" and right is not None:
            left = verb_timed(r, r.doc[k - 1])  # "parcels sent after their due date": the date sending sets
        if right is None or left is None or any(v.start >= j and v.start <= right.end for v in r.values):
            continue
        op, spans = comparator(low, left.end, k + 1)
        if op is None:  # "a lower support rate than": the comparison before the first property
            op, spans = comparator(low[:left.start] + ["than"], max(0, left.start - 2), left.start + 1)
            spans = [(a, min(b, left.start)) for a, b in spans]
        if op not in ("<", ">", "<=", ">="):
            continue
        terms = [pick(x, "prop", r.query.nodes[r.target]) or pick_prop(x, r) for x in (left, right)]
        if any(t is None or t.on_rel for t in terms) or terms[0] == terms[1]:
            continue
        numbers = w == "than" and all(r.view.is_number(t.owner, t.prop) for t in terms)  # "after": dates only
        if not numbers and not _dates(r, terms):
            continue
        holders = [holder_of(r, t) for t in terms]
        if None in holders:
            continue
        left.term, right.term = terms
        r.query.where.append(Where(holders[0], terms[0].prop, op, Column(holders[1], terms[1].prop)))
        r.use(*spans, (left.start, left.end), (k, right.end))


def _dates(r: Reading, terms: list[Term]) -> bool:
    """Whether two properties hold dates of one type (both a date type, or both ISO text: compared as written)."""
    return all(r.view.is_date(t.owner, t.prop) for t in terms) and \
        r.view.prop_type(terms[0].owner, terms[0].prop) == r.view.prop_type(terms[1].owner, terms[1].prop)


def _time_said(r: Reading, label: str, at: int) -> Term | None:
    """The year (else date) property of ``label`` a time word before ``at`` cues ("born in the same year": born),
    the word naming it read; else None."""
    term = year_prop(r, label, at) or date_prop(r, label, at)
    if term is None:
        return None
    for x in r.items:
        if x.end <= at and any(t.kind == "prop" and (t.owner, t.prop) == (label, term.prop) for t in x.terms):
            x.term = term
            r.use((x.start, x.end))
    said = [i for i in time_cues(r) if i < at and said_time(r, term.prop, [r.doc[i]])][-1:]
    r.use(*[(i, i + 1) for i in said])  # "born": BirthYear
    return term


def same_as(r: Reading) -> None:
    """"employees in the same department as Clara", "players with the same position as someone named Smith": the
    asked nodes hold what another node of their label, the one the value names, holds: the property said, or the
    node of the label said that both reach. The named node is not among them when the value is its display name
    or key ("the same city as Ann Lee"), or when "excluding Clara" follows; it is when the value is only part of a
    name ("the same department as Clara", a first name)."""
    if r.target is None:
        return
    q, lem = r.query, r.lemmas
    label = q.nodes[r.target]
    for i, w in enumerate(lem):
        if w != "same" or i in r.used:
            continue
        it = next((x for x in r.items if x.start == i + 1), None)
        if it is None and lem[i + 1:i + 3] in (["year", "as"], ["date", "as"], ["day", "as"]):
            it = Item(i + 1, i + 2, set())  # "born in the same year as Ann": a time no property is named by
        if it is None or lem[it.end:it.end + 1] != ["as"]:
            continue
        v = next((u for u in r.values if u.kind == "linked" and u.start > it.end and u.label == label), None)
        if v is None or not all(k in r.used or lem[k] in cues.SOMEONE or any(
                x.start <= k < x.end and (label, v.prop) in {(t.owner, t.prop) for t in x.terms} for x in r.items)
                for k in range(it.end + 1, v.start)):
            continue  # "the same department as the manager of Clara": not Clara's own
        prop = pick(it, "prop", label)
        held = pick(it, "label", None)
        if (prop is None or prop.owner != label) and it.end - it.start == 1 and lem[it.start] in cues.TIME_HEADS:
            prop = _time_said(r, label, i)  # "actors born in the same year as Bob Roe": the birth year
            held = None if prop is not None else held
        if prop is not None and prop.owner == label and not prop.on_rel:
            twin = r.var_for(label, f"same:{r.target}")
            it.term = prop
            q.where.append(Where(r.target, prop.prop, "=", Column(twin, prop.prop)))
            r.where_ends.append((i, it.end))
        elif held is not None and held.owner != label:
            var = join_label(r, held.owner)
            path = path_to(q, r.target, var) if var is not None else None
            if not path:
                continue
            twin = r.var_for(label, f"same:{r.target}")
            it.term = held
            last = copy_path(r, path, "same", start=twin)
            key = r.view.key(held.owner)
            q.where.append(Where(last, key, "=", Column(var, key)))
            r.where_ends.append((i, it.end))
        else:
            continue
        q.where.append(Where(twin, v.prop, "=", v.value))
        r.where_ends.append((v.start, v.end))
        r.values.remove(v)
        r.use((i, v.end))
        for u in [u for u in r.values if u.kind == "linked" and u.value == v.value and u.start > v.end]:
            before = lem[max(0, u.start - 3):u.start]
            if any(x in before for x in cues.EXCLUDING) or before[-2:] == ["not", "include"]:
                q.where.append(Where(r.target, v.prop, "<>", v.value))  # "excluding Clara", "not including Clara"
                r.where_ends.append((u.start, u.end))
                r.values.remove(u)
                r.use((u.start - next(k for k in range(1, 4) if lem[u.start - k] in cues.EXCLUDING | {"not"}), u.end))
        kept_out = Where(r.target, v.prop, "<>", v.value)
        part = set(name_words(v.prop)) & set().union(*cues.NAME_PARTS)  # a first name: "someone with", not one node
        if v.prop in (r.view.display(label), r.view.key(label)) and not part and kept_out not in q.where:
            q.where.append(kept_out)  # "born in the same city as Ann Lee": the node its own name names is not one
            r.where_ends.append((v.start, v.end))
        q.distinct = True
        return
    _same_props(r)
    alike(r)


def _same_props(r: Reading) -> None:
    """"where the originator and beneficiary banks are in the same country", "whose first and last names are the
    same", "where the beneficiary bank's country is the same as the originator bank's": two properties, each named
    by its phrase (with the noun the phrases share, and the noun after "same"), hold equal values."""
    for i, tok in enumerate(r.doc):
        if r.lemmas[i] != "same" or i in r.used:
            continue
        shared = tok.head if tok.dep_ == "amod" and tok.head.pos_ in ("NOUN", "PROPN") else None
        verb = (shared.head.head if shared.head.dep_ == "prep" else shared.head) if shared is not None else tok.head
        subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
        if verb.lemma_ not in ("be", "have") or len(subjects) != 1:
            continue
        subject = verb.head if subjects[0].lower_ in ("that", "which") and verb.dep_ == "relcl" else subjects[0]
        phrases = [subject, *[c for c in subject.children if c.dep_ == "conj"]]
        other = [c for c in (shared or tok).children if c.dep_ == "prep" and c.lower_ == "as"]
        phrases += [p for a in other for p in a.children if p.dep_ == "pobj"]
        runs = [_phrase_words(p) for p in phrases]
        for k in range(len(phrases) - 2, -1, -1):
            if phrases[k].i + 1 == phrases[k + 1].i:  # "the sender and receiver banks" parsed as three conjuncts
                runs[k:k + 2] = [runs[k] + runs[k + 1]]
                phrases[k:k + 2] = [phrases[k + 1]]
        if len(phrases) != 2:
            continue
        if len(runs[0]) == 1 and len(runs[1]) > 1:
            runs[0].append(runs[1][-1])  # "the originator and beneficiary banks": the originator's bank
        tail = [shared.lemma_.lower()] if shared is not None else []
        runs = [run + tail if run[-1:] != tail else run for run in runs]
        terms = [_one_prop(r, run) for run in runs]
        if any(t is None for t in terms) or terms[0] == terms[1] or \
                r.view.prop_type(terms[0].owner, terms[0].prop) != r.view.prop_type(terms[1].owner, terms[1].prop):
            continue
        holders = [holder_of(r, t) for t in terms]
        if None in holders:
            continue
        spans = [(min(t.i for t in p.subtree), max(t.i for t in p.subtree) + 1) for p in phrases]
        start = min(a for a, _ in spans)
        end = max([b for _, b in spans] + [i + 1] + ([shared.i + 1] if shared is not None else []))
        # the words read: not a relationship or label that "originator" or "country" alone might name
        r.items = [it for it in r.items if not (start <= it.start and it.end <= end)]
        r.query.where.append(Where(holders[0], terms[0].prop, "=", Column(holders[1], terms[1].prop)))
        r.where_ends.append((start, end))
        r.use((start, end))
        return


def _phrase_words(tok) -> list[str]:
    """The lemmas naming a noun phrase's head: its compounds and possessor before it ("the beneficiary bank's
    country": beneficiary, bank, country)."""
    out: list[str] = []
    for c in tok.children:
        if c.dep_ == "poss" or c.dep_ == "compound" and c.i < tok.i:
            out += _phrase_words(c)  # "the originator bank country": originator, bank, country
        elif c.dep_ == "amod" and c.i < tok.i and c.lemma_.lower() != "same":
            out.append(c.lemma_.lower())
    return out + [tok.lemma_.lower()]


def _one_prop(r: Reading, run: list[str]) -> Term | None:
    """The one property, of a label the query uses or the question names, that a run of words names, else None."""
    labels = set(r.query.nodes.values()) | {t.owner for it in r.items for t in it.terms if t.kind == "label"}
    found = {t for t in r.terms.lookup(run) if t.kind == "prop" and not t.on_rel and t.owner in labels}
    return found.pop() if len(found) == 1 else None


def _compared(r: Reading, i: int, cut: int, than: int | None) -> Iterator[tuple[Term, Item, str, list]]:
    """Yields (term, item, operator, spans) for the number property compared with the figure at ``i`` (its
    comparison written before ``cut``): the property written before the comparison, the one after "average" ("with
    greater than average budget"), or the one a verb or adjective measures ("younger than", "cost more than")."""
    lem, low = r.lemmas, [t.lower_ for t in r.doc]
    ways = []
    before = [it for it in r.items if it.end <= cut and "prop" in it.kinds()]
    after = next((x for x in r.items if x.start == i + 1 and "prop" in x.kinds()), None)
    if before and cut - before[-1].end <= 6 and not any(x.start >= before[-1].end and x.end <= cut for x in r.items):
        ways.append((before[-1], comparator(low, before[-1].end, cut)))
    if after is not None and lem[i] in cues.OVERALL:
        ways.append((after, comparator(low, max([x.end for x in r.items if x.end <= i] + [i - 4, 0]), i)))
    measured = _measured(r, cut)
    if measured is not None:
        op, spans = comparator(low, measured.start, cut)
        if op is None and measured.start > 0 and low[measured.start - 1] in ("more", "less"):
            more = (low[measured.start - 1] == "more") != (lem[measured.start] in cues.LOW_MEASURES)
            op, spans = (">" if more else "<"), [(measured.start - 1, cut)]  # "more expensive than the average"
        ways.append((measured, (op, spans)))
    for it, (op, spans) in ways:
        if op is None and lem[i] not in cues.OVERALL and it.end == than:  # "a higher salary than all": said before
            op, spans = comparator(low[:it.start] + ["than"], max(0, it.start - 2), it.start + 1)
            spans = [(a, b) if b <= it.start else (a, it.start) for a, b in spans] + [(than, than + 1)]
        if op not in ("<", ">", "<=", ">="):
            continue
        term = pick(it, "prop", r.query.nodes[r.target]) or pick_prop(it, r)
        if term is not None and r.view.is_number(term.owner, term.prop):
            yield term, it, op, spans  # of nodes, or of edges ("a rating higher than the average rating")


def _value_of(r: Reading, k: int, label: str) -> tuple[str, Value] | None:
    """(property, value) of the graph value said at token ``k`` that a property of ``label`` holds, else None."""
    v = next((v for v in r.values if v.start == k and v.kind == "linked"), None)
    prop = next((p for lb, p in (v.options or ((v.label, v.prop),)) if lb == label), None) if v is not None else None
    return (prop, v) if prop is not None else None


def _part(r: Reading, k: int, label: str, prop: str | None = None) -> tuple[tuple, int | None] | None:
    """The nodes of ``label`` a figure is computed over, said from token ``k``: all of them ("of all instructors":
    ``((), end)``), those a value names ("of the instructors in the Biology department", "for English songs",
    "any wine from John Anthony winery": ``(((property, value),), end)``), or a part not read (``((), None)``: "of
    the instructors who teach"). None where no word of ``label`` is there."""
    lem = r.lemmas
    while k < len(lem) and lem[k] in ("all", "the", "every", "any", "a", "an") or lem[k:k + 2] == ["of", "the"]:
        k += 1
    again = next((x for x in r.items if x.start == k and x.kinds() == {"prop"} and
                  any(t.owner == label and t.prop == prop for t in x.terms)), None)
    if again is not None and lem[k - 1] == "all" and lem[again.end:again.end + 1] not in (["of"], ["in"], ["for"]):
        again.term = Term("prop", label, prop)
        return (), again.end  # "greater than the average of all revenues": the property again, over every node
    named = _value_of(r, k, label)  # "the minimum rating for English songs": the value before the label's word
    whole = next((x for x in r.items if x.start == (named[1].end if named else k) and any(
        t.kind == "label" and t.owner == label for t in x.terms)), None)
    if whole is None:
        return None
    whole.term = next(t for t in whole.terms if t.kind == "label" and t.owner == label)
    if named:
        return ((named[0], named[1].value),), whole.end
    end = whole.end
    if lem[end:end + 1] not in (["in"], ["from"], ["of"], ["with"]):
        return ((), None) if lem[end:end + 1] in (["who"], ["that"]) else ((), end)
    end += 1
    while end < len(lem) and lem[end] == "the":
        end += 1
    named = _value_of(r, end, label)
    if named is None:
        return (), None
    end = named[1].end
    kind = next((x for x in r.items if x.start == end and r.doc[end].pos_ in ("NOUN", "PROPN")), None)
    if kind is not None:
        r.items.remove(kind)  # "in the Biology department": the value's own kind, restated, no label to join
        end = kind.end
    return ((named[0], named[1].value),), end


def _measured(r: Reading, i: int) -> Item | None:
    """The asked label's one number property that the word before "than" measures ("younger than average": age,
    "products that cost more than the average": price; :data:`cues.MEASURES`), as an item over that word."""
    label = r.query.nodes[r.target]
    for c in range(i - 2, max(-1, i - 5), -1):
        found = measured_props(r, label, r.lemmas[c]) if c not in r.used else []
        between = [w for w in r.lemmas[c + 1:i] if w != "the"]
        if len(found) == 1 and between in (["than"], ["more", "than"], ["less", "than"]):
            term = Term("prop", label, found[0])
            return Item(c, c + 1, {term}, term)
    return None


def negation(r: Reading) -> None:
    """"hotels that do not have a Sauna", "instructors who did not teach", "courses without prerequisites":
    the label or relationship named after a negation (before any value) must have no such node or edge from
    the asked one: a NOT EXISTS of the path to it, the conditions on that node inside it."""
    if r.target is None:
        return
    label = r.query.nodes[r.target]
    for i, t in enumerate(r.doc):
        if t.lower_ not in cues.NEGATIONS or any(v.end <= i <= v.end + 1 and denied_after(r.lemmas, v.start, v.end)
                                                 for v in r.values):
            continue  # "Alison visited but Rosalind did not": a value denied (a condition), not a label
        value_at = next((v.start for v in r.values if v.start > i and v.kind != "limit"), len(r.doc))
        scope = {g.i for g in t.head.subtree} if t.dep_ == "neg" else set()  # "did not serve as a host of any party"
        found = [x for x in r.items if i < x.start < value_at and x.kinds() & {"label", "rel"} and
                 (x.start <= i + 5 or x.start in scope)]
        if found and r.negated:
            r.decline("two negations")
            return
        # "coaches who do not take part in any event": the verb may name another label's relationship;
        # then the label after it says what is not there
        for it in found:
            term = _negate(r, it, label, scope)
            if term is None and any(r.denied.get(v.start) == [(it.start, it.end)] for v in r.values):
                aux = [(k, k + 1) for k in range(max(0, i - 2), i) if r.doc[k].lemma_ in ("do", "be", "have")]
                for v in r.values:
                    if r.denied.get(v.start) == [(it.start, it.end)]:
                        r.denied[v.start] = [(i, i + 1), (it.start, it.end), *aux]
                break
            if term is None:
                continue
            if values_asked(r) and not any((own := pick(x, "label", None)) is not None and own.owner == label
                                           for x in r.items) and \
                    all(x.term.prop != r.view.display(label) for x in r.asked) and not any(
                    w in cues.AGGREGATES or w in ("number", "many", "count") for w in r.lemmas):
                # "the hometowns not associated with any gymnast" (people unsaid): no gymnast's, or a non-gymnast's
                r.decline(f"the values no {term_name(term)} has, or those of one without it")
                return
            r.use((i, i + 1), (it.start, it.end))
            if t.lower_ in ("not", "n't", "never"):
                r.use(*[(k, k + 1) for k in range(max(0, i - 2), i) if r.doc[k].lemma_ in ("do", "be", "have")])
            if term.kind == "label":
                join_label(r, term.owner)
            break


def _own_value_denied(r: Reading, it: Item, label: str, rel: str, scope: set[int]) -> Value | None:
    """The value the asked ``label`` holds itself that the negated verb ``it`` of ``rel`` is said of, its far label
    unsaid ("pupils who are not living in the town with code OSL": the pupils' town, not their hall); else
    None."""
    pair = next(p for p in r.view.rels[rel] if label in p)
    far = pair[1] if pair[0] == label else pair[0]
    if far == label or any(x.start >= it.end and x.start in scope and pick(x, "label", None) is not None and
                           pick(x, "label", None).owner == far for x in r.items):
        return None
    return next((v for v in r.values if v.kind == "linked" and v.start >= it.end and v.start in scope and
                 all(lb == label for lb, _ in v.options or ((v.label, v.prop),))), None)


def _negate(r: Reading, it: Item, label: str, scope: set[int]) -> Term | None:
    """Records the label or relationship ``it`` names as not there from the asked node, returning its term;
    None when it names neither as such (a relationship that does not touch the asked label). A graph value of the
    relationship's far label said in the negated clause (``scope``, the negated verb's words) is a condition
    inside it ("employees who do not have a certificate of Boeing 737-800")."""
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
    if (own := _own_value_denied(r, it, label, rels[0], scope)) is not None:
        it.term = Term("rel", rels[0])  # the verb says where the asked node is: no edge, the value denied
        r.denied[own.start] = [(it.start, it.end)]
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
    far_label = r.query.nodes[far]
    obj = next((x for x in r.items if it.end <= x.start <= it.end + 3 and pick(x, "label", None) is not None
                and pick(x, "label", None).owner == far_label), None)
    if obj is not None:  # "not enrolled in any course": the course is the one not there, not another joined
        obj.term = pick(obj, "label", None)
        r.use((obj.start, obj.end))
    if any(v.kind == "linked" and v.start >= it.end and (v.start in scope or v.start <= it.end + 3) and
           any(lb == far_label for lb, _ in v.options or ((v.label, v.prop),)) for v in r.values):
        r.vars.setdefault(far_label, far)
    return it.term
