"""The columns a grammar reading shows: the column a run of words names (:func:`column_of`), the columns that
show a node (:func:`node_columns`), a column's schema type (:func:`type_of`) and the label or relationship type
its variable stands for (:func:`owner_of`)."""

from __future__ import annotations

from kgqa.kg.derive import is_name_like
from kgqa.planner.query import Column
from kgqa.planner.reader.joins import holder_of, join_label
from kgqa.planner.reader.reading import Item, Reading, pick, pick_prop
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.reader.word_forms import names_own_label

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
    enough to name the nodes (the key shows them: ``id``), also its first name-like property (``name``), or else
    the properties its key is made of (``poetry-1990``: the field and the year)."""
    label = r.query.nodes[var]
    shown, key = r.view.display(label), r.view.key(label)
    props = [shown] + ([key] if key and key != shown else [])
    if shown == key:
        props += [p for p in r.view.spec.name_props.get(label, []) if p not in props and is_name_like(p)][:1] or \
            [p for p in r.view.spec.key_parts.get(label, []) if p not in props]
    return [Column(var, p) for p in props]


def type_of(r: Reading, col: Column) -> str | None:
    """The schema type of a column's property (of a node or an edge)."""
    if col.prop is None or col.holder is None:
        return None
    if col.holder in r.query.nodes:
        return r.view.prop_type(r.query.nodes[col.holder], col.prop)
    return r.view.rel_props.get(rel_of(r, col.holder), {}).get(col.prop)


def rel_of(r: Reading, var: str | None) -> str:
    return r.query.rel_of(var)


def owner_of(r: Reading, var: str | None) -> str:
    """The label of a node variable, or the type of an edge variable."""
    return r.query.nodes.get(var) or rel_of(r, var)


def naming_prop(r: Reading, label: str) -> str | None:
    """The property a question means by the "name" (or "title") of a ``label`` node that has no property of that
    word: its display property when name-like, else its one text property named after the label (party.Party);
    else None."""
    shown = r.view.display(label)
    if shown != r.view.key(label) and is_name_like(shown):
        return shown
    selves = [p for p in r.view.nodes.get(label, {}) if names_own_label(label, p)]
    return selves[0] if len(selves) == 1 and r.view.prop_type(label, selves[0]) == "STRING" else None


def own_name(r: Reading, it: Item) -> Term | None:
    """"the product whose name ...", "a scientist whose name ...": the word "name" (or "title") right after a label
    and "whose"/"with (the)", of a label with no property of that word, is that label's :func:`naming_prop`; else
    None."""
    k = it.start
    if it.end - k != 1 or r.lemmas[k] not in ("name", "title"):
        return None
    while k > 0 and r.lemmas[k - 1] in ("with", "whose", "the", "a", "its", "their"):
        k -= 1
    lab = next((pick(x, "label", None) for x in r.items if x.end == k and x is not it), None)
    if k == it.start or lab is None or any(t.kind == "prop" and t.owner == lab.owner for t in it.terms):
        return None
    prop = naming_prop(r, lab.owner)  # product.product
    return Term("prop", lab.owner, prop) if prop is not None else None
