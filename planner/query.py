"""The grammar reader's intermediate form, a :class:`Query`, and the Cypher it generates (:func:`to_cypher`).

A query is a pattern (node variables with their labels, edges between them, and nodes joined by equal property
values where no relationship joins them), conditions on properties of nodes or edges, the columns returned
(properties, nodes, aggregates), and the order and limit. Aggregates group by the other columns, as Cypher does.
Values are parameters, never inlined; names are quoted by :func:`kgqa.kg.cypher.ident`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgqa.kg.cypher import ident

STRING_OPS = ("CONTAINS", "STARTS WITH", "ENDS WITH")
NUMERIC_FNS = ("sum", "avg")  # aggregates only numbers have: text read as a number is cast for them


@dataclass(frozen=True)
class Edge:
    """``(src)-[var:rel]->(dst)``, variables of the pattern's nodes."""

    var: str
    rel: str
    src: str
    dst: str


@dataclass(frozen=True)
class Where:
    """``holder.prop op value`` (``holder`` a node or edge variable; ``value`` may be another :class:`Column`, a
    property of the same match); ``IS NULL``/``IS NOT NULL`` take no value;
    the string operators compare case-insensitively; ``BETWEEN`` takes a (low, high) pair, ``RANGE`` (and ``NOT
    RANGE``) one from low up to, not including, high, ``IN`` a list and
    ``OR`` a pair of conditions (``prop`` unused), ``MONTH`` a month's number (1-12) of a date, ``SIZE <op>`` a text's length compared."""

    holder: str
    prop: str
    op: str
    value: Any = None


@dataclass(frozen=True)
class Overall:
    """A condition's value computed over the nodes of a label first: ``fn(prop)`` over all of them (``height < the
    average``), or over those whose ``among`` properties equal the values given (``salary > the highest salary of
    the instructors in Biology``); over the edges of a relationship type where ``on_rel`` (``a rating higher than
    the average rating``)."""

    fn: str
    label: str
    prop: str
    among: tuple[tuple[str, Any], ...] = ()  # (property, value) pairs the nodes counted must have
    on_rel: bool = False  # ``label`` is a relationship type: its edges' ``prop``


@dataclass(frozen=True)
class Column:
    """A returned column: ``holder.prop``, or ``fn`` over it (count, avg, sum, min, max, collect: the values
    listed; ``prop`` None counts rows, or the holder's nodes when ``distinct``), or ``then`` over the values of
    ``fn`` computed once per node of ``per``."""

    holder: str | None
    prop: str | None
    fn: str | None = None
    distinct: bool = False
    name: str = ""
    per: str | None = None  # a node variable: ``fn`` computed once per such node first ...
    then: str | None = None  # ... and this figure taken of those values ("the average number of items per order")

    @property
    def is_aggregate(self) -> bool:
        return self.fn is not None


@dataclass(frozen=True)
class Tally:
    """How many nodes one named node reaches at the end of ``path``: from the node of ``label`` whose ``prop`` is
    ``value``, along (relationship, "out" or "in", label) steps, each node at the end counted once."""

    label: str
    prop: str
    value: Any
    path: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class Versus:
    """Two values compared: ``left op right``, yes or no, or ``left - right`` (``op`` "-"); two columns of one
    row, or two :class:`Tally` counts, each over its own match."""

    left: Column | Tally
    op: str
    right: Column | Tally
    name: str = "answer"


@dataclass
class Absent:
    """A pattern that must not exist from the main match's nodes: its edges (whose new variables are its own)
    and its conditions ("hotels that do not have a Sauna")."""

    edges: list[Edge] = field(default_factory=list)
    where: list[Where] = field(default_factory=list)
    own: set[str] = field(default_factory=set)  # the node variables only this pattern binds


@dataclass
class Query:
    """A read-only query over one graph's schema (module docstring)."""

    nodes: dict[str, str] = field(default_factory=dict)  # variable -> label
    edges: list[Edge] = field(default_factory=list)
    where: list[Where] = field(default_factory=list)
    columns: list[Column] = field(default_factory=list)
    evidence: list[Column] = field(default_factory=list)  # returned last, beside what is asked: what the rows rest on
    order: list[tuple[Column, bool]] = field(default_factory=list)  # (column, descending)
    limit: int | None = None
    skip: int = 0  # rows passed over before the limit (the rows past a cut, to see who ties with its last)
    unranked: bool = False  # "the top 5 X" with no measure: the rows answer only when no more than ``limit`` match
    distinct: bool = False
    having: list[tuple[Column, str, Any]] = field(default_factory=list)  # a bound on an aggregate column
    absent: list[Absent] = field(default_factory=list)  # patterns that must not exist (NOT EXISTS)
    one_per: str | None = None  # a node variable: one row per such node, however many matches it has
    keyed: list[tuple[str, str, str, str]] = field(default_factory=list)  # (var, prop, var, key): joined by value
    as_numbers: set[tuple[str, str]] = field(default_factory=set)  # (holder, prop): text read as a number
    computed: dict[tuple[str, str], str] = field(default_factory=dict)  # (holder, prop) -> its Cypher arithmetic: a
    # measure the annotations define (kgqa.planner.arithmetic.number), the days between two dates (reader.durations)
    versus: Versus | None = None  # returned first: two nodes' values compared ("Is A younger than B?")

    def label_of(self, var: str) -> str | None:
        return self.nodes.get(var)

    def rel_of(self, var: str | None) -> str:
        """The relationship type of an edge variable ("" for none)."""
        return next((e.rel for e in self.edges if e.var == var), "")


def to_cypher(q: Query) -> tuple[str, dict[str, Any]]:
    """Returns the Cypher text of ``q`` and its parameters."""
    if q.versus is not None and isinstance(q.versus.left, Tally):
        return _tallies(q.versus)
    params: dict[str, Any] = {}
    seen: set[str] = set()
    inner = {v for a in q.absent for v in a.own}
    parts = _path(q, q.edges, seen)
    for var, label in q.nodes.items():
        if var not in seen and var not in inner:
            parts.append(f"({var}:{ident(label)})")
            seen.add(var)
    overall = list(dict.fromkeys(_overall([*q.where, *(w for a in q.absent for w in a.where)])))
    text = "".join(f"MATCH {_figured(o, i)}{_among(o, i, params)} WITH {_with(overall[:i])}"
                   f"{o.fn}(o{i}.{ident(o.prop)}) AS overall{i} " for i, o in enumerate(overall))
    text += "MATCH " + ", ".join(parts)
    num = _Numbers(q.as_numbers, q.computed)
    conds = [_condition(w, params, overall, num) for w in q.where]
    first, desc = q.order[0] if q.order else (None, True)
    if q.limit is not None and not desc and not first.is_aggregate and first.prop and first.holder:
        # "the lowest" is one that holds a value: nulls sort last, and a limit past the values would reach them
        # (descending, they sort first, as Neo4j's do)
        conds.append(f"{_expr(first, num)} IS NOT NULL")
    conds += [f"{a}.{ident(p)} = {b}.{ident(k)}" for a, p, b, k in q.keyed]
    for a in q.absent:
        sub = "MATCH " + ", ".join(_path(q, a.edges, set(seen)))
        if a.where:
            sub += " WHERE " + " AND ".join(_condition(w, params, overall, num) for w in a.where)
        conds.append(f"NOT EXISTS {{ {sub} }}")
    if conds:
        text += " WHERE " + " AND ".join(conds)
    columns, names = returned(q)
    projection = ", ".join(f"{_expr(c, num)} AS {ident(n)}" for c, n in zip(columns, names))
    if q.versus is not None:
        v = q.versus
        projection = f"{_expr(v.left, num)} {v.op} {_expr(v.right, num)} AS {ident(v.name)}, " + projection
    if any(c.per for c in columns):
        # figures of per-node figures: each node's first, grouped by it, then the figure of those
        text += " WITH " + ", ".join([*dict.fromkeys(c.per for c in columns if c.per),
                                      *(f"{_expr(c, num)} AS {ident(n)}" for c, n in zip(columns, names))])
        text += " WITH " + ", ".join(f"{c.then}({ident(n)}) AS {ident(n)}" if c.per else ident(n)
                                     for c, n in zip(columns, names))
        text += _bounds(q, columns, names, params) + " RETURN " + ", ".join(ident(n) for n in names)
    elif q.having:
        # a bound on an aggregate: computed first, filtered, then returned; per node where one_per says so
        per = q.one_per and not q.distinct and all(c.is_aggregate or c.holder == q.one_per for c in columns)
        if per:
            text += f" WITH {q.one_per}, " + ", ".join(f"{_expr(c, num)} AS {ident(n)}" for c, n in zip(columns, names)
                                                      if c.is_aggregate)
        else:
            text += f" WITH {'DISTINCT ' if q.distinct else ''}" + projection
        text += _bounds(q, columns, names, params) + " RETURN " + ", ".join(
            ident(n) if c.is_aggregate or not per else f"{_expr(c, num)} AS {ident(n)}" for c, n in zip(columns, names))
    else:
        if q.one_per:
            text += f" WITH DISTINCT {q.one_per}"
        elif any(c.fn == "collect" and not c.distinct for c in columns):
            # a list collects each node (or edge) once, however many paths reach it
            text += " WITH DISTINCT " + ", ".join(dict.fromkeys(c.holder for c in columns if c.holder))
        text += f" RETURN {'DISTINCT ' if q.distinct else ''}" + projection
    if q.order:
        keys = []
        for col, desc in q.order:
            ref = ident(names[columns.index(col)]) if col in columns else _expr(col, num)
            if col in columns and col.fn is None and (col.holder, col.prop) in num.cast:
                ref = f"CAST({ref} AS DOUBLE)"  # text keys of numbers in the order of their numbers ("2" before "10")
            keys.append(ref + (" DESC" if desc else ""))
        ordered = {c for c, _ in q.order}
        tie = next((n for c, n in zip(columns, names) if not c.is_aggregate and c not in ordered), None)
        if q.limit is not None and tie is not None:
            keys.append(ident(tie))  # rows tied at the cut come in one order, whatever the engine
        text += " ORDER BY " + ", ".join(keys)
    if q.skip:
        text += f" SKIP {int(q.skip)}"
    if q.limit is not None:
        text += f" LIMIT {int(q.limit) + int(q.unranked)}"  # one more: more than the limit match, nothing says which
    return text, params


def _bounds(q: Query, columns: list[Column], names: list[str], params: dict[str, Any]) -> str:
    """`` WHERE`` the bounds on aggregate columns (:attr:`Query.having`), or nothing."""
    bounds = []
    for col, op, value in q.having:
        key = f"p{len(params)}"
        params[key] = value
        bounds.append(f"{ident(names[columns.index(col)])} {op} ${key}")
    return " WHERE " + " AND ".join(bounds) if bounds else ""


def returned(q: Query) -> tuple[list[Column], list[str]]:
    """Returns the columns ``q`` returns after its two values compared (:attr:`Query.versus`), and their names:
    what is asked, then the order's keys a projection must keep, then the evidence."""
    columns = list(q.columns)
    if q.distinct or q.having:  # a DISTINCT or WITH projection keeps only what it returns: the order's keys too
        columns += [c for c, _ in q.order if c not in columns and c not in q.evidence and not c.is_aggregate]
    columns += [c for c in q.evidence if c not in columns]  # last, always
    return columns, _names(columns)


def conditions_and_columns(q: Query) -> tuple[list[Where], list[Column]]:
    """Every condition of ``q`` (those of absent patterns and inside an either-or too) and every column it uses
    (returned, evidence, ordered by, bounded, compared with)."""
    where = [*q.where, *(w for a in q.absent for w in a.where)]
    where += [x for w in where if w.op == "OR" for x in w.value]
    columns = [*q.columns, *q.evidence, *(c for c, _ in q.order), *(c for c, _, _ in q.having)]
    columns += [w.value for w in where if isinstance(w.value, Column)]
    return where, columns


def schema_names(q: Query) -> set[str]:
    """Returns the labels, relationship types and properties ``q`` names anywhere (a number the question says may
    be part of one: "ROUND2", "addressLine2")."""
    edges = [*q.edges, *(e for a in q.absent for e in a.edges)]
    where, columns = conditions_and_columns(q)
    names = {*q.nodes.values(), *(e.rel for e in edges), *(w.prop for w in where), *(c.prop for c in columns)}
    names |= {o.prop for w in where if isinstance(w.value, Overall) for o in [w.value]}
    names |= {o.label for w in where if isinstance(w.value, Overall) for o in [w.value]}
    names |= {x for a, p, b, k in q.keyed for x in (p, k)}
    if q.versus is not None:
        for side in (q.versus.left, q.versus.right):
            if isinstance(side, Tally):
                names |= {side.label, side.prop, *(x for step in side.path for x in (step[0], step[2]))}
            else:
                names.add(side.prop)
    return {n for n in names if n}


def _tallies(v: Versus) -> tuple[str, dict[str, Any]]:
    """Two counts, each over its own match of its named node (none reached counts 0), then compared."""
    params: dict[str, Any] = {}
    parts = []
    for x, t, name in (("a", v.left, "first"), ("b", v.right, "second")):
        key = f"p{len(params)}"
        params[key] = t.value
        walk = f"({x}0)"
        for k, (rel, direction, label) in enumerate(t.path, 1):
            arrow = f"-[:{ident(rel)}]->" if direction == "out" else f"<-[:{ident(rel)}]-"
            walk += f"{arrow}({x}{k}:{ident(label)})"
        parts.append(f"MATCH ({x}0:{ident(t.label)}) WHERE {x}0.{ident(t.prop)} = ${key} OPTIONAL MATCH {walk} "
                     f"WITH {'first, ' if x == 'b' else ''}count(DISTINCT {x}{len(t.path)}) AS {name}")
    return " ".join(parts) + f" RETURN first {v.op} second AS {ident(v.name)}, first, second", params


def _path(q: Query, edges: list[Edge], seen: set[str]) -> list[str]:
    """The pattern parts of ``edges``, each node's label written where it first appears (``seen`` grows)."""
    parts = []
    for e in edges:
        src = f"({e.src}:{ident(q.nodes[e.src])})" if e.src not in seen else f"({e.src})"
        seen.add(e.src)
        dst = f"({e.dst}:{ident(q.nodes[e.dst])})" if e.dst not in seen else f"({e.dst})"
        seen.add(e.dst)
        parts.append(f"{src}-[{e.var}:{ident(e.rel)}]->{dst}")
    return parts


@dataclass(frozen=True)
class _Numbers:
    """How a query reads properties as numbers: text cast (:attr:`Query.as_numbers`), measures written out as their
    arithmetic (:attr:`Query.computed`)."""

    cast: frozenset[tuple[str, str]] | set[tuple[str, str]] = frozenset()
    computed: dict[tuple[str, str], str] = field(default_factory=dict)


def _ref(holder: str, prop: str, numbers: _Numbers, cast: bool = True) -> str:
    """``holder.prop``: a measure's arithmetic, cast to a number where the query reads that text as one (and
    ``cast``)."""
    if (holder, prop) in numbers.computed:
        return numbers.computed[(holder, prop)]
    ref = f"{holder}.{ident(prop)}"
    return f"CAST({ref} AS DOUBLE)" if cast and (holder, prop) in numbers.cast else ref


def _expr(c: Column, numbers: _Numbers = _Numbers()) -> str:
    if c.prop is None:
        ref = c.holder or "*"
    else:
        ref = _ref(c.holder, c.prop, numbers, c.fn in NUMERIC_FNS)
    if c.fn is None:
        return ref
    if c.fn == "count" and c.prop is None and not c.distinct:
        return "count(*)"
    return f"{c.fn}({'DISTINCT ' if c.distinct else ''}{ref})"


def _names(columns: list[Column]) -> list[str]:
    out: list[str] = []
    for c in columns:
        base = c.name or ("_".join(x for x in (c.then, c.fn, c.prop or (None if c.fn else c.holder)) if x) or "value")
        name, i = base, 2
        while name in out:
            name, i = f"{base}_{i}", i + 1
        out.append(name)
    return out


def _overall(where: list[Where]) -> list[Overall]:
    """The overall figures the conditions compare with, in order, those inside an either-or too."""
    out: list[Overall] = []
    for w in where:
        if w.op == "OR":
            out += _overall(list(w.value))
        elif isinstance(w.value, Overall):
            out.append(w.value)
    return out


def _figured(o: Overall, i: int) -> str:
    """The pattern an overall figure is computed over: the nodes of its label, or the edges of its type."""
    return f"()-[o{i}:{ident(o.label)}]->()" if o.on_rel else f"(o{i}:{ident(o.label)})"


def _among(o: Overall, i: int, params: dict[str, Any]) -> str:
    """The WHERE that keeps the part of a label an overall figure is computed over, its values as parameters."""
    conds = []
    for prop, value in o.among:
        key = f"p{len(params)}"
        params[key] = value
        conds.append(f"o{i}.{ident(prop)} = ${key}")
    return " WHERE " + " AND ".join(conds) if conds else ""


def _with(done: list[Overall]) -> str:
    """The overall values computed before, carried through a WITH."""
    return "".join(f"overall{i}, " for i in range(len(done)))


def month_of(ref: str) -> str:
    """The month ('01'-'12') of a date expression, of a date type or ISO date text alike."""
    return f"substring(CAST({ref} AS STRING), 6, 2)"


def _condition(w: Where, params: dict[str, Any], overall: list[Overall] = (),
               numbers: _Numbers = _Numbers()) -> str:
    if w.op == "OR":
        return "(" + " OR ".join(_condition(x, params, overall, numbers) for x in w.value) + ")"
    ref = _ref(w.holder, w.prop, numbers) if w.op.removeprefix("NOT ") not in STRING_OPS else f"{w.holder}.{ident(w.prop)}"
    if isinstance(w.value, Overall):
        return f"{ref} {w.op} overall{overall.index(w.value)}"
    if isinstance(w.value, Column):
        return f"{ref} {w.op} {w.value.holder}.{ident(w.value.prop)}"
    if w.op in ("IS NULL", "IS NOT NULL"):
        return f"{ref} {w.op}"
    if w.op.startswith("SIZE "):  # a text's length compared ("longer than 20 characters")
        key = f"p{len(params)}"
        params[key] = w.value
        return f"size({w.holder}.{ident(w.prop)}) {w.op[5:]} ${key}"
    if w.op == "MONTH":  # a date's month, of a date type or ISO date text alike ('1996-08-04 ...': '08')
        key = f"p{len(params)}"
        params[key] = f"{w.value:02d}"
        return f"{month_of(f'{w.holder}.{ident(w.prop)}')} = ${key}"
    if w.op in ("BETWEEN", "RANGE", "NOT RANGE"):
        lo, hi = f"p{len(params)}", f"p{len(params) + 1}"
        params[lo], params[hi] = w.value
        if w.op == "BETWEEN":
            return f"{ref} >= ${lo} AND {ref} <= ${hi}"
        inside = f"{ref} >= ${lo} AND {ref} < ${hi}"
        return inside if w.op == "RANGE" else f"NOT ({inside})"
    key = f"p{len(params)}"
    params[key] = w.value
    if w.op in STRING_OPS:
        return f"lower({ref}) {w.op} lower(${key})"
    if w.op == "IN":
        return f"{ref} IN ${key}"
    if w.op.startswith("NOT ") and w.op[4:] in STRING_OPS:
        return f"NOT lower({ref}) {w.op[4:]} lower(${key})"
    return f"{ref} {w.op} ${key}"
