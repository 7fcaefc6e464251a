"""Joining what a question names into one pattern: the variable that holds a property (:func:`holder_of`), the
edge of a relationship from the asked node (:func:`edge_of`), a label joined along the one shortest schema path
(:func:`join_label`; two paths are a choice of the reading, the word that names a relationship decides), and the
other end of a relationship of a label to itself (:func:`other_end`), a relationship a property's word brought in
kept apart from another between the same two nodes (:func:`apart`), "the same X" that two relationships reach
(:func:`same_node`), the label that does what a verb says
(:func:`doer`, "Who won the Nobel Prize?"), and a second copy of a path
(:func:`copy_path`, for "both A and B" of nodes each asked node has several of; :func:`absent_path`, for "A but not
B"). A label said not to be there is joined into its NOT EXISTS pattern instead. Two labels no relationship joins are
joined by equal values where one holds a property named as the other's key (``Query.keyed``).
"""

from __future__ import annotations

from kgqa.kg.derive import is_name_like
from kgqa.planner.query import Absent, Column, Edge, Query, Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import MAX_READINGS, Item, Reading, Value
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.reader.word_forms import forms
from kgqa.planner.schema_view import SchemaView
from kgqa.text import name_words


def holder_of(r: Reading, term: Term) -> str | None:
    """The variable that holds a property term's value, joining its owner (or relationship) to the query."""
    if term.on_rel:
        return edge_of(r, term.owner, beyond=True)
    if term.owner == r.query.nodes.get(r.target):
        return r.target
    return join_label(r, term.owner)


def _keyed(view: SchemaView, a: str, b: str) -> tuple[str, str, str] | None:
    """(the label that refers, its property, the other's property it holds) where one of labels ``a`` and ``b`` has a
    property named exactly as the other's key, a key whose name says more than "id" (band.Gig_ID and gig's key
    Gig_ID); else where the two share one property, neither's key, that says more than a name or details and has
    the same type on both (a classroom number on teachers and on pupils); else None."""
    generic = ("id", "code", "no", "num", "name", "key")
    for ref, other in ((a, b), (b, a)):
        key = view.spec.primary_keys.get(other, "")
        words = [w for w in name_words(key) if w not in generic]
        prop = next((p for p in view.nodes.get(ref, {}) if p.lower() == key.lower()), None)
        if words and prop is not None and prop != view.spec.primary_keys.get(ref):
            return ref, prop, key
    keys = {view.spec.primary_keys.get(a, ""), view.spec.primary_keys.get(b, "")}
    theirs = {p.lower(): p for p in view.nodes.get(b, {})}
    shared = [(p, theirs[p.lower()]) for p in view.nodes.get(a, {}) if p.lower() in theirs and p not in keys and
              theirs[p.lower()] not in keys and not is_name_like(p) and
              any(w not in (*generic, "details", "description", "other") for w in name_words(p))
              and view.prop_type(a, p) == view.prop_type(b, theirs[p.lower()])]
    if len(shared) == 1:
        return a, shared[0][0], shared[0][1]
    return None


def edge_of(r: Reading, rel: str, beyond: bool = False) -> str | None:
    """The edge variable of relationship ``rel`` from the asked node (made once); where ``beyond`` (a property of
    the edge is said), from the nodes the asked node reaches too (:func:`_edge_beyond`)."""
    if rel in r.rel_var:
        return r.rel_var[rel]
    label = r.query.nodes[r.target]
    pairs = r.view.rels.get(rel, [])
    pair = next((p for p in pairs if p[0] == label), None) or next((p for p in pairs if p[1] == label), None)
    if pair is None:
        var = _edge_beyond(r, rel) if beyond else None
        if var is None:
            r.decline(f"how {label} is joined by {rel}")
        return var
    src, dst = pair
    if src == label:
        far = r.var_for(dst, f"{rel}>{dst}" if dst == label else dst)
        edge = Edge(f"r{len(r.rel_var)}", rel, r.target, far)
    else:
        far = r.var_for(src, f"{rel}<{src}" if src == label else src)
        edge = Edge(f"r{len(r.rel_var)}", rel, far, r.target)
    r.rel_var[rel] = edge.var
    r.query.edges.append(edge)
    return edge.var


def _edge_beyond(r: Reading, rel: str) -> str | None:
    """The edge variable of relationship ``rel`` that joins two other labels than the asked one ("customers whose
    orders hold a discount": the ORDERS edges of their orders): the edge the pattern walks already, else one from
    the end nearer the asked node (joined as :func:`join_label` joins), to the node the other end has or a new
    one; None where the relationship joins one pair of labels and neither is reached."""
    walked = next((e.var for e in r.query.edges if e.rel == rel), None)
    pairs = r.view.rels.get(rel, [])
    if walked is None and len(pairs) == 1 and pairs[0][0] != pairs[0][1]:
        start = r.query.nodes[r.target]
        near = {end: len(ps[0]) for end in pairs[0] if (ps := r.view.paths(start, end, max_hops=3))}
        if not near:
            return None
        end = min(near, key=lambda x: (near[x], x != pairs[0][0]))
        var = join_label(r, end)
        if var is None:
            return None
        src, dst = pairs[0]
        other = r.var_for(dst if end == src else src)
        walked = f"r{len(r.rel_var)}"
        r.query.edges.append(Edge(walked, rel, var, other) if end == src else Edge(walked, rel, other, var))
    if walked is not None:
        r.rel_var[rel] = walked
    return walked


def join_label(r: Reading, label: str, seen: frozenset[str] = frozenset()) -> str | None:
    """The node variable of ``label``, joined along the one shortest schema path to the node of the label whose
    noun its words modify ("instructors who advise students in the Math department": the students'), else to the
    asked node."""
    if label in r.vars:
        return r.vars[label]
    head = _modified(r, label)
    from_var = join_label(r, head, seen | {label}) if head is not None and head not in seen else r.target
    if from_var is None:
        return None
    start = r.query.nodes[from_var]
    longer = r.view.paths(start, label, max_hops=3, prefer=set(r.rels_named), slack=1)
    paths = [p for p in longer if len(p) == len(longer[0])]
    if not paths and label not in r.negated and (keyed := _keyed(r.view, start, label)) is not None:
        var = r.var_for(label)  # no relationship: the property that holds the other's key joins them
        ref, prop, held = keyed
        r.query.keyed.append((from_var, prop, var, held) if ref == start else (var, prop, from_var, held))
        return var
    if not paths:
        r.decline(f"how {start} and {label} are joined")
        return None
    best = [p for p in paths if len(p) == len(paths[0])]
    named = [p for p in best if any(step[0] in r.rels_named for step in p)]
    most = max((sum(step[0] in r.rels_hinted for step in p) for p in best), default=0)
    hinted = [p for p in best if most and sum(step[0] in r.rels_hinted for step in p) == most]  # the most words'
    verbs = {t.lemma_.lower() for t in r.doc if t.pos_ == "VERB"}
    verbed = [p for p in longer if any(verbs & forms(w) for _, _, other in p[:-1] for w in name_words(other))]
    verbed = [p for p in verbed if len(p) == len(verbed[0])]  # "students who have taken Statistics courses":
    best = named or verbed or hinted or best  # through takes (and its section), not the students' department
    ways = list(dict.fromkeys("/".join(s[0] for s in p) for p in best))
    if len(ways) > 1:
        term = r.choose(f"path:{label}", [Term("path", w) for w in ways[:MAX_READINGS]],
                        f"joins {start} and {label}")
        if term is None:
            return None
        best = [p for p in best if "/".join(s[0] for s in p) == term.owner]
    if hinted and not named and not verbed:  # the words that chose the path ("the recipients") are read
        r.use(*[(i, i + 1) for step in best[0] for i in r.hints.get(step[0], [])])
    cur = from_var
    absent = r.negated.get(label)
    if absent is not None:
        r.query.absent.append(absent)
    for rel, direction, other in best[0]:
        same = next((e for e in r.query.edges if e.rel == rel and absent is None and (
            (direction == "out" and e.src == cur and r.query.nodes.get(e.dst) == other) or
            (direction != "out" and e.dst == cur and r.query.nodes.get(e.src) == other))), None)
        if same is not None:  # the edge is on the pattern already (a verb named it)
            cur = same.dst if direction == "out" else same.src
            r.vars.setdefault(other, cur)
            continue
        nxt = r.var_for(other, f"not:{other}" if absent is not None else None)
        n = len(r.query.edges) + sum(len(a.edges) for a in r.query.absent)
        edge = Edge(f"r{n}", rel, cur, nxt) if direction == "out" else Edge(f"r{n}", rel, nxt, cur)
        if absent is not None:
            absent.edges.append(edge)
            r.absent_of[nxt] = absent
            absent.own.add(nxt)
        else:
            r.query.edges.append(edge)
            r.rel_var.setdefault(rel, edge.var)
        cur = nxt
    if absent is not None:
        r.vars[label] = cur
    return cur


def _modified(r: Reading, label: str) -> str | None:
    """The label, neither ``label`` nor the asked one, whose noun the first words naming ``label`` (or a value
    of it) hang from by a preposition, when a path joins the two; else None."""
    if label in r.negated or r.target is None:
        return None
    asked = r.query.nodes[r.target]
    at = [it.start for it in r.items if any(t.kind == "label" and t.owner == label for t in it.terms)] + \
        [v.start for v in r.values if v.label == label]
    if not at:
        return None
    tok = first = r.doc[min(at)]
    while tok.dep_ in ("compound", "amod", "nmod", "nummod") and tok.head.i != tok.i:
        tok = tok.head
    said = {t.owner for it in r.items if it.start <= tok.i < it.end for t in it.terms if t.kind == "label"}
    if tok.i != first.i and len(said) == 1 and not said & {label, asked} and \
            r.view.paths(next(iter(said)), label, max_hops=1, prefer=set()):
        return said.pop()  # "the clubs of the chess winners": the medal of the winners, then theirs
    if tok.dep_ != "pobj" or tok.head.dep_ != "prep" or tok.head.head.pos_ not in ("NOUN", "PROPN"):
        return None
    noun = tok.head.head.i
    heads = {t.owner for it in r.items if it.start <= noun < it.end for t in it.terms if t.kind == "label"}
    if len(heads) != 1 or heads & {label, asked}:
        return None
    head = heads.pop()
    if head in r.negated or not r.view.paths(head, label, max_hops=1, prefer=set()):
        return None
    return head


def other_end(r: Reading, v: Value) -> str | None:
    """The far end of the one relationship of the asked label to itself that the question names, the named node
    its subject when it is the verb's subject ("Who does Cy Dale follow?": Cy follows them); else a
    decline."""
    label = r.query.nodes[r.target]
    rels = [t.owner for it in r.items for t in it.terms if t.kind == "rel" and (label, label) in
            r.view.rels.get(t.owner, [])]
    if len(set(rels)) != 1:
        far = _named_elsewhere(r, v) or _alongside(r, v) or _co_noun(r, v)
        if far is None:
            r.decline(f"which {label} other than {v.value!r}")
        return far
    rel = rels[0]
    item = next(it for it in r.items if any(t.owner == rel and t.kind == "rel" for t in it.terms))
    item.term = Term("rel", rel)
    r.use((item.start, item.end))
    far = r.var_for(label, f"{rel}:named")
    root, head = r.doc[v.start:v.end].root, r.doc[item.end - 1]
    owner = head.pos_ == "NOUN" and (root.dep_ == "poss" and root.head.i == head.i or root.dep_ == "pobj" and
                                     root.head.lower_ in ("of", "for", "to") and root.head.head.i == head.i)
    # "the friends of Bob", "Bob's friends", "the prerequisite for Mobile Computing": Bob's (its) edges; of two
    # subjects the parse gives one verb ("Who follows Bob Roe?"), the first is its subject
    subject = root.dep_ in ("nsubj", "nsubjpass") and not any(
        t.dep_ == "nsubj" and t.head.i == root.head.i for t in r.doc[:v.start]) or owner
    said = [it for it in r.items if any(t.owner == rel and t.kind == "rel" for t in it.terms)]
    near = r.target
    if len(said) == 2 and {"who", "that"} & set(r.lemmas[said[0].end:said[1].start]):
        # "Who follows someone who follows Jessica?": two edges, through the one the relative clause is about
        near = r.var_for(label, f"{rel}:between")
        between = Edge(f"r{len(r.query.edges)}", rel, *((near, r.target) if subject else (r.target, near)))
        r.query.edges.append(between)
        said[1].term = Term("rel", rel)
        r.use((said[0].end, said[1].end))
    edge = Edge(f"r{len(r.query.edges)}", rel, *((far, near) if subject else (near, far)))
    r.query.edges.append(edge)
    r.rel_var[rel] = edge.var
    return far


def by_its_verb(r: Reading, v: Value, label: str) -> str | None:
    """The node a linked value of another label than the asked one names, joined to the asked node by the
    relationship its own verb names, where several join the two labels ("books edited by Ann Lee did Bob Roe
    write": one person edited, another wrote); else None."""
    asked = r.query.nodes[r.target]
    rels = [rel for rel, pairs in r.view.rels.items() if (label, asked) in pairs or (asked, label) in pairs]
    root = r.doc[v.start:v.end].root
    verb = root.head.head if root.dep_ == "pobj" and root.head.dep_ == "agent" else \
        root.head if root.dep_ == "nsubj" and root.head.pos_ == "VERB" else None
    item = _verb_item(r, verb)
    named = [t.owner for t in item.terms if t.kind == "rel" and t.owner in rels] if item is not None else []
    if label == asked or len(rels) < 2 or len(named) != 1:
        return None
    rel = named[0]
    far = r.var_for(label, f"{rel}:{label}")
    edge = Edge(f"r{len(r.query.edges)}", rel, *((far, r.target) if (label, asked) in r.view.rels[rel] else
                                                 (r.target, far)))
    r.query.edges.append(edge)
    r.rel_var.setdefault(rel, edge.var)
    item.term = Term("rel", rel)
    r.use((item.start, item.end))
    return far


def _verb_item(r: Reading, verb) -> Item | None:
    """The words, not yet read, that name a relationship at the token ``verb`` (None for none)."""
    return next((it for it in r.items if verb is not None and it.start <= verb.i < it.end and it.term is None and
                 "rel" in it.kinds()), None)


def _with(r: Reading, v: Value) -> bool:
    """Whether a value is said after a preposition of doing a thing together ("alongside Ann Lee")."""
    root = r.doc[v.start:v.end].root
    return root.dep_ == "pobj" and root.head.lower_ in cues.ALONGSIDE


def _alongside(r: Reading, v: Value) -> str | None:
    """A node of the asked label named after "alongside" or "with" the verb of a relationship from the label to
    another ("Who acted alongside Ann Lee in Dune?"): a second node of the label, joined by that
    relationship to the same node of the other label as the asked ones, and not one of them; else None."""
    root = r.doc[v.start:v.end].root
    if not _with(r, v):
        return None
    verb, label = root.head.head, r.query.nodes[r.target]
    if verb.dep_ == "dobj" and verb.head.pos_ == "VERB" and _verb_item(r, verb) is None and \
            r.doc[v.end:v.end + 1].text.lower() != "as":  # not "films with Ann as a producer": her role's
        verb = verb.head  # "Who shared the 1903 prize with Ann Lee?": the verb's, said after its object
    item = _verb_item(r, verb)
    ways = {(t.owner, a, b) for t in (item.terms if item is not None else ()) if t.kind == "rel"
            for a, b in r.view.rels.get(t.owner, []) if label in (a, b) and a != b}
    key = r.view.key(label)
    if len(ways) != 1 or not key:
        return None
    (rel, src, dst), = ways
    near = edge_of(r, rel)
    edge = next((e for e in r.query.edges if e.var == near), None)
    if edge is None:
        return None
    mid = edge.dst if edge.src == r.target else edge.src
    far = r.var_for(label, f"{rel}:alongside")
    r.query.edges.append(Edge(f"r{len(r.query.edges)}", rel, *((far, mid) if src == label else (mid, far))))
    r.query.where.append(Where(r.target, key, "<>", Column(far, key)))
    r.where_ends.append((root.head.i, root.head.i + 1))
    item.term = Term("rel", rel)
    r.use((item.start, item.end), (root.head.i, root.head.i + 1))
    return far


def _co_noun(r: Reading, v: Value) -> str | None:
    """The others of the asked label a "co-" noun says of a named node ("Ann Lee's co-stars", "the co-authors of Ann
    Lee"): joined by the relationship the noun names to a node of its other label that the named one is joined to
    by it too, and not the named one; else None."""
    doc, label = r.doc, r.query.nodes[r.target]
    starts = [v.end + 2] if v.end + 1 < len(doc) and doc[v.end].tag_ == "POS" and doc[v.end + 1].lower_ == "co" \
        else []
    starts += [it.start for it in r.items if doc[it.end:it.end + 1].text.lower() == "of" and it.end + 1 == v.start
               and it.start >= 1 and "co" in (doc[it.start - 1].lower_, doc[it.start - 2].lower_)]
    item = next((it for it in r.items for at in starts if it.start in (at, at + 1)), None)
    if item is None or "co" not in (doc[item.start - 1].lower_, doc[item.start - 2].lower_):
        return None
    rels = {t.owner if t.kind == "rel" else t.via for t in item.terms if t.kind == "rel" or t.via}
    ways = {(rel, a, b) for rel in rels for a, b in r.view.rels.get(rel, []) if label in (a, b) and a != b}
    key = r.view.key(label)
    if len(ways) != 1 or not key:
        return None
    (rel, src, dst), = ways
    mid = r.var_for(dst if src == label else src, f"{rel}:co")
    far = r.var_for(label, f"{rel}:co-named")
    for end in (r.target, far):
        r.query.edges.append(Edge(f"r{len(r.query.edges)}", rel, *((end, mid) if src == label else (mid, end))))
    r.rel_var.setdefault(rel, r.query.edges[-2].var)
    co = item.start - 1 if doc[item.start - 1].lower_ == "co" else item.start - 2
    r.query.where.append(Where(r.target, key, "<>", Column(far, key)))
    r.where_ends.append((co, item.end))
    item.term = Term("rel", rel)
    r.use((co, item.end))
    return far


def _named_elsewhere(r: Reading, v: Value) -> str | None:
    """A node of the asked label named as the doer of a verb on another label's node said in the question ("actors
    in a film directed by Ann", "the films Cid acted in"): a second node of the label, joined to
    that node by the verb's relationship; else None."""
    label = r.query.nodes[r.target]
    root = r.doc[v.start:v.end].root
    verb = root.head.head if root.dep_ == "pobj" and root.head.dep_ == "agent" else root.head if root.dep_ == "nsubj" \
        else None
    item = _verb_item(r, verb)
    if item is None:
        return None
    named = {t.owner for it in r.items if it is not item for t in it.terms if t.kind == "label" and t.owner != label}
    ways = {(t.owner, other) for t in item.terms if t.kind == "rel" for a, b in r.view.rels.get(t.owner, [])
            if label in (a, b) and (other := b if a == label else a) != label and other in named}
    if len(ways) != 1:
        return None
    (rel, other), = ways
    said = [it for it in r.items if it is not item and any(t.kind == "rel" and t.owner == rel for t in it.terms)]
    if not said:  # the verb is the named node's: not a way the asked nodes are joined
        r.rels_named = [x for x in r.rels_named if x != rel]
    near = join_label(r, other)
    if near is None:
        return None
    far = r.var_for(label, f"{rel}:named")
    forward = (label, other) in r.view.rels.get(rel, [])
    edge = Edge(f"r{len(r.rel_var)}", rel, *((far, near) if forward else (near, far)))
    r.query.edges.append(edge)
    r.rel_var[f"{rel}:named"] = edge.var
    item.term = Term("rel", rel)
    r.use((item.start, item.end))
    return far


def apart(r: Reading) -> None:
    """A relationship that only a property's word brought in ("books with a rating below 3": a review's), between
    two nodes another relationship already joins ("authors who wrote books with a rating below 3"), joins the node
    the word is said of to a node of its own at its other end: the reviewer is not the author. The node kept is the
    one of the label whose noun the word modifies, else the asked one; a relationship a word names as such
    ("people who reviewed books they wrote") stays."""
    if r.target is None:
        return
    q = r.query
    for e in list(q.edges):
        if e.src == e.dst or e.rel in r.rels_named or not any(
                o is not e and o.rel != e.rel and o.rel in r.rels_named and {o.src, o.dst} == {e.src, e.dst}
                for o in q.edges):
            continue
        words = [it for it in r.items if it.term is not None and it.term.owner == e.rel]
        if not words or any(it.term.kind != "prop" for it in words):
            continue
        said = {_said_of(r, it) for it in words} - {None}
        keep = said.pop() if len(said) == 1 else q.nodes[r.target]
        ends = [v for v in (e.src, e.dst) if q.nodes[v] == keep]
        if len(ends) != 1:
            continue
        other = e.dst if ends[0] == e.src else e.src
        fresh = r.var_for(q.nodes[other], f"{e.rel}:{other}")
        q.edges[q.edges.index(e)] = Edge(e.var, e.rel, *((e.src, fresh) if other == e.dst else (fresh, e.dst)))


def same_node(r: Reading) -> None:
    """"Who wrote and edited the same book?", "books written and edited by the same person": "same" (and a "both"
    before the verbs) says what the pattern does when the node of the label named after it is joined by two
    relationships to one node; that node is shown beside the answer (``Reading.shared``). Not "the same book as
    Ann Lee": one another's. So do "also" and "themselves" (:data:`cues.SAME_DOER_WORDS`) in a clause of that node's
    noun ("a film that they also directed")."""
    for t in r.doc:
        # "a film that they also directed", "a film they wrote themselves": in a clause of the node's noun whose
        # doer a pronoun names; not "people who have also produced a film" (a film of its own)
        doer = t.lower_ in cues.SAME_DOER_WORDS and t.head.dep_ == "relcl" and \
            any(c.dep_ == "nsubj" and c.tag_ == "PRP" for c in t.head.children)
        if t.lemma_.lower() != "same" and not doer:
            continue
        at = t.head.head.i if doer else t.i + 1
        item = next((x for x in r.items if (x.end - 1 == at if doer else x.start == at) and x.term is not None and
                     x.term.kind == "label"), None)
        if item is None or r.lemmas[item.end:item.end + 1] == ["as"]:
            continue
        var = r.vars.get(item.term.owner)
        ends = {e.dst if e.src == var else e.src for e in r.query.edges if var in (e.src, e.dst)}
        if var is None or not any(len({e.rel for e in r.query.edges if {e.src, e.dst} == {var, end}}) > 1
                                  for end in ends):
            continue
        r.use((t.i, t.i + 1), *[(b.i, b.i + 1) for b in r.doc[:t.i] if b.lower_ == "both" and b.head.pos_ == "VERB"])
        if var != r.target:
            r.shared.append(var)


def _said_of(r: Reading, it: Item) -> str | None:
    """The label whose noun the words of ``it`` modify ("books with a rating", "the highest-rated book"), if any;
    a phrase the parse hangs from a verb ("wrote books with a rating") modifies the verb's object."""
    def label_at(i: int) -> str | None:
        labels = {t.owner for x in r.items if x.start <= i < x.end for t in x.terms if t.kind == "label"}
        return labels.pop() if len(labels) == 1 else None

    tok = r.doc[it.end - 1]
    while tok.dep_ in ("compound", "amod", "nmod", "pobj", "prep") and tok.head.i != tok.i:
        prep, tok = tok.dep_ == "prep", tok.head
        if prep and tok.pos_ == "VERB":
            return next((label for c in tok.children if c.dep_ == "dobj" and (label := label_at(c.i))), None)
        if (label := label_at(tok.i)) is not None:
            return label
    return None


def path_to(q: Query, start: str, goal: str) -> list[Edge] | None:
    """The edges of the pattern from node variable ``start`` to ``goal`` (in the order walked), else None."""
    frontier: list[tuple[str, list[Edge]]] = [(start, [])]
    seen = {start}
    while frontier:
        cur, path = frontier.pop(0)
        if cur == goal:
            return path
        for e in q.edges:
            nxt = e.dst if e.src == cur else e.src if e.dst == cur else None
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                frontier.append((nxt, path + [e]))
    return None


def many_along(view: SchemaView, q: Query, path: list[Edge], start: str) -> bool:
    """Whether a node at ``start`` may reach several nodes along ``path``: some node of a step has several edges
    on the side it leaves from (a track has one genre; an album has many tracks)."""
    cur = start
    for e in path:
        if view.several.get(e.rel, (True, True))[0 if e.src == cur else 1]:
            return True
        cur = e.dst if e.src == cur else e.src
    return False


def absent_path(r: Reading, path: list[Edge], tag: str) -> tuple[Absent, str]:
    """Adds a copy of ``path`` from the asked node that must not exist (a NOT EXISTS with variables of its own),
    returning it and the variable of its last node ("allergic to milk but not to cat": no allergy of cat)."""
    a = Absent()
    r.query.absent.append(a)
    last = copy_path(r, path, tag, into=a.edges)
    a.own = {v for e in a.edges for v in (e.src, e.dst)} - {r.target}
    r.absent_of.update(dict.fromkeys(a.own, a))
    return a, last


def copy_path(r: Reading, path: list[Edge], tag: str, start: str | None = None,
              into: list[Edge] | None = None) -> str:
    """Adds a second copy of ``path`` from the asked node, or from ``start`` standing in for it (new variables
    for every node after it), to the pattern or to ``into`` (a NOT EXISTS's edges), returning the variable of the
    copy's last node ("students who play Chess and (play) Tennis")."""
    q = r.query
    edges = q.edges if into is None else into
    old = r.target
    cur = start or r.target
    for e in path:
        far = e.dst if e.src == old else e.src
        new = r.var_for(q.nodes[far], f"{tag}:{far}")
        var = f"r{len(q.edges) + sum(len(a.edges) for a in q.absent)}"
        edges.append(Edge(var, e.rel, cur, new) if e.src == old else Edge(var, e.rel, new, cur))
        cur, old = new, far
    return cur


def rels_named_by(r: Reading, word: str) -> list[str]:
    """The relationships of the asked label whose name has a form of ``word`` ("record": a crew_record)."""
    label = r.query.nodes[r.target]
    return [rel for rel, pairs in r.view.rels.items() if any(label in p for p in pairs) and
            any(word in forms(w) for w in name_words(rel))]


def counted_beside(r: Reading, label: str) -> Column | None:
    """The count of the nodes of the one other label that one relationship joins to ``label`` (the transactions of a
    transaction type), joined to the query; else None."""
    others = {b if a == label else a for pairs in r.view.rels.values() for a, b in pairs if label in (a, b)} - {label}
    if len(others) != 1:
        return None
    var = join_label(r, others.pop())
    return Column(var, None, "count", True) if var is not None else None


def doer(r: Reading, objects: frozenset[str] = frozenset(), at: int | None = None) -> str | None:
    """The label at the other end of the one relationship that the question's verb (the one at ``at``) names from
    the label of a value it gives ("Who borrowed Kindred?": borrowedBook from Member to Book, Kindred a Book) or of
    its object (``objects``: "Who won the Nobel Prize in Physics?"), else None. A value said after "with" or
    "alongside" did the same, not what the verb was done to ("Who acted with Bob Roe?")."""
    given = objects if at is not None else {v.label for v in r.values if v.label and not _with(r, v)} | objects
    ends = {end for it in r.items if (it.start <= at < it.end if at is not None else r.doc[it.start].pos_ == "VERB")
            for t in it.terms if t.kind == "rel" for pair in r.view.rels.get(t.owner, []) if set(pair) & given
            for end in pair if end not in given}  # "acted in": a verb and its preposition
    return ends.pop() if len(ends) == 1 else None


def doer_of_object(r: Reading, first: Item) -> str | None:
    """"Who won the Nobel Prize?", "Who acted in the movie X?": the doer of the verb (:func:`doer`) when the first
    label named is its object, not what is asked; else None."""
    obj = r.doc[first.end - 1]
    if r.lemmas[:1] != ["who"] or r.lemmas[1:2] == ["be"] or not (
            obj.dep_ == "dobj" or obj.dep_ == "pobj" and obj.head.head.pos_ == "VERB" and obj.head.head.i <= 2):
        return None
    objects = frozenset(t.owner for t in first.terms if t.kind == "label")
    verb = obj.head if obj.dep_ == "dobj" else obj.head.head  # "Who directed the films Cid acted in?"
    return doer(r, objects, verb.i) or doer(r, objects)
