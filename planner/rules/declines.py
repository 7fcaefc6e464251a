"""The last rules: shapes the generator has no form for are marked unexplained, so the plan is declined."""

from __future__ import annotations

import re

from kgqa.planner.frame import RANGE_OPS, AggregateOf
from kgqa.planner.lexicon import NUMBER, is_time_like
from kgqa.planner.rules.state import Reading, alternatives, consumed
from kgqa.planner.rules.words import NEGATION

UNIVERSAL = re.compile(r"\b(?:every|all|each)\s+(?:of\s+the\s+)?[a-z]+\s+(?:they|he|she|it|we|you|that\s+they)\b")


def unsupported(r: Reading) -> None:
    """Shapes the generator has no form for make the plan unexplained, so the question is declined instead of
    answered as another: "returned every book they borrowed" (all of a relationship), "two different books by
    the same author" (a count within one row), a comparison with an average that no condition or count reads.
    "The top 5 X" with nothing to rank by is marked unranked: answered only when no more than 5 match."""
    f = r.frame
    if re.search(r"\b(?:two|three|several)\s+different\s+[a-z]+\s+(?:by|of|from|in)\s+the\s+same\b", r.low):
        # "two different books by the same author"
        f.notes.append("unexplained: a count of different nodes within one row")
    if f.agg and f.having is None and f.target != f.agg_label and any(c.label == f.agg_label for c in f.conds) and re.search(
            r"\b(?:at least one|some|any)\b", r.low):
        # "the number of products they supply for suppliers who supply at least one discontinued product": the
        # condition picks the groups, not what is counted in them
        f.notes.append("unexplained: a condition on some of the nodes counted")
    if UNIVERSAL.search(r.low):
        f.notes.append(f"unexplained: {UNIVERSAL.search(r.low).group(0)}")
    if f.limit and not f.order and not f.agg and re.search(r"\btop\s+(?:\d+|[a-z]+)\b", r.masked):
        # "the top 5 suppliers located in the UK": no measure to rank by, so an answer only when all that
        # match fit in the number (the pipeline checks the rows)
        f.unranked = True
    anchored = {a.label for a in f.anchors if a.prop == r.view.display(a.label)}
    if f.agg == "count" and f.order == "agg" and f.agg_label in anchored and f.agg_label != f.target:
        f.notes.append(f"unexplained: a ranking by the named {f.agg_label}")  # each counts it once
    for lo in f.conds:
        for hi in f.conds:
            if ((lo.label, lo.prop, lo.rel) == (hi.label, hi.prop, hi.rel) and lo.op in (">", ">=")
                    and hi.op in ("<", "<=") and isinstance(lo.value, (int, float))
                    and isinstance(hi.value, (int, float)) and lo.value >= hi.value):
                # "a product priced above 50 and also one below 10": two products, not one
                f.notes.append(f"unexplained: {lo.prop} above {lo.value} and below {hi.value} at once")
    common = re.search(r"\b(?:most|least)\s+(?:common|frequent|popular|used)\s+(words?|letters?|characters?)\b", r.low)
    if common:
        f.notes.append(f"unexplained: {common.group(0)}")  # "the most common word in film titles"
    for m in re.finditer(r"\b(higher|lower|greater|smaller|larger|bigger|better|worse|more|fewer|less|older|younger|"
                         r"earlier|later|longer|shorter)\b", r.low):
        if (consumed(r, m.start()) or f.compare or f.having or f.order or alternatives(f) or f.age_cond
                or r.low[m.end():m.end() + 40].find("than") >= 0):
            continue
        if any(c.op in RANGE_OPS and not isinstance(c.value, AggregateOf) for c in f.conds):
            continue
        # "directed a film with a higher rating": higher than what is unsaid
        f.notes.append(f"unexplained: {m.group(1)} than what")
        break
    sup = re.search(r"(?<!at )\b(most|least|highest|lowest|largest|smallest|biggest|greatest|fewest)\b", r.masked)
    if (sup and not (f.order or f.agg or f.having or f.compare or alternatives(f) or f.age_cond)
            and not consumed(r, sup.start())):
        f.notes.append(f"unexplained: the {sup.group(1)}, ranking nothing")  # "which ship countries have the most orders"
    than = [a for a in f.anchors if re.search(r"\bthan\s+(?:the\s+)?$", r.question[max(0, a.start - 12):a.start].lower())]
    if than and not f.compare and not alternatives(f):
        # "actors with a higher average film rating than Tom Hanks": against that entity's figure
        f.notes.append(f"unexplained: a comparison with {than[0].text}")
    when = re.search(r"\bthe\s+(year|month|day|decade|week)\s+(?:when|in which|with|that had|that has)\b", r.low)
    if when:
        f.notes.append(f"unexplained: the {when.group(1)} when")  # "orders placed in the year when the most ..."
    if (f.order and f.order != "agg" and not f.order_fn and r.view.prop_type(f.order_label or f.target or "", f.order)
            == "STRING" and not is_time_like(f.order) and not r.listing):
        # "the product with the highest quantity per unit": text has no highest
        f.notes.append(f"unexplained: an order on the text {f.order}")
    only = re.search(r"\b(?:supply|supplies|sell|sells|have|has|contain|contains|include|includes|with)\s+only\s+"
                     r"(?:[a-z]+\s+){0,2}?(?:that|which|who|with)\b", r.low)
    if only:
        f.notes.append("unexplained: only")  # "suppliers that supply only products that ...": all of them
    every = re.search(r"\b(?:in|during|for|from|by)\s+(?:all|every|each)\s+(?:the\s+)?([a-z]+)\b", r.low)
    if every and r.lex.entries.get(every.group(1)) not in r.view.nodes and f.agg is None:
        f.notes.append(f"unexplained: {every.group(0)}")  # "ordered in all years": every one of them
    words = re.search(rf"\b(?:{NUMBER}|single|multiple)\s+words?\b", r.low)
    if words:
        f.notes.append(f"unexplained: {words.group(0)}")  # "a title containing only one word": a word count
    for m in re.finditer(r"\b(?:greater|more|less|fewer|higher|lower|larger|smaller)\s+than\s+['\"]([^'\"]+)['\"]",
                         r.low):
        if re.search(r"[a-z]", m.group(1)):
            # "a quantity per unit greater than '10 boxes'": words do not order as numbers or dates do
            f.notes.append(f"unexplained: an order on the text {m.group(1)!r}")
    if re.search(r"\bthan\s+(?:the|an?)\s+(?:average|mean)\b", r.low) and not any(
            isinstance(c.value, AggregateOf) for c in f.conds) and not (f.having and isinstance(f.having[1], AggregateOf)):
        f.notes.append("unexplained: a comparison with an average")


def negated_properties(r: Reading) -> None:
    """"did not have to share their prize": a negated property no condition reads is one the generator
    cannot say, so the plan does not explain the question."""
    f = r.frame
    for s, e, owner, prop in r.props_at:
        if (r.view.prop_type(owner, prop) != "BOOL" and NEGATION.search(r.low[max(0, s - 30):s])
                and not any(c.prop == prop for c in f.conds)):
            f.notes.append(f"unexplained: not {r.low[s:e]}")
