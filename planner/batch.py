"""In-batch answering with subgraph-level prefix reuse (SubGCache, ``../shared/papers/000_*``).

``kgqa ask --batch FILE.jsonl`` and ``POST /ask/batch`` come here (:func:`answer_batch`):

1. **Retrieval per question**, as for a single question (:meth:`Pipeline.ask`, answer and plan caches
   included): each result carries its rows and, when expanded, a subgraph.
2. **Summarization, batched.** Every answered question with a short row set is a candidate for an LLM
   phrasing of its answer. Its retrieved subgraph (rows as nodes, plus the expansion's nodes and edges,
   capped) is embedded as the mean of the MiniLM embeddings of its node/edge texts after one
   mean-aggregation message-passing step; the embeddings are clustered hierarchically
   (scikit-learn ``AgglomerativeClustering``, cosine, average linkage; ``Settings.batch_clusters``
   clusters, or the dendrogram cut at ``Settings.batch_distance``).
3. **Representative subgraph** of a cluster = the union of its members' nodes and edges; its rendered
   facts form one shared prompt prefix (system turn), the question comes last (user turn). A cluster
   whose union does not fit the context budget is split, in member order, into groups that do.
4. **Prefix reuse.** Embedded llama.cpp: the prefix is evaluated once and its KV state saved; each
   question of the group evaluates only its own tokens after it, continuing in place when the previous
   question left the prefix in the KV cache (llama.cpp drops the cells past it), else from the restored
   state; the state is released before the next group (:class:`kgqa.cache.prefix.PrefixStore`).
   OpenAI-compatible servers: the group's requests go back to back with a byte-identical prefix, so
   vLLM's automatic prefix caching reuses it.
5. **Truthfulness.** On the embedded model a grammar lets the LLM write only a comma-separated list
   of values of the question's own evidence (or "I don't know"), in clusters as alone: the shared prefix
   changes what the model attends to, not what it may answer; which values answer is its choice. The LLM's phrasing replaces the
   deterministic answer (:mod:`kgqa.planner.summarizer`) only when :func:`kgqa.planner.summarizer.faithful` finds nothing in it beyond the question's *own*
   evidence and it states every value of that evidence (values the question itself names excepted);
   otherwise the deterministic answer stays.
   The batch path therefore never answers with a value its own rows do not hold.

With one question per cluster this is exactly the per-question LLM summarization
(:func:`summarize_each`): same prompts, same token split, same answers.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.jsonl import JsonlError, numbered_jsonl
from kgqa.planner import summarizer
from kgqa.types import InputError, Result, Subgraph

SYSTEM = ("Reply with the answer only: the values from the facts below that answer the question, "
          "separated by commas. If no fact answers it, reply: I don't know.\n\nFacts:\n")
MAX_ROWS = 10  # questions with more rows keep the deterministic list (a short phrasing cannot state them all)
MAX_NODES = 12  # expansion nodes and edges kept per question's evidence
MAX_EDGES = 12
MAX_TEXT = 160  # characters per fact
MAX_TOKENS = 48  # generated tokens per phrasing
QUESTION_RESERVE = 96  # context kept free for the question turn


# -- batch files ---------------------------------------------------------------------------------------

def read_batch(path: str | Path) -> list[dict]:
    """Questions of a JSONL batch file: each line a JSON string or an object with ``question`` (and
    optionally ``domain``, ``id``); blank lines are skipped. A bad line raises
    :class:`kgqa.jsonl.JsonlError` (a ValueError) naming the file and line."""
    out: list[dict] = []
    for n, item in numbered_jsonl(path):
        if isinstance(item, str):
            item = {"question": item}
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise JsonlError(path, n, "expected a string or an object with a 'question' string")
        out.append({k: item[k] for k in ("question", "domain", "id") if item.get(k) is not None})
    return out


# -- a question's retrieved subgraph --------------------------------------------------------------------

def _column(name: str) -> str:
    return name.split(".", 1)[1] if re.match(r"^\w+\.\w", name) else name


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def row_text(columns: list[str], row: list[Any]) -> str:
    """One row as a fact: ``column: value; column: value``."""
    cols = [_column(c) for c in columns] if len(columns) == len(row) else [f"value {i + 1}" for i in range(len(row))]
    return _short("; ".join(f"{c}: {summarizer._fmt(v)}" for c, v in zip(cols, row) if v is not None))


def node_text(nid: str, props: dict[str, Any]) -> str:
    shown = [f"{k}: {summarizer._fmt(v)}" for k, v in props.items()
             if not str(k).startswith("_") and v not in (None, "", [])][:4]
    return _short(nid.replace(":", " ", 1) + (f" ({'; '.join(shown)})" if shown else ""))


def edge_text(edge: dict[str, Any]) -> str:
    if edge.get("_text"):
        return edge["_text"]
    src, dst = (str(edge[k]).replace(":", " ", 1) for k in ("src", "dst"))
    return _short(f"{src} {str(edge['rel']).lower().replace('_', ' ')} {dst}")


def evidence_subgraph(result: Result, *, max_rows: int = MAX_ROWS, max_nodes: int = MAX_NODES,
                      max_edges: int = MAX_EDGES) -> Subgraph:
    """The question's retrieved subgraph: each row a ``Row`` node, plus the expansion's nodes and edges."""
    sub = Subgraph()
    for row in result.rows[:max_rows]:
        text = row_text(result.columns, row)
        if text:
            sub.add_node("Row", text, {"_text": text})
    extra = result.subgraph or {}
    for nid, props in list((extra.get("nodes") or {}).items())[:max_nodes]:
        sub.nodes.setdefault(nid, {**props, "_text": node_text(nid, props)})
    for e in (extra.get("edges") or [])[:max_edges]:
        sub.add_edge(e["src"], e["rel"], e["dst"], e.get("props") or {})
    return sub


def subgraph_texts(sub: Subgraph) -> list[str]:
    """The facts of a subgraph, nodes then edges, in insertion order."""
    return [p.get("_text") or node_text(nid, p) for nid, p in sub.nodes.items()] + [edge_text(e) for e in sub.edges]


def representative(subs: list[Subgraph]) -> Subgraph:
    """The union of the subgraphs' nodes and edges (first occurrence wins, order kept)."""
    out = Subgraph()
    for s in subs:
        out.merge(s)
    return out


# -- embedding and clustering --------------------------------------------------------------------------

def embed_subgraphs(subs: list[Subgraph], *, message_passing: bool = True) -> np.ndarray:
    """(n, 384) L2-normalized subgraph embeddings: mean of the node and edge text embeddings, after
    one mean-aggregation step over the edges (a node's vector becomes the mean of itself and its
    neighbours) when ``message_passing``."""
    from kgqa.kg.embed import DIM, embed

    texts, spans = [], []
    for s in subs:
        t = subgraph_texts(s)
        spans.append((len(texts), len(s.nodes), len(t)))
        texts.extend(t)
    vecs = embed(texts) if texts else np.zeros((0, DIM), dtype=np.float32)
    out = np.zeros((len(subs), DIM), dtype=np.float32)
    for i, (s, (start, n_nodes, n_all)) in enumerate(zip(subs, spans)):
        if n_all == 0:
            continue
        v = vecs[start:start + n_all].copy()
        if message_passing and s.edges:
            ids = {nid: j for j, nid in enumerate(s.nodes)}
            agg, deg = v[:n_nodes].copy(), np.ones(n_nodes, dtype=np.float32)
            for e in s.edges:
                a, b = ids.get(e["src"]), ids.get(e["dst"])
                if a is not None and b is not None:
                    agg[a] += vecs[start + b]
                    agg[b] += vecs[start + a]
                    deg[a] += 1
                    deg[b] += 1
            v[:n_nodes] = agg / deg[:, None]
        m = v.mean(axis=0)
        norm = float(np.linalg.norm(m))
        out[i] = m / norm if norm > 0 else m
    return out


def cluster_labels(emb: np.ndarray, *, n_clusters: int | None = None, distance: float = 0.35) -> list[int]:
    """Hierarchical clustering of the rows of ``emb`` (cosine, average linkage): ``n_clusters`` clusters,
    or (None/0) the dendrogram cut at cosine ``distance``. Labels are numbered in order of first member."""
    n = len(emb)
    if n == 0:
        return []
    if n == 1:
        return [0]
    if n_clusters and n_clusters >= n:
        return list(range(n))
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(n_clusters=n_clusters or None, metric="cosine", linkage="average",
                                    distance_threshold=None if n_clusters else distance)
    raw = model.fit_predict(np.asarray(emb, dtype=np.float64))
    order: dict[int, int] = {}
    return [order.setdefault(int(x), len(order)) for x in raw]


# -- prompts and the acceptance rule -------------------------------------------------------------------

def system_prompt(facts: list[str]) -> str:
    return SYSTEM + "\n".join(f"- {f}" for f in facts)


def messages_for(facts: list[str], question: str) -> list[dict[str, str]]:
    """The prompt: the shared prefix (instructions + facts) as the system turn, the question last."""
    return [{"role": "system", "content": system_prompt(facts)}, {"role": "user", "content": question}]


def values_grammar(values: list[str]) -> str:
    """GBNF: a comma-separated list of the given values, or "I don't know" (the embedded model may only
    copy values of the question's evidence; which ones answer the question is its choice)."""
    alts = " | ".join(json.dumps(v, ensure_ascii=False) for v in dict.fromkeys(values))
    return f'root ::= item (", " item)* | "I don\'t know"\nitem ::= {alts}\n'


def answer_values(result: Result) -> list[str]:
    """The distinct values of the rows, as the deterministic answer writes them."""
    seen: dict[str, None] = {}
    for row in result.rows:
        for v in row:
            if v is None or v == "" or isinstance(v, (dict, list)):
                continue
            seen.setdefault(summarizer._fmt(v), None)
    return list(seen)


_DONT_KNOW = re.compile(r"\b(i\s+don'?t\s+know|do\s+not\s+know|cannot|can'?t|no\s+information)\b", re.I)


def _mentions(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.I) is not None


def acceptable(text: str, evidence: str, values: list[str], question: str = "") -> bool:
    """Keep an LLM phrasing only if it is faithful to the question's own evidence and states each of
    its values (those the question itself names excepted: "Cast Away" need not be repeated)."""
    text = text.strip()
    if not text or _DONT_KNOW.search(text) or not summarizer.faithful(text, evidence):
        return False
    return all(_mentions(text, v) for v in values if not _mentions(question, v))


def _dedupe(text: str) -> str:
    """Collapse whitespace and drop repeated list items (a small model loops: "Warsaw, Warsaw, ...")."""
    items = [i.strip(" ,") for i in " ".join(text.split()).split(", ")]
    if len(items) > 1 and any(o != items[-1] and o.startswith(items[-1]) for o in items[:-1]):
        items.pop()  # the repeat that max_tokens cut short
    return ", ".join(dict.fromkeys(i for i in items if i))


# -- the batched summarization -------------------------------------------------------------------------

@dataclass
class Item:
    """One candidate question of the summarization stage."""

    index: int  # position in the batch
    question: str
    subgraph: Subgraph
    evidence: str  # the question's own evidence text (what faithful() checks against)
    values: list[str]
    desc: Any = None  # a description's checkable parts (planner/describe.py): prose, not a list of values
    facts: Any = None  # a description's budgeted compact facts (describe.Facts): its part of a shared prefix

    @property
    def kind(self) -> str:
        """"describe" (a paragraph from the entity's subgraph) or "values" (the rows' values)."""
        return "values" if self.desc is None else "describe"


@dataclass
class Phrase:
    """The LLM phrasing of one question, and what it cost."""

    index: int
    group: int  # prompt-prefix group (a cluster, or part of one that did not fit the context)
    cluster: int
    text: str
    kept: bool
    prefix_ms: float  # prefix evaluation charged to this question (first of its group), else 0
    ttft_ms: float  # restore + own prefill + first token
    wall_ms: float
    prefix_tokens: int
    reused: bool
    error: str | None = None
    prompt_tokens: int = 0  # the whole prompt: prefix + the question's own tokens

    @property
    def evaluated_tokens(self) -> int:
        """Prompt tokens evaluated for this question: its own, plus the prefix if it was evaluated for it."""
        return self.prompt_tokens - (self.prefix_tokens if self.reused else 0)


@dataclass
class BatchReport:
    n_questions: int = 0
    n_candidates: int = 0
    n_clusters: int = 0
    n_groups: int = 0  # prompt prefixes evaluated
    labels: list[int] = field(default_factory=list)
    embed_ms: float = 0.0
    cluster_ms: float = 0.0  # embedding + clustering + representative subgraphs + prompts
    prefill_ms: float = 0.0  # shared-prefix evaluation
    llm_ms: float = 0.0  # per-question generation (restore + suffix + decode)
    total_ms: float = 0.0
    phrases: list[Phrase] = field(default_factory=list)
    prefix: dict = field(default_factory=dict)  # PrefixStore stats (embedded)
    server_prefix: dict | None = None  # the server's prefix-cache counters over the batch (openai)

    @property
    def mean_ttft_ms(self) -> float:
        """Time to first token per question, shared prefix evaluation amortized over its group."""
        n = len(self.phrases)
        return (sum(p.prefix_ms + p.ttft_ms for p in self.phrases) / n) if n else 0.0

    @property
    def mean_pftt_ms(self) -> float:
        """Prefill and first token per question once its prefix is cached (the question's own tokens)."""
        n = len(self.phrases)
        return (sum(p.ttft_ms for p in self.phrases) / n) if n else 0.0

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "phrases"}
        out.update(mean_ttft_ms=self.mean_ttft_ms, mean_pftt_ms=self.mean_pftt_ms,
                   phrases=[p.__dict__ for p in self.phrases])
        return out


def candidates(results: list[Result], *, max_rows: int = MAX_ROWS, describe_chars: int | None = None) -> list[Item]:
    """The answered questions whose rows a short phrasing can state in full, and the descriptions (rewritten
    into prose from their subgraph; ``describe_chars`` bounds each one's compact facts)."""
    from kgqa.planner import describe

    chars = describe.PROMPT_CHARS if describe_chars is None else describe_chars
    out = []
    for i, r in enumerate(results):
        if r.status == "answered" and "describe" in r.operators and r.subgraph:
            facts = describe.select(r.subgraph, chars)
            desc = describe.from_subgraph(r.subgraph, chars, facts)
            if desc.facts:
                sub = Subgraph(dict(facts.nodes), list(facts.edges.values()))  # what the prompt states
                out.append(Item(i, r.question, sub, "\n".join(desc.contexts), desc.values, desc, facts))
            continue
        if r.status != "answered" or not r.rows or len(r.rows) > max_rows:
            continue
        values = answer_values(r)
        if not values:
            continue
        sub = evidence_subgraph(r, max_rows=max_rows)
        if not len(sub):
            continue
        evidence = "\n".join([summarizer.render_rows(r.columns, r.rows), " ".join(r.columns), *subgraph_texts(sub)])
        out.append(Item(i, r.question, sub, evidence, values))
    return out


def _extend(acc, it: Item):
    """The group's representative with ``it`` added (a new object; ``acc`` None starts one): the union
    subgraph for values, for descriptions the union of the members' budgeted compact facts (a shared node or
    edge stated once, in the members' rank order)."""
    if it.facts is not None:
        return it.facts if acc is None else acc.union(it.facts)
    return representative([acc or Subgraph(), it.subgraph])


def group_facts(acc) -> list[str]:
    """The prompt facts of a group's representative (see :func:`_extend`)."""
    return acc.lines() if hasattr(acc, "lines") else subgraph_texts(acc)


def _trim(facts: list[str], fits) -> list[str]:
    """The longest head of ``facts`` that fits (one question's own subgraph may exceed the context)."""
    if fits(facts):
        return facts
    lo, hi = 0, len(facts)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(facts[:mid]) else (lo, mid - 1)
    return facts[:lo]


def _groups(items: list[Item], labels: list[int], fits) -> list[tuple[int, list[Item], list[str]]]:
    """(cluster, members, facts) per prompt group: each cluster's representative subgraph, split in
    member order where its facts would not fit the context budget (a lone member's facts are cut to it)."""
    out = []
    for c in sorted(set(labels)):
        members = [it for it, lab in zip(items, labels) if lab == c]
        current: list[Item] = []
        acc = None
        for it in members:
            trial = _extend(acc, it)
            if current and not fits(group_facts(trial)):
                out.append((c, current, _trim(group_facts(acc), fits)))
                current, acc = [], _extend(None, it)
            else:
                acc = trial
            current.append(it)
        if current:
            out.append((c, current, _trim(group_facts(acc), fits)))
    return out


def _budget(llm, max_tokens: int, prefix_tokens: int = 0) -> int:
    """Tokens a group's shared prefix may take: the context less the answer and the question turn, and at most
    ``prefix_tokens`` (> 0)."""
    n_ctx = getattr(llm, "n_ctx", None) or 4096
    room = max(256, n_ctx - max_tokens - QUESTION_RESERVE)
    return min(room, max(256, prefix_tokens)) if prefix_tokens > 0 else room


def prompt_groups(items: list[Item], llm, *, n_clusters: int | None = None, distance: float = 0.35,
                  message_passing: bool = True, max_tokens: int = MAX_TOKENS, describe_tokens: int | None = None,
                  prefix_tokens: int = 0, report: BatchReport | None = None) -> list[tuple[int, list[Item], list[str]]]:
    """Returns the batch's prompt groups, (cluster, members, shared facts) each: descriptions and value answers
    clustered apart by their subgraphs' embeddings (``n_clusters`` clusters, ``>= len`` one per question; None/0
    cut at cosine ``distance``), each cluster split where its facts would not fit the prefix budget. ``report``
    records the labels, cluster counts and embedding time."""
    from kgqa.planner import describe

    describe_tokens = describe_tokens or describe.MAX_TOKENS
    embedded = hasattr(llm, "eval_prefix")
    groups: list[tuple[int, list[Item], list[str]]] = []
    labels = [0] * len(items)
    embed_ms = 0.0
    for kind in ("values", "describe"):
        idx = [i for i, it in enumerate(items) if it.kind == kind]
        if not idx:
            continue
        part = [items[i] for i in idx]
        if n_clusters and n_clusters >= len(part):
            own = list(range(len(part)))  # one question per cluster: nothing to compare
        else:
            t1 = time.perf_counter()
            emb = embed_subgraphs([it.subgraph for it in part], message_passing=message_passing)
            embed_ms += (time.perf_counter() - t1) * 1000
            own = cluster_labels(emb, n_clusters=n_clusters, distance=distance)
        offset = max(labels) + 1 if groups else 0
        for i, lab in zip(idx, own):
            labels[i] = lab + offset
        budget = _budget(llm, describe_tokens if kind == "describe" else max_tokens, prefix_tokens)
        render = (lambda f: describe.messages(f, "")[0]["content"]) if kind == "describe" else system_prompt

        def fits(facts, render=render, budget=budget):
            text = render(facts)
            return (len(llm.tokenize(text)) if embedded else len(text) // 4) <= budget

        groups += _groups(part, [lab + offset for lab in own], fits)
    if report is not None:
        report.labels, report.n_clusters, report.n_groups = labels, len(set(labels)), len(groups)
        report.embed_ms += embed_ms
    return groups


def item_messages(it: Item, facts: list[str]) -> list[dict[str, str]]:
    """Returns the chat messages of one question in a group sharing ``facts``: the facts as the system turn
    (the shared prefix), the question last."""
    from kgqa.planner import describe

    return describe.messages(facts, it.question) if it.desc is not None else messages_for(facts, it.question)


def summarize_batch(results: list[Result], llm, *, n_clusters: int | None = None, distance: float = 0.35,
                    max_tokens: int = MAX_TOKENS, message_passing: bool = True, apply: bool = True,
                    base_url: str | None = None, max_calls: int = 0, deadline_s: float = 0.0,
                    describe_tokens: int | None = None, descriptions: bool = True,
                    describe_chars: int | None = None, prefix_tokens: int = 0) -> BatchReport:
    """SubGCache over the summarization stage of ``results`` (already retrieved). ``n_clusters``:
    that many clusters (``>= len`` = one per question); None/0: cut at cosine ``distance``. Descriptions
    (prose from an entity's subgraph within ``describe_chars`` of compact facts, ``describe_tokens`` tokens) and value answers (``max_tokens``) are
    clustered apart: their prompts differ (``descriptions`` False: descriptions keep their verbalized text). A
    group's shared prefix takes at most ``prefix_tokens`` (> 0) tokens: a cluster whose union is longer is split. With
    ``apply`` the kept phrasings replace the answers and ``r.cache['batch']`` records what happened.
    ``max_calls`` (> 0) phrases only the first that many candidates and ``deadline_s`` (> 0) stops phrasing
    once that many seconds have passed; the others keep their deterministic answers (``batch.skipped``)."""
    from kgqa.cache.prefix import PrefixStore, read_prefix_metrics, split_prompt
    from kgqa.planner import describe

    describe_tokens = describe_tokens or describe.MAX_TOKENS
    t_start = time.perf_counter()
    rep = BatchReport(n_questions=len(results))
    items = [it for it in candidates(results, describe_chars=describe_chars) if descriptions or it.desc is None]
    rep.n_candidates = len(items)
    if max_calls > 0 and len(items) > max_calls:
        for it in items[max_calls:]:
            results[it.index].cache["batch"] = {"skipped": f"over the batch's {max_calls} LLM calls"}
        items = items[:max_calls]
    if not items:
        rep.total_ms = (time.perf_counter() - t_start) * 1000
        return rep

    t0 = time.perf_counter()
    embedded = hasattr(llm, "eval_prefix")
    groups = prompt_groups(items, llm, n_clusters=n_clusters, distance=distance, message_passing=message_passing,
                           max_tokens=max_tokens, describe_tokens=describe_tokens, prefix_tokens=prefix_tokens,
                           report=rep)
    rep.cluster_ms = (time.perf_counter() - t0) * 1000

    store = PrefixStore(llm, max_states=1) if embedded else None
    before = read_prefix_metrics(base_url) if base_url else None
    for g, (cluster, members, facts) in enumerate(groups):
        for it in members:
            if deadline_s > 0 and time.perf_counter() - t_start > deadline_s:
                results[it.index].cache["batch"] = {"skipped": f"over the batch's {deadline_s:g} s of LLM time"}
                continue
            # the prefix (facts) is the group's; the answer space is the question's own evidence, as in the
            # per-question path: a shared prefix must not let one question answer with another's values
            prose = it.desc is not None  # a paragraph whose names, numbers and dates come from its own subgraph
            grammar = ((describe.prose_grammar(it.values) if prose else values_grammar(it.values))
                       if embedded else None)
            messages = item_messages(it, facts)
            try:
                ph = _phrase(llm, store, messages, describe_tokens if prose else max_tokens,
                             split_prompt if embedded else None, grammar, prose=prose)
            except Exception as err:  # noqa: BLE001 - the deterministic answer stands
                ph = Phrase(it.index, g, cluster, "", False, 0.0, 0.0, 0.0, 0, False, f"{type(err).__name__}: {err}")
            ph.index, ph.group, ph.cluster = it.index, g, cluster
            ph.kept = ph.error is None and (describe.acceptable(ph.text, it.desc) if prose else
                                            acceptable(ph.text, it.evidence, it.values, it.question))
            rep.phrases.append(ph)
        if store is not None:
            store.release()  # SubGCache: free the cluster's KV state before the next one
    rep.prefill_ms = sum(p.prefix_ms for p in rep.phrases)
    rep.llm_ms = sum(p.wall_ms for p in rep.phrases)
    if store is not None:
        rep.prefix = store.stats.to_dict()
    if base_url:
        after = read_prefix_metrics(base_url)
        rep.server_prefix = after.since(before).to_dict() if after is not None else None
    rep.total_ms = (time.perf_counter() - t_start) * 1000
    if apply:
        for ph in rep.phrases:
            r = results[ph.index]
            r.cache["llm_calls"] = r.cache.get("llm_calls", 0) + (0 if ph.error else 1)
            r.cache["batch"] = {"cluster": ph.cluster, "group": ph.group, "prefix_tokens": ph.prefix_tokens,
                                "prefix_reused": ph.reused, "llm_answer": ph.text, "kept": ph.kept,
                                **({"error": ph.error} if ph.error else {})}
            r.timings_ms["summarize_llm"] = round(ph.prefix_ms + ph.wall_ms, 2)
            if ph.kept:
                r.answer = ph.text.strip()
    return rep


def _phrase(llm, store, messages, max_tokens: int, split, grammar: str | None = None, *,
            prose: bool = False) -> Phrase:
    """One question's phrasing: from the store's prefix state (embedded) or a plain request. A value list is
    deduplicated; prose only has its whitespace collapsed."""
    stop = ["\n\n"]
    clean = (lambda t: " ".join(t.split())) if prose else _dedupe
    if store is not None:
        prefix, suffix = split(llm, messages)
        if prefix:
            out = store.complete(prefix, suffix, max_tokens=max_tokens, stop=stop, grammar=grammar)
            return Phrase(0, 0, 0, clean(out.text), False, out.prefix_ms, out.ttft_ms, out.wall_ms,
                          out.prefix_tokens, out.reused, prompt_tokens=out.completion.prompt_tokens)
    t0 = time.perf_counter()
    out = llm.complete(messages, max_tokens=max_tokens, stop=stop, grammar=grammar)
    wall = (time.perf_counter() - t0) * 1000
    return Phrase(0, 0, 0, clean(out.text), False, 0.0, out.ttft_within(wall), wall, out.cached_tokens,
                  out.cached_tokens > 0, prompt_tokens=out.prompt_tokens)


def summarize_each(results: list[Result], llm, **kwargs) -> BatchReport:
    """The per-question LLM summarization (no sharing): one cluster per question."""
    return summarize_batch(results, llm, n_clusters=max(len(results), 1), **kwargs)


# -- the batch entry point -----------------------------------------------------------------------------

def retrieve(pipe, questions: list[dict | str]) -> list[Result]:
    """Per-question retrieval (and deterministic answers) through ``pipe.ask``, caches included."""
    out = []
    for q in questions:
        text, dom = (q, None) if isinstance(q, str) else (q.get("question"), q.get("domain"))
        try:
            out.append(pipe.ask(text, dom))
        except InputError as err:
            out.append(Result(question=str(text), domain=dom, status="error", error=str(err), answer=str(err)))
    return out


def answer_batch(pipe, questions: list[dict | str], *, llm=None, n_clusters: int | None = None,
                 distance: float | None = None, max_tokens: int = MAX_TOKENS) -> list[Result]:
    """Answer a batch: retrieval per question, then SubGCache summarization (see the module docstring).
    Without a usable LLM the deterministic answers stand."""
    results = retrieve(pipe, questions)
    s = pipe.settings
    if not candidates(results):
        return results
    try:
        model = llm if llm is not None else pipe.llm
        summarize_batch(results, model, n_clusters=n_clusters if n_clusters is not None else s.batch_clusters,
                        distance=s.batch_distance if distance is None else distance, max_tokens=max_tokens,
                        base_url=s.llm_base_url if s.llm_backend == "openai" else None,
                        max_calls=s.batch_llm_calls, deadline_s=s.batch_llm_s,
                        descriptions=s.describe_rewrite != "off", describe_chars=s.describe_prompt_chars,
                        prefix_tokens=s.batch_prefix_tokens)
    except Exception as err:  # noqa: BLE001 - phrasing is optional; the answers are already there
        for r in results:
            r.cache["batch"] = {"error": f"{type(err).__name__}: {err}"}
    return results
