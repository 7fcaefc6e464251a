"""The rules that read what is asked: a time, properties shown, an edge's property, two entities compared, links."""

from __future__ import annotations

import re

from kgqa.planner.lexicon import TIME_CUES, YES_NO, is_birth, is_date_like, is_time_like, is_year_like
from kgqa.planner.rules.state import Reading, timed
from kgqa.text import name_words

TIME_CUE_STEMS = {w[:4] for w in TIME_CUES}


WHEN = re.compile(r"\s*(?:when\b|(?:in\s+)?(?:what|which)\s+years?\b)")


def asked_time(r: Reading, *labels: str) -> bool:
    """"When did Frederick Sanger die?", "In what year was Things Fall Apart published?": the time property
    of ``label`` the question's verb names (a date before a year), or a time property of the relationship the
    question names ("When did X borrow Y?"); returns whether one was found."""
    f = r.frame
    if not WHEN.match(r.low):
        return False
    cues = {w for m in re.finditer(r"[a-z]+", r.low) for w in TIME_CUES.get(m.group(), ())}
    props = [(i, lb, p) for i, lb in enumerate(labels) for p in r.view.nodes.get(lb, {}) if is_time_like(p)]
    # a date before a year, unless the question asks for the year ("In what year did X win?")
    finer = is_year_like if re.search(r"\byears?\b", r.low) else is_date_like
    props.sort(key=lambda x: (not cues & set(name_words(x[2])), x[0], not finer(x[2])))
    props = [(lb, p) for _, lb, p in props]
    timed_rels = [(rel, p) for rel in f.rel_hints for p in r.view.rel_props.get(rel, {}) if is_time_like(p)]
    if timed_rels and len(f.anchors) > 1 and not (props and cues & set(name_words(props[0][1]))):
        f.rel_prop = timed_rels[0]  # "When did Chiara Rossi borrow Invisible Cities?": the loan's date
        return True
    if not props:
        return False
    f.target, f.target_prop = props[0]
    if cues & set(name_words(props[0][1])):  # "born" says when, not where; "published" when, not by whom
        said = {rel for s, rel in f.rel_at if r.low[s:s + 4] in TIME_CUE_STEMS}
        f.rel_hints = [rel for rel in f.rel_hints if rel not in said]
    return True


ASKED_LEAD = re.compile(r"\s*(?:what|which|list|show|give|find|return|display|get)\b(?:\s+(?:me|us|is|are|was|were|"
                        r"the|all|a|an|and|their|its|names?\s+and))*[\s`'\"]*$")


def shown_properties(r: Reading) -> list[str]:
    """Returns the target's properties the question asks to see, named before the target's word ("What is
    the shipCity of the order with the highest freight?", "List the orderID and shipName of ...") or in a
    "(show X and Y)" aside; none a condition, order or aggregate already reads."""
    f = r.frame
    first = next((s for s, lb in r.labels_at if lb == f.target), None)
    used = {c.prop for c in f.conds} | {f.order, f.agg_prop, r.view.display(f.target or "")}
    out: list[str] = []
    last = 0  # where the previous shown property's word ended
    for s, e, owner, prop in r.props_at:
        if owner != f.target and prop not in r.view.nodes.get(f.target or "", {}):
            continue  # "the `supplierID` of suppliers": a name other labels hold too is the target's own
        lead = (first is None or e <= first) and bool(ASKED_LEAD.match(r.low[:s]) or (
            last and re.fullmatch(r"[\s`'\",]*(?:and|,)?[\s`'\"]*", r.low[last:s])))
        aside = re.search(r"\(\s*(?:(?:show|showing|display|with|including|return)\b[^)]*|[`'\"]?)$", r.low[:s])
        if lead or aside:
            last = e  # "the orderID and shipName of": the display property leads the list too
            if prop not in used and prop not in out:
                out.append(prop)
    return out


def asked_property(r: Reading) -> None:
    """'When was The Matrix released?' asks a property of the anchor, not a list of nodes. Properties of the
    target asked to be shown (:func:`shown_properties`) are returned beside it."""
    f = r.frame
    if f.target and not f.target_prop:
        f.shown_props = list(dict.fromkeys(shown_properties(r) + f.shown_props))
    if f.order and f.order != "agg" and f.limit == 1 and not f.agg and not f.anchors and f.target:
        # "In which year was the prize worth the most?": the year of the top group, not its nodes
        asked_time(r, f.target)
    if f.agg or f.order or not f.anchors:
        return
    anchor = f.anchors[0]
    if f.target not in (None, anchor.label):
        # "In which years were X's books published?"; "In what year was X published?" (not its publisher)
        named = f.target in f.labels_mentioned
        if WHEN.match(r.low) and asked_time(r, *((f.target, anchor.label) if named else (anchor.label, f.target))):
            return
        # "the page counts of the books Toni Morrison wrote": a property of the target, named before it
        first = next((s for s, lb in r.labels_at if lb == f.target), None)
        used = {(c.label, c.prop) for c in f.conds}
        asked = [(o, p) for s, e, o, p in r.props_at if first is not None and e <= first and o == f.target
                 and (o, p) not in used and p != r.view.display(o)]
        if asked:
            f.target_prop = asked[0][1]
        return
    for _s, _e, owner, prop in r.props_at:
        if owner == anchor.label and prop != anchor.prop:
            f.target, f.target_prop = anchor.label, prop
            return
    asked_time(r, anchor.label)


def relationship_property(r: Reading) -> None:
    """"What rating did James Thompson give The Replacements?", "What roles did the actors in Top Gun play?":
    a property of a relationship, asked for (no condition or aggregate uses it); its relationship is joined."""
    f, view = r.frame, r.view
    if f.agg or f.target_prop:
        return
    named = [(o, p) for _s, _e, o, p in r.props_at if o in view.rel_props and o not in view.nodes]
    for owner, prop in dict.fromkeys(named):
        if named.count((owner, prop)) > 1 and any(c.rel == owner and c.prop == prop for c in f.conds):
            # "Which reviews rated a film above 80? Give the film and the rating.": a condition's values,
            # asked for as well
            f.rel_prop = (owner, prop)
            return
    used = {(c.rel, c.prop) for c in f.conds}
    for _s, _e, owner, prop in r.props_at:
        if owner in view.rel_props and owner not in view.nodes and (owner, prop) not in used:
            f.rel_prop = (owner, prop)
            if owner not in f.rel_hints:
                f.rel_hints.append(owner)
            ends = [lb for pair in view.rels.get(owner, []) for lb in pair]
            if f.target not in ends and ends:
                f.target = next((m.label for m in f.anchors if m.label in ends), ends[0])
            if not f.anchors and not any(c.rel == owner for c in f.conds) and not f.order:
                # "all films released after 2000 and their ratings": a list of nodes, some without such an
                # edge; joining it would drop them, and no form keeps them
                f.notes.append(f"unexplained: the {prop} of each, where some have none")
            return


# comparative -> (op of the first value against the second, kind): "birth" reads the birth property (an
# earlier birth is older), "time" a time property, "number" a numeric one
_COMPARATIVES = {"older": ("<", "birth"), "younger": (">", "birth"), "before": ("<", "time"),
                 "after": (">", "time"), "earlier": ("<", "time"), "later": (">", "time"),
                 "more": (">", "number"), "higher": (">", "number"), "larger": (">", "number"),
                 "greater": (">", "number"), "bigger": (">", "number"), "less": ("<", "number"),
                 "lower": ("<", "number"), "smaller": ("<", "number"), "cheaper": ("<", "number")}


def entity_comparison(r: Reading) -> None:
    """"Was The Matrix released before Cast Away?", "Is Hugo Weaving younger than Laurence Fishburne?": a
    yes/no question comparing one property of two named entities of one label. The property is the one the
    question names, else the label's birth or single time property the comparative implies."""
    f = r.frame
    difference = re.match(r"\s*how many years\b", r.low)  # "How many years older is X than Y?"
    if not (YES_NO.match(r.low) or difference) \
            or len(f.anchors) != 2:
        return
    a, b = f.anchors
    if a.label != b.label or a.label != f.target:
        return
    if difference:
        between = r.low[:b.start]
        m = re.search(r"\b(older|younger|earlier|later)\b.*\bthan\s*$", between)
        if not m:
            return
        op, kind = _COMPARATIVES[m.group(1)]
        props = [p for p in r.view.nodes.get(a.label, {}) if (is_birth(p) if kind == "birth" else is_time_like(p))
                 and r.view.prop_type(a.label, p).startswith("INT")]
        if len(props) == 1:
            f.compare = (props[0], "-" + op)  # the difference in years, counted the way the comparative reads
            f.order, f.limit, f.target_prop, f.agg = None, None, None, None
            r.used.append((m.start(1), m.end(1)))
        return
    between = r.low[a.end:b.start]
    m = re.search(r"\b(" + "|".join(_COMPARATIVES) + r")\b(?:\s+than)?\s*$", between)
    if not m or (m.group(1) not in ("before", "after") and "than" not in m.group(0)):
        return
    op, kind = _COMPARATIVES[m.group(1)]
    props = r.view.nodes.get(a.label, {})
    named = [p for s, e, owner, p in r.props_at if owner == a.label and a.end <= s < b.start]
    if kind == "birth":
        named = [p for p in named if is_birth(p)] or [p for p in props if is_birth(p)]
    elif kind == "time":
        # the property the verb names ("released before"), when it holds numbers or dates, else the label's own
        named = [p for p in named if is_time_like(p) or (r.view.prop_type(a.label, p) or "").startswith(
            ("INT", "DATE", "TIMESTAMP"))] or timed(r.view, a.label)
    else:
        named = [p for p in named if (r.view.prop_type(a.label, p) or "").startswith(("INT", "DOUBLE", "FLOAT"))]
    named = list(dict.fromkeys(named))
    if len(named) > 1:  # a date and a year of one event ("birthDate", "birthYear"): the date is finer
        named = [p for p in named if is_date_like(p)] or named
    if len(named) != 1:
        return
    f.compare = (named[0], op)
    f.order, f.limit, f.target_prop, f.agg = None, None, None, None
    r.used.append((a.end + m.start(), a.end + m.end()))


def connections(r: Reading) -> None:
    """"In what ways is Tom Hanks connected to films?", "How is Marie Curie connected to the rest of the
    graph?": every relationship of the one named entity (to nodes of the label named, or to any), with the node
    at the other end."""
    f = r.frame
    m = re.search(r"\b(?:how|what ways?|which ways?)\b.*\b(?:connected|related|linked)\s+to\s+(?:the\s+rest\s+of\s+"
                  r"the\s+(?:graph|database|data)|(?:the\s+|other\s+)?([a-z]+))", r.low)
    if not m or len(f.anchors) != 1:
        return
    far = next((lb for s, lb in r.labels_at if m.group(1) and s == m.start(1)), None)
    if m.group(1) and far is None:
        return
    f.connections, f.target = far or "", f.anchors[0].label
    f.rel_hints, f.agg, f.order, f.limit, f.target_prop = [], None, None, None, None
    r.used += [(m.start(), m.end()), *[w.span() for w in re.finditer(r"\bways?\b", r.low)]]
