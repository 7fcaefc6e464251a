"""The columns a grammar reading shows: the column a run of words names (:func:`column_of`), the columns that
show a node (:func:`node_columns`), a column's schema type (:func:`type_of`) and the label or relationship type
its variable stands for (:func:`owner_of`)."""

from __future__ import annotations

from kgqa.kg.derive import is_name_like
from kgqa.planner.joins import holder_of, join_label
from kgqa.planner.query import Column
from kgqa.planner.reading import Item, Reading, pick, pick_prop

ROWID = "_rowid"  # the generated key of a table that had none: no name to show


def column_of(r: Reading, it: Item, label: str) -> Column | None:
    """The column an item shows: a property (of the asked label, else of a label or edge joined), or a label's
    naming property."""
    term = it.term or pick(it, "prop", label) or pick_prop(it, r)
    if term is not None and term.kind == "prop":
        holder = holder_of(r, term)
        if holder is None:
            return None
        it.term = term
        r.use((it.start, it.end))
        return Column(holder, term.prop)
    lab = pick(it, "label", None)
    if lab is not None:
        var = r.vars.get(lab.owner) or join_label(r, lab.owner)
        if var is None:
            return None
        it.term = lab
        r.use((it.start, it.end))
        return Column(var, r.view.display(lab.owner))
    return None


def node_columns(r: Reading, var: str) -> list[Column]:
    """A node shown: its naming property, and its key when that is another property; where no name is unique
    enough to name the nodes (the key shows them: ``id``), also its first name-like property (``name``)."""
    label = r.query.nodes[var]
    shown, key = r.view.display(label), r.view.key(label)
    props = [shown] + ([key] if key and key != shown else [])
    if shown == key:
        props += [p for p in r.view.spec.name_props.get(label, []) if p not in props and is_name_like(p)][:1]
    return [Column(var, p) for p in props]


def type_of(r: Reading, col: Column) -> str | None:
    """The schema type of a column's property (of a node or an edge)."""
    if col.prop is None or col.holder is None:
        return None
    if col.holder in r.query.nodes:
        return r.view.prop_type(r.query.nodes[col.holder], col.prop)
    return r.view.rel_props.get(rel_of(r, col.holder), {}).get(col.prop)


def rel_of(r: Reading, var: str | None) -> str:
    return next((e.rel for e in r.query.edges if e.var == var), "")


def owner_of(r: Reading, var: str | None) -> str:
    """The label of a node variable, or the type of an edge variable."""
    return r.query.nodes.get(var) or rel_of(r, var)
