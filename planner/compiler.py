"""Grounded Cypher compilation by linking and choosing (the backend adapter's compiler).

A small model cannot write Cypher, so the compiler never asks it to. It reads the question into a
:class:`Frame` — target label, anchors (linked entities and values), property conditions, aggregation,
ordering, limit — using only names that exist in the :class:`SchemaView`, then assembles Cypher from the
frame along schema paths. Where the question is ambiguous between schema candidates (two relationships
between the same labels, two properties holding the same value) the candidates are ranked, and a
``chooser`` (the LLM, constrained to the list) may break ties.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgqa.kg.schema import ident
from kgqa.planner.schema_view import SchemaView, fold, split_camel
from kgqa.planner.vocab import VOCAB, WHO_LABEL

Chooser = Callable[[str, list[str]], int]

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "twenty": 20}
YEAR = r"(?:18|19|20)\d\d"
_NUM = r"(?:\$?\d+(?:\.\d+)?|zero|one|two|three|four|five|six|seven|eight|nine|ten|twenty)"
COMPARATORS = [
    (r"(?:more than|greater than|higher than|larger than|above|over|exceeding|exceeds|in excess of)", ">"),
    (r"(?:less than|fewer than|lower than|smaller than|below|under)", "<"),
    (r"(?:at least|a minimum of|minimum of|no less than|or more)", ">="),
    (r"(?:at most|a maximum of|maximum of|no more than|or less|or fewer)", "<="),
    (r"(?:equal to|equals|exactly|of|is|=)", "="),
]
SUPERLATIVE_DESC = r"(?:most|highest|largest|greatest|biggest|maximum|max|top|best|latest|newest|oldest)"
SUPERLATIVE_ASC = r"(?:least|lowest|smallest|fewest|minimum|min|cheapest|worst|earliest)"
STOP = set("the a an of in on for to by with and or is are was were be been has have had do does did "
           "which what who whom whose how many much list show find give name identify all any that "
           "this those these there their its it me tell please get from at as than".split())

# words that ask, count or point at the data without constraining it ("List all products we sell")
FILLER = set("we our us you your i my sell sells sold carry stock have has database dataset data graph known "
             "every each ever exist exists existing available different distinct unique names number total "
             "count counts can could would should see want need like know about full entire whole complete "
             "currently recorded registered stored kept listed present overall altogether various kinds types "
             "type kind so far are there".split())


@dataclass
class Mention:
    start: int  # char offsets in the question
    end: int
    text: str
    label: str
    prop: str
    value: Any
    score: float = 1.0
    alternatives: list[tuple[str, str, Any]] = field(default_factory=list)


@dataclass
class Cond:
    label: str
    prop: str
    op: str
    value: Any
    rel: str | None = None  # set when the property lives on a relationship


@dataclass
class Frame:
    target: str | None = None
    target_prop: str | None = None  # a property of the anchor/target asked for ("when was X released")
    anchors: list[Mention] = field(default_factory=list)
    conds: list[Cond] = field(default_factory=list)
    agg: str | None = None  # count | avg | sum | min | max (over agg_label[.agg_prop])
    agg_label: str | None = None
    agg_prop: str | None = None
    group_prop: str | None = None  # group by a property of the target instead of the node
    having: tuple[str, float] | None = None
    order: str | None = None  # "agg" or a property of the target
    desc: bool = True
    limit: int | None = None
    rel_hints: list[str] = field(default_factory=list)
    labels_mentioned: list[str] = field(default_factory=list)
    distinct: bool = True
    notes: list[str] = field(default_factory=list)
    question: str = ""
    exemplar_rels: dict[str, float] = field(default_factory=dict)  # relationship -> weight from cached plans
    linked: list[tuple[int, int]] = field(default_factory=list)  # spans of the linked entity mentions


@dataclass
class Compiled:
    cypher: str
    params: dict[str, Any]
    frame: Frame
    score: float = 1.0
    description: str = ""


class Lexicon:
    """Phrase -> schema target, from the domain vocabulary plus the schema's own names."""

    def __init__(self, view: SchemaView):
        self.view = view
        entries: dict[str, str] = {}
        for label, props in view.nodes.items():
            low = label.lower()
            entries.setdefault(low, label)
            entries.setdefault(low + "s", label)
            entries.setdefault(low[:-1] + "ies" if low.endswith("y") else low + "es", label)
            for prop in props:
                entries.setdefault(split_camel(prop), f"{label}.{prop}")
                entries.setdefault(split_camel(prop) + ("es" if prop.endswith("s") else "s"), f"{label}.{prop}")
                entries.setdefault(prop.lower(), f"{label}.{prop}")
        for rel, props in view.rel_props.items():
            entries.setdefault(split_camel(rel), f"rel:{rel}")
            for prop in props:
                entries.setdefault(split_camel(prop), f"{rel}.{prop}")
        entries.update(VOCAB.get(view.spec.name, {}))
        # keep only targets that exist in this schema
        self.entries = {p: t for p, t in entries.items() if self._exists(t)}
        self.phrases = sorted(self.entries, key=lambda p: -len(p))

    def _exists(self, target: str) -> bool:
        t = target[4:].split(">")[0] if target.startswith("rel:") else target.split("=", 1)[0]
        if target.startswith("rel:"):
            return t in self.view.rels
        if "." in t:
            owner, prop = t.split(".", 1)
            return prop in self.view.nodes.get(owner, {}) or prop in self.view.rel_props.get(owner, {})
        return t in self.view.nodes

    def scan(self, text: str, blocked: list[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
        """Non-overlapping (start, end, phrase, target) matches, longest first, outside ``blocked`` spans."""
        low = text.lower()
        taken = list(blocked)
        found = []
        for phrase in self.phrases:
            for m in re.finditer(r"(?<![A-Za-z])" + re.escape(phrase) + r"(?![A-Za-z])", low):
                s, e = m.start(), m.end()
                if any(s < b and e > a for a, b in taken):
                    continue
                taken.append((s, e))
                found.append((s, e, phrase, self.entries[phrase]))
        return sorted(found)


def _num(token: str) -> float | int:
    token = token.lstrip("$").lower()
    if token in NUMBER_WORDS:
        return NUMBER_WORDS[token]
    return float(token) if "." in token else int(token)


class Compiler:
    """Question (+ linked mentions) -> ranked Cypher candidates over one domain's schema."""

    def __init__(self, view: SchemaView, chooser: Chooser | None = None):
        self.view = view
        self.lex = Lexicon(view)
        self.chooser = chooser

    # ------------------------------------------------------------------ mentions (values)
    def value_mentions(self, question: str) -> list[Mention]:
        """Spans of the question equal (case/accent-insensitively) to a property value in the graph."""
        mentions: list[Mention] = []
        taken: list[tuple[int, int]] = []
        # quoted literals first: 'Exotic Liquids', "Chai"
        for m in re.finditer(r"(?<![A-Za-z])'(.+?)'(?=[\s.,?!;:)]|$)|\"([^\"]+)\"", question):
            text = m.group(1) or m.group(2)
            if text.lower() in self.lex.entries or split_camel(text) in self.lex.entries:
                continue  # a quoted schema word ('unitsOnOrder'), read as a property below
            hits = self.view.values.get(fold(text))
            if hits:
                mentions.append(self._mention(m.start(), m.end(), text, hits))
                taken.append((m.start(), m.end()))
            else:
                mentions.append(Mention(m.start(), m.end(), text, "", "", text, score=0.0))
                taken.append((m.start(), m.end()))
        # unquoted n-grams, longest first (up to 6 words)
        words = list(re.finditer(r"[\w'’./&-]+", question))
        for n in range(6, 0, -1):
            for i in range(len(words) - n + 1):
                s, e = words[i].start(), words[i + n - 1].end()
                if any(s < b and e > a for a, b in taken):
                    continue
                text = question[s:e].strip(".,?!")
                e = s + len(text)
                if n == 1 and (text.lower() in STOP or text.islower() and len(text) < 4):
                    continue
                if re.fullmatch(r"[\d.,$%-]+", text) or (text.islower() and text.lower() in self.lex.entries):
                    continue
                hits = self.view.values.get(fold(text))
                if not hits:
                    continue
                if text.islower() and n == 1 and text.lower() in self.lex.entries:
                    continue  # a schema word ("discontinued"), not a value
                mentions.append(self._mention(s, e, text, hits))
                taken.append((s, e))
        return sorted(mentions, key=lambda m: m.start)

    def _mention(self, s: int, e: int, text: str, hits: list[tuple[str, str, str]]) -> Mention:
        spec = self.view.spec
        ranked = sorted(hits, key=lambda h: (h[1] != spec.display.get(h[0]),
                                             h[1] not in spec.name_props.get(h[0], []),
                                             h[1] != spec.primary_keys.get(h[0])))
        label, prop, value = ranked[0]
        return Mention(s, e, text, label, prop, value, alternatives=[(lb, p, v) for lb, p, v in ranked[1:]])

    # ------------------------------------------------------------------ frame
    def frame(self, question: str, mentions: list[Mention] | None = None) -> Frame:
        q = question.strip()
        low = q.lower()
        f = Frame(question=q)
        mentions = self.value_mentions(q) if mentions is None else mentions
        blocked = [(m.start, m.end) for m in mentions]
        terms = self.lex.scan(q, blocked)

        labels_at: list[tuple[int, str]] = []
        props_at: list[tuple[int, int, str, str]] = []  # (start, end, owner, prop)
        value_conds: list[Cond] = []
        for s, e, phrase, target in terms:
            if target.startswith("rel:"):
                rel, _, implied = target[4:].partition(">")
                f.rel_hints.append(rel)
                if implied:
                    labels_at.append((s, implied))
            elif "=" in target:  # a word that names a value ("women" -> Laureate.gender = 'female')
                owner, _, rest = target.partition(".")
                prop, _, value = rest.partition("=")
                labels_at.append((s, owner))
                value_conds.append(Cond(owner, prop, "=", value))
            elif "." in target:
                owner, prop = target.split(".", 1)
                props_at.append((s, e, owner, prop))
            else:
                labels_at.append((s, target))
        f.labels_mentioned = [lb for _, lb in labels_at]

        # anchors: linked values; choose the reading whose label the question talks about
        for m in mentions:
            if not m.label:
                continue
            options = [(m.label, m.prop, m.value)] + m.alternatives
            context = set(f.labels_mentioned)
            near = self._nearby_prop(low, m, props_at)
            hinted = {lb for r in f.rel_hints for pair in self.view.rels.get(r, []) for lb in pair}
            if near:
                options.sort(key=lambda o: (o[1] != near[1], o[0] != near[0]))
            else:
                options.sort(key=lambda o: (o[0] not in context and o[1] not in self.view.spec.name_props.get(o[0], []),
                                            o[0] not in context, o[0] not in hinted))
            m.label, m.prop, m.value = options[0]
            f.anchors.append(m)

        # what is asked: the first label noun after the question word, else "who"
        f.target = self._target(low, labels_at, f)
        props_at = [self._reown(low, f, s, e, owner, prop, labels_at) for s, e, owner, prop in props_at]

        f.conds.extend(value_conds)
        # numbers attached to properties or counted labels
        self._comparisons(q, low, f, props_at, labels_at, blocked)
        self._string_conds(low, f, props_at, [m for m in mentions if not m.label])
        self._booleans(low, f, props_at)
        self._superlatives(low, f, props_at, labels_at)
        self._aggregates(low, f, props_at, labels_at)
        self._asked_property(low, f, props_at)
        return f

    def _reown(self, low, f: Frame, s, e, owner, prop, labels_at):
        """'supplier countries' is Supplier.country: a property belongs to the label named right before it,
        else to the target when the target has a property of that name."""
        for ls, lb in labels_at:
            if 0 <= s - ls <= len(lb) + 3 and prop in self.view.nodes.get(lb, {}):
                return (s, e, lb, prop)
        if owner != f.target and owner in self.view.nodes and prop in self.view.nodes.get(f.target or "", {}):
            return (s, e, f.target, prop)
        return (s, e, owner, prop)

    def _nearby_prop(self, low: str, m: Mention, props_at) -> tuple[str, str] | None:
        best = None
        for s, e, owner, prop in props_at:
            dist = m.start - e if e <= m.start else s - m.end
            if 0 <= dist <= 12 and any(prop == alt[1] for alt in [(m.label, m.prop, m.value)] + m.alternatives):
                if best is None or dist < best[0]:
                    best = (dist, (owner, prop))
        # "from Berlin", "in the UK", "based in", "located in": a place of the subject
        return best[1] if best else None

    def _target(self, low: str, labels_at, f: Frame) -> str | None:
        anchor_spans = [(m.start, m.end) for m in f.anchors]
        candidates = [(s, lb) for s, lb in labels_at if not any(a <= s < b for a, b in anchor_spans)]
        who = WHO_LABEL.get(self.view.spec.name)
        if re.match(r"\s*(who|whom)\b", low):
            for s, lb in candidates:
                if s < 25 and lb == who:
                    return lb
            return who
        if candidates:
            return candidates[0][1]
        # "Where was Marie Curie born?": the far end of a relationship the question names
        if f.anchors:
            anchor = f.anchors[0].label
            for rel in f.rel_hints:
                for src, dst in self.view.rels.get(rel, []):
                    if src == anchor and dst != anchor:
                        return dst
                    if dst == anchor and src != anchor:
                        return src
            return anchor
        return None

    def _comparisons(self, q, low, f: Frame, props_at, labels_at, blocked) -> None:
        used: list[tuple[int, int]] = []
        m_between = re.finditer(rf"between\s+({_NUM})\s+and\s+({_NUM})", low)
        for m in m_between:
            if re.fullmatch(YEAR, m.group(1)) and re.fullmatch(YEAR, m.group(2)):
                continue  # a span of years: _years (date strings compare as text)
            owner, prop = self._closest_numeric_prop(m.start(), m.end(), props_at, f) or (None, None)
            if owner:
                f.conds.append(Cond(owner, prop, ">=", _num(m.group(1)), self._rel_of(owner)))
                f.conds.append(Cond(owner, prop, "<=", _num(m.group(2)), self._rel_of(owner)))
                used.append((m.start(), m.end()))
        for pattern, op in COMPARATORS:
            for m in re.finditer(rf"\b{pattern}\s+({_NUM})\b", low):
                if any(a <= m.start() < b for a, b in used) or any(a <= m.start() < b for a, b in blocked):
                    continue
                if op == "=" and not re.match(r"(?:of|is|=|equal to|equals|exactly)\s", m.group(0)):
                    continue
                value = _num(m.group(m.lastindex))
                after = low[m.end():m.end() + 40]
                counted = self._counted_label(after, labels_at, m.end())
                if counted and op != "=":
                    f.agg, f.agg_label, f.having = "count", counted, (op, value)
                    used.append((m.start(), m.end()))
                    continue
                hit = self._closest_numeric_prop(m.start(), m.end(), props_at, f)
                if hit:
                    owner, prop = hit
                    f.conds.append(Cond(owner, prop, op, value, self._rel_of(owner)))
                    used.append((m.start(), m.end()))
        # "zero units in stock", "with 0 units on order"
        for m in re.finditer(r"\b(zero|no|0)\s+(units in stock|units on order|reorder level|stock)", low):
            hit = self._closest_numeric_prop(m.end(1), m.end(), props_at, f)
            if hit and not any(c.prop == hit[1] for c in f.conds):
                f.conds.append(Cond(hit[0], hit[1], "=", 0, self._rel_of(hit[0])))
        self._years(low, f, props_at, used + blocked)

    def _years(self, low: str, f: Frame, props_at, taken: list[tuple[int, int]]) -> None:
        """Years as conditions on a year or date property: ranges ("from 1939 to 1945", "between 2000 and
        2009"), decades ("the 1920s"), bounds ("before 1850", "since 1990") and single years ("in 1997",
        "the 2020 chemistry prize"). The property: the one a cue word names ("born" -> birth, "died" ->
        death, "won" -> award), else the nearest year-like property mentioned, else the single one of an
        anchored or mentioned label (or, for "in 1997", of the asked label). Several single years on one
        property are a disjunction and stay unbound. A date string compares as text ("1939" <= "1939-10-05")."""
        taken = list(taken)
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
            hit = self._year_cue(low, start, f) or self._year_prop(start, props_at, f, with_target=bool(plain_in))
            if hit:
                picked.append((hit, bounds))
        singles = [hit for hit, bounds in picked if bounds[0][0] == "="]
        for hit, bounds in picked:
            if bounds[0][0] == "=" and singles.count(hit) > 1:
                continue  # "1901 or 2001": not a conjunction; left unbound, the plan is declined
            owner, prop, typ = hit
            for op, year in bounds:
                if typ != "STRING":
                    f.conds.append(Cond(owner, prop, op, year, self._rel_of(owner)))
                elif op == "=":
                    f.conds.append(Cond(owner, prop, "STARTS WITH", str(year), self._rel_of(owner)))
                else:  # ISO date text: "<= 1945" is "<= '1945-99'" (after every 1945 date, before 1946)
                    bound = f"{year}-99" if op in ("<=", ">") else str(year)
                    f.conds.append(Cond(owner, prop, op, bound, self._rel_of(owner)))

    def _year_cue(self, low: str, pos: int, f: Frame) -> tuple[str, str, str] | None:
        """The year property a cue word before the year names, on a label of the frame, if exactly one."""
        window = low[max(0, pos - 40):pos]
        cues = [(r"\b(?:born|birth)", ("birth", "born")), (r"\b(?:died|dead|death|die)", ("death", "died")),
                (r"\b(?:released|release|came out)", ("released", "release")),
                (r"\b(?:won|win|awarded|award|prize|nobel)", ("award",)),
                (r"\b(?:ordered|order|placed)", ("orderdate",)), (r"\b(?:shipped|ship)", ("shippeddate",))]
        labels = [m.label for m in f.anchors] + f.labels_mentioned + [f.target]
        nearest = []  # cues by distance to the year: "orders shipped in 1997" is about shipping
        for pattern, stems in cues:
            found = [m.end() for m in re.finditer(pattern, window)]
            if found:
                nearest.append((len(window) - found[-1], stems))
        for _, stems in sorted(nearest):
            hits = []
            for label in dict.fromkeys(lb for lb in labels if lb):
                for p, t in self.view.nodes.get(label, {}).items():
                    name = p.lower()
                    if any(name.startswith(st) for st in stems) and (
                            t.startswith("INT") and ("year" in name or name in ("released", "born", "died"))
                            or t == "STRING" and name.endswith("date")):
                        hits.append((label, p, t))
            ints = [h for h in hits if h[2].startswith("INT")]
            pick = ints or hits
            if len({(lb, p) for lb, p, _ in pick}) == 1:
                return pick[0]
        return None

    def _string_conds(self, low: str, f: Frame, props_at, literals: list[Mention]) -> None:
        """Quoted literals that are not graph values: dates, prefixes, substrings ('... containing 'bags'')."""
        ops = [(r"(?:containing|contains|contain|includes|including|described as|with the word|mention(?:s|ing)?)", "CONTAINS"),
               (r"(?:starting with|starts with|start with|beginning with|begins with|begin with)", "STARTS WITH"),
               (r"(?:ending with|ends with|end with)", "ENDS WITH"),
               (r"(?:later than|after|since|from)", ">"), (r"(?:earlier than|before|prior to|until)", "<")]
        for lit in literals:
            before = low[max(0, lit.start - 30):lit.start]
            op = "="
            for pat, o in ops:
                if re.search(pat + r"\s*$", before.strip() + " ") or re.search(pat + r"\W*$", before):
                    op = o
                    break
            best = None
            for ps, pe, owner, prop in props_at:
                if self.view.prop_type(owner, prop) != "STRING" or owner in self.view.rel_props:
                    continue
                dist = lit.start - pe if pe <= lit.start else ps - lit.end + 20
                if best is None or dist < best[0]:
                    best = (dist, owner, prop)
            if best is None and f.target:
                best = (0, f.target, self.view.display(f.target))
            if best:
                f.conds.append(Cond(best[1], best[2], op, lit.text))

    def _counted_label(self, after: str, labels_at, pos: int) -> str | None:
        m = re.match(r"\s*(?:different|distinct|unique|separate)?\s*([a-z]+)", after)
        if not m:
            return None
        word = m.group(1)
        target = self.lex.entries.get(word)
        if target and "." not in target and not target.startswith("rel:"):
            return target
        return None

    def _closest_numeric_prop(self, s: int, e: int, props_at, f: Frame) -> tuple[str, str] | None:
        best = None
        for ps, pe, owner, prop in props_at:
            typ = self.view.prop_type(owner, prop)
            if typ not in ("INT64", "DOUBLE", "INT32", "FLOAT", "STRING"):
                continue
            dist = s - pe if pe <= s else ps - e
            if dist < 0:
                dist = 0
            penalty = 0 if typ != "STRING" else 15
            if best is None or dist + penalty < best[0]:
                best = (dist + penalty, (owner, prop))
        if best and best[0] <= 40:
            return best[1]
        return None

    def _year_prop(self, pos: int, props_at, f: Frame, with_target: bool = True) -> tuple[str, str, str] | None:
        best = None
        for ps, pe, owner, prop in props_at:
            typ = self.view.prop_type(owner, prop)
            if typ in ("INT64", "STRING") and ("date" in prop.lower() or "year" in prop.lower()
                                              or prop in ("released", "born")):
                dist = abs(pos - pe)
                if best is None or dist < best[0]:
                    best = (dist, (owner, prop, typ))
        if best:
            return best[1]
        # a year with no property named: the one year-like property of an anchored, mentioned or target label
        labels = [m.label for m in f.anchors] + f.labels_mentioned + ([f.target] if with_target else [])
        for label in dict.fromkeys(lb for lb in labels if lb):
            props = self.view.nodes.get(label, {})
            ints = [(p, t) for p, t in props.items() if t.startswith("INT") and (
                "year" in p.lower() or p in ("released", "born"))]
            dates = [(p, t) for p, t in props.items() if p.lower().endswith("date")]
            for cands in (ints, dates):
                if len(cands) == 1:
                    return (label, cands[0][0], cands[0][1])
        return None

    def _booleans(self, low: str, f: Frame, props_at) -> None:
        # "still alive" / "deceased": whether the label's death date or year is recorded
        life = re.search(r"\b(alive|living|still living|dead|deceased|passed away)\b", low)
        if life:
            for label in dict.fromkeys([f.target, *f.labels_mentioned]):
                death = [p for p in self.view.nodes.get(label or "", {}) if p.lower().startswith("death")]
                if death:
                    op = "IS NULL" if life.group(1) in ("alive", "living", "still living") else "IS NOT NULL"
                    f.conds.append(Cond(label, sorted(death)[0], op, None))
                    break
        for s, e, owner, prop in props_at:
            if self.view.prop_type(owner, prop) != "BOOL":
                continue
            before = low[max(0, s - 12):s]
            negated = bool(re.search(r"\b(not|non|never|n't)\b[\s-]*$", before))
            if not any(c.prop == prop for c in f.conds):
                f.conds.append(Cond(owner, prop, "=", not negated, self._rel_of(owner)))

    def _superlatives(self, low: str, f: Frame, props_at, labels_at) -> None:
        m = re.search(rf"\b(top|first)\s+({_NUM})\b", low) or re.search(
            rf"\b(?:which|what|list|name|identify|find|the)\s+({_NUM})\s+[a-z]", low)
        if m and not (m.lastindex == 1 and 1000 <= _num(m.group(1)) <= 2100):  # "the 2020 chemistry prize"
            f.limit = int(_num(m.group(m.lastindex)))
        sup = re.search(r"\b(most|highest|largest|greatest|biggest|maximum|least|lowest|smallest|fewest|"
                        r"minimum|cheapest|oldest|youngest|earliest|latest|newest)\b", low)
        if not sup and not re.search(r"\btop\b", low):
            return
        desc = True
        if sup:
            word = sup.group(1)
            desc = word not in ("least", "lowest", "smallest", "fewest", "minimum", "cheapest", "earliest",
                                "oldest")
            if word in ("youngest", "latest", "newest"):
                desc = True
        f.desc = desc
        pos = sup.end() if sup else 0
        # what follows the superlative: a property, "number of <label>", or a label
        after = [(s, owner, prop) for s, e, owner, prop in props_at if s >= pos - 1]
        if sup and sup.group(1) in ("oldest", "youngest"):
            born = [(s, o, p) for s, e, o, p in props_at if p in ("born", "birthYear")]
            if born:
                after = born
            else:
                for label, props in self.view.nodes.items():
                    if label == f.target:
                        for p in ("born", "birthYear"):
                            if p in props:
                                after = [(pos, label, p)]
                f.desc = sup.group(1) == "youngest"
        counted = None
        for s, lb in labels_at:
            if s >= pos and lb != f.target:
                counted = lb
                break
        freq = re.search(r"\b(?:most|least) (?:frequently|often|commonly) (\w+)", low)
        common = re.search(r"\bmost (?:common|frequent|popular|frequently \w+) ([a-z ]+?)(?: for| of| in| by|$|\?)", low)
        number_of = re.search(r"\b(?:number of|count of|amount of)\s+(?:different |distinct |unique )?([a-z ]+)", low)
        avg = re.search(r"\baverage\b|\bmean\b", low[pos:] if sup else low)
        total = re.search(r"\btotal\b|\bsum\b", low[pos:] if sup else low)
        if common and not counted:
            # "most common ship cities" -> group by that property of the target
            prop_hit = next(((o, p) for s, e, o, p in props_at if s >= common.start(1) - 1), None)
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
            if owner == f.target or self.view.prop_type(owner, prop) is None or owner in self.view.rel_props:
                f.order = prop if owner == f.target else None
                if owner != f.target:
                    f.agg, f.agg_label, f.agg_prop, f.order = "sum", owner, prop, "agg"
            else:
                f.agg, f.agg_label, f.agg_prop, f.order = "sum", owner, prop, "agg"
        elif counted or freq:
            if freq and not counted:
                rel_label = {"ordered": "Order", "purchased": "Order", "reviewed": "Person"}.get(freq.group(1))
                counted = rel_label if rel_label in self.view.nodes else None
            if counted:
                f.agg, f.agg_label, f.order = "count", counted, "agg"
        if f.limit is None and f.order:
            singular = re.search(r"\b(?:which|what) (\w+) (?:has|had|is|was)\b", low)
            f.limit = 1 if singular else None

    def _aggregates(self, low: str, f: Frame, props_at, labels_at) -> None:
        if f.agg:
            return
        if re.search(r"\bhow many\b|\bnumber of\b|\bcount\b", low):
            m = re.search(r"\bhow many\s+(?:different |distinct |unique )?([a-z]+)", low)
            counted = self.lex.entries.get(m.group(1)) if m else None
            if counted and ("." in counted or counted.startswith("rel:")):
                counted = None
            f.agg, f.agg_label = "count", counted or f.target
            if counted:
                f.target = counted
            return
        for word, agg in (("average", "avg"), ("mean", "avg"), ("total", "sum"), ("sum", "sum"),
                          ("maximum", "max"), ("minimum", "min")):
            m = re.search(rf"\b{word}\b", low)
            if m:
                prop = next(((o, p) for s, e, o, p in props_at if s > m.start()), None)
                if prop:
                    f.agg, f.agg_label, f.agg_prop = agg, prop[0], prop[1]
                    if re.search(r"\b(each|per|by)\b", low):
                        f.order = None
                    return

    def _asked_property(self, low: str, f: Frame, props_at) -> None:
        """'When was The Matrix released?' asks a property of the anchor, not a list of nodes."""
        if f.agg or f.order or not f.anchors:
            return
        anchor = f.anchors[0]
        if f.target not in (None, anchor.label):
            return
        for s, e, owner, prop in props_at:
            if owner == anchor.label and prop != anchor.prop:
                f.target, f.target_prop = anchor.label, prop
                return
        if re.match(r"\s*when\b", low):
            for prop, typ in self.view.nodes.get(anchor.label, {}).items():
                if prop in ("released", "born", "birthDate", "orderDate") or "year" in prop.lower():
                    f.target, f.target_prop = anchor.label, prop
                    return

    def unexplained(self, f: Frame) -> list[str]:
        """Content words of an unconstrained question (no anchor, no condition) that no schema name, value or
        filler word accounts for: "Which laureates were born in Iceland?" leaves "iceland", so a plan listing
        every laureate would answer another question."""
        if (f.anchors or f.conds or f.linked or f.agg not in (None, "count") or f.group_prop or f.order or f.limit
                or f.having):
            return []
        low = f.question.lower()
        covered = [(s, e) for s, e, _, _ in self.lex.scan(low, [])]
        words = []
        for m in re.finditer(r"[a-z][a-z'-]*", low):
            if any(a <= m.start() < b for a, b in covered):
                continue
            w = m.group(0).strip("'-")
            if w.endswith("'s"):
                w = w[:-2]
            if w and w not in STOP and w not in FILLER and w not in self.view.spec.name:
                words.append(w)
        return words

    def _rel_of(self, owner: str) -> str | None:
        return owner if owner in self.view.rel_props and owner not in self.view.nodes else None

    # ------------------------------------------------------------------ cypher
    def compile(self, question: str, mentions: list[Mention] | None = None,
                exemplar_rels: dict[str, float] | None = None) -> list[Compiled]:
        """Candidate plans for the question. ``exemplar_rels`` (relationship types used by verified plans of
        similar questions, from the plan cache) break ties between schema paths before the LLM is asked."""
        f = self.frame(question, mentions)
        if f.target is None:
            return []
        f.exemplar_rels = dict(exemplar_rels or {})
        f.linked = [(m.start, m.end) for m in f.anchors]
        return self.build(f)

    def build(self, f: Frame) -> list[Compiled]:
        v = self.view
        target = f.target
        params: dict[str, Any] = {}
        labels_needed: list[str] = [target]
        for m in f.anchors:
            labels_needed.append(m.label)
        for c in f.conds:
            if c.rel is None:
                labels_needed.append(c.label)
        if f.agg_label and f.agg_label not in v.rel_props:
            labels_needed.append(f.agg_label)
        rel_conds = [c for c in f.conds if c.rel] + ([Cond(f.agg_label, f.agg_prop or "", "", None, f.agg_label)]
                                                     if f.agg_label in v.rel_props else [])
        # variables
        var_of: dict[str, str] = {}
        taken: set[str] = set()

        def var(label: str) -> str:
            if label not in var_of:
                base = label[0].lower()
                name, i = base, 1
                while name in taken:
                    i += 1
                    name = f"{base}{i}"
                taken.add(name)
                var_of[label] = name
            return var_of[label]

        var(target)
        # self-relationship: "Who follows Keanu Reeves?" (target and anchor share a label)
        same = [m for m in f.anchors if m.label == target and f.target_prop is None]
        patterns: list[str] = []
        prefer = set(f.rel_hints)
        if same and any(r in v.rels and (target, target) in v.rels[r] for r in prefer):
            rel = next(r for r in prefer if r in v.rels and (target, target) in v.rels[r])
            a = same[0]
            av = "a"
            taken.add(av)
            patterns.append(f"({var_of[target]}:{ident(target)})-[:{rel}]->({av}:{ident(target)})")
            params["a0"] = a.value
            where = [f"{av}.{ident(a.prop)} = $a0"]
            f.anchors = [m for m in f.anchors if m is not a]
        else:
            where = []
        # connect every needed label to the target along schema paths
        rel_var: dict[str, str] = {}
        connected = {target}
        for label in dict.fromkeys(labels_needed):
            if label in connected:
                continue
            paths = v.paths(target, label, max_hops=3, prefer=prefer)
            if not paths:
                # try from any connected label
                for c in list(connected):
                    paths = v.paths(c, label, max_hops=3, prefer=prefer)
                    if paths:
                        break
                else:
                    f.notes.append(f"no path to {label}")
                    continue
                start = c
            else:
                start = target
            path = self._pick_path(paths, prefer, f.question, f.exemplar_rels)
            cur = start
            for rel, direction, other in path:
                rv = ""
                if any(c.rel == rel for c in rel_conds):
                    rv = rel_var.setdefault(rel, "r" if "r" not in taken else f"r{len(rel_var) + 1}")
                    taken.add(rv)
                arrow = f"-[{rv}:{rel}]->" if direction == "out" else f"<-[{rv}:{rel}]-"
                patterns.append(f"({var(cur)}:{ident(cur)}){arrow}({var(other)}:{ident(other)})")
                connected.add(other)
                cur = other
        if not patterns:
            patterns.append(f"({var(target)}:{ident(target)})")
        # anchors and conditions
        for i, m in enumerate(f.anchors):
            if m.label not in var_of:
                continue
            pname = f"v{i}"
            params[pname] = m.value
            where.append(f"{var_of[m.label]}.{ident(m.prop)} = ${pname}")
        for j, c in enumerate(f.conds):
            holder = rel_var.get(c.rel) if c.rel else var_of.get(c.label)
            if holder is None:
                continue
            if c.op in ("IS NULL", "IS NOT NULL"):
                where.append(f"{holder}.{ident(c.prop)} {c.op}")
                continue
            typ = v.prop_type(c.label, c.prop)
            value = c.value
            if typ == "STRING" and not isinstance(value, str):
                value = str(value)
            if typ in ("INT64", "INT32") and isinstance(value, float) and value.is_integer():
                value = int(value)
            pname = f"c{j}"
            params[pname] = value
            where.append(f"{holder}.{ident(c.prop)} {c.op} ${pname}")
        t = var_of[target]
        disp = f"{t}.{ident(v.display(target))}"
        match = "MATCH " + ", ".join(patterns)
        where_sql = (" WHERE " + " AND ".join(where)) if where else ""
        ret_props = [c for c in f.conds if c.label == target and c.rel is None and c.prop != v.display(target)]

        if f.target_prop:
            cypher = f"{match}{where_sql} RETURN DISTINCT {disp}, {t}.{ident(f.target_prop)}"
            if f.target_prop == v.display(target):
                cypher = f"{match}{where_sql} RETURN DISTINCT {disp}"
            return [Compiled(cypher, params, f, description="property of anchor")]

        if f.agg:
            agg_holder = rel_var.get(f.agg_label) if f.agg_label in v.rel_props else var_of.get(f.agg_label, t)
            if f.agg == "count":
                inner = f"count(DISTINCT {agg_holder})" if f.agg_label != target or f.group_prop else f"count(DISTINCT {t})"
                if f.group_prop:
                    inner = f"count({t})"
            else:
                inner = f"{f.agg}({agg_holder}.{ident(f.agg_prop)})"
            grouped = f.order == "agg" or f.having is not None or (f.agg_label != target and f.group_prop) or (
                f.agg_label not in (None, target))
            if f.group_prop:
                key = f"{t}.{ident(f.group_prop)}"
            else:
                key = disp
            if grouped:
                cypher = f"{match}{where_sql} WITH {key} AS {_alias(key)}, {inner} AS value"
                if f.having:
                    params["h"] = f.having[1]
                    cypher += f" WHERE value {f.having[0]} $h"
                cypher += f" RETURN {_alias(key)}, value"
                if f.order == "agg" or f.limit:
                    cypher += f" ORDER BY value {'DESC' if f.desc else 'ASC'}"
                if f.limit:
                    cypher += f" LIMIT {int(f.limit)}"
                return [Compiled(cypher, params, f, description="grouped aggregate")]
            cypher = f"{match}{where_sql} RETURN {inner} AS value"
            return [Compiled(cypher, params, f, description="aggregate")]

        cols = [disp] + [f"{var_of[c.label]}.{ident(c.prop)}" for c in ret_props]
        if (len(f.anchors) == 1 and f.anchors[0].label == target and not f.conds and len(connected) == 1
                and not f.limit):
            # "Tell me about Cloud Atlas": the entity itself, every property
            cols += [f"{t}.{ident(p)}" for p in v.nodes[target] if p != v.display(target)]
        if f.order and f.order in v.nodes.get(target, {}):
            ocol = f"{t}.{ident(f.order)}"
            if ocol not in cols:
                cols.append(ocol)
            cypher = (f"{match}{where_sql} RETURN {', '.join(dict.fromkeys(cols))} "
                      f"ORDER BY {ocol} {'DESC' if f.desc else 'ASC'}")
            if f.limit:
                cypher += f" LIMIT {int(f.limit)}"
            return [Compiled(cypher, params, f, description="ordered by property")]
        distinct = "DISTINCT " if len(patterns) > 0 and len(connected) > 1 else ""
        cypher = f"{match}{where_sql} RETURN {distinct}{', '.join(dict.fromkeys(cols))}"
        if f.limit:
            cypher += f" LIMIT {int(f.limit)}"
        return [Compiled(cypher, params, f, description="selection")]

    def _pick_path(self, paths: list[list], prefer: set[str], question: str = "",
                   exemplars: dict[str, float] | None = None) -> list:
        scored = sorted(paths, key=lambda p: -sum(step[0] in prefer for step in p))
        top = [p for p in scored if sum(s[0] in prefer for s in p) == sum(s[0] in prefer for s in scored[0])]
        if len(top) > 1 and exemplars:
            # the question's own words tie: the relationships of verified plans for similar questions decide
            weight = [sum(exemplars.get(step[0], 0.0) for step in p) / len(p) for p in top]
            best = max(weight)
            if best > 0 and weight.count(best) == 1:
                return top[weight.index(best)]
        if len(scored) > 1 and self.chooser is not None:
            if len(top) > 1:
                options = [" then ".join(f"{rel.lower().replace('_', ' ')} {other}" for rel, _, other in p) for p in top]
                try:
                    return top[self.chooser(f"Question: {question}\nWhich relation does the question use?", options)]
                except Exception:  # noqa: BLE001 - a failed choice keeps the ranked default
                    pass
        return scored[0]


def _alias(expr: str) -> str:
    return re.sub(r"\W", "_", expr.split(".")[-1].strip("`"))

