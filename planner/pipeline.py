"""The visible pipeline (CacheRAG Algorithm 1): question -> ISR -> plan -> Cypher -> rows -> answer.

``Pipeline.ask`` refuses a question that asks to change the graph or read files, then runs, in order and
each timed: answer cache, routing, entity linking and ISR parse, plan cache (parameterized reuse, then
exemplars), compilation (when nothing compiles, one LLM call names the topic entity and compilation runs
again), EXPLAIN repair, execution, dispatch, bounded expansion, summarization, the vector-memory fallback
after "I don't know", and the plan-cache update; the result goes into the answer cache. The graph is only
ever read.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import takewhile
from typing import Any

from kgqa.kg.compare import same_answer, values_equal
from kgqa.kg.cypher import ident, inline_params
from kgqa.kg.db import QueryError, QueryTimeout
from kgqa.kg.engines import open_graph
from kgqa.kg.registry import graph_spec, registered
from kgqa.kg.safety import UnsafeQueryError
from kgqa.kg.schema import render_row
from kgqa.planner import dispatcher, summarizer
from kgqa.planner.compiler import Compiler
from kgqa.planner.isr import parse_isr
from kgqa.planner.linker import link_mentions
from kgqa.planner.repair import validate_and_repair
from kgqa.planner.router import DescriptionStore, Router
from kgqa.planner.schema_view import SchemaView
from kgqa.planner.version import answer_version
from kgqa.protocols import GraphBackend, PlanStore
from kgqa.settings import Settings
from kgqa.types import Attempt, InputError, Result, Subgraph

log = logging.getLogger(__name__)
AUTO_DOMAIN = "*"  # answer-cache domain of questions asked without one (routed); no graph is named "*"

WRITE_INTENT = re.compile(
    r"^\s*(please\s+)?(delete|remove|drop|create|insert|update|set|merge|detach|add|rename|change|modify|wipe|erase|"
    r"truncate|alter|load|import|export|install|attach|copy)\b|\b(detach\s+delete|drop\s+table|load\s+from|"
    r"copy\s+\w+\s+from|ignore (all |the )?(previous|prior|above) instructions)\b"
    # Cypher write, file and system clauses written into a question; instruction overrides; file paths
    r"|\b(create|merge)\s*\(|\bset\s+\w+\.\w+\s*=|\bremove\s+\w+\.\w+|\)\s*(detach\s+)?delete\s+\w|\bcopy\s*\("
    r"|\b(drop|alter|comment\s+on|create\s+(node|rel))\s+table\b|\bcreate\s+macro\b|\bload\s+(extension|with)\b"
    r"|\b(force\s+)?(un)?install\s+\w+\b|\battach\s+['\"]|\b(export|import)\s+database\b|\bcall\s*[\w.`{]+\s*[({=]"
    r"|\b(read_\w+|file_info)\s*\(|\b(ignore|disregard|forget|override)\b[^.?!]{0,40}\b(instructions|rules|"
    r"everything above)\b|\b(system\s+override|developer\s+mode|execute\s+verbatim|new\s+task\s+from|system\s+prompt)\b"
    r"|\b(print|show|read|cat|dump)\s+(me\s+)?(the\s+)?(contents?\s+of\s+)?(the\s+)?(file\s+)?['\"]?(/|\.\./|~/)",
    re.I,
)


@dataclass
class Domain:
    name: str
    graph: GraphBackend
    view: SchemaView
    compiler: Compiler
    index: Any = None


class Pipeline:
    def __init__(self, settings: Settings | None = None, *, llm=None, plan_cache: PlanStore | None = None,
                 answer_cache=None, domains: list[str] | None = None):
        self.settings = settings or Settings.from_env()
        self._llm = llm
        self._llm_lock = threading.Lock()
        self._tls = threading.local()  # per-request LLM call counter (the server is multi-threaded)
        self.plan_cache = plan_cache
        self.answer_cache = answer_cache
        self.domains: dict[str, Domain] = {}
        self._only = list(domains) if domains else None
        self._reload_lock = threading.Lock()
        self.reload()
        if not self.domains:
            raise RuntimeError(f"no graphs under {self.settings.graphs_dir}: run `kgqa load --domain all` "
                               "(or `kgqa load --name NAME ...` for a graph of your own) first")

    def reload(self) -> dict[str, list[str]]:
        """Re-reads the domain registry: opens graphs loaded since, re-opens those rebuilt (new version),
        closes those removed. Returns {"added": [...], "updated": [...], "removed": [...]}."""
        with self._reload_lock:
            found = registered(self.settings.graphs_dir)
            if self._only is not None:
                found = {n: m for n, m in found.items() if n in self._only}
            changes: dict[str, list[str]] = {"added": [], "updated": [], "removed": []}
            domains = dict(self.domains)
            for name in [n for n in domains if n not in found]:
                domains.pop(name).graph.close()
                changes["removed"].append(name)
            for name, meta in found.items():
                old = domains.get(name)
                if old is not None and old.graph.version == meta.version:
                    continue
                try:
                    domains[name] = self._open(name)
                except Exception as err:  # noqa: BLE001 - one unreadable graph must not stop the others
                    log.warning("domain %s not opened: %s", name, err)
                    continue
                changes["updated" if old is not None else "added"].append(name)
                if self.plan_cache is not None:
                    self.plan_cache.invalidate(name, meta.version)
            if any(changes.values()) or not hasattr(self, "router"):  # unchanged: keep the router's caches
                self.domains = domains
                self.descriptions = DescriptionStore(self.settings.state_dir / "descriptions.json",
                                                     {n: d.view.spec.description for n, d in domains.items()})
                self.router = Router({n: d.compiler for n, d in domains.items()}, self.descriptions)
            return changes

    def close(self) -> None:
        """Closes every open graph; the pipeline answers nothing after it."""
        with self._reload_lock:
            for d in self.domains.values():
                d.graph.close()
            self.domains = {}

    def _open(self, name: str) -> Domain:
        s = self.settings
        graph = open_graph(s.graph_path(name), timeout_ms=s.query_timeout_ms, row_cap=s.row_cap,
                           buffer_pool_mb=s.buffer_pool_mb, bolt_user=s.bolt_user, bolt_password=s.bolt_password)
        spec = graph_spec(graph, annotations=s.annotations)
        view = SchemaView.from_graph(graph, spec)
        index = None
        try:
            from kgqa.kg.entity_index import EntityIndex

            index = EntityIndex(graph, spec)
        except Exception:  # noqa: BLE001 - exact value linking still works without the fuzzy index
            index = None
        return Domain(name, graph, view, Compiler(view, chooser=self._choose), index)

    # -- LLM (lazy: only loaded when a choice is needed) ----------------------------------------
    @property
    def llm(self):
        with self._llm_lock:
            if self._llm is None:
                from kgqa.planner.llm import make_llm

                self._llm = make_llm(self.settings)
            return self._llm

    def _choose(self, prompt: str, options: list[str]) -> int:
        self._tls.calls = getattr(self._tls, "calls", 0) + 1
        return self.llm.choose(prompt, options)

    def _complete(self, messages: list[dict[str, str]]) -> str:
        """One counted free-text call (the Cypher writer's); the backend's timeout bounds it."""
        from kgqa.planner.cypher_writer import MAX_TOKENS

        self._tls.calls = getattr(self._tls, "calls", 0) + 1
        return self.llm.complete(messages, max_tokens=MAX_TOKENS).text

    # -- entry points ---------------------------------------------------------------------------
    def validate(self, question: Any, domain: str | None) -> str:
        if not isinstance(question, str) or not question.strip():
            raise InputError("question must be a non-empty string")
        if len(question) > self.settings.max_question_chars:
            raise InputError(f"question is longer than {self.settings.max_question_chars} characters")
        if domain is not None and domain not in self.domains:
            self.reload()  # a graph loaded since start is picked up on first use
        if domain is not None and domain not in self.domains:
            raise InputError(f"unknown domain {domain!r}; loaded: {', '.join(self.domains)}")
        return " ".join(question.split())

    def ask(self, question: str, domain: str | None = None, *, use_answer_cache: bool = True) -> Result:
        question = self.validate(question, domain)
        self._tls.calls = 0
        timings: dict[str, float] = {}
        result = Result(question=question, domain=domain)
        try:
            self._ask(question, domain, result, timings, use_answer_cache)
        except UnsafeQueryError as err:
            result.status, result.error, result.answer = "refused", str(err), f"Refused: {err}"
        except Exception as err:  # noqa: BLE001 - one failing question must not stop a service or an eval
            result.status, result.error = "error", f"{type(err).__name__}: {err}"
            result.answer = "Sorry, something went wrong while answering this question."
        result.timings_ms = {k: round(v, 2) for k, v in timings.items()}
        result.cache["llm_calls"] = self._tls.calls
        return result

    def ask_batch(self, questions: list[dict | str]) -> list[Result]:
        """Answer in order: retrieval per question, then SubGCache summarization (planner/batch.py)."""
        from kgqa.planner.batch import answer_batch

        return answer_batch(self, questions)

    def _settle(self, d: Domain, plan) -> tuple[Any, str]:
        """Returns (the reading to answer with, "") among a plan and its ``alternatives`` (readings of one question
        that differ where the schema left a choice open), on the evidence of the graph: the only one that finds
        rows, or any when they all find the same rows; else (None, "did you mean A or B?")."""
        found = []
        for p in [plan, *plan.alternatives]:
            if not validate_and_repair(d.graph, d.view, p.cypher, p.params, 0).ok:
                continue
            columns, rows, error = self._execute(d, p.cypher, p.params)
            if rows and error is None:
                found.append((p, rows))
        if not found:
            return plan, ""
        ranked = all(_ORDERED.search(p.cypher) for p, _ in found)
        if all(same_answer(rows, found[0][1], ranked) for _, rows in found):
            return found[0][0], ""
        names = [" and ".join(p.choices) or f"`{inline_params(p.cypher, p.params)}`" for p, _ in found[:3]]
        return None, f"did you mean {' or '.join(names)}? The graph answers each differently."

    @staticmethod
    def _execute(d: Domain, cypher: str, params: dict[str, Any]) -> tuple[list[str], list[list[Any]], str | None]:
        """Returns (columns, rows rendered, error) of one query; rows in a stable order unless it orders."""
        try:
            res = d.graph.query(cypher, params)
        except (QueryTimeout, QueryError) as err:
            return [], [], str(err)
        columns, rows = summarizer.evidence_items(res.columns, [render_row(row, d.view.spec) for row in res.rows])
        if not _ORDERED.search(cypher):  # hash order varies between runs; answers and caches should not
            rows.sort(key=lambda row: [(v is None, str(v)) for v in row])
        return columns, rows, None

    def _tie_at_cut(self, d: Domain, cypher: str, params: dict[str, Any], columns: list[str],
                    rows: list[list[Any]]) -> tuple[Any, list[Any], bool] | None:
        """Returns (the ranked value of the last row, the first column of the rows past the LIMIT that tie with
        it, whether there may be more of them) when ``cypher`` ranks by one of its columns and its LIMIT cuts
        through a tie ("the top 3 supplier countries": 2 suppliers each in the 3rd to 9th); None otherwise."""
        m = _RANKED.search(cypher)
        if m is None or len(rows) != int(m.group("n")) or m.group("key") not in columns:
            return None
        i, bound = columns.index(m.group("key")), self.settings.k_degree
        _, beyond, error = self._execute(d, f"{cypher[:m.start('limit')]}SKIP {len(rows)} LIMIT {bound}", params)
        tied = list(takewhile(lambda row: values_equal(row[i], rows[-1][i]), beyond if error is None else []))
        return (rows[-1][i], [row[0] for row in tied], len(tied) == bound) if tied else None

    @contextmanager
    def _timed(self, timings: dict[str, float], stage: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - t0) * 1000

    def _ask(self, question: str, domain: str | None, r: Result, timings: dict, use_answer_cache: bool) -> None:
        if WRITE_INTENT.search(question):
            r.status = "refused"
            r.answer = ("Refused: kgqa only answers questions; it never modifies the knowledge graph "
                        "or reads files.")
            return
        asked = domain  # None: routed; the answer cache keeps routed answers apart (see cached_answer)
        if use_answer_cache and self._from_cache(question, domain, r, timings):
            return
        with self._timed(timings, "parse_route"):
            if domain is None:
                route = self.router.route(question)
                domain = route.domain
            d = self.domains[domain]
            r.domain, r.kg_version = domain, d.graph.version
        self._tls.reused = None
        mentions, learn = self._answer(question, d, r, timings)
        if r.cache.get("plan_hit") and not r.rows:
            mentions, learn = self._check_empty_template(question, d, r, timings, (mentions, learn))
        if r.status == "dont_know" and self.settings.vector_memory:
            with self._timed(timings, "vector_memory"):
                self._memory_fallback(question, d, mentions, r)
        # a reused template's answer is not learned again: a wrong template would spread by its own reuse
        if learn is not None and r.status == "answered" and not r.cache.get("plan_hit"):
            with self._timed(timings, "cache_update"):
                learn()
        self.keep(r, asked)

    def keep(self, r: Result, asked: str | None) -> bool:
        """Stores ``r`` (answered or "I don't know", computed here or by another process) in the answer
        cache under its domain and KG version, and under the routed key when it was ``asked`` without a
        domain. Returns whether it was stored."""
        if self.answer_cache is None or r.status not in ("answered", "dont_know") or not r.domain:
            return False
        self.answer_cache.put(r.question, r.domain, answer_version(r.kg_version), r.to_dict())
        if asked is None:
            self.answer_cache.put(r.question, AUTO_DOMAIN, self.routing_version(), r.to_dict())
        return True

    def routing_version(self) -> str:
        """Returns the answer-cache version of routed questions: a digest of every open domain's name and KG
        version (routing depends on all of them)."""
        import hashlib

        text = "|".join(f"{n}:{answer_version(d.graph.version)}" for n, d in sorted(self.domains.items()))
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    def cached_answer(self, question: str, domain: str | None, *, peek: bool = False) -> tuple[str, dict] | None:
        """Returns (answering domain, stored result dict) for ``question``, or None. A question asked with a
        domain reads that domain's entry; one asked without reads only what an earlier routed question
        stored (key :data:`AUTO_DOMAIN`), never another domain's answer: "I don't know" from a domain the
        router would not pick must not pin itself on every routed asker. ``peek`` counts and touches
        nothing (feedback)."""
        cache = self.answer_cache
        if cache is None:
            return None
        read = cache.peek if peek else cache.get
        domains = self.domains  # one snapshot: a reload swaps the dict, never mutates it
        if domain is not None:
            d = domains.get(domain)
            hit = read(question, domain, answer_version(d.graph.version)) if d is not None else None
            return (domain, hit) if hit is not None else None
        hit = read(question, AUTO_DOMAIN, self.routing_version())
        if hit is None or hit.get("domain") not in domains:
            return None
        return hit["domain"], hit

    def forget_answer(self, question: str, domain: str) -> bool:
        """Drops the stored answers to ``question`` from ``domain`` (its own key and the routed one, when
        routing had picked that domain); returns whether there was one."""
        cache, d = self.answer_cache, self.domains.get(domain)
        if cache is None or d is None:
            return False
        gone = cache.discard(question, domain, answer_version(d.graph.version))
        routed = cache.peek(question, AUTO_DOMAIN, self.routing_version())
        if routed is not None and routed.get("domain") == domain:
            gone = cache.discard(question, AUTO_DOMAIN, self.routing_version()) or gone
        return gone

    def _check_empty_template(self, question: str, d: Domain, r: Result, timings: dict, answered):
        """A reused template gave no rows: compile the question afresh (no template). When the compiled plan
        is another query and finds rows, the template contradicted it: it is demoted (never reused again nor
        re-learned) and the compiled answer stands (``r.cache["template_demoted"]``). Otherwise the
        template's "none" stands. Returns the (mentions, learn step) of the answer that stands."""
        reused = getattr(self._tls, "reused", None)
        fresh = Result(question=question, domain=r.domain, kg_version=r.kg_version)
        self._tls.no_reuse = True
        try:
            with self._timed(timings, "template_check"):
                out = self._answer(question, d, fresh, {})
        finally:
            self._tls.no_reuse = False
        if fresh.status != "answered" or not fresh.rows or fresh.cypher == r.cypher:
            return answered
        if reused is not None and self.plan_cache is not None and hasattr(self.plan_cache, "demote"):
            self.plan_cache.demote([reused])
        for name in ("status", "answer", "cypher", "cypher_run", "params", "columns", "rows", "isr", "candidates",
                     "attempts",
                     "subgraph", "evidence", "operators", "error"):
            setattr(r, name, getattr(fresh, name))
        r.cache = {**fresh.cache, "template_demoted": reused}
        return out

    def cached(self, question: str, domain: str | None = None) -> Result | None:
        """Returns the answer-cache hit for ``question`` (validated; ``domain`` None: any domain), or None.
        Nothing else runs (no routing, compilation or LLM), so a server answers it before queueing for
        compute work."""
        question = self.validate(question, domain)
        if self.answer_cache is None or WRITE_INTENT.search(question):
            return None
        timings: dict[str, float] = {}
        r = Result(question=question, domain=domain)
        if not self._from_cache(question, domain, r, timings):
            return None
        r.timings_ms = {k: round(v, 2) for k, v in timings.items()}
        return r

    def _from_cache(self, question: str, domain: str | None, r: Result, timings: dict) -> bool:
        """Fills ``r`` from the answer cache (:meth:`cached_answer`); True on a hit."""
        if self.answer_cache is None:
            return False
        # before routing: a repeat is answered in O(1); a routed question reads only routed answers
        with self._timed(timings, "answer_cache"):
            found = self.cached_answer(question, domain)
        if found is None:
            return False
        domain, hit = found
        r.domain, r.kg_version = domain, self.domains[domain].graph.version
        cached = Result.from_dict(hit)
        for field_name in ("status", "answer", "cypher", "cypher_run", "params", "columns", "rows", "isr",
                           "candidates", "attempts", "subgraph", "evidence", "operators"):
            setattr(r, field_name, getattr(cached, field_name))
        r.cache = {"answer_hit": True, "plan_hit": cached.cache.get("plan_hit", False), "llm_calls": 0}
        for flag in ("rows_pruned", "semantic_hit"):  # the rows shown are the cache's first N, or a neighbour's
            if cached.cache.get(flag):
                r.cache[flag] = True
        return True

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

        compiled = None
        cypher, params, frame = None, {}, None
        cache_on = self.plan_cache is not None and self.settings.use_plan_cache
        if cache_on and self.settings.param_reuse:
            with self._timed(timings, "cache_retrieval"):
                reuse = self._template_reuse(question, d, isr, mentions)
            if reuse is not None:
                cypher, params = reuse
                r.cache["plan_hit"] = True
        hints: dict[str, float] = {}
        picked: list = []  # the plan cache's exemplars for this question
        if cypher is None and cache_on:
            with self._timed(timings, "cache_retrieval"):
                picked = self._exemplars(question, d, isr)
                hints = self._exemplar_rels(picked, d)
            r.cache["exemplar_rels"] = sorted(hints)
        if cypher is None:
            with self._timed(timings, "compile"):
                plans = d.compiler.compile(question, mentions, hints)
            if plans and plans[0].alternatives:
                with self._timed(timings, "execute"):
                    settled, why = self._settle(d, plans[0])
                if settled is None:
                    r.status, r.answer, r.evidence, r.error = "dont_know", f"I don't know: {why}", "none", why
                    return mentions, None
                plans = [settled]
            if plans:
                compiled = plans[0]
                cypher, params, frame = compiled.cypher, compiled.params, compiled.frame
        if cypher is None and d.index is not None:
            # nothing to compile from the deterministic parse: a short constrained LLM call names the topic
            # entity in the question's words, the index grounds it, and compilation runs once more
            with self._timed(timings, "parse_route"):
                extra = self._llm_entity(question, d, mentions)
            if extra is not None:
                mentions = sorted(mentions + [extra], key=lambda m: m.start)
                with self._timed(timings, "compile"):
                    plans = d.compiler.compile(question, mentions, hints)
                if plans:
                    compiled = plans[0]
                    cypher, params, frame = compiled.cypher, compiled.params, compiled.frame
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
                r.cypher = inline_params(cypher, params) if cypher else None
                return mentions, None
            if pick.action == "llm":
                cypher, params, frame, origin = pick.written.final, {}, None, "llm"
        if cypher is None:
            r.status, r.answer, r.evidence = "dont_know", summarizer.DONT_KNOW, "none"
            return mentions, None
        bound = {"limit": frame.limit} if frame is not None and frame.unranked else {}  # checked on the rows
        left_out = d.compiler.left_out(question, cypher, params | bound, frame)
        if left_out:
            # a plan that ignores a number the question states ("shared 3 prizes") answers another question
            r.status, r.answer, r.evidence, r.cypher = "dont_know", summarizer.DONT_KNOW, "none", inline_params(cypher, params)
            r.error = f"the plan does not account for {', '.join(repr(w) for w in left_out)} in the question"
            return mentions, None
        with self._timed(timings, "repair"):
            repaired = validate_and_repair(d.graph, d.view, cypher, params, self.settings.repair_rounds)
        for q, err in repaired.attempts:
            r.attempts.append(Attempt(q, origin, err).__dict__)
        if not repaired.ok:
            r.status, r.answer, r.cypher = "dont_know", summarizer.DONT_KNOW, repaired.cypher
            r.error = repaired.attempts[-1][1]
            return mentions, None
        cypher = repaired.cypher
        r.cypher = inline_params(cypher, params)
        r.cypher_run, r.params = cypher, dict(params)  # what executes below, shown beside r.cypher
        with self._timed(timings, "execute"):
            columns, rows, error = self._execute(d, cypher, params)
            folded = d.compiler.folded(frame) if frame is not None and not rows and error is None else None
            if folded is not None:
                # "a tagline containing the word Love" finds nothing as written: the data's casing differs,
                # so the same words in any case
                again = validate_and_repair(d.graph, d.view, folded.cypher, folded.params, self.settings.repair_rounds)
                if again.ok:
                    columns2, rows2, error2 = self._execute(d, again.cypher, folded.params)
                    if rows2 and error2 is None:
                        cypher, params, frame, columns, rows = again.cypher, folded.params, folded.frame, columns2, rows2
                        r.cypher, r.cypher_run, r.params = inline_params(cypher, params), cypher, dict(params)
        r.columns = columns
        if frame is not None and frame.unranked and frame.limit and len(rows) > frame.limit:
            # "the top 5 customers from the USA": more match and nothing says which five
            r.status, r.answer, r.evidence, r.rows = "dont_know", summarizer.DONT_KNOW, "none", []
            r.error = (f"the plan does not account for 'top {frame.limit}, with no measure to rank by' in the "
                       f"question: more than {frame.limit} match")
            return mentions, None
        r.rows = rows
        if r.attempts:
            r.attempts[-1]["rows"] = len(rows)
        with self._timed(timings, "dispatch"):
            verdict = dispatcher.judge(frame, rows, error)
        if verdict.status != dispatcher.COMPLETE and not dispatcher.grounded(frame):
            with self._timed(timings, "expansion"):
                sub = self._expand(question, d, mentions)
            if sub is not None and len(sub):
                r.subgraph = sub.to_dict()
                r.operators = [op for op, on in (("depth", self.settings.use_depth),
                                                 ("breadth", self.settings.use_breadth)) if on]
        with self._timed(timings, "summarize"):
            subject = (frame.target or "results").lower() + "s" if frame and frame.target else "results"
            # an empty result is an answer ("none") when the plan is grounded: a compiled frame whose
            # anchors all linked, or a verified template whose slots all filled
            grounded = dispatcher.grounded(frame) or (frame is None and r.cache.get("plan_hit", False))
            answer, status = summarizer.summarize(question, r.columns, rows,
                                                  empty_is_answer=grounded and error is None, subject=subject,
                                                  keys=set(d.view.spec.primary_keys.values()),
                                                  parts={p for ps in d.view.spec.key_parts.values() for p in ps},
                                                  cypher=cypher, names=d.view.display_names())
            tie = self._tie_at_cut(d, cypher, params, columns, rows) if status == "answered" else None
            if tie is not None:  # "the top 3" that cuts through a tie says so, and who else is tied
                answer = f"{answer} {summarizer.tie_note(*tie, cut=len(rows))}"
            r.answer, r.status = answer, status
            r.evidence = "rows" if rows else ("subgraph" if r.subgraph else "none")
            if error:
                r.error = error
        if rows and cache_on and verdict.status == dispatcher.COMPLETE and not (frame is not None and frame.unranked):
            # an unranked "top 5" plan is right only after its rows are counted: never reused as a template
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
            for rel in set(_REL_TYPE.findall(e.cypher or "")):
                if rel in d.view.rels:
                    votes[rel] = votes.get(rel, 0.0) + 1.0 / (rank + 1)
        return votes

    def _learn(self, question, isr, d: Domain, cypher, params, r: Result) -> None:
        if self.plan_cache is not None:
            self.plan_cache.learn(question, isr, d, cypher, params, r)

    # -- graph-less fallback (GLARE vector memory, kg/vector_memory.py) -------------------------
    def _memory_fallback(self, question: str, d: Domain, mentions, r: Result) -> None:
        """After the Cypher path ended in "I don't know": retrieve the top-k pooled subgraphs of the
        domain's vector memory (loaded lazily, once per domain and KG version; never built here) and
        answer from their triples only when :func:`kgqa.planner.memory_answer.answer_from_memory` finds one
        fact that answers the question; otherwise "I don't know" stands."""
        if not self.settings.vector_memory or r.status != "dont_know":
            return
        from kgqa.kg.vector_memory import cached_memory
        from kgqa.planner.memory_answer import answer_from_memory

        memory = cached_memory(self.settings.state_dir, d.name, d.graph.version, m=self.settings.vector_memory_m,
                               ranking=self.settings.vector_memory_ranking)
        if memory is None:
            return
        hits = memory.retrieve(question, self.settings.vector_memory_k)
        r.operators = [*r.operators, "vector_memory"]
        out = answer_from_memory(question, hits, mentions, words=d.view.spec.words)
        if out.answer is not None:
            r.answer, r.status, r.evidence, r.subgraph = out.answer, "answered", "vector-memory", out.subgraph

    def _llm_entity(self, question: str, d: Domain, mentions):
        from kgqa.planner.frame import Mention

        try:
            from kgqa.planner.programs import Programs

            self._tls.calls = getattr(self._tls, "calls", 0) + 1
            out = Programs(self.llm).extract_isr(question)
        except Exception:  # noqa: BLE001 - no LLM, no extra entity
            return None
        entity = (out or {}).get("entity") or ""
        start = question.lower().find(entity.lower()) if entity else -1
        if start < 0 or any(m.start <= start < m.end for m in mentions):
            return None  # the ISR must use the question's own words
        cands = d.index.link(entity, k=3)
        if not cands or cands[0].score < 0.8:
            return None
        top = cands[0]
        return Mention(start, start + len(entity), entity, top.label, d.view.key(top.label), top.key, top.score)

    @staticmethod
    def _local_relations(d: Domain, label: str, key: str, node_key) -> list[tuple[str, str, str]]:
        """The anchor's local 1-hop schema: (rel, direction, other label) it really has edges for."""
        out = []
        for direction, arrow in (("out", "-[r]->"), ("in", "<-[r]-")):
            res = d.graph.query(_local_relations_query(label, key, arrow), {"k": node_key})
            out += [(rel, direction, other) for rel, other in sorted(res.rows)]
        return out

    def _expand(self, question: str, d: Domain, mentions) -> Subgraph | None:
        anchors = [m for m in mentions if m.label]
        if not anchors or not (self.settings.use_depth or self.settings.use_breadth):
            return None
        try:
            from kgqa.kg.operators import breadth_expand, depth_expand

            m = anchors[0]
            key = d.view.key(m.label)
            node_key = m.value if m.prop == key else None
            if node_key is None:
                res = d.graph.query(f"MATCH (n:{ident(m.label)}) WHERE n.{ident(m.prop)} = $v RETURN n.{ident(key)} LIMIT 1",
                                    {"v": m.value})
                node_key = res.rows[0][0] if res.rows else None
            if node_key is None:
                return None
            sub = Subgraph()
            options = self._local_relations(d, m.label, key, node_key) if self.settings.use_depth else []
            if options:
                # depth: one hop along the relation the LLM picks from the anchor's real relationships
                labels = [f"{rel.lower().replace('_', ' ')} ({other})" for rel, _, other in options]
                pick = 0
                if len(options) > 1:
                    try:
                        pick = self._choose(f"Question: {question}\nWhich relation leads to the answer?", labels)
                    except Exception:  # noqa: BLE001 - the first relation stands
                        pick = 0
                rel, direction, _ = options[pick]
                sub.merge(depth_expand(d.graph, [(m.label, node_key)], rel, direction, k_depth_used=0,
                                       k_depth=self.settings.k_depth, limit=self.settings.k_degree))
            if self.settings.use_breadth:
                # breadth: bounded star scan around the anchor
                sub.merge(breadth_expand(d.graph, (m.label, node_key), question, k_degree=self.settings.k_degree))
            return sub
        except Exception:  # noqa: BLE001 - expansion is best effort evidence
            return None


_REL_TYPE = re.compile(r"\[\w*:`?(\w+)`?")
_ORDERED = re.compile(r"\bORDER\s+BY\b", re.I)
# rows ranked by one key and cut by a LIMIT at the end ("ORDER BY value DESC, country LIMIT 3")
_RANKED = re.compile(r"\bORDER\s+BY\s+(?P<key>[^\s,]+)(?:\s+(?:ASC|DESC))?(?:\s*,[^()]*?)?"
                     r"\s+(?P<limit>LIMIT\s+(?P<n>\d+))\s*$", re.I)


def _local_relations_query(label: str, key: str, arrow: str) -> str:
    return f"MATCH (a:{ident(label)}){arrow}(b) WHERE a.{ident(key)} = $k RETURN DISTINCT label(r), label(b)"


def build_pipeline(settings: Settings | None = None, *, caches: bool = True, **kwargs) -> Pipeline:
    """The service's pipeline: graphs opened read-only, the persistent plan cache (stale KG versions
    dropped) and the compressed answer cache."""
    settings = settings or Settings.from_env()
    if not caches:
        return Pipeline(settings, **kwargs)
    from kgqa.cache.store import open_answer_cache, open_plan_cache

    plan_cache = kwargs.pop("plan_cache", None)
    if plan_cache is None:
        from kgqa.planner.version import compiler_version

        plan_cache = open_plan_cache(settings, code_version=compiler_version())
    answer_cache = kwargs.pop("answer_cache", None)
    answer_cache = open_answer_cache(settings) if answer_cache is None else answer_cache
    return Pipeline(settings, plan_cache=plan_cache, answer_cache=answer_cache, **kwargs)
