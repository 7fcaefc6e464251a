"""Answers from retrieved vector-memory subgraphs, or "I don't know" (the GLARE fallback's summarizer).

The rule is deterministic and conservative, because a wrong answer costs more than a missing one:

1. questions that need counting, comparison, ordering or a yes/no verdict are not answered from triples;
2. exactly one entity of the question must be a *member* of a retrieved subgraph (its properties and all
   its edges are stored there, so its facts are complete), linked by the pipeline or named in the question;
3. exactly one of that entity's predicates (a property, or a relationship type in one direction) must
   explain every remaining content word of the question, by the schema's own names (camelCase split,
   stemmed), the far end's label, or the domain's words (``DomainSpec.words``); "when" needs a date or
   year value and "where" a place;
4. the answer is rendered only from the triple values (:func:`kgqa.planner.summarizer.render_rows`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kgqa.planner.lexicon import STOP
from kgqa.planner.schema_view import split_camel
from kgqa.planner.summarizer import render_rows
from kgqa.text import fold
from kgqa.types import Subgraph

_NEEDS_REASONING = re.compile(
    r"\b(how many|number of|count|total|sum|average|avg|mean|most|least|more|less|fewer|greater|higher|lower|"
    r"top|highest|lowest|largest|smallest|first|last|earliest|latest|oldest|youngest|before|after|between|"
    r"since|until|during|both|every|each|only|not|never|without|except|same|also|together|than|per|ratio|"
    r"percent|percentage)\b", re.I)
_YES_NO = re.compile(r"^\s*(is|are|was|were|did|does|do|has|have|had|can|could|will|would|should)\b", re.I)
# "someone", "anyone", "something" stay content words: they stand for an unnamed node, i.e. another hop
_STOP = STOP | {"where", "when", "why", "s", "does", "did", "was", "were", "year", "date", "day"}
_PLACE_LABELS = {"city", "country", "continent", "institution", "region", "place", "location", "address"}
_PLACE_PROPS = re.compile(r"city|country|region|address|place|location", re.I)
_IRREGULAR = {"won": "win", "wrote": "write", "written": "write", "bought": "buy", "sold": "sell",
              "made": "make", "led": "lead", "took": "take", "gave": "give", "given": "give"}


def stem(word: str) -> str:
    """A small suffix stripper: directed/director -> direct, supplies/supplier -> suppli, books/book -> book."""
    w = _IRREGULAR.get(word.lower(), word.lower())
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ings", ""), ("ing", ""), ("ers", ""), ("ors", ""),
                         ("ed", ""), ("er", ""), ("or", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: len(w) - len(suffix)] + repl
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    return w


def _stems(text: str) -> set[str]:
    return {stem(t) for t in re.findall(r"[a-z0-9]+", fold(split_camel(text)))} - {stem(s) for s in _STOP}


@dataclass
class Predicate:
    kind: str  # "prop" or "rel"
    name: str  # property name, or relationship type
    direction: str = ""  # "out" (entity is the source) or "in"
    other: str = ""  # far-end label of a relationship
    values: list[Any] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}:{self.direction}"


@dataclass
class MemoryAnswer:
    """What the memory supports: ``answer`` is None for "I don't know"; ``reason`` says why either way."""

    answer: str | None
    reason: str
    entity: str | None = None
    predicate: str | None = None
    values: list[Any] = field(default_factory=list)
    subgraph: dict[str, Any] | None = None


def _words_for(pred: Predicate, label: str, vocab: dict[str, str]) -> set[str]:
    """Stems that name ``pred``: its own name, the far end's label, and vocabulary words that point at it."""
    if pred.kind == "prop":
        own = _stems(pred.name)
        targets = {f"{label}.{pred.name}"}
    else:
        own = _stems(pred.name) | _stems(pred.other)
        targets = {f"rel:{pred.name}", f"rel:{pred.name}>{pred.other}", pred.other}
    return own | {s for word, target in vocab.items() if target in targets for s in _stems(word)}


def _is_date_like(v: Any) -> bool:
    if isinstance(v, int) and not isinstance(v, bool):
        return 1000 <= v <= 2100
    return isinstance(v, str) and bool(re.match(r"^\d{4}(-\d{2}(-\d{2})?)?", v))


def _fits_wh(question: str, pred: Predicate) -> bool:
    q = fold(question)
    if re.match(r"^\s*(when|what year|which year|in what year|in which year)\b", q):
        return pred.kind == "prop" and all(_is_date_like(v) for v in pred.values)
    if re.match(r"^\s*(where|in what (city|country)|in which (city|country))\b", q):
        if pred.kind == "rel":
            return split_camel(pred.other) in _PLACE_LABELS
        return bool(_PLACE_PROPS.search(pred.name))
    return True


def _entities(question: str, nodes: dict[str, dict], mentions) -> list[tuple[str, tuple[int, int]]]:
    """(node id, span in the folded question) of member nodes named in the question; a name inside a longer
    one is dropped, two nodes of the same name are both kept (the caller refuses the ambiguity)."""
    found: dict[str, tuple[int, int]] = {}
    fq = fold(question)
    for m in mentions or []:
        label, prop, value = getattr(m, "label", None), getattr(m, "prop", None), getattr(m, "value", None)
        start = fq.find(fold(getattr(m, "text", "") or "\0"))
        if not label or start < 0:
            continue
        for nid, node in nodes.items():
            if node.get("_label") == label and prop and str(node.get(prop)) == str(value):
                found.setdefault(nid, (start, start + len(fold(m.text))))
    for nid, node in nodes.items():
        name = fold(str(node.get("_name", "")))
        if len(name) < 3 or name.isdigit() and len(name) < 4:
            continue
        hit = re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", fq)
        if hit and nid not in found:
            found[nid] = hit.span()
    spans = sorted(found.items(), key=lambda kv: -(kv[1][1] - kv[1][0]))
    kept: list[tuple[str, tuple[int, int]]] = []
    for nid, (a, b) in spans:
        if not any(a >= ka and b <= kb and (a, b) != (ka, kb) for _, (ka, kb) in kept):  # same name twice: ambiguous
            kept.append((nid, (a, b)))
    return kept


def _predicates(nid: str, node: dict, edges: list[dict], nodes: dict[str, dict]) -> list[Predicate]:
    preds = [Predicate("prop", p, values=[v]) for p, v in node.items()
             if not p.startswith("_") and v not in (None, "", [])]
    by_key: dict[str, Predicate] = {}
    for e in edges:
        for direction, here, there in (("out", "src", "dst"), ("in", "dst", "src")):
            if e[here] != nid:
                continue
            other = nodes.get(e[there], {})
            p = by_key.setdefault(f"{e['rel']}:{direction}:{other.get('_label')}",
                                  Predicate("rel", e["rel"], direction, other.get("_label", "")))
            name = other.get("_name", e[there].split(":", 1)[-1])
            if name not in p.values:
                p.values.append(name)
            p.edges.append(e)
    return preds + list(by_key.values())


def answer_from_memory(question: str, hits, mentions=None, *, words: dict[str, str] | None = None) -> MemoryAnswer:
    """Returns the answer to ``question`` from retrieved :class:`kgqa.kg.vector_memory.Hit` subgraphs, or why there
    is none; ``words`` are the domain's words for its schema names (``DomainSpec.words``)."""
    if _YES_NO.match(question):
        return MemoryAnswer(None, "a yes/no question needs a verdict, not triples")
    if _NEEDS_REASONING.search(question):
        return MemoryAnswer(None, "the question needs counting, comparison or ordering")
    members: dict[str, dict] = {}
    nodes: dict[str, dict] = {}
    edges_of: dict[str, list[dict]] = {}
    for h in hits:
        for nid, node in h.subgraph["nodes"].items():
            nodes.setdefault(nid, node)
        for nid in h.members:
            members[nid] = h.subgraph["nodes"][nid]
            edges_of[nid] = [e for e in h.subgraph["edges"] if nid in (e["src"], e["dst"])]
    found = _entities(question, members, mentions)
    if not found:
        return MemoryAnswer(None, "no entity of the question is in the retrieved subgraphs")
    if len(found) > 1:
        return MemoryAnswer(None, f"{len(found)} entities in the question; one fact cannot relate them")
    nid, (a, b) = found[0]
    fq = fold(question)
    rest = fq[:a] + " " + fq[b:]
    content = _stems(rest)
    if not content:
        return MemoryAnswer(None, "the question names no property or relationship", entity=nid)
    node = members[nid]
    vocab = words or {}
    fits = [p for p in _predicates(nid, node, edges_of[nid], nodes)
            if content <= _words_for(p, node["_label"], vocab) and _fits_wh(question, p)]
    if len(fits) != 1:
        why = "no predicate explains" if not fits else f"{len(fits)} predicates explain"
        return MemoryAnswer(None, f"{why} {sorted(content)}", entity=nid)
    p = fits[0]
    sub = Subgraph()
    sub.nodes[nid] = node
    for e in p.edges:
        for end in (e["src"], e["dst"]):
            sub.nodes.setdefault(end, nodes.get(end, {}))
        sub.add_edge(e["src"], e["rel"], e["dst"], e.get("props"))
    answer = render_rows([p.name], [[v] for v in p.values])
    return MemoryAnswer(answer, f"{p.key} of {nid}", entity=nid, predicate=p.key, values=list(p.values),
                        subgraph=sub.to_dict())
