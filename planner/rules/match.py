"""The MATCH clause of a frame's Cypher: every label it needs joined to the target along schema paths."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kgqa.kg.schema import ident
from kgqa.planner.frame import RANGE_OPS, AggregateOf, Chooser, Cond, Frame, ValueOf
from kgqa.planner.rules.terms import arrow
from kgqa.planner.schema_view import SchemaView


@dataclass
class Draft:
    """The Cypher being generated for one frame, as the MATCH clause left it for the WHERE and RETURN clauses:
    variables, patterns, conditions so far and parameters."""

    f: Frame
    v: SchemaView
    target: str
    params: dict[str, Any]
    inside: dict[str, list[Cond]]  # conditions inside a negated label's NOT EXISTS
    steps: dict[str, tuple[str, str, str] | None]  # the edge each negated name is, from the target
    roles: set[str]  # relationships that only say what the target is
    rel_conds: list[Cond]  # conditions (and aggregates, orders, asked properties) on relationships' properties
    var_of: dict[str, str] = field(default_factory=dict)
    rel_var: dict[str, str] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    connected: set[str] = field(default_factory=set)
    patterns: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    prefer: set[str] = field(default_factory=set)
    where: list[str] = field(default_factory=list)
    path_of: dict[str, tuple[str, list]] = field(default_factory=dict)
    cycle_ends: set[str] = field(default_factory=set)

    def rel_var_for(self, rel: str) -> str:
        """The variable of a relationship a condition, aggregate or asked property reads, else ""."""
        if not any(c.rel == rel for c in self.rel_conds):
            return ""
        rv = self.rel_var.setdefault(rel, "r" if "r" not in self.taken else f"r{len(self.rel_var) + 1}")
        self.taken.add(rv)
        return rv

    def var(self, label: str) -> str:
        """Returns the variable of ``label``'s node, a new one the first time."""
        if label not in self.var_of:
            base = label[0].lower() if label[0].isascii() and label[0].isalpha() else "n"  # a variable, never a name
            name, i = base, 1
            while name in self.taken:
                i += 1
                name = f"{base}{i}"
            self.taken.add(name)
            self.var_of[label] = name
        return self.var_of[label]


def match_clause(f: Frame, v: SchemaView, target: str, chooser: Chooser | None) -> Draft:
    """Returns the draft of the frame's Cypher with its MATCH patterns: the labels the frame needs (target,
    anchors, conditions, aggregated, ordered and shown labels) joined to the target along schema paths, a
    self-relationship or a label between two nodes of the target's label, and relationships the question names
    that no path took; notes on ``f`` what the graph cannot say."""
    params: dict[str, Any] = {}
    # "categories with no discontinued products": a condition on the negated label's nodes belongs inside the
    # NOT EXISTS (no product that is discontinued), not on the rows
    inside: dict[str, list[Cond]] = {}
    negated = sorted(f.negated, key=lambda name: name not in v.rels)  # "never reviewed a film": the edge first
    steps = {name: _negated_step(v, target, name) for name in negated}
    for name, step in steps.items():
        if step is not None:
            inside[name] = [c for c in f.conds if c.label == step[2] and c.rel is None and c.label != target
                            and not isinstance(c.value, AggregateOf) and (c.op == "=" or c.op in RANGE_OPS)]
            f.conds = [c for c in f.conds if c not in inside[name]]
    # a property no node holds ("films with more than 100 votes" where no film has votes): the graph cannot
    # say, and "none" would be a guess
    asked = [(c.rel or c.label, c.prop) for c in f.conds] + [(f.order_label or target, f.order or ""),
                                                              (f.agg_label or target, f.agg_prop or ""),
                                                              (target, f.target_prop or "")]
    asked += [(target, p) for p in f.shown_props] + ([f.rel_prop] if f.rel_prop else [])
    for owner, prop in dict.fromkeys(asked):
        if prop and v.is_empty(owner, prop):
            f.notes.append(f"unexplained: {prop} (no {owner} in the graph has one)")
    held = f.agg_label or target
    if f.agg in ("sum", "avg") and f.agg_prop and v.prop_type(held, f.agg_prop) and not v.is_number(held, f.agg_prop):
        f.notes.append(f"unexplained: the {f.agg} of {f.agg_prop}, which holds no numbers")  # "the most common role"
    # "actors who directed films rated below 60": a relationship named by a noun of the target's end, beside a
    # verb joining the same labels, only says what the target is (someone who acted); the verb's edge is the
    # path. The noun comes first and names the target (not the people counted in "the film with the most actors
    # who directed"), no named entity may be what it is about ("directed films with Joel Silver as a
    # producer"), and no verb names the noun's relationship too ("actors who acted in")
    verbs = [(s, rel) for s, rel in f.rel_at if (s, rel) not in {(s0, r0) for s0, r0, _ in f.role_rels}]
    roles = {rel for s, rel, label in f.role_rels if not f.cycle and not f.anchors and label == target
             and rel not in {r0 for _, r0 in verbs} and any(
                 s < s2 and set(v.rels.get(other, [])) & set(v.rels.get(rel, [])) for s2, other in verbs)}
    hints = [rel for rel in f.rel_hints if rel not in roles]
    labels_needed: list[str] = [target]
    for m in f.anchors:
        labels_needed.append(m.label)
    for c in f.conds:
        if c.rel is None:
            labels_needed.append(c.label)
        if isinstance(c.value, AggregateOf) and c.value.group:
            labels_needed.append(c.value.group)  # "the average price in their category": the row's category
        if isinstance(c.value, ValueOf) and c.value.anchor is None:
            labels_needed.append(c.value.label)  # "released in the year they were born": the person joined
    if f.agg_label and f.agg_label not in v.rel_props:
        labels_needed.append(f.agg_label)
    elif f.agg_label in v.rels and not any(target in pair for pair in v.rels[f.agg_label]):
        # "the customer with the highest total revenue": the order lines are reached through their order
        labels_needed.append(v.rels[f.agg_label][0][0])
    for c in f.conds:
        if c.rel in v.rels and not any(target in pair for pair in v.rels[c.rel]):
            # "customers who placed orders that include products with a discount": the edge's end nearest the
            # target is reached, the edge itself joined from there
            ends = [lb for pair in v.rels[c.rel] for lb in pair]
            reach = [(len(p[0]), lb) for lb in dict.fromkeys(ends) if (p := v.paths(target, lb, max_hops=3))]
            if reach:
                labels_needed.append(min(reach)[1])
    if f.order_label:
        labels_needed.append(f.order_label)
    if f.age:
        labels_needed.append(f.age[0])
    labels_needed += f.shown
    # the other labels the question names with a relationship of theirs ("the institute where Einstein
    # worked"), joined right after the target: they say which way to go
    anchored = {m.label for m in f.anchors}
    touched = {lb for rel in hints for pair in v.rels.get(rel, []) for lb in pair}
    mentioned = [lb for lb in f.labels_mentioned if lb not in anchored and lb != target and lb in touched]
    # a label the question names in "X of Y" and nothing else joins ("the countries of the institutions of
    # the 2020 physics laureates"): on the way
    mentioned += [lb for lb in f.of_labels if lb not in anchored and lb != target and lb not in mentioned
                  and lb in v.nodes]
    labels_needed[1:1] = mentioned
    rel_conds = [c for c in f.conds if c.rel] + ([Cond(f.agg_label, f.agg_prop or "", "", None, f.agg_label)]
                                                 if f.agg_label in v.rel_props else [])
    if f.order_label in v.rel_props and f.order_label not in v.nodes:
        rel_conds.append(Cond(f.order_label, f.order or "", "", None, f.order_label))  # ordered by an edge's time
    if f.rel_prop:
        rel_conds.append(Cond(f.rel_prop[0], f.rel_prop[1], "", None, f.rel_prop[0]))
    # variables
    draft = Draft(f, v, target, params, inside, steps, roles, rel_conds)
    var, rel_var_for = draft.var, draft.rel_var_for
    var_of, taken = draft.var_of, draft.taken

    var(target)
    connected = {target}
    # self-relationship: "Who follows Keanu Reeves?" (target and anchor share a label)
    same = [m for m in f.anchors if m.label == target and f.target_prop is None]
    patterns: list[str] = []
    used_rels: set[str] = set()
    edges: list[str] = []  # the labels at both ends of every joined edge, for how many edges touch a label
    # a relationship read only for its property ("produced films with a rating below 60": the reviews'
    # rating) does not choose the path when a relationship the question names joins the same labels
    named_pairs = {frozenset(pair) for rel in hints for pair in v.rels.get(rel, [])}
    prefer = set(hints) | {c.rel for c in rel_conds if c.rel in hints or not (
        {frozenset(pair) for pair in v.rels.get(c.rel, [])} & named_pairs)}
    if same and any(r in v.rels and (target, target) in v.rels[r] for r in prefer):
        rel = next(r for r in prefer if r in v.rels and (target, target) in v.rels[r])
        a = same[0]
        av = "a"
        taken.add(av)
        # "Who does Paul Blythe follow?": the anchor is the subject, the edge runs from it
        # "the people followed by Keanu Reeves": the passive's agent is the subject too
        # "How many followers does X have?": the noun of the acting end makes the anchor the object
        # "the people that Keanu Reeves follows": the anchor right before the verb is its subject
        subject = (re.search(r"\b(?:does|did|do|[a-z]+ed\s+by)\s*$", f.question[:a.start].lower()) is not None
                   and rel not in f.agent_rels) or any(
            r == rel and 0 < pos - a.end <= 2 and not re.match(r"[a-z]+\s+by\b", f.question[pos:].lower())
            for pos, r in f.rel_at)
        # "Who follows someone who follows X?": the relationship named twice is a chain of two
        hops = max(1, min(3, sum(r == rel for _, r in f.rel_at)))
        chain = "".join(f"-[:{ident(rel)}]->(x{k}:{ident(target)})" for k in range(1, hops))
        if subject:
            patterns.append(f"({av}:{ident(target)}){chain}-[:{ident(rel)}]->({var_of[target]}:{ident(target)})")
        else:
            patterns.append(f"({var_of[target]}:{ident(target)}){chain}-[:{ident(rel)}]->({av}:{ident(target)})")
        params["a0"] = a.value
        where = [f"{av}.{ident(a.prop)} = $a0"]
        f.anchors = [m for m in f.anchors if m is not a]
    elif (not f.rel_prop and not rel_conds and one_entity(same, v, target)
          and (co := _co_pattern(f, v, same[0])) is not None):
        # "Who directed the films Tom Hanks acted in?": the anchor is another node of the target's label,
        # joined through a label between them (each end along the relationship named nearest it)
        (rel_t, dir_t), mid, (rel_a, dir_a) = co
        a = same[0]
        taken.update({"a", "m"})
        mv = var(mid)
        connected.add(mid)
        patterns.append(f"({var_of[target]}:{ident(target)}){arrow(rel_t, dir_t)}({mv}:{ident(mid)})"
                        f"{arrow(rel_a, _flip(dir_a))}(a:{ident(target)})")
        where = []
        for k, m in enumerate(same):  # "Richard Feynman" may link as a given and a family name
            params[f"a{k}"] = m.value
            where.append(f"a.{ident(m.prop)} = $a{k}")
        if rel_t == rel_a:  # "who won the same prize as X": the others
            where.append(f"{var_of[target]} <> a")
        f.anchors = [m for m in f.anchors if m not in same]
        used_rels.update({rel_t, rel_a})
    else:
        where = []
    # connect every needed label to the target along schema paths
    path_of: dict[str, tuple[str, list]] = {}  # label -> (label it was joined from, path)
    for label in dict.fromkeys(labels_needed):
        if label in connected:
            continue
        # from the joined label with the shortest path, the target on a tie unless another start takes more of
        # the relationships the question names ("the city of the institute where Einstein worked": from the
        # institute, not along his birth)
        starts = []
        named = set(mentioned)
        for k, c in enumerate(sorted(connected, key=lambda c: (c != target, c not in named, c))):
            found = v.paths(c, label, max_hops=3, prefer=prefer)
            if found:
                starts.append((len(found[0]), -max(sum(s[0] in prefer for s in p) for p in found), k, c, found))
        if not starts:
            f.notes.append(f"no path to {label}")
            continue
        *_, start, paths = min(starts, key=lambda x: x[:3])
        path = pick_path(paths, prefer, f.question, f.exemplar_rels, chooser, v.rel_counts)
        path_of[label] = (start, path)
        cur = start
        for rel, direction, other in path:
            patterns.append(f"({var(cur)}:{ident(cur)}){arrow(rel, direction, rel_var_for(rel))}"
                            f"({var(other)}:{ident(other)})")
            edges.extend([cur, other])
            used_rels.add(rel)
            connected.add(other)
            cur = other
    cycle_ends: set[str] = set()
    exists_only: set[str] = set()  # labels joined only because the question names a relationship to them
    # a relationship the question names but no path took: "How many women have won a Nobel Prize?" joins
    # the prize; "Who both acted in and directed the same film?" joins the film twice (the same node)
    for rel in dict.fromkeys(hints + [c.rel for c in rel_conds]):
        if rel in used_rels or rel not in v.rels:
            continue
        for src, dst in v.rels[rel]:
            if src == dst or (src not in connected and dst not in connected):
                continue
            connected_before = set(connected)
            ends = [var_of.get(src), var_of.get(dst)]
            if src in connected and dst in connected:
                if (not f.cycle or rel not in hints) and any(c.rel == rel for c in rel_conds):
                    # "people who produced films with a rating below 60", "the average rating of films
                    # written by ...": a property of the far end's edges (the film's reviews), by anyone, so
                    # the acting end (the reviewer) is another node
                    fresh = f"x{len(patterns)}"
                    taken.add(fresh)
                    ends[0] = fresh
                    patterns.append(f"({ends[0]}:{ident(src)}){arrow(rel, 'out', rel_var_for(rel))}"
                                    f"({ends[1]}:{ident(dst)})")
                    used_rels.add(rel)
                    break
                if not f.cycle:
                    continue  # both ends joined already, and no "same"/"also": not this question's edge
                cycle_ends.update({src, dst} - {target})
            if src not in connected:
                var(src)
            if dst not in connected:
                var(dst)
            patterns.append(f"({var_of[src]}:{ident(src)}){arrow(rel, 'out', rel_var_for(rel))}"
                            f"({var_of[dst]}:{ident(dst)})")
            edges.extend([src, dst])
            exists_only.add(dst if src in connected_before else src)
            connected.update({src, dst})
            used_rels.add(rel)
            break
    if not patterns:
        patterns.append(f"({var(target)}:{ident(target)})")
    draft.connected, draft.patterns, draft.edges, draft.prefer = connected, patterns, edges, prefer
    draft.where, draft.path_of, draft.cycle_ends = where, path_of, cycle_ends
    return draft


def pick_path(paths: list[list], prefer: set[str], question: str = "", exemplars: dict[str, float] | None = None,
               chooser: Chooser | None = None, counts: dict[str, int] | None = None) -> list:
    """Returns the path that uses most of the relationships the question names; on a tie, the one along
    relationships with at least twice the edges of any other ("Tom Hanks' films": of the ways people meet
    films, the commonest), else the one the exemplar relationships weigh most, else the chooser's pick, else
    the commonest."""
    counts = counts or {}
    scored = sorted(paths, key=lambda p: (-sum(step[0] in prefer for step in p),
                                          -min((counts.get(step[0], 0) for step in p), default=0)))
    top = [p for p in scored if sum(s[0] in prefer for s in p) == sum(s[0] in prefer for s in scored[0])]
    size = [min((counts.get(step[0], 0) for step in p), default=0) for p in top]
    if len(top) > 1 and size[0] >= 2 * max(size[1:]):
        return top[0]  # one relationship dominates: the commonest reading
    if len(top) > 1 and exemplars:
        # the question's own words tie: the relationships of verified plans for similar questions decide
        weight = [sum(exemplars.get(step[0], 0.0) for step in p) / len(p) for p in top]
        best = max(weight)
        if best > 0 and weight.count(best) == 1:
            return top[weight.index(best)]
    if len(scored) > 1 and chooser is not None:
        if len(top) > 1:
            options = [" then ".join(f"{rel.lower().replace('_', ' ')} {other}" for rel, _, other in p) for p in top]
            try:
                return top[chooser(f"Question: {question}\nWhich relation does the question use?", options)]
            except Exception:  # noqa: BLE001 - a failed choice keeps the ranked default
                pass
    return scored[0]


def _co_pattern(f: Frame, v: SchemaView, anchor) -> tuple | None:
    """Returns ((rel, direction) from the target, middle label, (rel, direction) from the anchor) joining
    an anchor of the target's own label through another label, or None. The anchor's relationship is the
    one named nearest the anchor; the target's is another one named, else the same."""
    label = anchor.label
    named = [(abs(pos - anchor.start), rel) for pos, rel in f.rel_at if rel in v.rels]
    steps = {}
    for _d, rel in named:
        for src, dst in v.rels[rel]:
            if src == dst:
                return None  # a self-relationship: the caller's case
            if src == label:
                steps.setdefault(rel, (dst, "out"))
            elif dst == label:
                steps.setdefault(rel, (src, "in"))
    if not steps:
        return None
    near = min((d, rel) for d, rel in named if rel in steps)[1]
    mid = steps[near][0]
    others = [rel for pos, rel in f.rel_at if rel in steps and rel != near and steps[rel][0] == mid]
    rel_t = others[0] if others else near
    return (rel_t, steps[rel_t][1]), mid, (near, steps[near][1])


def one_entity(anchors: list, v: SchemaView, label: str) -> bool:
    """Whether ``anchors`` name one node of ``label``: its display property or key, or several name
    properties written side by side ("Richard Feynman" as a given and a family name)."""
    if len(anchors) == 1:
        return anchors[0].prop in (v.display(label), v.spec.primary_keys.get(label, ""))
    names = v.spec.name_props.get(label, [])
    return bool(anchors) and all(m.prop in names for m in anchors) and all(
        0 <= b.start - a.end <= 1 for a, b in zip(anchors, anchors[1:]))


def _negated_step(v: SchemaView, target: str, name: str) -> tuple[str, str, str] | None:
    """Returns (rel, direction, far label) of the one-hop edge a negated relationship or label names from
    the target, or None when the target has no such edge."""
    for rel, direction, other in v.neighbours(target):
        if rel == name or other == name:
            return rel, direction, other
    return None


def _flip(direction: str) -> str:
    return "in" if direction == "out" else "out"
