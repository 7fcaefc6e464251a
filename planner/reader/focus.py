"""What a question asks, for the grammar reader: the label asked about and the properties asked for
(:func:`focus`)."""

from __future__ import annotations

from kgqa.planner.reader import cues
from kgqa.planner.reader.attach import (
    bound_prop,
    value_after,
)
from kgqa.planner.reader.columns import naming_prop
from kgqa.planner.reader.joins import doer, doer_of_object
from kgqa.planner.reader.reading import (
    Item,
    Reading,
    Value,
    aged,
    aggregates_said,
    compound_of_label,
    pick,
    term_name,
    unit_pick,
)
from kgqa.planner.reader.schema_terms import CODE_WORDS, HEAD_FIRST, NAME_NOISE, Term
from kgqa.planner.reader.where_when import when_asked, where_asked
from kgqa.planner.reader.word_forms import forms, names_own_label
from kgqa.planner.reader.words import modified_twin
from kgqa.text import fold, name_words


def focus(r: Reading) -> None:
    """The label asked about and the properties asked for: the first label named, or the label the first
    named properties belong to ("the names of the heads"); "who" asks for the graph's person label."""
    lem = r.lemmas
    labels = [it for it in r.items if "label" in it.kinds() and not _modifies_label(r, it) and
              not compound_of_label(r, it)]
    noun_first = _noun_subject(r, labels)
    if noun_first is not None:
        labels = []  # "How many women have won a Nobel Prize?": the women are asked, the nodes that hold 'female'
    if labels and _in_clause_of_property(r, labels[0]):
        labels = []  # "member names who are not in charge of any event": the members' names are asked
    asked = _label_asked(r, labels, noun_first)
    if asked is None:
        return
    label, named_at = asked
    r.target = r.var_for(label)
    if labels:
        _name_of_label(r, labels[0])
    _all_asked(r)
    first_label, later = _properties_asked(r, labels, label)
    if not r.asked and labels:
        _generic_of(r, labels[0], label)
    if labels:
        _listed(r, labels[0], label, later[0] if later else None)
    _parenthesized(r)
    if r.asked or named_at is not None:
        _conjoined(r, label, {r.doc[x.end - 1].i for x in r.asked} | ({named_at} if named_at is not None else set()))
    _theirs(r, label)
    _names_asked(r, label, first_label)
    second = next((k for k in range(1, len(lem) - 1) if lem[k] == "and" and lem[k + 1] in ("what", "which")), None)
    if lem[:1] == ["who"] and r.asked and second is not None and all(it.start > second for it in r.asked):
        r.show_target = True  # "Who rated X, and what score did they give?": who, and the score
    if lem[:1] == ["where"] and not r.asked:
        where_asked(r, label)
    if lem[:1] == ["when"] and not r.asked:
        when_asked(r, label)


def _label_asked(r: Reading, labels: list[Item], noun_first: Value | None) -> tuple[str, int | None] | None:
    """The label asked about, and where a word asking for its name was read ("the department name"): the first
    label named, the doer "who" asks for, or the one owner of the properties named; None, declined, where none
    is."""
    lem = r.lemmas
    label = None
    named_at = None
    who = doer_of_object(r, labels[0]) if labels else None
    if labels and who is None:
        first = labels[0]
        term = pick(first, "label", None) or _of_next(r, first) or r.choose(
            first.start, sorted((t for t in first.terms if t.kind == "label"), key=term_name), "is asked about")
        if term is None:
            return
        label = term.owner
        first.term = term
        r.use((first.start, first.end))
        nxt = first.end
        if nxt < len(r.doc) and r.doc[nxt].lower_ in ("name", "names", "title", "titles") and \
                not any(x.start <= nxt < x.end and any(t.owner == label for t in x.terms) for x in r.items):
            r.use((nxt, nxt + 1))  # "the department name": what names a department
            r.name_asked = True
            named_at = nxt
        elif nxt < len(r.doc) and r.doc[nxt].pos_ == "NOUN" and r.doc[nxt].dep_ != "compound" and \
                not any(x.start <= nxt < x.end and (x.end > nxt + 1 or any(t.owner == label for t in x.terms))
                        for x in r.items) and \
                r.lemmas[nxt] not in cues.NAMING_WORDS and (term := _named_by(r, label, nxt)) is not None:
            r.items = [x for x in r.items if x.start != nxt]  # not another label's type code
            _ask(r, nxt, term)  # "the video game types": the label's one property named by the word (GType)
    elif lem and lem[0] == "who" and not (lem[1:2] == ["be"] and any(it.start <= 3 for it in r.items)) and \
            (did := who or doer(r) or r.view.spec.who):  # not "Who are the ministers ...": the ministers are asked
        label = did  # "Who borrowed Kindred?": the far end of the verb's relationship, else the person label
        r.use((0, 1))
    else:
        owners = _common_owners([it for it in r.items if "prop" in it.kinds() and not _counting(r, it)])
        owners = _referenced(r, owners) or _named_after(r, owners) or owners
        nouns = {v.label for v in r.values if v.noun} & set(owners)
        if len(owners) > 1 and len(nouns) == 1:
            owners = sorted(nouns)  # "the first and last names of the instructors": the nodes that hold 'Instructor'
        if len(owners) == 1:
            label = owners[0]
            if any({t.owner for t in it.terms if t.kind == "prop"} == {label} for it in r.items):
                r.use(*_other_word_for(r))  # a property of that label alone was said
        elif owners:
            r.decline(f"which of {', '.join(owners)} is asked about")
            return
    label = label or _unnamed(r, noun_first)
    if label is None:
        r.decline("what is asked about")
        return
    return label, named_at


def _name_of_label(r: Reading, first: Item) -> None:
    """"the names of the heads", "the names of the top 3 districts": the words asking for what names the first
    label, read."""
    low = [t.lower_ for t in r.doc]
    k = first.start
    while k > 0 and (low[k - 1] in cues.DETERMINERS or
                     any(v.start == k - 1 and v.kind == "limit" for v in r.values) or
                     low[k - 1] in cues.TOP_WORDS and any(v.start == k and v.kind == "limit" for v in r.values)):
        k -= 1  # "the names of the top 3 districts"
    k = min(k, r.doc[first.end - 1].left_edge.i)  # "the names of the 5 most expensive products"
    if low[max(0, k - 2):k] in (["name", "of"], ["names", "of"], ["title", "of"], ["titles", "of"]):
        r.use((k - 2, k))  # "the names of the heads": what names them


def _all_asked(r: Reading) -> None:
    """"all the information", "the details of": every property of the label asked."""
    lem = r.lemmas
    info = [i for i, w in enumerate(lem) if w in ("information", "detail", "everything", "info", "attribute")]
    if info and (lem[info[0] - 1:info[0]] in (["all"], ["the"], ["what"], ["which"]) or lem[info[0] - 2:info[0] - 1] == ["all"] or
                 any(it.end == info[0] and "label" in it.kinds() for it in r.items)):
        r.all_props = True
        r.use((info[0], info[0] + 1))


def _properties_asked(r: Reading, labels: list[Item], label: str) -> tuple[int, list[int]]:
    """The properties asked for: the run of property words before the first label or condition word, and those of
    a later sentence that asks for more of the same ("... ? Give me their first names."); returns where the first
    label is and where later sentences ask."""
    lem = r.lemmas
    first_label = labels[0].start if labels else len(r.doc)
    grouped_first = lem[:1] == ["for"] and lem[1:2] in (["each"], ["every"])
    comma = next((k for k in range(first_label, min(len(lem), first_label + 4)) if lem[k] == ","), None)
    if comma is not None and grouped_first:
        # "For each county, find the name of the county ...": what is asked follows the leading group
        first_label = next((x.start for x in labels if x.start > comma), len(r.doc))
    lead = next((k for k in range(min(len(lem), 7)) if lem[k] == ","), -1) if grouped_first else -1  # "For each
    # bed type, ...": the end of the leading group
    later = [t.i for t in r.doc if t.i > first_label and t.lemma_.lower() in cues.ASK_VERBS and (
        t.is_sent_start or t.i > 0 and r.doc[t.i - 1].is_sent_start and r.doc[t.i - 1].lower_ == "please")]
    last = None
    first = labels[0] if labels else None
    for it in r.items:
        beside = _asked_beside(r, it, last, first, first_label)
        if later and it.start > later[0]:
            if "label" in it.kinds() and pick(it, "label", None) is not None and \
                    pick(it, "label", None).owner == label and lem[max(0, it.start - 2):it.start] != ["number", "of"]:
                r.use((it.start, it.end))  # "Return the city and its GDP"
                r.show_target = True
                continue
        elif it.start >= first_label and not (labels and it.start == labels[0].end + (
                labels[0].end < len(r.doc) and r.doc[labels[0].end].tag_ == "POS") and
                not any(a.start > lead for a in r.asked) and any(
                t.kind == "prop" and t.owner == label for t in it.terms) and
                not (r.doc[it.start].tag_ in ("VBN", "VBD") and r.doc[it.start].dep_ == "acl")) and not beside:
            continue  # not "the orders placed by ...": a participle says what was done, no property asked
        if last is not None and any(
                lem[k] in cues.ENDS_ASKED and
                not (lem[k] == "of" and lem[k - 1] in ("number", "amount", *cues.AGGREGATES)) and
                not (lem[k] == "of" and labels and k + 1 == labels[0].start and last.end <= k)
                for k in range(last.end, it.start)) and not beside:
            break  # "the maximum enrollment across all schools": what follows the preposition is no column
        term = _of_label(r, it) or _head_of(r, it, label) or _listed_after(r, it, last) or pick(it, "prop", label) \
            or unit_pick(r, it)
        if term is None or value_after(r, it) or bound_prop(r, it):
            continue
        if it.end - it.start == 1 and lem[it.start] in ("number", "count", "amount") and \
                lem[it.end:it.end + 1] == ["of"] and not term.exact and not (
                    lem[it.start] == "amount" and _of_label(r, it) is not None and
                    any(w in cues.AGGREGATES for w in lem[max(0, it.start - 2):it.start]) and
                    r.view.is_number(term.owner, term.prop)):
            continue  # "the number of patients": a count, not CabinNumber; not "the average amount of settlements"
        head = r.doc[it.end - 1]
        if any(r.doc[k].tag_ in ("JJS", "RBS") for k in range(max(0, it.start - 2), it.start)) and \
                len(aggregates_said(r, it.start)) < 2 and not aged(r, it.start, term):
            continue  # "the top 3 most expensive products": the order, not a column ("the average and largest": two)
        shared = _shares_head(r, it)  # "the first and last name", "the first, middle, and last names"
        shared = shared or any(it is pair[0] for pair in r.paired)  # "the full names": the first of a pair
        if (head.dep_ == "amod" and not shared) or (head.tag_ in ("JJ", "VBN") and it.end < first_label + 1 and
                                   r.doc[it.end].i == first_label):
            if r.view.prop_type(term.owner, term.prop) == "BOOL":
                r.flags.append((it, term))  # "the discontinued products": a condition, not a column
            continue
        it.term = term
        r.asked.append(it)
        last = it
    return first_label, later


def _unnamed(r: Reading, noun_first: Value | None) -> str | None:
    """The label asked where no label is named: that of the value written as a noun and subject; the start of the
    relationships named ("Who borrowed ..."); that of the one value written as a noun ("How many engineers are
    older than 30"); after "when"/"where", that of the one node named ("When did Ben die?"); else None."""
    if noun_first is not None:
        return noun_first.label
    rels = {t.owner for it in r.items for t in it.terms if t.kind in ("rel", "prop") and t.on_rel or t.kind == "rel"}
    ends = {src for rel in rels for src, _ in r.view.rels.get(rel, [])}
    if len(ends) == 1:
        return ends.pop()
    nouns = {v.label for v in r.values if v.noun}
    named = {v.label for v in r.values if v.kind == "linked"} if r.lemmas[:1] in (["when"], ["where"]) else set()
    return nouns.pop() if len(nouns) == 1 else named.pop() if len(named) == 1 else None


def _noun_subject(r: Reading, labels: list[Item]) -> Value | None:
    """The value written as a noun for the nodes that hold it, the subject, before any label is named ("How many
    women have won a Nobel Prize?"), else None."""
    nouns = [v for v in r.values if v.noun and v.label and (not labels or v.end <= labels[0].start)]
    if nouns and r.doc[nouns[0].start].dep_ in ("nsubj", "nsubjpass") and \
            not any("label" in x.kinds() and x.end <= nouns[0].start for x in r.items):
        return nouns[0]
    return None


def _modifies_label(r: Reading, it: Item) -> bool:
    """Whether ``it`` is a participle said before a label's noun ("the most frequently ordered products", the
    products asked, not the orders): it says what was done to them, not what is asked."""
    t = r.doc[it.end - 1]
    return it.end - it.start == 1 and t.tag_ in ("VBN", "VBD") and t.dep_ == "amod" and \
        "rel" in it.kinds() and any(x.start <= t.head.i < x.end and "label" in x.kinds() for x in r.items if x is not it)


def _asked_beside(r: Reading, it: Item, last: Item | None, first: Item | None, first_label: int) -> bool:
    """Whether ``it``, said after the first label, is asked beside what comes before it, joined by "and" or
    "along with" with only articles, "of" and aggregate words between: "the student ids and the number of hours
    played", "types of ships and the average tonnage of ships", "the number of dorms and the total capacity"."""
    lem = r.lemmas

    def joined(start: int) -> bool:  # "and", "along with"
        return ("and" in lem[start:it.start] or "along" in lem[start:it.start]) and all(
            w in ("and", ",", "the", "number", "of", "their", "its") or w in cues.AGGREGATES or
            _along_with(lem, k) or first is not None and first.start <= k < first.end
            for k, w in enumerate(lem[start:it.start], start))
    counted = ["number", "of"], ["count", "of"]
    if "label" in it.kinds() and lem[max(0, it.start - 2):it.start] in counted:
        return False  # "the types, along with the number of institutions": a count, not their names
    count = next((x for x in reversed(r.items) if x.end <= it.start and "label" in x.kinds()), None)
    if count is not None and lem[max(0, count.start - 2):count.start] in counted and \
            "label" not in it.kinds() and joined(count.end):
        return True  # "the number of dorms and the total capacity": beside the count of a label
    return last is not None and (last.start >= first_label or first is not None and last.end <= first.start and
                                 first.end <= it.start and "label" not in it.kinds() and
                                 "of" in lem[last.end:first.start]) and joined(last.end)


def _listed_after(r: Reading, it: Item, last: Item | None) -> Term | None:
    """"List role description, id and number of employees": a word listed right after another label's property
    asked, that this label also has, is this label's; a bare "id" is its key."""
    if last is None or last.term is None or last.term.kind != "prop" or \
            not all(w in (",", "and") for w in r.lemmas[last.end:it.start]) or last.end == it.start:
        return None
    owner = last.term.owner
    own = next((t for t in it.terms if t.kind == "prop" and t.owner == owner and not t.on_rel), None)
    key = r.view.key(owner) if owner in r.view.nodes else None
    if own is None and r.lemmas[it.start:it.end] == ["id"] and key:
        return Term("prop", owner, key)
    return own


def _along_with(lem: list[str], k: int) -> bool:
    """Whether the word at ``k`` is part of "along with", which joins what is asked as "and" does."""
    return lem[k:k + 2] == ["along", "with"] or k > 0 and lem[k - 1:k + 1] == ["along", "with"]


def _in_clause_of_property(r: Reading, first: Item) -> bool:
    """Whether the first label is said inside a relative clause on a property named before it, of one other label
    that a relationship joins to it ("the member names who are not in charge of any event")."""
    said = next((x for x in r.items if x.end <= first.start and x.kinds() == {"prop"}), None)
    owners = {t.owner for t in said.terms if not t.on_rel} if said is not None else set()
    term = pick(first, "label", None)
    if len(owners) != 1 or term is None or term.owner in owners or not any(
            other in owners for _, _, other in r.view.neighbours(term.owner)):
        return False
    clause = next((t for t in r.doc[first.start].ancestors if t.dep_ == "relcl"), None)
    return clause is not None and said.start <= clause.head.i < said.end


def _of_next(r: Reading, it: Item) -> Term | None:
    """Of the labels a word names, the one label joined to the label named after "of" ("the type of the
    organization": the label of types joined to organizations, not the one of documents' types), else None."""
    k = it.end + 1
    while r.lemmas[it.end:it.end + 1] == ["of"] and k < len(r.doc) and r.lemmas[k] in cues.DETERMINERS:
        k += 1
    after = next((pick(x, "label", None) for x in r.items if x.start == k), None) \
        if r.lemmas[it.end:it.end + 1] == ["of"] else None
    if after is None:
        return None
    joined = [t for t in it.terms if t.kind == "label" and t.owner != after.owner and any(
        other == after.owner for _, _, other in r.view.neighbours(t.owner))]
    return joined[0] if len(joined) == 1 else None


def _shares_head(r: Reading, it: Item) -> bool:
    """Whether an item is followed, across "and", "or" and commas, by one-word items and then an item of several
    words whose head it shares ("the first, middle, and last names")."""
    j = it.end
    while True:
        k = j
        while k < len(r.doc) and r.doc[k].lower_ in ("and", "or", ","):
            k += 1
        if k == j:
            return False
        nxt = next((x for x in r.items if x.start == k), None)
        if nxt is None:
            return False
        if nxt.end - nxt.start >= 2:
            return True
        j = nxt.end


def _names_asked(r: Reading, label: str, first_label: int) -> None:
    """"the names and headquarters of all companies", where no property is a name but one is named after the label
    (Company of company): that property is asked; "the names of studios", where the studios are a text property
    asked: the words are read with it."""
    for t in r.doc[:first_label]:
        if t.lemma_.lower() not in ("name", "title") or t.i in r.used or any(
                x.start <= t.i < x.end and (x.end - x.start > 1 or x.term is not None or
                                            any(y.owner == label for y in x.terms)) for x in r.items):
            continue  # not "the protein names": a property's own words
        nxt = t.i + 1
        if r.lemmas[nxt:nxt + 1] == ["of"]:
            k = nxt + 1
            while k < len(r.doc) and r.lemmas[k] in cues.DETERMINERS:
                k += 1
            if any(x.start == k and x.term is not None and x.term.kind == "prop" and
                   r.view.prop_type(x.term.owner, x.term.prop) == "STRING" and
                   name_words(x.term.prop)[-1:] != ["id"] for x in r.asked):
                r.use((t.i, nxt + 1))  # "the names of studios": the studios themselves
            continue
        if not any(x.start > t.i for x in r.asked) or r.lemmas[nxt:nxt + 1] not in (["and"], [","]):
            continue
        props = r.view.nodes.get(label, {})
        if any(w in ("name", "title") for p in props for w in name_words(p)):
            continue  # a property is its name
        selves = [p for p in props if names_own_label(label, p) and r.view.prop_type(label, p) == "STRING"]
        if len(selves) == 1:
            r.items = [x for x in r.items if x.start != t.i]  # not another label's name
            _ask(r, t.i, Term("prop", label, selves[0]))  # "the names and headquarters of all companies"


def _conjoined(r: Reading, label: str, heads: set[int]) -> None:
    """"the themes of parties and the names of their hosts", "the school name and driver name": a property word joined
    by "and" to one asked (a token of ``heads``, or the label it is "of"), named "of" another label or after it, is
    asked too."""
    heads = heads | {t.i for t in r.doc if t.dep_ == "pobj" and t.head.lower_ == "of" and t.head.head.i in heads}
    for it in r.items:
        tok = r.doc[it.end - 1]
        if it in r.asked or it.term is not None or tok.dep_ != "conj" or tok.head.i not in heads or \
                "prop" not in it.kinds():
            continue
        props = [t for t in it.terms if t.kind == "prop" and not t.on_rel]
        term = _of_label(r, it) or (props[0] if it.end - it.start > 1 and len(props) == 1 else None)
        if term is None or term.owner == label:
            continue
        it.term = term
        r.asked.append(it)
        heads.add(tok.i)


def _of_label(r: Reading, it: Item) -> Term | None:
    """The property an item names of the label written after it ("the name of the party": the party's own
    naming property, though "name" also names a town's Town_label), else None."""
    k = it.end
    if r.lemmas[k:k + 1] != ["of"] or any(x.end == it.start and "label" in x.kinds() for x in r.items):
        return None  # not "the department name of the instructor": the department's
    k += 1
    while k < len(r.doc) and (r.lemmas[k] in cues.DETERMINERS or (
            r.doc[k].tag_ in ("JJS", "RBS", "CD") or r.doc[k].tag_ == "JJ" and r.doc[k - 1].tag_ == "RBS" or
            r.lemmas[k] in cues.TOP_WORDS and k + 1 < len(r.doc) and r.doc[k + 1].tag_ == "CD") and
            not any(x.start <= k < x.end for x in r.items)):
        k += 1  # "the name of the most recent film", "of the three oldest films", "of the top 3 districts"
    owner = next((pick(x, "label", None) for x in r.items if x.start == k), None)
    if owner is None:
        return None
    own = [t for t in it.terms if t.kind == "prop" and t.owner == owner.owner]
    if own:
        return own[0] if len(own) == 1 else None
    if it.end - it.start != 1 or r.lemmas[it.start] not in ("name", "title"):
        return None
    prop = naming_prop(r, owner.owner)  # "the names of the party": Party of party
    return Term("prop", owner.owner, prop) if prop is not None else None


def _head_of(r: Reading, it: Item, label: str) -> Term | None:
    """"the names and details of the hosts", where other labels' details matched the word: the asked label's one
    property whose name ends in that word ("host_details"), else None."""
    if it.end - it.start != 1 or any(t.owner == label for t in it.terms):
        return None
    if r.lemmas[it.start] in cues.NAMING_WORDS or modified_twin(r, it):
        return None  # "the name of the courses": what names a course, not the name of its department
    return _named_by(r, label, it.start, last_only=True)


def _theirs(r: Reading, label: str) -> None:
    """"the schools and their locations": the asked label's own property after "and their", asked beside the label;
    "the video games and their types": a noun no schema name matched, after "their"/"its", asks for the asked
    label's one property whose name starts or ends with it."""
    for it in r.items:
        if it.start > 1 and r.lemmas[it.start - 2:it.start] in (["and", "their"], ["and", "its"]) and it.term is None and \
                it not in r.asked and (own := pick(it, "prop", label)) is not None and own.owner == label and \
                not own.on_rel:
            it.term = own  # "all public schools and their locations": the schools, and each one's own property
            r.show_target = r.show_target or not r.asked
            r.asked.append(it)
            r.use((it.start - 2, it.end))
    for t in r.doc:
        if t.i == 0 or r.lemmas[t.i - 1] not in ("their", "its") or t.pos_ != "NOUN" or t.i in r.used or \
                any(x.start <= t.i < x.end for x in r.items) or t.lemma_.lower() in cues.NAMING_WORDS:
            continue
        term = _named_by(r, label, t.i)
        if term is not None:
            r.show_target = r.show_target or not r.asked and r.lemmas[t.i - 2:t.i - 1] == ["and"]
            _ask(r, t.i, term)  # "all allergies and their types": the allergies, and each one's type
            r.use((t.i - 1, t.i))


def _named_by(r: Reading, label: str, i: int, last_only: bool = False) -> Term | None:
    """The one property of ``label`` whose name starts or ends (``last_only``: ends, or starts with a head written
    first: date_order_made) with token ``i``'s word, as written or as its lemma (date_of_entry, GType, host_details),
    else None."""
    said = {r.lemmas[i], r.doc[i].lower_}
    own = [p for p in r.view.nodes.get(label, {}) if (w := name_words(p)) and
           ({w[-1], _uncoded(w)[-1]} & said or (not last_only or w[0] in HEAD_FIRST) and w[0] in said)]
    return Term("prop", label, own[0]) if len(own) == 1 else None


def _uncoded(words: list[str]) -> list[str]:
    """A name's words without a last code word that people leave unsaid (kind_type_code: kind type)."""
    return words[:-1] if len(words) > 1 and words[-1] in CODE_WORDS else words


def _ask(r: Reading, i: int, term: Term) -> None:
    """Asks for ``term``, named by token ``i`` alone."""
    it = Item(i, i + 1, {term}, term)
    r.items = sorted([*r.items, it], key=lambda x: x.start)
    r.asked.append(it)
    r.use((i, i + 1))


def _listed(r: Reading, first: Item, label: str, later: int | None) -> None:
    """"the method, date and amount of all the fees", "List the fee id, the date and the amount": a noun no
    schema name matched, in the list of what is asked (before the asked label, or after a later sentence's verb
    that asks), asks for the label's one property whose name starts or ends with it (Date_Fee_Paid)."""
    spans = [range(0, first.start)] + ([range(later, len(r.doc))] if later is not None else [])
    for i in (i for span in spans for i in span):
        t = r.doc[i]
        if t.pos_ != "NOUN" or i in r.used or any(x.start <= i < x.end for x in r.items) or \
                r.lemmas[i] in cues.NAMING_WORDS or r.lemmas[i] in cues.AGGREGATES or \
                t.dep_ not in ("dobj", "conj", "attr", "nsubj", "appos", "ROOT") or \
                any(c.dep_ == "compound" for c in t.children):
            continue
        term = _named_by(r, label, i)
        if term is not None and any(x.term == term for x in r.asked):
            r.use((i, i + 1))  # "the states or provinces": State_Province, asked once
        elif term is not None:
            _ask(r, i, term)


def _parenthesized(r: Reading) -> None:
    """"Which suppliers (show `supplierID` and `companyName`) ...", "Which customer (`customerID`) has ...": the
    properties named in parentheses right after a label, alone or after a verb that asks, are shown for it, beside
    the columns that show its nodes."""
    doc, lem = r.doc, r.lemmas
    for i in (t.i for t in doc if t.text == "("):
        close = next((k for k in range(i + 1, len(doc)) if doc[k].text in "()"), None)
        before = next((x for x in r.items if x.end == i and "label" in x.kinds()), None)
        if close is None or doc[close].text != ")" or before is None:
            continue
        owner = pick(before, "label", None)
        inside = [x for x in r.items if i < x.start and x.end <= close]
        terms = [pick(x, "prop", owner.owner) if owner is not None else None for x in inside]
        rest = [k for k in range(i + 1, close) if not any(x.start <= k < x.end for x in inside)]
        if not inside or None in terms or any(t.owner != owner.owner for t in terms) or not all(
                doc[k].is_space or doc[k].is_punct or lem[k] in ("and", "its", "their", "the") or
                k == rest[0] and lem[k] in cues.ASK_VERBS for k in rest):
            continue
        for x, term in zip(inside, terms):
            if x not in r.asked:
                x.term = term
                r.asked.append(x)
        r.use((i, close + 1))
        r.show_target = True  # the label's nodes shown too, named as they are elsewhere, beside what it names


def _generic_of(r: Reading, first: Item, label: str) -> None:
    """"the dates of the diary entries": a noun no schema name matched, written as "the <noun> of" the asked
    label, asks for the label's one property whose name starts or ends with it (date_of_entry)."""
    k = first.start
    while k > 0 and r.lemmas[k - 1] in cues.DETERMINERS:
        k -= 1
    i = k - 2
    if i < 0 or r.lemmas[k - 1] != "of" or r.doc[i].pos_ != "NOUN" or any(x.start <= i < x.end for x in r.items):
        return
    word = r.lemmas[i]
    if word in cues.NAMING_WORDS or word in cues.AGGREGATES or any(c.dep_ == "compound"
                                                                   for c in r.doc[i].children):
        return  # not "the mail date of the document": which date the word before says
    term = _named_by(r, label, i)
    if term is not None:
        _ask(r, i, term)
        r.use((k - 1, k))


def _referenced(r: Reading, owners: list[str]) -> list[str]:
    """"What document type codes do we have?": of two labels holding the one property named, the one whose key it
    is lists every value, the one that refers to it the values in use ("the distinct type codes"); else []."""
    props = {t.prop for it in r.items if "prop" in it.kinds() for t in it.terms if t.kind == "prop"}
    if len(owners) != 2 or len(props) != 1 or r.values:
        return []  # not "the documents with type code CV": a condition, on the nodes that use the code
    prop = props.pop()
    keyed = [o for o in owners if r.view.key(o) == prop]
    if len(keyed) != 1:
        return []
    used = any(w in cues.DISTINCT_WORDS for w in r.lemmas)
    return [o for o in owners if (o in keyed) != used]


def _named_after(r: Reading, owners: list[str]) -> list[str]:
    """"the ticket numbers ...": of labels that hold the properties named, the one whose name begins the names of
    them all (Tickets for ticket_number, not Refunds), the longest such; else []."""
    props = {t.prop for it in r.items if "prop" in it.kinds() for t in it.terms if t.kind == "prop" and t.owner in owners}
    if len(owners) < 2 or not props:
        return []

    def begun(owner: str) -> int:
        own = [forms(w) for w in name_words(owner) if w not in NAME_NOISE]
        return len(own) if own and all(len(w := name_words(p)) > len(own) and all(
            w[k] in f for k, f in enumerate(own)) for p in props) else 0

    best = max(begun(o) for o in owners)
    top = [o for o in owners if begun(o) == best]
    return top if best and len(top) == 1 else []


def _other_word_for(r: Reading) -> list[tuple[int, int]]:
    """"the names of companies with revenue over 100" where no label is named and the properties said are one
    label's (Manufacturers): the one plural noun whose properties they are, another word for that label (not a
    value the graph holds); [] where there is no such noun, or several."""
    inside = {k for it in r.items for k in range(it.start, it.end)}
    found = [t for t in r.doc if t.tag_ == "NNS" and t.i not in inside and t.i not in r.used and
             t.lemma_.lower() not in cues.FILLER | cues.NAMING_WORDS and not any(v.start <= t.i < v.end for v in r.values) and
             not ({fold(t.text), fold(t.lemma_)} & r.view.values.keys()) and  # "the price of clothes": a kind's value
             (t.dep_ == "pobj" and t.head.lower_ == "of" and t.head.head.i in inside or
              any(c.dep_ in ("relcl", "acl") or c.dep_ == "prep" and c.lower_ == "with" for c in t.children))]
    return [(found[0].i, found[0].i + 1)] if len(found) == 1 else []


def _counting(r: Reading, it: Item) -> bool:
    """Whether ``it`` is the word "number" or "count" before "of" and another word read ("the number of cities"):
    a count, not a property named like ticket_number."""
    lem = r.lemmas
    return it.end - it.start == 1 and lem[it.start] in ("number", "count") and lem[it.end:it.end + 1] == ["of"] and \
        not any(t.exact for t in it.terms) and any(x.start > it.end for x in r.items)


def _common_owners(items: list[Item]) -> list[str]:
    owners = None
    for it in items:
        mine = {t.owner for t in it.terms if t.kind == "prop" and not t.on_rel}
        owners = mine if owners is None else (owners & mine or owners)
    return sorted(owners or [])
