"""The rules that sort what the question names: schema words, negations, anchors, the target, labels joined."""

from __future__ import annotations

import re

from kgqa.planner.frame import Cond, Mention
from kgqa.planner.lexicon import GRAPH_NAME, TRAILING_NOUNS, verb_property
from kgqa.planner.rules.state import PropAt, Reading, head_label, rels_between


def schema_words(r: Reading) -> None:
    """Sorts the schema words: relationships (with an implied far-end label), value words, properties and
    labels; records the labels the question mentions."""
    f = r.frame
    for s, e, _phrase, target in r.terms:
        if target.startswith("rel:"):
            rel, _, implied = target[4:].partition(">")
            f.rel_hints.append(rel)
            f.rel_at.append((s, rel))
            if implied:
                r.labels_at.append((s, implied))
                f.role_rels.append((s, rel, implied))
                if (implied, implied) in r.view.rels.get(rel, []):
                    f.agent_rels.append(rel)  # "followers": those whose edge points at the node spoken of
        elif "=" in target:  # a word that names a value ("women" -> Laureate.gender = 'female')
            owner, _, rest = target.partition(".")
            prop, _, value = rest.partition("=")
            r.labels_at.append((s, owner))
            r.value_conds.append(Cond(owner, prop, "=", value))
        elif "." in target:
            owner, prop = target.split(".", 1)
            if _phrase in TRAILING_NOUNS and r.props_at and not r.low[r.props_at[-1][1]:s].strip(" `'\""):
                continue  # "the `freight` cost": the noun of the property word before it, no property itself
            r.props_at.append((s, e, owner, prop))
        elif not GRAPH_NAME.match(r.low, e):  # "the film graph": a name
            r.labels_at.append((s, target))
    f.labels_mentioned = [lb for _, lb in r.labels_at]


NEGATION = re.compile(r"\b(?:never|no|not|without|nobody|none|n't)(?:\s+[\w'-]+){0,2}\s*$")
CYCLE = re.compile(r"\b(?:same|also|both|themselves|himself|herself|itself|their own|his own|her own)\b")


def negations(r: Reading) -> None:
    """A relationship or label word right after "never", "no", "without", "not" ("people who never reviewed
    a movie", "laureates with no birth city") is negated: the generator asks that no such edge exists.
    "the same movie", "also", "themselves" close a cycle: relationships named on one node ("also" followed
    by "a movie" does not)."""
    f = r.frame
    for s, name in [(s, rel) for s, rel in f.rel_at] + r.labels_at:
        if name != f.target and NEGATION.search(r.low[max(0, s - 30):s]) and name not in f.negated:
            f.negated.append(name)
    f.rel_hints = [rel for rel in f.rel_hints if rel not in f.negated]
    # "never acted in a film": the far end of a negated relationship is negated with it
    ends = {lb for rel in f.negated for pair in r.view.rels.get(rel, []) for lb in pair} - {f.target}
    f.labels_mentioned = [lb for lb in f.labels_mentioned if lb not in f.negated and lb not in ends]
    # "people who have also acted in a film": "also" before an indefinite node is any such edge, no cycle
    f.cycle = any(not (m.group() == "also" and re.match(r"also\s+(?:[a-z]+\s+){1,3}?(?:a|an|any|some|another|other)\b",
                                                        r.low[m.start():]))
                  for m in CYCLE.finditer(r.low))


def anchors(r: Reading) -> None:
    """Linked values become anchors, each in the reading whose property the question names next to it, else
    whose label the question talks about (or a relationship it names touches)."""
    f, view = r.frame, r.view
    for m in r.mentions:
        if not m.label:
            continue
        options = [(m.label, m.prop, m.value)] + m.alternatives
        context = set(f.labels_mentioned)
        near = _nearby_prop(m, r.props_at, r.question)
        hinted = {lb for rel in f.rel_hints for pair in view.rels.get(rel, []) for lb in pair}
        if near:
            # "suppliers from the city 'London'": of the labels with that property, one the question names
            options.sort(key=lambda o: (o[1] != near[1], o[0] not in context, o[0] != near[0]))
        else:
            # of labels the question names, the one named nearest before the value ("customers from 'Berlin'")
            before = {lb: m.start - s for s, lb in r.labels_at if s < m.start}
            options.sort(key=lambda o: (o[0] not in context and o[1] not in view.spec.name_props.get(o[0], []),
                                        o[0] not in context, before.get(o[0], 10**6), o[0] not in hinted))
        m.label, m.prop, m.value = options[0]
        f.anchors.append(m)


def target(r: Reading) -> None:
    """What is asked: the first label word that is not part of an anchor; for "who", the domain's person
    label (or, when that label is no end of the relationship the question names, that relationship's far
    end from the anchor); failing both, the far end of a relationship the question names, or the anchor."""
    f, low = r.frame, r.low
    anchor_spans = [(m.start, m.end) for m in f.anchors]
    candidates = [(s, lb) for s, lb in r.labels_at if not any(a <= s < b for a, b in anchor_spans)]
    who = r.view.spec.who
    if re.match(r"\s*(who|whom|whose)\b", low):
        named = next((lb for s, lb in candidates if s < 25 and lb == who), None)
        ends = {lb for rel in f.rel_hints for pair in r.view.rels.get(rel, []) for lb in pair}
        # "Who borrowed Kindred?": the person label is no end of the relationship named, its far end is
        f.target = named or (_far_end(r) if f.anchors and ends and who not in ends else None) or who
    elif re.match(r"\s*where\b", low) and candidates and _place_of(r, head_label(r, *candidates[0])):
        # "Where were the winners of the 1962 Peace Prize born?": the place the last relationship named leads
        # to from the label asked about, shown beside each of them
        subject = head_label(r, *candidates[0])
        f.target, f.shown = _place_of(r, subject), [subject]
    elif candidates:
        f.target = candidates[0][1]
        # "product categories": of two label words in a row, the second is the head noun, the first joined
        f.target = head_label(r, *candidates[0])
    elif f.anchors:
        # "Where was Marie Curie born?": the far end of a relationship the question names
        f.target = _far_end(r) or f.anchors[0].label


def their_labels(r: Reading) -> None:
    """"List all films released before 1990 and their (respective) directors": another label shown beside
    each row (a role noun brings its relationship); "and their release years": a property of the target. A
    named entity "worked with" ("actors who worked with director Nancy Meyers") is joined through a node both
    touch, which the verb only says."""
    f = r.frame
    for m in re.finditer(r"\band\s+their\s+(respective\s+)?", r.low):
        label = next((lb for s, lb in r.labels_at if s == m.end()), None)
        prop = next(((o, p) for s, e, o, p in r.props_at if s == m.end() and o == f.target), None)
        if label and label != f.target and label not in f.shown:
            f.shown.append(label)
        elif prop and prop[1] not in f.shown_props:
            f.shown_props.append(prop[1])
        else:
            continue
        if m.group(1):
            r.used.append(m.span(1))
    if re.search(r"\band\s+(?:by\s+)?(?:whom|who)\b", r.low):
        # "Which book was borrowed most recently, and by whom?": the acting end of the verb's relationship
        acting = [src for rel in f.rel_hints for src, dst in r.view.rels.get(rel, []) if dst == f.target != src]
        who = acting[-1] if acting else r.view.spec.who
        if who and who in r.view.nodes and who != f.target:
            f.shown.append(who)
    for m in re.finditer(r"\bworked\s+(?:with|alongside)\s+(?:[a-z]+\s+)?", r.low):
        if any(a.start == m.end() and a.label == f.target for a in f.anchors):
            r.used.append((m.start(), m.start() + len("worked")))


def of_labels(r: Reading) -> None:
    """Labels named in "X of Y" ("the countries of the institutions of the 2020 laureates"): the generator
    joins them on the way even where no relationship word names them."""
    f = r.frame
    for s, lb in r.labels_at:
        word = re.match(r"[a-z]+", r.low[s:])
        e = s + (word.end() if word else 0)
        if re.search(r"\bof\s+(?:the\s+)?$", r.low[:s]) or re.match(r"\s+of\b", r.low[e:]):
            f.of_labels.append(lb)


def owners(r: Reading) -> None:
    """'supplier countries' is Supplier.country: a property belongs to the label named right before it,
    else to the target when the target has a property of that name."""
    r.props_at = [_reown(r, s, e, owner, prop) for s, e, owner, prop in r.props_at]


def value_words(r: Reading) -> None:
    """Words that name a value ("women") become their conditions."""
    r.frame.conds.extend(r.value_conds)


ALSO = re.compile(r"\b([a-z]+)\s+(?:who|that|which)\s+(?:have\s+|has\s+|had\s+)?also\s+(?:been\s+)?([a-z ]+?)\s+"
                  r"(?:a|an|any|some|at\s+least\s+one)\s+([a-z]+)\s*[?.!]?\s*$")


def also_exists(r: Reading) -> None:
    """"films directed by people who have also acted in a film": an edge of the people named before "who",
    to any node of that label (not the row's), so an existence beside the path, not a second path."""
    f = r.frame
    m = ALSO.search(r.low)
    if m is None:
        return
    subject = next((lb for s, lb in r.labels_at if s == m.start(1)), None)
    far = next((lb for s, lb in r.labels_at if s == m.start(3)), None)
    verbs = [(s, rel) for s, rel in f.rel_at if m.start(2) <= s < m.end(2)]
    if subject is None or far is None or subject == f.target or len(verbs) != 1:
        return
    rel = verbs[0][1]
    if rel not in rels_between(r.view, subject, far):
        return
    f.exists.append((subject, rel, far))
    f.rel_at.remove(verbs[0])
    f.rel_hints.remove(rel)
    r.used.append((m.start(2), m.end(3)))


def _place_of(r: Reading, label: str) -> str | None:
    """Returns the far end from ``label`` of the last relationship the question names that joins it to another
    label, else None."""
    for _s, rel in sorted(r.frame.rel_at, reverse=True):
        for src, dst in r.view.rels.get(rel, []):
            if label in (src, dst) and src != dst:
                return dst if src == label else src
    return None


def _far_end(r: Reading) -> str | None:
    anchor = r.frame.anchors[0].label
    for rel in r.frame.rel_hints:
        for src, dst in r.view.rels.get(rel, []):
            if src == anchor and dst != anchor:
                return dst
            if dst == anchor and src != anchor:
                return src
    return None


def _reown(r: Reading, s: int, e: int, owner: str, prop: str) -> PropAt:
    target = r.frame.target
    said = verb_property(r.view, r.low, s, prop)
    if said:  # "the most frequently shipped cities": the property the verb and the word name (shipCity)
        return (s, e, *said)
    for ls, lb in r.labels_at:
        if 0 <= s - ls <= len(lb) + 3 and prop in r.view.nodes.get(lb, {}):
            return (s, e, lb, prop)
        # "customers with a contactTitle containing ...", "suppliers whose city is ...": the label's own
        if 0 <= ls < s and prop in r.view.nodes.get(lb, {}) and re.fullmatch(
                r"[a-z]+\s+(?:with|whose|having|that\s+have|who\s+have)\s+(?:an?\s+|the\s+)?[`'\"]?", r.low[ls:s]):
            return (s, e, lb, prop)
    if owner != target and owner in r.view.nodes and prop in r.view.nodes.get(target or "", {}):
        return (s, e, target, prop)
    return (s, e, owner, prop)


def _nearby_prop(m: Mention, props_at: list[PropAt], question: str) -> tuple[str, str] | None:
    """A property named within 12 characters of the mention that one of its readings holds, nearest first
    ("from Berlin", "in the UK", "based in", "located in": a place of the subject)."""
    best = None
    for s, e, owner, prop in props_at:
        dist = m.start - e if e <= m.start else s - m.end
        if e > m.start and re.search(r"\b(?:and|or|but)\b|,", question[m.end:s].lower()):
            continue  # "customers in 'Germany' and shipped to 'France'": the next value's property
        if 0 <= dist <= 12 and any(prop == alt[1] for alt in [(m.label, m.prop, m.value)] + m.alternatives):
            if best is None or dist < best[0]:
                best = (dist, (owner, prop))
    return best[1] if best else None
