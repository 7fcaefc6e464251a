"""EXPLAIN-validate-repair (paper 001 §2.3) and the deterministic post-processor (§3.1).

Every query is checked with Kuzu ``EXPLAIN`` before it runs. On an error the post-processor
(:func:`postprocess`) applies fixes that never change the meaning of a correct query — strip Markdown code
fences, back-quote reserved labels such as ``Order``, correct the case of a label or relationship type,
map a property its variable's label does not have to the closest one it has, return a display property
instead of a bare node; when it changes nothing and Kuzu reports "Cannot find property", that property
becomes the label's display property. The query is then checked again, at most ``rounds`` times.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from kgqa.kg.cypher import ident
from kgqa.planner.schema_view import SchemaView


@dataclass
class Repaired:
    cypher: str
    ok: bool
    attempts: list[tuple[str, str | None]] = field(default_factory=list)  # (cypher, error)


def _var_labels(cypher: str) -> dict[str, str]:
    return {v: lb.strip("`") for v, lb in re.findall(r"\(\s*([A-Za-z_]\w*)\s*:\s*(`?\w+`?)", cypher)}


def postprocess(cypher: str, view: SchemaView) -> str:
    """Fixes that never change the meaning of a correct query."""
    q = cypher.strip().rstrip(";")
    q = re.sub(r"```(?:cypher)?", "", q).strip()
    # reserved labels must be back-quoted: (o:Order) -> (o:`Order`)
    for label in view.nodes:
        if ident(label) != label:
            q = re.sub(rf"(?<=:)\s*{re.escape(label)}\b(?!`)", ident(label).replace("\\", "\\\\"), q)
    # labels and relationship types with the wrong case
    for name in list(view.nodes) + list(view.rels):
        q = re.sub(rf"(?<=:)`?{re.escape(name)}`?(?=[\s)\]{{])", lambda m, n=name: m.group(0) if m.group(0).strip("`") == n else n,
                   q, flags=re.I)
    # properties that do not exist on the variable's label -> closest existing property
    labels = _var_labels(q)
    def fix_prop(m: re.Match) -> str:
        var, prop = m.group(1), m.group(2)
        label = labels.get(var)
        props = view.nodes.get(label) or view.rel_props.get(label) or {}
        if not props or prop in props:
            return m.group(0)
        close = difflib.get_close_matches(prop, list(props), n=1, cutoff=0.6) or difflib.get_close_matches(
            prop.lower(), [p.lower() for p in props], n=1, cutoff=0.6)
        if not close:
            return m.group(0)
        real = next(p for p in props if p.lower() == close[0].lower())
        return f"{var}.{real}"
    q = re.sub(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b", fix_prop, q)
    # RETURN of a bare node variable -> its display property
    m = re.search(r"\bRETURN\s+(DISTINCT\s+)?(.+?)(\s+ORDER BY|\s+LIMIT|\s+SKIP|$)", q, re.S | re.I)
    if m:
        items = [i.strip() for i in m.group(2).split(",")]
        new = []
        for item in items:
            bare = re.fullmatch(r"([A-Za-z_]\w*)(\s+AS\s+\w+)?", item, re.I)
            if bare and bare.group(1) in labels and labels[bare.group(1)] in view.nodes:
                new.append(f"{bare.group(1)}.{view.display(labels[bare.group(1)])}{bare.group(2) or ''}")
            else:
                new.append(item)
        q = q[:m.start(2)] + ", ".join(new) + q[m.end(2):]
    return q


def case_insensitive(cypher: str) -> str:
    """``x.p = 'v'`` -> ``lower(x.p) = lower('v')``: used when an exact string match found nothing."""
    q = re.sub(r"\b([A-Za-z_]\w*\.[A-Za-z_]\w*)\s*=\s*('(?:[^'\\]|\\.)*'|\$\w+)", r"lower(\1) = lower(\2)", cypher)
    return q


def validate_and_repair(graph, view: SchemaView, cypher: str, params: dict | None = None, rounds: int = 3
                        ) -> Repaired:
    attempts: list[tuple[str, str | None]] = []
    q = cypher
    for i in range(rounds + 1):
        err = graph.explain(q, params)
        attempts.append((q, err))
        if err is None:
            return Repaired(q, True, attempts)
        if err.startswith("Unsafe query"):
            return Repaired(q, False, attempts)
        fixed = postprocess(q, view)
        m = re.search(r"Cannot find property (\w+) for (\w+)", err)
        if m and fixed == q:
            fixed = re.sub(rf"\b{m.group(2)}\.{m.group(1)}\b", f"{m.group(2)}.{view.display(_var_labels(q).get(m.group(2), '')) if _var_labels(q).get(m.group(2)) in view.nodes else m.group(1)}", q)
        if fixed == q or i == rounds:
            break
        q = fixed
    return Repaired(q, False, attempts)
