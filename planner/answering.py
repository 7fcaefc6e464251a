"""Answering one question on one open graph: the answer path as a list of named steps (:data:`STEPS`) over one
state per question (:class:`Asking`)."""

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
from kgqa.planner.asking import Asking
from kgqa.planner.cypher_outline import of_cypher
from kgqa.planner.domain import Domain
from kgqa.planner.fallbacks import Fallbacks
from kgqa.planner.isr import parse_isr
from kgqa.planner.linker import link_mentions
from kgqa.planner.outline import Outline
from kgqa.planner.plan import Plan
from kgqa.planner.repair import validate_and_repair
from kgqa.types import Attempt, Result

# the answer path, in order: each a method ``_<name>`` over the question's :class:`Asking`, which it may end
STEPS = ("link", "route", "describe_entity", "reuse", "exemplars_of", "compile", "name_topic", "write", "check",
         "repair", "run", "judge", "ties", "summarize", "verified")


class Answering(Fallbacks):
    """The steps of answering one question on one graph (:data:`STEPS`, run by :meth:`_answer`), each timed
    (:meth:`_timed`), with the plan-cache hooks they call; mixed into :class:`~kgqa.planner.pipeline.Pipeline`,
    whose ``settings``, ``plan_cache``, ``llm``, ``_complete`` and LLM call counter (``_tls.calls``) they use."""

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
        more = len(tied) == bound
        tied = [row for row in tied if row not in rows]  # a row said already says nothing new ("in which year ...")
        return (rows[-1][i], tied, more) if tied else None

    @contextmanager
    def _timed(self, timings: dict[str, float], stage: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - t0) * 1000

    def _answer(self, a: Asking) -> Asking:
        """Runs the answer path's steps (:data:`STEPS`) over ``a`` until one ends the question, filling ``a.r``.
        Every "I don't know" ends here, so the caller's fallback and answer-cache steps see all of them."""
        for name in STEPS:
            getattr(self, f"_{name}")(a)
            if a.over:
                break
        return a

    def _link(self, a: Asking) -> None:
        """The graph's values the question names, linked to nodes through the entity index."""
        with self._timed(a.timings, "link"):
            a.mentions, candidates = link_mentions(a.question, a.d.compiler, a.d.index)
        a.r.candidates = [c.to_dict() for c in candidates[:10]]

    def _route(self, a: Asking) -> None:
        """The question's intermediate structured representation (topic, answer type, aspect)."""
        with self._timed(a.timings, "parse_route"):
            a.isr = parse_isr(a.question, a.mentions, a.d.name)
        a.r.isr = a.isr.to_dict()

    def _describe_entity(self, a: Asking) -> None:
        """"Who is X?", "Tell me about X": X's bounded subgraph, not a compiled lookup."""
        a.over = bool(self.settings.describe and self._describe(a.question, a.d, a.mentions, a.r, a.timings))

    def _reuse(self, a: Asking) -> None:
        """A verified plan's template this question fills (no compilation, no LLM)."""
        if not (self._plan_cache_on() and self.settings.param_reuse):
            return
        with self._timed(a.timings, "cache_retrieval"):
            reuse = self._template_reuse(a)
        if reuse is not None:
            a.plan, a.origin = Plan.written(*reuse), "template"
            a.r.cache["plan_hit"] = True

    def _exemplars_of(self, a: Asking) -> None:
        """The plan cache's verified plans of similar questions, and the relationships they vote for."""
        if a.plan is not None or not self._plan_cache_on():
            return
        with self._timed(a.timings, "cache_retrieval"):
            a.picked = self._exemplars(a.question, a.d, a.isr)
            a.hints = self._exemplar_rels(a.picked, a.d)
        a.r.cache["exemplar_rels"] = sorted(a.hints)

    def _compile(self, a: Asking) -> None:
        """The question read and compiled; readings that differ where the schema left a choice open settled by
        the graph's rows."""
        if a.plan is not None:
            return
        with self._timed(a.timings, "compile"):
            a.compilation = a.d.compiler.read(a.question, a.mentions, a.hints)
        plans = a.compilation.plans
        if plans and plans[0].alternatives:
            with self._timed(a.timings, "execute"):
                settled, why = self._settle(a.d, plans[0])
            if settled is None:
                a.decline(why, answer=f"I don't know: {why}")
                return
            plans = [settled]
        if plans:
            a.compiled, a.plan = plans[0], Plan.compiled(plans[0])

    def _name_topic(self, a: Asking) -> None:
        """Nothing to compile from the deterministic parse: a short constrained LLM call names the topic entity
        in the question's words, the index grounds it, and compilation runs once more."""
        if a.plan is not None or a.d.index is None or a.compilation.topic:
            return
        with self._timed(a.timings, "parse_route"):
            extra = self._llm_entity(a.question, a.d, a.mentions)
        if extra is None:
            return
        a.mentions = sorted(a.mentions + [extra], key=lambda m: m.start)
        with self._timed(a.timings, "compile"):
            a.compilation = a.d.compiler.read(a.question, a.mentions, a.hints)
        if a.compilation.plans:
            a.compiled = a.compilation.plans[0]
            a.plan = Plan.compiled(a.compiled)

    def _write(self, a: Asking) -> None:
        """A capable model writes Cypher too; the two plans compete on execution evidence."""
        s = self.settings
        if not (s.llm_writes_cypher and s.llm_backend == "openai") or a.r.cache["plan_hit"]:
            return
        from kgqa.planner.cypher_writer import compete

        with self._timed(a.timings, "write_cypher"):
            shots = [(e.question, e.cypher) for e in a.picked if e.cypher and e.kg_version == a.d.graph.version]
            pick = compete(a.question, a.d, a.mentions, a.compiled, self._complete, shots, a.r, rounds=s.repair_rounds)
        if pick.action == "decline":
            a.decline(pick.reason)
            a.r.cypher = inline_params(a.plan.cypher, a.plan.params) if a.plan else None
        elif pick.action == "llm":
            a.plan, a.origin = Plan.written(pick.written.final), "llm"

    def _check(self, a: Asking) -> None:
        """No plan, or a plan that ignores a number the question states ("shared 3 prizes"): it answers another
        question."""
        if a.plan is None:
            unread = a.compilation.unread if a.compilation is not None else []
            a.decline(f"the question could not be read: {'; '.join(unread)}" if unread else None)
            return
        left_out = a.d.compiler.left_out(a.question, a.plan)
        if left_out:
            a.decline(f"the plan does not account for {', '.join(repr(w) for w in left_out)} in the question")
            a.r.cypher = inline_params(a.plan.cypher, a.plan.params)

    def _repair(self, a: Asking) -> None:
        """EXPLAIN with repair, and the read-only guard."""
        with self._timed(a.timings, "repair"):
            repaired = validate_and_repair(a.d.graph, a.d.view, a.plan.cypher, a.plan.params,
                                           self.settings.repair_rounds)
        for q, err in repaired.attempts:
            a.r.attempts.append(Attempt(q, a.origin, err).__dict__)
        if not repaired.ok:
            a.decline(repaired.attempts[-1][1])
            a.r.cypher = repaired.cypher
            return
        a.plan = a.plan.rewritten(repaired.cypher)
        a.show_plan()

    def _run(self, a: Asking) -> None:
        """The plan run; a substring condition written in mixed case that finds nothing run again in any case
        ("a tagline containing the word Love" where the data writes "love")."""
        d, plan = a.d, a.plan
        with self._timed(a.timings, "execute"):
            a.columns, a.rows, a.error = self._execute(d, plan.cypher, plan.params, plan.outline)
            folded = d.compiler.folded(plan.frame) if plan.frame is not None and not a.rows and a.error is None else None
            if folded is not None:
                again = validate_and_repair(d.graph, d.view, folded.cypher, folded.params, self.settings.repair_rounds)
                if again.ok:
                    retry = Plan.compiled(folded).rewritten(again.cypher)
                    columns, rows, error = self._execute(d, retry.cypher, retry.params, retry.outline)
                    if rows and error is None:
                        a.plan, a.columns, a.rows = retry, columns, rows
                        a.show_plan()
        a.r.columns = a.columns
        outline = a.plan.outline
        if outline.unranked and outline.limit and len(a.rows) > outline.limit:
            # "the top 5 customers from the USA": more match and nothing says which five
            a.decline(f"the plan does not account for 'top {outline.limit}, with no measure to rank by' in the "
                      f"question: more than {outline.limit} match")
            return
        a.r.rows = a.rows
        if a.r.attempts:
            a.r.attempts[-1]["rows"] = len(a.rows)

    def _judge(self, a: Asking) -> None:
        """Is the evidence complete (CacheRAG's dispatcher)? When not, and the plan is not grounded, bounded
        expansion around the question's entity."""
        with self._timed(a.timings, "dispatch"):
            a.verdict = dispatcher.judge(a.plan.outline, a.rows, a.error)
            tree = a.plan.tree
            a.none = not a.rows and a.error is None and tree is not None and a.d.view.spec.complete and \
                dispatcher.plainly_stated(tree) and dispatcher.presupposed(tree, a.d.graph)
        if a.verdict.status != dispatcher.COMPLETE and not (a.plan.outline.grounded or a.none):
            with self._timed(a.timings, "expansion"):
                sub = self._expand(a.question, a.d, a.mentions)
            if sub is not None and len(sub):
                a.r.subgraph = sub.to_dict()
                a.r.operators = [op for op, on in (("depth", self.settings.use_depth),
                                                   ("breadth", self.settings.use_breadth)) if on]

    def _ties(self, a: Asking) -> None:
        """A LIMIT that cuts through a tie: "the publisher with the fewest books", four of them tied, gives each
        of them, not one picked by the engine; "the top 3" says who else ties with its last."""
        a.tie = self._tie_at_cut(a.d, a.plan, a.columns, a.rows) if a.rows and a.error is None else None
        if a.tie is not None and len(a.rows) == 1 and not a.tie[2]:
            a.rows = a.r.rows = a.rows + a.tie[1]
            a.tie = None

    def _summarize(self, a: Asking) -> None:
        """The answer from the rows. An empty result is an answer ("none") when the plan is grounded: a compiled
        plan whose anchors all linked, a plainly stated tree whose presuppositions a complete graph holds
        (``a.none``), or a verified template whose slots all filled."""
        r, d, outline, rows = a.r, a.d, a.plan.outline, a.rows
        with self._timed(a.timings, "summarize"):
            subject = outline.target.lower() + "s" if outline.target else "results"
            grounded = outline.grounded or a.none or r.cache.get("plan_hit", False)
            answer, status = summarizer.summarize(a.question, r.columns, rows,
                                                  empty_is_answer=grounded and a.error is None, subject=subject,
                                                  keys=set(d.view.spec.primary_keys.values()),
                                                  parts={p for ps in d.view.spec.key_parts.values() for p in ps},
                                                  outline=outline, names=d.view.display_names())
            if a.tie is not None and status == "answered":
                tie = a.tie
                answer = f"{answer} {summarizer.tie_note(tie[0], [row[0] for row in tie[1]], tie[2], cut=len(rows))}"
            r.answer, r.status = answer, status
            r.evidence = "rows" if rows else ("subgraph" if r.subgraph else "none")
            if a.error:
                r.error = a.error

    def _verified(self, a: Asking) -> None:
        """A plan that ran, judged complete, with rows, may be learned by the plan cache; an unranked "top 5"
        plan is right only after its rows are counted: never reused as a template."""
        a.learnable = bool(a.rows and self._plan_cache_on() and a.verdict.status == dispatcher.COMPLETE
                           and not a.plan.outline.unranked)
        a.over = True

    def _plan_cache_on(self) -> bool:
        return self.plan_cache is not None and self.settings.use_plan_cache

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
    def _template_reuse(self, a: Asking):
        """Returns (cypher, params) of the cached template this question fills, or None; remembers which entry it
        was (``a.reused``) so a contradicted template can be demoted."""
        if self.plan_cache is None or not a.reuse:
            return None
        if not hasattr(self.plan_cache, "reuse_entry"):
            return self.plan_cache.reuse(a.question, a.d, a.isr, a.mentions)
        found = self.plan_cache.reuse_entry(a.question, a.d, a.isr, a.mentions)
        if found is None:
            return None
        entry, filled = found
        a.reused = entry.id
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

    def _learn(self, a: Asking) -> None:
        """The plan cache learns the verified plan (:meth:`_verified`)."""
        if self.plan_cache is not None:
            self.plan_cache.learn(a.question, a.isr, a.d, a.plan.cypher, a.plan.params, a.r)

