"""Answering one question on one open graph: plan, settle, repair, execute, dispatch, summarize, learn."""

from __future__ import annotations

import time
from contextlib import contextmanager
from itertools import takewhile
from typing import Any

from kgqa.kg.compare import same_answer, values_equal
from kgqa.kg.cypher import inline_params
from kgqa.kg.db import QueryError, QueryTimeout
from kgqa.kg.schema import render_row
from kgqa.planner import dispatcher, summarizer
from kgqa.planner.cypher_outline import of_cypher
from kgqa.planner.domain import Domain
from kgqa.planner.fallbacks import Fallbacks
from kgqa.planner.isr import parse_isr
from kgqa.planner.linker import link_mentions
from kgqa.planner.outline import Outline
from kgqa.planner.plan import Plan
from kgqa.planner.repair import validate_and_repair
from kgqa.types import Attempt, Result


class Answering(Fallbacks):
    """The steps of answering one question on one graph (:meth:`_answer`), each timed (:meth:`_timed`), with the
    plan-cache hooks they call; mixed into :class:`~kgqa.planner.pipeline.Pipeline`, whose ``settings``,
    ``plan_cache``, ``llm``, ``_tls`` and ``_complete`` they use."""

    def _settle(self, d: Domain, plan) -> tuple[Any, str]:
        """Returns (the reading to answer with, "") among a plan and its ``alternatives`` (readings of one question
        that differ where the schema left a choice open), on the evidence of the graph: the only one that finds
        rows, or any when they all find the same rows; else (None, "did you mean A or B?")."""
        found = []
        for p in [plan, *plan.alternatives]:
            if not validate_and_repair(d.graph, d.view, p.cypher, p.params, 0).ok:
                continue
            columns, rows, error = self._execute(d, p.cypher, p.params, p.outline)
            if rows and error is None:
                found.append((p, rows))
        if not found:
            return plan, ""
        ranked = all(p.outline.ordered for p, _ in found)
        if all(same_answer(rows, found[0][1], ranked) for _, rows in found):
            return found[0][0], ""
        names = [" and ".join(p.choices) or f"`{inline_params(p.cypher, p.params)}`" for p, _ in found[:3]]
        return None, f"did you mean {' or '.join(names)}? The graph answers each differently."

    @staticmethod
    def _execute(d: Domain, cypher: str, params: dict[str, Any], outline: Outline
                 ) -> tuple[list[str], list[list[Any]], str | None]:
        """Returns (columns, rows rendered, error) of one query; rows in a stable order unless it orders."""
        try:
            res = d.graph.query(cypher, params)
        except (QueryTimeout, QueryError) as err:
            return [], [], str(err)
        rendered = [render_row(row, d.view.spec) for row in res.rows]
        columns, rows = summarizer.evidence_items(res.columns, rendered, outline.lists)
        if not outline.ordered:  # hash order varies between runs; answers and caches should not
            rows.sort(key=lambda row: [(v is None, str(v)) for v in row])
        return columns, rows, None

    def _tie_at_cut(self, d: Domain, plan: Plan, columns: list[str],
                    rows: list[list[Any]]) -> tuple[Any, list[list[Any]], bool] | None:
        """Returns (the ranked value of the last row, the rows past the LIMIT that tie with it, whether there may
        be more of them) when the plan ranks by one of its columns and its LIMIT cuts through a tie ("the top 3
        supplier countries": 2 suppliers each in the 3rd to 9th); None otherwise."""
        if plan.outline.cut is None:
            return None
        key, kept = plan.outline.cut
        if len(rows) != kept or key not in columns:
            return None
        i, bound = columns.index(key), self.settings.k_degree
        cypher, params = plan.past_cut(len(rows), bound)
        _, beyond, error = self._execute(d, cypher, params, plan.outline)
        tied = list(takewhile(lambda row: values_equal(row[i], rows[-1][i]), beyond if error is None else []))
        return (rows[-1][i], tied, len(tied) == bound) if tied else None

    @contextmanager
    def _timed(self, timings: dict[str, float], stage: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - t0) * 1000

    def _answer(self, question: str, d: Domain, r: Result, timings: dict):
        """Link → ISR → plan (template reuse or grounded compilation) → EXPLAIN/repair → execute →
        dispatch/expand → summarize, filling ``r``. Every "I don't know" exit returns here, so the caller's
        fallback and answer-cache steps see all of them. Returns the linked mentions and the plan-cache
        learning step when the plan was verified (query ran, dispatcher COMPLETE, rows), else None."""
        domain = d.name
        with self._timed(timings, "link"):
            mentions, candidates = link_mentions(question, d.compiler, d.index)
        with self._timed(timings, "parse_route"):
            isr = parse_isr(question, mentions, domain)
        r.isr, r.candidates = isr.to_dict(), [c.to_dict() for c in candidates[:10]]
        if self.settings.describe and self._describe(question, d, mentions, r, timings):
            return mentions, None  # "Who is X?", "Tell me about X": X's bounded subgraph, not a compiled lookup

        plan: Plan | None = None
        cache_on = self.plan_cache is not None and self.settings.use_plan_cache
        if cache_on and self.settings.param_reuse:
            with self._timed(timings, "cache_retrieval"):
                reuse = self._template_reuse(question, d, isr, mentions)
            if reuse is not None:
                plan = Plan.written(*reuse)
                r.cache["plan_hit"] = True
        hints: dict[str, float] = {}
        picked: list = []  # the plan cache's exemplars for this question
        if plan is None and cache_on:
            with self._timed(timings, "cache_retrieval"):
                picked = self._exemplars(question, d, isr)
                hints = self._exemplar_rels(picked, d)
            r.cache["exemplar_rels"] = sorted(hints)
        compiled, done = None, None
        if plan is None:
            with self._timed(timings, "compile"):
                done = d.compiler.read(question, mentions, hints)
            plans = done.plans
            if plans and plans[0].alternatives:
                with self._timed(timings, "execute"):
                    settled, why = self._settle(d, plans[0])
                if settled is None:
                    r.status, r.answer, r.evidence, r.error = "dont_know", f"I don't know: {why}", "none", why
                    return mentions, None
                plans = [settled]
            if plans:
                compiled = plans[0]
                plan = Plan.compiled(compiled)
        if plan is None and d.index is not None and not done.topic:
            # nothing to compile from the deterministic parse: a short constrained LLM call names the topic
            # entity in the question's words, the index grounds it, and compilation runs once more
            with self._timed(timings, "parse_route"):
                extra = self._llm_entity(question, d, mentions)
            if extra is not None:
                mentions = sorted(mentions + [extra], key=lambda m: m.start)
                with self._timed(timings, "compile"):
                    done = d.compiler.read(question, mentions, hints)
                if done.plans:
                    compiled = done.plans[0]
                    plan = Plan.compiled(compiled)
        origin = "template" if r.cache["plan_hit"] else "compiler"
        s = self.settings
        if s.llm_writes_cypher and s.llm_backend == "openai" and not r.cache["plan_hit"]:
            # a capable model writes Cypher too; the two plans compete on execution evidence
            from kgqa.planner.cypher_writer import compete

            with self._timed(timings, "write_cypher"):
                shots = [(e.question, e.cypher) for e in picked if e.cypher and e.kg_version == d.graph.version]
                pick = compete(question, d, mentions, compiled, self._complete, shots, r, rounds=s.repair_rounds)
            if pick.action == "decline":
                r.status, r.answer, r.evidence, r.error = "dont_know", summarizer.DONT_KNOW, "none", pick.reason
                r.cypher = inline_params(plan.cypher, plan.params) if plan else None
                return mentions, None
            if pick.action == "llm":
                plan, origin = Plan.written(pick.written.final), "llm"
        if plan is None:
            r.status, r.answer, r.evidence = "dont_know", summarizer.DONT_KNOW, "none"
            if done is not None and done.unread:
                r.error = f"the question could not be read: {'; '.join(done.unread)}"
            return mentions, None
        left_out = d.compiler.left_out(question, plan)
        if left_out:
            # a plan that ignores a number the question states ("shared 3 prizes") answers another question
            r.status, r.answer, r.evidence = "dont_know", summarizer.DONT_KNOW, "none"
            r.cypher = inline_params(plan.cypher, plan.params)
            r.error = f"the plan does not account for {', '.join(repr(w) for w in left_out)} in the question"
            return mentions, None
        with self._timed(timings, "repair"):
            repaired = validate_and_repair(d.graph, d.view, plan.cypher, plan.params, self.settings.repair_rounds)
        for q, err in repaired.attempts:
            r.attempts.append(Attempt(q, origin, err).__dict__)
        if not repaired.ok:
            r.status, r.answer, r.cypher = "dont_know", summarizer.DONT_KNOW, repaired.cypher
            r.error = repaired.attempts[-1][1]
            return mentions, None
        plan = plan.rewritten(repaired.cypher)
        r.cypher = inline_params(plan.cypher, plan.params)
        r.cypher_run, r.params = plan.cypher, dict(plan.params)  # what executes below, shown beside r.cypher
        with self._timed(timings, "execute"):
            columns, rows, error = self._execute(d, plan.cypher, plan.params, plan.outline)
            folded = d.compiler.folded(plan.frame) if plan.frame is not None and not rows and error is None else None
            if folded is not None:
                # "a tagline containing the word Love" finds nothing as written: the data's casing differs,
                # so the same words in any case
                again = validate_and_repair(d.graph, d.view, folded.cypher, folded.params, self.settings.repair_rounds)
                if again.ok:
                    retry = Plan.compiled(folded).rewritten(again.cypher)
                    columns2, rows2, error2 = self._execute(d, retry.cypher, retry.params, retry.outline)
                    if rows2 and error2 is None:
                        plan, columns, rows = retry, columns2, rows2
                        r.cypher, r.cypher_run, r.params = inline_params(plan.cypher, plan.params), plan.cypher, dict(plan.params)
        outline = plan.outline
        r.columns = columns
        if outline.unranked and outline.limit and len(rows) > outline.limit:
            # "the top 5 customers from the USA": more match and nothing says which five
            r.status, r.answer, r.evidence, r.rows = "dont_know", summarizer.DONT_KNOW, "none", []
            r.error = (f"the plan does not account for 'top {outline.limit}, with no measure to rank by' in the "
                       f"question: more than {outline.limit} match")
            return mentions, None
        r.rows = rows
        if r.attempts:
            r.attempts[-1]["rows"] = len(rows)
        with self._timed(timings, "dispatch"):
            verdict = dispatcher.judge(outline, rows, error)
        if verdict.status != dispatcher.COMPLETE and not outline.grounded:
            with self._timed(timings, "expansion"):
                sub = self._expand(question, d, mentions)
            if sub is not None and len(sub):
                r.subgraph = sub.to_dict()
                r.operators = [op for op, on in (("depth", self.settings.use_depth),
                                                 ("breadth", self.settings.use_breadth)) if on]
        tie = self._tie_at_cut(d, plan, columns, rows) if rows and error is None else None
        if tie is not None and len(rows) == 1 and not tie[2]:
            # "the publisher with the fewest books", four of them tied: each of them, not one picked by the engine
            rows = r.rows = rows + tie[1]
            tie = None
        with self._timed(timings, "summarize"):
            subject = outline.target.lower() + "s" if outline.target else "results"
            # an empty result is an answer ("none") when the plan is grounded: a compiled plan whose anchors all
            # linked, or a verified template whose slots all filled
            grounded = outline.grounded or r.cache.get("plan_hit", False)
            answer, status = summarizer.summarize(question, r.columns, rows,
                                                  empty_is_answer=grounded and error is None, subject=subject,
                                                  keys=set(d.view.spec.primary_keys.values()),
                                                  parts={p for ps in d.view.spec.key_parts.values() for p in ps},
                                                  outline=outline, names=d.view.display_names())
            if tie is not None and status == "answered":  # "the top 3" that cuts through a tie says so, and who else
                answer = f"{answer} {summarizer.tie_note(tie[0], [row[0] for row in tie[1]], tie[2], cut=len(rows))}"
            r.answer, r.status = answer, status
            r.evidence = "rows" if rows else ("subgraph" if r.subgraph else "none")
            if error:
                r.error = error
        if rows and cache_on and verdict.status == dispatcher.COMPLETE and not outline.unranked:
            # an unranked "top 5" plan is right only after its rows are counted: never reused as a template
            cypher, params = plan.cypher, plan.params
            return mentions, lambda: self._learn(question, isr, d, cypher, params, r)
        return mentions, None

    # -- descriptions (planner/describe.py) -----------------------------------------------------
    def _describe(self, question: str, d: Domain, mentions, r: Result, timings: dict) -> bool:
        """Answers a question about one entity as a whole from its bounded subgraph; False when the question is
        no such question (it then compiles as usual)."""
        from kgqa.planner import describe

        target = describe.target(question, mentions, d.view.spec)
        if target is None:
            return False
        llm = None
        if self.settings.describe_rewrite == "always":
            self._tls.calls = getattr(self._tls, "calls", 0) + 1
            llm = self.llm
        with self._timed(timings, "describe"):
            return describe.answer(question, d.graph, d.view.spec, target, r, self.settings, llm)

    # -- plan cache hooks (filled by the cache layer) ------------------------------------------
    def _template_reuse(self, question, d: Domain, isr, mentions):
        """Returns (cypher, params) of the cached template this question fills, or None; remembers which
        entry it was (``self._tls.reused``) so a contradicted template can be demoted."""
        if self.plan_cache is None or getattr(self._tls, "no_reuse", False):
            return None
        if not hasattr(self.plan_cache, "reuse_entry"):
            return self.plan_cache.reuse(question, d, isr, mentions)
        found = self.plan_cache.reuse_entry(question, d, isr, mentions)
        if found is None:
            return None
        entry, filled = found
        self._tls.reused = entry.id
        return filled.cypher, filled.params

    def _exemplars(self, question: str, d: Domain, isr) -> list:
        """Returns the verified plans the plan cache picks as exemplars for this question, best first: MMR
        over ``C[domain][aspect]`` (CacheRAG Algorithm 2), or plain BM25 top-k, or a one-layer index, as
        configured (entries of any KG version; callers keep this graph's)."""
        s = self.settings
        aspect = (getattr(isr, "aspect", None) or "general") if s.plan_index_layers >= 2 else None
        if s.plan_mmr:
            return self.plan_cache.retrieve(question, d.name, aspect, k=s.mmr_k, lam=s.mmr_lambda,
                                            sim=s.plan_similarity)
        return self.plan_cache.top_k_bm25(question, d.name, aspect, k=s.mmr_k, sim=s.plan_similarity)

    @staticmethod
    def _exemplar_rels(picked: list, d: Domain) -> dict[str, float]:
        """Returns the relationship types of the exemplars ``picked`` on this graph's version, each voting
        with its relevance rank (first = 1, then 1/2, ...)."""
        votes: dict[str, float] = {}
        for rank, e in enumerate(picked):
            if e.kg_version != d.graph.version:
                continue
            for rel in of_cypher(e.cypher or "").rels:
                if rel in d.view.rels:
                    votes[rel] = votes.get(rel, 0.0) + 1.0 / (rank + 1)
        return votes

    def _learn(self, question, isr, d: Domain, cypher, params, r: Result) -> None:
        if self.plan_cache is not None:
            self.plan_cache.learn(question, isr, d, cypher, params, r)

