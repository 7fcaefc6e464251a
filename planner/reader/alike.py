"""One value held by two nodes of a question, each said by its own verb: "parcels sent to the same town they live
in" (the parcel's town is the member's), "books published in the same year they were born" (the book's year is
the author's birth year)."""

from __future__ import annotations

from kgqa.planner.query import Column, Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.joins import join_label
from kgqa.planner.reader.reading import Reading
from kgqa.text import name_words

PRONOUNS = frozenset({"they", "he", "she", "it"})  # the asked nodes, said again as the subject of a clause
PAST = frozenset({"be", "have", "do", "as", "that", "which", "where", "when"})  # between the noun and the pronoun


def alike(r: Reading) -> None:
    """"<verb> <prep> the same <noun> (as/that) <pronoun> <verb>": the property of the node the first verb is said
    of that its verb and the noun name equals the asked node's property that the second verb and the noun name."""
    if r.target is None:
        return
    lem, doc, q = r.lemmas, r.doc, r.query
    for i, w in enumerate(lem):
        if w != "same" or i in r.used or i + 2 >= len(lem) or doc[i + 1].pos_ != "NOUN":
            continue
        noun = lem[i + 1]
        j = i + 2
        while j < len(lem) and lem[j] in PAST:
            j += 1
        verb = next((t for t in doc[j + 1:j + 4] if t.pos_ == "VERB"), None) if lem[j] in PRONOUNS else None
        before = next((doc[k] for k in range(i - 1, max(-1, i - 6), -1) if doc[k].pos_ == "VERB"), None)
        if verb is None or before is None:
            continue
        # the node the verb is said of: its object ("sent parcels to the same town"), else the noun before it
        # ("parcels sent to the same town")
        said = next((x for x in r.items if before.i < x.start < i and "label" in x.kinds()), None) or \
            max((x for x in r.items if x.end <= before.i and "label" in x.kinds()), key=lambda x: x.end, default=None)
        held = next((t.owner for t in said.terms if t.kind == "label"), None) if said is not None else None
        if held is None or held == q.nodes[r.target]:
            continue
        left = _named(r, held, noun, before)
        right = _named(r, q.nodes[r.target], noun, verb)
        if left is None or right is None or r.view.prop_type(held, left) != r.view.prop_type(q.nodes[r.target], right):
            continue
        var = r.vars.get(held) or join_label(r, held)
        if var is None:
            return
        q.where.append(Where(var, left, "=", Column(r.target, right)))
        end = verb.i + 1 + (lem[verb.i + 1:verb.i + 2] in (["in"], ["at"], ["on"], ["from"]))
        r.where_ends.append((before.i, end))
        r.use((before.i, before.i + 1), (i, end))
        return


def _named(r: Reading, label: str, noun: str, verb) -> str | None:
    """The one property of ``label`` that a noun and a verb name together ("shipped" and "city": shipCity), else
    the one the noun names ("city"), else, for a time's noun ("year"), the one time the verb names ("born"); else
    None."""
    props = list(r.view.nodes.get(label, {}))
    said = {verb.lemma_.lower(), verb.lower_}
    nouned = [p for p in props if noun in name_words(p)]
    both = [p for p in nouned if any(w in said or w[:4] == verb.lemma_.lower()[:4] for w in name_words(p))]
    if len(both) == 1:
        return both[0]
    if len(nouned) == 1:
        return nouned[0]
    if noun in cues.TIME_HEADS:  # "released": a year named as the verb, or a date whose name holds it
        timed = [p for p in props if (r.view.is_number(label, p) or r.view.is_date(label, p)) and
                 (p.lower() in said or said & set(name_words(p)))]
        if len(timed) == 1:
            return timed[0]
    return None
