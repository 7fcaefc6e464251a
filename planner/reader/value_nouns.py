"""Values and names said as nouns, for the grammar reader: "female students" (the one code a sex or gender property
holds, :func:`genders`) and "how many engineers" (a plural whose singular is a text value, :func:`plural_values`),
each a linked :class:`~kgqa.planner.reader.reading.Value` that is also the noun for the nodes holding it; "companies"
(the rest of a name property, :func:`named_kind`), the labels whose nodes it names."""

from __future__ import annotations

from kgqa.kg.derive import is_name_like
from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import Item, Reading, Value
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.reader.word_forms import forms
from kgqa.text import fold, name_words


def genders(r: Reading, taken: set[int]) -> None:
    """"female students", "male professors": the value of the one sex or gender property that holds the word in
    one of the codes data writes it with ('F', 'Female'), as a linked value."""
    for t in r.doc:
        codes = cues.GENDERS.get(t.lower_)
        if codes is None or t.i in taken:
            continue
        for code in codes:
            held = {(lb, p, v) for lb, p, v in r.view.values.get(fold(code), [])
                    if any(w in p.lower() for w in cues.GENDER_PROPS)}
            if held and len({v for _, _, v in held}) == 1:
                held = sorted(held)
                lb, p, v = held[0]
                r.values.append(Value(t.i, t.i + 1, v, "linked", lb, p, tuple((x, y) for x, y, _ in held),
                                      noun=t.pos_ == "NOUN"))
                break


def plural_values(r: Reading, taken: set[int]) -> None:
    """"How many engineers are older than 30", "female Professors": a plural noun that names no schema element
    but whose singular is a text value of the graph ('engineer', 'Professor'), as that linked value; not a name
    (a catalog level named 'Product' is no "products")."""
    for t in r.doc:
        if t.i in taken or t.tag_ not in ("NNS", "NNPS") or r.terms.lookup([t.lower_]):
            continue
        singular = {f for f in forms(t.text) if f != t.lower_}
        hits = sorted({h for f in singular for h in r.view.values.get(fold(f), []) if not is_name_like(h[1])})
        if hits and len({v for _, _, v in hits}) == 1:
            lb, p, v = hits[0]
            r.values.append(Value(t.i, t.i + 1, v, "linked", lb, p, tuple(dict.fromkeys((x, y) for x, y, _ in hits)),
                                  noun=True))


def named_kind(r: Reading) -> None:
    """A plural noun naming nothing else that is the rest of the name property of labels ("companies" of
    companyName, held by suppliers, customers and shippers) names the nodes of those labels, one of them chosen
    as for any word of several labels."""
    for t in r.doc:
        if t.tag_ != "NNS" or any(x.start <= t.i < x.end for x in r.items) or any(
                v.start <= t.i < v.end for v in r.values):
            continue
        owners = {label for label in r.view.nodes if
                  [w for w in name_words(r.view.display(label)) if w not in ("name", "title")] == [t.lemma_.lower()]}
        if owners:
            r.items.append(Item(t.i, t.i + 1, {Term("label", owner) for owner in owners}))
    r.items.sort(key=lambda it: it.start)
