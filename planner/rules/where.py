"""The WHERE clause of a frame's Cypher: negations, existences, anchors and conditions as parameters."""

from __future__ import annotations

import re
from typing import Any

from kgqa.kg.schema import ident
from kgqa.planner.arithmetic import number
from kgqa.planner.frame import AggregateOf, Cond, ValueOf
from kgqa.planner.lexicon import YES_NO
from kgqa.planner.rules.match import Draft, one_entity, pick_path
from kgqa.planner.rules.terms import and_, arrow
from kgqa.planner.schema_view import MISSING_TEXT, SchemaView


def where_clause(draft: Draft) -> tuple[str, str]:
    """Returns (the MATCH text, the WHERE text) of the draft: no edge of a negated relationship, edges that
    must exist, anchors (a list of values for alternatives, the path joined again for a conjunction) and
    conditions, their values added to ``draft.params``; a comparison with an average computes the average
    first, in the MATCH text. Notes on ``draft.f`` what it cannot say."""
    f, v, target, params, var = draft.f, draft.v, draft.target, draft.params, draft.var
    patterns, where, var_of, rel_var, taken = draft.patterns, draft.where, draft.var_of, draft.rel_var, draft.taken
    prefer, path_of, inside, steps, roles = draft.prefer, draft.path_of, draft.inside, draft.steps, draft.roles
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
            clause = f"NOT EXISTS {{ MATCH ({var_of[target]}){arrow(rel, direction)}{such} }}"
            if clause not in where:  # "no institutional affiliation": the label and the relationship, one edge
                where.append(clause)
    for label, rel, far in f.exists:
        if label not in var_of:
            f.notes.append(f"unexplained: {rel} of {label}")
            continue
        out = (label, far) in v.rels.get(rel, [])
        where.append(f"EXISTS {{ MATCH ({var_of[label]}){arrow(rel, 'out' if out else 'in')}(:{ident(far)}) }}")
    for rel in sorted(roles):
        src = next(a for a, b in v.rels[rel] if target in (a, b))
        where.append(f"EXISTS {{ MATCH ({var_of[target]}){arrow(rel, 'out' if src == target else 'in')}() }}")
    # anchors and conditions; anchors naming values of one property: "Apollo 13 or Twister" is either,
    # "Tom Hanks and Meg Ryan" both (the path to the second anchor joined again), "more in Germany than in
    # France" a comparison the generator has no shape for
    for i, m in enumerate(f.anchors):
        if m.label not in var_of:
            continue
        names = (v.display(m.label), *v.spec.name_props.get(m.label, []))
        other = next((a for a in f.anchors[:i] if a.label == m.label and a.prop != m.prop
                      and a.prop in names and m.prop in names), None)
        if other is not None and not one_entity([other, m], v, m.label):
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
                start, path = target, pick_path(found, prefer, f.question, f.exemplar_rels, None, v.rel_counts)
            else:
                start, path = path_of[m.label]
            cur_var = var_of[start]
            for rel, direction, other in path:
                nv = var(f"{other}#{i}")
                patterns.append(f"({cur_var}){arrow(rel, direction)}({nv}:{ident(other)})")
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
            where.append(f"{number(v, c.label, c.prop, ref) if not isinstance(value, str) else ref} {c.op} ${pname}")
    match = "MATCH " + ", ".join(patterns)
    where_sql = (" WHERE " + " AND ".join(where)) if where else ""
    if against:
        # "priced above the average price": the average first, over every node (or edge) holding the property
        # or over the same rows, then each row against it
        c, holder = against[0]
        if c.value.scope == "all":
            every = f"()-[x:{ident(c.rel)}]->()" if c.rel else f"(x:{ident(c.label)})"
            match = f"MATCH {every} WITH {c.value.fn}({number(v, c.label, c.prop, f'x.{ident(c.prop)}')}) AS average {match}"
        elif c.value.scope == "own":
            # "above the average price of products in the Seafood category": over the nodes those values reach
            every, conds = _restricted(v, c, params)
            if every is None:
                f.notes.append(f"unexplained: an average of {c.prop} restricted so")
                every = f"(x:{ident(c.label)})"
            # a node reached along several of those edges counts once
            match = (f"MATCH {every}{' WHERE ' + ' AND '.join(conds) if conds else ''} WITH DISTINCT x WITH "
                     f"{c.value.fn}({number(v, c.label, c.prop, f'x.{ident(c.prop)}')}) AS average {match}")
        elif c.value.scope == "group":
            # "above the average price of products in their category": each category's average, joined to
            # the row's own category on its key
            every = _group_pattern(v, c, c.value.group)
            if every is None or c.value.group not in var_of:
                f.notes.append(f"unexplained: an average per {c.value.group}")
                every = f"(g:{ident(c.value.group)})"
            gkey = ident(v.key(c.value.group))
            match = (f"MATCH {every} WITH g.{gkey} AS gk, "
                     f"{c.value.fn}({number(v, c.label, c.prop, f'x.{ident(c.prop)}')}) AS average {match}")
            where_sql = and_(where_sql) + f"{var_of.get(c.value.group, 'g')}.{gkey} = gk"
        else:
            match = (f"{match}{where_sql} WITH {c.value.fn}({number(v, c.label, c.prop, f'{holder}.{ident(c.prop)}')}) "
                     f"AS average {match}")
        where_sql = and_(where_sql) + (
            f"{number(v, c.label, c.prop, f'{holder}.{ident(c.prop)}')} {c.op} average")
    return match, where_sql


def _missing(expr: str, typ: str | None, missing: bool) -> str:
    """Returns the condition that ``expr`` holds no value (``missing``) or one; for text, an empty string
    or the word NULL counts as no value."""
    if typ != "STRING":
        return f"{expr} IS NULL" if missing else f"{expr} IS NOT NULL"
    words = ", ".join(f"'{w}'" for w in MISSING_TEXT)
    return f"({expr} IS NULL OR {expr} IN [{words}])" if missing else f"NOT ({expr} IS NULL OR {expr} IN [{words}])"


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
    left, right = (number(v, lb, p, f"{var}.{ident(p)}") for lb, p, var in sides)
    return conds + [f"{left} {c.op} {right}"]


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
            parts.append(f"({cur}){arrow(rel, direction)}({nxt}:{ident(other)})")
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
        pattern += f"{arrow(ident(rel), direction)}({'g' if i == len(paths[0]) else f'n{i}'}:{ident(other)})"
    return pattern
