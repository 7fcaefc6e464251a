"""Generating Cypher from a :class:`~kgqa.planner.frame.Frame`: :func:`generate`.

Every label the frame needs (target, anchors, conditions, aggregated label) is joined to the target along
the shortest schema paths (:meth:`~kgqa.planner.schema_view.SchemaView.paths`), preferring relationships
the question names; anchors and conditions become parameters, never inlined text. Names come only from
the schema, quoted with :func:`kgqa.kg.schema.ident`.

:func:`generate` writes the clauses in order, each in a module of its own: MATCH
(:mod:`~kgqa.planner.rules.match`, which leaves a :class:`~kgqa.planner.rules.match.Draft`),
WHERE (:mod:`~kgqa.planner.rules.where`) and RETURN (:mod:`~kgqa.planner.rules.returns`); the
expressions they share are in :mod:`~kgqa.planner.rules.terms`. The forms of their own (two entities or
two counts compared, an entity's connections) are here.
"""

from __future__ import annotations

from kgqa.kg.cypher import literal
from kgqa.kg.schema import ident
from kgqa.planner.frame import Chooser, Compiled, Frame
from kgqa.planner.rules.match import match_clause, pick_path
from kgqa.planner.rules.returns import return_clause
from kgqa.planner.rules.terms import arrow
from kgqa.planner.rules.where import where_clause
from kgqa.planner.schema_view import SchemaView


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
    draft = match_clause(f, v, target, chooser)
    match, where_sql = where_clause(draft)
    return return_clause(draft, match, where_sql)


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
    path = pick_path(found, prefer, f.question, f.exemplar_rels, chooser, v.rel_counts) if found else []
    pattern, cur, i = f"(x:{ident(a.label)})", "x", 0
    for rel, direction, other in path:
        i += 1
        pattern += f"{arrow(rel, direction)}(n{i}:{ident(other)})"
        cur = f"n{i}"
    value = f"x.{ident(a.prop)}"
    answer = "first - second AS difference" if op == "-" else f"first {op} second AS answer"
    cypher = (f"MATCH {pattern} WHERE {value} IN [$v0, $v1] WITH {value} AS k, count(DISTINCT {cur}) AS value "
              f"WITH sum(CASE WHEN k = $v0 THEN value ELSE 0 END) AS first, "
              f"sum(CASE WHEN k = $v1 THEN value ELSE 0 END) AS second RETURN {answer}, first, second")
    return Compiled(cypher, {"v0": a.value, "v1": b.value}, f, description="comparison of two counts")
