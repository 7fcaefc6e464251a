"""Two named nodes of one label compared by a time or by how many of a label each reaches, for the grammar reader
(:func:`pair`).

"Who is older, Ann Lee or Bob Ray?" and "Which came out first, Up or Jaws?" pick one of the two (their names
among two values, ranked by the time, the first kept); "Is Ann Lee younger than Bob Ray?" and "Was Jaws released
before Up?" answer yes or no (a :class:`~kgqa.planner.query.Versus` column); "How many years older is Ann Lee than
Bob Ray?" answers the difference. The time is the nodes' own (their birth for ages, the one their verb cues
otherwise), or that of another label said and joined to them by one relationship ("Who won an award first, A or
B?": the year of the award won). "Has Ann Lee acted in more films than Bob Ray?", "How many more players were born
in Spain than in Italy?" and "Spain or Italy: which has more players born there?" count the nodes of the label said
that each reaches along the one path the question's words choose (:func:`_counts`;
:class:`~kgqa.planner.query.Tally`).
"""

from __future__ import annotations

from kgqa.planner.query import Column, Edge, Tally, Versus, Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import Reading, Value, compound_of_label, is_timed, pick
from kgqa.planner.reader.times import cued, time_cues
from kgqa.text import name_words


def pair(r: Reading) -> None:
    """Reads the question whole when it compares two named nodes of one label by a time or by a count (module
    docstring); ``r.settled`` then says the other components have nothing to add."""
    linked = [v for v in r.values if v.kind == "linked"]
    if len(linked) != 2 or r.target is not None:
        return
    a, b = linked
    if (a.label, a.prop) != (b.label, b.prop) or a.value == b.value:
        return
    lem = r.lemmas
    if _counts(r, a, b):
        r.settled = True
        return
    words = [(i, cues.PAIR_TIMES[w]) for i, w in enumerate(lem)
             if w in cues.PAIR_TIMES and not any(v.start <= i < v.end for v in linked)]
    if len({w for _, w in words}) != 1:
        return
    at, (age, op) = words[0]
    between = lem[a.end:b.start]
    if between in (["or"], [",", "or"]):
        shape = "pick"
    elif lem[:1] in (["be"], ["do"], ["have"]) and a.end <= at < b.start and between[-1] in ("than", lem[at]):
        shape = "yes or no"  # "Is A younger than B?", "Was A released before B?"
    elif lem[:2] == ["how", "many"] and between == ["than"] and at < a.start:
        shape = "difference"  # "How many years older is A than B?"
    else:
        return
    time = _time(r, a.label, age, "year" if shape == "pick" else "date" if shape == "yes or no" else "number")
    if time is None:
        return
    via, prop = time
    if shape == "pick":
        _pick(r, a, b, via, prop, op)
    elif via is None:
        _versus(r, a, b, prop, op, shape == "difference")
    else:
        return
    r.use(*[(v.start, v.end) for v in linked], (at, at + 1), (a.end, b.start))
    r.use(*_asking(r, a.start, cues.TIME_UNITS), *[(i, i + 1) for i in time_cues(r)])
    r.use(*[(t.i, t.i + 1) for t in r.doc if via is None and t.lemma_.lower() in cues.START_VERBS and
            t.pos_ in ("VERB", "ADP", "ADV")])
    r.settled = True


def _time(r: Reading, label: str, age: bool, kind: str) -> tuple[str | None, str] | None:
    """(the other label joined, or None for the nodes' own, the property) of the time compared: a label said
    besides and joined by one relationship, with one time; else the nodes' own time, their birth for an age, the
    one the question's verb cues otherwise; of a date and a year, the ``kind`` preferred (:func:`_times`)."""
    said = {t.owner for it in r.items for t in it.terms if t.kind == "label" and t.owner != label and
            not any(v.start <= it.start < v.end for v in r.values)}
    if len(said) == 1 and not age:
        other = said.pop()
        props = _times(r, other, age, kind)
        return (other, props[0]) if len(props) == 1 and len(_joins(r, label, other)) == 1 else None
    if said:
        return None
    props = _times(r, label, age, kind)
    return (None, props[0]) if len(props) == 1 else None


def _times(r: Reading, label: str, age: bool, kind: str) -> list[str]:
    """The time properties of ``label`` that can answer: of birth for an age, cued by a word otherwise; of a date
    and a year, the ``kind`` preferred: the date for yes or no (finer: a tie is no answer), the year for the one
    picked (ties are shown), a whole number for a difference (years, not dates)."""
    props = [p for p in r.view.nodes.get(label, {}) if is_timed(p) or r.view.is_date(label, p)]
    if age:
        born = [p for p in props if set(name_words(p)) & cues.BIRTH_WORDS]
        props = born or (props if len(props) == 1 else [])
    elif len(props) > 1:
        props = cued(r, props)
    whole = [p for p in props if r.view.prop_type(label, p).startswith("INT")]
    if kind == "number":
        return whole
    preferred = [p for p in props if r.view.is_date(label, p)] if kind == "date" else whole
    return preferred if len(preferred) == 1 else props


def _joins(r: Reading, label: str, other: str) -> list[str]:
    """The relationship types joining ``label`` to ``other`` directly, those the question names first."""
    rels = [rel for rel, pairs in r.view.rels.items() if (label, other) in pairs]
    named = [rel for rel in rels if rel in r.rels_named or any(
        pick(it, "rel", None) is not None and pick(it, "rel", None).owner == rel for it in r.items)]
    return named or rels


def _pick(r: Reading, a: Value, b: Value, via: str | None, prop: str, op: str) -> None:
    """The one of the two first (``op`` "<") or last by the time: both named, ranked, one kept."""
    q = r.query
    r.target = r.var_for(a.label)
    holder = r.target
    if via is not None:
        holder = r.var_for(via)
        rel = _joins(r, a.label, via)[0]
        q.edges.append(Edge("r0", rel, r.target, holder))
        r.rel_var[rel] = "r0"
        r.use(*[(it.start, it.end) for it in r.items if any(t.owner in (via, rel) for t in it.terms)])
        q.distinct = True
    q.where.append(Where(r.target, a.prop, "IN", [a.value, b.value]))
    when = Column(holder, prop)
    q.columns.append(Column(r.target, r.view.display(a.label)))
    q.evidence.append(when)
    q.order.append((when, op == ">"))
    q.limit = 1


def _versus(r: Reading, a: Value, b: Value, prop: str, op: str, difference: bool) -> None:
    """Yes or no, whether the first's time is before (``op`` "<") or after the second's; or how far apart."""
    q = r.query
    r.target = r.var_for(a.label)
    other = r.var_for(a.label, "second")
    q.where += [Where(r.target, a.prop, "=", a.value), Where(other, b.prop, "=", b.value)]
    first, second = Column(r.target, prop), Column(other, prop)
    if difference:  # "How many years older is A than B?": B's birth year less A's
        q.versus = Versus(second, "-", first, "difference") if op == "<" else Versus(first, "-", second, "difference")
    else:
        q.versus = Versus(first, op, second, "answer")
    shown = r.view.display(a.label)
    q.evidence += [Column(r.target, shown), first, Column(other, shown), second]


def _counts(r: Reading, a: Value, b: Value) -> bool:
    """Reads "more (fewer) X than" of the two named nodes (module docstring), the query built and its words used;
    False when the question is not so, or the path to X is not the one the words choose."""
    lem = r.lemmas
    low = [t.lower_ for t in r.doc]
    more = [i for i, w in enumerate(low) if w in cues.PAIR_COUNTS and not any(v.start <= i < v.end for v in (a, b))]
    if len(more) != 1:
        return False
    at = more[0]
    between = lem[a.end:b.start]
    if between in (["or"], [",", "or"]) and at > b.end:
        shape = "pick"  # "Spain or Italy: which has more players born there?"
    elif "than" in between and lem[:1] in (["be"], ["do"], ["have"]):
        shape = "yes or no"
    elif "than" in between and lem[:2] == ["how", "many"] and at == 2:
        shape = "difference"
    else:
        return False
    counted = next((x for x in r.items if at < x.start <= at + 3 and "label" in x.kinds() and
                    not compound_of_label(r, x)), None)
    term = pick(counted, "label", None) if counted is not None else None
    if term is None or term.owner == a.label:
        return False
    found = r.view.paths(a.label, term.owner, max_hops=3, prefer=set(r.rels_named))
    shortest = [p for p in found if len(p) == len(found[0])]
    named = [p for p in shortest if any(step[0] in r.rels_named for step in p)] or shortest
    ways = {tuple(map(tuple, p)) for p in named}
    if len(ways) != 1:
        return False
    path = ways.pop()
    q = r.query
    r.target = r.var_for(a.label)
    if shape == "pick":
        q.where.append(Where(r.target, a.prop, "IN", [a.value, b.value]))
        cur = r.target
        for k, (rel, direction, label) in enumerate(path):
            nxt = r.var_for(label, f"count:{k}")
            q.edges.append(Edge(f"r{k}", rel, *((cur, nxt) if direction == "out" else (nxt, cur))))
            cur = nxt
        total = Column(cur, None, "count", distinct=True)
        q.columns += [Column(r.target, r.view.display(a.label)), total]
        q.order.append((total, cues.PAIR_COUNTS[low[at]] == ">"))
        q.limit = 1
    else:
        tallies = [Tally(a.label, v.prop, v.value, path) for v in (a, b)]
        q.versus = Versus(tallies[0], "-" if shape == "difference" else cues.PAIR_COUNTS[low[at]], tallies[1],
                          "difference" if shape == "difference" else "answer")
    rels = {step[0] for step in path}
    counted.term = term
    r.use((a.start, a.end), (b.start, b.end), (at, at + 1), (counted.start, counted.end), (a.end, b.start))
    r.use(*[(it.start, it.end) for it in r.items if any(t.kind == "rel" and t.owner in rels for t in it.terms) or
            compound_of_label(r, it) and it.end == counted.start])
    r.use(*_asking(r, min(a.start, at)))
    r.use(*[(t.i, t.i + 1) for t in r.doc if t.lower_ == "there" and t.i > at])  # "born there"
    return True


def _asking(r: Reading, before: int, units: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """The words before ``before`` that only ask ("Who", "Is", "How many", and ``units``: "How many years")."""
    return [(t.i, t.i + 1) for t in r.doc[:before] if t.tag_ in ("WP", "WDT", "WRB") or t.pos_ == "AUX" or
            t.lower_ == "many" or t.lower_ in units]
