"""The rules that read rankings and orders: limits, superlatives, sort orders, implicit time orders."""

from __future__ import annotations

import re

from kgqa.planner.lexicon import NUMBER, TIME_CUES, is_birth, is_date_like, is_time_like, number_value
from kgqa.planner.rules.state import Reading, alternatives, consumed, head_label, timed
from kgqa.text import name_words

AMOUNT_WORDS = frozenset({"quantity", "amount", "units", "count", "total", "number", "volume",
                          "qty", "sum", "hours", "minutes", "duration", "distance", "weight"})  # adding up


GIVEN = re.compile(r"[\s`'\"]*(?:given|received|assigned)\b")  # after an edge's property: each edge's own value


def superlatives(r: Reading) -> None:
    """"top 5", "the 3 ...": a limit. "most", "cheapest", "oldest" ...: an order, on the property that
    follows, or a count of the label that follows ("most orders"), or a grouping ("most common cities")."""
    f, low, view = r.frame, r.low, r.view
    props_at, labels_at = r.props_at, r.labels_at
    low = r.masked  # "Top Gun" is a title, not a ranking
    m = re.search(rf"\b(top|first)\s+({NUMBER})\b", low) or re.search(
        rf"\b(?:which|what|list|name|identify|find|the)\s+({NUMBER})\s+[a-z]", low)
    if m and not (m.lastindex == 1 and 1000 <= number_value(m.group(1)) <= 2100):  # "the 2020 chemistry prize"
        f.limit = int(number_value(m.group(m.lastindex)))
    # "Who is older, Keanu Reeves or Tom Hanks?": between alternatives a comparative picks the top one
    comparative = r"|more|higher|larger|greater|bigger|less|lower|smaller|fewer|cheaper|older|younger|earlier|later|newer"
    sup = next((m for m in re.finditer(r"(?<!at )\b(most|highest|largest|greatest|biggest|maximum|least|lowest|"
                                       r"smallest|fewest|minimum|cheapest|oldest|youngest|earliest|latest|newest"
                                       + (comparative if alternatives(f) else "") + r")\b", low)
                if not consumed(r, m.start())), None)  # "a minimum unitsInStock of 50" is a bound
    size = re.search(r"\b(longest|shortest)\s+(?:[a-z]+\s+)?([a-z]+)", low)
    text = next(((o, p) for s0, e0, o, p in props_at if size and size.start(2) <= s0 < size.end(2) + 1
                 and view.prop_type(o, p) == "STRING" and o in view.nodes), None)
    if text and not sup:
        # "the film with the longest tagline": ordered by the text's length
        f.order_label = text[0] if text[0] != f.target else None
        f.order, f.order_fn, f.desc, f.limit = text[1], "size", size.group(1) == "longest", f.limit or 1
        r.used.append(size.span())
        return
    if not sup and not re.search(r"\btop\b", low):
        return
    desc = True
    if sup:
        word = sup.group(1)
        desc = word not in ("least", "lowest", "smallest", "fewest", "minimum", "cheapest", "earliest",
                            "oldest", "less", "lower", "smaller", "fewer", "cheaper", "earlier", "older")
        if word in ("youngest", "latest", "newest", "younger", "later", "newer"):
            desc = True
    f.desc = desc
    pos = sup.end() if sup else 0
    if sup and sup.group(1) in ("oldest", "youngest", "earliest", "latest", "newest") and _role_order(r, sup.group(1), pos):
        return
    # what follows the superlative: a property, "number of <label>", or a label
    after = [(s, owner, prop) for s, e, owner, prop in props_at if s >= pos - 1]
    if sup and sup.group(1) in ("oldest", "youngest", "older", "younger"):
        born = [(s, o, p) for s, e, o, p in props_at if is_birth(p) and view.prop_type(o, p).startswith("INT")]
        if born:
            after = born
        else:
            for label, props in view.nodes.items():
                if label == f.target:
                    for p, t in props.items():
                        if is_birth(p) and t.startswith("INT"):
                            after = [(pos, label, p)]
                            break
            f.desc = sup.group(1) in ("youngest", "younger")
    counted = None
    for s, lb in labels_at:
        if s >= pos and lb != f.target:
            counted = head_label(r, s, lb, counting_target=False)
            break
    # "the top 5 products in the 'Grains/Cereals' category by units in stock": the property after "by" ranks
    by = [(s, o, p) for s, e, o, p in props_at if s >= pos and re.search(r"\bby\s+(?:the\s+|their\s+|its\s+)?$",
                                                                         low[:s])]
    if by:
        after, counted = by, None
    elif f.having and f.agg and not sup:
        # "the top 5 suppliers with products in more than 3 categories": ranked by the count the bound is on
        f.order = "agg"
        return
    freq = re.search(r"\b(?:most|least) (?:frequently|often|commonly) (\w+)", low)
    common = re.search(r"\bmost (?:common|frequent|popular|frequently \w+) ([a-z ]+?)(?: for| of| in| by|$|\?)", low)
    number_of = re.search(r"\b(?:number of|count of|amount of)\s+(?:different |distinct |unique )?([a-z ]+)", low)
    avg = next((a for a in re.finditer(r"\baverage\b|\bmean\b", low) if a.start() >= (pos if sup else 0)
                and not consumed(r, a.start())), None)
    total = re.search(r"\btotal\b|\bsum\b", low[pos:] if sup else low)
    # "Top 3 prize categories by number of prizes awarded": a plural property named after its label, ranked by
    # a count, groups by that property
    by_count = re.search(r"\bby\s+(?:the\s+)?(?:number|count) of\b", low)
    plural_prop = next(((s, o, p) for s, e, o, p in props_at if by_count and e <= by_count.start()
                        and o == f.target and view.prop_type(o, p) == "STRING" and low[e - 1] == "s"), None)
    if plural_prop:
        f.group_prop, f.agg, f.agg_label, f.order = plural_prop[2], "count", counted or f.target, "agg"
        f.limit = f.limit or 1
        return
    if common and not counted:
        # "most common ship cities" -> group by that property of the target
        prop_hit = next(((o, p) for s, e, o, p in props_at if s >= common.start(1) - 1), None)
        if prop_hit and prop_hit[0] not in view.nodes:
            f.notes.append(f"unexplained: the most common {prop_hit[1]} of an edge")  # "the most common role"
            return
        if prop_hit:
            f.target = prop_hit[0]
            f.group_prop = prop_hit[1]
            f.agg, f.agg_label, f.order = "count", prop_hit[0], "agg"
            f.limit = f.limit or 1
            return
    if number_of and counted:
        f.agg, f.agg_label, f.order = "count", counted, "agg"
    elif after and (avg or total):
        _, owner, prop = after[0]
        f.agg, f.agg_label, f.agg_prop, f.order = ("avg" if avg else "sum"), owner, prop, "agg"
    elif after and (not counted or after[0][0] < next((s for s, lb in labels_at if s >= pos and lb != f.target), 10**6)):
        _, owner, prop = after[0]
        if owner == f.target or view.prop_type(owner, prop) is None or owner in view.rel_props:
            f.order = prop if owner == f.target else None
            if owner != f.target:
                # "the highest-rated film", "the film with the highest rating": each film's average over its
                # edges; "the most ...", "the highest quantity" (an amount) add them up
                amount = (sup and sup.group(1) in ("most", "least")) or bool(AMOUNT_WORDS & set(name_words(prop)))
                # "the highest rating given to a film": one edge's value, the film holding the extreme one
                given = any(s0 == after[0][0] and GIVEN.match(r.low, e0) for s0, e0, _, _ in props_at)
                f.agg = "sum" if amount else ("max" if desc else "min") if given else "avg"
                f.agg_label, f.agg_prop, f.order = owner, prop, "agg"
                nearest = next((lb for s0, lb in reversed(labels_at) if s0 < sup.start()), None) if sup else None
                if not amount and nearest not in (None, f.target):
                    # "the person who directed the film with the lowest rating": that film's director, not
                    # each director's average
                    f.notes.append(f"unexplained: the {sup.group(1)} {prop} of another label")
        elif sup and owner in view.nodes and (sup.group(1) not in ("most", "least") or (
                after[0][0] == sup.end() + 1 and any(s0 > after[0][0] for s0, lb in labels_at if lb == owner))):
            # "Which suppliers supply the product with the highest unit price?", "the most expensive product":
            # that product's suppliers, not a sum of prices per supplier (only "most"/"least" amounts add up)
            f.order_label, f.order = owner, prop
            if f.limit and f.limit > 1:
                # "the orders that include the top 3 most expensive products": the three products first, then
                # their orders; a limit on the joined rows would answer another question
                f.notes.append(f"unexplained: the top {f.limit} {owner} nodes")
        else:
            f.agg, f.agg_label, f.agg_prop, f.order = "sum", owner, prop, "agg"
    elif counted or freq or (sup and not after):
        if freq and not counted:
            counted = _counted_by_verb(r, freq.group(1))
        verb = re.search(r"\b([a-z]+)\s+(?:the\s+)?(?:most|least)\s*(?:$|[,?.]|and\b|often\b|times\b)", low)
        if not counted and verb:  # "Which books have been borrowed the most?": count the verb's far end
            counted = _counted_by_verb(r, verb.group(1))
        if counted:
            f.agg, f.agg_label, f.order = "count", counted, "agg"
    if f.limit is None and f.order and sup:
        # a superlative without a number ("which suppliers supply the most products", "the oldest person"):
        # the group tied at the top, not the whole ranking
        f.limit = 1
    if sup and f.order == "agg":
        holder = re.search(r"\b(?:the|an?)\s+([a-z]+)\s+(?:with|that has|having|that had)\s+the\s+$", low[:sup.start()])
        named = r.lex.entries.get(holder.group(1)) if holder else None
        if named in view.nodes and named != f.target:
            # "the customer who placed the order with the highest total quantity": that order's customer, not
            # each customer's total; the figure is per order
            f.having_per = named
        if f.agg == "count" and total and not re.match(r"\s*(?:number|count)\b", low[pos + total.end():]):
            f.notes.append("unexplained: a total with nothing to add")  # "the lowest total order value"
    if sup and len(re.findall(r"\b(?:most|least|highest|lowest|cheapest|largest|smallest|oldest|youngest|"
                              r"earliest|latest|newest)\b", low)) > 1 and re.search(r"\b(?:both|and)\b", low):
        # "orders that contain both the most expensive and the cheapest product": two extremes at once
        f.notes.append("unexplained: two superlatives")


SORTED = re.compile(r"\b(?:in\s+(?:(ascending|descending|reverse)\s+)?order\s+of|sorted\s+by|sort\s+by|ranked\s+by|"
                    r"order\s+by|in\s+(ascending|descending)\s+order\s+of)\s+(?:their\s+|the\s+|its\s+)?")


def sorted_by(r: Reading) -> None:
    """"List the films directed by Nancy Meyers in order of release date", "sorted by order date": the rows
    in the order of the target's property named (latest first after "descending"), all of them."""
    f = r.frame
    m = SORTED.search(r.low)
    if m is None or f.order or f.agg or not f.target:
        return
    prop = next(((o, p) for s, e, o, p in r.props_at if s == m.end()), None)
    if prop is None or prop[1] not in r.view.nodes.get(f.target, {}):
        return
    # "in order of": the word "order" names no label or relationship here
    inside = [lb for s, lb in r.labels_at if m.start() <= s < m.end()]
    r.labels_at = [(s, lb) for s, lb in r.labels_at if not m.start() <= s < m.end()]
    for lb in inside:
        for named in (f.labels_mentioned, f.of_labels):
            if lb in named:
                named.remove(lb)
    said = [rel for s, rel in f.rel_at if m.start() <= s < m.end()]
    f.rel_at = [(s, rel) for s, rel in f.rel_at if not m.start() <= s < m.end()]
    for rel in said:
        if rel in f.rel_hints:
            f.rel_hints.remove(rel)
    f.order = prop[1]
    way = re.search(r"\b(?:in\s+)?(?:(descending|reverse|desc)|ascending|asc)(?:\s+order)?\b|"
                    r"\b(?:(latest|newest|highest|most)|earliest|oldest|lowest|least)\s+first\b", r.low[m.end():])
    f.desc = bool(m.group(1) in ("descending", "reverse") or m.group(2) == "descending"
                  or (way and (way.group(1) or way.group(2))))
    r.used.append(m.span())
    if way:
        r.used.append((m.end() + way.start(), m.end() + way.end()))


def implicit_order(r: Reading) -> None:
    """"the first two films X appeared in", "X's latest book": an order by the target's own time property
    (a year, else a date), ascending for first/earliest, descending for last/latest/newest/most recent; no
    number means the top group. Only when no other label the question mentions (besides named entities) has a
    time property it could mean."""
    f, low, view = r.frame, r.low, r.view
    if f.order or f.agg or not f.target:
        return
    terms = [(s, e) for s, e, _, _ in r.terms]
    m = next((m for m in re.finditer(r"\b(first|earliest|last|latest|newest|most recent(?:ly)?)\b", low)
              if not any(a <= m.start() < b for a, b in terms)), None)
    if m is None:
        return
    cue = re.search(r"\b([a-z]+)\s+$", low[:m.start()])
    cued = [p for p in view.nodes.get(f.target, {}) if cue and cue.group(1) in TIME_CUES
            and TIME_CUES[cue.group(1)] & set(name_words(p))]
    if cued:
        # "Who was born first, A or B?", "born earliest": the time the verb names, of the target
        f.order = ([p for p in cued if is_date_like(p)] or cued)[0]
        cue_rels = {rel for s, rel in f.rel_at if s == cue.start(1)}  # "born" is no BORN_IN edge here
        f.rel_hints = [rel for rel in f.rel_hints if rel not in cue_rels]
        r.used.append(m.span())
        f.desc = m.group(1) not in ("first", "earliest")
        f.limit = f.limit or 1
        return
    own = timed(view, f.target)
    named = [p for p in own if set(name_words(f.target)) & set(name_words(p))]
    if len(own) > 1 and len(named) == 1:
        own = named  # "the first orders": of an order's dates, its own (orderDate), not when it shipped
    # a named entity is not what is ordered; a value of another property ("the physics prize") does not name one
    anchored = {a.label for a in f.anchors if a.prop in (view.display(a.label), view.spec.primary_keys.get(a.label))
                or a.label == f.target}
    others = {lb for lb in f.labels_mentioned if lb != f.target and lb not in anchored and timed(view, lb)}
    others |= {rel for rel in f.rel_hints if any(is_time_like(p) for p in view.rel_props.get(rel, {}))}
    other = next(iter(others)) if len(others) == 1 else None
    timed_edge = [p for p in view.rel_props.get(other or "", {}) if is_time_like(p)] if other not in view.nodes else []
    if len(timed_edge) == 1:
        # "the first two books X borrowed": the time of the relationship the verb names, not the books' own
        f.order_label, f.order = other, timed_edge[0]
    elif len(own) == 1 and not others:
        f.order = own[0]
    elif len(own) != 1 and other in view.nodes and len(timed(view, other)) == 1:
        # "the first two women to win the physics prize": the prize's year orders them
        f.order_label, f.order = other, timed(view, other)[0]
    elif m.group(1) == "first" and f.limit and not own and not others and f.target in view.spec.primary_keys:
        # "the first 3 products with ...": nothing timed, so the graph's own listing order, by key
        f.order, r.listing = view.key(f.target), True
    else:
        f.notes.append(f"unexplained: {m.group(1)}")  # an order the plan cannot take: not a guess either
        return
    f.desc = m.group(1) not in ("first", "earliest")
    f.limit = f.limit or 1


def _role_order(r: Reading, word: str, pos: int) -> bool:
    """"Who directed the oldest movie?": a time superlative right before a label orders that label by its
    time property (the target's own for "the oldest movie"); returns whether it did."""
    f = r.frame
    nxt = next(((s, lb) for s, lb in r.labels_at if s >= pos), None)
    if nxt is None or len(re.findall(r"[a-z]+", r.masked[pos:nxt[0]])) > 2:
        return False
    props = timed(r.view, nxt[1])
    if word in ("oldest", "youngest") and len(props) > 1:
        props = [p for p in props if is_birth(p)]
    if len(props) != 1:
        return False
    # "the oldest film": the target's own time property
    f.order_label, f.order = (None if nxt[1] == f.target else nxt[1]), props[0]
    f.desc = word in ("youngest", "latest", "newest")
    f.limit = f.limit or 1
    return True


def _counted_by_verb(r: Reading, verb: str) -> str | None:
    """"most frequently ordered products": the label a frequency verb counts, the end of the verb's
    relationship other than the target, preferring one that a relationship joins to the target."""
    t = r.lex.entries.get(verb, "")
    if not t.startswith("rel:"):
        return None
    rel = t[4:].split(">")[0]
    ends = [lb for pair in r.view.rels.get(rel, []) for lb in pair if lb != r.frame.target]
    near = [lb for lb in ends if any({lb, r.frame.target} == set(p) for ps in r.view.rels.values() for p in ps)]
    return next(iter(near or ends), None)
