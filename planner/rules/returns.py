"""The RETURN clause of a frame's Cypher: the shape of the answer, from a property to grouped aggregates."""

from __future__ import annotations

import re

from kgqa.kg.schema import ident
from kgqa.planner.arithmetic import number
from kgqa.planner.frame import RANGE_OPS, AggregateOf, Compiled, Frame, ValueOf
from kgqa.planner.lexicon import is_time_like
from kgqa.planner.rules.match import Draft
from kgqa.planner.rules.terms import and_
from kgqa.planner.schema_view import SchemaView


def return_clause(draft: Draft, match: str, where_sql: str) -> Compiled:
    """Returns the plan of the draft, ``match`` and ``where_sql`` completed by the RETURN clause of one shape,
    which ``Compiled.description`` names: a property of the anchor or of the top group, a grouped aggregate
    (bounded, ranked, its top group, against its average), an aggregate, ages, rows ordered by a property or
    their top group, a selection (with its evidence)."""
    f, v, target, params, patterns = draft.f, draft.v, draft.target, draft.params, draft.patterns
    var_of, rel_var, connected = draft.var_of, draft.rel_var, draft.connected
    edges, cycle_ends = draft.edges, draft.cycle_ends
    t = var_of[target]
    disp = f"{t}.{ident(v.display(target))}"
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
            inner = f"{f.agg}({number(v, f.agg_label or target, f.agg_prop, f'{agg_holder}.{ident(f.agg_prop)}')})"
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
        where_sql = and_(where_sql) + alive
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
            where_sql = and_(where_sql) + f"{ocol} IS NOT NULL"
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


def _key_column(v: SchemaView, label: str, variable: str) -> list[str]:
    """The key column shown beside the display one when they differ: two nodes that share a name stay two rows,
    and each row says which node it is. A text key shown for want of a name gets the properties it is made
    of beside it instead ("physics-1903": the category and the year); ``[]`` otherwise."""
    key = v.spec.primary_keys.get(label)
    if key and key == v.display(label):
        return [f"{variable}.{ident(p)}" for p in v.spec.key_parts.get(label, []) if p in v.nodes.get(label, {})]
    return [f"{variable}.{ident(key)}"] if key and key in v.nodes.get(label, {}) else []


def _age(f: Frame, var_of: dict[str, str], t: str) -> str:
    """Returns the age expression of ``f.age``: the event's year minus the target's (``t``) birth year."""
    return f"{var_of[f.age[0]]}.{ident(f.age[1])} - {t}.{ident(f.age[2])}"


def _order_column(f: Frame, v: SchemaView, var_of: dict[str, str], target: str) -> str:
    """Returns the expression that orders the rows: the ordering property of ``f.order_label`` (else the target),
    as a number where it holds numbers as text, under ``f.order_fn`` ("the longest tagline": its length)."""
    olabel = f.order_label or target
    ocol = number(v, olabel, f.order, f"{var_of[olabel]}.{ident(f.order)}")
    if olabel in v.numeric_keys and f.order == v.spec.primary_keys.get(olabel):
        ocol = f"CAST({ocol} AS INT64)"  # keys "1", "2", "10" in the order of their numbers
    return f"{f.order_fn}({ocol})" if f.order_fn else ocol


def _shown(v: SchemaView, owner: str, prop: str, holder: str) -> str:
    """Returns the column of ``holder``'s property: a measure as its arithmetic, else the property itself."""
    ref = f"{holder}.{ident(prop)}"
    return number(v, owner, prop, ref) if (owner, prop) in v.measures else ref


def _tied(match: str, where_sql: str, best: str, expr: str) -> str:
    """Returns the clauses that keep the rows of ``match`` whose ``expr`` is the ``best`` (max or min) of all:
    every row tied at the extreme, ``top`` in scope."""
    return f"{match}{where_sql} WITH {best}({expr}) AS top {_carry(match)}{and_(where_sql)}{expr} = top"


def _at_top(inner: str) -> str:
    """Returns the condition that a group's recomputed aggregate ``value`` is the ``top`` one: equal for a count;
    for sums and averages of decimals within a relative 1e-9, since the two passes may add in another order."""
    return "value = top" if inner.startswith("count(") else "abs(value - top) <= 1e-9 * (abs(top) + 1)"


def _carry(match: str) -> str:
    """Returns ``match`` repeated after ``WITH ... AS top``: each ``WITH`` of it (an average computed first,
    "priced below the average") keeps ``top`` in scope."""
    return re.sub(r"\bWITH (DISTINCT )?", lambda m: f"WITH {m.group(1) or ''}top, ", match)


def _alias(expr: str) -> str:
    """Returns the column alias of ``holder.prop``: the property's name as a word, written by :func:`ident`."""
    return ident(re.sub(r"\W", "_", expr.split(".")[-1].strip("`")))
