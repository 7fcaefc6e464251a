"""Generating Cypher from a :class:`~kgqa.planner.frame.Frame`: :func:`generate`.

Every label the frame needs (target, anchors, conditions, aggregated label) is joined to the target along
the shortest schema paths (:meth:`~kgqa.planner.schema_view.SchemaView.paths`), preferring relationships
the question names; anchors and conditions become parameters, never inlined text. Names come only from
the schema, quoted with :func:`kgqa.kg.schema.ident`.
"""

from __future__ import annotations

import re
from typing import Any

from kgqa.kg.cypher import literal
from kgqa.kg.schema import ident
from kgqa.planner.frame import RANGE_OPS, AggregateOf, Chooser, Compiled, Cond, Frame, ValueOf
from kgqa.planner.lexicon import YES_NO, is_time_like
from kgqa.planner.schema_view import MISSING_TEXT, SchemaView


def generate(f: Frame, view: SchemaView, chooser: Chooser | None = None) -> Compiled:
    """Returns the Cypher plan of the frame: every label the frame needs joined to the target along schema
    paths, anchors and conditions as parameters, and one shape, which ``Compiled.description`` names: a property
    of the anchor, a grouped aggregate, an aggregate, rows ordered by a property, ages, a selection; or, on their
    own forms, a comparison of two entities or of two counts, and the connections of one entity. Where schema
    paths tie, ``f.exemplar_rels`` and then ``chooser`` pick one. Drops from ``f.anchors`` an anchor it joins along a self-relationship ("Who follows Keanu Reeves?")."""
    v = view.with_measures(f.derived)
    target = f.target
    if f.connections is not None and len(f.anchors) == 1:
        return _connections(f, v)
    if f.compare and len(f.anchors) == 2:
        return _count_comparison(f, v, chooser) if f.agg == "count" else _comparison(f, v)
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
    var_of: dict[str, str] = {}
    rel_var: dict[str, str] = {}
    taken: set[str] = set()

    def rel_var_for(rel: str) -> str:
        """The variable of a relationship a condition, aggregate or asked property reads, else ""."""
        if not any(c.rel == rel for c in rel_conds):
            return ""
        rv = rel_var.setdefault(rel, "r" if "r" not in taken else f"r{len(rel_var) + 1}")
        taken.add(rv)
        return rv

    def var(label: str) -> str:
        if label not in var_of:
            base = label[0].lower() if label[0].isascii() and label[0].isalpha() else "n"  # a variable, never a name
            name, i = base, 1
            while name in taken:
                i += 1
                name = f"{base}{i}"
            taken.add(name)
            var_of[label] = name
        return var_of[label]

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
    elif (not f.rel_prop and not rel_conds and _one_entity(same, v, target)
          and (co := _co_pattern(f, v, same[0])) is not None):
        # "Who directed the films Tom Hanks acted in?": the anchor is another node of the target's label,
        # joined through a label between them (each end along the relationship named nearest it)
        (rel_t, dir_t), mid, (rel_a, dir_a) = co
        a = same[0]
        taken.update({"a", "m"})
        mv = var(mid)
        connected.add(mid)
        patterns.append(f"({var_of[target]}:{ident(target)}){_arrow(rel_t, dir_t)}({mv}:{ident(mid)})"
                        f"{_arrow(rel_a, _flip(dir_a))}(a:{ident(target)})")
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
        path = _pick_path(paths, prefer, f.question, f.exemplar_rels, chooser, v.rel_counts)
        path_of[label] = (start, path)
        cur = start
        for rel, direction, other in path:
            patterns.append(f"({var(cur)}:{ident(cur)}){_arrow(rel, direction, rel_var_for(rel))}"
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
                    patterns.append(f"({ends[0]}:{ident(src)}){_arrow(rel, 'out', rel_var_for(rel))}"
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
            patterns.append(f"({var_of[src]}:{ident(src)}){_arrow(rel, 'out', rel_var_for(rel))}"
                            f"({var_of[dst]}:{ident(dst)})")
            edges.extend([src, dst])
            exists_only.add(dst if src in connected_before else src)
            connected.update({src, dst})
            used_rels.add(rel)
            break
    if not patterns:
        patterns.append(f"({var(target)}:{ident(target)})")
    # "people who never reviewed a film", "laureates with no birth city": no such edge from the target
    covered: set[str] = set()
    for name, step in steps.items():
        if step is None:
            # "customers who never ordered products from Beverages": no one edge from the target says it
            f.notes.append(f"unexplained: no {name}")
        elif name not in covered:
            rel, direction, other = step
            covered.update({rel, other})  # "never reviewed a film": the film is that edge's end
            conds = []
            for j, c in enumerate(inside.get(name, [])):
                params[f"n{j}"] = c.value
                conds.append(f"n.{ident(c.prop)} {c.op} $n{j}")
            such = f"(n:{ident(other)}) WHERE {' AND '.join(conds)}" if conds else f"(:{ident(other)})"
            clause = f"NOT EXISTS {{ MATCH ({var_of[target]}){_arrow(rel, direction)}{such} }}"
            if clause not in where:  # "no institutional affiliation": the label and the relationship, one edge
                where.append(clause)
    for label, rel, far in f.exists:
        if label not in var_of:
            f.notes.append(f"unexplained: {rel} of {label}")
            continue
        out = (label, far) in v.rels.get(rel, [])
        where.append(f"EXISTS {{ MATCH ({var_of[label]}){_arrow(rel, 'out' if out else 'in')}(:{ident(far)}) }}")
    for rel in sorted(roles):
        src = next(a for a, b in v.rels[rel] if target in (a, b))
        where.append(f"EXISTS {{ MATCH ({var_of[target]}){_arrow(rel, 'out' if src == target else 'in')}() }}")
    # anchors and conditions; anchors naming values of one property: "Apollo 13 or Twister" is either,
    # "Tom Hanks and Meg Ryan" both (the path to the second anchor joined again), "more in Germany than in
    # France" a comparison the generator has no shape for
    for i, m in enumerate(f.anchors):
        if m.label not in var_of:
            continue
        names = (v.display(m.label), *v.spec.name_props.get(m.label, []))
        other = next((a for a in f.anchors[:i] if a.label == m.label and a.prop != m.prop
                      and a.prop in names and m.prop in names), None)
        if other is not None and not _one_entity([other, m], v, m.label):
            # "Marie Curie ... Einstein": two entities of one label cannot be one node
            f.notes.append(f"unexplained: {m.text} beside {other.text}")
        prev = next((a for a in f.anchors[:i] if a.label == m.label and a.prop == m.prop), None)
        if prev is not None and YES_NO.match(f.question.lower()):
            # "Was The Matrix released before Cast Away?": a yes/no comparison of two entities
            f.notes.append(f"unexplained: {m.text} compared with {prev.text}")
        if prev is not None:
            between = f.question[prev.end:m.start].lower()
            if m.label == target and f.rel_hints and not re.search(r"\bor\b", between):
                # "the actors in films directed by both Lilly and Lana Wachowski": two named people reached
                # through other nodes, not the people asked for
                f.notes.append(f"unexplained: {m.text} and {prev.text} as other {target} nodes")
            if re.search(r"\bor\b", between) or m.label == target or m.label not in path_of:
                continue  # joined into the first anchor's IN list below
            if re.search(r"\bthan\b", between):
                f.notes.append(f"unexplained: {m.text} compared with {prev.text}")
                continue
            found = v.paths(target, m.label, max_hops=3, prefer=prefer)  # again from the target: another row
            if found:
                start, path = target, _pick_path(found, prefer, f.question, f.exemplar_rels, None, v.rel_counts)
            else:
                start, path = path_of[m.label]
            cur_var = var_of[start]
            for rel, direction, other in path:
                nv = var(f"{other}#{i}")
                patterns.append(f"({cur_var}){_arrow(rel, direction)}({nv}:{ident(other)})")
                cur_var = nv
            params[f"v{i}"] = m.value
            where.append(f"{cur_var}.{ident(m.prop)} = $v{i}")
            continue
        same_prop = [a for a in f.anchors[i + 1:] if a.label == m.label and a.prop == m.prop and (
            re.search(r"\bor\b", f.question[m.end:a.start].lower()) or m.label == target or m.label not in path_of)
            and not re.search(r"\bthan\b", f.question[m.end:a.start].lower())]
        pname = f"v{i}"
        if same_prop:
            params[pname] = [m.value] + [a.value for a in same_prop]
            where.append(f"{var_of[m.label]}.{ident(m.prop)} IN ${pname}")
        else:
            params[pname] = m.value
            where.append(f"{var_of[m.label]}.{ident(m.prop)} = ${pname}")
    against: list[tuple[Cond, str]] = []  # conditions against an aggregate of the matched rows
    for j, c in enumerate(f.conds):
        holder = rel_var.get(c.rel) if c.rel else var_of.get(c.label)
        if holder is None:
            continue
        if isinstance(c.value, AggregateOf):
            against.append((c, holder))
            continue
        if isinstance(c.value, ValueOf):
            against_other = _value_of(c, holder, v, var_of, patterns, params, taken, f"s{j}")
            if against_other is None:
                f.notes.append(f"unexplained: {c.prop} against {c.value.label}.{c.value.prop}")
            where.extend(against_other or [])
            continue
        if c.op in ("IS NULL", "IS NOT NULL"):
            where.append(_missing(f"{holder}.{ident(c.prop)}", v.prop_type(c.label, c.prop), c.op == "IS NULL"))
            continue
        typ = v.prop_type(c.label, c.prop)
        value = c.value
        if typ == "STRING" and not isinstance(value, str) and not c.fn:
            value = str(value)
        if typ in ("INT64", "INT32") and isinstance(value, float) and value.is_integer():
            value = int(value)
        pname = f"c{j}"
        params[pname] = value
        if c.fold:
            where.append(f"lower({holder}.{ident(c.prop)}) {c.op} lower(${pname})")
        elif c.fn:  # "titles longer than 20 characters": size(m.title) > 20
            where.append(f"{c.fn}({holder}.{ident(c.prop)}) {c.op} ${pname}")
        else:
            ref = f"{holder}.{ident(c.prop)}"
            where.append(f"{_number(v, c.label, c.prop, ref) if not isinstance(value, str) else ref} {c.op} ${pname}")
    t = var_of[target]
    disp = f"{t}.{ident(v.display(target))}"
    match = "MATCH " + ", ".join(patterns)
    where_sql = (" WHERE " + " AND ".join(where)) if where else ""
    if against:
        # "priced above the average price": the average first, over every node (or edge) holding the property
        # or over the same rows, then each row against it
        c, holder = against[0]
        if c.value.scope == "all":
            every = f"()-[x:{ident(c.rel)}]->()" if c.rel else f"(x:{ident(c.label)})"
            match = f"MATCH {every} WITH {c.value.fn}({_number(v, c.label, c.prop, f'x.{ident(c.prop)}')}) AS average {match}"
        elif c.value.scope == "own":
            # "above the average price of products in the Seafood category": over the nodes those values reach
            every, conds = _restricted(v, c, params)
            if every is None:
                f.notes.append(f"unexplained: an average of {c.prop} restricted so")
                every = f"(x:{ident(c.label)})"
            # a node reached along several of those edges counts once
            match = (f"MATCH {every}{' WHERE ' + ' AND '.join(conds) if conds else ''} WITH DISTINCT x WITH "
                     f"{c.value.fn}({_number(v, c.label, c.prop, f'x.{ident(c.prop)}')}) AS average {match}")
        elif c.value.scope == "group":
            # "above the average price of products in their category": each category's average, joined to
            # the row's own category on its key
            every = _group_pattern(v, c, c.value.group)
            if every is None or c.value.group not in var_of:
                f.notes.append(f"unexplained: an average per {c.value.group}")
                every = f"(g:{ident(c.value.group)})"
            gkey = ident(v.key(c.value.group))
            match = (f"MATCH {every} WITH g.{gkey} AS gk, "
                     f"{c.value.fn}({_number(v, c.label, c.prop, f'x.{ident(c.prop)}')}) AS average {match}")
            where_sql = _and(where_sql) + f"{var_of.get(c.value.group, 'g')}.{gkey} = gk"
        else:
            match = (f"{match}{where_sql} WITH {c.value.fn}({_number(v, c.label, c.prop, f'{holder}.{ident(c.prop)}')}) "
                     f"AS average {match}")
        where_sql = _and(where_sql) + (
            f"{_number(v, c.label, c.prop, f'{holder}.{ident(c.prop)}')} {c.op} average")
    # a condition's values are shown beside each row: the evidence that it holds ("price above 50": which
    # prices). The target's own values fixed by the question ("discontinued", "in the UK") are shown too, in
    # the rows only (the sentence leaves them out: summarizer.fixed_columns); a node has one value, so they
    # never multiply the rows. Of another label, only a time, of a label with few nodes per target ("won the
    # physics prize in the 1920s": which year); other values, or those of a product's many orders, would
    # multiply the rows
    ret_props = [c for c in f.conds if c.label in var_of and c.rel is None and c.prop != v.display(c.label)
                 and (c.op in RANGE_OPS or c.op.startswith("%") or c.op == "IN" or isinstance(c.value, ValueOf)
                      or (c.op == "=" and c.label == target))
                 and (c.label == target or (is_time_like(c.prop) and v.few_per(target, c.label)))]

    if f.target_prop and f.order and f.limit == 1 and f.order in v.nodes.get(f.order_label or target, {}):
        # "In which year was the prize worth the most?": that year, with the figure
        ocol = _order_column(f, v, var_of, target)
        cypher = (f"{_tied(match, where_sql, 'max' if f.desc else 'min', ocol)} "
                  f"RETURN DISTINCT {_shown(v, target, f.target_prop, t)}, {ocol}")
        return Compiled(cypher, params, f, description="property of the top group")
    if f.target_prop:
        asked = [disp, _shown(v, target, f.target_prop, t), *(_shown(v, target, p, t) for p in f.shown_props)]
        cypher = f"{match}{where_sql} RETURN DISTINCT {', '.join(dict.fromkeys(asked))}"
        return Compiled(cypher, params, f, description="property of anchor")

    # the target's own columns: its name, its key, the properties asked to be shown
    own_cols = [disp, *_key_column(v, target, t), *(_shown(v, target, p, t) for p in f.shown_props)]
    if f.agg:
        agg_holder = rel_var.get(f.agg_label) if f.agg_label in v.rel_props else var_of.get(f.agg_label, t)
        dedupe = ""
        if f.agg == "count":
            inner = f"count(DISTINCT {agg_holder})" if f.agg_label != target or f.group_prop else f"count(DISTINCT {t})"
            if (f.agg_label not in (None, target) and edges.count(f.agg_label) > 1 and not f.group_prop
                    and not re.search(r"\b(?:distinct|different|unique|separate)\b", f.question.lower())):
                # "customers who bought the most Seafood products": the label counted lies inside the path,
                # each path through it is one event (an order line), counted as such
                inner = f"count({agg_holder})"
            if f.group_prop and f.agg_label in (None, target):
                inner = f"count(DISTINCT {t})"  # per value of a property: how many nodes, or how many of
                # another label ("how many laureates in each category"), each counted once
            if f.agg_prop:  # "how many different categories": distinct values
                inner = f"count(DISTINCT {agg_holder}.{ident(f.agg_prop)})"
        elif f.age and not f.agg_prop:
            # "the average age of directors when their films came out": the aggregate of the ages
            inner = f"{f.agg}({_age(f, var_of, t)})"
        else:
            inner = f"{f.agg}({_number(v, f.agg_label or target, f.agg_prop, f'{agg_holder}.{ident(f.agg_prop)}')})"
            if len(var_of) > 1 and f.agg_label not in v.rel_props:
                # "the average prize amount of the physics prizes awarded": a prize with three laureates
                # counts once
                dedupe = f" WITH DISTINCT {t}, {agg_holder}" if agg_holder != t else f" WITH DISTINCT {t}"
        where_agg = where_sql + dedupe
        grouped = f.order == "agg" or f.having is not None or bool(f.group_prop) or (
            f.agg_label not in (None, target) and f.per_target is not False)
        if f.group_prop:
            key = f"{t}.{ident(f.group_prop)}"
        else:
            key = disp
        # "Which supplier (supplierID) has ...": properties of the node asked to be shown group with it
        keys = [key] + ([f"{t}.{ident(p)}" for p in f.shown_props] if not f.group_prop else [])
        group = ", ".join(f"{k} AS {_alias(k)}" for k in keys)
        names = ", ".join(_alias(k) for k in keys)
        if grouped:
            cypher = f"{match}{where_agg} WITH {group}, {inner} AS value"
            if f.over_groups:
                # "the average number of products per order": the per-order figures, then their average
                return Compiled(f"{cypher} RETURN {f.over_groups}(value) AS value", params, f,
                                description="aggregate of a grouped aggregate")
            if f.having and isinstance(f.having[1], AggregateOf):
                # "more laureates born there than the average country": each group's count against their average
                again = f"{match}{where_agg} WITH average, {group}, {inner} AS value"
                cypher += f" WITH avg(value) AS average {again} WHERE value {f.having[0]} average"
                cypher += f" RETURN {names}, value ORDER BY value DESC, {_alias(key)}"
                return Compiled(cypher, params, f, description="grouped aggregate against its average")
            if f.having and f.having_per in var_of:
                # "customers who placed orders with a total value over 1000": each order's figure bounded,
                # then the targets with such an order
                params["h"] = f.having[1]
                cypher = (f"{match}{where_agg} WITH {t}, {var_of[f.having_per]}, {inner} AS value "
                          f"WHERE value {f.having[0]} $h RETURN DISTINCT {', '.join([disp, *_key_column(v, target, t)])}")
                return Compiled(cypher, params, f, description="targets with a node whose aggregate is bounded")
            if f.having_per and not f.having and f.order == "agg" and f.limit == 1:
                # "the customer who placed the order with the highest total value": the top orders' figure, then
                # their customers (each order's figure computed on its own, whoever placed it)
                per = var_of.get(f.having_per)
                if per is None or per == t or dedupe or " WITH " in match:
                    f.notes.append(f"unexplained: the {f.having_per} with the top figure")
                else:
                    best = "max" if f.desc else "min"
                    cypher = (f"{match}{where_sql} WITH {per}, {inner} AS value WITH {best}(value) AS top "
                              f"{_carry(match)}{where_sql} WITH top, {per}, {inner} AS value WHERE {_at_top(inner)} "
                              f"{match}{where_sql} RETURN DISTINCT {', '.join(own_cols)}, "
                              f"{per}.{ident(v.display(f.having_per))}, value")
                    return Compiled(cypher, params, f, description="targets of the top node on the way")
            if f.having:
                params["h"] = f.having[1]
                cypher += f" WHERE value {f.having[0]} $h"
            if f.limit == 1 and f.order == "agg" and not f.having:
                # "which supplier supplies the most products": every group tied at the top, with the figure
                best = "max" if f.desc else "min"
                again = (f"{_carry(match)}{where_sql}{dedupe.replace('DISTINCT', 'DISTINCT top,')} "
                         f"WITH top, {group}, {inner} AS value")
                cypher += f" WITH {best}(value) AS top {again} WHERE {_at_top(inner)} RETURN {names}, value"
                return Compiled(cypher, params, f, description="top group of a grouped aggregate")
            cypher += f" RETURN {names}, value"
            if f.order == "agg" or f.limit:
                # ties in a stable order: the same question gets the same rows at a tie that the limit cuts
                cypher += f" ORDER BY value {'DESC' if f.desc else 'ASC'}, {_alias(key)}"
            if f.limit:
                cypher += f" LIMIT {int(f.limit)}"
            return Compiled(cypher, params, f, description="grouped aggregate")
        cypher = f"{match}{where_agg} RETURN {inner} AS value"
        return Compiled(cypher, params, f, description="aggregate")

    shown = [f"{var_of[lb]}.{ident(v.display(lb))}" for lb in f.shown if lb in var_of]
    cols = [*shown, *own_cols]
    cols += [f"{var_of[c.label]}.{ident(c.prop)}" for c in ret_props]
    # "shipped later than their required date": the property it is compared with, beside it
    cols += [f"{t}.{ident(c.value.prop)}" for c in ret_props if isinstance(c.value, ValueOf)
             and c.value.anchor is None and c.value.label == target == c.label]
    if f.rel_prop and f.rel_prop[0] in rel_var:  # "what rating did X give Y": the relationship's property
        cols.append(_shown(v, *f.rel_prop, rel_var[f.rel_prop[0]]))
    # a range on a relationship's property: its values ("reviews rated above 80")
    edge_cols = [_shown(v, c.rel, c.prop, rel_var[c.rel]) for c in f.conds if c.rel in rel_var and c.op in RANGE_OPS]
    cols += edge_cols
    # "Who both acted in and directed the same film?": the film is part of the answer
    cols += [f"{var_of[lb]}.{ident(v.display(lb))}" for lb in sorted(cycle_ends)]
    if (len(f.anchors) == 1 and f.anchors[0].label == target and not f.conds and len(connected) == 1
            and not f.limit and f.anchors[0].prop in (v.display(target), v.spec.primary_keys.get(target))):
        # "Tell me about Cloud Atlas": the entity itself, every property
        cols += [f"{t}.{ident(p)}" for p in v.nodes[target] if p != v.display(target)]
    if f.age and f.age[0] in var_of:
        # "lived to be 100 or older", "how old were they": the age, a year minus the birth year
        age = _age(f, var_of, t)
        cols.append(age)
        alive = f"{var_of[f.age[0]]}.{ident(f.age[1])} IS NOT NULL AND {t}.{ident(f.age[2])} IS NOT NULL"
        where_sql = _and(where_sql) + alive
        if f.age_cond:
            params["age"] = f.age_cond[1]
            where_sql += f" AND {age} {f.age_cond[0]} $age"
        if f.order == "age":
            cypher = (f"{_tied(match, where_sql, 'max' if f.desc else 'min', age)} "
                      f"RETURN {', '.join(dict.fromkeys(cols))}")
            return Compiled(cypher, params, f, description="top group by age")
        cypher = f"{match}{where_sql} RETURN DISTINCT {', '.join(dict.fromkeys(cols))}"
        return Compiled(cypher, params, f, description="age")
    olabel = f.order_label or target
    holders = {**rel_var, **var_of}  # "the first books X borrowed": a relationship's time orders them
    if f.order and (f.order in v.nodes.get(olabel, {}) or f.order in v.rel_props.get(olabel, {})) and olabel in holders:
        ocol = _order_column(f, v, holders, target)
        if olabel != target and olabel in var_of:  # "who directed the oldest film": the film too
            cols.append(f"{var_of[olabel]}.{ident(v.display(olabel))}")
        if ocol not in cols:
            cols.append(ocol)
        if f.limit == 1:
            # "the oldest person": every node tied at the extreme, with the value
            cypher = (f"{_tied(match, where_sql, 'max' if f.desc else 'min', ocol)} "
                      f"RETURN {'DISTINCT ' if len(var_of) > 1 else ''}{', '.join(dict.fromkeys(cols))}")
            return Compiled(cypher, params, f, description="top group by property")

        if f.limit:  # "the top 3 films with the most votes": a node without the value does not rank
            where_sql = _and(where_sql) + f"{ocol} IS NOT NULL"
        cypher = (f"{match}{where_sql} RETURN {'DISTINCT ' if len(var_of) > 1 else ''}{', '.join(dict.fromkeys(cols))} "
                  f"ORDER BY {ocol} {'DESC' if f.desc else 'ASC'}{', ' + disp if disp != ocol else ''}")
        if f.limit:
            cypher += f" LIMIT {int(f.limit)}"
        return Compiled(cypher, params, f, description="ordered by property")
    distinct = "DISTINCT " if len(patterns) > 0 and len(connected) > 1 else ""
    if (edge_cols and not f.limit and not f.rel_prop and not any(m.label != target for m in f.anchors)
            and all(c.split(".")[0] == t for c in cols if c not in edge_cols)):
        # "films with a rating lower than 90": one row per film, its matching ratings listed, not a row
        # per review
        cols = [f"collect(DISTINCT {c})" if c in edge_cols else c for c in cols]
        distinct = ""
    # "suppliers that provide products priced under 10": which products, at what prices, beside each supplier
    # (the evidence that the condition holds), one row per supplier, its matching products listed in
    # parallel lists (a list of one is read as its item: summarizer.evidence_items)
    near = [c for c in f.conds if c.label in var_of and c.label != target and c.rel is None
            and c.prop != v.display(c.label) and (c.op in RANGE_OPS or c.op.startswith("%"))]
    n = var_of[near[0].label] if near else ""
    own = [c for c in cols if not c.startswith(f"{n}.")]  # a time of the other label, shown above, is evidence too
    if (near and not edge_cols and not f.limit and not f.rel_prop and len({c.label for c in near}) == 1
            and all(c.split(".")[0] == t for c in own)):
        cols = own
        each = [f"{n}.{ident(v.display(near[0].label))}", *(_shown(v, c.label, c.prop, n) for c in near)]
        cypher = (f"{match}{where_sql} WITH DISTINCT {t}, {n} RETURN {', '.join(dict.fromkeys(cols))}, "
                  f"{', '.join(f'collect({e})' for e in dict.fromkeys(each))}")
        return Compiled(cypher, params, f, description="selection with evidence")
    cypher = f"{match}{where_sql} RETURN {distinct}{', '.join(dict.fromkeys(cols))}"
    if f.limit:  # one more than asked when nothing ranks them: the pipeline can tell whether all fit
        cypher += f" LIMIT {int(f.limit) + int(f.unranked)}"
    return Compiled(cypher, params, f, description="selection")


def _pick_path(paths: list[list], prefer: set[str], question: str = "", exemplars: dict[str, float] | None = None,
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


def _comparison(f: Frame, v: SchemaView) -> Compiled:
    """Returns the yes/no plan comparing one property of the frame's two anchors ("Was The Matrix released
    before Cast Away?"): the verdict, then each entity's name and value as evidence."""
    (a, b), (prop, op) = f.anchors, f.compare
    label, disp, p = ident(f.target), ident(v.display(f.target)), ident(prop)
    # "-<": how much earlier the first value is (older by), "->": how much later
    verdict = {"-<": f"b.{p} - a.{p} AS difference", "->": f"a.{p} - b.{p} AS difference"}.get(
        op, f"a.{p} {op} b.{p} AS answer")
    cypher = (f"MATCH (a:{label}), (b:{label}) WHERE a.{ident(a.prop)} = $v0 AND b.{ident(b.prop)} = $v1 "
              f"RETURN {verdict}, a.{disp}, a.{p}, b.{disp}, b.{p}")
    return Compiled(cypher, {"v0": a.value, "v1": b.value}, f, description="comparison of two entities")


def _missing(expr: str, typ: str | None, missing: bool) -> str:
    """Returns the condition that ``expr`` holds no value (``missing``) or one; for text, an empty string
    or the word NULL counts as no value."""
    if typ != "STRING":
        return f"{expr} IS NULL" if missing else f"{expr} IS NOT NULL"
    words = ", ".join(f"'{w}'" for w in MISSING_TEXT)
    return f"({expr} IS NULL OR {expr} IN [{words}])" if missing else f"NOT ({expr} IS NULL OR {expr} IN [{words}])"


def _connections(f: Frame, v: SchemaView) -> Compiled:
    """Returns the plan listing every relationship of the anchor ("In what ways is Tom Hanks connected to
    films?"): its type and the node at the other end, by that node's display property (and its label when any
    label may be at the other end)."""
    a = f.anchors[0]
    far = f"(b:{ident(f.connections)})" if f.connections else "(b)"
    labels = [f.connections] if f.connections else sorted(v.nodes)
    name = ("CASE label(b) " + " ".join(f"WHEN {literal(lb)} THEN b.{ident(v.display(lb))}" for lb in labels) + " END"
            if len(labels) > 1 else f"b.{ident(v.display(labels[0]))}")
    cols = ["label(r) AS relationship", f"{name} AS node"] + ([] if f.connections else ["label(b) AS label"])
    cypher = (f"MATCH (a:{ident(a.label)})-[r]-{far} WHERE a.{ident(a.prop)} = $v0 "
              f"RETURN DISTINCT {', '.join(cols)}")
    return Compiled(cypher, {"v0": a.value}, f, description="connections of one entity")


def _count_comparison(f: Frame, v: SchemaView, chooser: Chooser | None) -> Compiled:
    """Returns the plan comparing the counts of ``f.agg_label`` for the two anchors' values ("Were more
    laureates born in the USA than in the United Kingdom?"): the verdict (or the difference), then each count."""
    (a, b), (_, op) = f.anchors, f.compare
    prefer = set(f.rel_hints)
    found = v.paths(a.label, f.agg_label, max_hops=3, prefer=prefer)
    path = _pick_path(found, prefer, f.question, f.exemplar_rels, chooser, v.rel_counts) if found else []
    pattern, cur, i = f"(x:{ident(a.label)})", "x", 0
    for rel, direction, other in path:
        i += 1
        pattern += f"{_arrow(rel, direction)}(n{i}:{ident(other)})"
        cur = f"n{i}"
    value = f"x.{ident(a.prop)}"
    answer = "first - second AS difference" if op == "-" else f"first {op} second AS answer"
    cypher = (f"MATCH {pattern} WHERE {value} IN [$v0, $v1] WITH {value} AS k, count(DISTINCT {cur}) AS value "
              f"WITH sum(CASE WHEN k = $v0 THEN value ELSE 0 END) AS first, "
              f"sum(CASE WHEN k = $v1 THEN value ELSE 0 END) AS second RETURN {answer}, first, second")
    return Compiled(cypher, {"v0": a.value, "v1": b.value}, f, description="comparison of two counts")


def _key_column(v: SchemaView, label: str, variable: str) -> list[str]:
    """The key column shown beside the display one when they differ: two nodes that share a name stay two rows,
    and each row says which node it is. A text key shown for want of a name gets the properties it is made
    of beside it instead ("physics-1903": the category and the year); ``[]`` otherwise."""
    key = v.spec.primary_keys.get(label)
    if key and key == v.display(label):
        return [f"{variable}.{ident(p)}" for p in v.spec.key_parts.get(label, []) if p in v.nodes.get(label, {})]
    return [f"{variable}.{ident(key)}"] if key and key in v.nodes.get(label, {}) else []


def _one_entity(anchors: list, v: SchemaView, label: str) -> bool:
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


def _and(where_sql: str) -> str:
    """Returns ``where_sql`` ready for one more condition (" WHERE " when it has none yet)."""
    return where_sql + " AND " if where_sql else " WHERE "


def _value_of(c: Cond, holder: str, v: SchemaView, var_of: dict[str, str], patterns: list[str],
              params: dict[str, Any], taken: set[str], name: str) -> list[str] | None:
    """Returns the WHERE conditions comparing ``holder``'s property with another node's (``c.value``, a
    :class:`ValueOf`): the row's node of that label, or a named entity matched on its own (added to ``patterns``
    as ``name``, its value as parameter ``name``, and left out of the rows when it has the row's label). Text
    compares only where both hold a value; text of numbers compares as numbers. None when the other node is
    not in the row."""
    other: ValueOf = c.value
    if other.anchor is not None:
        taken.add(name)
        patterns.append(f"({name}:{ident(other.label)})")
        params[name] = other.anchor.value
        ov, conds = name, [f"{name}.{ident(other.anchor.prop)} = ${name}"]
        if other.label == c.label:
            conds.append(f"{holder} <> {name}")
    elif other.label in var_of:
        ov, conds = var_of[other.label], []
    else:
        return None
    sides = ((c.label, c.prop, holder), (other.label, other.prop, ov))
    conds += [_missing(f"{var}.{ident(p)}", "STRING", False) for lb, p, var in sides
              if v.prop_type(lb, p) == "STRING" and not v.is_numeric_text(lb, p)]
    left, right = (_number(v, lb, p, f"{var}.{ident(p)}") for lb, p, var in sides)
    return conds + [f"{left} {c.op} {right}"]


def _age(f: Frame, var_of: dict[str, str], t: str) -> str:
    """Returns the age expression of ``f.age``: the event's year minus the target's (``t``) birth year."""
    return f"{var_of[f.age[0]]}.{ident(f.age[1])} - {t}.{ident(f.age[2])}"


def _order_column(f: Frame, v: SchemaView, var_of: dict[str, str], target: str) -> str:
    """Returns the expression that orders the rows: the ordering property of ``f.order_label`` (else the target),
    as a number where it holds numbers as text, under ``f.order_fn`` ("the longest tagline": its length)."""
    olabel = f.order_label or target
    ocol = _number(v, olabel, f.order, f"{var_of[olabel]}.{ident(f.order)}")
    if olabel in v.numeric_keys and f.order == v.spec.primary_keys.get(olabel):
        ocol = f"CAST({ocol} AS INT64)"  # keys "1", "2", "10" in the order of their numbers
    return f"{f.order_fn}({ocol})" if f.order_fn else ocol


def _number(v: SchemaView, owner: str, prop: str, ref: str) -> str:
    """Returns ``ref`` as a number when the property holds numbers written as text ("32.38"), a measure the
    annotations define as its arithmetic over the holder's properties ("revenue": quantity * unitPrice * (1 -
    discount)), else ``ref``."""
    expr = v.measures.get((owner, prop))
    if expr is not None:
        holder = ref.rsplit(".", 1)[0]
        # names of properties, not of functions ("size(roles)") or inside quotes
        return "(" + re.sub(r"'[^']*'|\b[A-Za-z_]\w*\b(?!\s*\()", lambda m: m.group() if m.group().startswith("'") else
                            _term(v, owner, m.group(), f"{holder}.{ident(m.group())}"), expr) + ")"
    return f"CAST({ref} AS DOUBLE)" if v.is_numeric_text(owner, prop) else ref


def _shown(v: SchemaView, owner: str, prop: str, holder: str) -> str:
    """Returns the column of ``holder``'s property: a measure as its arithmetic, else the property itself."""
    ref = f"{holder}.{ident(prop)}"
    return _number(v, owner, prop, ref) if (owner, prop) in v.measures else ref


def _term(v: SchemaView, owner: str, prop: str, ref: str) -> str:
    """Returns a property inside a measure's arithmetic as a number: a date as its day number (days since
    1970-01-01; date text cut to its date, missing text as null), else as :func:`_number` does."""
    if not v.is_date(owner, prop):
        return _number(v, owner, prop, ref)
    if v.prop_type(owner, prop) == "STRING":
        for word in MISSING_TEXT:
            ref = f"nullif({ref}, {literal(word)})"
        ref = f"CAST(substring({ref}, 1, 10) AS TIMESTAMP)"
    elif not (v.prop_type(owner, prop) or "").startswith("TIMESTAMP"):
        ref = f"CAST({ref} AS TIMESTAMP)"
    return f"to_epoch_ms({ref}) / 86400000"


def _restricted(v: SchemaView, c: Cond, params: dict[str, Any]) -> tuple[str | None, list[str]]:
    """Returns the pattern from ``x``, a node of ``c.label``, to the nodes ``c.value.where`` restricts (each
    along its shortest schema path) and their conditions, the values as parameters ``w0``, ``w1``, ...;
    ``(None, [])`` when one of them is not reached within two hops."""
    parts, conds = [f"(x:{ident(c.label)})"], []
    for k, (label, prop, value) in enumerate(c.value.where):
        params[f"w{k}"] = value
        if label == c.label:
            conds.append(f"x.{ident(prop)} = $w{k}")
            continue
        found = v.paths(c.label, label, max_hops=2)
        if not found:
            return None, []
        cur = "x"
        for i, (rel, direction, other) in enumerate(found[0]):
            nxt = f"y{k}_{i}"
            parts.append(f"({cur}){_arrow(rel, direction)}({nxt}:{ident(other)})")
            cur = nxt
        conds.append(f"{cur}.{ident(prop)} = $w{k}")
    return ", ".join(parts), conds


def _group_pattern(v: SchemaView, c: Cond, group: str) -> str | None:
    """Returns the pattern from the holder ``x`` of ``c``'s property to a node ``g`` of ``group`` (the
    relationship itself when the property is an edge's, with ``group`` at one end), or None when none joins."""
    if c.rel:
        for src, dst in v.rels.get(c.rel, []):
            if group in (src, dst):
                return (f"(g:{ident(group)})-[x:{ident(c.rel)}]->()" if src == group
                        else f"()-[x:{ident(c.rel)}]->(g:{ident(group)})")
        return None
    paths = v.paths(c.label, group, max_hops=2)
    if not paths:
        return None
    pattern = f"(x:{ident(c.label)})"
    for i, (rel, direction, other) in enumerate(paths[0], start=1):
        pattern += f"{_arrow(ident(rel), direction)}({'g' if i == len(paths[0]) else f'n{i}'}:{ident(other)})"
    return pattern


def _tied(match: str, where_sql: str, best: str, expr: str) -> str:
    """Returns the clauses that keep the rows of ``match`` whose ``expr`` is the ``best`` (max or min) of all:
    every row tied at the extreme, ``top`` in scope."""
    return f"{match}{where_sql} WITH {best}({expr}) AS top {_carry(match)}{_and(where_sql)}{expr} = top"


def _at_top(inner: str) -> str:
    """Returns the condition that a group's recomputed aggregate ``value`` is the ``top`` one: equal for a count;
    for sums and averages of decimals within a relative 1e-9, since the two passes may add in another order."""
    return "value = top" if inner.startswith("count(") else "abs(value - top) <= 1e-9 * (abs(top) + 1)"


def _carry(match: str) -> str:
    """Returns ``match`` repeated after ``WITH ... AS top``: each ``WITH`` of it (an average computed first,
    "priced below the average") keeps ``top`` in scope."""
    return re.sub(r"\bWITH (DISTINCT )?", lambda m: f"WITH {m.group(1) or ''}top, ", match)


def _arrow(rel: str, direction: str, variable: str = "") -> str:
    """Returns the Cypher of one relationship step, ``out`` or ``in``, with its variable if any."""
    return f"-[{variable}:{ident(rel)}]->" if direction == "out" else f"<-[{variable}:{ident(rel)}]-"


def _flip(direction: str) -> str:
    return "in" if direction == "out" else "out"


def _alias(expr: str) -> str:
    """Returns the column alias of ``holder.prop``: the property's name as a word, written by :func:`ident`."""
    return ident(re.sub(r"\W", "_", expr.split(".")[-1].strip("`")))
