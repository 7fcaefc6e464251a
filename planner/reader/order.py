"""Superlatives ("the highest", "the top 3 by", "the most orders", "the most common", "the three most expensive")
and explicit orders ("ordered by age", "in descending alphabetical order") of a grammar reading: the query's
order and limit (:func:`order`). Superlatives ranked by a property, an age or a count of nodes or edges are
:mod:`~kgqa.planner.reader.superlatives`'s."""

from __future__ import annotations

from kgqa.planner.query import Column
from kgqa.planner.reader import cues
from kgqa.planner.reader.columns import ROWID, column_of, node_columns, owner_of, type_of
from kgqa.planner.reader.joins import counted_beside, edge_of, join_label
from kgqa.planner.reader.measures import past_edge_word, timed_prop
from kgqa.planner.reader.ranking_words import alphabetical, said_ranked_by
from kgqa.planner.reader.reading import Item, Reading, item_at, pick, pick_prop
from kgqa.planner.reader.schema_terms import Term, count_prop
from kgqa.planner.reader.superlatives import superlatives
from kgqa.text import name_words


def order(r: Reading, label: str) -> None:
    """Sets the query's order and limit from the superlatives and orders said; a number of rows said with no
    order is ordered by time, else declined."""
    _ordered(r, label)
    _first_by_time(r, label)
    _way_after(r)


def _held_often(r: Reading, col: Column, it: Item | None, label: str) -> str:
    """"the most common transaction type code": where the value counted is the asked label's key and another label
    holds a property of that name (not its key), the asked node is that label's, the values counted among its nodes;
    returns the asked label."""
    q = r.query
    if it is None or col.holder != r.target or col.prop != r.view.key(label) or len(q.nodes) != 1 or q.edges or \
            q.where or r.vars.get(label) != r.target:
        return label
    held = sorted(t.owner for t in it.terms if t.kind == "prop" and t.prop == col.prop and t.owner != label and
                  not t.on_rel and r.view.key(t.owner) != t.prop)
    if len(held) != 1:
        return label
    r.vars[held[0]] = r.vars.pop(label)
    q.nodes[r.target] = held[0]
    return held[0]


def _way_after(r: Reading) -> None:
    """"sorted by the number of events in descending order": the direction said as "in ... order" after the one
    order read, apart from its key."""
    q, lem, low = r.query, r.lemmas, [t.lower_ for t in r.doc]
    if len(q.order) != 1:
        return
    for i in range(2, len(lem)):
        if lem[i] == "order" and i not in r.used and i - 1 not in r.used and low[i - 1] in cues.EXPLICIT_WAYS and \
                lem[i + 1:i + 2] not in (["of"], ["by"]):
            start = i - 2 if lem[i - 2] == "in" else i - 3 if lem[i - 3:i - 1] == ["in", "the"] else None
            if start is None:
                continue
            q.order[0] = (q.order[0][0], low[i - 1] in cues.DESCENDING)
            r.use((start, i + 1))
            return


def _ordered(r: Reading, label: str) -> None:
    """Superlatives and explicit orders set the query's order and limit: each pass in turn, until one ends the
    reading (a superlative read, or an order declined)."""
    for step in (_explicit_orders, _order_adverbs, _from_most_to_least, _order_verb_used, _number_of, _most_common,
                 superlatives):
        if step(r, label):
            return


def _explicit_orders(r: Reading, label: str) -> bool:
    """"ordered by age", "in descending order of age": each order said, by what is named after it; True where
    one is declined (an alphabetical order of a number)."""
    q, lem = r.query, r.lemmas
    low = [t.lower_ for t in r.doc]
    ways = cues.DESCENDING | cues.ASCENDING
    for i, w in enumerate(lem):
        # "ordered by age", "listed by descending age", "in descending order of age", "in descending order by share"
        said = 2 if lem[i + 1:i + 2] == ["by"] else 3 if lem[i + 2:i + 3] == ["by"] and lem[i + 1] in ways else \
            4 if lem[i + 1:i + 4] in (["the", "result", "by"], ["the", "list", "by"]) else 0  # "ordered descending by"
        if w in cues.ORDER_WORDS | {"list"} and said or \
                w == "order" and lem[i + 1:i + 2] in (["of"], ["by"]) and i > 0 and (
                    lem[i - 1] in ways | {"in"} or lem[max(0, i - 2):i] == ["in", "the"]):
            # "sort the results by age", "in the order of their names"
            k = i + (said or 2)
            fn = None
            while k < len(lem) and (lem[k] in ways or lem[k] in ("the", "their", "its") or lem[k] in cues.AGGREGATES and
                                    not any(x.start <= k < x.end for x in r.items)):
                fn = cues.AGGREGATES.get(lem[k], fn)  # "in descending order of the total number of stocks"
                k += 1
            if lem[k:k + 2] == ["number", "of"] and item_at(r, k) is None and (held := item_at(r, k + 2)) is not None \
                    and any(t.kind == "prop" and r.view.is_number(t.owner, t.prop) for t in held.terms):
                k += 2  # "by the number of followers": the number each holds (followers)
            it = item_at(r, k)
            own = {t.owner for t in it.terms if t.kind == "label"} if it is not None and it.kinds() == {"label"} else set()
            if own and (prop := item_at(r, it.end)) is not None and any(
                    t.kind == "prop" and t.owner in own for t in prop.terms):
                r.use((it.start, it.end))  # "in descending order of building height": the buildings' height
                it = prop
            if any(x.start <= i < x.end and "rel" in x.kinds() for x in r.items) and (
                    any(v.start == k for v in r.values) or it is not None and it.kinds() == {"label"}):
                continue  # "the products ordered by 'VINET'", "ordered by customers": the verb of a relationship
            counted = next((c for c in q.columns if c.fn == "count"), None) if lem[k:k + 1] in (["count"], ["number"]) \
                and it is None else None  # "each location ordered by the count": by the count asked for
            if counted is not None:
                q.order.append((counted, any(x in cues.DESCENDING for x in lem[max(0, i - 3):k + 3])))
                r.use((i, k + 1), *[(j, j + 1) for j in range(max(0, i - 3), i) if lem[j] in ways | {"in", "an"}])
                continue
            if it is None or lem[it.start:it.end] in (["name"], ["title"]) and not any(
                    t.owner in q.nodes.values() or t.owner in r.rel_var for t in it.terms):
                continue  # not "in the order of their names" read as the names of a label nothing else says
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
            start = [w for w in tail[tail.index("from") + 1:] if w != "the"] if "from" in tail else []
            if start:  # "from the highest to the lowest"
                desc = desc or start[0] in cues.DESCENDING
            desc = desc or any(x in cues.DESCENDING for x in lem[i + 2:k])
            if any(w in cues.ALPHABETICAL for w in lem[max(0, i - 3):k]) and type_of(r, col) != "STRING":
                r.decline(f"an alphabetical order of {col.prop}, which is no text")  # the addresses' numeric ids
                return True
            q.order.append((col, desc))
            r.use((i, k), *[(k, k + 1) for k in range(it.end, min(len(lem), it.end + 6))
                            if lem[k] in ways | {"order", "in", "of", "from", "to"}],
                  *[(j, j + 1) for j in range(max(0, i - 3), i) if lem[j] in ways | {"in", "an"} or
                    lem[j] == "the" and lem[j - 1:j] == ["in"]])
    return False


def _order_adverbs(r: Reading, label: str) -> bool:
    """"alphabetically", "in descending order" with no order read: by the one figure shown, the first column
    asked for, or the first of words; never ends the reading."""
    q, lem, doc = r.query, r.lemmas, r.doc
    low = [t.lower_ for t in doc]
    figures = [c for c in q.columns if c.is_aggregate]
    if not q.order and any(w in cues.ORDER_ADVERBS for w in low):
        k = next(i for i, w in enumerate(low) if w in cues.ORDER_ADVERBS)
        asked = {(it.term.owner, it.term.prop) for it in r.asked if it.term is not None}
        plain = sorted((c for c in q.columns if not c.is_aggregate),  # the columns asked for first
                       key=lambda c: (owner_of(r, c.holder), c.prop) not in asked)
        col = figures[0] if len(figures) == 1 and plain else plain[0] if plain else None
        # "the denominations and the number of schools in descending order": by the figure each has
        if any(w in cues.ALPHABETICAL for w in low) or alphabetical(lem) and not (plain and (
                owner_of(r, plain[0].holder), plain[0].prop) in asked):
            # "in alphabetical order", "details ... in ascending order": the first column of words, or none; not
            # "the total points in descending order", a number asked for
            col = next((c for c in plain if type_of(r, c) == "STRING"), None)
        if col is not None:
            said = {t.lower_ for t in doc} | set(lem)
            end = k
            while end < len(low) and (low[end] in cues.ORDER_ADVERBS or low[end] in ("order", "and", "by")):
                end += 1
            by = item_at(r, end + (lem[end:end + 1] == ["the"])) if "by" in low[k:end] else None
            named = next((c for c in plain if by is not None and c.holder == r.target and any(
                t.kind == "prop" and t.owner == label and t.prop == c.prop for t in by.terms)), None)
            if named is not None:
                col = named  # "ordered alphabetically by name": the name shown
                r.use((end, by.end))
            q.order.append((col, bool(said & {"descending", "reverse", "decreasing"})))
            r.use((max(0, k - 2) if low[max(0, k - 1)] in ("in", "an") or low[max(0, k - 2)] == "in" else
                   k - 1 if k and lem[k - 1] in cues.ORDER_WORDS else k, end))  # "ordered alphabetically"
    return False


def _from_most_to_least(r: Reading, label: str) -> bool:
    """"ordered from most to least" with no order read: by the one figure shown; never ends the reading."""
    q, lem = r.query, r.lemmas
    ways = cues.DESCENDING | cues.ASCENDING
    figures = [c for c in q.columns if c.is_aggregate]
    ends = next((i for i in range(1, len(lem) - 3) if lem[i - 1] in cues.ORDER_WORDS and lem[i] == "from" and
                 lem[i + 2] == "to" and {lem[i + 1], lem[i + 3]} <= ways), None)
    if not q.order and ends is not None and len(figures) == 1:
        # "the number of airports per country, ordered from most to least": by the one figure shown
        q.order.append((figures[0], lem[ends + 1] in cues.DESCENDING))
        r.use((ends - 1, ends + 4))
    return False


def _order_verb_used(r: Reading, label: str) -> bool:
    """The verb of an order read ("sort", "Sort the result in ... order") marked used; never ends the reading."""
    q, lem, doc = r.query, r.lemmas, r.doc
    if q.order:  # "Sort the names ... in ascending order of price": the verb of the order read
        r.use(*[(t.i, t.i + 1) for t in doc if t.lemma_.lower() in cues.ORDER_WORDS and t.pos_ == "VERB"])
        r.use(*[(t.i, t.i + 3) for t in doc if t.lemma_.lower() in cues.ORDER_WORDS and
                lem[t.i + 1:t.i + 3] in (["the", "result"], ["the", "list"])])  # "Sort the result in ... order"
    return False


def _number_of(r: Reading, label: str) -> bool:
    """"the top 5 suppliers by the number of cities": ranked by a count (or a number each holds) of what
    "the number of" names; True where one is read or declined."""
    q, lem, doc = r.query, r.lemmas, r.doc
    # "the top 5 suppliers by the number of cities", "the highest number of discontinued products"
    for i, w in enumerate(lem):
        if w == "number" and lem[i + 1:i + 2] == ["of"] and i > 0 and i not in r.used and (
                lem[i - 1] in ("by", "on") or doc[i - 1].tag_ in ("JJS", "RBS") or said_ranked_by(lem, i)):
            sup = lem[i - 1] if doc[i - 1].tag_ in ("JJS", "RBS") else None
            k = i + 2
            distinct = k < len(lem) and lem[k] in cues.DISTINCT_WORDS
            skip = k
            while skip < len(lem) and (lem[skip] in cues.EDGE_DIRECTIONS or doc[skip].is_punct):
                skip += 1  # "the number of incoming [:FOLLOWS] relationships"
            it = next((x for x in r.items if x.start == i and x.end > k), None) or \
                next((x for x in r.items if x.start in (k, k + 1, skip)), None)  # "the most number of guests": no_of_guests
            if it is not None and any(it is f for f, _ in r.flags):
                it = next((x for x in r.items if x.start == it.end), it)  # "of discontinued products": the products
            times = it is None and lem[k:k + 1] == ["time"]
            tally = _times_held(r, label) if times and not q.edges else None
            if it is None and not (times and (q.edges or tally)):
                r.decline("the number of what")
                return True
            term = pick(it, "label", None) if it is not None else None
            prop = pick(it, "prop", label) or (pick_prop(it, r) if "prop" in it.kinds() else None) if it else None
            if times:
                cnt = Column(None, None, "count") if q.edges else tally  # "won the most number of times": the
                r.use((k, k + 1))  # matches of the verb's edges; "viewed ...": view_count; "nominated ...": rows
            elif term is not None and term.owner != label and (held := count_prop(r.view, label, term.owner)):
                cnt = Column(r.target, held)  # "by the number of guests": the number each holds (Number_of_guests)
                it.term = Term("prop", label, held)
                r.use((it.start, it.end))
            elif term is not None and term.owner != label:
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
                return True
            desc = cues.SUPERLATIVES.get(sup, True) if sup else True
            if not any(c.is_aggregate for c in q.columns):
                q.columns.append(cnt)
            q.order.append((cnt, desc))
            limits = [v for v in r.values if v.kind == "limit"]
            q.limit = limits[0].value if limits else (1 if sup else None)
            r.use((i - 1, k + distinct), *[(max(0, v.start - 1), v.end) for v in limits[:1]])
            return True
    return False


def _verb_edges(r: Reading, at: int) -> str | None:
    """The edge variable of the relationship a participle names, said at ``at`` ("the most frequently ordered") or
    of a noun the query holds ("the genres borrowed in Oslo"), when the query walks it; else None."""
    for x in r.items:
        if x.term is None or x.term.kind != "rel" or x.term.owner not in r.rel_var:
            continue
        tok = r.doc[x.start]
        if x.start == at or tok.dep_ == "acl" and tok.tag_ == "VBN" and any(
                y.start <= tok.head.i < y.end and y.term is not None and y.term.kind == "label" for y in r.items):
            return r.rel_var[x.term.owner]
    return None


def _most_common(r: Reading, label: str) -> bool:
    """"the most common reign", "the most times": the value (or node) that most rows have, counted; True where
    one is read or declined."""
    q, lem, doc = r.query, r.lemmas, r.doc
    # "the most common reign": the property's value that most nodes have
    for i, w in enumerate(lem):
        said = 2 if lem[i + 1:i + 2] and lem[i + 1] in cues.FREQUENT or doc[i + 1:i + 2].text.lower() == "times" and \
            item_at(r, i + 1) is None else 4 if lem[i + 1:i + 4] == ["number", "of", "time"] else 0
        w = doc[i].lower_
        if w in ("most", "least", "fewest") and said and i not in r.used:  # "the most times": most often
            it = next((x for x in r.items if x.start in (i + said, i + said + 1) and x.term is None), None) or \
                next((x for x in r.asked), None)
            if it is not None and doc[it.start].tag_ in ("VBN", "VBD") and it.end - it.start == 1:
                # "the most frequently shipped cities": the cities, the participle says which of them
                it = next((x for x in r.asked if x.start == it.end), it)
            col = column_of(r, it, label) if it is not None else None
            asked = next((x for x in r.items if x.term is not None and x.term.kind == "label" and
                          r.vars.get(x.term.owner) == r.target), None) if col is None else None
            own = [t for t in asked.terms if t.kind == "prop" and t.owner == label] if asked is not None else []
            others = [x for x in r.items if x.term is not None and x.term.kind == "label" and
                      r.vars.get(x.term.owner) not in (None, r.target)] if asked is not None else []
            if len(own) == 1:
                col = Column(r.target, own[0].prop)  # "which fuel type is most common": its FuelType value
            label = _held_often(r, col, it, label) if col is not None else label
            once = col is not None and col.holder == r.target and not q.edges and (
                col.prop == r.view.key(label) or r.view.nodes_per_value(label, col.prop) == 1.0)  # one row a value
            if once:  # "the transaction type that occurs most": the one most transactions have, each type held once
                cnt = counted_beside(r, label)
                if cnt is None:
                    r.decline(f"the {w} {lem[i + 1]} {col.prop}, each held by one {label}")
                    return True
                q.columns = [col, cnt]
            elif col is not None:
                cnt = Column(None, None, "count")
                q.columns = [col, cnt]
            elif (edges := _verb_edges(r, i + said)) is not None and not own:
                # "the most frequently borrowed books", "the most common genres borrowed in Oslo": how often
                # the verb's relationship holds, its edges counted
                cnt = Column(edges, None, "count", True)
                q.columns = [*node_columns(r, r.target), cnt]
            elif len(others) == 1 and not own:
                # "the least common media type in all tracks": the media type fewest tracks have
                cnt = Column(r.vars[others[0].term.owner], None, "count", True)
                q.columns = [*node_columns(r, r.target), cnt]
            else:
                r.decline(f"the {w} {lem[i + 1]} what")
                return True
            q.order.append((cnt, w == "most"))
            q.limit = next((v.value for v in r.values if v.kind == "limit"), 1)
            r.use((i, i + said), *[(max(0, v.start - 1), v.end) for v in r.values if v.kind == "limit"][:1])
            r.use(*[(j, j + 1) for j in range(max(0, i - 3), i) if lem[j] in cues.OCCUR_VERBS])  # "occurs the most"
            r.use(*[(j, j + 3) for j in range(i + said, len(lem) - 2) if lem[j:j + 3] == ["number", "of", "time"]])
            # "... and the corresponding number of times": the count shown
            return True
    return False



def _times_held(r: Reading, label: str) -> Column | None:
    """What "the most number of times" counts of the asked label with no edges: the one number property a verb of
    the question names ("viewed": view_count), else, where only the label's own properties are asked, the nodes
    holding each asked value ("the nominee nominated the most times"); else None."""
    verbs = [t.lemma_.lower() for t in r.doc if t.pos_ == "VERB" and len(t.lemma_) >= 4]
    held = [p for p in r.view.nodes.get(label, {}) if r.view.is_number(label, p) and
            any(w[:4] == v[:4] for w in name_words(p) for v in verbs)]
    if len(held) == 1:
        return Column(r.target, held[0])
    if r.asked and all(x.term is not None and x.term.kind == "prop" and x.term.owner == label for x in r.asked):
        return Column(r.target, None, "count", True)
    return None


def _first_by_time(r: Reading, label: str) -> None:
    """"the first two books Toni Morrison wrote": a number of rows with no order said, ordered by the time the
    asked nodes were made, else (for "first") by their keys; else a decline ("the 5 invoices with ...": in which
    order)."""
    q, doc = r.query, r.doc
    limits = [v for v in r.values if v.kind == "limit"]
    if q.limit is None and not q.order and limits and not any(c.is_aggregate for c in q.columns):
        first = next((t for t in doc[max(0, limits[0].start - 2):limits[0].end + 1] if t.lemma_.lower() in ("first", "last")),
                     None)  # "the first two books Toni Morrison wrote": by the time they were written
        named = next((x for x in r.items if x.start >= limits[0].end and x.term is not None and x.term.kind == "label"
                      and r.vars.get(x.term.owner) == r.target), None)
        timed = timed_prop(r, named, first.lemma_.lower()) if first is not None and named is not None else None
        col = column_of(r, timed, label) if timed is not None else None
        if col is None and first is not None and first.lemma_.lower() == "first" and named is not None and \
                (key := r.view.key(label)) and key != ROWID:
            col = Column(r.target, key)  # "the first 3 products that ...": nothing timed, in the order of their keys
            if label in r.view.numeric_keys:
                q.as_numbers.add((r.target, key))  # "2" before "10"
        if col is not None:
            _cut(r, col, first.lemma_.lower() == "last", limits[0].value, (first.i, first.i + 1),
                 (limits[0].start, limits[0].end))
        elif (ranked := _top_by(r, label, limits[0].start)) is not None:
            # "the top 5 filings where ...": the largest amounts first
            _cut(r, ranked, True, limits[0].value, (limits[0].start - 1, limits[0].end))
        elif limits[0].start > 0 and r.lemmas[limits[0].start - 1] in cues.TOP_WORDS:
            q.limit, q.unranked = limits[0].value, True  # "the top 5 suppliers in the UK": an answer only when no
            r.use((limits[0].start - 1, limits[0].end))  # more than 5 match (the pipeline counts the rows)
        else:
            r.decline(f"the {limits[0].value} {label} first by what")  # "the first 5 invoices with ...": in which order


def _cut(r: Reading, col: Column, desc: bool, limit: int, *spans: tuple[int, int]) -> None:
    """The rows ordered by ``col`` and cut at ``limit``, ``col`` shown; the words that said so read."""
    r.query.order.append((col, desc))
    r.query.limit = limit
    r.use(*spans)
    if col not in r.query.columns:
        r.query.columns.append(col)


def _top_by(r: Reading, label: str, at: int) -> Column | None:
    """What "the top 5 X" ranks by with no measure said ("top" right before the number, X right after): the one
    numeric property of X whose name says money ("the top 5 filings": by amount), else, where the query joins
    X to one other node, how many of those each has ("the top 3 countries where banks are located"); else None."""
    if at == 0 or r.lemmas[at - 1] != "top" or not any(
            x.start == at + 1 and (t := pick(x, "label", None)) is not None and r.vars.get(t.owner) == r.target
            and not any(y.start == x.end for y in r.items) for x in r.items):
        return None  # not "the top 3 beneficiary ISO codes", "the top 2 payment codes": the nodes themselves ranked
    money = [p for p in r.view.nodes.get(label, {}) if r.view.is_number(label, p) and
             any(w in cues.MONEY_WORDS for w in name_words(p))]
    if money:
        return Column(r.target, money[0]) if len(money) == 1 else None  # of two amounts, which is not said
    joined = [v for v in r.query.nodes if r.query.nodes[v] != label]
    return Column(joined[0], None, "count", True) if len(joined) == 1 else None
