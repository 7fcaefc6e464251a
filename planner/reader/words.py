"""Reading the words of a question for the grammar reader: the runs of words that name schema elements
(:func:`schema`); the values it states are :mod:`kgqa.planner.reader.values`'."""

from __future__ import annotations

from kgqa.kg.derive import is_name_like
from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import (
    Item,
    Reading,
    pick,
)
from kgqa.planner.reader.schema_terms import NAME_NOISE, Term
from kgqa.planner.reader.value_nouns import named_kind
from kgqa.planner.reader.word_forms import abbreviates, forms, names_own_label, spells_label
from kgqa.text import fold, name_words


def _the_graph(r: Reading) -> set[int]:
    """The words of a phrase that names the graph itself ("in the graph", "in the movie dataset", "in our
    database"): where, not which nodes; read, and no schema word. Not where the noun names a schema element."""
    out: set[int] = set()
    for t in r.doc:
        if t.lemma_.lower() in cues.GRAPH_WORDS and t.dep_ == "pobj" and t.head.lower_ in cues.WHERE_PREPOSITIONS \
                and not r.terms.lookup([t.lower_]) and not any(v.start <= t.i < v.end for v in r.values):
            mods = [c.i for c in t.children if c.dep_ in ("det", "poss", "compound", "amod") and c.i < t.i]
            out |= {t.head.i, t.i, *mods}
    r.use(*[(i, i + 1) for i in out])
    return out


def _same_label_compounds(r: Reading) -> None:
    """Two words in a row that each name one and the same label, the first a modifier of the second ("the Nobel
    Prize" where both words name Prize): one mention of it, not two nodes."""
    out: list[Item] = []
    for it in r.items:
        last = out[-1] if out else None
        one = {t.owner for t in it.terms if t.kind == "label"}
        if last is not None and last.end == it.start and it.kinds() == last.kinds() == {"label"} and len(one) == 1 \
                and {t.owner for t in last.terms} == one and r.doc[last.end - 1].dep_ in ("compound", "amod") and \
                r.doc[last.end - 1].head.i == it.end - 1:
            out[-1] = Item(last.start, it.end, it.terms)
        else:
            out.append(it)
    r.items = out


def schema(r: Reading) -> None:
    """Runs of words outside the values that name labels, properties or relationship types."""
    numbered = _numbered_names(r)
    blocked = {i for v in r.values for i in range(v.start, v.end)} | {i for it in numbered for i in range(it.start, it.end)}
    blocked |= _the_graph(r)
    words = ["" if t.i in blocked or t.is_punct or _order_word(r, t.i) else t.lower_ for t in r.doc]
    quiet = cues.FILLER - cues.NAMING_FILLER
    r.items = [Item(a, b, terms) for a, b, terms in r.terms.match(words)
               if not all(w in quiet for w in words[a:b]) or any(t.exact or _spelled(t, words[a:b]) for t in terms)]
    r.items = sorted(r.items + numbered, key=lambda it: it.start)
    _same_label_compounds(r)
    _shared_heads(r, words)
    _generic_label(r)
    _headed_rels(r, words)
    _verbs_of_rels(r)
    _rels_of_values(r)
    _shortened(r, words)
    _full_names(r)
    _owned_compounds(r)
    _verbed_props(r)
    _shared_modifiers(r)
    _how_old(r)
    _near_names(r, words)
    _label_named_property(r)
    named_kind(r)
    _value_heads(r)
    _number_heads(r)
    for it in r.items:
        if it.end < len(words) and words[it.end] in cues.INDIVIDUALS and "label" in it.kinds() and \
                not any(x.start == it.end for x in r.items):
            it.end += 1  # "crew members": the crew, one by one
    for it in r.items:
        rels = {t.owner for t in it.terms if t.kind == "rel"}
        if rels and (it.kinds() == {"rel"} or verb_of_rel(r, it) or key_twin(r, it)):
            r.rels_named.extend(sorted(rels))
        r.rels_named.extend(sorted({t.via for t in it.terms if t.via}))  # "the actors": joined along ACTED_IN
    # weak evidence for a path: a word that shares its first five letters with a relationship's name
    stems = {w[:5] for w in words if len(w) >= 5}
    r.rels_hinted = [rel for rel in r.view.rels if any(len(w) >= 5 and w[:5] in stems for w in name_words(rel))]
    for rel in r.rels_hinted:
        own = {w[:5] for w in name_words(rel) if len(w) >= 5}
        r.hints[rel] = [i for i, w in enumerate(words) if len(w) >= 5 and w[:5] in own]
    # and the one relationship whose property a word names ("Who rated The Replacements 65 or higher?": REVIEWED)
    for it in r.items:
        owners = {t.owner for t in it.terms if t.kind == "prop" and t.on_rel}
        if len(owners) == 1 and it.kinds() == {"prop"} and all(t.on_rel for t in it.terms) and \
                (rel := owners.pop()) not in r.rels_hinted:
            r.rels_hinted.append(rel)
    # and a word that a relationship's name word, written without vowels, abbreviates ("destination": HAS_DST_PORT)
    for rel in r.view.rels:
        short = [n for n in name_words(rel) if 3 <= len(n) <= 4 and n.isalpha() and not set(n[1:]) & set("aeiouy")]
        said = [i for i, w in enumerate(words) if len(w) >= 5 and any(abbreviates(n, w) for n in short)]
        if said:
            r.hints[rel] = sorted(set(r.hints.get(rel, [])) | set(said))
            if rel not in r.rels_hinted:
                r.rels_hinted.append(rel)


def _number_heads(r: Reading) -> None:
    """"whose budgeted amount is greater than 3000": a number head (:data:`cues.NUMBER_HEADS`) after the word of one
    number property restates it (Budgeted), not another label's property of that name (endowment.amount); so does
    a text head after a text property ("a quantity per unit description containing 'bags'": :data:`cues.TEXT_HEADS`)."""
    for it in list(r.items):
        nxt = next((x for x in r.items if x.start == it.end and x.end == it.end + 1), None)
        if nxt is None or r.lemmas[nxt.start] not in cues.NUMBER_HEADS | cues.TEXT_HEADS:
            continue
        number = r.lemmas[nxt.start] in cues.NUMBER_HEADS
        props = {t for t in it.terms if t.kind == "prop" and not t.on_rel and
                 (r.view.is_number(t.owner, t.prop) if number else r.view.prop_type(t.owner, t.prop) == "STRING" and
                  not r.view.is_category(t.owner, t.prop))}  # not "the type description" of a code: its lookup's
        labels = {t.owner for t in it.terms if t.kind == "label"}
        if len(props) != 1 or any(t.owner == next(iter(props)).owner or t.owner in labels
                                  for t in nxt.terms if t.kind == "prop"):
            continue  # not "procedures cost" where procedures hold a Cost: a label and its property
        it.end, it.terms = nxt.end, props
        r.items.remove(nxt)


def _value_heads(r: Reading) -> None:
    """A linked value followed by the word of one of the properties that hold it is that property's ("wines from
    the Coastal area": the area 'Coastal', not the region named so)."""
    for v in r.values:
        if v.kind != "linked" or len(v.options) < 2:
            continue
        nxt = next((x for x in r.items if x.start == v.end), None)
        held = [t for t in nxt.terms if t.kind == "prop" and (t.owner, t.prop) in v.options] if nxt else []
        if len({(t.owner, t.prop) for t in held}) == 1 and (held[0].owner, held[0].prop) != (v.label, v.prop):
            v.label, v.prop = held[0].owner, held[0].prop
            v.options = ((v.label, v.prop),)


def _numbered_names(r: Reading) -> list[Item]:
    """Numbers said as the end of a schema name after its word ("the street 2 of the sites": street_2): items, the
    number no longer a value."""
    out = []
    for v in list(r.values):
        prev = r.doc[v.start - 1] if v.start > 0 else None
        if v.kind in ("number", "limit") and v.end - v.start == 1 and prev is not None and \
                not any(x.start <= prev.i < x.end for x in r.values) and \
                (terms := r.terms.numbered(prev.lower_, r.doc[v.start].text)):
            r.values.remove(v)
            out.append(Item(prev.i, v.end, terms))
    return out


def _label_named_property(r: Reading) -> None:
    """Words naming a label and, word for word, a text property of it that neither keys nor shows its nodes and
    sorts them into kinds (``BadgeType`` of ``Badge_Type``): the property ("the badge types")."""
    for it in r.items:
        labels = {t.owner for t in it.terms if t.kind == "label"}
        own = {t for t in it.terms if t.kind == "prop" and not t.on_rel and t.owner in labels and
               name_words(t.prop) == name_words(t.owner) and
               t.prop not in (r.view.key(t.owner), r.view.display(t.owner)) and r.view.is_category(t.owner, t.prop)}
        if len(own) == 1:
            it.terms = {t for t in it.terms if t.kind != "label" or t.owner != next(iter(own)).owner}


def _near_names(r: Reading, words: list[str]) -> None:
    """A noun that names nothing in the graph (no word of any name, no value, no place word), names the one label
    its embedding is near ("airplanes" of aircraft, "films" of Movie), where no other word of the question names
    that label, else the one property of a label named that it is near ("altitude" of elevation); for a graph
    without annotated words, as the lexicon's near words."""
    if r.view.spec.words:
        return  # an annotations file gives the graph's own words for its labels
    named = {t.owner for it in r.items for t in it.terms if t.kind == "label"}
    for t in r.doc:
        w, lemma = words[t.i], r.lemmas[t.i]
        if t.pos_ != "NOUN" or not w.isalpha() or len(w) < 3 or any(it.start <= t.i < it.end for it in r.items) or \
                lemma in cues.FILLER or lemma in cues.PLACE_WORDS or r.terms.names_word(lemma) or \
                r.terms.shortened(w) or fold(w) in r.view.values or fold(lemma) in r.view.values or \
                t.dep_ == "compound" and t.head.pos_ in ("NOUN", "PROPN"):
            continue  # not "place" (where), "football" (a value), "flight" of "flight routes" (the routes)
        label = r.terms.near_label(lemma)
        if label is not None and label not in named:
            r.items = sorted([*r.items, Item(t.i, t.i + 1, {Term("label", label)})], key=lambda x: x.start)
            named.add(label)
        elif label is None and named and w not in cues.UNITS and (props := r.terms.near_props(lemma, named)):
            r.items = sorted([*r.items, Item(t.i, t.i + 1, props)], key=lambda x: x.start)


def _verbed_props(r: Reading) -> None:
    """"shops that were opened in year 2005": a one-word property (year) under a verb names the property of a
    label said whose name is the verb's form and that word (opening_year, year_opened), the verb then read with it;
    "the car rented with an amount of 10": under a verb that names a relationship, that relationship's
    property (rented_amount), the verb left to name the join."""
    from lemminflect import getInflection

    named = {t.owner for it in r.items for t in it.terms if t.kind == "label"}
    for t in r.doc:
        if t.pos_ != "VERB" or len(t.lemma_) < 4:
            continue
        own = next((it for it in r.items if it.start <= t.i < it.end), None)
        rels = {x.owner for x in own.terms if x.kind == "rel" or x.on_rel} if own is not None else set()
        if own is not None and (own.end - own.start != 1 or not rels or any(
                x.kind == "label" or x.kind == "prop" and not x.on_rel for x in own.terms)):
            continue  # a verb that names a label or a node's property is no relationship's verb
        lemma = t.lemma_.lower()
        verbs = {lemma, *getInflection(lemma, tag="VBG"), *getInflection(lemma, tag="VBN")}
        for it in r.items:
            w = r.lemmas[it.start]
            head = r.doc[it.start].head
            if it.end - it.start != 1 or "prop" not in it.kinds() or t.i not in (head.i, head.head.i) or head.i == it.start:
                continue  # "opened in year 2005": year under in, under opened
            found = {x for v in verbs for run in ([v, w], [w, v]) for x in r.terms.lookup(run)
                     if x.kind == "prop" and (x.owner in rels if own is not None else x.owner in named)}
            if len(found) == 1:
                it.terms = found
                if own is None:
                    r.use((t.i, t.i + 1))


def _shared_modifiers(r: Reading) -> None:
    """"the shade code and description": a one-word property joined to a compound names what the compound's
    modifiers and it name together (shade_description), when that is a property of the graph."""
    for it in r.items:
        if found := modified_twin(r, it):
            it.terms = found


def modified_twin(r: Reading, it: Item) -> set[Term]:
    """The properties a one-word item joined by "and" to a compound ("the shade code and description") names with
    the compound's modifiers (shade_description); empty when none or when it is no such item."""
    tok = r.doc[it.start]
    if it.end - it.start != 1 or "prop" not in it.kinds() or tok.dep_ != "conj" or r.lemmas[it.end:it.end + 1] == ["of"]:
        return set()  # not "the customer name and date of the orders": the orders' date
    first = next((x for x in r.items if x.end - x.start > 1 and x.end - 1 == tok.head.i), None)
    if first is None or not all(r.doc[k].dep_ in ("compound", "amod") for k in range(first.start, first.end - 1)):
        return set()
    return {t for t in r.terms.lookup([*r.lemmas[first.start:first.end - 1], r.lemmas[it.start]]) if t.kind == "prop"}


def _how_old(r: Reading) -> None:
    """"How old is the doctor named Zach?": "how old" names the age properties of the labels that hold one."""
    ages = {Term("prop", lb, p) for lb, props in r.view.nodes.items() for p in props if p.lower() in cues.AGE_WORDS}
    for i in range(len(r.doc) - 1):
        if ages and r.lemmas[i:i + 2] == ["how", "old"]:
            r.items = sorted([x for x in r.items if x.end <= i or x.start >= i + 2] + [Item(i, i + 2, set(ages))],
                             key=lambda x: x.start)


def _headed_rels(r: Reading, words: list[str]) -> None:
    """"bus stops" naming only a relationship bus_stop between bus and stop: a noun phrase names its
    head's label, one end of the relationship, not the relationship (a many-to-many table's name)."""
    for it in r.items:
        head = r.doc[it.start:it.end].root
        if it.kinds() != {"rel"} or it.end - it.start != 2 or head.i != it.end - 1 or head.pos_ != "NOUN" or \
                r.doc[it.start].pos_ not in ("NOUN", "PROPN"):
            continue
        ends = {lb for t in it.terms for pair in r.view.rels.get(t.owner, []) for lb in pair}
        labels = {t for t in r.terms.lookup([words[it.end - 1]]) if t.kind == "label" and t.owner in ends}
        other = {t.owner for t in r.terms.lookup([words[it.start]]) if t.kind == "label" and t.owner in ends}
        if len(labels) == 1 and other - {t.owner for t in labels}:
            it.terms = labels


def _verbs_of_rels(r: Reading) -> None:
    """"cities that hosted a competition": a verb that names nothing, whose lemma is the one word of a relationship's
    name besides its ends' and its noise words (HAS_HOST_TOWN from contest to town), names that relationship."""
    taken = {i for it in r.items for i in range(it.start, it.end) if it.end - it.start > 1 or "prop" not in it.kinds()
             or "rel" in it.kinds()}  # a verb read as a property's word alone ("hosted": Hosts) may name the join
    for t in r.doc:
        if t.pos_ != "VERB" or t.tag_ not in ("VBD", "VBN") or t.i in taken or len(t.lemma_) < 4:
            continue  # "hosted", not "play sports" beside Plays_Cards
        objects = {x.owner for c in t.children if c.dep_ == "dobj" for it in r.items if it.start <= c.i < it.end
                   for x in it.terms if x.kind == "label"}
        rels = [rel for rel, ends in r.terms.verb_rels.get(t.lemma_.lower(), []) if not objects or objects & ends]
        if len(rels) == 1:
            r.items = [x for x in r.items if x.start != t.i] + [Item(t.i, t.i + 1, {Term("rel", rels[0])})]
    r.items.sort(key=lambda x: x.start)


def _rels_of_values(r: Reading) -> None:
    """"members of 'Red Rovers'", a team: a noun, "of" and a value of a label name a relationship named so
    (Member_of_team), whose other end is meant."""
    taken = {i for it in r.items for i in range(it.start, it.end)}
    for v in r.values:
        k = v.start - 1 - (v.start >= 2 and r.lemmas[v.start - 1] in cues.DETERMINERS)
        if v.kind != "linked" or k < 1 or r.lemmas[k] != "of" or k - 1 in taken or r.doc[k - 1].pos_ != "NOUN":
            continue
        want = [r.lemmas[k - 1], "of", *(w.lower() for w in name_words(v.label))]
        rels = {rel for rel in r.view.rels if len(name_words(rel)) == len(want) and
                all(n.lower() in forms(w) for n, w in zip(name_words(rel), want))}
        if len(rels) == 1:
            r.items.append(Item(k - 1, k + 1, {Term("rel", rels.pop())}))
    r.items.sort(key=lambda x: x.start)


def _shortened(r: Reading, words: list[str]) -> None:
    """A noun that names nothing but begins with a schema name of one shortened word ("specifications": spec)."""
    taken = {i for it in r.items for i in range(it.start, it.end)}
    quiet = cues.FILLER | cues.NAMING_FILLER
    for t in r.doc:
        if t.i not in taken and words[t.i] and t.pos_ == "NOUN" and words[t.i] not in quiet and \
                (terms := r.terms.shortened(words[t.i])):
            r.items.append(Item(t.i, t.i + 1, terms))
    r.items.sort(key=lambda x: x.start)


def _full_names(r: Reading) -> None:
    """"the full names of students": a label's first and its last name properties (Fname and Lname), as two items
    over "full" and "name(s)"; with "(first and last name)" after it read too."""
    low = [t.lower_ for t in r.doc]
    for k in range(len(low) - 1):
        if low[k] not in cues.FULL_NAME or r.lemmas[k + 1] != "name":
            continue
        parts: list[set[Term]] = [set(), set()]
        for label, props in r.view.nodes.items():
            if any([w.lower() for w in name_words(p)] == [low[k], "name"] for p in props):
                continue  # a fullName of its own: that property
            found = [[p for p in props if (set(name_words(p)) & part) and
                      (len(name_words(p)) == 1 or "name" in name_words(p))] for part in cues.NAME_PARTS]
            if all(len(f) == 1 for f in found):
                for n in (0, 1):
                    parts[n].add(Term("prop", label, found[n][0]))
        if not parts[0]:
            continue
        end = low.index(")", k + 2) + 1 if low[k + 2:k + 3] == ["("] and ")" in low[k + 2:k + 9] else k + 2
        r.items = [it for it in r.items if it.end <= k or it.start >= end]
        pair = (Item(k, k + 1, parts[0]), Item(k + 1, k + 2, parts[1]))
        r.items += pair
        r.paired.append(pair)
        r.items.sort(key=lambda x: x.start)
        r.use((k + 2, end))  # "(first and last name)": the same said again


def _owned_compounds(r: Reading) -> None:
    """"school name and driver name", "in order of company name": a label written right before a property word,
    its modifier in the parse, names that label's own property (its naming property for "name" or "title", when
    the label has no property of that word): one item of that one property. Not the first label: what is asked
    about ("the station name with two trains": focus reads the label and its property)."""
    merged: list[Item] = []
    first = next((it for it in r.items if "label" in it.kinds()), None)
    for it in r.items:
        prev = merged[-1] if merged else None
        lab = pick(prev, "label", None) if prev is not None and prev is not first and prev.end == it.start and \
            prev.kinds() in ({"label"}, {"label", "prop"}, {"label", "prop", "rel"}) and \
            (r.doc[prev.end - 1].dep_ == "compound" or r.doc[prev.end - 1].dep_ in ("amod", "nmod") and
             it.start <= r.doc[prev.end - 1].head.i < it.end) else None  # "manufacturer code": not Products.Manufacturer
        props = {t for t in it.terms if t.kind == "prop"}
        own = {t for t in props if lab is not None and t.owner == lab.owner}
        if lab is not None and props and not own and it.end - it.start == 1 and \
                r.lemmas[it.start] in ("name", "title") and (is_name_like(r.view.display(lab.owner)) or
                                                              names_own_label(lab.owner, r.view.display(lab.owner))):
            own = {Term("prop", lab.owner, r.view.display(lab.owner))}
        if prev is not None and len(own) == 1:
            merged[-1] = Item(prev.start, it.end, own)
        else:
            merged.append(it)
    r.items = _names_of_values(r, [_self_named(r, it) for it in merged])


def _names_of_values(r: Reading, items: list[Item]) -> list[Item]:
    """"the names of authors" and "the author name", where authors are a text property (submission.Author), and
    "names" names another label's property: the names are that property's values, one item over both."""
    out: list[Item] = []
    for it in items:
        prev = out[-1] if out else None
        props = {t for t in prev.terms if t.kind == "prop" and not t.on_rel} if prev is not None else set()
        if prev is not None and prev.end == it.start and it.end - it.start == 1 and \
                r.lemmas[it.start] in ("name", "title") and r.doc[prev.end - 1].dep_ == "compound" and props and \
                prev.kinds() == {"prop"} and all(r.view.prop_type(t.owner, t.prop) == "STRING" for t in props) and \
                not {t.owner for t in it.terms} & {t.owner for t in props}:
            out[-1] = Item(prev.start, it.end, props)  # "the author name": the Author
            continue
        k = it.end + 1
        while k < len(r.doc) and r.lemmas[k] in ("the", "all"):
            k += 1
        nxt = next((x for x in items if x.start == k), None)
        props = {t for t in nxt.terms if t.kind == "prop" and not t.on_rel} if nxt is not None else set()
        if it.end - it.start == 1 and r.lemmas[it.start] in ("name", "title") and it.end < len(r.doc) and \
                r.lemmas[it.end] == "of" and nxt is not None and props and nxt.kinds() == {"prop"} and \
                all(r.view.prop_type(t.owner, t.prop) == "STRING" for t in props) and \
                not {t.owner for t in it.terms} & {t.owner for t in props}:
            nxt.start = it.start
            continue
        out.append(it)
    return out


def _self_named(r: Reading, it: Item) -> Item:
    """"the city name" of a label ``city`` named by its property ``City``: the label's own name word, then "name"
    (no schema word), is the one item of that property."""
    k = it.end
    lab = next((t for t in it.terms if t.kind == "label"), None)
    if lab is None or k >= len(r.doc) or r.lemmas[k] != "name" or any(x.start <= k < x.end for x in r.items):
        return it
    shown = r.view.display(lab.owner)
    if names_own_label(lab.owner, shown):
        return Item(it.start, k + 1, {Term("prop", lab.owner, shown)})
    return it


def _spelled(term: Term, words: list[str]) -> bool:
    """Whether ``words`` spell a label's own name, in any number ("tables" and a label ``table``): a filler word
    that a graph uses as a name names it."""
    return term.kind == "label" and spells_label(term.owner, words)


def _order_word(r: Reading, i: int) -> bool:
    """Whether token ``i`` is the "order" of "in (ascending) order of": a word of the sort, no schema name."""
    return r.doc[i].lower_ == "order" and i > 0 and r.doc[i - 1].lower_ in cues.DESCENDING | cues.ASCENDING | {"in"}


def _generic_label(r: Reading) -> None:
    """"the last names of students" where the one label holding a last name besides teachers is a table named
    "list": a plural noun no schema name or value explains names the one label whose name says nothing of what it
    holds (noise words alone), when the question names a property of it."""
    generic = [lb for lb in r.view.nodes if not [w for w in name_words(lb) if w not in NAME_NOISE]]
    said = [t for t in r.doc if t.tag_ == "NNS" and not any(x.start <= t.i < x.end for x in r.items) and
            not any(v.start <= t.i < v.end for v in r.values) and t.lemma_.lower() not in cues.FILLER]
    if len(generic) == 1 and len(said) == 1 and any(
            t.kind == "prop" and t.owner == generic[0] for it in r.items for t in it.terms):
        r.items.append(Item(said[0].i, said[0].i + 1, {Term("label", generic[0])}))


def _shared_heads(r: Reading, words: list[str]) -> None:
    """"the first and last name", "the minimum and maximum price": a word before "and" (or a comma) that shares
    the head noun of the property named after it names the property of its own words with that head."""
    taken = {i for it in r.items for i in range(it.start, it.end)}
    low = [t.lower_ for t in r.doc]
    for it in list(r.items):
        owners = {t.owner for t in it.terms if t.kind == "prop"}
        k = it.start - 1
        while it.end - it.start >= 2 and owners and k >= 1 and low[k] in ("and", "or", ","):
            if low[k] in ("and", "or") and k >= 2 and low[k - 1] == ",":
                k -= 1  # "the first, middle, and last names": the comma before "and"
            limit = next((v for v in r.values if v.kind == "limit" and (v.start, v.end) == (k - 1, k)), None)
            blanked = not r.doc[k - 1].is_punct and not any(v.start <= k - 1 < v.end for v in r.values if v is not limit)
            word = words[k - 1] or (low[k - 1] if limit is not None or blanked else "")  # "first": an order word
            if not word or k - 1 in taken:
                break
            terms = {t for t in r.terms.lookup([word] + words[it.start + 1:it.end])
                     if t.kind == "prop" and t.owner in owners}
            if not terms:
                break
            if limit is not None:
                r.values.remove(limit)  # "the first, middle and last names": no first rows
            r.items.append(Item(k - 1, k, terms))
            k -= 2
    r.items.sort(key=lambda x: x.start)


def verb_of_rel(r: Reading, it: Item) -> bool:
    """Whether an item is a verb that writes a relationship type's own name ("have signed": SIGNED), though its
    word may also name a label (Signing)."""
    return all(r.doc[k].pos_ in ("VERB", "AUX") for k in range(it.start, it.end)) and \
        any(t.kind == "rel" and t.exact for t in it.terms)


def key_twin(r: Reading, it: Item) -> bool:
    """Whether the properties an item names are each the key column a relationship it names was made from
    (a column Judge_Vote beside HAS_JUDGE_VOTE from its label): the words name the relationship."""
    props = [t for t in it.terms if t.kind == "prop" and not t.on_rel]
    rels = [t.owner for t in it.terms if t.kind == "rel"]
    return bool(props) and bool(rels) and it.kinds() == {"prop", "rel"} and all(any(
        [w for w in name_words(rel) if w != "has"] == name_words(t.prop) and
        any(a == t.owner for a, _ in r.view.rels.get(rel, [])) for rel in rels) for t in props)
