"""Reading a question into a :class:`~kgqa.planner.frame.Frame`, by an ordered list of rules.

:func:`read` takes the values and schema words the :class:`~kgqa.planner.lexicon.Lexicon` finds in the
question, sets up a :class:`Reading` (the frame being filled, plus where labels and properties are named)
and applies :data:`RULES` in order, each a function ``rule(reading) -> None`` that fills part of the frame
from what the rules before it decided. The order matters and is the whole algorithm: anchors are chosen before
the target, the target before properties are re-owned, conditions before superlatives, superlatives
before plain aggregates, and the asked property last.

Only names that exist in the graph's :class:`~kgqa.planner.schema_view.SchemaView` are ever used.

Size: one rule per question shape, each small; the rules read one shared :class:`Reading`, and listing
them in one module keeps their order visible.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from kgqa.planner.frame import RANGE_OPS, AggregateOf, Cond, Frame, Mention, ValueOf
from kgqa.planner.lexicon import (
    COMPARATORS,
    GRAPH_NAME,
    NUMBER,
    OPERATORS,
    TIME_CUES,
    TRAILING_NOUNS,
    YEAR,
    YES_NO,
    Lexicon,
    is_birth,
    is_date_like,
    is_time_like,
    is_year_like,
    number_value,
    verb_property,
)
from kgqa.planner.schema_view import SchemaView
from kgqa.text import STOPWORDS as STOP_WORDS
from kgqa.text import name_words

Span = tuple[int, int]
TIME_CUE_STEMS = {w[:4] for w in TIME_CUES}
PropAt = tuple[int, int, str, str]  # (start, end, owner label or relationship, property)


@dataclass
class Reading:
    """One question being read: the frame the rules fill, and what they share while filling it."""

    view: SchemaView
    lex: Lexicon
    question: str  # stripped
    low: str  # lower-cased
    frame: Frame
    mentions: list[Mention]  # linked values and quoted literals
    blocked: list[Span]  # the mentions' spans
    terms: list[tuple[int, int, str, str]]  # schema words: (start, end, phrase, target)
    labels_at: list[tuple[int, str]] = field(default_factory=list)  # (start, label) of label words
    props_at: list[PropAt] = field(default_factory=list)  # property words
    value_conds: list[Cond] = field(default_factory=list)  # words that name a value ("women")
    used: list[Span] = field(default_factory=list)  # spans the comparisons consumed
    listing: bool = False  # "the first 3 products": ordered by key, the graph's listing order, not a ranking

    @cached_property
    def masked(self) -> str:
        """The lower-cased question with the linked values blanked out (same length)."""
        low = self.low
        for a, b in self.blocked:
            low = low[:a] + " " * (b - a) + low[b:]
        return low


# -- the rules, in order ---------------------------------------------------------------------------
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
    elif re.match(r"\s*where\b", low) and candidates and _place_of(r, _head_label(r, *candidates[0])):
        # "Where were the winners of the 1962 Peace Prize born?": the place the last relationship named leads
        # to from the label asked about, shown beside each of them
        subject = _head_label(r, *candidates[0])
        f.target, f.shown = _place_of(r, subject), [subject]
    elif candidates:
        f.target = candidates[0][1]
        # "product categories": of two label words in a row, the second is the head noun, the first joined
        f.target = _head_label(r, *candidates[0])
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


SAME = re.compile(r"\bthe\s+same\s+((?:[a-z`'_]+\s+){0,2}?[`'\"]?[a-z_]+[`'\"]?)\s+(as|that|they|he|she|it|where|"
                  r"when|in\s+which)\b")
PARTS = re.compile(r"\b(?:(?:how\s+many|(?:the\s+)?(?:total\s+)?number\s+of)\s+(?:(?P<unit>words|characters|letters)\s+"
                   r"(?:are\s+)?(?:in|of)\s+)?|(?:the\s+)?(?P<length>length)\s+of\s+)(?:the\s+|their\s+|its\s+|each\s+)?")


def parts(r: Reading) -> None:
    """"the number of words in the taglines", "the length of the titles", "the number of roles" (a list): a
    function of one property (its words, its characters, its items) the frame may use as a numeric property."""
    for m in PARTS.finditer(r.low):
        if _consumed(r, m.start()):
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
            rels = _rels_between(view, labels[-1], anchor.label)
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
        if _consumed(r, m.start()):
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
        f.conds.append(Cond(owner, prop, op, ValueOf(owner, right[3]), _rel_of(r, owner)))
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
            f.conds.append(Cond(owner, prop, op, AggregateOf("avg", "own", where=where), _rel_of(r, owner)))
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
            f.conds.append(Cond(owner, prop, op, AggregateOf("avg", "group", group), _rel_of(r, owner)))
            r.used.append((m.start(), scope_end))
            continue
        rows = bool(inside) or re.search(r"(?:'s|s')\s+(?:[a-z]+\s+){0,2}$", r.low[:m.start(2)])
        f.conds.append(Cond(owner, prop, op, AggregateOf("avg", "rows" if rows else "all"), _rel_of(r, owner)))
        r.used.append((m.start(), scope_end))


def _consumed(r: Reading, pos: int) -> bool:
    """Whether an earlier rule read the word at ``pos`` already."""
    return any(a <= pos < b for a, b in r.used)


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")


def arithmetic(r: Reading) -> None:
    """Conditions on a function of a property: "a year divisible by 25" and "odd-numbered years" (modulo),
    "titles longer than 20 characters" (text length), "awarded in November" (the month of a date written as
    text, YYYY-MM-DD)."""
    f, low = r.frame, r.low
    for m in re.finditer(r"\b(?:divisible by|a multiple of)\s+(\d+)\b|\b(odd|even)(?:-|\s+)?(?:numbered\s+)?(?=years?\b)",
                         low):
        hit = _year_prop(r, m.start())
        if hit is None or not hit[2].startswith("INT"):
            continue
        if m.group(1):
            f.conds.append(Cond(hit[0], hit[1], f"% {int(m.group(1))} =", 0, _rel_of(r, hit[0])))
        else:
            f.conds.append(Cond(hit[0], hit[1], "% 2 =", 1 if m.group(2) == "odd" else 0, _rel_of(r, hit[0])))
        r.used.append(m.span())
    for m in re.finditer(r"\b(longer|more|shorter|fewer|less)\s+than\s+(\d+)\s+(?:characters|letters|chars)\b", low):
        texts = [(s, o, p) for s, e, o, p in r.props_at if s < m.start() and r.view.prop_type(o, p) == "STRING"
                 and not re.match(r"names?\b", low[s:])]
        if re.search(r"\bnames?\s+$", low[:m.start()]) and f.target:
            owner, prop = f.target, r.view.display(f.target)  # "a name longer than 30 characters"
        elif texts:
            _, owner, prop = texts[-1]
        else:
            continue
        op = ">" if m.group(1) in ("longer", "more") else "<"
        f.conds.append(Cond(owner, prop, op, int(m.group(2)), _rel_of(r, owner), fn="size"))
        r.used.append(m.span())
    for m in re.finditer(r"\b(?:in|during)\s+(?:the\s+month\s+of\s+)?['\"]?(" + "|".join(MONTHS) + r")\b(?!\s+\d)", low):
        verb = re.findall(r"[a-z]+", low[:m.start()])[-1:]
        dates = [(lb, p) for lb in dict.fromkeys([f.target, *f.labels_mentioned]) if lb
                 for p, t in r.view.nodes.get(lb, {}).items() if t == "STRING" and is_date_like(p)]
        near = [(o, p) for s0, e0, o, p in r.props_at if 0 <= m.start() - e0 <= 4 and (o, p) in dates]
        named = near or [d for d in dates if set(verb) & set(name_words(d[1]))] or (dates if len(dates) == 1 else [])
        if len(named) == 1:  # "a `requiredDate` in the month of August": the date named right before
            month = MONTHS.index(m.group(1)) + 1
            f.conds.append(Cond(named[0][0], named[0][1], "CONTAINS", f"-{month:02d}-"))
            r.used.append(m.span())


def comparisons(r: Reading) -> None:
    """Numbers attached to properties ("more than 20 units") or to counted labels ("more than 3 films":
    a HAVING on a count); ranges ("between 10 and 20"); "zero units in stock"."""
    f, low = r.frame, r.low
    for m in re.finditer(rf"between\s+({NUMBER})\s+and\s+({NUMBER})", low):
        if re.fullmatch(YEAR, m.group(1)) and re.fullmatch(YEAR, m.group(2)):
            continue  # a span of years: the years rule (date strings compare as text)
        owner, prop = _closest_numeric_prop(r, m.start(), m.end(), strings=False) or (None, None)
        if owner:
            f.conds.append(Cond(owner, prop, ">=", number_value(m.group(1)), _rel_of(r, owner)))
            f.conds.append(Cond(owner, prop, "<=", number_value(m.group(2)), _rel_of(r, owner)))
            r.used.append((m.start(), m.end()))
    # "a minimum unitsInStock of 50": a bound on the property named between
    for m in re.finditer(rf"\b(minimum|maximum)\s+([a-z][\w ]{{0,40}}?)\s+of\s+({NUMBER})\b", low):
        prop = next(((o, p) for s, e, o, p in r.props_at if (s, e) == m.span(2)), None)
        if prop and (r.view.prop_type(*prop) or "").startswith(("INT", "DOUBLE", "FLOAT")):
            op = ">=" if m.group(1) == "minimum" else "<="
            f.conds.append(Cond(prop[0], prop[1], op, number_value(m.group(3)), _rel_of(r, prop[0])))
            r.used.append(m.span())
    # "65 or higher", "100 or more": a bound written after the number
    for m in re.finditer(rf"\b({NUMBER})\s+or\s+(higher|more|above|greater|over|lower|less|fewer|below|under)\b",
                         low):
        if any(a <= m.start() < b for a, b in r.used + r.blocked):
            continue
        hit = _closest_numeric_prop(r, m.start(), m.end(), strings=False)
        if hit:
            op = ">=" if m.group(2) in ("higher", "more", "above", "greater", "over") else "<="
            f.conds.append(Cond(hit[0], hit[1], op, number_value(m.group(1)), _rel_of(r, hit[0])))
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
                    f.conds.append(Cond(owner, prop, op, value, _rel_of(r, owner)))
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
            f.conds.append(Cond(hit[0], hit[1], "=", 0, _rel_of(r, hit[0])))


def years(r: Reading) -> None:
    """Years as conditions on a year or date property: ranges ("from 1939 to 1945", "between 2000 and
    2009"), decades ("the 1920s"), bounds ("before 1850", "since 1990") and single years ("in 1997",
    "the 2020 chemistry prize"). The property: the one a cue word names ("born" -> birth, "died" ->
    death, "won" -> award), else the nearest year-like property mentioned, else the single one of an
    anchored or mentioned label (or, for "in 1997", of the asked label). Several single years on one
    property are a disjunction and stay unbound. A date string compares as text ("1939" <= "1939-10-05")."""
    f, low = r.frame, r.low
    taken = r.used + r.blocked
    found: list[tuple[int, int, list[tuple[str, int]]]] = []

    def claim(m, bounds) -> None:
        if not any(a < m.end() and m.start() < b for a, b in taken):
            taken.append((m.start(), m.end()))
            found.append((m.start(), m.end(), bounds))

    for pattern in (rf"\bbetween\s+({YEAR})\s+and\s+({YEAR})\b",  # "in 1901 and 2001" is two years, not a span
                    rf"\b(?:from\s+)?({YEAR})\s*(?:to|-|–|through|until)\s*({YEAR})\b"):
        for m in re.finditer(pattern, low):
            lo, hi = sorted((int(m.group(1)), int(m.group(2))))
            claim(m, [(">=", lo), ("<=", hi)])
    for m in re.finditer(r"\b(?:the\s+)?((?:18|19|20)\d)0'?s\b", low):
        claim(m, [(">=", int(m.group(1)) * 10), ("<=", int(m.group(1)) * 10 + 9)])
    for m in re.finditer(r"\bthe\s+'?([2-9])0'?s\b", low):  # "the 90s": the decade of the last century
        claim(m, [(">=", 1900 + int(m.group(1)) * 10), ("<=", 1909 + int(m.group(1)) * 10)])
    for m in re.finditer(rf"\b(before|prior to|earlier than|until|after|later than|since)\s+(?:the\s+)?(?:year\s+)?"
                         rf"({YEAR})\b", low):
        op = {"before": "<", "prior to": "<", "earlier than": "<", "until": "<=", "after": ">",
              "later than": ">", "since": ">="}[m.group(1)]
        claim(m, [(op, int(m.group(2)))])
    for m in re.finditer(rf"(?<![$.,])\b({YEAR})\b(?![.,]\d)(?!\s*(?:units|products|orders|items|dollars))", low):
        claim(m, [("=", int(m.group(1)))])
    picked = []
    for start, _end, bounds in sorted(found):
        # with no cue word, "in 1997" may mean the asked label's one year; a bound or bare year must
        # belong to a label the question names ("Who directed X after 1990?" is not about birth years)
        plain_in = re.search(r"\b(?:in|during|of)\s+(?:the\s+)?(?:year\s+)?$", low[:start])
        hit = _year_cue(r, start) or _year_prop(r, start, with_target=bool(plain_in))
        if hit:
            picked.append((hit, bounds))
    singles = [hit for hit, bounds in picked if bounds[0][0] == "="]
    alts = [y for hit, bounds in picked if bounds[0][0] == "=" and singles.count(hit) == 2 and hit[2] != "STRING"
            for _, y in bounds]
    if len(alts) == 2 and re.search(rf"\b{alts[0]}\s+or\s+{alts[1]}\b", low) and re.search(r"\bwhich\b", low):
        # "Which physics prize was worth more, 1901 or 2001?": the two years are alternatives to pick from
        hit = next(hit for hit, bounds in picked if bounds[0][0] == "=" and singles.count(hit) == 2)
        f.conds.append(Cond(hit[0], hit[1], "IN", alts, _rel_of(r, hit[0])))
    for hit, bounds in picked:
        if bounds[0][0] == "=" and singles.count(hit) > 1:
            continue  # "1901 and 2001": not a conjunction; left unbound, the plan is declined
        owner, prop, typ = hit
        for op, year in bounds:
            if typ != "STRING":
                f.conds.append(Cond(owner, prop, op, year, _rel_of(r, owner)))
            elif op == "=":
                f.conds.append(Cond(owner, prop, "STARTS WITH", str(year), _rel_of(r, owner)))
            else:  # ISO date text: "<= 1945" is "<= '1945-99'" (after every 1945 date, before 1946)
                bound = f"{year}-99" if op in ("<=", ">") else str(year)
                f.conds.append(Cond(owner, prop, op, bound, _rel_of(r, owner)))


TEXT_CLASSES = frozenset("""numbers number digits digit letters letter vowels vowel consonants spaces space
punctuation characters character symbols symbol numerals numeral capitals uppercase lowercase""".split())


def string_conditions(r: Reading) -> None:
    """Quoted literals that are not graph values: dates, prefixes, substrings ('... containing 'bags''),
    on the nearest string property named, else on the target's display property."""
    f, low, view = r.frame, r.low, r.view
    ops = [(r"(?:containing|contains|contain|includes|including|described as|with the word|mention(?:s|ing)?)", "CONTAINS"),
           (r"(?:starting with|starts with|start with|beginning with|begins with|begin with)", "STARTS WITH"),
           (r"(?:ending with|ends with|end with|ending in|ends in|end in)", "ENDS WITH"),
           (r"(?:later than|after|since|from)", ">"), (r"(?:earlier than|before|prior to|until)", "<")]
    # "Which laureates have Curie in their name?": a linked value inside a text property, not that value
    for m in [m for m in f.anchors if m.label]:
        word = re.match(r"\s+in\s+(?:the|their|its|his|her)\s+([a-z]+(?:\s[a-z]+)?)", low[m.end:])
        if not word:
            continue
        named = r.lex.entries.get(word.group(1)) or r.lex.entries.get(word.group(1).split()[0], "")
        owner, _, prop = named.partition(".")
        if word.group(1).split()[0] in ("name", "names"):  # what names the node: its display property
            owner, prop = m.label, view.display(m.label)
        if prop and owner in (m.label, f.target) and view.prop_type(owner, prop) == "STRING":
            f.anchors.remove(m)
            f.conds.append(Cond(owner, prop, "CONTAINS", m.text, fold=m.text.islower() or m.text.isupper()))
    # unquoted: "a tagline that mentions love", "names ending in son", "containing the word FREEDOM"
    words = re.compile(r"\b(?:mention(?:s|ing)?|contain(?:s|ing)?|includ(?:es|ing)|(?:start|begin)(?:s|ning|ing)?"
                       r"\s+with|end(?:s|ing)?\s+(?:in|with))\s+(?:the\s+(?:word|phrase|text)\s+)?([A-Za-z0-9][\w'-]*)")
    literals = [m for m in r.mentions if not m.label]
    unquoted: list[Mention] = []
    # "for work on insulin", "work involving the LASER": a word about what a text property says
    about = [(e, o, p) for s, e, o, p in r.props_at if r.view.prop_type(o, p) == "STRING"]
    for e, owner, prop in about:
        m = re.match(r"\s+(?:on|about|involving|concerning|regarding)\s+(?:the\s+)?([A-Za-z][\w'-]*)", r.question[e:])
        a, b = (e + m.start(1), e + m.end(1)) if m else (0, 0)
        if (m and m.group(1).lower() not in STOP_WORDS and m.group(1).lower() not in r.lex.entries
                and not any(x < b and y > a for x, y in r.blocked)):  # "about Cloud Atlas": a named entity
            lit = m.group(1)
            f.conds.append(Cond(owner, prop, "CONTAINS", lit, _rel_of(r, owner), fold=True))
            r.used.append((e, b))
    for m in words.finditer(r.question):
        a, b = m.span(1)
        # "a family name starting with Mc": a fragment the fuzzy linker took for a whole name is the literal
        fuzzy = [x for x in f.anchors if (x.start, x.end) == (a, b) and str(x.value).lower() != x.text.lower()]
        for x in fuzzy:
            f.anchors.remove(x)
        if m.group(1).lower() in TEXT_CLASSES or m.group(1).lower() in ("their", "its", "his", "her", "your", "my"):
            # "titles containing numbers": a kind of character, not the word itself
            f.notes.append(f"unexplained: {m.group(0)}")
            continue
        if any(x < b and y > a for x, y in r.blocked if (x, y) != (a, b) or not fuzzy) \
                or m.group(1).lower() in r.lex.entries \
                or m.group(1).lower() in STOP_WORDS or m.group(1).lower() in OPERATORS or m.group(1)[0].isdigit():
            continue
        literals.append(Mention(a, b, m.group(1), "", "", m.group(1), score=0.0))
        unquoted.append(literals[-1])
        r.used.append((m.start(), a))  # "containing the word": the operator's words
    prev: tuple[int, str, tuple] | None = None  # (end, operator, property) of the last substring read
    for lit in literals:
        if _consumed(r, lit.start):
            continue  # "in the month of 'December'": read already
        if prev and prev[1] != "=" and re.fullmatch(r"[\s`'\"]*and[\s`'\"]*", low[prev[0]:lit.start]):
            # "a summary containing both 'Silly' and 'fun'": the same text holds the second one too
            best, op = prev[2], prev[1]
            f.conds.append(Cond(best[1], best[2], op, lit.text, best[1] if best[1] in view.rel_props
                                and best[1] not in view.nodes else None, fold=lit.text.islower() or lit.text.isupper()))
            prev = (lit.end, op, best)
            continue
        if lit.text.lower() in ("true", "false") and any(
                view.prop_type(o, p) == "BOOL" and 0 <= lit.start - e <= 12 for _s, e, o, p in r.props_at):
            continue  # "a discontinued status of 'True'": the property's own value, read as a boolean
        before = low[max(0, lit.start - 30):lit.start]
        op = "="
        for pat, o in ops:
            said = r"(?:\s+both)?(?:\s+the\s+(?:words?|phrases?|text|letters?))?"  # "containing the word FREEDOM"
            if re.search(pat + said + r"\s*$", before.strip() + " ") or re.search(pat + said + r"\W*$", before):
                op = o
                break
        inside = re.match(r"\W*\s+in (?:the|its|their|his|her) ", low[lit.end:])
        if op == "=" and inside and re.match(r"\w+", low[lit.end + inside.end():]):
            op = "CONTAINS"  # "'Matrix' in the title"
        best = None
        substring = op in ("CONTAINS", "STARTS WITH", "ENDS WITH")
        named_in = [x for x in r.props_at if inside and 0 <= x[0] - (lit.end + inside.end()) <= 16]
        for ps, pe, owner, prop in named_in or r.props_at:  # "'love' in the review summary": that text
            dist = lit.start - pe if pe <= lit.start else ps - lit.end + 20
            # a relationship's text ("work mentioning DNA": the prize's motivation) for a substring, or for a
            # value right after its name ("the summary 'A solid romp'")
            if view.prop_type(owner, prop) != "STRING" or (owner in view.rel_props and not substring
                                                           and not 0 <= dist <= 4):
                continue
            if best is None or dist < best[0]:
                best = (dist, owner, prop)
        verb = re.search(r"\b([a-z]+)\s+as\s*['\"]?$", low[:lit.start + 1])
        named = (r.lex.entries.get(verb.group(1), "") if verb else "").partition(">")[0]
        texts = [p for p, t in view.rel_props.get(named[4:], {}).items() if t == "STRING"] if named.startswith("rel:") else []
        if best is None and len(texts) == 1:
            best = (0, named[4:], texts[0])  # "reviewed as 'Silly, but fun'": the review's one text
        if best is None and f.target and (lit not in unquoted or re.search(r"\b(?:names?|titles?|called)\b", low)):
            # no text property named: what names the target, when quoted or when the question says so ("whose
            # names end in son"); "work mentioning DNA" is no name
            best = (0, f.target, view.display(f.target))
            if op == "=" and lit not in unquoted:
                # a quoted value the entity index does not hold: no node is so named, and nothing says which
                # text it is ("reviewed as 'Pretty funny at times'"); not an empty answer either
                f.notes.append(f"unexplained: {lit.text!r} names no {f.target}")
        if best and op == "=" and lit.label == "" and is_time_like(best[2]) and not re.search(r"\d", lit.text):
            # "shipped by 'United Package'": a name is no date
            f.notes.append(f"unexplained: {lit.text!r} as a {best[2]}")
        if best:
            # a substring written all in one case ('FREEDOM', 'burg') matches whatever the data's casing is
            fold = op in ("CONTAINS", "STARTS WITH", "ENDS WITH") and (lit.text.islower() or lit.text.isupper())
            rel = best[1] if best[1] in view.rel_props and best[1] not in view.nodes else None
            f.conds.append(Cond(best[1], best[2], op, lit.text, rel, fold=fold))
            prev = (lit.end, op, best) if substring else None


def booleans(r: Reading) -> None:
    """"still alive" / "deceased": whether the label's death date or year is recorded; a BOOL property
    named is true, or false after "not", "non", "never"."""
    f, low, view = r.frame, r.low, r.view
    life = re.search(r"\b(alive|living|still living|dead|deceased|passed away)\b", low)
    if life:
        for label in dict.fromkeys([f.target, *f.labels_mentioned]):
            death = [p for p in view.nodes.get(label or "", {}) if p.lower().startswith("death")]
            if death:
                op = "IS NULL" if life.group(1) in ("alive", "living", "still living") else "IS NOT NULL"
                f.conds.append(Cond(label, sorted(death)[0], op, None))
                break
    for prop_owner, props in view.nodes.items():
        # "orders that have been shipped" / "have not been shipped": whether the time the verb names is recorded
        if prop_owner not in (f.target, *f.labels_mentioned):
            continue
        for prop in props:
            cues = [w for w in name_words(prop) if w.endswith("ed") and len(w) > 4]  # shippedDate: "shipped"
            for cue in cues:
                m = re.search(rf"\b(?:has|have|had|was|were|is|are)\s+(not\s+|never\s+)?(?:yet\s+)?(?:been\s+)?(?:yet\s+)?"
                              rf"{cue}\b(?=\s*(?:$|[,.?!;]|and\b|or\b|but\b|yet\b))", low)
                if m and is_time_like(prop) and not any(c.prop == prop for c in f.conds):
                    f.conds.append(Cond(prop_owner, prop, "IS NULL" if m.group(1) else "IS NOT NULL", None))
                    r.used.append(m.span())
    for s, e, owner, prop in r.props_at:
        # "whose birth year is unknown", "a fax number listed", "with no fax": whether a value is recorded
        after, typ = low[e:e + 30], view.prop_type(owner, prop)
        noun = r"\s+(?:number|name|date|address|value)"  # "a fax number listed"
        missing = re.match(rf"(?:{noun})?\s+(?:(?:is|are|was|were)\s+)?(?:unknown|missing|not (?:known|recorded|"
                           rf"listed|given))\b", after)
        present = re.match(rf"(?:{noun})?\s+(?:(?:is|are|was|were)\s+)?(?:listed|recorded|known|given|on file)\b",
                           after)
        if (missing or present) and owner in view.nodes and not any(c.prop == prop for c in f.conds):
            # "no birth year listed" is none recorded
            negated = re.search(r"\b(?:no|without|not|n't|lack|lacking)\s+(?:have\s+|has\s+|had\s+)?(?:an?\s+|any\s+)?$", low[:s])
            f.conds.append(Cond(owner, prop, "IS NULL" if bool(missing) != bool(negated) else "IS NOT NULL", None))
            r.used.append((e, e + (missing or present).end()))
            continue
        if (typ == "STRING" and owner in view.nodes and re.search(r"\b(?:no|without)\s+(?:an?\s+)?$", low[:s])
                and not any(c.prop == prop for c in f.conds)):
            f.conds.append(Cond(owner, prop, "IS NULL", None))
            continue
        if typ != "BOOL":
            continue
        before = low[max(0, s - 24):s]
        # "not discontinued", "never been discontinued", "hasn't been discontinued"
        negated = bool(re.search(r"\b(not|non|never|n't)\b[\s-]*(?:(?:been|be|being|ever|yet)\s+)?$", before))
        # "a discontinued status of 'False'", "discontinued = false": the value written after it
        value = re.match(r"[\s`'\"]*(?:\w+\s+)?(?:of|is|=|equal to|equals|set to)?\s*['\"]?(false|true)\b", low[e:])
        if value:
            negated ^= value.group(1) == "false"
            r.used.append((e, e + value.end()))
        if any(c.prop == prop and c.op == "=" and c.value is negated for c in f.conds):
            # "a product that is discontinued and also one that is not": two nodes, one condition each
            f.notes.append(f"unexplained: {prop} both true and false")
        if not any(c.prop == prop for c in f.conds):
            f.conds.append(Cond(owner, prop, "=", not negated, _rel_of(r, owner)))


def held_amounts(r: Reading) -> None:
    """"products in stock", "the most products on order": a number property named by the words its name ends
    with after "in"/"on" (unitsInStock, unitsOnOrder), with nothing else said of it, is an amount held: more
    than none; "not in stock" is none."""
    f, low, view = r.frame, r.low, r.view
    said = {f.agg_prop, f.order, f.target_prop, *f.shown_props, *(c.prop for c in f.conds)}
    for s, e, owner, prop in r.props_at:
        words = name_words(prop)
        if (len(words) < 3 or words[-2] not in ("in", "on") or low[s:e].split() != words[-2:] or prop in said
                or owner not in (f.target, *f.labels_mentioned) or not view.is_number(owner, prop)):
            continue
        before = low[:s].split()[-1:]
        if before and before[0].rstrip("s") in {w.rstrip("s") for w in AMOUNT_WORDS}:
            continue  # "the quantity on order": the property itself, named by its amount
        negated = re.search(r"\b(?:not|no longer)\s+(?:currently\s+|still\s+)?$", low[:s])
        f.conds.append(Cond(owner, prop, "=" if negated else ">", 0, _rel_of(r, owner)))
        said.add(prop)
        if negated:
            r.used.append(negated.span())  # "no longer" is this negation, not a comparison


# words that name an aggregate of the property after them ("the average price", "a total quantity")
AGGREGATE_WORDS = {"average": "avg", "mean": "avg", "total": "sum", "sum": "sum", "maximum": "max", "minimum": "min"}
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
                if not _consumed(r, m.start())), None)  # "a minimum unitsInStock of 50" is a bound
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
            counted = _head_label(r, s, lb, counting_target=False)
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
                and not _consumed(r, a.start())), None)
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
    if rel not in _rels_between(r.view, subject, far):
        return
    f.exists.append((subject, rel, far))
    f.rel_at.remove(verbs[0])
    f.rel_hints.remove(rel)
    r.used.append((m.start(2), m.end(3)))


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
    own = _timed(view, f.target)
    named = [p for p in own if set(name_words(f.target)) & set(name_words(p))]
    if len(own) > 1 and len(named) == 1:
        own = named  # "the first orders": of an order's dates, its own (orderDate), not when it shipped
    # a named entity is not what is ordered; a value of another property ("the physics prize") does not name one
    anchored = {a.label for a in f.anchors if a.prop in (view.display(a.label), view.spec.primary_keys.get(a.label))
                or a.label == f.target}
    others = {lb for lb in f.labels_mentioned if lb != f.target and lb not in anchored and _timed(view, lb)}
    others |= {rel for rel in f.rel_hints if any(is_time_like(p) for p in view.rel_props.get(rel, {}))}
    other = next(iter(others)) if len(others) == 1 else None
    timed_edge = [p for p in view.rel_props.get(other or "", {}) if is_time_like(p)] if other not in view.nodes else []
    if len(timed_edge) == 1:
        # "the first two books X borrowed": the time of the relationship the verb names, not the books' own
        f.order_label, f.order = other, timed_edge[0]
    elif len(own) == 1 and not others:
        f.order = own[0]
    elif len(own) != 1 and other in view.nodes and len(_timed(view, other)) == 1:
        # "the first two women to win the physics prize": the prize's year orders them
        f.order_label, f.order = other, _timed(view, other)[0]
    elif m.group(1) == "first" and f.limit and not own and not others and f.target in view.spec.primary_keys:
        # "the first 3 products with ...": nothing timed, so the graph's own listing order, by key
        f.order, r.listing = view.key(f.target), True
    else:
        f.notes.append(f"unexplained: {m.group(1)}")  # an order the plan cannot take: not a guess either
        return
    f.desc = m.group(1) not in ("first", "earliest")
    f.limit = f.limit or 1


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
    if any(not _consumed(r, m.start()) for m in re.finditer(r"\bhow many\b|\bnumber of\b|\bcount\b", low)):
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
            counted = _head_label(r, m.start(1), counted)
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
        if m and not _consumed(r, m.start()):
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


UNIVERSAL = re.compile(r"\b(?:every|all|each)\s+(?:of\s+the\s+)?[a-z]+\s+(?:they|he|she|it|we|you|that\s+they)\b")


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
            ("INT", "DATE", "TIMESTAMP"))] or _timed(r.view, a.label)
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


def ages(r: Reading) -> None:
    """An age: "lived to be 100 or older", "lived the longest, and to what age" (the death year minus the birth
    year), "the youngest physics laureate, and how old were they", "How old was Tom Hanks when Cast Away came
    out?" (the year of the prize won or the film named, minus the birth year). Years only (integers)."""
    f, low, view = r.frame, r.low, r.view
    asked = re.search(r"\bhow old\b|\bwhat age\b|\bages?\b|\blived\b", low)
    if not asked or not f.target:
        return
    years = {p: t for p, t in view.nodes.get(f.target, {}).items() if t.startswith("INT")}
    birth = [p for p in years if is_birth(p)]
    if len(birth) != 1:
        return
    if re.search(r"\blived\b|\bdied\b|\bdie\b", low):
        death = [p for p in years if {"death", "died"} & set(name_words(p))]
        if len(death) != 1:
            return
        f.age = (f.target, death[0], birth[0])
    else:
        # the event: a label the question joins with one year of its own (the prize won, the film named)
        others = [m.label for m in f.anchors if m.label != f.target]
        others += [lb for rel in f.rel_hints for pair in view.rels.get(rel, []) for lb in pair if lb != f.target]
        others += [c.label for c in f.conds if c.label != f.target]
        others += [lb for lb in f.labels_mentioned if lb != f.target]
        event = next((lb for lb in dict.fromkeys(others) if len(_timed(view, lb)) == 1
                      and view.prop_type(lb, _timed(view, lb)[0]).startswith("INT")), None)
        if event is None:
            return
        f.age = (event, _timed(view, event)[0], birth[0])
    bound = re.search(r"\b(?:lived to be|lived to|aged?|at least)\s+(\d+)(\s+or\s+(?:older|more))?", low)
    if bound:
        f.age_cond = (">=" if bound.group(2) or "least" in bound.group(0) else "=", int(bound.group(1)))
        r.used.append(bound.span())
    of_ages = re.search(r"\b(average|mean|minimum|maximum)\s+age\b", low)
    if of_ages and f.agg in (None, "avg", "min", "max"):
        # "the average age of directors at the time of their film release": of the ages, not of the years
        f.agg = {"minimum": "min", "maximum": "max"}.get(of_ages.group(1), "avg")
        f.agg_label, f.agg_prop = None, None
    sup = re.search(r"\b(longest|youngest|oldest|shortest)\b", low)
    if sup:
        f.order, f.desc = "age", sup.group(1) in ("longest", "oldest")
        f.limit = f.limit or 1
        f.order_label, f.agg = None, None
        r.used.append(sup.span())
    f.target_prop = None
    r.used += [m.span() for m in re.finditer(r"\bhow old\b|\b(?:to |at )?what age\b|\bages?\b|\blived\b|\bold\b",
                                             low)]


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
    counted = next((_head_label(r, s, lb) for s, lb in r.labels_at if m and m.end(1) < s < m.end()),
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
        if (_consumed(r, m.start()) or f.compare or f.having or f.order or alternatives(f) or f.age_cond
                or r.low[m.end():m.end() + 40].find("than") >= 0):
            continue
        if any(c.op in RANGE_OPS and not isinstance(c.value, AggregateOf) for c in f.conds):
            continue
        # "directed a film with a higher rating": higher than what is unsaid
        f.notes.append(f"unexplained: {m.group(1)} than what")
        break
    sup = re.search(r"(?<!at )\b(most|least|highest|lowest|largest|smallest|biggest|greatest|fewest)\b", r.masked)
    if (sup and not (f.order or f.agg or f.having or f.compare or alternatives(f) or f.age_cond)
            and not _consumed(r, sup.start())):
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


Rule = Callable[[Reading], None]
RULES: tuple[Rule, ...] = (schema_words, anchors, target, their_labels, of_labels, negations, owners, value_words, differences,
                           parts, same_values,
                           property_comparisons, aggregate_comparisons,
                           arithmetic, comparisons, years,
                           string_conditions, booleans, times, also_exists, superlatives, sorted_by, implicit_order, aggregates, led_group,
                           asked_property, held_amounts,
                           relationship_property, negated_properties, entity_comparison, count_comparison,
                           count_against_average, ages, connections, unsupported)


def read(question: str, lex: Lexicon, mentions: list[Mention] | None = None) -> Frame:
    """Returns the frame of ``question`` over ``lex``'s graph, read by :data:`RULES` in order. ``mentions``
    (default: :meth:`Lexicon.value_mentions`) become the anchors and literals; each linked one is set, in
    place, to the reading chosen for it."""
    q = question.strip()
    mentions = lex.value_mentions(q) if mentions is None else mentions
    blocked = [(m.start, m.end) for m in mentions]
    reading = Reading(lex.view, lex, q, q.lower(), Frame(question=q), mentions, blocked, lex.scan(q, blocked))
    for rule in RULES:
        rule(reading)
    reading.frame.consumed = list(reading.used)
    return reading.frame


# -- helpers of the rules --------------------------------------------------------------------------
def _timed(view: SchemaView, label: str) -> list[str]:
    """Returns a label's time properties: its year properties (integers), else its date properties."""
    props = view.nodes.get(label, {})
    years = [p for p, t in props.items() if t.startswith("INT") and is_year_like(p)]
    return years or [p for p in props if is_date_like(p)]


def _role_order(r: Reading, word: str, pos: int) -> bool:
    """"Who directed the oldest movie?": a time superlative right before a label orders that label by its
    time property (the target's own for "the oldest movie"); returns whether it did."""
    f = r.frame
    nxt = next(((s, lb) for s, lb in r.labels_at if s >= pos), None)
    if nxt is None or len(re.findall(r"[a-z]+", r.masked[pos:nxt[0]])) > 2:
        return False
    props = _timed(r.view, nxt[1])
    if word in ("oldest", "youngest") and len(props) > 1:
        props = [p for p in props if is_birth(p)]
    if len(props) != 1:
        return False
    # "the oldest film": the target's own time property
    f.order_label, f.order = (None if nxt[1] == f.target else nxt[1]), props[0]
    f.desc = word in ("youngest", "latest", "newest")
    f.limit = f.limit or 1
    return True





def alternatives(f: Frame) -> bool:
    """Whether two anchors name values of one property joined by "or" ("Apollo 13 or Twister"), or two years
    are alternatives ("1901 or 2001")."""
    return any(a.label == b.label and a.prop == b.prop and re.search(r"\bor\b", f.question[a.end:b.start].lower())
               for a, b in zip(f.anchors, f.anchors[1:])) or any(c.op == "IN" for c in f.conds)


def _head_label(r: Reading, s: int, label: str, *, counting_target: bool = True) -> str:
    """Returns the head of a compound of label words starting at ``s`` ("Nobel laureates" -> the laureate
    label, when the two labels are related), else ``label``. Without ``counting_target`` the head may not be
    the target ("the most common product categories" counts products per category)."""
    for s2, lb in r.labels_at:
        if (s2 > s and lb != label and (counting_target or lb != r.frame.target)
                and re.fullmatch(r"[a-z]+\s+", r.low[s:s2])
                and _rels_between(r.view, label, lb)):
            _join_modifier(r, label, lb)
            return lb
    return label


def _rels_between(view: SchemaView, a: str, b: str) -> list[str]:
    """Returns the relationships that join labels ``a`` and ``b`` (either way)."""
    return [rel for rel, pairs in view.rels.items() if (a, b) in pairs or (b, a) in pairs]


def _join_modifier(r: Reading, modifier: str, head: str) -> None:
    """"Nobel laureates": the modifier label is joined to its head along the first relationship between them."""
    rels = _rels_between(r.view, modifier, head)
    if rels and not set(rels) & set(r.frame.rel_hints):
        r.frame.rel_hints.append(rels[0])


def _rel_of(r: Reading, owner: str) -> str | None:
    """The relationship a property owner is, or None for a node label."""
    return owner if owner in r.view.rel_props and owner not in r.view.nodes else None


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


def _year_cue(r: Reading, pos: int) -> tuple[str, str, str] | None:
    """The year property a cue word before the year names, on a label of the frame, if exactly one."""
    f = r.frame
    window = r.low[max(0, pos - 40):pos]
    # cue words and the first words of the property names they speak of, in words of any graph
    cues = [(r"\b(?:born|birth)", ("birth", "born")), (r"\b(?:died|dead|death|die)", ("death", "died")),
            (r"\b(?:released|release|came out)", ("released", "release")),
            (r"\b(?:won|win|awarded|award|prize)", ("award",)),
            (r"\b(?:ordered|order|placed)", ("order",)), (r"\b(?:shipped|ship)", ("shipped",))]
    labels = [m.label for m in f.anchors] + f.labels_mentioned + [f.target]
    nearest = []  # cues by distance to the year: "orders shipped in 1997" is about shipping
    for pattern, stems in cues:
        found = [m.end() for m in re.finditer(pattern, window)]
        if found:
            nearest.append((len(window) - found[-1], stems))
    for _, stems in sorted(nearest):
        hits = []
        for label in dict.fromkeys(lb for lb in labels if lb):
            for p, t in r.view.nodes.get(label, {}).items():
                first = (name_words(p) or [""])[0]
                if any(first.startswith(st) for st in stems) and (
                        t.startswith("INT") and is_year_like(p) or t == "STRING" and is_date_like(p)):
                    hits.append((label, p, t))
        ints = [h for h in hits if h[2].startswith("INT")]
        pick = ints or hits
        if len({(lb, p) for lb, p, _ in pick}) == 1:
            return pick[0]
    return None


def _year_prop(r: Reading, pos: int, with_target: bool = True) -> tuple[str, str, str] | None:
    f = r.frame
    best = None
    for _ps, pe, owner, prop in r.props_at:
        typ = r.view.prop_type(owner, prop)
        if typ in ("INT64", "STRING") and ("date" in name_words(prop) or is_year_like(prop)):
            dist = abs(pos - pe)
            if best is None or dist < best[0]:
                best = (dist, (owner, prop, typ))
    if best:
        return best[1]
    # a year with no property named: the one year-like property of the label just before it ("films from the
    # 90s"), else of an anchored, mentioned or target label
    near = [lb for s, lb in r.labels_at if s < pos and len(re.findall(r"[a-z']+", r.masked[s:pos])) <= 4]
    labels = near[-1:] + [m.label for m in f.anchors] + f.labels_mentioned + ([f.target] if with_target else [])
    for label in dict.fromkeys(lb for lb in labels if lb):
        props = r.view.nodes.get(label, {})
        ints = [(p, t) for p, t in props.items() if t.startswith("INT") and is_year_like(p)]
        dates = [(p, t) for p, t in props.items() if p.lower().endswith("date")]
        for cands in (ints, dates):
            if len(cands) == 1:
                return (label, cands[0][0], cands[0][1])
    return None
