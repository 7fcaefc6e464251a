"""Two values of one property, for the grammar reader's conditions: "both ... and ..." on two nodes joined to the
asked one, or two nodes of the asked label that show the same asked properties (:func:`conjunctions`,
:func:`two_nodes`)."""

from __future__ import annotations

from kgqa.kg.derive import is_name_like
from kgqa.planner.query import Column, Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.columns import ROWID
from kgqa.planner.reader.joins import absent_path, copy_path, many_along, path_to
from kgqa.planner.reader.reading import Reading


def conjunctions(r: Reading) -> None:
    """Two values of one property said with "and": of a node joined many to each asked node, each value on a
    node of its own ("students who play both Chess and Tennis": two activities); of the asked node itself,
    or of the one node joined to it, either value ("the Sales and Legal departments", "Jazz and Soul
    tracks"): one node cannot hold both."""
    q = r.query
    same: dict[tuple[str, str], list[int]] = {}
    for k, w in enumerate(q.where):
        if w.op == "=" and not isinstance(w.value, (list, tuple)):
            same.setdefault((w.holder, w.prop), []).append(k)
    gone: set[int] = set()
    for (holder, prop), ks in same.items():
        nots = [k for k, w in enumerate(q.where) if w.op == "<>" and (w.holder, w.prop) == (holder, prop)]
        if nots and not _but_not(r, holder, nots):
            r.decline(f"{prop} is one value and is not another")  # "by Statistics but not Psychology"
            return
        gone.update(nots)
        repeated = [k for k in ks[1:] if q.where[k].value in [q.where[j].value for j in ks[:ks.index(k)]]]
        gone.update(repeated)  # "female (sex is F) students": one value said twice
        ks = [k for k in ks if k not in repeated]
        if len(ks) < 2:
            continue
        spans = [r.where_ends[k] for k in ks]
        counted = next((w for w in r.lemmas[:spans[0][0]] if w in ("number", "many", "count") or
                        cues.AGGREGATES.get(w) in ("avg", "min", "max")), None)  # not "the sum of": added together
        if counted and holder == r.target:  # "the average age for male and female students": of both, or of each
            figure = "count" if counted in ("number", "many", "count") else counted
            r.decline(f"the {figure} of {' and '.join(str(q.where[k].value) for k in ks)} together, or each apart")
            return
        if not all({"and", ",", "both"} & set(r.lemmas[a[1]:b[1] - 1])  # "the 'A' committee and the 'B' committee":
                   for a, b in zip(spans, spans[1:])) or any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
            # the property after the first value opens the second's span
            r.decline("two values of one property at once (both)")
            return
        if any("how" in r.lemmas[a[1]:b[0]] for a, b in zip(spans, spans[1:])):
            r.decline("two values of one property, each asked apart")  # "how many are male and how many female"
            return
        path = path_to(q, r.target, holder)
        many = holder != r.target and path is not None and many_along(r.view, q, path, r.target)
        if not many and ("both" in r.lemmas[max(0, spans[0][0] - 5):spans[-1][0]] or
                         "share" in r.lemmas[:spans[0][0]]):  # "the industries shared by companies in X and in Y"
            if not _shared_values(r, path, holder, prop, ks):
                r.decline("two values of one property at once (both)")  # "industries of both a company in X and ..."
                return
            r.use(*[(a[1], b[0]) for a, b in zip(spans, spans[1:])])
            continue
        if not many and holder == r.target and r.asked and all(
                it.term is not None and it.term.kind == "prop" and it.term.owner == q.nodes[holder] and
                it.term.prop not in (prop, r.view.display(it.term.owner)) and not is_name_like(it.term.prop) and
                r.view.nodes_per_value(it.term.owner, it.term.prop) > 1
                for it in r.asked):
            r.decline("two values of one property at once (both)")  # "the studios that have films with director A and
            return  # B": of a studio's films, one by each, or a film by either
        if not many:
            q.where[ks[0]] = Where(holder, prop, "IN", [q.where[k].value for k in ks])
            gone.update(ks[1:])
        else:
            for n, k in enumerate(ks[1:], start=1):
                q.where[k] = Where(copy_path(r, path, f"both{n}"), prop, "=", q.where[k].value)
        r.use(*[(a[1], b[0]) for a, b in zip(spans, spans[1:])])
    q.where[:] = [w for k, w in enumerate(q.where) if k not in gone]
    r.where_ends[:] = [e for k, e in enumerate(r.where_ends) if k not in gone]


def _but_not(r: Reading, holder: str, nots: list[int]) -> bool:
    """"students allergic to milk but not to cat", "attractions Alison visited but Rosalind did not": a value the
    question also denies, of a node joined many to each asked node, is a node that must not be there (a NOT
    EXISTS of another copy of the path). Returns False where the holder is the asked node or joined once: one
    node holds one value, so "but not" says nothing of it or of its own."""
    q = r.query
    path = path_to(q, r.target, holder)
    if holder == r.target or path is None or not many_along(r.view, q, path, r.target):
        return False
    for n, k in enumerate(nots):
        absent, last = absent_path(r, path, f"not{n}")
        absent.where.append(Where(last, q.where[k].prop, "=", q.where[k].value))
    return True


def two_nodes(r: Reading, holder: str, prop: str, ks: list[int]) -> bool:
    """"the countries that have both mountains higher than 5600 and lower than 5200": two ranges no one node
    holds at once, each on a node of its own: another node joined to the asked one, or (of the asked label's own
    property) another node showing the same asked properties. Returns False where neither reads."""
    q = r.query
    path = path_to(q, r.target, holder)
    if holder != r.target and path is not None and many_along(r.view, q, path, r.target):
        w = q.where[ks[1]]
        q.where[ks[1]] = Where(copy_path(r, path, "both1"), prop, w.op, w.value)
        return True
    return _shared_values(r, path, holder, prop, ks)


def _shared_values(r: Reading, path: list | None, holder: str, prop: str, ks: list[int]) -> bool:
    """"the industries of both companies in USA and companies in China", "directors with a movie in both 1999 and
    2000": one node holds one value, so each further value is held by another node of the asked label that
    shows the same asked properties (the values common to both sets). Returns False where nothing is asked of
    the label's own properties."""
    q = r.query
    label = q.nodes[r.target]
    asked = [it.term.prop for it in r.asked if it.term is not None and it.term.kind == "prop" and not it.term.on_rel
             and it.term.owner == label and it.term.prop not in (r.view.key(label), ROWID)]
    if not asked or path is None:
        return False
    for n, k in enumerate(ks[1:], start=1):
        twin = r.var_for(label, f"both{n}:{r.target}")
        last = copy_path(r, path, f"both{n}", start=twin) if path else twin
        q.where[k] = Where(last, prop, q.where[k].op, q.where[k].value)
        q.where.extend(Where(twin, p, "=", Column(r.target, p)) for p in asked)
    q.distinct = True
    return True
