"""The rules that read conditions on numbers: derived measures, same values, comparisons, bounds."""

from __future__ import annotations

import re

from kgqa.planner.frame import AggregateOf, Cond, ValueOf
from kgqa.planner.lexicon import COMPARATORS, NUMBER, TIME_CUES, YEAR, is_time_like, number_value
from kgqa.planner.rules.aggregates import AGGREGATE_WORDS
from kgqa.planner.rules.state import PropAt, Reading, Span, consumed, rel_of, rels_between
from kgqa.planner.rules.words import CYCLE
from kgqa.planner.schema_view import SchemaView
from kgqa.text import name_words

SAME = re.compile(r"\bthe\s+same\s+((?:[a-z`'_]+\s+){0,2}?[`'\"]?[a-z_]+[`'\"]?)\s+(as|that|they|he|she|it|where|"
                  r"when|in\s+which)\b")
PARTS = re.compile(r"\b(?:(?:how\s+many|(?:the\s+)?(?:total\s+)?number\s+of)\s+(?:(?P<unit>words|characters|letters)\s+"
                   r"(?:are\s+)?(?:in|of)\s+)?|(?:the\s+)?(?P<length>length)\s+of\s+)(?:the\s+|their\s+|its\s+|each\s+)?")


def parts(r: Reading) -> None:
    """"the number of words in the taglines", "the length of the titles", "the number of roles" (a list): a
    function of one property (its words, its characters, its items) the frame may use as a numeric property."""
    for m in PARTS.finditer(r.low):
        if consumed(r, m.start()):
            continue
        after = sorted(p for p in r.props_at if p[0] >= m.end())
        if not after or not re.fullmatch(r"(?:[a-z]+\s+)?", r.low[m.end():after[0][0]]):
            continue  # "the number of words in movie taglines": a label word may come between
        s, e, owner, prop = after[0]
        typ = r.view.prop_type(owner, prop) or ""
        if m.group("unit") == "words" and typ == "STRING":
            words, expr = ["words", "in", *name_words(prop)], f"size(string_split({prop}, ' '))"
        elif (m.group("unit") or m.group("length")) and typ == "STRING":
            words, expr = ["length", "of", *name_words(prop)], f"size({prop})"
        elif not (m.group("unit") or m.group("length")) and typ.endswith("[]"):
            words, expr = ["number", "of", *name_words(prop)], f"size({prop})"
        else:
            continue
        _define(r, owner, words, expr, (m.start(), e), after[:1])  # wordsInTagline


DIFFERENCE = re.compile(r"\b(?:(?P<days>(?:how\s+many\s+|(?:the\s+)?(?:total\s+)?number\s+of\s+)?days?)\s+(?:between|from)"
                        r"|(?:the\s+)?difference\s+between)\s+")
_BEFORE_PROP = re.compile(r"(?:the|its|their|his|her)?[\s`'\"]*")
_BETWEEN_PROPS = re.compile(r"[\s`'\"]*(?:and|to)\s+(?:the|its|their|his|her)?[\s`'\"]*")


def differences(r: Reading) -> None:
    """"the number of days between the order date and the shipped date", "the difference between its units in
    stock and its reorder level": two properties of one owner combined into one number the frame may use as any
    numeric property (aggregated, ordered, asked for): the days from the first date named to the second ("days
    between A and B": B - A), or the first number minus the second ("the difference between A and B": A - B)."""
    f = r.frame
    for m in DIFFERENCE.finditer(r.low):
        after = sorted(p for p in r.props_at if p[0] >= m.end())
        if len(after) < 2 or not _BEFORE_PROP.fullmatch(r.low[m.end():after[0][0]]) \
                or not _BETWEEN_PROPS.fullmatch(r.low[after[0][1]:after[1][0]]):
            continue
        (s1, e1, o1, p1), (s2, e2, o2, p2) = after[:2]
        owner = o1 if o1 == o2 else next((o for o in (f.target, o1, o2) if o and p1 in r.view.nodes.get(o, {})
                                          and p2 in r.view.nodes.get(o, {})), None)
        if owner is None or p1 == p2:
            continue
        dates = r.view.is_date(owner, p1) and r.view.is_date(owner, p2)
        if not dates and not (r.view.is_number(owner, p1) and r.view.is_number(owner, p2)):
            continue
        if m.group("days") and not dates:
            continue
        first, second = (p2, p1) if m.group("days") else (p1, p2)
        words = (["days", "from", *name_words(second), "to", *name_words(first)] if m.group("days")
                 else [*name_words(first), "minus", *name_words(second)])
        _define(r, owner, words, f"{first} - {second}", (m.start(), e2), after[:2])  # daysFromOrderDateToShippedDate


def _define(r: Reading, owner: str, words: list[str], expr: str, span: Span, replaced: list[PropAt]) -> None:
    """Defines ``owner``'s number ``expr`` the question names over ``span`` (named by ``words`` in camel case):
    in the frame, in the reading's view, and as the one property word of that span in place of ``replaced``."""
    key = (owner, words[0] + "".join(w.title() for w in words[1:]))
    r.frame.derived[key] = expr
    r.view = r.view.with_measures({key: expr})
    r.props_at = sorted([p for p in r.props_at if p not in replaced] + [(*span, *key)])
    r.used.append(span)


SAME_TIME = frozenset({"year", "date", "day"})  # "the same year": the time property a verb of the question names


def same_values(r: Reading) -> None:
    """"films released in the same year as The Matrix", "products with the same supplierID as Chang": the
    target's property equals the named entity's (another node: the entity itself is left out); "the same
    supplier as Chai": joined through that label (the relationship between it and the entity's label);
    "acted in films released in the same year they were born", "shipped to the same city they are based in":
    properties of two labels of the row, equal. A time word names the property its verb does ("born",
    "released"). Not read (the plan stays unexplained): "the same decade", and words no one property answers."""
    f, view = r.frame, r.view
    for m in SAME.finditer(r.low):
        ws, we = m.span(1)
        word = re.sub(r"[`'\"]", "", m.group(1).split()[-1])
        after = r.low[m.end(2):]
        # "as 'Chai'", "as the supplier 'Exotic Liquids'": the entity right after "as"
        anchor = next((a for a in f.anchors if m.group(2) == "as"
                       and re.fullmatch(r"\s*(?:the\s+)?(?:[a-z]+\s+){0,2}?[`'\"]?", r.low[m.end(2):a.start])), None)
        props = [(o, p) for s, e, o, p in r.props_at if ws <= s < we]
        labels = [lb for s, lb in r.labels_at if ws <= s < we]
        if anchor is not None and labels and not props:
            # "the same supplier as 'Chai'": the label between them, along its one relationship to the entity
            rels = rels_between(view, labels[-1], anchor.label)
            if labels[-1] != anchor.label and f.target == anchor.label and len(rels) == 1:
                if rels[0] not in f.rel_hints:
                    f.rel_hints.append(rels[0])
                f.rel_at.append((ws, rels[0]))
                r.used.append((m.start(), ws))
            continue
        if anchor is not None:
            # the row's node compared: the label named last before "the same" ("orders of customers located
            # in the same city as X"), else the target
            owner = anchor.label
            before = [lb for s, lb in r.labels_at if s < m.start() and not any(a <= s < b for a, b in r.blocked)]
            subject = before[-1] if before else f.target
            own = _same_prop(r, owner, word, props, m.start())
            mine = own if subject == owner else _same_prop(r, subject or "", word, props, m.start())
            if own is None or mine is None or subject is None:
                continue
            f.conds.append(Cond(subject, mine, "=", ValueOf(owner, own, anchor)))
            f.anchors = [a for a in f.anchors if a is not anchor]
            r.used.append((m.start(), anchor.end))
        elif m.group(2) != "as" or re.match(r"\s+(?:they|them|their|he|him|she|her|it)\b", after):
            # two labels of the row, each with one property the word names
            labels_in = [lb for lb in dict.fromkeys([f.target, *f.labels_mentioned]) if lb]
            found = [(lb, _same_prop(r, lb, word, props, len(r.low), after=after)) for lb in labels_in]
            found = [(lb, p) for lb, p in found if p]
            if len(found) != 2:
                continue
            (la, pa), (lb, pb) = found
            f.conds.append(Cond(la, pa, "=", ValueOf(lb, pb)))
            r.used.append(m.span())
        else:
            continue
        # "shipped to the same city": the verb's property word before it is the one compared
        r.used += [(s, e) for s, e, o, p in r.props_at if 0 <= m.start() - e <= 2]
        f.cycle = any(not any(a <= c.start() < b for a, b in r.used) for c in CYCLE.finditer(r.low)) and f.cycle


def _same_prop(r: Reading, label: str, word: str, props: list[tuple[str, str]], before: int, *,
               after: str = "") -> str | None:
    """Returns the property of ``label`` that "the same <word>" names: the property word itself where the label
    has it, else the one property whose name holds the word ("city": ``shipCity``); for a time word, the
    label's time property that a verb of the question names ("born", "released"; before ``before`` or in
    ``after``), else its only one; None when not exactly one."""
    props_of = r.view.nodes.get(label, {})
    named = [p for _o, p in props if p in props_of]
    if named:
        return named[0]
    if word in SAME_TIME:
        timed = [p for p in props_of if is_time_like(p)]
        cues = {w for c in re.findall(r"[a-z]+", r.low[:before] + " " + after) for w in TIME_CUES.get(c, ())}
        cued = [p for p in timed if cues & set(name_words(p))]
        pick = cued or (timed if len(timed) == 1 else [])
        return pick[0] if len(pick) == 1 else None
    holding = [p for p in props_of if word in name_words(p) or word == p.lower()]
    return holding[0] if len(holding) == 1 else None


PROPERTY_COMPARISON = re.compile(
    r"\b(?:(earlier|later|sooner|more|less|fewer|greater|higher|lower|larger|smaller|bigger)\s+(?:[a-z`'_]+\s+){0,4}?"
    r"than|(before|after|above|below|under|over|exceeding|exceeds?))\s+(?:the\s+|its\s+|their\s+|his\s+|her\s+)")
# comparison words that mean "greater than" (the others mean "less than")
ABOVE_WORDS = frozenset({"later", "more", "greater", "higher", "larger", "bigger", "after", "above", "over", "exceeding",
                         "exceed", "exceeds"})


def property_comparisons(r: Reading) -> None:
    """"orders shipped later than their required date", "products with fewer units in stock than their
    reorder level": two properties of one node compared, both numbers or both dates (a property named
    right after the comparison, against the one of the same node named before it)."""
    f, view = r.frame, r.view
    for m in PROPERTY_COMPARISON.finditer(r.low):
        if consumed(r, m.start()):
            continue
        right = next(((s, e, o, p) for s, e, o, p in r.props_at if m.end() <= s <= m.end() + 1), None)
        if right is None:
            continue
        kind = _comparable(view, right[2], right[3])
        left = [(s, e, o, p) for s, e, o, p in r.props_at if e <= right[0] and o == right[2] and p != right[3]
                and _comparable(view, o, p) == kind and s >= m.start() - 60]
        if kind is None or not left:
            continue
        owner, prop = left[-1][2], left[-1][3]
        op = ">" if (m.group(1) or m.group(2)) in ABOVE_WORDS else "<"
        f.conds.append(Cond(owner, prop, op, ValueOf(owner, right[3]), rel_of(r, owner)))
        r.used.append((m.start(), right[1]))


def _comparable(view: SchemaView, owner: str, prop: str) -> str | None:
    """"number" or "time" for a property two of which compare (a number, also as text, or a date), else None."""
    if view.is_number(owner, prop) or view.is_numeric_text(owner, prop):
        return "number"
    return "time" if is_time_like(prop) and view.prop_type(owner, prop) in ("STRING", "DATE", "TIMESTAMP") else None


AGGREGATE_COMPARISON = re.compile(
    r"\b(more than|greater than|higher than|larger than|above|over|exceeding|less than|lower than|smaller than|"
    r"below|under|earlier than|before|later than|after|(?:more|greater|higher|larger|less|lower|smaller|fewer)"
    r"\s+(?:[a-z`'_]+\s+){1,4}?than)\s+(?:the\s+|an?\s+)?(?:[a-z']+\s+){0,2}?(average|mean)\b")


CORRELATED = re.compile(r"\b(?:their|its|his|her|the same|that|this|each|per|own|respective|corresponding)\b")
CLAUSE_END = re.compile(r"\s+(?:and|but|or|while|whose)\b|[,;?.!]|$")


def aggregate_comparisons(r: Reading) -> None:
    """"products priced above the average price (of all products)": a property compared with its average over
    every node holding it; "born before the cast's average birth year", "economics prizes worth more than the
    average economics prize": over the rows the rest of the question matches (a possessive, or the same
    restriction on both sides); per node of the label the question correlates ("of products in their
    category", "the same order", "for that product"); over the nodes only its own phrase restricts ("of
    products in the 'Seafood' category": those values restrict the average, not the rows). An average
    restricted by a number ("of products supplied by supplier '1'"), in part by the row's own values, or per
    value ("in the same country") has no form: the plan is unexplained."""
    f = r.frame
    for m in AGGREGATE_COMPARISON.finditer(r.low):
        after = [(o, p) for s, e, o, p in r.props_at if s >= m.end(2)]
        before = [(o, p) for s, e, o, p in r.props_at if e <= m.start()]
        hit = (after or before[-1:] or [None])[0]
        if hit is None or not (r.view.prop_type(*hit) or "").startswith(("INT", "DOUBLE", "FLOAT", "DECIMAL")):
            continue
        owner, prop = hit
        scope_end = m.end() + CLAUSE_END.search(r.low, m.end()).start() - m.end()
        scope = r.low[m.end():scope_end]
        # restrictions in the average's own phrase: linked values, and words that name one ("economics")
        own = [x for x in r.mentions if m.end() <= x.start < scope_end]
        own_words = [t for s, e, _, t in r.terms if m.end() <= s < scope_end and "=" in t]
        inside = [(x.label, x.prop, str(x.value)) for x in own] + own_words
        op = ">" if m.group(1).split()[0] in ABOVE_WORDS else "<"
        outside = {(x.label, x.prop, str(x.value)) for x in r.mentions if x.end <= m.start()}
        outside |= {t for s, e, _, t in r.terms if e <= m.start() and "=" in t}
        if re.search(rf"\b{NUMBER}\b", scope):
            f.notes.append("unexplained: an average over rows restricted by a number")
            continue
        if any(x not in outside for x in inside):
            # "above the average unit price of products in the 'Seafood' category": over the nodes its own
            # phrase names, not over the rows (the values restrict the average only)
            if any(x in outside for x in inside) or CORRELATED.search(scope):
                f.notes.append("unexplained: an average over rows its own phrase restricts in part")
                continue
            if not all(x.label for x in own):
                f.notes.append("unexplained: an average restricted by a value no node holds")
                continue
            f.anchors = [a for a in f.anchors if a not in own]
            words = [Cond(o, p, "=", val) for t in own_words
                     for o, _, rest in [t.partition(".")] for p, _, val in [rest.partition("=")]]
            f.conds = [c for c in f.conds if c not in words]
            # "of products supplied by X": the relationship joins the average's nodes, not the row's
            said = [rel for s, rel in f.rel_at if m.end() <= s < scope_end]
            f.rel_at = [(s, rel) for s, rel in f.rel_at if not m.end() <= s < scope_end]
            f.rel_hints = [rel for rel in f.rel_hints if rel not in said or rel in {x for _, x in f.rel_at}]
            where = tuple((x.label, x.prop, x.value) for x in own) + tuple((c.label, c.prop, c.value) for c in words)
            f.conds.append(Cond(owner, prop, op, AggregateOf("avg", "own", where=where), rel_of(r, owner)))
            r.used.append((m.start(), scope_end))
            continue
        per = CORRELATED.search(scope)
        if per:
            # "above the average unit price of products in their category": per category, the row's own
            word = re.match(r"\s*([a-z]+)", scope[per.end():])
            group = r.lex.entries.get(word.group(1)) if word else None
            if group not in r.view.nodes or group == owner:
                f.notes.append("unexplained: an average per group")
                continue
            f.conds.append(Cond(owner, prop, op, AggregateOf("avg", "group", group), rel_of(r, owner)))
            r.used.append((m.start(), scope_end))
            continue
        rows = bool(inside) or re.search(r"(?:'s|s')\s+(?:[a-z]+\s+){0,2}$", r.low[:m.start(2)])
        f.conds.append(Cond(owner, prop, op, AggregateOf("avg", "rows" if rows else "all"), rel_of(r, owner)))
        r.used.append((m.start(), scope_end))


def comparisons(r: Reading) -> None:
    """Numbers attached to properties ("more than 20 units") or to counted labels ("more than 3 films":
    a HAVING on a count); ranges ("between 10 and 20"); "zero units in stock"."""
    f, low = r.frame, r.low
    for m in re.finditer(rf"between\s+({NUMBER})\s+and\s+({NUMBER})", low):
        if re.fullmatch(YEAR, m.group(1)) and re.fullmatch(YEAR, m.group(2)):
            continue  # a span of years: the years rule (date strings compare as text)
        owner, prop = _closest_numeric_prop(r, m.start(), m.end(), strings=False) or (None, None)
        if owner:
            f.conds.append(Cond(owner, prop, ">=", number_value(m.group(1)), rel_of(r, owner)))
            f.conds.append(Cond(owner, prop, "<=", number_value(m.group(2)), rel_of(r, owner)))
            r.used.append((m.start(), m.end()))
    # "a minimum unitsInStock of 50": a bound on the property named between
    for m in re.finditer(rf"\b(minimum|maximum)\s+([a-z][\w ]{{0,40}}?)\s+of\s+({NUMBER})\b", low):
        prop = next(((o, p) for s, e, o, p in r.props_at if (s, e) == m.span(2)), None)
        if prop and (r.view.prop_type(*prop) or "").startswith(("INT", "DOUBLE", "FLOAT")):
            op = ">=" if m.group(1) == "minimum" else "<="
            f.conds.append(Cond(prop[0], prop[1], op, number_value(m.group(3)), rel_of(r, prop[0])))
            r.used.append(m.span())
    # "65 or higher", "100 or more": a bound written after the number
    for m in re.finditer(rf"\b({NUMBER})\s+or\s+(higher|more|above|greater|over|lower|less|fewer|below|under)\b",
                         low):
        if any(a <= m.start() < b for a, b in r.used + r.blocked):
            continue
        hit = _closest_numeric_prop(r, m.start(), m.end(), strings=False)
        if hit:
            op = ">=" if m.group(2) in ("higher", "more", "above", "greater", "over") else "<="
            f.conds.append(Cond(hit[0], hit[1], op, number_value(m.group(1)), rel_of(r, hit[0])))
            r.used.append(m.span())
    for pattern, op in COMPARATORS:
        for m in re.finditer(rf"\b{pattern}\s+({NUMBER})\b", low):
            if any(a <= m.start() < b for a, b in r.used) or any(a <= m.start() < b for a, b in r.blocked):
                continue
            if op == "=" and not re.match(r"(?:of|is|=|equal to|equals|exactly)\s", m.group(0)):
                continue
            value = number_value(m.group(m.lastindex))
            counted = _counted_label(r, low[m.end():m.end() + 40])
            such = re.match(r"\s+([a-z]+\s+){1,2}?([a-z]+)\b", low[m.end():])
            if (op, value) in ((">=", 1), (">", 0)) and such and _counted_label(r, such.group(2)):
                # "at least one discontinued product": the condition on that node joins one, no count
                r.used.append((m.start(), m.end()))
                continue
            if counted and (op != "=" or re.match(r"(?:exactly|only|just)\b", m.group(0))):
                f.agg, f.agg_label, f.having = "count", counted, (op, value)
                r.used.append((m.start(), m.end()))
                continue
            hit = _closest_numeric_prop(r, m.start(), m.end(), strings=op == "=")
            if hit:
                owner, prop = hit
                agg = _aggregated(r, owner, prop, m.start())
                if agg and op != "=" and not f.agg:
                    # "categories with an average product price greater than 20": a bound on each target's
                    # aggregate, not on every value; "customers who placed orders with a total value over
                    # 1000": on each order's
                    f.agg, f.agg_label, f.agg_prop, f.having = agg, owner, prop, (op, value)
                    start = max(ps for ps, pe, o, p in r.props_at if (o, p) == (owner, prop) and pe <= m.start())
                    per = [(s, lb) for s, lb in r.labels_at if s < start and re.fullmatch(
                        r"[a-z]+\s+(?:that\s+have|which\s+have|with|having|whose)\s+(?:an?\s+|the\s+)?(?:[a-z]+\s+)?",
                        r.low[s:start])]
                    if per and per[-1][1] != f.target and per[-1][1] in r.view.nodes:
                        f.having_per = per[-1][1]
                elif agg and op == "=":
                    # "products with a total discount of 0": the total of what, over which rows, is unsaid
                    f.notes.append(f"unexplained: a {m.group(0)} total")
                else:
                    f.conds.append(Cond(owner, prop, op, value, rel_of(r, owner)))
                r.used.append((m.start(), m.end()))
    # "customers who have only placed a single order": a count of exactly one
    single = re.search(r"\b(?:only|just|exactly)\s+(?:[a-z]+\s+)?(?:a\s+single|one)\s+", low)
    if single and not f.having:
        counted = _counted_label(r, low[single.end():single.end() + 40])
        if counted:
            f.agg, f.agg_label, f.having = "count", counted, ("=", 1)
            r.used.append(single.span())
    # "zero units in stock", "with 0 units on order"
    for m in re.finditer(r"\b(zero|no|0)\s+(units in stock|units on order|reorder level|stock)", low):
        hit = _closest_numeric_prop(r, m.end(1), m.end())
        if hit and not any(c.prop == hit[1] for c in f.conds):
            f.conds.append(Cond(hit[0], hit[1], "=", 0, rel_of(r, hit[0])))


def _counted_label(r: Reading, after: str) -> str | None:
    m = re.match(r"\s*(?:different|distinct|unique|separate)?\s*([a-z]+)", after)
    if not m:
        return None
    found = r.lex.entries.get(m.group(1))
    if found and "." not in found and not found.startswith("rel:"):
        return found
    return None


def _aggregated(r: Reading, owner: str, prop: str, before: int) -> str | None:
    """Returns the aggregate ("sum", "avg") a word names right before the mention of ``owner.prop`` nearest
    ahead of ``before`` ("a total quantity", "an average product price"), or that begins the words naming it
    ("a total value" naming a measure), else None."""
    starts = [ps for ps, pe, o, p in r.props_at if (o, p) == (owner, prop) and pe <= before]
    if not starts:
        return None
    m = re.search(r"\b(total|average|mean|sum(?=\s+of))(?:\s+of)?\s+(?:[a-z]+\s+){0,2}$",
                  r.low[max(0, starts[-1] - 40):starts[-1]]) or re.match(r"(total|average|mean)\s", r.low[starts[-1]:])
    return None if m is None else AGGREGATE_WORDS[m.group(1)]


def _closest_numeric_prop(r: Reading, s: int, e: int, *, strings: bool = True) -> tuple[str, str] | None:
    """Returns the (owner, property) of the numeric property named nearest the span (a string property only
    with ``strings``, for an equality: text does not order as numbers do), or None beyond 40 characters."""
    best = None
    for ps, pe, owner, prop in r.props_at:
        typ = r.view.prop_type(owner, prop)
        if typ not in ("INT64", "DOUBLE", "INT32", "FLOAT", "STRING") or (typ == "STRING" and not strings):
            continue
        dist = max(0, s - pe if pe <= s else ps - e)
        penalty = 0 if typ != "STRING" else 15
        if best is None or dist + penalty < best[0]:
            best = (dist + penalty, (owner, prop))
    if best and best[0] <= 40:
        return best[1]
    return None
