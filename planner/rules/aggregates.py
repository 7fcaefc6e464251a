"""The rules that read counts and aggregates: how many, totals and averages, their groups, counts compared."""

from __future__ import annotations

import re

from kgqa.planner.frame import AggregateOf
from kgqa.planner.lexicon import YES_NO, is_time_like
from kgqa.planner.rules.asks import ASKED_LEAD
from kgqa.planner.rules.state import Reading, consumed, head_label
from kgqa.text import name_words

# words that name an aggregate of the property after them ("the average price", "a total quantity")
AGGREGATE_WORDS = {"average": "avg", "mean": "avg", "total": "sum", "sum": "sum", "maximum": "max", "minimum": "min"}


ONCE = re.compile(r"\b(at\s+least|more\s+than|only|exactly|just)\s+(once|twice)\b")


def times(r: Reading) -> None:
    """"ordered at least once": an edge of the verb before it exists (the join says so); "ordered only once",
    "more than once": a count of the verb's far end per target, bounded."""
    f = r.frame
    for m in ONCE.finditer(r.low):
        verb = max(((s, rel) for s, rel in f.rel_at if s < m.start()), default=None)
        if verb is None:
            continue
        n = 1 if m.group(2) == "once" else 2
        if m.group(1).startswith("at least") and n == 1:
            r.used.append(m.span())
            continue
        ends = [lb for pair in r.view.rels.get(verb[1], []) for lb in pair if lb != f.target]
        if f.agg or f.having or len(set(ends)) != 1:
            continue
        op = ">" if m.group(1).startswith("more") else ">=" if m.group(1).startswith("at least") else "="
        f.agg, f.agg_label, f.having = "count", ends[0], (op, n)
        r.used.append(m.span())


def aggregates(r: Reading) -> None:
    """"how many", "number of", "count": a count (of the label counted, which becomes the target); "average",
    "total", "maximum" ...: that aggregate of the property named after the word. Not when the superlatives
    already set one."""
    f, low = r.frame, r.low
    if f.agg:
        return
    for m in re.finditer(r"\bnumber\s+of\s+", low):
        named = next(((o, p) for s, e, o, p in r.props_at if s == m.end()), None)
        if named and r.view.is_number(*named) and not is_time_like(named[1]):
            r.used.append(m.span())  # "the average number of units in stock": the property's own figure
    if any(not consumed(r, m.start()) for m in re.finditer(r"\bhow many\b|\bnumber of\b|\bcount\b", low)):
        m = re.search(r"\bhow many\s+(?:different |distinct |unique )?([a-z]+)", low)
        counted = r.lex.entries.get(m.group(1)) if m else None
        if counted and "." in counted and "=" not in counted and not counted.startswith("rel:"):
            # "how many different categories of prizes": the distinct values of a property
            owner, prop = counted.split(".", 1)
            if owner in r.view.nodes and f.anchors and r.view.is_number(owner, prop) and any(
                    a.label == owner for a in f.anchors):
                # "How many pages does Kafka on the Shore have?": its page count, a number it holds
                f.target, f.target_prop = owner, prop
                r.used.append(m.span())
                return
            if owner in r.view.nodes:
                f.agg, f.agg_label, f.agg_prop, f.target = "count", owner, prop, owner
                return
        if counted and ("." in counted or counted.startswith("rel:")):
            counted = None
        if counted and m:
            counted = head_label(r, m.start(1), counted)
        f.agg, f.agg_label = "count", counted or f.target
        if counted:
            f.target = counted
        # "In which categories did laureates from MIT win, and how many laureates in each?": a count per value
        # of the property the question asks for
        which = re.match(r"\s*(?:in\s+|for\s+)?(?:which|what)\s+([a-z]+)", low)
        asked = r.lex.entries.get(which.group(1), "") if which else ""
        if (re.search(r"\b(?:in|for)\s+each\s*(?:[?.!]|$)|\bper\s+(?:one|each)\b", low) and "." in asked
                and "=" not in asked and asked.split(".")[0] in r.view.nodes and which.group(1).endswith("s")):
            owner, prop = asked.split(".", 1)
            f.agg_label, f.target, f.group_prop = counted or f.agg_label, owner, prop
            return
        other_group = _label_group(r)
        if other_group:
            # "how many orders were placed by customers in each region": per value of the customers' region
            f.agg_label, f.target, f.group_prop = f.agg_label or f.target, *other_group
            return
        # "how many books were published each year": a count per value of the target's property
        per = re.search(r"\b(?:each|every|per)\s+(?:distinct\s+|different\s+)?[`'\"]?([a-z]+(?: [a-z]+)?)", low)
        target = r.lex.entries.get(per.group(1)) or r.lex.entries.get(per.group(1).split()[0]) if per else None
        own = [p for p in r.view.nodes.get(f.target or "", {}) if per and per.group(1).split()[0] in name_words(p)]
        if target and "." in target and "=" not in target and target.split(".")[0] == f.target:
            f.group_prop = target.split(".", 1)[1]
        elif len(own) == 1 and target not in r.view.nodes:
            f.group_prop = own[0]  # "orders shipped to each country": the target's own country (shipCountry)
            r.used.append((per.start(1), per.start(1) + len(per.group(1).split()[0])))
        elif target in r.view.nodes and target != f.target:
            # "how many laureates were born on each continent": a count per node of that label
            f.target = target
        if re.search(r"\b(?:average|mean)\s+(?:number|count)\s+of\b", low):
            if target in r.view.nodes:
                f.over_groups = "avg"  # "the average number of products per order": of the per-order counts
            else:
                f.notes.append("unexplained: an average of counts over no named group")
        return
    for word, agg in AGGREGATE_WORDS.items():
        m = re.search(rf"\b{word}\b", low)
        if m and not consumed(r, m.start()):
            prop = next(((o, p) for s, e, o, p in r.props_at if s > m.start()), None)
            if prop:
                f.agg, f.agg_label, f.agg_prop = agg, prop[0], prop[1]
                if f.target is None and prop[0] in r.view.nodes:
                    f.target = prop[0]  # "the average freight for each shipCountry": no label named, the owner's
                if f.anchors and f.target not in f.labels_mentioned and not re.search(r"\b(each|per|by)\b", low):
                    # "the average review rating of The Replacements": of the named entity, not per reviewer
                    f.target = f.anchors[0].label
                if re.search(r"\b(each|per|by)\b", low):
                    f.order = None
                other_group = _label_group(r)
                if other_group:
                    # "the average freight of orders placed by customers in each country": per customer country
                    f.target, f.group_prop = other_group
                    f.per_target = True
                    return
                # "by" groups after a noun ("average price by category"), not after a verb ("ordered by
                # customers in the USA": who did it)
                per = re.search(r"\b(?:(?:by |for )?(?:each|every)|per|(?<!ed )(?<!en )by)\s+(?:distinct\s+|different\s+)?"
                                r"[`'\"]?([a-z]+)", low)
                label = r.lex.entries.get(per.group(1)) if per else None
                grouping = label.split(".", 1)[1] if label and "." in label and "=" not in label else None
                if label in r.view.nodes:
                    # "the average unit price of products supplied by each supplier": per supplier
                    f.target, f.per_target = label, True
                elif grouping and grouping in r.view.nodes.get(f.target or "", {}):
                    # "the average quantity ordered for each 'categoryID'": per value of the target's property
                    f.group_prop, f.per_target = grouping, True
                elif per and re.match(r"(?:by |for )?(?:each|every|per)\b", per.group(0)) and not (
                        label and "." in label and "=" not in label):
                    f.notes.append(f"unexplained: per {per.group(1)}")  # "in each year": no form for it
                else:
                    # "the average quantity of products ordered by the customer ALFKI": one figure
                    f.per_target = False
                return


def led_group(r: Reading) -> None:
    """"List the `customerID` and the number of distinct products they have ordered": a property named first,
    right before the aggregate, is the key of the label the figure is per (the label whose key it is, else
    the one the lexicon reads it of), when that is not the label aggregated."""
    f, view = r.frame, r.view
    if not f.agg or f.group_prop or f.anchors or not r.props_at:
        return
    s, e, owner, prop = r.props_at[0]
    if not (ASKED_LEAD.match(r.low[:s]) and re.match(
            r"[\s`'\"]*(?:,|and)\s+(?:the\s+|their\s+|its\s+)?(?:total\s+|average\s+)?"
            r"(?:number|count|sum|total|average|amount)\b", r.low[e:])):
        return
    holder = next((lb for lb in view.nodes if view.spec.primary_keys.get(lb) == prop), owner)
    aggregated = f.agg_label or f.target
    if holder not in view.nodes or holder in (f.target, aggregated) or not view.paths(holder, aggregated or "", 3):
        return
    f.agg_label, f.target, f.per_target = aggregated, holder, True


def count_against_average(r: Reading) -> None:
    """"Which countries have more laureates born there than the average country?": the count of a label per
    node of the target, against the average of those counts."""
    f = r.frame
    m = re.search(r"\b(more|fewer|less)\s+([a-z]+)\b.*\bthan\s+(?:the\s+|an?\s+)?(?:average|mean|typical)\s+([a-z]+)",
                  r.low)
    if not m or f.target is None:
        return
    counted, per = r.lex.entries.get(m.group(2)), r.lex.entries.get(m.group(3))
    if counted not in r.view.nodes or per != f.target or counted == per:
        return
    f.agg, f.agg_label, f.agg_prop, f.group_prop = "count", counted, None, None
    f.having, f.order, f.limit = (">" if m.group(1) == "more" else "<", AggregateOf("avg")), None, None
    r.used.append(m.span())


def count_comparison(r: Reading) -> None:
    """"Were more laureates born in the USA than in the United Kingdom?" (yes/no), "How many more ... than"
    (the difference), "Japan or Russia: which has more laureates born there?" (the top one): the counts of a
    label for two named values of one property. Only with no other condition, which the form could not hold."""
    f = r.frame
    if len(f.anchors) != 2 or f.conds or f.compare:
        return
    a, b = f.anchors
    if a.label != b.label or a.prop != b.prop:
        return
    m = re.search(r"\b(more|fewer|less)\s+(?:[a-z]+\s+)?[a-z]+", r.masked)  # "more (Nobel) laureates"
    counted = next((head_label(r, s, lb) for s, lb in r.labels_at if m and m.end(1) < s < m.end()),
                   None)  # "more Nobel laureates": the head noun is counted
    if counted is None or counted == a.label:
        return
    between = r.low[a.end:b.start]
    more = m.group(1) == "more"
    if re.search(r"\bor\b", between) and re.search(r"\bwhich\b", r.low):
        # the top one of the two: a grouped count over the two values
        f.target, f.agg, f.agg_label, f.order, f.desc, f.limit = a.label, "count", counted, "agg", more, 1
    elif re.search(r"\bthan\b", between) and re.match(r"\s*how many more\b", r.low):
        f.target, f.agg, f.agg_label, f.compare = a.label, "count", counted, ("count", "-")
    elif re.search(r"\bthan\b", between) and YES_NO.match(r.low):
        f.target, f.agg, f.agg_label, f.compare = a.label, "count", counted, ("count", ">" if more else "<")
    else:
        return
    f.target_prop, f.group_prop, f.having = None, None, None
    r.used.append(m.span(1))


def _label_group(r: Reading) -> tuple[str, str] | None:
    """Returns (label, property) for "<label word> in each <property word>" ("customers in each country"),
    a label of the question other than the target holding that property, and marks those words read; else
    None."""
    if len(re.findall(r"\b(?:each|every|per)\b", r.low)) > 1:
        return None  # "the average quantity of each product ordered by customers in each country": two groupings
    for m in re.finditer(r"\b([a-z]+)\s+(?:in|from|of|by)\s+each\s+(?:distinct\s+|different\s+)?[`'\"]?([a-z]+)",
                         r.low):
        label = next((lb for s, lb in r.labels_at if s == m.start(1)), None)
        props = [p for p in r.view.nodes.get(label or "", {}) if m.group(2) in (p.lower(), *name_words(p))]
        if label and label != r.frame.target and len(props) == 1:
            r.used.append(m.span(2))
            return label, props[0]
    return None
