"""A capable LLM writes Cypher (CacheRAG's backend adapter, §4.1 stage 2), and its plan competes with the
compiled one on execution evidence.

Off by default. With ``KGQA_LLM_BACKEND=openai`` and ``KGQA_LLM_WRITES_CYPHER=true``, ``Pipeline._answer`` calls
:func:`compete` after the compile step whenever no cached template was reused. The pieces, each usable alone:

* :func:`build_messages` — the prompt, instructions apart from inputs (DSPy-style): the system message holds
  the instructions and the inputs (the graph schema, ``GraphSchema.render``; the local schema of each entity
  the question names, ``local_schema``; the values the linker grounded), the plan cache's MMR exemplars follow
  as question -> verified Cypher turns (CacheRAG's k-shot prompt), then the question; the output is one query.
* :func:`extract_cypher` — the query from the model's reply (a fenced block, else the text from the first
  clause keyword). It filters nothing: a write comes out as written, for the guard to refuse.
* :func:`run_candidate` — read-only guard (``kg/safety.check_read_only``), EXPLAIN-repair
  (``planner/repair.validate_and_repair``), execution (``Graph.query``: the guard again, the query timeout and
  the row cap), rows rendered and ordered as the pipeline renders them.
* :func:`choose` — the decision, from :func:`faults` and ``kg/compare.rows_match`` only.

A candidate's **faults** (execution evidence against it): refused by the guard; fails EXPLAIN after repair;
errors or times out; no rows, or only nulls; every value returned is an entity the question named; a count
where the question asks for a list, or no number where it asks how many; a number of the question left
unused, or a ``LIMIT`` the question does not state; and, for the LLM plan only, an entity the question names
(the compiled plan's anchors, else every linked mention) that the query never mentions. The compiled plan
also carries the words its frame leaves unexplained (``Compiler.unexplained``).

**Decision rule.**

1. Both plans exist, both execute, and their rows agree (``rows_match`` either way round, lenient columns):
   the compiled plan answers.
2. Both exist and do not agree: the one without faults answers when exactly one has none; when neither has
   any, the question is declined ("I don't know", both row counts in ``Result.error``); when both have
   faults, the compiled plan stands, as today.
3. Only the compiled plan (the call failed, the reply held no query): the compiled plan, as today.
4. Only the LLM plan: it answers only with no fault at all — it passed the guard and repair, executed, and
   returned non-null rows that use every entity and number the question states; otherwise nothing is
   answered (today's "I don't know").

Every model call goes through the caller's ``complete`` (the pipeline counts it and the backend's timeout
bounds it); every query runs under the graph's timeout and row cap. The attempts of the written plan go to
``Result.attempts`` with origin ``llm``, the decision to ``Result.cache["cypher_writer"]``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kgqa.kg.compare import rows_match
from kgqa.kg.cypher import ident
from kgqa.kg.db import Graph, QueryError
from kgqa.kg.safety import UnsafeQueryError, check_read_only
from kgqa.kg.schema import GraphSchema, local_schema, render_row
from kgqa.planner.repair import validate_and_repair
from kgqa.planner.schema_view import SchemaView
from kgqa.types import Attempt

MAX_TOKENS = 256  # one query; a longer reply is cut here
MAX_LOCAL = 2  # entities whose local schema goes into the prompt
MAX_EXEMPLARS = 5
MAX_REPLY_CHARS = 600  # of the raw reply kept in Result.cache["cypher_writer"]

INSTRUCTIONS = (
    "You translate a question into one read-only Cypher query for the Kuzu graph database.\n"
    "- Use only the node labels, relationship types (in the direction shown) and properties of the schema.\n"
    "- Match the entities the question names by the exact values given below.\n"
    "- Return properties (names, titles, values), not whole nodes; return a count only when the question "
    "asks how many.\n"
    "- Never change the graph: no CREATE, MERGE, SET, DELETE, REMOVE, DROP, COPY or LOAD.\n"
    "Reply with the query alone in a ```cypher block."
)

Action = Literal["keep", "llm", "decline"]


# -- typed objects -------------------------------------------------------------------------------------------
@dataclass
class Candidate:
    """One plan and what happened to it: guard, EXPLAIN-repair, execution."""

    origin: str  # "compiled" or "llm"
    cypher: str  # as compiled or as written
    params: dict[str, Any] = field(default_factory=dict)
    final: str | None = None  # after repair
    ok: bool = False  # passed the guard and EXPLAIN (after repair)
    error: str | None = None  # why it did not run to rows
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] | None = None  # None: never executed
    attempts: list[tuple[str, str | None]] = field(default_factory=list)  # (cypher, EXPLAIN error)
    notes: list[str] = field(default_factory=list)  # faults known from elsewhere (unexplained words)

    @property
    def executed(self) -> bool:
        return self.ok and self.error is None and self.rows is not None

    @property
    def ordered(self) -> bool:
        return bool(_ORDER_BY.search(self.final or self.cypher))


@dataclass
class Decision:
    """Which plan answers: ``keep`` the pipeline's own plan (compiled, or none), the ``llm`` plan, or
    ``decline``; ``reason`` says why in one line."""

    action: Action
    reason: str
    compiled: Candidate | None = None
    written: Candidate | None = None
    faults: dict[str, list[str]] = field(default_factory=dict)  # origin -> faults
    reply: str | None = None  # the model's raw reply

    def to_dict(self) -> dict[str, Any]:
        w = self.written
        return {"action": self.action, "reason": self.reason, "faults": self.faults,
                "llm_cypher": (w.final or w.cypher) if w else None,
                "reply": self.reply[:MAX_REPLY_CHARS] if self.reply is not None else None}


# -- prompt --------------------------------------------------------------------------------------------------
def build_messages(question: str, schema: str, *, local: Sequence[str] = (), values: Sequence[str] = (),
                   exemplars: Iterable[tuple[str, str]] = ()) -> list[dict[str, str]]:
    """Chat messages asking for one Cypher query: instructions and inputs in the system message, each
    exemplar (question, verified Cypher) as a user/assistant turn, then the question."""
    parts = [INSTRUCTIONS, "", "Schema:", schema.strip()]
    if local:
        parts += ["", "Entities the question names (their properties and relationships):", *local]
    if values:
        parts += ["", "Values the question names:", *(f"- {v}" for v in values)]
    messages = [{"role": "system", "content": "\n".join(parts)}]
    for q, cypher in list(exemplars)[:MAX_EXEMPLARS]:
        messages += [{"role": "user", "content": f"Question: {q}"},
                     {"role": "assistant", "content": f"```cypher\n{cypher.strip()}\n```"}]
    messages.append({"role": "user", "content": f"Question: {question}"})
    return messages


_FENCE = re.compile(r"```[ \t]*(?:cypher|sql)?[ \t]*\r?\n?(.*?)(?:```|\Z)", re.S | re.I)
_CLAUSE = re.compile(r"^[ \t]*(?:(?:cypher|query)[ \t]*:[ \t]*)?((?:OPTIONAL[ \t]+MATCH|MATCH|WITH|UNWIND|CALL|"
                     r"RETURN|CREATE|MERGE)\b)", re.I | re.M)
_INLINE = re.compile(r"\b(?:OPTIONAL\s+)?MATCH\s*\(", re.I)


def extract_cypher(text: str | None) -> str | None:
    """The Cypher query in a model's reply, or None. A fenced block wins; else the text from the first line
    opening with a clause keyword (or the first ``MATCH (``) up to a blank line. Trailing ``;`` dropped."""
    if not text or not text.strip():
        return None
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    m = _CLAUSE.search(body)
    start = m.start(1) if m else None
    if start is None:
        inline = _INLINE.search(body)
        if inline is None:
            return None
        start = inline.start()
    lines = []
    for line in body[start:].strip().splitlines():
        if not line.strip() and not fenced:
            break
        lines.append(line.rstrip())
    query = "\n".join(lines).strip().rstrip(";").strip()
    return query or None


# -- one candidate through guard, repair, execution ------------------------------------------------------
def run_candidate(origin: str, cypher: str, params: dict | None, graph: Graph, view: SchemaView, *,
                  rounds: int = 3) -> Candidate:
    """The plan checked by the read-only guard, EXPLAIN-repaired, and executed; never raises for a bad plan."""
    c = Candidate(origin, cypher, dict(params or {}))
    try:
        check_read_only(cypher)
    except UnsafeQueryError as err:
        c.attempts = [(cypher, f"Unsafe query: {err}")]
        c.error = f"refused by the read-only guard: {err}"
        return c
    repaired = validate_and_repair(graph, view, cypher, c.params, rounds)
    c.attempts, c.final = list(repaired.attempts), repaired.cypher
    if not repaired.ok:
        c.error = f"fails EXPLAIN after repair: {repaired.attempts[-1][1]}"
        return c
    c.ok = True
    try:
        res = graph.query(repaired.cypher, c.params)
    except (UnsafeQueryError, QueryError) as err:  # QueryTimeout is a QueryError
        c.error = f"execution failed: {err}"
        return c
    c.columns = list(res.columns)
    rows = [render_row(row, view.spec) for row in res.rows]
    if not c.ordered:  # as the pipeline does: hash order varies between runs
        rows.sort(key=lambda row: [(v is None, str(v)) for v in row])
    c.rows = rows
    return c


# -- evidence and the decision ------------------------------------------------------------------------------
_ORDER_BY = re.compile(r"\bORDER\s+BY\b", re.I)
_COUNT_ASKED = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b|\bhow\s+often\b", re.I)
_COUNT_RETURNED = re.compile(r"\bcount\s*\(", re.I)
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _fold(v: Any) -> str:
    return " ".join(str(v).split()).casefold()


def question_numbers(question: str) -> list[str]:
    """Numbers written in digits in the question."""
    return _NUMBER.findall(question)


def faults(c: Candidate, question: str, *, named: Sequence[Any] = (), anchors: Sequence[Any] = ()) -> list[str]:
    """Execution evidence against one candidate (see the module docstring). ``named``: the values of the
    entities the question names (for "returns the named entity"); ``anchors``: values the query must mention."""
    out = list(c.notes)
    if not c.executed:
        out.append(c.error or "did not execute")
        return out
    query = c.final or c.cypher
    haystack = _fold(query + " " + " ".join(str(v) for v in c.params.values()))
    rows = c.rows or []
    if not rows or all(all(v is None for v in r) for r in rows):
        out.append("returns no rows")
    else:
        names = {_fold(v) for v in named if v is not None}
        cells = [v for r in rows for v in r if v is not None]
        if names and cells and all(_fold(v) in names for v in cells):
            out.append("returns only the entity the question names")
        counted = _COUNT_ASKED.search(question)
        if not counted and _COUNT_RETURNED.search(query) and all(_is_number(v) for v in cells):
            out.append("returns a count where the question asks for a list")
        if counted and not any(_is_number(v) or isinstance(v, list) for v in cells):
            out.append("returns no number where the question asks how many")
    values = [v for v in c.params.values() if _is_number(v)]
    for raw in question_numbers(question):
        text = raw.replace(",", "")
        if re.search(rf"(?<![\d.]){re.escape(text)}(?!\d)", haystack):
            continue
        if any(abs(float(text) - v) < 1e-9 for v in values):
            continue
        out.append(f"leaves {raw!r} of the question unused")
    stated = {float(n.replace(",", "")) for n in question_numbers(question)}
    stated |= {float(v) for w, v in _NUMBER_WORDS.items() if re.search(rf"\b{w}\b", question, re.I)}
    for k in _LIMIT.findall(query):
        if int(k) > 1 and float(k) not in stated:
            out.append(f"adds a LIMIT {k} the question does not state")
    for a in anchors:
        if _fold(a) not in haystack:
            out.append(f"ignores {str(a)!r}, named in the question")
    return out


def _agree(a: Candidate, b: Candidate) -> bool:
    if not (a.executed and b.executed):
        return False
    ordered = a.ordered and b.ordered
    return rows_match(a.rows, b.rows, ordered) or rows_match(b.rows, a.rows, ordered)


def _size(c: Candidate) -> str:
    return f"{len(c.rows)} rows" if c.rows is not None else "no result"


def choose(compiled: Candidate | None, written: Candidate | None, question: str, *, named: Sequence[Any] = (),
           anchors: Sequence[Any] = ()) -> Decision:
    """The decision rule of the module docstring, on candidates already run."""
    cf = faults(compiled, question, named=named) if compiled is not None else None
    wf = faults(written, question, named=named, anchors=anchors) if written is not None else None
    found = {k: v for k, v in (("compiled", cf), ("llm", wf)) if v is not None}

    def decide(action: Action, reason: str) -> Decision:
        return Decision(action, reason, compiled, written, found)

    if written is None:
        return decide("keep", "no LLM-written plan")
    if compiled is None:
        if wf:
            return decide("keep", f"the LLM-written plan alone is not trusted: it {wf[0]}")
        return decide("llm", f"the LLM-written plan alone passed the guard and repair and returned {_size(written)}")
    if _agree(compiled, written):
        return decide("keep", f"the compiled and LLM-written plans agree ({_size(compiled)})")
    if wf and not cf:
        return decide("keep", f"the plans disagree and the LLM-written plan {wf[0]}")
    if cf and not wf:
        return decide("llm", f"the plans disagree and the compiled plan {cf[0]}")
    if not cf and not wf:
        return decide("decline", f"the compiled plan ({_size(compiled)}) and the LLM-written plan "
                                 f"({_size(written)}) disagree and nothing tells which is right")
    return decide("keep", f"both plans have faults (the LLM-written plan {wf[0]}); the compiled plan stands")


# -- the pipeline's entry point ----------------------------------------------------------------------------
_SCHEMAS: dict[tuple[str, str], GraphSchema] = {}
_SCHEMAS_LOCK = threading.Lock()


def graph_schema(graph: Graph) -> GraphSchema:
    """The graph's schema, read once per graph version."""
    key = (str(graph.dir), graph.version)
    with _SCHEMAS_LOCK:
        if key not in _SCHEMAS:
            _SCHEMAS[key] = GraphSchema.from_graph(graph, samples=0)
        return _SCHEMAS[key]


def local_schemas(graph: Graph, view: SchemaView, mentions: Sequence[Any], schema: GraphSchema) -> list[str]:
    """Rendered local schemas of the entities the mentions name (by key or display property)."""
    out: list[str] = []
    seen: set[tuple[str, Any]] = set()
    for m in mentions:
        label = getattr(m, "label", "")
        if not label or label not in schema.nodes or len(out) >= MAX_LOCAL:
            continue
        key_prop = view.key(label)
        if m.prop not in (key_prop, view.display(label)):
            continue  # a category value names many nodes, not one entity
        try:
            key = m.value
            if m.prop != key_prop:
                rows = graph.query(f"MATCH (n:{ident(label)}) WHERE n.{ident(m.prop)} = $v RETURN n.{ident(key_prop)} LIMIT 1",
                                   {"v": m.value}).rows
                if not rows:
                    continue
                key = rows[0][0]
            if (label, key) in seen:
                continue
            seen.add((label, key))
            out.append(local_schema(graph, label, key, schema=schema, spec=view.spec).render())
        except (KeyError, QueryError):
            continue
    return out


def compete(question: str, d: Any, mentions: Sequence[Any], compiled: Any,
            complete: Callable[[list[dict[str, str]]], str], shots: Sequence[tuple[str, str]], r: Any, *,
            rounds: int = 3) -> Decision:
    """Ask the model for a plan, run it and the compiled one, and decide (rule in the module docstring).
    ``d``: the pipeline's domain (graph, view, compiler); ``compiled``: its Compiled plan or None;
    ``complete(messages)``: one counted model call returning the reply text. Records the written plan's
    attempts (origin ``llm``) and the decision in ``r``."""
    graph, view = d.graph, d.view
    first = None
    if compiled is not None:
        first = run_candidate("compiled", compiled.cypher, compiled.params, graph, view, rounds=rounds)
        unexplained = d.compiler.unexplained(compiled.frame) if compiled.frame is not None else []
        first.notes = [f"does not account for {w!r} in the question" for w in unexplained]
    linked = [m for m in mentions if getattr(m, "label", "")]
    anchors = [m.value for m in (compiled.frame.anchors if compiled is not None and compiled.frame else linked)]
    named = [m.value for m in linked]
    reply, written = None, None
    try:
        schema = graph_schema(graph)
        messages = build_messages(question, schema.render(samples=False),
                                  local=local_schemas(graph, view, linked, schema),
                                  values=[f"{m.label}.{m.prop} = {m.value!r}" for m in linked], exemplars=shots)
        reply = complete(messages)
    except Exception as err:  # noqa: BLE001 - no model, no written plan: the compiled plan stands
        decision = choose(first, None, question, named=named, anchors=anchors)
        decision.reason = f"the LLM call failed ({type(err).__name__}: {str(err)[:120]})"
    else:
        cypher = extract_cypher(reply)
        if cypher is not None:
            written = run_candidate("llm", cypher, {}, graph, view, rounds=rounds)
        decision = choose(first, written, question, named=named, anchors=anchors)
        if cypher is None:
            decision.reason = "the LLM's reply held no Cypher query"
    decision.reply = reply
    if written is not None:
        for q, err in written.attempts:
            r.attempts.append(Attempt(q, "llm", err).__dict__)
        r.attempts[-1]["rows"] = len(written.rows) if written.rows is not None else None
    r.cache["cypher_writer"] = decision.to_dict()
    return decision
