"""Superlatives ("the highest", "the top 3 by", "the most orders", "the most common", "the three most expensive")
and explicit orders ("ordered by age", "in descending alphabetical order") of a grammar reading: the query's
order and limit (:func:`order`)."""

from __future__ import annotations

from kgqa.planner import cues
from kgqa.planner.grammar_columns import column_of, node_columns, owner_of, type_of
from kgqa.planner.grammar_measures import measured_prop, owned_prop, past_edge_word, timed_prop, verb_timed
from kgqa.planner.grammar_times import date_prop, year_prop
from kgqa.planner.joins import counted_beside, edge_of, join_label, many_along, path_to
from kgqa.planner.query import Column, Overall, Where
from kgqa.planner.ranking_words import alphabetical, by_what, said_ranked_by
from kgqa.planner.reading import Item, Reading, compound_of_label, is_timed, item_at, pick, pick_prop
from kgqa.planner.schema_terms import Term, count_prop
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
    """Superlatives and explicit orders set the query's order and limit."""
    q, lem, doc = r.query, r.lemmas, r.doc
    low = [t.lower_ for t in doc]
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
                return
            q.order.append((col, desc))
            r.use((i, k), *[(k, k + 1) for k in range(it.end, min(len(lem), it.end + 6))
                            if lem[k] in ways | {"order", "in", "of", "from", "to"}],
                  *[(j, j + 1) for j in range(max(0, i - 3), i) if lem[j] in ways | {"in", "an"} or
                    lem[j] == "the" and lem[j - 1:j] == ["in"]])
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
    ends = next((i for i in range(1, len(lem) - 3) if lem[i - 1] in cues.ORDER_WORDS and lem[i] == "from" and
                 lem[i + 2] == "to" and {lem[i + 1], lem[i + 3]} <= ways), None)
    if not q.order and ends is not None and len(figures) == 1:
        # "the number of airports per country, ordered from most to least": by the one figure shown
        q.order.append((figures[0], lem[ends + 1] in cues.DESCENDING))
        r.use((ends - 1, ends + 4))
    if q.order:  # "Sort the names ... in ascending order of price": the verb of the order read
        r.use(*[(t.i, t.i + 1) for t in doc if t.lemma_.lower() in cues.ORDER_WORDS and t.pos_ == "VERB"])
        r.use(*[(t.i, t.i + 3) for t in doc if t.lemma_.lower() in cues.ORDER_WORDS and
                lem[t.i + 1:t.i + 3] in (["the", "result"], ["the", "list"])])  # "Sort the result in ... order"
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
                return
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
        said = 2 if lem[i + 1:i + 2] and lem[i + 1] in cues.FREQUENT or doc[i + 1:i + 2].text.lower() == "times" and \
            item_at(r, i + 1) is None else 4 if lem[i + 1:i + 4] == ["number", "of", "time"] else 0
        w = doc[i].lower_
        if w in ("most", "least", "fewest") and said and i not in r.used:  # "the most times": most often
            it = next((x for x in r.items if x.start in (i + said, i + said + 1) and x.term is None), None) or \
                next((x for x in r.asked), None)
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
                    return
                q.columns = [col, cnt]
            elif col is not None:
                cnt = Column(None, None, "count")
                q.columns = [col, cnt]
            elif len(others) == 1 and not own:
                # "the least common media type in all tracks": the media type fewest tracks have
                cnt = Column(r.vars[others[0].term.owner], None, "count", True)
                q.columns = [*node_columns(r, r.target), cnt]
            else:
                r.decline(f"the {w} {lem[i + 1]} what")
                return
            q.order.append((cnt, w == "most"))
            q.limit = next((v.value for v in r.values if v.kind == "limit"), 1)
            r.use((i, i + said), *[(max(0, v.start - 1), v.end) for v in r.values if v.kind == "limit"][:1])
            r.use(*[(j, j + 1) for j in range(max(0, i - 3), i) if lem[j] in cues.OCCUR_VERBS])  # "occurs the most"
            r.use(*[(j, j + 3) for j in range(i + said, len(lem) - 2) if lem[j:j + 3] == ["number", "of", "time"]])
            # "... and the corresponding number of times": the count shown
            return
    # superlatives: "the highest rank", "the 3 oldest", "top 5 by amount", "the most orders"
    for i, w in enumerate(lem):
        if i in r.used or (w not in cues.SUPERLATIVES and w not in cues.AGE_SUPERLATIVES):
            continue
        if doc[i].tag_ not in ("JJS", "RBS") and w not in ("top", "maximum", "minimum"):
            continue
        after = next((v.end for v in r.values if v.kind == "limit" and v.start == i + 1), None)
        if w == "top" and after is not None and after < len(doc) and doc[after].tag_ in ("JJS", "RBS") and \
                lem[after] in cues.SUPERLATIVES:
            r.use((i, i + 1))  # "the top 3 highest support rates": the superlative after the number ranks
            continue
        if w == "most" and lem[i + 1:i + 2] in (["recently"], ["recent"]) and i + 1 not in r.used:
            said = next((x for x in r.items if x.start == i + 2 and "prop" in x.kinds()), None)
            said_term = pick(said, "prop", label) or pick_prop(said, r) if said is not None else None
            target = next((x for x in r.items if x.start == i + 2 and (t := pick(x, "label", None)) is not None and
                           r.vars.get(t.owner) == r.target), None) or \
                next((x for x in r.items if x.term is not None and x.term.kind == "label" and
                      r.vars.get(x.term.owner) == r.target), None)
            if said_term is not None and (is_timed(said_term.prop) or r.view.is_date(said_term.owner, said_term.prop)):
                said.term = said_term  # "in the most recent year": by the year said
                timed = said
            else:
                others = [x for x in r.items if (x.term is None or x.term.kind == "label") and
                          (t := pick(x, "label", None)) is not None and r.vars.get(t.owner) not in (None, r.target)]
                verb = doc[i + 1].head if doc[i + 1].lower_ == "recently" else None
                done = [x for x in others if verb is not None and (x.start <= verb.i < x.end or any(
                    c.dep_ in ("dobj", "nsubjpass") and x.start <= c.i < x.end for c in verb.children))]
                timed = timed_prop(r, done[0], "recent") if len(done) == 1 else None  # "made an order most recently"
                timed = timed or (timed_prop(r, target, "recent") if target else None)
                timed = timed or (verb_timed(r, verb) if verb is not None and verb.pos_ == "VERB" else None)
            col = column_of(r, timed, label) if timed is not None else None
            if col is None or any(c.is_aggregate for c in q.columns):
                r.decline("most recently, by which time")  # nor "the maximum stars for the most recent movie"
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
        elif lem[i + 1:i + 2] and lem[i + 1] in cues.MEASURES and doc[i + 1].tag_ in ("VBN", "VBG") and \
                i + 1 not in r.used:
            measure = lem[i + 1]  # "the highest paid instructor", "the lowest earning one": what the verb measures
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
        if lem[k:k + 2] == ["number", "of"] or lem[k:k + 2] == ["amount", "of"] and doc[k + 2:k + 3].text and \
                doc[k + 2].tag_ == "NNS" and any(x.start == k + 2 and "label" in x.kinds() for x in r.items):
            r.use((k, k + 2))  # "the most number of students", "the fewest amount of amenities": a count
            k += 2
        elif lem[k:k + 1] and lem[k] in cues.DISTINCT_WORDS and doc[k + 1:k + 2].text and doc[k + 1].tag_ == "NNS":
            r.use((k, k + 1))  # "the most distinct customers": each counted once, as every count of nodes is
            k += 1
        fn = cues.AGGREGATES.get(lem[k]) if k < len(lem) and lem[k] != "overall" and i + 1 == k else None
        it = next((x for x in r.items if k <= x.start <= k + 2 and x.term is None or x.start == k), None)
        if it is not None and compound_of_label(r, it):
            it = next((x for x in r.items if x.start == it.end), it)  # "the most Nobel laureates": the laureates
        named = next((x for x in r.items if k <= x.start <= k + 2 and x.term is not None and x.term.kind == "label"
                      and x.term.owner == label), None)
        if it is None and measure != w:
            it = named  # "the three most expensive procedures": the procedures, by what "expensive" measures
        after = _past_modifiers(r, named.end) if named is not None else 0
        by = by_what(lem, after) if named is not None else 0
        ranked_by = False
        if by and w == "top" and fn is None:  # "the top 3 invoices by amount", "... based on the amount"
            at = after + by
            if at < len(lem) and lem[at] in cues.AGGREGATES and lem[at] != "overall":
                fn, k = cues.AGGREGATES[lem[at]], at  # "the top 5 countries by the total amount of invoices"
                r.use((after, at))
            elif lem[at + 1:at + 2] != ["of"]:  # not "by the number of relationships": a count
                by_item = next((x for x in r.items if x.start == at), None)
                by_item = by_item if by_item is None or "prop" in by_item.kinds() else owned_prop(r, by_item)
                it = by_item or it
                ranked_by = by_item is not None
                r.use((after, at))
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
            if col is None or not r.view.is_number(owner_of(r, col.holder), col.prop or ""):
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
            born = (year_prop(r, label) or date_prop(r, label)) if not ages else None
            if len(ages) != 1 and (born is None or any(c.is_aggregate for c in q.columns)):
                r.decline(f"the {w}, by what")
                return
            if ages:
                q.order.append((Column(r.target, ages[0]), desc))
            else:  # "the oldest movie", "the youngest organization": by the one time it holds, earliest first
                q.order.append((Column(r.target, born.prop), not desc))
        elif it is not None and "label" in it.kinds() and pick(it, "label", None) is not None \
                and pick(it, "label", None).owner == label and w in cues.COUNT_SUPERLATIVES and measure == w:
            # "the advisor with the most students": the asked property's values ranked by how many have each
            shown = [c for c in q.columns if not c.is_aggregate]
            if not r.asked or not shown:
                r.decline(f"the {w} {r.doc[it.start:it.end].text} by what")
                return
            other = next((lb for v, lb in q.nodes.items() if lb != label and _said_of(r, it, lb)), None)
            if other is not None:  # "the projects launched by the organization with the most projects"
                r.decline(f"the {other} with the {w} {label} first, then its {label}")
                return
            cnt = Column(None, None, "count")
            q.columns = shown + [cnt]
            q.order.append((cnt, desc))
            it.term = pick(it, "label", None)
            r.use((it.start, it.end))
        elif it is not None and "label" in it.kinds() and pick(it, "label", None) is not None \
                and pick(it, "label", None).owner != label and measure == w and (
                    w in cues.COUNT_SUPERLATIVES or w in cues.SIZE_SUPERLATIVES and pick(it, "label", None).via):
            # "the most actors", "the largest cast" (a noun for the nodes at one end of a relationship: a group)
            far = pick(it, "label", None).owner
            if (held := count_prop(r.view, label, far)) is not None:  # "the party with the most guests": Number_of_guests
                col = Column(r.target, held)
                if col not in q.columns:
                    q.columns.append(col)
                q.order.append((col, desc))
                it.term = Term("prop", label, held)
            else:
                between = next((lb for v, lb in q.nodes.items() if v != r.target and lb not in (far, label) and
                                _said_of(r, it, lb)), None)
                if between is not None:  # "students who live in the dorm with the most amenities": that dorm first
                    r.decline(f"the {between} with the {w} {far} first, then its {label}")
                    return
                var = r.vars.get(far) or join_label(r, far)
                if var is None:
                    return
                it.term = pick(it, "label", None)
                cnt = Column(var, None, "count", True)
                if not any(c.is_aggregate for c in q.columns):
                    q.columns.append(cnt)
                q.order.append((cnt, desc))
            r.use((it.start, it.end))
        elif it is not None and it.kinds() == {"rel"} and w in cues.COUNT_SUPERLATIVES and measure == w and \
                len(touching := [t.owner for t in it.terms if any(label in p for p in r.view.rels.get(t.owner, []))]) == 1:
            var = edge_of(r, touching[0])  # "the department with the fewest members": its membership edges counted
            if var is None:
                return
            it.term = Term("rel", touching[0])
            cnt = Column(var, None, "count", True)
            if not any(c.is_aggregate for c in q.columns):
                q.columns.append(cnt)
            q.order.append((cnt, desc))
            r.use((it.start, it.end))
        elif it is not None:
            of_node = "prop" not in it.kinds()  # "the highest roller coaster": one node's measure
            if of_node:
                # "the highest LIKES2 weight", "the heaviest", "the latest book"
                it = owned_prop(r, it) or measured_prop(r, it, measure) or timed_prop(r, it, w)
            if it is None:
                r.decline(f"the {w} {r.doc[k:k + 3].text}, by what")
                return
            col = column_of(r, it, label)
            if col is None:
                return
            if col.holder in q.nodes and col.holder != r.target and not counted and _said_of(r, it, q.nodes[col.holder]):
                # "the students living in the dorm with the largest capacity": that dorm, then its students
                top = Where(col.holder, col.prop, "=", Overall("max" if desc else "min", q.nodes[col.holder], col.prop))
                absent = r.absent_of.get(col.holder)  # "not working on the project with the most hours": inside
                (absent.where if absent is not None else q.where).append(top)
                r.use(lspan)
                return
            path = path_to(q, r.target, col.holder) if col.holder in q.nodes and col.holder != r.target else None
            if path and not of_node and many_along(r.view, q, path, r.target) and not ranked_by and \
                    r.view.is_number(q.nodes[col.holder], col.prop):
                if w not in cues.COUNT_SUPERLATIVES:  # "the department with the highest credits": of one course?
                    r.decline(f"the {label} with the {w} {col.prop} of one {q.nodes[col.holder]}, or of all added up")
                    return
                # "the department with the most credits": its courses' credits, added up
                col = Column(col.holder, col.prop, "sum")
                q.columns = [c for c in q.columns if not c.is_aggregate and c.holder == r.target] or \
                    node_columns(r, r.target)
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
    asked nodes were made; else a decline ("the first 5 invoices with ...": in which order)."""
    q, doc = r.query, r.doc
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
        elif (ranked := _top_by(r, label, limits[0].start)) is not None:
            q.order.append((ranked, True))  # "the top 5 filings where ...": the largest amounts first
            q.limit = limits[0].value
            r.use((limits[0].start - 1, limits[0].end))
            if ranked not in q.columns:
                q.columns.append(ranked)
        elif limits[0].start > 0 and r.lemmas[limits[0].start - 1] in cues.TOP_WORDS:
            q.limit, q.unranked = limits[0].value, True  # "the top 5 suppliers in the UK": an answer only when no
            r.use((limits[0].start - 1, limits[0].end))  # more than 5 match (the pipeline counts the rows)
        else:
            r.decline(f"the {limits[0].value} {label} first by what")  # "the first 5 invoices with ...": in which order


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


def _said_of(r: Reading, it, label: str) -> bool:
    """Whether the superlative's property is said of a noun naming ``label`` ("the dorm with the largest
    capacity", "the dorm that has the largest capacity"), not of the asked nodes; a verb naming it says nothing of
    it ("products ordered by the most customers")."""
    head = r.doc[it.end - 1].head
    at = {head.i}
    if head.pos_ == "ADP":
        at = {head.head.i, head.i - 1}  # "live in the dorm with the largest ...": "with" read as the verb's
    elif head.lemma_.lower() in cues.LIGHT_VERBS and head.dep_ == "relcl":
        at = {head.head.i}
    return any(x.start <= i < x.end and r.doc[i].pos_ in ("NOUN", "PROPN") and (t := x.term or pick(x, "label", None))
               is not None and t.kind == "label" and t.owner == label for x in r.items for i in at)


def _ranks_asked(r: Reading, limits: list) -> bool:
    """Whether the number of rows is said of the asked label itself ("the top 5 characters", "the 3
    characters"), not of edges ("the 3 heaviest relationships")."""
    if not limits:
        return False
    v = limits[0]
    nxt = next((x for x in r.items if x.start == v.end), None)
    return nxt is not None and nxt.term is not None and nxt.term.kind == "label" and \
        r.vars.get(nxt.term.owner) == r.target


def _past_modifiers(r: Reading, at: int) -> int:
    """Where the words that rank the label named before ``at`` may start: at ``at``, or past a phrase of nouns that
    modifies it ("the top 5 products in the 'Beverages' category by unit price"), no verb between."""
    for k in range(at, min(len(r.doc), at + 8)):
        t = r.doc[k]
        if by_what(r.lemmas, k) and t.dep_ != "agent":  # not "supplied by 'Exotic Liquids'": who supplied them
            return k
        if t.pos_ in ("VERB", "AUX") or t.lower_ in cues.RELATIVES or t.dep_ == "agent":
            return at
    return at
