"""A text's length compared: "titles longer than 20 characters" is the length of the text property named before the
number (of the asked nodes' own name where none is), a condition of its own."""

from __future__ import annotations

from kgqa.planner.query import Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.attach import prop_before
from kgqa.planner.reader.columns import naming_prop
from kgqa.planner.reader.joins import holder_of
from kgqa.planner.reader.reading import Item, Reading, Value, pick, pick_prop
from kgqa.planner.reader.schema_terms import Term


def length_compared(r: Reading, v: Value, op: str | None, gap: int, item: Item | None,
                    op_span: list[tuple[int, int]]) -> bool:
    """The condition on a text's length that number ``v`` and the unit at ``gap`` ("characters") say, with the
    comparison ``op``: True where read or declined ("20 characters of what"), False where no unit of length is
    said."""
    lem = r.lemmas
    if v.kind != "number" or lem[gap:gap + 1] == [] or lem[gap] not in cues.LENGTH_UNITS or \
            op not in ("<", ">", "<=", ">=", "="):
        return False
    label = r.query.nodes[r.target]
    item = item or prop_before(r, v)
    named = item is None or item.end - item.start == 1 and lem[item.start] in ("name", "title") and not any(
        t.kind == "prop" and t.owner == label for t in item.terms)  # "laureates with a name longer than ...": theirs
    term = Term("prop", label, naming_prop(r, label)) if named and naming_prop(r, label) else \
        (pick(item, "prop", label) or pick_prop(item, r)) if item is not None and "prop" in item.kinds() else None
    holder = holder_of(r, term) if term is not None and term.prop and \
        r.view.prop_type(term.owner, term.prop) == "STRING" else None
    if holder is None:
        r.decline(f"{v.value} {r.doc[gap].text} of what")
        return True
    if item is not None:
        item.term = term
        r.use((item.start, item.end))
    r.query.where.append(Where(holder, term.prop, f"SIZE {op}", v.value))
    r.where_ends.append((item.start if item is not None else v.start, gap + 1))
    r.use((v.start, gap + 1), *op_span)
    return True
