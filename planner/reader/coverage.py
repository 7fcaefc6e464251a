"""Joining every label a question names to the asked one (:func:`pattern`), and the last check of a reading
(:func:`coverage`): a content word nothing explained declines it."""

from __future__ import annotations

import os
from typing import Any

from kgqa.kg.derive import is_name_like
from kgqa.planner.reader import cues
from kgqa.planner.reader.columns import ROWID
from kgqa.planner.reader.joins import edge_of, join_label
from kgqa.planner.reader.quantifiers import every_other
from kgqa.planner.reader.reading import (
    Item,
    Reading,
    is_timed,
    pick,
    units_of,
)
from kgqa.planner.reader.restated import restated_heads, said_again, those_restated
from kgqa.planner.reader.schema_terms import CODE_WORDS, Term, count_prop
from kgqa.planner.reader.word_forms import abbreviates, action_lemmas, forms
from kgqa.planner.reader.words import key_twin, verb_of_rel
from kgqa.text import name_words


def pattern(r: Reading) -> None:
    """Every other label, property owner and relationship the question names is joined to the asked label
    along the shortest schema path (relationships the question names preferred); two such paths and no word
    to choose between them is a decline."""
    if r.target is None:
        return
    target_label = r.query.nodes[r.target]
    for it in r.items:  # "the actors": the asked nodes at their end of ACTED_IN
        if it.term is not None and it.term.via and it.term.owner == target_label and it.term.via not in r.rel_var:
            edge_of(r, it.term.via)
    # relationships named by a verb or noun, or owning a property used: an edge from the asked label
    for it in r.items:
        twin = key_twin(r, it)
        if it.term is None and (it.kinds() == {"rel"} or twin or verb_of_rel(r, it)):  # not a word that may name a property
            rels = [t.owner for t in it.terms if t.kind == "rel" and (t.exact or it.kinds() == {"rel"} or twin)]
            exact = [t.owner for t in it.terms if t.kind == "rel" and t.exact]
            touching = [x for x in (exact or rels) if any(target_label in pair for pair in r.view.rels.get(x, []))]
            joined = [x for x in rels if x in r.rel_var]
            if len(joined) == 1:
                touching = joined  # "visited ... in season 2": the relationship whose property is already used
            if len(touching) > 1:
                term = r.choose(it.start, [Term("rel", x) for x in touching], f"'{r.doc[it.start:it.end].text}' means")
                touching = [term.owner] if term else []
            if len(touching) == 1 and _own_place(r, it, target_label, touching[0]):
                it.term = Term("rel", touching[0])  # "students living in each city": the city is theirs, no join
                r.use((it.start, it.end))
                continue
            if len(touching) == 1:
                it.term = Term("rel", touching[0])
                if not any(e.rel == touching[0] for a in r.query.absent for e in a.edges) or any(
                        t.on_rel and t.owner == touching[0] for x in r.items for t in x.terms):
                    edge_of(r, touching[0])  # not "shops that have no devices in stock": the absent edge's name
                r.use((it.start, it.end))
    for it in r.items:
        if it.term is None and "label" in it.kinds() and it not in r.asked:
            joined = [t for t in it.terms if t.kind == "label" and t.owner in r.query.nodes.values()]
            term = pick(it, "label", None) or (joined[0] if len(joined) == 1 else None)  # "companies": the suppliers
            if term is None:
                continue
            it.term = term
            if it.start > 0 and r.lemmas[it.start - 1] in cues.COUNT_SUPERLATIVES and \
                    count_prop(r.view, target_label, term.owner) is not None:
                continue  # "the party with the most guests": the number each holds (Number_of_guests), no join
            if term.owner != target_label and r.doc[it.end - 1].dep_ == "conj" and _asked_of_both(r, term.owner):
                r.decline(f"the {', '.join(r.doc[a.start:a.end].text for a in r.asked)} of {target_label} and of "
                          f"{term.owner}, apart")  # "the phone numbers of all customers and suppliers": a union
                return
            if term.owner != target_label:
                var = join_label(r, term.owner)
                low = [t.lower_ for t in r.doc]
                named = low[max(0, it.start - 2):it.start] in (["name", "of"], ["names", "of"], ["title", "of"],
                                                               ["titles", "of"])
                if var is not None and r.view.display(term.owner) == ROWID and r.doc[it.end - 1].dep_ == "conj" and \
                        any(x.start < it.start and "label" in x.kinds() and x.term is not None and
                            r.vars.get(x.term.owner) == r.target for x in r.items):
                    r.decline(f"what names a {term.owner} (it has only a generated key)")  # "the chip model and
                    return  # screen mode of the phone": the screen mode asked beside it, with nothing to show
                if var is not None and r.view.display(term.owner) != ROWID and (_conj_of_asked(r, it) or named or
                                        low[max(0, it.start - 1):it.start] in (["their"], ["its"])):
                    r.shown.append(var)  # "the names of members and their parties": each party beside them
                    if named:
                        r.use((it.start - 2, it.start))
            r.use((it.start, it.end))
    _walked(r)
    inner = {v for a in r.query.absent for v in a.own}
    if any(e.src in inner or e.dst in inner for e in r.query.edges):
        r.decline("what the negation covers")  # a node said not to be there, also joined as there------------------------------------------------------------------


def _walked(r: Reading) -> None:
    """A verb of a relationship that does not touch the asked label, on the path that joins another label named to it
    ("Which country were the most laureates born in?": born in a city of the country) is read by that path."""
    walked = {e.rel for e in r.query.edges}
    for it in r.items:
        if it.term is None and it.kinds() == {"rel"}:
            on = {t.owner for t in it.terms if t.owner in walked}
            if len(on) == 1:
                it.term = Term("rel", on.pop())
                r.use((it.start, it.end))


def _conj_of_asked(r: Reading, it: Item) -> bool:
    """Whether label item ``it`` is joined by "and" to what is asked (the asked label or a property asked: "the
    names of members and their parties"), not to another label said under a preposition ("addresses shared by some
    students and some teachers": both say which addresses)."""
    tok = r.doc[it.end - 1]
    if tok.dep_ != "conj":
        return False
    first = tok
    while first.dep_ == "conj" and first.head.i != first.i:
        first = first.head
    return any(x.start <= first.i < x.end for x in r.asked) or any(
        x.start <= first.i < x.end and x.term is not None and x.term.kind == "label" and
        r.vars.get(x.term.owner) == r.target for x in r.items)


def _own_place(r: Reading, it: Item, label: str, rel: str) -> bool:
    """Whether a verb naming ``rel`` ("living") has its place ("in each city") named by a property of the asked
    ``label`` alone, no property or name of the relationship's far label: the verb says where that property is."""
    if it.end - it.start != 1 or r.doc[it.start].pos_ != "VERB":
        return False
    far = {lb for pair in r.view.rels.get(rel, []) if label in pair for lb in pair if lb != label}
    objs = [g.i for p in r.doc[it.start].children if p.dep_ == "prep" for g in p.children if g.dep_ == "pobj"]
    for k in objs:
        x = next((x for x in r.items if x.start <= k < x.end), None)
        if x is None or x.term is not None:
            continue
        owners = {t.owner for t in x.terms}
        if x.kinds() == {"prop"} and owners == {label} and not owners & far and label not in far:
            return True
    return False


def _self_noun_scope(r: Reading) -> str | None:
    """What a noun naming a relationship of a label to itself ("friends") says of the nodes at its far end that no
    reading here places there: a clause on them ("friends who are students"), a value they are "of" kept on the asked
    node ("a friend of Dan"), or the noun twice ("friends of friends"); else None."""
    selfish = [it for it in r.items if it.term is not None and it.term.kind == "rel" and
               r.doc[it.end - 1].pos_ == "NOUN" and all(a == b for a, b in r.view.rels.get(it.term.owner, [(0, 1)]))]
    for it in selfish:
        head = r.doc[it.end - 1]
        if sum(1 for x in r.items if any(t.kind == "rel" and t.owner == it.term.owner for t in x.terms)) > 1:
            return f"the {head.text} of {head.text}"
        if any(c.dep_ in ("relcl", "acl") for c in head.children):
            return f"what is said of the {head.text}"
        held = {w.holder for w in r.query.where}
        for p in head.children:
            if p.dep_ == "prep" and p.lower_ == "of" and r.target in held and any(
                    v.start <= g.i < v.end for g in p.subtree for v in r.values):
                return f"whose {head.text} is meant"
    return None


def coverage(r: Reading) -> None:
    """Declines when a content word is left unexplained: a plan that ignores it answers another question."""
    if r.lemmas[:1] == ["when"] and r.target is not None and not any(
            c.prop and (is_timed(c.prop) or r.view.is_date(r.query.nodes.get(c.holder, ""), c.prop))
            for c in r.query.columns):
        r.decline("which time 'when' asks")  # "When did a woman first win?": not answered with the prizes
        return
    if (why := _self_noun_scope(r)) is not None:
        r.decline(why)
        return
    if _names_by_number(r):
        r.decline(f"what names a {r.query.nodes[r.target]} (only its number)")
        return
    quiet = cues.FILLER - cues.TELLING_FILLER  # "the types of games", "the names of the hosts" say something
    r.use(*restated_heads(r))
    r.use(*said_again(r))
    r.use(*_domain_words(r))
    r.use(*those_restated(r))
    if any(c.fn == "count" for c in r.query.columns):
        r.use(*[(t.i, t.i + 1) for t in r.doc if t.lemma_.lower() == "count"])  # "... and the count": the one counted
        r.use(*_count_restated(r))
    r.use(*[(t.i, t.i + 1) for t in r.doc if t.lower_ in cues.UNITS and not any(it.start <= t.i < it.end for it in r.items)
            and (t.i > 0 and r.doc[t.i - 1].like_num or t.i + 1 < len(r.doc) and r.doc[t.i + 1].like_num)])  # "1,000,000 USD", "$450"
    held = units_of([w for p in _props_used(r) for w in name_words(p)])
    r.use(*[(t.i, t.i + 1) for t in r.doc if t.i not in r.used and held and units_of([t.lower_]) & held and
            not any(it.start <= t.i < it.end for it in r.items)])  # "the fare (in USD)" of fare_in_dollars
    r.use(*[(t.i, t.i + 1) for t in r.doc if t.is_sent_start and t.lemma_.lower() in cues.NAMING_FILLER and
            t.pos_ == "VERB"])  # "Name the top three products": a verb that asks
    left = [t.text for t in r.doc if t.i not in r.used and not t.is_punct and not t.is_space and t.lower_ not in quiet
            and t.lemma_.lower() not in quiet and t.pos_ not in ("DET", "ADP", "PRON", "AUX", "CCONJ", "SCONJ", "PART")
            and not (t.is_stop and t.pos_ not in ("NOUN", "VERB", "ADJ", "PROPN", "NUM") and t.lower_ not in cues.NEGATIONS
                     and t.lower_ not in cues.TIME_SUPERLATIVES)]  # "When did she first win?": which time
    label = r.query.nodes.get(r.target) if r.target else None
    left += [t.text for t in r.doc if t.i not in r.used and t.lower_ in ("detail", "details") and t.dep_ == "conj" and
             any(it.start <= t.head.i < it.end for it in r.asked) and label and
             any(t.lower_.rstrip("s") in [w.rstrip("s") for w in name_words(p)] for p in r.view.nodes.get(label, {}))]
    # "the name and detail of each staff member": a detail the asked label holds, asked beside its name
    left += [t.text for t in r.doc if t.i not in r.used and (t.lower_ in cues.NEGATIONS or t.lower_ in cues.SCOPE_WORDS
                                                           or t.lower_ in cues.COMPARING or
                                                           t.lower_ in cues.SUPERLATIVES and t.tag_ in ("JJS", "RBS"))]
    # "the statement that has the most accounts" with no ranking read: "most" is left, as "not" is
    left += every_other(r)
    left += [t.text for t in r.doc if t.i not in r.used and t.lower_ in ("each", "per") and
             any(c.is_aggregate for c in r.query.columns) and any(it.start == t.i + 1 for it in r.items) and
             (t.lower_ == "per" or t.head.dep_ in ("pobj", "nsubj"))]  # not "give me each customer name"
    # "how many laureates were born on each continent" with no group read: one count is not the answer
    joined = r.query.edges or r.query.absent
    said = {i for v in r.values for i in range(v.start, v.end) if i in r.used}
    restating = {t.text for t in r.doc if t.pos_ == "VERB" and t.i not in r.used and (joined and any(
        c.dep_ in ("prep", "agent", "dative") and any(g.i in r.used for g in c.children) or
        c.dep_ == "dobj" and (_names_label(r, c.i) or _names_label(r, c.i, "rel")) and (
            t.lemma_.lower() in cues.LIGHT_VERBS | cues.EXISTENCE_VERBS or _said_by_label(r, t))
        for c in t.children)
        or joined and _relative_read(r, t) or any(
        c.dep_ == "prep" and any(g.i in said for g in c.subtree) and _names_unsaid(r, t, c) for c in t.children))}
    restating |= {t.text for t in r.doc if t.pos_ == "VERB" and t.i not in r.used and (
        _made(r, t) or _made_by_value(r, t) or _verb_of_group(r, t) or _participle_of_sole_join(r, t))}
    restating -= _naming_other(r, restating)
    restating |= _named_on_path(r)
    restating |= {t.text for t in r.doc if t.lemma_.lower() in cues.PLACE_VERBS and t.i not in r.used and (joined or any(
        c.dep_ == "prep" and any(g.i in said for g in c.subtree) for c in t.children))}  # "headquarters located in USA"
    if joined or _kind_used(r):  # "the names of the county they belong to", "which category does X belong to"
        restating |= {t.text for t in r.doc if t.lemma_.lower() in cues.BELONG_VERBS and t.i not in r.used}
    if _place_used(r):  # "the cities where students live", "how many states are banks located in"
        restating |= {t.text for t in r.doc if t.lemma_.lower() in cues.DWELL_VERBS and t.i not in r.used}
    restating |= {t.text for t in r.doc if t.lemma_.lower() in cues.USE_VERBS and t.i not in r.used and t.pos_ == "VERB"
                  and r.asked and all(c.i in r.used or c.dep_ in ("auxpass", "aux", "advmod", "punct", "agent", "nsubj",
                                                                  "nsubjpass", "relcl") or
                                      c.dep_ == "prep" and _all_read(r, c) for c in t.children)
                  and all(g.i in r.used for c in t.children if c.dep_ == "agent" for g in c.children)}
    used = [name_words(p) for p in _props_used(r)]
    restating |= {t.text for t in r.doc if t.pos_ == "VERB" and t.i not in r.used and any(
        words[-len(m):] == m for words in used for m in map(name_words, cues.MEASURES.get(t.lemma_.lower(), ())))}
    restating |= {t.text for t in r.doc if t.pos_ == "VERB" and t.i not in r.used and any(
        _agent_of(t.lemma_.lower(), w) for words in used for w in words)}  # "films directed by X": the director
    restating -= {t.text for t in r.doc if t.pos_ == "VERB" and t.i not in r.used and any(
        c.dep_ == "dobj" and c.pos_ == "NOUN" and c.i not in r.used for c in t.children)}  # "the name, hire data and
    # salary": a verb whose object nothing read is asked, not restated
    left = [w for w in left if w not in restating]  # "wines produced in Sonoma": the verb of the join
    left += _other_times(r)
    if left:
        r.decline(", ".join(repr(w) for w in dict.fromkeys(left)))
    q = r.query
    if r.target is None:
        return
    label = q.nodes[r.target]
    named = [w for w in q.where if w.holder == r.target and w.op == "=" and
             (w.prop in (r.view.display(label), r.view.key(label)) or
              any(c.holder == r.target and c.prop == w.prop for c in q.columns))]
    loops = [e for e in q.edges if r.target in (e.src, e.dst) and q.nodes.get(e.src) == q.nodes.get(e.dst)]
    if named and loops and all(c.holder == r.target for c in q.columns if not c.is_aggregate):
        r.decline(f"which end of {loops[0].rel} {named[0].value!r} is")  # "the prerequisite of course X": not X
    shown = {(q.nodes.get(c.holder), c.prop) for c in q.columns if not c.is_aggregate}
    lost = [it for it in r.asked if it.term is not None and it.term.kind == "prop" and not it.term.on_rel and
            (it.term.owner, it.term.prop) not in shown and not any(c.prop == it.term.prop for c in q.columns)]
    if lost and not r.all_props:
        r.decline(f"the {r.doc[lost[0].start:lost[0].end].text} asked, beside what the question ranks")
    for pair in r.paired:
        if sum((it.term.owner, it.term.prop) in shown for it in pair if it.term is not None) == 1:
            r.decline(f"'{r.doc[pair[0].start:pair[1].end].text}' as one value")  # "the most common full name"


def _count_restated(r: Reading) -> list[tuple[int, int]]:
    """"How many settlements does each claim correspond to? List the claim id and the number of settlements": a later
    sentence's "number", bare or of a label or relationship the query counts, is the count asked again."""
    counted = set(r.query.nodes.values()) | {e.rel for e in r.query.edges}
    out = []
    for t in r.doc:
        if t.lemma_.lower() != "number" or t.i in r.used or t.sent.start == 0:
            continue
        of = next((c for c in t.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        said = next((it for g in of.children if g.dep_ == "pobj" for it in r.items if it.start <= g.i < it.end),
                    None) if of is not None else None
        if of is None:
            out.append((t.i, t.i + 1))
        elif said is not None and any(x.kind in ("label", "rel") and x.owner in counted for x in said.terms):
            out += [(t.i, t.i + 1), (of.i, of.i + 1), (said.start, said.end)]
    return out


def _agent_of(verb: str, word: str) -> bool:
    """Whether ``word`` of a property's name is the verb itself or the one who does it, by their common stem
    ("direct": director, "nominate": nominee, "host": Host_city)."""
    n = len(os.path.commonprefix([verb, word]))
    return len(verb) >= 4 and n >= 4 and n >= len(verb) - 3 and len(word) - n <= 3


def _asked_of_both(r: Reading, other: str) -> bool:
    """Whether ``other``, a label named beside the asked one, has a property of its own named like one asked for
    ("buyer_email" and "seller_email")."""
    own = [w[:4] for w in name_words(r.query.nodes[r.target])]
    for it in r.asked:
        if it.term is None or not it.term.prop:
            continue
        rest = {w for w in name_words(it.term.prop) if w[:4] not in own} - {"id"}
        if rest and any(rest <= set(name_words(p)) for p in r.view.nodes.get(other, {})):
            return True
    return False


def _names_by_number(r: Reading) -> bool:
    """Whether "the names of X" is answered by X's numeric key alone, X having no name ("the names of the
    clients who ...", a client keyed by a number with only its details beside): a number is no name."""
    if r.target is None:
        return False
    label = r.query.nodes[r.target]
    key = r.view.key(label)
    lem = r.lemmas
    named = any(x.term is not None and x.term.kind == "label" and r.vars.get(x.term.owner) == r.target and
                any(lem[k:k + 2] in (["name", "of"], ["names", "of"]) and
                    all(w in cues.DETERMINERS for w in lem[k + 2:x.start]) for k in range(max(0, x.start - 4), x.start))
                for x in r.items)
    shown = [c for c in r.query.columns if not c.is_aggregate]
    return named and bool(shown) and all(c.holder == r.target and c.prop == key for c in shown) and \
        r.view.is_number(label, key) and not is_name_like(key)


def _domain_words(r: Reading) -> list[tuple[int, int]]:
    """The words of the graph's own name said as a modifier of a label read ("the music artists" of a graph named
    music_school, "gas stations" of gas_network): they say which graph, not which nodes."""
    own = {f for w in name_words(r.view.spec.name) for f in forms(w) if len(w) > 2}
    return [(t.i, t.i + 1) for t in r.doc if t.i not in r.used and t.dep_ in ("compound", "amod") and
            t.pos_ in ("NOUN", "ADJ", "PROPN") and t.lower_ in own and _names_label(r, t.head.i) and
            not any(it.start <= t.i < it.end for it in r.items)]


def _made(r: Reading, verb: Any) -> bool:
    """Whether ``verb`` only says that the asked nodes were made or recorded (:data:`cues.EXISTENCE_VERBS`): said of
    the asked label ("bookings made", "payments were made"), every other word under it read; "in"/"before" a year
    or date the asked label records."""
    if verb.lemma_.lower() not in cues.EXISTENCE_VERBS or r.target is None:
        return False
    said_of = [c for c in verb.children if c.dep_ in ("nsubjpass", "nsubj")] + ([verb.head] if verb.dep_ == "acl" else [])
    label = r.query.nodes[r.target]
    labels = {label} | set(r.query.nodes.values())  # "the number of orders made": a label the query counts
    if not any(_names_label(r, d.i) and any(it.start <= d.i < it.end and it.term.owner in labels for it in r.items
                                            if it.term is not None) for d in said_of):
        return False
    rest = [t for t in verb.subtree if t.i != verb.i and not t.is_punct and not t.is_stop
            and not any(t.i in range(d.left_edge.i, d.right_edge.i + 1) for d in said_of)]
    return all(t.i in r.used for t in rest)


def _verb_of_group(r: Reading, verb: Any) -> bool:
    """Whether ``verb``, said of a label the query counts or sums, has for its phrase the group ("each" and what
    is grouped by), every word under it read: "How many medicines are offered by each trade name", "How many songs
    were released for each format" say no more than the grouping."""
    q = r.query
    shown = {(q.nodes.get(c.holder), c.prop) for c in q.columns if not c.is_aggregate}
    if not shown or not any(c.is_aggregate for c in q.columns):
        return False
    if not any(c.dep_ in ("nsubj", "nsubjpass") and _names_label(r, c.i) for c in verb.children):
        return False
    phrases = [c for c in verb.children if c.dep_ in ("prep", "agent")]
    if not phrases or not all(_all_read(r, c) for c in phrases) or not all(
            c.i in r.used or c.dep_ in ("prep", "agent", "aux", "auxpass", "punct", "nsubj", "nsubjpass")
            for c in verb.children):
        return False
    return any(any(d.lower_ in ("each", "every", "per") for d in c.subtree) and any(
        it.term is not None and (it.term.owner, it.term.prop) in shown and c.left_edge.i <= it.start <= c.right_edge.i
        for it in r.items) for c in phrases)


def _all_read(r: Reading, head: Any) -> bool:
    """Whether every content word under ``head`` is read, one at least ("in the songs")."""
    words = [t for t in head.subtree if t.i != head.i and not t.is_punct and not t.is_stop]
    return bool(words) and all(t.i in r.used for t in words)


def _made_by_value(r: Reading, verb: Any) -> bool:
    """Whether ``verb``, a light verb or one of making, heads a relative clause on a property of the asked label
    asked for and has that label as its object, every content word under it read ("the studios that have made two
    films": the films, grouped by their studio)."""
    lemma = verb.lemma_.lower()
    if r.target is None or verb.dep_ != "relcl" or (lemma not in cues.LIGHT_VERBS and lemma not in cues.EXISTENCE_VERBS):
        return False
    label = r.query.nodes[r.target]
    if not any(it.start <= verb.head.i < it.end and it.term is not None and it.term.kind == "prop" and
               it.term.owner == label for it in r.asked):
        return False
    if not any(c.dep_ == "dobj" and _names_label(r, c.i) and any(
            it.start <= c.i < it.end and it.term.owner == label for it in r.items if it.term is not None)
               for c in verb.children):
        return False
    return all(t.i in r.used for t in verb.subtree if t.i != verb.i and not t.is_punct and not t.is_stop)


KEY_COLUMN_WORDS = CODE_WORDS | {"name", "no", "num"}  # the last words of a key column a relationship is named after


def _generic(r: Reading, edge: Any) -> bool:
    """Whether a relationship's name says no more than that its ends are linked (``HAS_OWNER``, ``boat_owner``):
    its words are its labels' words and :data:`cues.LINK_WORDS`; in a "has" name, also the words of the key column
    it follows (``HAS_DEPT_NAME``: "dept" shortens department, "name" names its key)."""
    full = [w for lb in (r.query.nodes.get(edge.src, ""), r.query.nodes.get(edge.dst, "")) for w in name_words(lb)]
    ends = {w[:4] for w in full}
    words = name_words(edge.rel)
    keyed = "has" in words
    return all(w in cues.LINK_WORDS or w[:4] in ends or
               keyed and (w in KEY_COLUMN_WORDS or any(abbreviates(w, e) for e in full)) for w in words)


def _said_by_label(r: Reading, verb: Any) -> bool:
    """Whether the doer of ``verb`` is a label read ("students who play sports", "customers have taken a loan"):
    its subject, or the noun its relative clause describes (a verb between two joined labels says the join)."""
    if any(c.dep_ == "aux" and c.lemma_.lower() in cues.MODALS for c in verb.children):
        return False  # "dorms that can accommodate 300 students": a capacity
    edges = r.query.edges + [e for a in r.query.absent for e in a.edges]  # "items that did not receive any review"
    if not edges or not all(_generic(r, e) or _sole(r, e, verb.lemma_.lower()) for e in edges):
        return False  # "laureates who shared 3 prizes" is not what WON says
    doers = [c for c in verb.children if c.dep_ == "nsubj"]
    if verb.dep_ == "relcl" or any(c.lower_ in ("who", "that", "which") for c in doers):
        doers.append(verb.head)
    doers += [g for d in doers for p in d.children if p.dep_ == "prep" and p.lower_ == "of" for g in p.children
              if g.dep_ == "pobj"]  # "the names of users who did not leave any review": the users
    return any(_names_label(r, d.i) for d in doers)


def _sole(r: Reading, edge: Any, verb: str) -> bool:
    """Whether ``edge``'s relationship is the only one between its two labels, either way, and its name says no
    action but ``verb``'s (:func:`action_lemmas`): a verb between them can say no other ("users who left a review";
    not "laureates who shared 3 prizes" of WON)."""
    ends = {r.query.nodes.get(edge.src), r.query.nodes.get(edge.dst)}
    if None in ends or any(a[:4] != verb[:4] for a in action_lemmas(edge.rel)):
        return False
    return not any(rel != edge.rel and {a, b} == ends for rel, pairs in r.view.rels.items() for a, b in pairs)


def _participle_of_sole_join(r: Reading, verb: Any) -> bool:
    """Whether ``verb`` is a bare participle that says a node was made (:data:`cues.MADE_PARTICIPLES`) after a label
    read ("the number of orders placed", "orders made") whose nodes the query joins to another label by the one
    relationship between the two: it can say no other."""
    noun = next((i for i in (verb.head.i, verb.i - 1) if _names_label(r, i)), None)  # "the number of orders placed"
    if verb.tag_ != "VBN" or verb.dep_ != "acl" or noun is None or verb.lemma_.lower() not in cues.MADE_PARTICIPLES or \
            any(c.i not in r.used and not c.is_punct for c in verb.children):
        return False
    label = next((it.term.owner for it in r.items if it.start <= noun < it.end and it.term is not None), None)
    edges = [e for e in r.query.edges if label in (r.query.nodes.get(e.src), r.query.nodes.get(e.dst))]
    return len(edges) == 1 and sum(
        {a, b} == {r.query.nodes.get(edges[0].src), r.query.nodes.get(edges[0].dst)}
        for pairs in r.view.rels.values() for a, b in pairs) == 1


def _relative_read(r: Reading, verb: Any) -> bool:
    """Whether ``verb``, a light verb, heads a relative clause of a label read, every content word under it read
    too ("the artist who made the album 'X'"): it joins what was read."""
    if verb.dep_ not in ("relcl", "acl") or not _names_label(r, verb.head.i) or \
            verb.lemma_.lower() not in cues.LIGHT_VERBS:
        return False
    words = [t for t in verb.subtree if t.i != verb.i and not t.is_punct and not t.is_stop]
    return bool(words) and all(t.i in r.used for t in words) and any(_names_label(r, t.i) for t in words)


def _names_unsaid(r: Reading, verb: Any, prep: Any) -> bool:
    """Whether a verb may restate the values under its preposition: each value put on a property the question
    did not name ("opened between 2000 and 2005": opening_year) shares the verb's stem; "members born before 1990"
    is no joined_year."""
    stem = verb.lemma_.lower()[:4]
    return all(len(stem) == 4 and any(w[:4] == stem for w in name_words(r.unsaid[g.i]))
               for g in prep.subtree if g.i in r.unsaid)


def _place_used(r: Reading) -> bool:
    """Whether the query shows, groups by or compares a property named as a place (home_city, Location)."""
    return any(w in cues.PLACE_WORDS for p in _props_used(r) for w in name_words(p))


def _kind_used(r: Reading) -> bool:
    """Whether the query shows, groups by or compares a property named as a kind (category_code, Type)."""
    return any(w in cues.CATEGORY_WORDS for p in _props_used(r) for w in name_words(p))


def _props_used(r: Reading) -> list[str]:
    """The properties the query shows, compares or orders by."""
    q = r.query
    return [p for p in [c.prop for c in q.columns] + [w.prop for w in q.where] + [c.prop for c, _ in q.order] if p]


def _other_times(r: Reading) -> list[str]:
    """The verbs that name another time than the one a value was put on unnamed ("customers who rented films after
    2005": the rental's date, not the film's last update): a time property of the graph shares the verb's stem, and
    the one chosen does not."""
    if not r.unsaid:
        return []
    times = {p for props in r.view.nodes.values() for p in props if is_timed(p)}
    out = []
    for i, prop in r.unsaid.items():
        verb = next((t for t in r.doc[i].ancestors if t.pos_ == "VERB"), None)
        stem = verb.lemma_.lower()[:4] if verb is not None else ""
        if len(stem) == 4 and not any(w[:4] == stem for w in name_words(prop)) and any(
                w[:4] == stem for p in times for w in name_words(p) if len(w) >= 4):
            out.append(f"{verb.text} (which time)")
    return out


def _names_label(r: Reading, i: int, kind: str = "label") -> bool:
    """Whether token ``i`` is read as a label of the query ("the artist who made the album"), or with ``kind``
    "rel" as a relationship ("reviewers who have contributed three ratings")."""
    return i in r.used and any(it.start <= i < it.end and it.term is not None and it.term.kind == kind
                               for it in r.items)


def _named_on_path(r: Reading) -> set[str]:
    """The unread words that share their stem with a label or relationship the query joins through ("students
    enrolled in courses" through Course_Enrolment): the join says them."""
    q = r.query
    names = [*q.nodes.values(), *(e.rel for e in q.edges)] + [e.rel for a in q.absent for e in a.edges]
    stems = {w[:5] for n in names for w in name_words(n) if len(w) >= 5}
    return {t.text for t in r.doc if t.i not in r.used and t.pos_ in ("VERB", "NOUN", "ADJ") and len(t.lower_) >= 5
            and (t.lower_[:5] in stems or t.lemma_.lower()[:5] in stems)}


def _naming_other(r: Reading, verbs: set[str]) -> set[str]:
    """The verbs that share their stem with a schema name the query does not use ("advised by" and the property
    Advisor, while the join goes through activities): such a verb names that, not the join."""
    q = r.query
    used = {e.rel for e in q.edges} | {w.prop for w in q.where} | {c.prop for c in q.columns if c.prop} | \
        set(q.nodes.values())
    names = [n for n in [*r.view.nodes, *r.view.rels, *(p for props in r.view.nodes.values() for p in props
                                                        if not is_timed(p))]
             if n not in used]  # a time ("hosted_year") dates the verb's event; it names no other link
    words = {w for n in names for w in name_words(n) if len(w) >= 5}
    taken = {w for n in used if n for w in name_words(n) if len(w) >= 5}  # "began": begin, used, and begin_text
    lemma = {t.text: t.lemma_.lower() for t in r.doc}
    return {v for v in verbs if any(_same_stem(x, w) for x in (lemma[v], v.lower()) for w in words) and
            not any(_same_stem(x, w) for x in (lemma[v], v.lower()) for w in taken)}


def _same_stem(a: str, b: str) -> bool:
    """Whether two words share a stem: five letters or more, all but one of the shorter word's ("advise" and
    "advisor"; not "contain" and "contact")."""
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return n >= 5 and n >= min(len(a), len(b)) - 1
