"""The plan cache (CacheRAG §4.2): :class:`PlanCache`, verified plans retrieved with MMR and reused as templates.

The store itself (SQLite file, Domain -> Aspect index, demotion, bounded LRU) is :class:`kgqa.cache.plan_file.PlanFile`;
this module adds retrieval and the pipeline's hooks (learn, template reuse).

Similarity. ``sim="bm25"`` (the paper's default) scores the bucket with BM25 (rank-bm25's Okapi
variant, tokenized lower-cased questions without stop words). Raw BM25 is unbounded, so relevance is
normalized per query to [0, 1] by dividing by the best score in the bucket. Candidate-to-candidate
similarity uses the same BM25 weights: ``B[j, k]`` is the score of question ``k`` used as a query
against question ``j``; ``Sim(j, k) = (B[j, k] + B[k, j]) / 2 / sqrt(B[j, j] B[k, k])``, clipped to [0, 1]
(1 for near duplicates, 0 for questions sharing no token). ``sim="embedding"`` uses cosine similarity of
``kg.embed`` vectors, clipped at 0. MMR (Algorithm 2) then runs over the ``pool`` most relevant entries
of the bucket: ``argmax_j λ·Sim(q, Q_j) − (1−λ)·max_{k∈S} Sim(Q_j, Q_k)``.
"""

from __future__ import annotations

import numpy as np

from kgqa.cache.plan_entry import PlanEntry, normalize_question, tokenize
from kgqa.cache.plan_file import ALL, PlanFile
from kgqa.cache.plan_rank import Bucket, embed, mmr, top
from kgqa.kg.cypher import inline_params
from kgqa.text import fold


class PlanCache(PlanFile):
    """Persistent, multi-process plan cache with a Domain -> Aspect index and MMR retrieval."""

    # -- retrieval -------------------------------------------------------------------------------------
    def _bucket(self, domain: str, aspect: str | None, k: int) -> Bucket | None:
        """``C[d][a]``, relaxed to ``C[d][*]`` when it holds fewer than ``k`` entries (Algorithm 2)."""
        dom = self._buckets.get(domain)
        if not dom:
            return None
        bucket = dom.get(aspect) if aspect not in (None, ALL) else None
        if bucket is None or len(bucket.ids) < k:
            bucket = dom.get(ALL)
        return bucket

    def _relevance(self, bucket: Bucket, question: str, sim: str) -> np.ndarray:
        if sim == "bm25":
            if bucket.dirty:
                bucket.build([self._tokens[i] for i in bucket.ids])
            raw = bucket.weights @ bucket.query_vector(tokenize(question))
            top = raw.max() if raw.size else 0.0
            return raw / top if top > 0 else np.zeros_like(raw)
        if sim == "embedding":
            qv = embed([question])[0]
            return np.clip(self._embeddings(bucket) @ qv, 0.0, 1.0)
        raise ValueError(f"unknown similarity {sim!r} (bm25 or embedding)")

    def _embeddings(self, bucket: Bucket) -> np.ndarray:
        if bucket.emb is None:
            missing = [i for i in bucket.ids if i not in self._vectors]
            if missing:
                for i, v in zip(missing, embed([self._entries[i].question for i in missing])):
                    self._vectors[i] = v
            bucket.emb = np.stack([self._vectors[i] for i in bucket.ids]) if bucket.ids else np.zeros((0, 384))
        return bucket.emb

    def _pairwise(self, bucket: Bucket, idx: np.ndarray, sim: str) -> np.ndarray:
        """Sim(Q_j, Q_k) in [0, 1] among the pool's entries (see the module docstring)."""
        if sim == "embedding":
            e = self._embeddings(bucket)[idx]
            return np.clip(e @ e.T, 0.0, 1.0)
        w, c = bucket.weights[idx], bucket.counts[idx]
        b = (w @ c.T).toarray()  # b[j, k]: question k as the query, question j as the document
        sym = (b + b.T) / 2.0
        diag = np.sqrt(np.clip(np.diag(b), 1e-12, None))
        return np.clip(sym / np.outer(diag, diag), 0.0, 1.0)

    def _scored_bucket(self, question: str, domain: str, aspect: str | None, k: int, sim: str):
        """(bucket, relevance of each entry) for a retrieval, or (None, None) when there is nothing to rank.
        The caller holds the lock."""
        self._sync()
        self.counters["retrievals"] += 1
        bucket = self._bucket(domain, aspect, k)
        if bucket is None or not bucket.ids or k <= 0:
            return None, None
        return bucket, self._relevance(bucket, question, sim)

    def retrieve(self, question: str, domain: str, aspect: str | None = None, k: int = 5, lam: float = 0.5,
                 sim: str = "bm25", min_relevance: float = 0.0) -> list[PlanEntry]:
        """Up to ``k`` relevant and mutually diverse plans for ``question`` (MMR, Algorithm 2).

        Entries with normalized relevance below ``min_relevance`` are not considered (0 keeps all, as in
        the paper; a higher floor gives an empty context on a severe miss).
        """
        with self._lock:
            bucket, rel = self._scored_bucket(question, domain, aspect, k, sim)
            if bucket is None:
                return []
            idx = top(rel, self.pool, min_relevance)
            if idx.size == 0:
                return []
            pair = self._pairwise(bucket, idx, sim)
            chosen = mmr(rel[idx], pair, k, lam)
            out = [self._entries[bucket.ids[idx[c]]] for c in chosen]
            self._touch(out)
            return out

    def top_k_bm25(self, question: str, domain: str, aspect: str | None = None, k: int = 5,
                   sim: str = "bm25") -> list[PlanEntry]:
        """The ``k`` most relevant plans without diversity (the "w/o MMR" ablation)."""
        with self._lock:
            bucket, rel = self._scored_bucket(question, domain, aspect, k, sim)
            if bucket is None:
                return []
            idx = top(rel, k, 0.0)
            out = [self._entries[bucket.ids[i]] for i in idx]
            self._touch(out)
            return out

    # -- pipeline hooks (duck-typed: the planner passes its Domain and Mention objects) --------------------
    def learn(self, question: str, isr, d, cypher: str, params: dict, r, *,
              provenance: str = "online") -> PlanEntry | None:
        """Store a verified plan from the pipeline, with its parameterized template (``provenance``:
        "online" when the pipeline learns it while answering, "user" for a thumbs up). Returns the stored
        entry, or None when the plan is not learned: a string constant of the query (a node name, a category,
        a CONTAINS operand) that no span of the question explains would be applied to every later question
        the template fits, so such a plan is refused (``counters["learn_refusals"]``)."""
        from kgqa.cache.templates import Binding, make_template

        spec = d.view.spec
        bindings = [Binding(c["name"], c["key"], c["label"], c.get("prop")) for c in (r.candidates or [])
                    if c.get("source") == "exact"]
        try:
            template = make_template(question, cypher, params, bindings=bindings, keys=spec.primary_keys,
                                     display=spec.display)
        except Exception:  # noqa: BLE001 - a plan without a template is still a good exemplar
            template = None
        if template is not None and template.unexplained:
            with self._lock:
                self.counters["learn_refusals"] += 1
            return None
        tpl = template.to_dict() if template is not None else None
        isr_d = isr.to_dict() if hasattr(isr, "to_dict") else dict(isr or {})
        return self.add(PlanEntry(question=question, cypher=r.cypher or cypher, domain=d.name,
                                  aspect=isr_d.get("aspect") or "general", isr=isr_d, operators=list(r.operators),
                                  answer=r.answer, kg_version=d.graph.version, template=tpl,
                                  provenance=provenance))

    def reuse(self, question: str, d, isr, mentions, *, candidates: int = 10) -> tuple[str, dict] | None:
        """(cypher, params) of a cached template this question fills exactly, else None.

        Only entries of the same domain, aspect and KG version (and compiler code, when this cache knows
        its ``code_version``) are tried; entity slots fill through the domain's entity index, category slots
        through the schema's exact value index."""
        found = self.reuse_entry(question, d, isr, mentions, candidates=candidates)
        return None if found is None else (found[1].cypher, found[1].params)

    def reuse_entry(self, question: str, d, isr, mentions, *, candidates: int = 10):
        """:meth:`reuse`, returning (entry, :class:`~kgqa.cache.templates.Fill`) or None: the caller learns
        which plan answered (to demote it when its result is contradicted)."""
        tried, found = self._reusable(question, d, isr, mentions, candidates)
        with self._lock:
            if found is None:
                if tried:
                    self.counters["reuse_refusals"] += 1
                return None
            self.counters["reuse_hits"] += 1
            self._touch([found[0]])  # only the plan actually reused counts as used (bounded LRU)
        return found

    def reusable(self, question: str, d, isr, mentions, *, candidates: int = 10):
        """(entry, :class:`~kgqa.cache.templates.Fill`) of the template :meth:`reuse` would fill for this
        question, else None; counts nothing and touches nothing (feedback asks which plan answered)."""
        return self._reusable(question, d, isr, mentions, candidates)[1]

    def _reusable(self, question: str, d, isr, mentions, candidates: int):
        """(whether the aspect bucket exists, (entry, fill) or None)."""
        from kgqa.cache.templates import PlanTemplate, Span, fill

        aspect = getattr(isr, "aspect", None) or "general"
        with self._lock:
            self._sync()
            bucket = self._buckets.get(d.name, {}).get(aspect)
            if bucket is None:
                return False, None
            # the aspect bucket itself, never relaxed to C[d][*]: a small bucket's entries must not be
            # crowded out of the candidates by other aspects' entries that could not be used anyway
            rel = self._relevance(bucket, question, "bm25")
            ranked = [self._entries[bucket.ids[i]] for i in top(rel, candidates, 0.0)]
            blocked = {c for q, dom, c in self._blocked if dom == d.name and q == normalize_question(question)}
        ranked = [e for e in ranked if e.template and e.kg_version == d.graph.version
                  and (not self.code_version or e.code_version == self.code_version)]
        link = domain_linker(d, mentions)
        lookup = domain_lookup(d)
        spans = [Span(m.text, m.label) for m in mentions or [] if getattr(m, "label", None)]
        for e in ranked:
            f = fill(PlanTemplate.from_dict(e.template), question, link, lookup=lookup, spans=spans)
            if f is not None and blocked and " ".join(inline_params(f.cypher, f.params).split()) in blocked:
                continue  # this question's plan was voted down: no template may give it back
            if f is not None:
                return True, (e, f)
        return True, None


def domain_linker(d, mentions):
    """Returns ``link(text, label)`` for filling entity slots: the planner's exact mentions first, then the
    domain's entity index (``d`` is the planner's domain: ``view.spec``, ``index``)."""
    index = getattr(d, "index", None)
    spec = d.view.spec

    def link(text: str, label: str):
        from kgqa.types import EntityCandidate

        for m in mentions or []:  # exact value matches found by the planner's own linker
            if m.label == label and m.text.casefold() == text.casefold():
                key = m.value if m.prop == spec.primary_keys.get(label) else None
                name = m.value if m.prop == spec.display_prop(label) else None
                if key is not None or name is not None:
                    return [EntityCandidate(label, str(key if key is not None else name),
                                            str(name if name is not None else key), float(m.score), m.prop)]
        if index is None:
            return []
        return index.link(text, k=5, labels=[label])

    return link


def domain_lookup(d):
    """Returns ``lookup(label, prop, text)`` for filling category slots: the one value of the schema's exact
    value index that ``text`` names, else None."""
    values = getattr(d.view, "values", {}) or {}

    def lookup(label: str, prop: str, text: str):
        hits = {v for (lb, p, v) in values.get(fold(text), []) if lb == label and p == prop}
        return next(iter(hits)) if len(hits) == 1 else None

    return lookup
