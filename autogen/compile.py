"""Deterministic compilation of a sampled question shape into Cypher (CacheRAG §4.4 step 2).

A :class:`Spec` is what a synthesized question asks, in schema terms: an anchor entity, a path of
relationship steps to the target label, and one operation (return a property, list, count, filter,
top-k, aggregate, superlative, compare). :func:`compile_spec` writes it as parameterized Cypher built
only from names of the :class:`kgqa.planner.schema_view.SchemaView`; no model is involved, so a verified
result proves the question's triples, not a model's guess.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kgqa.kg.cypher import ident
from kgqa.planner.schema_view import SchemaView

KINDS = ("attr", "hop", "count", "filter", "top", "agg", "superlative", "compare", "count_all")
OPS = (">", "<", ">=", "<=", "=")


@dataclass(frozen=True)
class Step:
    rel: str
    direction: str  # "out": (previous)-[rel]->(label); "in": (previous)<-[rel]-(label)
    label: str


@dataclass
class Spec:
    """A question shape over the schema; ``anchor_value`` is matched on ``anchor_prop`` (a display name)."""

    kind: str
    target: str  # label of the answer nodes
    anchor_label: str | None = None
    anchor_prop: str | None = None
    anchor_value: Any = None
    anchor2_value: Any = None  # compare: the second entity of the same label
    steps: list[Step] = field(default_factory=list)  # anchor -> ... -> target
    prop: str | None = None  # property of the target returned / filtered / ordered / aggregated
    op: str | None = None  # filter operator
    value: Any = None  # filter value
    agg: str | None = None  # agg: avg | sum | min | max
    desc: bool = True  # top / superlative / compare: highest first
    limit: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Spec:
        data = dict(data)
        data["steps"] = [Step(**s) for s in data.get("steps", [])]
        return cls(**data)

    @property
    def ordered(self) -> bool:
        return self.kind in ("top", "superlative", "compare")


def compile_spec(spec: Spec, view: SchemaView) -> tuple[str, dict[str, Any]]:
    """(cypher, params) for ``spec``; raises ValueError when it names something the schema lacks."""
    if spec.kind not in KINDS:
        raise ValueError(f"unknown spec kind {spec.kind!r}")
    _check(spec, view)
    params: dict[str, Any] = {}
    where: list[str] = []
    t = "t"
    disp = f"{t}.{ident(view.display(spec.target))}"
    if spec.anchor_label is not None and spec.steps:
        parts = [f"(a:{ident(spec.anchor_label)})"]
        for i, st in enumerate(spec.steps):
            var = t if i == len(spec.steps) - 1 else f"m{i + 1}"
            arrow = f"-[:{ident(st.rel)}]->" if st.direction == "out" else f"<-[:{ident(st.rel)}]-"
            parts.append(f"{arrow}({var}:{ident(st.label)})")
        match = "MATCH " + "".join(parts)
        params["a"] = spec.anchor_value
        where.append(f"a.{ident(spec.anchor_prop)} = $a")
        if spec.target == spec.anchor_label:  # co-actors, fellow laureates: never the anchor itself
            key = ident(view.key(spec.target))
            where.append(f"{t}.{key} <> a.{key}")
    else:
        match = f"MATCH ({t}:{ident(spec.target)})"
        if spec.anchor_label is not None:  # the anchor is the target itself (attr, compare)
            params["a"] = spec.anchor_value
            cond = f"{t}.{ident(spec.anchor_prop)} = $a"
            if spec.kind == "compare":
                params["b"] = spec.anchor2_value
                cond = f"({cond} OR {t}.{ident(spec.anchor_prop)} = $b)"
            where.append(cond)
    if spec.kind == "filter":
        if spec.op not in OPS:
            raise ValueError(f"unknown operator {spec.op!r}")
        params["v"] = spec.value
        where.append(f"{t}.{ident(spec.prop)} {spec.op} $v")
    if spec.kind in ("top", "superlative", "compare"):
        where.append(f"{t}.{ident(spec.prop)} IS NOT NULL")
    where_sql = (" WHERE " + " AND ".join(where)) if where else ""
    prop = f"{t}.{ident(spec.prop)}" if spec.prop else None
    direction = "DESC" if spec.desc else "ASC"
    if spec.kind == "attr":
        ret = f" RETURN {prop}"
    elif spec.kind == "hop":
        ret = f" RETURN DISTINCT {disp}"
    elif spec.kind in ("count", "count_all"):
        ret = f" RETURN count(DISTINCT {t}) AS value"
    elif spec.kind == "filter":
        ret = f" RETURN DISTINCT {disp}, {prop}" if prop != disp else f" RETURN DISTINCT {disp}"
    elif spec.kind == "agg":
        if spec.agg not in ("avg", "sum", "min", "max"):
            raise ValueError(f"unknown aggregate {spec.agg!r}")
        # one value per distinct target node, so a node reached twice is not counted twice
        ret = f" WITH DISTINCT {t} RETURN {spec.agg}({prop}) AS value"
    elif spec.kind in ("top", "superlative"):
        ret = f" RETURN DISTINCT {disp}, {prop} ORDER BY {prop} {direction} LIMIT {int(spec.limit or 1)}"
    else:  # compare
        ret = f" RETURN {disp} ORDER BY {prop} {direction} LIMIT 1"
    return match + where_sql + ret, params


def _check(spec: Spec, view: SchemaView) -> None:
    if spec.target not in view.nodes:
        raise ValueError(f"no label {spec.target!r}")
    if spec.prop and spec.prop not in view.nodes[spec.target]:
        raise ValueError(f"no property {spec.target}.{spec.prop}")
    if spec.anchor_label is not None:
        if spec.anchor_prop not in view.nodes.get(spec.anchor_label, {}):
            raise ValueError(f"no property {spec.anchor_label}.{spec.anchor_prop}")
    prev = spec.anchor_label
    for st in spec.steps:
        pairs = view.rels.get(st.rel, [])
        want = (prev, st.label) if st.direction == "out" else (st.label, prev)
        if want not in pairs:
            raise ValueError(f"no relationship ({want[0]})-[:{st.rel}]->({want[1]})")
        prev = st.label
    if spec.steps and prev != spec.target:
        raise ValueError("the path does not end at the target label")
