"""Where a value attaches in a question: the property written before it (:func:`prop_before`), the comparison
written between them (:func:`comparator`, or after the value: :func:`trailing_comparator`), a substring match
(:func:`string_op`), and whether a property word is a condition's rather than one asked for
(:func:`value_after`, :func:`bound_prop`); the property a linked value's words name beside a possessive
(:func:`possessed`), or the one that holds it of those named (:func:`holding`). The words are
:mod:`kgqa.planner.reader.cues`' tables.
"""

from __future__ import annotations

from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import Item, Reading, Value
from kgqa.planner.reader.schema_terms import Term
from kgqa.text import name_words


def value_after(r: Reading, it: Item) -> bool:
    """Whether a value follows the item closely (it is a condition's property, not one asked for); not a value
    that modifies the label noun after it ("the unit price of jazz tracks": jazz says which tracks), nor a number
    of rows ("the names of the 3 products")."""
    return any(it.end <= v.start <= it.end + 4 and not any(x.start < v.start and x.start >= it.end for x in r.items)
               and not _rows_counted(r, it, v) and not _modifies_label(r, v) and not _not_its_value(r, it, v)
               for v in r.values)


def _rows_counted(r: Reading, it: Item, v: Value) -> bool:
    """Whether ``v`` is the number of rows asked after a property asked for ("the partID and partName of the
    first 3 products"); not after "the names of" (what names them), nor after an aggregate ("the total population of
    the top 3 districts": of which rows)."""
    before = r.lemmas[max(0, it.start - 2):it.start]
    return v.kind == "limit" and r.lemmas[it.start] not in cues.NAMING_WORDS and \
        not any(w in cues.AGGREGATES for w in before)


def _not_its_value(r: Reading, it: Item, v: Value) -> bool:
    """Whether a value after a property item is not that property's: a name after "named" ("the nickname of the
    employee named Janessa"), a person's name written whole ("Janessa Sawayn"), a number that counts the label
    after it ("more than one publication"), a graph value no property of the item holds ("the age for a male"), a
    value in a clause of "who" ("the student ids who are older than 20": the students are older)."""
    return it.end < v.start - 1 and r.doc[v.start - 1].lower_ in ("named", "called", "titled") or \
        "who" in r.lemmas[it.end:v.start] or \
        _full_name(r, v) or _counts_label(r, v) or _held_elsewhere(r, it, v)


def _held_elsewhere(r: Reading, it: Item, v: Value) -> bool:
    """Whether a linked value is held by no property of the item, nor by one whose name begins with it ("the
    average age for a male"; not "a sender bank in 'Spain'": sender_bank_country), the item not after a
    possessive ("the bank's country is 'Spain'")."""
    if v.kind != "linked" or not v.options or it.start > 0 and r.doc[it.start - 1].tag_ == "POS":
        return False
    return not any(lb == t.owner and p.lower().startswith(t.prop.lower()) for t in it.terms if t.kind == "prop"
                   for lb, p in v.options)


def _counts_label(r: Reading, v: Value) -> bool:
    """Whether a number counts the label named right after it ("more than one publication")."""
    gap = counted_at(r, v)
    return v.kind == "number" and any(x.start == gap and "label" in x.kinds() for x in r.items)


def counted_at(r: Reading, v: Value) -> int:
    """Returns the token after a value and the words that bound it ("2 or more", "3 different"): where the thing
    a number counts is named."""
    gap = v.end
    while gap < len(r.doc) and (r.lemmas[gap] in ("more", "less", "fewer", "different", "distinct", "unique") or
                                r.lemmas[gap] == "or" and r.lemmas[gap + 1:gap + 2] in (["more"], ["less"], ["fewer"])):
        gap += 1  # not "after 2000 or reviewed by": another condition
    if r.lemmas[gap:gap + 2] == ["number", "of"] and not any(x.start <= gap < x.end for x in r.items):
        gap += 2  # "more than 30 number of students": the students
    return gap


def _modifies_label(r: Reading, v: Value) -> bool:
    tok = r.doc[v.end - 1]
    return tok.dep_ in ("compound", "amod") and tok.head.i >= v.end and any(
        x.start <= tok.head.i < x.end and "label" in x.kinds() for x in r.items)


def bound_prop(r: Reading, it: Item) -> bool:
    lem = r.lemmas
    return it.start > 0 and lem[it.start - 1] in ("whose", "where", "with", "by") and value_after(r, it)


def prop_before(r: Reading, v: Value) -> Item | None:
    """The property item written closest before a value, with only comparison words between."""
    before = [it for it in r.items if it.end <= v.start and "prop" in it.kinds()]
    after = [it for it in r.items if it.start == v.end and "prop" in it.kinds() and v.kind == "number"]
    if after and (not before or any(x.end <= v.start and x.start >= before[-1].end for x in r.items
                                    if x is not before[-1]) or v.start - before[-1].end > 4):
        return after[0]  # "with more than 2000 outstanding balance"
    if not before or _modifies_label(r, v):
        return None
    it = before[-1]
    if _not_its_value(r, it, v):
        return None  # "the nickname of the employee named Janessa Sawayn": her name, not the nickname
    between = [t for t in r.doc[it.end:v.start]]
    if len(between) > 6 or any(x.start >= it.end and x.end <= v.start for x in r.items if x is not it):
        return None
    return it


def _full_name(r: Reading, v: Value) -> bool:
    """Whether a linked value is one part of a person's name written whole: next to another linked value of the
    same label, the two held by its first and last name properties."""
    if v.kind != "linked":
        return False
    other = next((x for x in r.values if x.kind == "linked" and x.label == v.label and
                  (x.start == v.end or x.end == v.start)), None)
    if other is None:
        return False
    first, last = sorted((v, other), key=lambda x: x.start)
    return bool(set(name_words(first.prop)) & cues.NAME_PARTS[0]) and \
        bool(set(name_words(last.prop)) & cues.NAME_PARTS[1])


def comparator(lem: list[str], a: int, b: int) -> tuple[str | None, list[tuple[int, int]]]:
    """The comparison written in tokens ``[a, b)`` (longest phrase), with its span."""
    words = lem[a:b]
    quiet = [(a + i, a + i + 1) for i, w in enumerate(words) if w in cues.FILLER or w in ("be", "is", "are", "was",
                                                                                          "were", "=", "equal")]
    for phrase, op in sorted(cues.COMPARATORS, key=lambda p: -len(p[0])):
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if tuple(words[i:i + n]) == phrase:
                return op, quiet + [(a + i, a + i + n)]
    return None, quiet


def trailing_comparator(lem: list[str], end: int) -> tuple[str | None, tuple[int, int]]:
    """The comparison written right after a value ending at ``end`` ("100 or more", "2005 or after"), with its
    span; not one that opens the next condition ("before 2000 or after the year 2010")."""
    for phrase, op in cues.TRAILING_COMPARATORS:
        nxt = lem[end + len(phrase):end + len(phrase) + 1]
        if tuple(lem[end:end + len(phrase)]) == phrase and nxt != ["than"] and not (
                phrase[-1] in cues.PREPOSED and nxt and nxt[0].isalnum() and nxt[0] not in ("and", "or") and
                nxt[0] not in cues.RELATIVES):  # "in year 2001 or before whose amount ...": the clause ends
            return op, (end, end + len(phrase))
    return None, (end, end)


def denied_after(lem: list[str], start: int, end: int) -> list[tuple[int, int]] | None:
    """The denial said right after a value ``[start, end)`` that "but" opens ("Alison visited but Rosalind did not
    visit"), with the verb restated when it was said before: its spans, else None."""
    if lem[start - 1:start] != ["but"]:
        return None
    k = end + (lem[end:end + 1] in (["do"], ["have"], ["be"]))
    if lem[k:k + 1] not in (["not"], ["never"]):
        return None
    k += 1
    return [(start - 1, start), (end, k + (k < len(lem) and lem[k] in lem[:start - 1]))]


def string_op(lem: list[str], a: int, b: int) -> tuple[str, tuple[int, int]] | None:
    for i in range(max(0, a), b):
        if lem[i] in cues.STRING_CUES:
            return cues.STRING_CUES[lem[i]], (i, b)
    return None


def named_before(lem: list[str], start: int) -> bool:
    return start > 0 and lem[start - 1] in ("name", "named", "call", "called", "title", "titled")


def label_beside(r: Reading, v: Value) -> Term | None:
    """Returns the label term of a linked value said alone (no other linked value shares a holder: of "both
    Statistics and Psychology departments" the noun is each one's) whose label holds it and is named right after
    it ("Statistics courses") or just before its preposition ("airports in Italy", "customers from the USA"); else
    None."""
    holders = {lb for lb, _ in v.options}
    if any(o is not v and o.kind == "linked" and set(o.options) & set(v.options) for o in r.values):
        return None
    after = [x for x in r.items if x.start == v.end]
    before = [x for x in r.items if x.end < v.start <= x.end + 3 and any(t.pos_ == "ADP" for t in r.doc[x.end:v.start])
              and all(t.pos_ in ("ADP", "DET") or t.lemma_.lower() in cues.PLACE_VERBS for t in r.doc[x.end:v.start])]
    # "customers from the USA", "customers located in 'Germany'"
    for x in after + before:  # the nearest word first; one that names several of the holders chooses none
        found = sorted({t.owner for t in x.terms if t.kind == "label" and t.owner in holders})
        if found:
            return min((t for t in x.terms if t.kind == "label" and t.owner == found[0]), key=repr) \
                if len(found) == 1 else None
    return None


def possessed(r: Reading, it: Item | None, v: Value) -> Term | None:
    """The one property holding linked value ``v`` whose name is the item before a possessive and the item after
    it ("the sender bank's country": sender_bank_country), the words before read; else None."""
    if it is None or it.start < 2 or r.doc[it.start - 1].tag_ != "POS":
        return None
    before = next((x for x in r.items if x.end == it.start - 1), None)
    if before is None:
        return None
    said = [w for w in r.lemmas[before.start:before.end] + r.lemmas[it.start:it.end] if w.isalnum()]
    fits = [(lb, p) for lb, p in v.options if name_words(p) == said or name_words(p)[:len(said)] == said]
    if len(fits) != 1:
        return None
    before.term = Term("prop", *fits[0])
    r.use((before.start, it.start))
    return Term("prop", *fits[0])


def holding(r: Reading, term: Term, v: Value, it: Item | None) -> Term | None:
    """The property holding value ``v`` whose name starts with the words written, else a decline saying that
    none holds it. The words tried, longest first: the item after a possessive joined to the one before it ("the
    sender bank's country": sender_bank_country), the item's own words ("sender bank":
    sender_bank, not sender_bank_id), the chosen property's name."""
    saids = []
    if it is not None:
        own = [w for w in r.lemmas[it.start:it.end] if w.isalnum()]
        before = next((x for x in r.items if x.end == it.start - 1), None)
        if before is not None and r.doc[it.start - 1].tag_ == "POS":
            saids.append([w for w in r.lemmas[before.start:before.end] if w.isalnum()] + own)
        saids.append(own)
    saids.append(name_words(term.prop or ""))
    labels = set(r.query.nodes.values()) | {t.owner for x in r.items for t in x.terms if t.kind == "label"}
    for said in saids:
        fits = [(lb, p) for lb, p in v.options if said and name_words(p)[:len(said)] == said and
                (lb, p) != (term.owner, term.prop) and (lb == term.owner or lb in labels)]
        if len(fits) == 1:
            return Term("prop", fits[0][0], fits[0][1])
    r.decline(f"no {term.owner} has {term.prop} {v.value!r}")
    return None
