"""Which property a superlative ranks by when the question names none: one a label or relationship owns ("the
highest LIKES2 weight"), the one an adjective measures ("the heaviest": weight), or the time a label's nodes
were made or joined ("the latest book", "the first two books she borrowed": the loan's date); and the property a
sum of money is compared with ("transactions above $10 million": the one amount)."""

from __future__ import annotations

from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import Item, Reading, Value, is_timed, of_a_life, pick
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.schema_view import DATE_TYPES
from kgqa.text import name_words


def owned_prop(r: Reading, it: Item) -> Item | None:
    """The property item written right after a label or relationship item that owns it ("instructor salary",
    "LIKES2 relationship weight"), its term chosen; else None."""
    owner = pick(it, "label", None) or pick(it, "rel", None)
    if owner is None:
        return None
    gap = past_edge_word(r, it)
    nxt = next((x for x in r.items if x.start == gap and "prop" in x.kinds()), None)
    term = pick(nxt, "prop", owner.owner) if nxt is not None else None
    if term is None or term.owner != owner.owner:
        return None
    it.term, nxt.term = owner, term
    r.use((it.start, gap))
    return nxt


def measured_prop(r: Reading, it: Item, adjective: str) -> Item | None:
    """The one property of a label or relationship item that an adjective measures ("the heaviest LIKES2
    relationship": its weight), as an item over the item's words; else None."""
    owner = pick(it, "label", None) or pick(it, "rel", None)
    if owner is None:
        return None
    found = measured_props(r, owner.owner, adjective, on_rel=owner.kind == "rel")
    held = owner.owner
    if not found and owner.kind == "label" and (beside := measured_beside(r, owner.owner, adjective)) is not None:
        held, found = beside[0], [beside[1]]  # "the tallest entrepreneur": the height of the person they are
    if len(found) != 1:
        return None
    term = Term("prop", held, found[0], on_rel=owner.kind == "rel")
    it.term = owner
    end = past_edge_word(r, it)
    r.use((it.start, end))
    return Item(it.start, end, {term}, term)


def measured_props(r: Reading, owner: str, adjective: str, on_rel: bool = False) -> list[str]:
    """Returns the number properties of label (or relationship) ``owner`` that ``adjective`` measures
    (:data:`cues.MEASURES`): those whose name's words hold one of the measure's ("tall": ``Height_m``; "rich":
    ``Net_Worth``), not a word that only contains it ("old": not ``page_count``)."""
    props = r.view.rel_props.get(owner, {}) if on_rel else r.view.nodes.get(owner, {})
    runs = [name_words(m) for m in cues.MEASURES.get(adjective, ())]
    return [p for p in props if r.view.is_number(owner, p) and any(
        _holds_run(name_words(p), run) for run in runs)]


def measured_beside(r: Reading, label: str, adjective: str) -> tuple[str, str] | None:
    """(label, property) of the one label joined to ``label`` by a relationship whose number property ``adjective``
    measures, where ``label`` has none ("entrepreneurs taller than 1.85": the people they are); else None."""
    found = {(other, p) for _, _, other in r.view.neighbours(label) for p in measured_props(r, other, adjective)}
    return found.pop() if len(found) == 1 else None


def _holds_run(words: list[str], run: list[str]) -> bool:
    return any(words[k:k + len(run)] == run for k in range(len(words) - len(run) + 1))


def past_edge_word(r: Reading, it: Item) -> int:
    """The token after an item, past a word that says "the edge" ("LIKES2 relationship")."""
    return it.end + (it.end < len(r.doc) and r.lemmas[it.end] in cues.EDGE_WORDS)


def timed_prop(r: Reading, it: Item, word: str) -> Item | None:
    """The time that orders "the latest" or "the first two" of a label item (:data:`cues.TIME_SUPERLATIVES`): the one
    date or year of the relationship the query joins it by ("the books she borrowed": the loan date), else the
    label's own one ("published_year") that is not of a life (a birth or death), else that of the one label the
    query joins it to ("the latest winners": of the prize they won), else its time of birth; as an item over the
    item's words; else None."""
    owner = pick(it, "label", None) if it is not None and word in cues.TIME_SUPERLATIVES else None
    if owner is None:
        return None
    q = r.query
    touching = [e for e in q.edges if owner.owner in (q.nodes.get(e.src), q.nodes.get(e.dst))]
    found = [(e.rel, p) for e in touching for p in r.view.rel_props.get(e.rel, {}) if is_timed(p)]
    on_rel = bool(found)
    lived = [(owner.owner, p) for p in r.view.nodes.get(owner.owner, {}) if is_timed(p)]
    found = found or [(o, p) for o, p in lived if not of_a_life(p)]
    if not found:  # "the latest winners": the time of what they won
        joined = {q.nodes.get(x) for e in touching for x in (e.src, e.dst)} - {owner.owner, None}
        found = [(lb, p) for lb in joined for p in r.view.nodes.get(lb, {}) if is_timed(p) and not of_a_life(p)] \
            if len(joined) == 1 else []
    found = found or lived
    said = _said_times(r, found) if len(found) > 1 else {}
    if len(said) == 1:
        found = list(said)  # "the rocket launched in the most recent year": Launch_Year, not Launched_On
        r.use(*[(k, k + 1) for k in said[found[0]]])
    elif len(found) != 1:  # of several times, the one typed as a time; of several such, the one that says a start
        holder = found[0][0] if found and not on_rel and len({o for o, _ in found}) == 1 else owner.owner
        props = r.view.nodes.get(holder, {})
        typed = [(holder, p) for p in props if (r.view.prop_type(holder, p) or "").startswith(DATE_TYPES)]
        if not typed:  # of a year and a date written as text, the year
            typed = [(o, p) for o, p in found if r.view.is_number(o, p)]
        if not typed:  # dates written as ISO text
            typed = [(o, p) for o, p in found if r.view.is_date(o, p)]
        own = {w.lower() for w in name_words(holder)}
        found = typed if len(typed) == 1 else [(o, p) for o, p in typed if set(name_words(p)) & cues.START_WORDS] or \
            [(o, p) for o, p in typed if own and own <= {w.lower() for w in name_words(p)}]  # a voyage's voyage_date
    if len(found) != 1:
        return None
    term = Term("prop", found[0][0], found[0][1], on_rel=on_rel)
    it.term = owner
    r.use((it.start, it.end))
    return Item(it.start, it.end, {term}, term)


def verb_timed(r: Reading, verb) -> Item | None:
    """"the school that was founded most recently", "the most recently created document": the one time property,
    of the asked label or else of another the query holds, whose name holds the verb (a date_created) or is it (a
    number named Founded), as an item over the verb; else None."""
    said = {verb.lower_, verb.lemma_.lower()}
    q = r.query
    for label in [q.nodes[r.target], *sorted({lb for v, lb in q.nodes.items() if v != r.target})]:
        found = [p for p in r.view.nodes.get(label, {}) if (is_timed(p) or r.view.is_date(label, p)) and
                 said & set(name_words(p)) or
                 p.lower() == verb.lower_ and r.view.is_number(label, p)]  # a year named as the verb: Founded
        if len(found) > 1:
            return None
        if found:
            term = Term("prop", label, found[0])
            r.use((verb.i, verb.i + 1))
            return Item(verb.i, verb.i + 1, {term}, term)
    return None


def _said_times(r: Reading, found: list[tuple[str, str]]) -> dict[tuple[str, str], list[int]]:
    """Of several times, those every word of whose name the question says, by its lemma and not yet used (the
    verb "launched" and "year" of Launch_Year), with the tokens that say them."""
    out = {}
    for owner, prop in found:
        at = [next((k for k, w in enumerate(r.lemmas) if w == word.lower() and k not in r.used), None)
              for word in name_words(prop)]
        if all(k is not None for k in at):
            out[(owner, prop)] = at
    return out


def said_in_money(r: Reading, v: Value) -> bool:
    """Whether a number is said as money ("$500,000", "1 million USD")."""
    around = [r.doc[k].lower_ for k in (v.start - 1, v.end) if 0 <= k < len(r.doc)]
    return r.doc[v.start].text.startswith(("$", "€", "£")) or any(w in cues.CURRENCY_SIGNS for w in around)


def money_prop(r: Reading) -> Term | None:
    """The one numeric property, of the labels the question names, whose name says money, else None."""
    labels = set(r.query.nodes.values()) | {t.owner for x in r.items for t in x.terms if t.kind == "label"}
    found = [Term("prop", lb, p) for lb in sorted(labels) for p in r.view.nodes.get(lb, {})
             if r.view.is_number(lb, p) and any(w in p.lower() for w in cues.MONEY_WORDS)]
    return found[0] if len(found) == 1 else None


def restated_measure(r: Reading) -> None:
    """"the most costly products in terms of unit price": what a ranking is by, said again after the adjective
    that ranked by it, is explained by that ranking."""
    lem = r.lemmas
    for col, _ in r.query.order:
        label = r.query.nodes.get(col.holder or "")
        for words in cues.RANKED_BY:
            for k in range(len(lem) - len(words)):
                if tuple(lem[k:k + len(words)]) != words or k in r.used:
                    continue
                at = k + len(words) + (lem[k + len(words)] in ("the", "their", "its"))
                it = next((x for x in r.items if x.start == at), None)
                term = pick(it, "prop", label) if it is not None else None
                if term is not None and (term.owner, term.prop) == (label, col.prop) and not term.on_rel:
                    it.term = term
                    r.use((k, it.end))
