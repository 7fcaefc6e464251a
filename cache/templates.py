"""Parameterized plan reuse: a verified (question, Cypher) becomes a template with named slots.

:func:`make_template` finds the literals of a verified query (quoted strings, ``$param`` values, numbers
compared against, ``LIMIT n``) that also occur in the question, and replaces each with a slot: the question
becomes a skeleton ("Which products does <S1> supply?") and the query takes ``$S1``. :func:`fill` matches a
new question against the skeleton and fills every slot with a value of the right kind, or refuses (returns
``None``): a template is only reused when it is certainly the same query with other values.

Slot kinds and how they fill:

* ``entity``: a node's primary key or display property compared with ``=``; filled through the caller's
  linker ``link(text, label) -> [EntityCandidate]``, whose best candidate must carry the slot's label, score
  at least ``min_score`` and not tie with another node of that label.
* ``category``: any other node property compared with ``=`` (a prize category, a country name held as a
  plain property); filled through the caller's ``lookup(label, prop, text) -> value | None``.
* ``string``: a quoted span or a ``CONTAINS``/``STARTS WITH``/``ENDS WITH`` operand: the text itself.
* ``number`` / ``year``: digits in the question (a year is an integer in 1000..2999).

Matching is exact on the skeleton (case, spacing and final punctuation aside), or, when the caller passes
the new question's entity spans, token-similar: slot markers in the same order and kinds, token ratio at
least ``similarity`` and every differing token a neutral word (articles, "which"/"what", "list", ...), so
"Show the products of X" may reuse "List products of X", while "cheapest" never stands in for "dearest".
The module is independent of the planner: plain dataclasses and functions.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

SLOT_KINDS = ("entity", "string", "number", "year", "category")
NEUTRAL = frozenset("""
a an the which what who whom list show give name find tell me please all of are is were was do does did
""".split())

Linker = Callable[[str, str], list]  # (text, label) -> [EntityCandidate-like: label, key, name, score]
Lookup = Callable[[str, str, str], Any]  # (label, prop, text) -> value or None


@dataclass
class Slot:
    name: str  # "S1", "S2", ... in order of appearance in the question
    kind: str  # one of SLOT_KINDS
    label: str | None = None  # node label the value belongs to (entity, category)
    prop: str | None = None  # property compared with the value
    original_value: Any = None
    source: str = ""  # entity slots: "key" (candidate.key) or "name" (candidate.name)
    quoted: bool = False  # the value was quoted in the question
    inline: bool = False  # LIMIT n: written into the query text instead of a parameter


@dataclass
class PlanTemplate:
    skeleton_question: str
    cypher_template: str
    slots: list[Slot] = field(default_factory=list)
    fixed_params: dict[str, Any] = field(default_factory=dict)  # parameters that are not slots
    # constants of the query (strings, parameters) that no span of the question explains: a plan with any
    # is never learned, since reusing it would apply a filter the new question never asked for
    unexplained: list[Any] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping) -> PlanTemplate:
        return cls(data["skeleton_question"], data["cypher_template"], [Slot(**s) for s in data.get("slots", [])],
                   dict(data.get("fixed_params") or {}), list(data.get("unexplained") or []))


@dataclass
class Binding:
    """A literal of the question the caller linked: its text and the value the query uses for it."""

    text: str
    value: Any
    label: str | None = None
    prop: str | None = None
    kind: str | None = None  # forces the slot kind


@dataclass
class Span:
    """An entity span of a *new* question (for token-similar matching)."""

    text: str
    label: str | None = None


@dataclass
class Fill:
    cypher: str
    params: dict[str, Any]
    values: dict[str, Any]  # slot name -> filled value
    texts: dict[str, str]  # slot name -> question text it came from
    match: str  # "exact" or "similar"


# -- Cypher literal scanning ---------------------------------------------------------------------
_OPS = r"(=|<>|<=|>=|<|>|CONTAINS|STARTS\s+WITH|ENDS\s+WITH)"
_LHS = re.compile(r"(\w+)\s*\.\s*`?(\w+)`?\s*\)?\s*" + _OPS + r"\s*$", re.I)  # var.prop or f(var.prop)
_VAR_LABEL = re.compile(r"[(\[]\s*(\w+)\s*:\s*`?(\w+)`?")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_LIMIT = re.compile(r"\bLIMIT\s*$", re.I)


@dataclass
class _Site:
    start: int
    end: int
    value: Any
    var: str | None = None
    prop: str | None = None
    op: str | None = None
    param: str | None = None  # name when the site is a $param
    limit: bool = False


def _scan(cypher: str, params: Mapping[str, Any]) -> list[_Site]:
    """Literal sites of a query: strings, $params, numbers after a comparison, LIMIT n."""
    sites: list[_Site] = []
    i, n = 0, len(cypher)
    while i < n:
        c = cypher[i]
        if c == "`":  # quoted identifier: skip
            j = cypher.find("`", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c in "'\"":
            j, buf = i + 1, []
            while j < n and cypher[j] != c:
                if cypher[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(cypher[j])
                j += 1
            sites.append(_context(cypher, _Site(i, j + 1, "".join(buf))))
            i = j + 1
            continue
        if c == "$":
            m = re.match(r"\$(\w+)", cypher[i:])
            if m and m.group(1) in params:
                sites.append(_context(cypher, _Site(i, i + m.end(), params[m.group(1)], param=m.group(1))))
                i += m.end()
                continue
        if (c.isdigit() or c == "-") and (i == 0 or not (cypher[i - 1].isalnum() or cypher[i - 1] in "_.$")):
            m = _NUMBER.match(cypher, i)
            if m:
                text = m.group(0)
                value: Any = float(text) if "." in text else int(text)
                site = _context(cypher, _Site(i, m.end(), value))
                if site.op or site.limit:
                    sites.append(site)
                i = m.end()
                continue
        i += 1
    return sites


def _context(cypher: str, site: _Site) -> _Site:
    before = cypher[max(0, site.start - 120):site.start]
    m = _LHS.search(before)
    if m:
        site.var, site.prop, site.op = m.group(1), m.group(2), re.sub(r"\s+", " ", m.group(3).upper())
    elif _LIMIT.search(before):
        site.limit = True
    return site


# -- question spans ---------------------------------------------------------------------------------
def _find(question: str, text: str, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
    if not text:
        return None
    pat = re.compile(r"(?<![\w.])" + re.escape(text) + r"(?![\w]|\.\d)", re.I)
    for m in pat.finditer(question):
        if not any(m.start() < b and a < m.end() for a, b in taken):
            return m.start(), m.end()
    return None


def _number_texts(value: Any) -> list[str]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [str(value), f"{value:,}"] if abs(value) >= 1000 else [str(value)]
    if isinstance(value, float):
        return [str(int(value)), repr(value)] if value.is_integer() else [repr(value)]
    return []


def _is_year(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 2999


def _quoted(question: str, start: int, end: int) -> bool:
    return 0 < start and end < len(question) and question[start - 1] in "'\"‘“" and question[end] in "'\"’”"


def make_template(question: str, cypher: str, params: Mapping[str, Any] | None = None, *,
                  bindings: Iterable[Binding] = (), keys: Mapping[str, str] | None = None,
                  display: Mapping[str, str] | None = None) -> PlanTemplate:
    """Template of a verified query: literals that also occur in the question become slots.

    ``keys`` / ``display`` map node labels to their primary-key / display property (a DomainSpec's
    ``primary_keys`` and ``display``); they decide which string literals are entity slots. ``bindings``
    name question spans whose text differs from the value (linked entities).
    """
    params = dict(params or {})
    keys, display = dict(keys or {}), dict(display or {})
    labels = {m.group(1): m.group(2) for m in _VAR_LABEL.finditer(cypher) if m.group(1)}
    bindings = list(bindings)
    sites = _scan(cypher, params)

    taken: list[tuple[int, int]] = []
    found: list[tuple[int, int, Slot, list[_Site]]] = []
    by_value: dict[tuple[str, Any], list[_Site]] = {}
    for s in sites:
        by_value.setdefault((type(s.value).__name__, s.value), []).append(s)
    for (_, value), group in by_value.items():
        first = next((s for s in group if s.op), group[0])
        label = labels.get(first.var) if first.var else None
        binding = next((b for b in bindings if b.value == value and (b.label in (None, label))), None)
        span = None
        if binding is not None:
            span = _find(question, binding.text, taken)
        if span is None:
            texts = [value] if isinstance(value, str) else _number_texts(value)
            for t in texts:
                span = _find(question, t, taken)
                if span:
                    break
        if span is None:
            continue
        slot = _classify(value, first, label, binding, keys, display, _quoted(question, *span))
        if slot is None:
            continue
        taken.append(span)
        found.append((span[0], span[1], slot, group))

    found.sort(key=lambda f: f[0])
    skeleton, cy = question, cypher
    fixed = dict(params)
    replacements: list[tuple[int, int, str]] = []
    for idx, (start, end, slot, group) in enumerate(found, 1):
        slot.name = f"S{idx}"
        for s in group:
            replacements.append((s.start, s.end, f"${slot.name}"))
            if s.param:
                fixed.pop(s.param, None)
    for start, end, slot, _ in sorted(found, key=lambda f: -f[0]):
        skeleton = skeleton[:start] + f"<{slot.name}>" + skeleton[end:]
    for start, end, text in sorted(replacements, key=lambda r: -r[0]):
        cy = cy[:start] + text + cy[end:]
    # parameters whose every use became a slot are gone; the rest stay fixed
    fixed = {k: v for k, v in fixed.items() if re.search(rf"\${re.escape(k)}\b", cy)}
    slotted = {id(s) for *_, group in found for s in group}
    # a non-empty string (node names, categories, CONTAINS operands) must come from the question; numbers a
    # compiler derives from words ("more than five") and empty strings are structure
    unexplained = list(dict.fromkeys(s.value for s in sites
                                     if id(s) not in slotted and isinstance(s.value, str) and s.value.strip()))
    return PlanTemplate(skeleton, cy, [f[2] for f in found], fixed, unexplained)


def _classify(value, site: _Site, label, binding: Binding | None, keys, display, quoted: bool) -> Slot | None:
    prop = binding.prop if binding and binding.prop else site.prop
    slot = Slot("", "", label, prop, value, quoted=quoted)
    if binding is not None and binding.kind:
        slot.kind = binding.kind
    elif binding is not None and label and prop and site.op == "=" and prop in (keys.get(label), display.get(label)):
        slot.kind, slot.source = "entity", "key" if prop == keys.get(label) else "name"  # a linked node
    elif site.limit:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        slot.kind, slot.inline = "number", True
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if site.op is None and not site.param:
            return None
        slot.kind = "year" if _is_year(value) else "number"
    elif isinstance(value, str):
        if site.op in ("CONTAINS", "STARTS WITH", "ENDS WITH"):
            slot.kind = "string"
        elif label and prop and prop == keys.get(label):
            slot.kind, slot.source = "entity", "key"
        elif label and prop and prop == display.get(label):
            slot.kind, slot.source = "entity", "name"
        elif label and prop:
            slot.kind = "category"
        elif quoted:
            slot.kind = "string"
        else:
            return None
    else:
        return None
    if slot.kind == "entity" and not slot.source:
        slot.source = "key" if label and prop == keys.get(label) else "name"
    if slot.kind not in SLOT_KINDS:
        return None
    return slot


# -- matching a new question -----------------------------------------------------------------------
# Matching is linear: no regex runs over the question with a slot pattern (a learned skeleton with several
# ``.+?`` slots backtracks super-linearly on a long question of quote fragments). The skeleton is split into
# literal parts and slots; each literal part is found left to right with ``str.find`` and each slot takes the
# text in between, bounded by ``max_slot_chars``. A string slot never holds a quote character, and no slot
# holds a quoted span, so a question with more (or fewer) quoted literals than the template is not a match.
_TRAIL = re.compile(r"[\s?.!]+$")
_MARK = re.compile(r"<(S\d+)>")
_NUM_CAPTURE = r"(-?\d[\d,]*(?:\.\d+)?)"
_NUMBER_TEXT = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
QUOTES = "'\"‘’“”"
MAX_SLOT_CHARS = 200


def normalize(text: str) -> str:
    """Returns ``text`` with whitespace collapsed and final punctuation removed."""
    return _TRAIL.sub("", " ".join(text.split()))


def _lower(text: str) -> str:
    """Returns ``text`` lower-cased character by character, keeping its length (positions stay valid)."""
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def skeleton_parts(template: PlanTemplate) -> tuple[list[str], list[Slot]]:
    """Returns (literal parts, slots) of the skeleton: ``len(parts) == len(slots) + 1``, part ``i`` before
    slot ``i``."""
    by_name = {s.name: s for s in template.slots}
    parts, slots, pos = [], [], 0
    skel = normalize(template.skeleton_question)
    for m in _MARK.finditer(skel):
        parts.append(skel[pos:m.start()])
        slots.append(by_name.get(m.group(1)) or Slot(m.group(1), "string"))
        pos = m.end()
    parts.append(skel[pos:])
    return parts, slots


def _opens_quote(text: str) -> bool:
    """Whether ``text`` holds a quoted span: a quote character not between two letters (an apostrophe
    inside "Ender's" is not one)."""
    for i, c in enumerate(text):
        if c in QUOTES and not (0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()):
            return True
    return False


def match_skeleton(template: PlanTemplate, question: str, *, max_slot_chars: int = MAX_SLOT_CHARS
                   ) -> dict[str, str] | None:
    """Returns {slot name: question text} when ``question`` is the template's skeleton with each slot's
    text in place (case, spacing and final punctuation aside), else None. Linear in the question's length
    (``str.find`` per literal part); a slot is non-empty, at most ``max_slot_chars`` long, holds a number
    when its kind is number/year, and never a quoted span (a string slot never a quote character)."""
    parts, slots = skeleton_parts(template)
    q = normalize(question)
    ql, lits = _lower(q), [_lower(p) for p in parts]
    if not slots:
        return {} if ql == lits[0] else None
    if not ql.startswith(lits[0]):
        return None
    pos, texts = len(lits[0]), {}
    for i, slot in enumerate(slots):
        nxt = lits[i + 1]
        if i == len(slots) - 1:
            end = len(ql) - len(nxt)
            if end <= pos or not ql.endswith(nxt):
                return None
        else:
            if not nxt.strip():
                return None  # two slots side by side: where one ends is a guess, so no match
            end = ql.find(nxt, pos + 1, pos + 1 + max_slot_chars + len(nxt))
            if end < 0:
                return None
        text = q[pos:end]
        if not _slot_text_ok(slot, text, max_slot_chars):
            return None
        texts[slot.name] = text.strip()
        pos = end + len(nxt)
    return texts


def _slot_text_ok(slot: Slot, text: str, max_slot_chars: int) -> bool:
    text = text.strip()
    if not text or len(text) > max_slot_chars:
        return False
    if slot.kind in ("number", "year"):
        return _NUMBER_TEXT.fullmatch(text) is not None
    if slot.kind == "string" or slot.quoted:
        return not any(c in QUOTES for c in text)
    return not _opens_quote(text)


def skeleton_pattern(template: PlanTemplate) -> re.Pattern:
    """Regex of the skeleton, for display and tests only (matching is :func:`match_skeleton`): literal
    parts match case-insensitively, each slot captures its value without crossing a quote."""
    out = []
    parts, slots = skeleton_parts(template)
    for part, slot in zip(parts, slots):
        out.append(_literal(part))
        body = _NUM_CAPTURE[1:-1] if slot.kind in ("number", "year") else f"[^{QUOTES}]+?"
        out.append(f"(?P<{slot.name}>{body})")
    out.append(_literal(parts[-1]))
    return re.compile("^" + "".join(out) + "$", re.I | re.S)


def _literal(part: str) -> str:
    return r"\s+".join(re.escape(w) for w in part.split(" ")) if part else ""


def _tokens(text: str) -> list[str]:
    return re.findall(r"<S\d+>|[\w']+", text.casefold())


def fill(template: PlanTemplate, question: str, link: Linker | None = None, *, lookup: Lookup | None = None,
         spans: Iterable[Span] | None = None, min_score: float = 0.9, margin: float = 0.02,
         similarity: float = 0.9, max_slot_chars: int = MAX_SLOT_CHARS) -> Fill | None:
    """Fill ``template`` from ``question``, or ``None`` when the question is not the same query.

    The exact skeleton is tried first (:func:`match_skeleton`, linear); with ``spans`` (the new question's
    entity spans) a token-similar skeleton is accepted too (see the module docstring). A template holding
    constants no question span explains (``unexplained``) is never filled.
    """
    if template.unexplained:
        return None
    q = normalize(question)
    texts = match_skeleton(template, q, max_slot_chars=max_slot_chars)
    how = "exact"
    if texts is None:
        texts = _similar(template, q, spans, similarity, max_slot_chars) if spans is not None else None
        if texts is None:
            return None
        how = "similar"
    values: dict[str, Any] = {}
    for slot in template.slots:
        v = _fill_slot(slot, texts[slot.name], link, lookup, min_score, margin)
        if v is None:
            return None
        values[slot.name] = v
    cypher = template.cypher_template
    params = dict(template.fixed_params)
    for slot in sorted(template.slots, key=lambda s: -len(s.name)):
        if slot.inline:
            cypher = re.sub(rf"\${slot.name}\b", str(int(values[slot.name])), cypher)
        else:
            params[slot.name] = values[slot.name]
    return Fill(cypher, params, values, texts, how)


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted span's content in ``text``, left to right, in O(n log n): an opening quote
    not preceded by a letter, closed by the next quote of its kind not followed by one."""
    import bisect

    pairs = {"'": "'", '"': '"', "‘": "’", "“": "”"}
    closers: dict[str, list[int]] = {c: [] for c in set(pairs.values())}
    for i, c in enumerate(text):
        if c in closers and (i + 1 == len(text) or not text[i + 1].isalnum()):
            closers[c].append(i)
    out, pos = [], 0
    for i, c in enumerate(text):
        if i < pos or c not in pairs or (i > 0 and text[i - 1].isalnum()):
            continue
        ends = closers[pairs[c]]
        k = bisect.bisect_right(ends, i)
        if k < len(ends) and ends[k] > i + 1:
            out.append((i + 1, ends[k]))
            pos = ends[k] + 1
    return out


def _similar(template: PlanTemplate, q: str, spans: Iterable[Span], threshold: float,
             max_slot_chars: int = MAX_SLOT_CHARS) -> dict[str, str] | None:
    """Slot texts when ``q`` with its quoted literals, spans and numbers marked is token-similar to the
    skeleton (same number of marks as slots, each of the slot's kind)."""
    quoted = quoted_spans(q)
    if len(quoted) != sum(1 for s in template.slots if s.quoted) + _opening_quotes_outside_slots(template):
        return None  # another number of quoted literals: another query
    marks: list[tuple[int, int, str]] = [(a, b, q[a:b]) for a, b in quoted if q[a:b].strip()]
    for sp in spans:
        loc = _find(q, sp.text, [(a, b) for a, b, _ in marks])
        if loc:
            marks.append((loc[0], loc[1], sp.text))
    for nm in re.finditer(_NUM_CAPTURE, q):
        if not any(nm.start() < b and a < nm.end() for a, b, _ in marks) and (
                nm.start() == 0 or not q[nm.start() - 1].isalnum()):
            marks.append((nm.start(), nm.end(), nm.group(0)))
    marks.sort()
    slots = template.slots  # already in question order (S1, S2, ...)
    if len(marks) != len(slots):
        return None
    skel, texts = q, {}
    for (a, b, text), slot in sorted(zip(marks, slots), key=lambda x: -x[0][0]):
        is_num = bool(re.fullmatch(_NUM_CAPTURE, text))
        if (slot.kind in ("number", "year")) != is_num or not _slot_text_ok(slot, text, max_slot_chars):
            return None
        if slot.quoted != ((a, b) in quoted):
            return None  # a quoted literal fills only a quoted slot
        skel = skel[:a] + f"<{slot.name}>" + skel[b:]
        texts[slot.name] = text
    new, old = _tokens(skel), _tokens(normalize(template.skeleton_question))
    if [t for t in new if t.startswith("<")] != [t for t in old if t.startswith("<")]:
        return None
    sm = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    if sm.ratio() < threshold:
        return None
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op != "equal" and any(t not in NEUTRAL for t in old[i1:i2] + new[j1:j2]):
            return None
    return texts


def _opening_quotes_outside_slots(template: PlanTemplate) -> int:
    """Quoted literals the skeleton's fixed text holds (outside its slots)."""
    return len(quoted_spans(_MARK.sub("x", normalize(template.skeleton_question)))) - sum(
        1 for s in template.slots if s.quoted)


def _fill_slot(slot: Slot, text: str, link, lookup, min_score: float, margin: float) -> Any:
    text = text.strip()
    if not text:
        return None
    if slot.kind in ("number", "year"):
        try:
            raw = text.replace(",", "")
            value: Any = float(raw) if "." in raw else int(raw)
        except ValueError:
            return None
        if slot.kind == "year" and not _is_year(value):
            return None
        if slot.inline and (not isinstance(value, int) or value <= 0):
            return None
        if isinstance(slot.original_value, float) and isinstance(value, int):
            value = float(value)
        return value
    if slot.kind == "string":
        return text
    if slot.kind == "category":
        if lookup is None or not slot.label or not slot.prop:
            return None
        return lookup(slot.label, slot.prop, text)
    if slot.kind == "entity":
        if link is None or not slot.label:
            return None
        cands = [c for c in (link(text, slot.label) or [])]
        if not cands:
            return None
        top = cands[0]
        if top.label != slot.label or top.score < min_score:
            return None
        if any(c.label == slot.label and c.key != top.key and c.score >= top.score - margin for c in cands[1:]):
            return None  # ambiguous: two nodes of the label match about equally
        value = top.key if slot.source == "key" else top.name
        if isinstance(slot.original_value, int) and not isinstance(slot.original_value, bool):
            try:
                return int(value)
            except (TypeError, ValueError):
                return None
        return value
    return None
