"""Filtering and verification of synthesized questions (CacheRAG §4.4 step 2).

* :func:`leak` — deterministic filter: a question that contains its own answer, an ID, or does not name
  its anchor is dropped.
* :func:`execute` — the deterministic Cypher of a candidate runs on the read-only graph; it is verified
  only when its rows equal the answer derived from the triples.
* :func:`agrees` — the service's own pipeline (caches off) answers the question with the verified rows.
* :func:`round_trip` — the verified query becomes a parameterized template, and filling that template
  from the question itself (through the pipeline's own linker) reproduces the verified rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kgqa.autogen.compile import compile_spec
from kgqa.autogen.synth import Candidate
from kgqa.cache.templates import Binding, PlanTemplate, Span, fill, make_template
from kgqa.kg.compare import rows_match
from kgqa.kg.db import QueryError
from kgqa.kg.failures import failure_kind
from kgqa.kg.schema import render_row

_ID = re.compile(r"\b[a-z]+(?:-[a-z]+)*-\d{4}\b", re.I)  # composite keys such as 'physics-1958'
NUMERIC_ANSWER = ("count", "count_all", "agg", "attr")


@dataclass
class Verified:
    ok: bool
    reason: str = ""
    cypher: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    failure: str = ""  # the kind (kg.failures.KINDS) of the error that stopped it, if one did


def _contains(text: str, needle: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(needle.casefold()) + r"(?!\w)", text.casefold()) is not None


def leak(c: Candidate) -> str | None:
    """Why ``c`` must be dropped before it reaches the graph, or None."""
    q = c.question
    if not 10 <= len(q) <= 200:
        return "length"
    for a in c.anchors:
        if not _contains(q, str(a.text)):
            return "anchor not named"
    if _ID.search(q):
        return "id in question"
    named = {str(a.text).casefold() for a in c.anchors}
    for row in c.expected:
        for v in row:
            if isinstance(v, str) and len(v) >= 3 and v.casefold() not in named and _contains(q, v):
                return "answer in question"
            if (c.spec.kind in NUMERIC_ANSWER and isinstance(v, (int, float)) and not isinstance(v, bool)
                    and float(v).is_integer() and _contains(q, str(int(v)))):
                return "answer in question"
    return None


def execute(c: Candidate, d) -> Verified:
    """Compile ``c.spec`` deterministically, run it on domain ``d`` and compare with ``c.expected``."""
    try:
        cypher, params = compile_spec(c.spec, d.view)
        res = d.graph.query(cypher, params)
    except (ValueError, QueryError) as err:
        return Verified(False, f"does not execute: {err}", failure=failure_kind(err))
    rows = [render_row(r, d.view.spec) for r in res.rows]
    if res.truncated:
        return Verified(False, "too many rows", cypher, params, res.columns, rows)
    ok = rows_match(rows, c.expected, c.spec.ordered, lenient=False)
    return Verified(ok, "" if ok else "rows differ from the triples' answer", cypher, params, res.columns, rows)


def agrees(result, v: Verified, ordered: bool) -> bool:
    """The pipeline's result carries the verified rows (extra columns allowed)."""
    return result.status == "answered" and rows_match(result.rows, v.rows, ordered, lenient=True)


def template_for(c: Candidate, v: Verified, spec) -> PlanTemplate:
    bindings = [Binding(a.text, a.value, a.label, a.prop) for a in c.anchors]
    return make_template(c.question, v.cypher, v.params, bindings=bindings, keys=spec.primary_keys,
                         display=spec.display)


def round_trip(c: Candidate, v: Verified, d, mentions) -> PlanTemplate | None:
    """The template of the verified plan when it is parameterized (every anchor a slot) and filling it
    from the question, the way the pipeline would, gives back the verified rows; else None."""
    from kgqa.cache.plan_cache import domain_linker, domain_lookup

    try:
        tpl = template_for(c, v, d.view.spec)
    except Exception:  # noqa: BLE001 - no template, no reuse
        return None
    if sum(s.kind in ("entity", "category") for s in tpl.slots) < len(c.anchors):
        return None
    spans = [Span(m.text, m.label) for m in mentions if getattr(m, "label", None)]
    f = fill(tpl, c.question, domain_linker(d, mentions), lookup=domain_lookup(d), spans=spans)
    if f is None:
        return None
    try:
        res = d.graph.query(f.cypher, f.params)
    except QueryError:
        return None
    rows = [render_row(r, d.view.spec) for r in res.rows]
    return tpl if rows_match(rows, v.rows, c.spec.ordered, lenient=False) else None
