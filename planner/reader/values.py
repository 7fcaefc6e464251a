"""The values a question states, for the grammar reader (:func:`values`): linked graph values, quoted texts, a
word searched for unquoted, numbers, dates, how many rows; a lower-case word the linker took for a value is kept
only where the question says it as one."""

from __future__ import annotations

from kgqa.planner.reader import cues
from kgqa.planner.reader.parse import char_span, quoted_value
from kgqa.planner.reader.reading import Reading, Value, parse_number
from kgqa.planner.reader.times import dates, decade
from kgqa.planner.reader.value_nouns import genders, plural_values
from kgqa.text import fold


def _object_named(r: Reading, t) -> bool:
    """Whether a lower-case noun spelled otherwise in the graph ('Milk') still names its value: a singular noun,
    the object of a preposition or joined to one, that names nothing in the schema ("allergic to milk but not
    cat")."""
    return t.tag_ == "NN" and t.dep_ in ("pobj", "conj") and not r.terms.lookup([t.lower_]) and \
        t.lemma_.lower() not in cues.FILLER


def _value_noun(r: Reading, t, m) -> bool:
    """Whether a lower-case noun spelled otherwise in the graph ('Clothes', 'Hardware') is written as that value:
    the value itself in another case, naming nothing in the schema, either a plural object or one joined to one
    ("the average price of clothes"), or a modifier of a noun that names the value's own label ("the hardware
    product") or a label one relationship from it ("the physics laureates": of the Physics prizes)."""
    if fold(t.text) != fold(str(m.value)) or r.terms.lookup([t.lower_]) or t.lemma_.lower() in cues.FILLER:
        return False
    if t.dep_ in ("compound", "amod"):
        heads = {x.owner for x in r.terms.lookup([t.head.lower_]) if x.kind == "label"}
        return m.label in heads or any(r.view.paths(h, m.label, max_hops=1, prefer=set()) for h in heads)
    return t.tag_ == "NNS" and t.dep_ in ("pobj", "conj")


def _after_its_property(r: Reading, t, m) -> bool:
    """Whether a lower-case word spelled otherwise in the graph ('done', 'Paper') is written right after the name of
    the property that holds it ("documents with the status code done"): it says the value."""
    words = [x.lower_ for x in r.doc[max(0, t.i - 3):t.i]]
    held = {(m.label, m.prop)} | {(a[0], a[1]) for a in m.alternatives}
    return any(any(x.kind == "prop" and (x.owner, x.prop) in held for x in r.terms.lookup(words[-n:]))
               for n in range(1, len(words) + 1))


def _before_its_property(r: Reading, t, m) -> bool:
    """Whether a lower-case word spelled otherwise in the graph ('Fall') is written right before the name of the
    property that holds it ("in the fall election cycle"): it says the value."""
    words = [x.lower_ for x in r.doc[t.i + 1:t.i + 4]]
    return any(any(x.kind == "prop" and x.owner == m.label and x.prop == m.prop for x in r.terms.lookup(words[:n]))
               for n in range(1, len(words) + 1))


def _unquoted(r: Reading, t) -> str | None:
    """A word searched for in a text, unquoted, after the word for it or a verb of searching (cues.WORD_WORDS,
    cues.TEXT_VERBS: "the word FREEDOM", "a tagline that mentions love", "starting with Mc"), a property's word
    said at most four words before: one alphabetic word that names nothing in the schema and is no function word;
    else None."""
    doc, lem = r.doc, r.lemmas
    cue_nouns = cues.SUBSTRING_WORDS | cues.WORD_WORDS | cues.LETTER_WORDS | set(cues.STRING_CUES)
    if not t.is_alpha or t.is_stop or t.i == 0 or t.pos_ not in ("NOUN", "PROPN", "ADJ", "X") or \
            lem[t.i] in cue_nouns or r.terms.lookup([t.lower_]) or not any(
            term.kind == "prop" for x in doc[max(0, t.i - 6):t.i - 1] for term in r.terms.lookup([x.lower_])):
        return None
    before = lem[t.i - 1]
    if before in cues.WORD_WORDS and not r.terms.lookup([doc[t.i - 1].lower_]):
        return t.text
    verb = t.i - 1 - (before in ("with", "in"))
    if verb < 0 or lem[verb] not in cues.TEXT_VERBS or before == "in" and (lem[verb] != "end" or not t.is_lower):
        return None
    relative = verb > 0 and doc[verb - 1].lower_ in ("that", "which")  # "names that end in": a verb the parse misses
    return t.text if doc[verb].pos_ == "VERB" or relative else None


def values(r: Reading) -> None:
    """Linked values and quoted literals (from the lexicon's mentions), then numbers, become :class:`Value`s."""
    doc = r.doc
    for m in r.mentions:
        span = char_span(doc, m.start, m.end)
        if span is None or (not m.label and len(span) > 1):
            continue  # a quoted schema name ('book 45'), read as words
        if m.label and len(span) == 1 and span[0].pos_ in ("VERB", "AUX", "ADP", "ADV", "DET", "PRON", "SCONJ") \
                and span[0].text.islower() and quoted_value(span[0]) is None and not _after_its_property(r, span[0], m):
            continue  # "tracks that belong to": a lower-case verb or function word, not the track 'Belong'
        if m.label and len(span) == 1 and span[0].text.islower() and quoted_value(span[0]) is None and \
                (span[0].tag_ in ("JJR", "JJS", "RBR", "RBS") or span[0].pos_ == "NOUN" and str(m.value) != span[0].text
                 and not _object_named(r, span[0]) and not _before_its_property(r, span[0], m)
                 and not _value_noun(r, span[0], m) and not _after_its_property(r, span[0], m)):
            continue  # "more than one student", "the numbers of wines": a word, not the student 'More' or wine 'Numbers'
        kind = "linked" if m.label else "text"
        if m.label and len(str(m.value)) <= 2 and _searched(span):
            kind = "text"  # "first names that contain 'a'", "an 'a' in their name": a letter, not the grade 'A'
        options = tuple(dict.fromkeys([(m.label, m.prop)] + [(a[0], a[1]) for a in m.alternatives])) \
            if kind == "linked" else ()
        r.values.append(Value(span.start, span.end, m.value, kind, m.label, m.prop, options))
    linked = sorted((v for v in r.values if v.kind == "linked"), key=lambda v: v.start)
    for a, b in zip(linked, linked[1:]):
        if b.start == a.end:
            common = [o for o in a.options if o[0] in {lb for lb, _ in b.options}]
            if common:
                a.label, a.prop = common[0]
                b.label, b.prop = next(o for o in b.options if o[0] == a.label)
                a.options = (common[0],)
                b.options = ((b.label, b.prop),)
    dates(r)
    taken = {i for v in r.values for i in range(v.start, v.end)}
    for t in doc:  # a word the annotations file gives for a value ("economics": the category 'Economic Sciences')
        if t.i not in taken and (said := r.terms.value_words.get(t.lower_)) is not None:
            label, prop, value = said
            r.values.append(Value(t.i, t.i + 1, value, "linked", label, prop, ((label, prop),),
                                  noun=t.tag_ == "NNS" and t.dep_ != "compound"))  # "women": the nodes themselves
            taken.add(t.i)
    for t in doc:
        if t.i in taken:
            continue
        q = quoted_value(t)
        letter = t.text.rstrip(".") if t.i > 0 and doc[t.i - 1].lemma_.lower() in cues.LETTER_WORDS and \
            not r.terms.lookup([doc[t.i - 1].lower_]) else ""
        if q is None and letter.isalpha() and len(letter) <= 2:
            q = letter  # "the letter M": a text searched for, unquoted
        if q is None:
            q = _unquoted(r, t)
        if q is not None:
            r.values.append(Value(t.i, t.i + 1, q, "text"))
        elif (first := decade(t)) is not None:
            r.values.append(Value(t.i, t.i + 1, first, "number"))  # "in the 1920s": from 1920 to 1929
            r.decades.add(t.i)
        elif t.text[:1] == "0" and t.text[1:2].isdigit() and t.text.isdigit():
            r.values.append(Value(t.i, t.i + 1, t.text, "text"))  # "0114": a code written with its zeros, not 114
        elif t.lower_ == "single" and t.i > 0 and doc[t.i - 1].lower_ == "a" and doc[t.i + 1:t.i + 2].text and \
                doc[t.i + 1].tag_ == "NN":
            r.values.append(Value(t.i, t.i + 1, 1, "number"))  # "placed only a single order": one order
        elif t.like_num and t.pos_ in ("NUM", "PROPN", "NOUN", "ADJ"):
            number = parse_number(t.text)
            if number is not None and not (t.lower_ == "one" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ in ("of", "or")) \
                    and not (t.lower_ == "one" and t.i > 0 and doc[t.i - 1].lower_ in ("in", "for", "on", "at", "by")) \
                    and not (t.lower_ == "one" and t.i > 0 and doc[t.i - 1].lower_ in ("the", "this", "that") and
                             doc[t.i + 1:t.i + 2].text.lower() in ("with", "that", "which", "who", "whose")):
                # not "the one with the maximum price": a pronoun, no number
                r.values.append(Value(t.i, t.i + 1, number, "number"))
    genders(r, {i for v in r.values for i in range(v.start, v.end)})
    plural_values(r, {i for v in r.values for i in range(v.start, v.end)})
    r.values.sort(key=lambda v: v.start)
    for v in r.values:
        if v.kind == "number" and v.end < len(doc) and doc[v.end].lower_ in cues.MULTIPLIERS:
            v.value = v.value * cues.MULTIPLIERS[doc[v.end].lower_]  # "$10 million"
            v.end += 1
    low = [t.lower_ for t in doc]
    for v in r.values:
        # "the top 5", "the 3 oldest", "limit to 10": how many rows, not a condition
        if v.kind == "number" and isinstance(v.value, int) and (
                low[max(0, v.start - 1):v.start] and low[v.start - 1] in cues.TOP_WORDS | {"limit", "last"}
                or low[max(0, v.start - 2):v.start] == ["limit", "to"]
                or (v.end < len(doc) and doc[v.end].tag_ in ("JJS", "RBS"))):
            v.kind = "limit"
    ranked = any(t.tag_ in ("JJS", "RBS") or t.lower_ in cues.TOP_WORDS for t in doc)
    for v in r.values:
        nxt = doc[v.end] if v.end < len(doc) else None
        if ranked and v.kind == "number" and isinstance(v.value, int) and nxt is not None and nxt.tag_ == "NNS" \
                and v.start > 0 and doc[v.start - 1].pos_ in ("DET", "VERB", "AUX", "PRON", "PUNCT") \
                or (v.kind == "number" and v.start == 1 and doc[0].lower_ in ("list", "show", "find", "name", "give")):
            v.kind = "limit"  # "Which three countries have the most ...", "List 5 invoices ..."


def _searched(span) -> bool:
    """Whether a span is said as a text searched for: a substring cue in the three words before it ("contains",
    "the letter"), or "in their"/"in its" after it ("an 'a' in their name")."""
    doc = span.doc
    before = {doc[k].lemma_.lower() for k in range(max(0, span.start - 3), span.start)}
    after = [t.lower_ for t in doc[span.end:span.end + 3] if not t.is_quote][:2]
    return bool(before & (set(cues.STRING_CUES) | cues.LETTER_WORDS)) or after in (["in", "their"], ["in", "its"])
