"""The shape of the answer, read last: counts ("how many", "the number of"), aggregates ("the average age",
"the minimum, average and maximum credits"), groups ("for each city"), bounds on counts, superlatives ("the
highest", "the top 3 by", "the most orders", "the most common"), orders ("ordered by age", "in descending
alphabetical order") and the columns shown (:func:`shape`). Orders that text or lists cannot have, and answers
named only by a generated key, are declined.
"""

from __future__ import annotations

from kgqa.kg.derive import is_name_like
from kgqa.planner import cues
from kgqa.planner.grammar_measures import measured_prop, owned_prop, past_edge_word, timed_prop
from kgqa.planner.joins import edge_of, holder_of, join_label
from kgqa.planner.query import Column
from kgqa.planner.reading import Item, Reading, is_timed, item_at, pick, pick_prop
from kgqa.text import name_words

ROWID = "_rowid"  # the generated key of a table that had none: no name to show


def shape(r: Reading) -> None:
    """Counts ("how many", "the number of"), aggregates ("the average age"), groups ("for each city"),
    superlatives ("the highest", "the top 3 by", "the most orders") and orders ("ordered by age")."""
    if r.target is None:
        return
    q, lem, doc = r.query, r.lemmas, r.doc
    label = q.nodes[r.target]
    group: list[Column] = []
    for i, w in enumerate(lem):
        if any(it.start <= i < it.end for it in r.items):
            continue  # "pages per minute color": a property's own name
        figured = any(x in cues.AGGREGATES or x in ("number", "many", "count") for x in lem)
        if w in cues.GROUP_WORDS and i > 0 and (doc[i - 1].pos_ == "ADP" or w == "each" and doc[i - 1].pos_ == "VERB") \
                or w == "per" or w in cues.DISTINCT_WORDS and figured and lem[i - 1:i] in (["for"], ["in"], ["across"]):
            # "for each city", "from each country", "how many students play each sport", "the average for different lots"
            k = i + 1
            while k < len(lem) and (lem[k] in ("of", "the", "these", "those") or lem[k] in cues.DISTINCT_WORDS):
                k += 1
            it = item_at(r, k) if lem[i - 1] in ("for", "of", "in", "by", "across") or w == "per" or doc[i - 1].pos_ == "VERB" \
                else None
            if it is None and k < len(lem):  # "the countries and the number of climbers from each country"
                it = next((x for x in r.asked if lem[x.end - 1] == lem[k]), None)
            nxt = next((x for x in r.items if it is not None and x.start == it.end and "prop" in x.kinds()), None)
            if it is not None and nxt is not None and pick(it, "label", None) is not None and \
                    pick(nxt, "prop", pick(it, "label", None).owner) is not None:
                r.use((it.start, it.end))
                it = nxt  # "for each staff rank": the label's property
            if it is not None:
                col = column_of(r, it, label)
                if col is not None:
                    group.append(col)
                    r.use((i - (w != "per"), k), (it.start, it.end), (k, k + 1))
    aggs: list[Column] = []
    for it in r.asked:
        i = it.start
        if lem[max(0, i - 2):i] in (["number", "of"], ["amount", "of"]) and it.term is not None and \
                r.view.is_number(it.term.owner, it.term.prop) and any(lem[k] in cues.AGGREGATES for k in range(max(0, i - 4), i - 2)):
            r.use((i - 2, i))  # "the average number of international passengers": of the number a property holds
            i -= 2
        j = i - 1
        fns = []
        while j >= 0 and (lem[j] in cues.AGGREGATES or lem[j] in (",", "and", "the")):
            if lem[j] in cues.AGGREGATES:
                fns.insert(0, cues.AGGREGATES[lem[j]])
                r.use((j, j + 1))
            j -= 1
        if len(fns) > 1:  # "the minimum, average and maximum age"
            col = column_of(r, it, label)
            if col is not None:
                aggs.extend(Column(col.holder, col.prop, fn) for fn in fns)
            continue
        fn = next((cues.AGGREGATES[lem[j]] for j in range(max(0, i - 2), i) if lem[j] in cues.AGGREGATES), None)
        if fn is None and lem[max(0, i - 2):i] == ["number", "of"] and it.term is not None and it.term.on_rel and \
                r.view.is_number(it.term.owner, it.term.prop) and any(c.holder == r.target for c in q.columns):
            fn = "sum"  # "the student ids and the number of hours played": each one's edges' hours, added up
            r.use((i - 2, i))
        numeric = it.term is not None and not it.term.on_rel and (r.view.is_number(it.term.owner, it.term.prop) or
                                                                  r.view.is_numeric_text(it.term.owner, it.term.prop))
        if fn is None and numeric and (lem[max(0, i - 2):i] == ["how", "much"] or lem[max(0, i - 2):i + 1] == [
                "how", "many", "total"]):
            fn = "sum"  # "how many total pounds were purchased": the amount, added up
            r.use((i - 2, i))
        if fn is None and numeric and aggs and i > 0 and lem[i - 1] in ("and", ",") and \
                any(x.end == i - 1 for x in r.asked):
            fn = aggs[-1].fn  # "the average rating and resolution": the average of each
        sup = next(((j, lem[j]) for j in range(max(0, i - 2), i) if lem[j] in cues.SUPERLATIVES
                    and doc[j].tag_ in ("JJS", "RBS")), None)
        col = column_of(r, it, label)
        if col is None:
            continue
        if fn is None and sup is not None and (len(r.asked) == 1 and not r.query.where or group) and \
                not any(v.kind == "limit" for v in r.values):
            fn = "max" if cues.SUPERLATIVES[sup[1]] else "min"
            r.use((sup[0], sup[0] + 1))
        if fn:
            r.use(*[(j, j + 1) for j in range(max(0, i - 2), i) if lem[j] in cues.AGGREGATES])
            aggs.append(Column(col.holder, col.prop, fn))
        else:
            q.columns.append(col)
    counting = _counting(r)
    distinct_said = [(i, i + 1) for i, w in enumerate(lem) if w in cues.DISTINCT_WORDS]
    if counting is not None:
        c_item, distinct = counting
        prop = c_item is not None and (c_item.term or pick(c_item, "prop", label)) is not None and \
            "label" not in c_item.kinds()
        col = column_of(r, c_item, label) if prop else None
        counted = pick(c_item, "label", None) if c_item is not None else None
        if col is not None:
            aggs.append(Column(col.holder, col.prop, "count", distinct))
            q.columns = [c for c in q.columns if (c.holder, c.prop) != (col.holder, col.prop)]
        elif distinct:
            aggs.append(Column(r.target, None, "count", True))  # "how many distinct students": each node once
        elif counted is not None and counted.owner != label:
            var = r.vars.get(counted.owner) or join_label(r, counted.owner)
            if var is None:
                return
            aggs.append(Column(var, None, "count", True))  # "how many tracks are on each album"
            r.use((c_item.start, c_item.end))
        elif q.edges:
            aggs.append(Column(r.target, None, "count", True))  # "how many artists have volumes": each once
        else:
            aggs.append(Column(None, None, "count"))
        r.use(*distinct_said)
    elif distinct_said:
        q.distinct = True
        r.use(*distinct_said)
    if r.bounds:
        # "students with at least two pets": per asked node, the count bounded
        if not q.columns:
            q.columns.extend(node_columns(r, r.target))
        for col, op, value in r.bounds:
            if col not in aggs:
                aggs.append(col)
            q.having.append((col, op, value))
    if r.show_target and not aggs:  # "... ? Return the city and its GDP."
        q.columns[:0] = [c for c in node_columns(r, r.target) if c not in q.columns]
    if r.all_props and not aggs:
        q.columns = [Column(r.target, p) for p in r.view.nodes[label]]
    if not q.columns and not aggs:
        q.columns.extend(node_columns(r, r.target))
    if not aggs:
        for var in r.shown:
            col = Column(var, r.view.display(q.nodes[var]))
            if col not in q.columns:
                q.columns.append(col)
    if group:
        q.columns = group + [c for c in q.columns if c not in group]
    q.columns.extend(aggs)
    if aggs and q.edges and not group and not r.bounds and all(c.holder == r.target and c.prop for c in q.columns):
        q.one_per = r.target  # "the average credit score of customers who have a loan": each customer once
    _order(r, label)
    limits = [v for v in r.values if v.kind == "limit"]
    if q.limit is None and not q.order and limits and not any(c.is_aggregate for c in q.columns):
        first = next((t for t in doc[max(0, limits[0].start - 2):limits[0].end + 1] if t.lemma_.lower() in ("first", "last")),
                     None)  # "the first two books Toni Morrison wrote": by the time they were written
        named = next((x for x in r.items if x.start >= limits[0].end and x.term is not None and x.term.kind == "label"
                      and r.vars.get(x.term.owner) == r.target), None)
        timed = timed_prop(r, named, first.lemma_.lower()) if first is not None and named is not None else None
        col = column_of(r, timed, label) if timed is not None else None
        if col is not None:
            q.order.append((col, first.lemma_.lower() == "last"))
            q.limit = limits[0].value
            r.use((first.i, first.i + 1), (limits[0].start, limits[0].end))
            if col not in q.columns:
                q.columns.append(col)
        else:
            r.decline(f"the {limits[0].value} {label} first by what")  # "the first 5 invoices with ...": in which order
    if not q.edges and not any("label" in it.kinds() for it in r.items) and q.columns and not any(
            c.is_aggregate or c.prop in (r.view.key(label), r.view.display(label)) for c in q.columns):
        q.distinct = True  # "Who are all the directors?", "classrooms used by grade 4": each value once
    if group and q.limit is not None and not any(c.is_aggregate for c, _ in q.order):
        r.decline(f"the top {label} within each group")  # "the highest salary in every department": one per group
    if not any(c.is_aggregate for c in q.columns) and not q.distinct:
        _edge_columns(r)
    node_cols = node_columns(r, r.target)
    if q.edges and not any(c.is_aggregate for c in q.columns):
        if q.columns[:len(node_cols)] == node_cols and len(q.columns) == len(node_cols):
            q.distinct = True  # "which customers ordered Chai": each customer once, however many orders
        elif all(c.holder == r.target for c in q.columns) and all(c.holder == r.target for c, _ in q.order):
            q.one_per = r.target  # "the names of the customers with orders 'Packing'": one row per customer
    shown = [c for c in q.columns if not c.is_aggregate]
    counts = [c for c in q.columns if c.fn == "count"]
    named = any(w.holder == r.target and w.op == "=" and w.prop in (r.view.display(label), r.view.key(label))
                for w in q.where)
    if any(c.holder == r.target and c.prop is None for c in counts) and named:
        r.decline(f"a count of the one {label} named")  # "how many reviews has X written": not X
    if shown and any(c.holder == r.target and c.prop and c.distinct for c in counts) and \
            any(c.holder == r.target for c in shown):
        r.decline(f"a count of each {label}'s own {counts[0].prop}")  # one each: "cities they supply to" is not it
    if shown and all(c.prop == ROWID for c in shown):
        r.decline(f"what names a {label} (it has only a generated key)")
    for k, (col, desc) in enumerate(q.order):
        if col.fn is None and col.holder in q.nodes and _type_of(r, col) == "STRING" and is_timed(col.prop or "") \
                and not r.view.is_date(q.nodes[col.holder], col.prop):
            typed = _typed_time(r, q.nodes[col.holder], col.prop)  # "Apr 1, 2010" has no order; a TIMESTAMP has
            if typed is None:
                r.decline(f"an order on {col.prop}, dates written as text")
                return
            q.order[k] = (Column(col.holder, typed), desc)
            q.columns = [Column(col.holder, typed) if c == col else c for c in q.columns]
    grouped = any(c.is_aggregate for c in q.columns)
    for col, _desc in q.order:
        typ = _type_of(r, col)
        if col.fn is None and typ == "STRING" and not is_timed(col.prop or "") and not r.view.is_numeric_text(
                q.nodes.get(col.holder) or _rel_of(r, col.holder), col.prop) and not _alphabetical(lem):
            r.decline(f"an order on the text {col.prop}")  # "the highest quantity per unit": words have none
    for col in shown if grouped else []:
        if (_type_of(r, col) or "").endswith("[]"):
            r.decline(f"the values of the list {col.prop}")  # "the most common role": roles are lists


def _ranks_asked(r: Reading, limits: list) -> bool:
    """Whether the number of rows is said of the asked label itself ("the top 5 characters", "the 3
    characters"), not of edges ("the 3 heaviest relationships")."""
    if not limits:
        return False
    v = limits[0]
    nxt = next((x for x in r.items if x.start == v.end), None)
    return nxt is not None and nxt.term is not None and nxt.term.kind == "label" and \
        r.vars.get(nxt.term.owner) == r.target


def _by_what(lem: list[str], at: int) -> int:
    """The length of the words at ``at`` that say what a ranking is by ("by", "based on the", "in terms of"),
    else 0."""
    for words in cues.RANKED_BY:
        if tuple(lem[at:at + len(words)]) == words:
            k = at + len(words)
            while k < len(lem) and lem[k] in ("the", "their", "its"):
                k += 1
            return k - at
    return 0


def _typed_time(r: Reading, label: str, prop: str) -> str | None:
    """The one DATE or TIMESTAMP property of ``label`` whose name starts as ``prop``'s does (``opening`` for the
    text ``opening_date``), else None."""
    head = prop.lower().replace("-", "_").split("_")[0]
    found = [p for p, typ in r.view.nodes.get(label, {}).items() if typ in ("DATE", "TIMESTAMP")
             and p.lower().split("_")[0] == head]
    return found[0] if len(found) == 1 else None


def _rel_of(r: Reading, var: str | None) -> str:
    return next((e.rel for e in r.query.edges if e.var == var), "")


def _type_of(r: Reading, col: Column) -> str | None:
    """The schema type of a column's property (of a node or an edge)."""
    if col.prop is None or col.holder is None:
        return None
    if col.holder in r.query.nodes:
        return r.view.prop_type(r.query.nodes[col.holder], col.prop)
    return r.view.rel_props.get(_rel_of(r, col.holder), {}).get(col.prop)


def _alphabetical(lem: list[str]) -> bool:
    """Whether the question orders text by its letters ("ordered by name", "in alphabetical order")."""
    return any(w in ("alphabetical", "alphabetically", "name", "title", "lexicographical") for w in lem) or \
        any(w in cues.ORDER_WORDS for w in lem)


def _edge_columns(r: Reading) -> None:
    """Rows about edges ("people who visit with a count over 50"): each edge's far end and the edge
    properties the question uses are shown beside the asked node, one row per edge."""
    q = r.query
    for e in q.edges:
        used = [w.prop for w in q.where if w.holder == e.var] + [c.prop for c, _ in q.order if c.holder == e.var]
        if not used:
            continue
        far = e.dst if e.src == r.target else e.src if e.dst == r.target else None
        extra = ([Column(far, r.view.display(q.nodes[far]))] if far else []) + [Column(e.var, p) for p in used]
        q.columns.extend(c for c in dict.fromkeys(extra) if c not in q.columns)


def column_of(r: Reading, it: Item, label: str) -> Column | None:
    """The column an item shows: a property (of the asked label, else of a label or edge joined), or a label's
    naming property."""
    term = it.term or pick(it, "prop", label) or pick_prop(it, r)
    if term is not None and term.kind == "prop":
        holder = holder_of(r, term)
        if holder is None:
            return None
        it.term = term
        r.use((it.start, it.end))
        return Column(holder, term.prop)
    lab = pick(it, "label", None)
    if lab is not None:
        var = r.vars.get(lab.owner) or join_label(r, lab.owner)
        if var is None:
            return None
        it.term = lab
        r.use((it.start, it.end))
        return Column(var, r.view.display(lab.owner))
    return None


def node_columns(r: Reading, var: str) -> list[Column]:
    """A node shown: its naming property, and its key when that is another property; where no name is unique
    enough to name the nodes (the key shows them: ``id``), also its first name-like property (``name``)."""
    label = r.query.nodes[var]
    shown, key = r.view.display(label), r.view.key(label)
    props = [shown] + ([key] if key and key != shown else [])
    if shown == key:
        props += [p for p in r.view.spec.name_props.get(label, []) if p not in props and is_name_like(p)][:1]
    return [Column(var, p) for p in props]


def _counting(r: Reading) -> tuple[Item | None, bool] | None:
    """"how many X", "the number of X", "count the X": (the counted item, distinct), else None."""
    lem = r.lemmas
    for i, w in enumerate(lem):
        ranked = i > 0 and (lem[i - 1] in cues.SUPERLATIVES or lem[i - 1] in ("by", "on") or
                            r.doc[i - 1].tag_ in ("JJS", "RBS") or lem[max(0, i - 2):i] == ["by", "the"])
        if any(it.start <= i < it.end and (it.end - it.start > 1 or any(t.exact for t in it.terms)) for it in r.items):
            continue  # "the number of hosts" that a property is named ("Number_of_guests")
        if w == "number" and r.doc[i].tag_ == "NNS":
            continue  # "the numbers of all flights": a property, not a count
        if (w == "how" and lem[i + 1:i + 2] in (["many"], ["much"])) or (w in ("number", "count") and lem[i + 1:i + 2]
                                                                         == ["of"] and not ranked) or (w == "count" and i == 0):
            j = i + 2 if w != "count" else i + 1
            if w == "count":  # "count the (total) number of clubs"
                k = j
                while k < len(lem) and lem[k] in ("the", "total", "overall"):
                    k += 1
                if lem[k:k + 2] == ["number", "of"]:
                    j = k + 2
            r.use((i, j))
            distinct = any(lem[k] in cues.DISTINCT_WORDS for k in range(j, min(j + 2, len(lem))))
            counted = next((it for it in r.items if it.start >= j), None)
            prop = next((x for x in r.items if counted is not None and x.start == counted.end and "prop" in x.kinds()), None)
            if prop is not None and counted.end - counted.start == 1 and pick(counted, "label", None) is not None and \
                    pick(prop, "prop", pick(counted, "label", None).owner) is not None and \
                    pick(counted, "label", None).owner == r.query.nodes[r.target]:
                r.use((counted.start, counted.end))  # "how many movie directors": the directors, each once
                r.asked = [x for x in r.asked if x is not prop]
                return prop, True
            holds = pick(counted, "prop", r.query.nodes[r.target]) if counted is not None and \
                "label" not in counted.kinds() else None
            if holds is not None and r.view.is_number(holds.owner, holds.prop) and (
                    name_words(holds.prop)[-1:] in (["count"], ["number"]) or
                    counted.start == j and w == "how" and (holds.on_rel or holds.prop != r.view.key(holds.owner)) and
                    lem[j] not in cues.AGGREGATES):
                holder = holder_of(r, holds)
                if holder is None:
                    return None
                counted.term = holds  # "how many pages does it have", "how many kids stay": the number it holds
                if counted not in r.asked:
                    r.asked.append(counted)
                if Column(holder, holds.prop) not in r.query.columns:
                    r.query.columns.append(Column(holder, holds.prop))
                r.use((i, j), (counted.start, counted.end))
                return None
            amount = w != "how" or lem[i + 1] == "much" or lem[j:j + 1] and lem[j] in cues.AGGREGATES
            if counted is not None and amount and "label" not in counted.kinds():
                term = pick(counted, "prop", r.query.nodes[r.target]) or pick_prop(counted, r)
                if term is not None and r.view.is_number(term.owner, term.prop):
                    return None  # "the number of hours played": a number the property holds, not a count
            return counted, distinct
    return None


def _order(r: Reading, label: str) -> None:
    """Superlatives and explicit orders set the query's order and limit."""
    q, lem, doc = r.query, r.lemmas, r.doc
    low = [t.lower_ for t in doc]
    ways = cues.DESCENDING | cues.ASCENDING
    for i, w in enumerate(lem):
        # "ordered by age", "listed by descending age", "in descending order of age", "in descending order by share"
        if w in cues.ORDER_WORDS | {"list"} and lem[i + 1:i + 2] == ["by"] or \
                w == "order" and lem[i + 1:i + 2] in (["of"], ["by"]) and i > 0 and (lem[i - 1] in ways | {"in"}):
            k = i + 2
            fn = None
            while k < len(lem) and (lem[k] in ways or lem[k] == "the" or lem[k] in cues.AGGREGATES and
                                    not any(x.start <= k < x.end for x in r.items)):
                fn = cues.AGGREGATES.get(lem[k], fn)  # "in descending order of the total number of stocks"
                k += 1
            it = item_at(r, k)
            counted = next((c for c in q.columns if c.fn == "count"), None) if lem[k:k + 1] in (["count"], ["number"]) \
                and it is None else None  # "each location ordered by the count": by the count asked for
            if counted is not None:
                q.order.append((counted, any(x in cues.DESCENDING for x in lem[i:k + 3])))
                r.use((i, k + 1))
                continue
            if it is None:
                continue
            col = column_of(r, it, label)
            if col is None or fn is not None and (col.prop is None or col.is_aggregate):
                continue
            if fn is not None:
                col = Column(col.holder, col.prop, fn)
                if col not in q.columns:
                    q.columns.append(col)
            tail = lem[it.end:it.end + 6]
            desc = any(x in ("descending", "decreasing", "desc", "reverse", "descend", "decrease")
                       for x in tail + lem[max(0, i - 3):i] + low[max(0, i - 3):it.end + 6])
            if "from" in tail and tail.index("from") + 1 < len(tail):
                desc = desc or tail[tail.index("from") + 1] in cues.DESCENDING
            desc = desc or any(x in cues.DESCENDING for x in lem[i + 2:k])
            q.order.append((col, desc))
            r.use((i, k), *[(k, k + 1) for k in range(it.end, min(len(lem), it.end + 6))
                            if lem[k] in ways | {"order", "in", "of", "from", "to"}],
                  *[(j, j + 1) for j in range(max(0, i - 3), i) if lem[j] in ways | {"in", "an"}])
    if not q.order and any(w in cues.ORDER_ADVERBS for w in low):
        k = next(i for i, w in enumerate(low) if w in cues.ORDER_ADVERBS)
        asked = {(it.term.owner, it.term.prop) for it in r.asked if it.term is not None}
        plain = sorted((c for c in q.columns if not c.is_aggregate),  # the columns asked for first
                       key=lambda c: (q.nodes.get(c.holder) or _rel_of(r, c.holder), c.prop) not in asked)
        col = plain[0] if plain else None
        if _alphabetical(lem):  # "in alphabetical order": the first column of words, or none
            col = next((c for c in plain if _type_of(r, c) == "STRING"), None)
        if col is not None:
            said = {t.lower_ for t in doc} | set(lem)
            q.order.append((col, bool(said & {"descending", "reverse", "decreasing"})))
            end = k
            while end < len(low) and (low[end] in cues.ORDER_ADVERBS or low[end] in ("order", "and", "by")):
                end += 1
            r.use((max(0, k - 2) if low[max(0, k - 1)] in ("in", "an") or low[max(0, k - 2)] == "in" else
                   k - 1 if k and lem[k - 1] in cues.ORDER_WORDS else k, end))  # "ordered alphabetically"
    if q.order:  # "Sort the names ... in ascending order of price": the verb of the order read
        r.use(*[(t.i, t.i + 1) for t in doc if t.lemma_.lower() in cues.ORDER_WORDS and t.pos_ == "VERB"])
    # "the top 5 suppliers by the number of cities", "the highest number of discontinued products"
    for i, w in enumerate(lem):
        if w == "number" and lem[i + 1:i + 2] == ["of"] and i > 0 and i not in r.used and (
                lem[i - 1] in ("by", "on") or doc[i - 1].tag_ in ("JJS", "RBS") or lem[i - 2:i] == ["by", "the"]):
            sup = lem[i - 1] if doc[i - 1].tag_ in ("JJS", "RBS") else None
            k = i + 2
            distinct = k < len(lem) and lem[k] in cues.DISTINCT_WORDS
            skip = k
            while skip < len(lem) and (lem[skip] in cues.EDGE_DIRECTIONS or doc[skip].is_punct):
                skip += 1  # "the number of incoming [:FOLLOWS] relationships"
            it = next((x for x in r.items if x.start in (k, k + 1, skip)), None)
            if it is None:
                r.decline("the number of what")
                return
            term = pick(it, "label", None)
            prop = pick(it, "prop", label) or (pick_prop(it, r) if "prop" in it.kinds() else None)
            if term is not None and term.owner != label:
                var = r.vars.get(term.owner) or join_label(r, term.owner)
                cnt = Column(var, None, "count", True) if var else None
                it.term = term
                r.use((it.start, it.end))
            elif prop is not None and not prop.on_rel and r.view.is_number(prop.owner, prop.prop):
                cnt = column_of(r, it, label)  # "the lowest number of days held": the number held
            elif term is not None and r.asked and all(x.term is not None and x.term.kind == "prop" and
                                                      x.term.owner == label for x in r.asked):
                cnt = Column(r.target, None, "count", True)  # "the major with the most number of students": per value
                it.term = term
                r.use((it.start, it.end))
            elif it.kinds() == {"rel"} and pick(it, "rel", None) is not None:
                var = edge_of(r, pick(it, "rel", None).owner)  # "the largest number of FOLLOWS relationships"
                cnt = Column(var, None, "count", True) if var else None
                it.term = pick(it, "rel", None)
                end = past_edge_word(r, it)
                r.use((it.start, end), *[(j, j + 1) for j in range(k, it.start) if lem[j] in cues.EDGE_DIRECTIONS])
            else:
                col = column_of(r, it, label)
                cnt = Column(col.holder, col.prop, "count", True) if col else None
            if cnt is None:
                return
            desc = cues.SUPERLATIVES.get(sup, True) if sup else True
            if not any(c.is_aggregate for c in q.columns):
                q.columns.append(cnt)
            q.order.append((cnt, desc))
            limits = [v for v in r.values if v.kind == "limit"]
            q.limit = limits[0].value if limits else (1 if sup else None)
            r.use((i - 1, k + distinct), *[(max(0, v.start - 1), v.end) for v in limits[:1]])
            return
    # "the most common reign": the property's value that most nodes have
    for i, w in enumerate(lem):
        if w in ("most", "least") and lem[i + 1:i + 2] and lem[i + 1] in cues.FREQUENT:
            it = next((x for x in r.items if x.start in (i + 2, i + 3) and x.term is None), None) or \
                next((x for x in r.asked), None)
            col = column_of(r, it, label) if it is not None else None
            if col is None:
                r.decline(f"the {w} {lem[i + 1]} what")
                return
            cnt = Column(None, None, "count")
            q.columns = [col, cnt]
            q.order.append((cnt, w == "most"))
            q.limit = next((v.value for v in r.values if v.kind == "limit"), 1)
            r.use((i, i + 2), *[(max(0, v.start - 1), v.end) for v in r.values if v.kind == "limit"][:1])
            return
    # superlatives: "the highest rank", "the 3 oldest", "top 5 by amount", "the most orders"
    for i, w in enumerate(lem):
        if i in r.used or (w not in cues.SUPERLATIVES and w not in cues.AGE_SUPERLATIVES):
            continue
        if doc[i].tag_ not in ("JJS", "RBS") and w not in ("top", "maximum", "minimum"):
            continue
        if w == "most" and lem[i + 1:i + 2] in (["recently"], ["recent"]) and i + 1 not in r.used:
            target = next((x for x in r.items if x.term is not None and r.vars.get(x.term.owner) == r.target), None)
            timed = timed_prop(r, target, "recent") if target else None
            col = column_of(r, timed, label) if timed is not None else None
            if col is None:
                r.decline("most recently, by which time")
                return
            q.order.append((col, True))  # "the book borrowed most recently": by the loan's date
            q.limit = 1
            if col not in q.columns:
                q.columns.append(col)
            r.use((i, i + 2))
            return
        desc = cues.SUPERLATIVES.get(w, cues.AGE_SUPERLATIVES.get(w))
        limit, lspan = 1, (i, i + 1)
        measure = w
        if w in ("most", "least") and lem[i + 1:i + 2] and lem[i + 1] in cues.MEASURES and i + 1 not in r.used:
            measure = lem[i + 1]  # "the three most expensive hotels": by what "expensive" measures
            desc = (w == "most") != (measure in cues.LOW_MEASURES)
            lspan = (i, i + 2)
        counted = [v for v in r.values if v.kind == "limit"]
        if counted:
            limit = counted[0].value
            ranked = next((x for x in r.items if counted[0].end <= x.start <= counted[0].end + 3 and
                           pick(x, "label", None) is not None), None)
            if ranked is not None and pick(ranked, "label", None).owner != label:
                # "the orders that include the top 3 most expensive products": the 3 products first, then orders
                r.decline(f"the top {limit} {pick(ranked, 'label', None).owner} first, then each {label}")
                return
            r.use(*[(max(0, v.start - 2), v.end) for v in counted[:1]])
        k = i + 1
        if lem[k:k + 2] == ["number", "of"]:  # "the most number of students"
            r.use((k, k + 2))
            k += 2
        fn = cues.AGGREGATES.get(lem[k]) if k < len(lem) and lem[k] != "overall" and i + 1 == k else None
        it = next((x for x in r.items if k <= x.start <= k + 2 and x.term is None or x.start == k), None)
        named = next((x for x in r.items if k <= x.start <= k + 2 and x.term is not None and x.term.kind == "label"
                      and x.term.owner == label), None)
        if it is None and measure != w:
            it = named  # "the three most expensive procedures": the procedures, by what "expensive" measures
        by = _by_what(lem, named.end) if named is not None else 0
        ranked_by = False
        if by and w == "top" and fn is None:  # "the top 3 invoices by amount", "... based on the amount"
            at = named.end + by
            if at < len(lem) and lem[at] in cues.AGGREGATES and lem[at] != "overall":
                fn, k = cues.AGGREGATES[lem[at]], at  # "the top 5 countries by the total amount of invoices"
                r.use((named.end, at))
            elif lem[at + 1:at + 2] != ["of"]:  # not "by the number of relationships": a count
                by_item = next((x for x in r.items if x.start == at), None)
                by_item = by_item if by_item is None or "prop" in by_item.kinds() else owned_prop(r, by_item)
                it = by_item or it
                ranked_by = by_item is not None
                r.use((named.end, at))
        if fn is not None:
            at = k + 1 + (lem[k + 1:k + 2] == ["of"])  # "the highest sum of LIKES weights"
            it = next((x for x in r.items if x.start == at), None)
            if it is not None and "prop" not in it.kinds():
                it = owned_prop(r, it)  # "the highest average instructor salary"
            if it is not None:
                r.use((k + 1, at))
        if fn is not None and it is not None and "prop" in it.kinds():
            # "the department with the highest average salary": each row's aggregate, ranked
            col = column_of(r, it, label)
            if col is None or not r.view.is_number(q.nodes.get(col.holder, ""), col.prop or ""):
                r.decline(f"the {w} {lem[k]} {r.doc[it.start:it.end].text}, of what")
                return
            agg = Column(col.holder, col.prop, fn)
            if col.holder == r.target or any(c.is_aggregate for c in q.columns):
                r.decline(f"the {w} {lem[k]} {col.prop} of each what")
                return
            q.columns = [c for c in q.columns if c.holder == r.target] + [agg]  # per asked node, not per one shown
            q.order.append((agg, desc))
            r.use((k, k + 1))
        elif w in cues.AGE_SUPERLATIVES:
            ages = [p for p in r.view.nodes.get(label, {}) if p.lower() in cues.AGE_WORDS]
            if len(ages) != 1:
                r.decline(f"the {w}, by what")
                return
            q.order.append((Column(r.target, ages[0]), desc))
        elif it is not None and "label" in it.kinds() and pick(it, "label", None) is not None \
                and pick(it, "label", None).owner == label and w in cues.COUNT_SUPERLATIVES and measure == w:
            # "the advisor with the most students": the asked property's values ranked by how many have each
            shown = [c for c in q.columns if not c.is_aggregate]
            if not r.asked or not shown:
                r.decline(f"the {w} {r.doc[it.start:it.end].text} by what")
                return
            cnt = Column(None, None, "count")
            q.columns = shown + [cnt]
            q.order.append((cnt, desc))
            it.term = pick(it, "label", None)
            r.use((it.start, it.end))
        elif it is not None and "label" in it.kinds() and pick(it, "label", None) is not None \
                and pick(it, "label", None).owner != label and w in cues.COUNT_SUPERLATIVES and measure == w:
            far = pick(it, "label", None).owner
            var = r.vars.get(far) or join_label(r, far)
            if var is None:
                return
            it.term = pick(it, "label", None)
            cnt = Column(var, None, "count", True)
            if not any(c.is_aggregate for c in q.columns):
                q.columns.append(cnt)
            q.order.append((cnt, desc))
            r.use((it.start, it.end))
        elif it is not None:
            if "prop" not in it.kinds():
                # "the highest LIKES2 weight", "the heaviest", "the latest book"
                it = owned_prop(r, it) or measured_prop(r, it, measure) or timed_prop(r, it, w)
            if it is None:
                r.decline(f"the {w} {r.doc[k:k + 3].text}, by what")
                return
            col = column_of(r, it, label)
            if col is None:
                return
            if col.holder not in q.nodes and _ranks_asked(r, counted[:1]):
                if not ranked_by:  # "the 3 characters with the highest weight": of one edge, or of all added up
                    r.decline(f"the {label} with the {w} {col.prop} of one edge, or of their edges added up")
                    return
                # "the top 5 people by LIKES2 weight": each person's edges' weights, added up
                col = Column(col.holder, col.prop, "sum")
                q.columns = [c for c in q.columns if not c.is_aggregate] or node_columns(r, r.target)
            if col in q.columns and len([c for c in q.columns if not c.is_aggregate]) == 1 and limit == 1 \
                    and not q.where:
                q.columns = [Column(col.holder, col.prop, "max" if desc else "min")]
                r.use(lspan)
                return
            q.order.append((col, desc))
            if col not in q.columns:
                q.columns.append(col)
        else:
            continue
        q.limit = limit
        r.use(lspan)
        return
