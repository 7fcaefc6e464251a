"""The visible pipeline (CacheRAG Algorithm 1): question -> ISR -> plan -> Cypher -> rows -> answer.

``Pipeline.ask`` refuses a question that asks to change the graph or read files, then runs, in order and
each timed: answer cache, routing, entity linking and ISR parse, plan cache (parameterized reuse, then
exemplars), compilation (when nothing compiles, one LLM call names the topic entity and compilation runs
again), EXPLAIN repair, execution, dispatch, bounded expansion, summarization, the vector-memory fallback
after "I don't know", and the plan-cache update; the result goes into the answer cache. The graph is only
ever read.

:class:`Pipeline` here is the service object (open graphs, the LLM, entry points, the answer cache); the steps
of answering one question on one graph are in :mod:`~kgqa.planner.answering`, the fallbacks in
:mod:`~kgqa.planner.fallbacks`.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

from kgqa.kg.engines import open_graph
from kgqa.kg.registry import graph_spec, registered
from kgqa.kg.safety import UnsafeQueryError
from kgqa.planner.answering import Answering
from kgqa.planner.asking import Asking
from kgqa.planner.compiler import Compiler
from kgqa.planner.domain import Domain
from kgqa.planner.router import DescriptionStore, Router
from kgqa.planner.schema_view import SchemaView
from kgqa.planner.version import answer_version
from kgqa.protocols import PlanStore
from kgqa.settings import Settings
from kgqa.types import InputError, Result

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


class Pipeline(Answering):
    def __init__(self, settings: Settings | None = None, *, llm=None, plan_cache: PlanStore | None = None,
                 answer_cache=None, domains: list[str] | None = None):
        self.settings = settings or Settings.from_env()
        self._llm = llm
        self._llm_lock = threading.Lock()
        self._tls = threading.local()  # LLM calls of the question being answered (the server is multi-threaded)
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
        return Domain(name, graph, view, Compiler(view, chooser=self._choose, reader=s.reader), index)

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
        question = d.compiler.spelled(question)  # "the minumum price": mended toward the words the graph knows
        a = self._answer(Asking(question, d, r, timings))
        if r.cache.get("plan_hit") and not r.rows:
            a = self._check_empty_template(a)
        if r.status == "dont_know" and self.settings.vector_memory:
            with self._timed(timings, "vector_memory"):
                self._memory_fallback(question, d, a.mentions, r)
        # a reused template's answer is not learned again: a wrong template would spread by its own reuse
        if a.learnable and r.status == "answered" and not r.cache.get("plan_hit"):
            with self._timed(timings, "cache_update"):
                self._learn(a)
        self.keep(r, asked)

    def keep(self, r: Result, asked: str | None) -> bool:
        """Stores ``r`` (answered or "I don't know", computed here or by another process) in the answer
        cache under its domain and KG version, and under the routed key when it was ``asked`` without a
        domain. Returns whether it was stored."""
        if self.answer_cache is None or r.status not in ("answered", "dont_know") or not r.domain:
            return False
        self.answer_cache.put(r.question, r.domain, self.answer_version(r.kg_version), r.to_dict())
        if asked is None:
            self.answer_cache.put(r.question, AUTO_DOMAIN, self.routing_version(), r.to_dict())
        return True

    def routing_version(self) -> str:
        """Returns the answer-cache version of routed questions: a digest of every open domain's name and KG
        version (routing depends on all of them)."""
        import hashlib

        text = "|".join(f"{n}:{self.answer_version(d.graph.version)}" for n, d in sorted(self.domains.items()))
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    def answer_version(self, kg_version: str) -> str:
        """The answer-cache version of this service's answers from a graph at ``kg_version``
        (:func:`kgqa.planner.version.answer_version`, with its reader setting)."""
        return answer_version(kg_version, self.settings.reader)

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
            hit = read(question, domain, self.answer_version(d.graph.version)) if d is not None else None
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
        gone = cache.discard(question, domain, self.answer_version(d.graph.version))
        routed = cache.peek(question, AUTO_DOMAIN, self.routing_version())
        if routed is not None and routed.get("domain") == domain:
            gone = cache.discard(question, AUTO_DOMAIN, self.routing_version()) or gone
        return gone

    def _check_empty_template(self, a: Asking) -> Asking:
        """A reused template gave no rows: compile the question afresh (no template). When the compiled plan
        is another query and finds rows, the template contradicted it: it is demoted (never reused again nor
        re-learned) and the compiled answer stands (``r.cache["template_demoted"]``). Otherwise the
        template's "none" stands. Returns the question's state whose answer stands."""
        r = a.r
        fresh = Result(question=a.question, domain=r.domain, kg_version=r.kg_version)
        with self._timed(a.timings, "template_check"):
            again = self._answer(Asking(a.question, a.d, fresh, reuse=False))
        if fresh.status != "answered" or not fresh.rows or fresh.cypher == r.cypher:
            return a
        if a.reused is not None and self.plan_cache is not None and hasattr(self.plan_cache, "demote"):
            self.plan_cache.demote([a.reused])
        for name in ("status", "answer", "cypher", "cypher_run", "params", "columns", "rows", "isr", "candidates",
                     "attempts",
                     "subgraph", "evidence", "operators", "error"):
            setattr(r, name, getattr(fresh, name))
        r.cache = {**fresh.cache, "template_demoted": a.reused}
        again.r = r
        return again

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
