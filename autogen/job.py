"""The offline pre-warm job (CacheRAG §4.4): sample, synthesize, filter, compile, verify, ingest.

Per domain: stratified star sampling (:mod:`kgqa.autogen.sampling`); candidates from schema templates
(:mod:`kgqa.autogen.synth`) and, for a bounded share of the budget, questions the LLM writes for the same
triples (:mod:`kgqa.autogen.llm_synth`); the deterministic leak filter and, for LLM questions, the LLM judge;
deterministic compilation and execution with a check against the triples' answer (:mod:`kgqa.autogen.verify`).

What is ingested. A verified tuple enters the plan cache (domain, aspect, KG version, answer) when the
mapping *question -> plan* is trustworthy, which has two independent grounds:

* the question was written **from the spec by construction** (schema templates) and its parameterized
  template **round-trips**: filled from the question itself through the pipeline's own linker, it gives
  back the verified rows. Such entries are ingested even where the pipeline answers the question wrongly
  — that is where a warm cache helps: the verified template carries the hard part;
* the question's words are **not** under our control (LLM-written): it is ingested only when the
  service's pipeline, run with caches off, answers it with the verified rows too.

Every verified example also checks routing (A.7): when the router picks another domain, the right
domain's description is refined and persisted. Progress is persisted under
``<state_dir>/prewarm_state.json`` after every batch, so ``--resume`` continues without redoing or
duplicating work (the plan cache also dedupes by question). Entries are committed in small batches to
the SQLite (WAL) plan cache, which a running server picks up on its next retrieval.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgqa.autogen import llm_synth
from kgqa.autogen.sampling import Sampler
from kgqa.autogen.synth import Candidate, TemplateSynth, select
from kgqa.autogen.verify import agrees, execute, leak, round_trip
from kgqa.cache.plan_cache import PlanCache
from kgqa.cache.plan_entry import PlanEntry
from kgqa.kg.cypher import inline_params
from kgqa.kg.db import DB_FILE
from kgqa.kg.failures import Failures
from kgqa.planner.lexicon import STOP
from kgqa.settings import Settings

STATE_FILE = "prewarm_state.json"
BATCH = 10
LLM_FRACTION = 0.1  # share of each domain's budget given to LLM-written questions
LLM_SECONDS = 90.0  # wall-clock cap on the LLM source per domain and run; later LLM items are skipped
MAX_DESCRIPTION_UPDATES = 5  # per domain and run


@dataclass
class SourceStats:
    generated: int = 0
    skipped_time: int = 0  # LLM items not tried: the LLM time cap was reached
    dropped_empty: int = 0  # the LLM wrote nothing usable
    dropped_leak: int = 0
    dropped_judge: int = 0
    unverified: int = 0
    verified: int = 0
    pipeline_agrees: int = 0
    templated: int = 0
    ingested: int = 0


@dataclass
class DomainReport:
    domain: str
    sources: dict[str, SourceStats] = field(default_factory=lambda: {"template": SourceStats(),
                                                                     "llm": SourceStats()})
    entries_before: int = 0
    entries_after: int = 0
    misroutes: int = 0
    description_updates: int = 0
    seconds: float = 0.0
    note: str = ""
    rejects: dict[str, int] = field(default_factory=dict)  # reason -> count
    failures: dict[str, int] = field(default_factory=dict)  # kind (kg.failures.KINDS) -> items skipped

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> DomainReport:
        data = dict(data)
        data["sources"] = {k: SourceStats(**v) for k, v in data.get("sources", {}).items()}
        return cls(**data)


@dataclass
class PrewarmReport:
    domains: dict[str, DomainReport] = field(default_factory=dict)
    seconds: float = 0.0
    llm: str = ""  # "used", or why the LLM source was skipped

    @property
    def ingested(self) -> int:
        return sum(s.ingested for d in self.domains.values() for s in d.sources.values())

    @property
    def failures(self) -> Failures:
        """Items skipped for a failure, by kind, over every domain."""
        out = Failures()
        for d in self.domains.values():
            out.merge(d.failures)
        return out

    @property
    def empty(self) -> list[str]:
        """The domains that ended the run with no plans."""
        return [name for name, d in self.domains.items() if d.entries_after == 0]

    def to_dict(self) -> dict:
        return {"seconds": self.seconds, "llm": self.llm, "domains": {k: v.to_dict() for k, v in self.domains.items()}}

    def table(self) -> str:
        head = (f"{'domain':10} {'source':8} {'gen':>4} {'leak':>4} {'judge':>5} {'unver':>5} {'verif':>5} "
                f"{'agree':>5} {'tmpl':>4} {'ingest':>6} {'t-cap':>5}")
        lines = [head]
        for name, d in self.domains.items():
            for src, s in d.sources.items():
                lines.append(f"{name:10} {src:8} {s.generated:4} {s.dropped_leak + s.dropped_empty:4} "
                             f"{s.dropped_judge:5} {s.unverified:5} {s.verified:5} {s.pipeline_agrees:5} "
                             f"{s.templated:4} {s.ingested:6} {s.skipped_time:5}")
            lines.append(f"{name:10} entries {d.entries_before} -> {d.entries_after}, misroutes {d.misroutes}, "
                         f"description updates {d.description_updates}, {Failures(dict(d.failures)).text()}, "
                         f"{d.seconds:.1f} s" + (f" ({d.note})" if d.note else ""))
        lines.append(f"total {self.ingested} ingested in {self.seconds:.1f} s; {self.failures.text()} and skipped; "
                     f"domains with no plans: {', '.join(self.empty) or 'none'}; LLM source: {self.llm}")
        return "\n".join(lines)


# -- job state (resume) -------------------------------------------------------------------------------
class JobState:
    """Ids of processed candidates and running stats per domain, persisted atomically as JSON."""

    def __init__(self, path: Path, data: dict | None = None):
        self.path, self.data = Path(path), data or {"domains": {}}

    @classmethod
    def load(cls, path: Path) -> JobState:
        try:
            return cls(path, json.loads(Path(path).read_text()))
        except (OSError, ValueError):
            return cls(path)

    def domain(self, name: str, version: str, budget: int, seed: int, fresh: bool) -> dict:
        d = self.data["domains"].get(name)
        if fresh or d is None or d.get("kg_version") != version or d.get("budget") != budget or d.get("seed") != seed:
            d = {"kg_version": version, "budget": budget, "seed": seed, "done": [], "report": None, "finished": False}
            self.data["domains"][name] = d
        return d

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".prewarm-")
        with os.fdopen(fd, "w") as fh:
            json.dump(self.data, fh)
        os.replace(tmp, self.path)


# -- the job -------------------------------------------------------------------------------------------
class Prewarmer:
    """Runs the pre-warm over a checking pipeline (all loaded graphs, caches off) into ``plan_cache``."""

    def __init__(self, settings: Settings, plan_cache: PlanCache, *, llm: Any = "auto", pipeline=None,
                 seed: int | None = None, llm_fraction: float = LLM_FRACTION, llm_seconds: float = LLM_SECONDS):
        from kgqa.planner.pipeline import Pipeline

        self.settings, self.plan_cache = settings, plan_cache
        self.seed = settings.llm_seed if seed is None else seed
        self.llm_fraction, self.llm_seconds = llm_fraction, llm_seconds
        self.llm_spent: dict[str, float] = {}
        self.llm, self.llm_note = self._load_llm(llm)
        self.pipe = pipeline or Pipeline(settings, llm=self.llm)

    def _load_llm(self, llm):
        if llm is None:
            return None, "off"
        if llm != "auto":
            return llm, "used"
        try:
            from kgqa.planner.llm import EmbeddedLLM, make_llm

            model = make_llm(self.settings)
            if isinstance(model, EmbeddedLLM):
                model.model  # noqa: B018 - load now, so a missing model is reported once, up front
            return model, "used"
        except Exception as err:  # noqa: BLE001 - the template source still runs
            return None, f"skipped: the LLM could not load ({type(err).__name__}: {err})"

    # -- candidates ------------------------------------------------------------------------------------
    def candidates(self, domain: str, budget: int, failures: Failures | None = None
                   ) -> tuple[list[Candidate], list[Candidate]]:
        """(template candidates, bases for LLM candidates) for ``domain`` within ``budget``. With ``failures``,
        a label or star whose queries fail is skipped and counted there (else the error is raised)."""
        d = self.pipe.domains[domain]
        sampler = Sampler(d.graph, d.view, self.seed)
        labels = max(1, len(d.view.nodes))
        per_label = min(12, max(3, math.ceil(budget / (3 * labels))))
        synth = TemplateSynth(sampler, domain, self.seed)
        on_error = failures.add if failures is not None else None
        synth.from_stars(sampler.sample(per_label, on_error), on_error)
        synth.from_labels(on_error)
        n_llm = int(round(budget * self.llm_fraction)) if self.llm is not None else 0
        templates = select(synth.groups, budget - n_llm, self.seed)
        bases = {k: [c for c in g if llm_synth.eligible(c)] for k, g in synth.groups.items()}
        bases = select({k: g for k, g in bases.items() if g}, n_llm, self.seed + 1)
        return templates, bases

    # -- one candidate ---------------------------------------------------------------------------------
    def process(self, c: Candidate, domain: str, rep: DomainReport) -> PlanEntry | None:
        """The plan-cache entry for candidate ``c``, or None (counted in ``rep`` either way). LLM items
        share a wall-clock cap per domain, their pipeline checks included (the pipeline may call the
        model too); once it is spent the remaining LLM items are skipped and counted."""
        if c.source != "llm":
            return self._process(c, domain, rep)
        if self.llm_spent.get(domain, 0.0) >= self.llm_seconds:
            rep.sources["llm"].skipped_time += 1
            return None
        t0 = time.perf_counter()
        try:
            return self._process(c, domain, rep)
        finally:
            self.llm_spent[domain] = self.llm_spent.get(domain, 0.0) + time.perf_counter() - t0

    def _process(self, c: Candidate, domain: str, rep: DomainReport) -> PlanEntry | None:
        from kgqa.planner.isr import parse_isr
        from kgqa.planner.linker import link_mentions
        from kgqa.planner.summarizer import summarize

        d = self.pipe.domains[domain]
        src = rep.sources[c.source]
        if c.source == "llm":
            try:
                made = llm_synth.generate(self.llm, c)
            except Exception:  # noqa: BLE001 - a failed call drops the item
                made = None
            if made is None:
                src.generated += 1
                src.dropped_empty += 1
                return None
            c = made
        src.generated += 1
        why = leak(c)
        if why:
            src.dropped_leak += 1
            rep.rejects[why] = rep.rejects.get(why, 0) + 1
            return None
        if c.source == "llm":
            try:
                sensible = llm_synth.judge(self.llm, c)
            except Exception:  # noqa: BLE001
                sensible = False
            if not sensible:
                src.dropped_judge += 1
                return None
        v = execute(c, d)
        if v.failure:
            rep.failures[v.failure] = rep.failures.get(v.failure, 0) + 1
        if not v.ok:
            src.unverified += 1
            rep.rejects[v.reason[:40]] = rep.rejects.get(v.reason[:40], 0) + 1
            return None
        src.verified += 1
        result = self.pipe.ask(c.question, domain, use_answer_cache=False)
        agree = agrees(result, v, c.spec.ordered)
        src.pipeline_agrees += agree
        mentions, _ = link_mentions(c.question, d.compiler, d.index)
        tpl = round_trip(c, v, d, mentions)
        src.templated += tpl is not None
        self._check_route(c, domain, rep)
        if not (agree if c.source == "llm" else (tpl is not None or agree)):
            return None
        isr = parse_isr(c.question, mentions, domain)
        answer, _ = summarize(c.question, v.columns, v.rows, empty_is_answer=True)
        src.ingested += 1
        return PlanEntry(question=c.question, cypher=inline_params(v.cypher, v.params), domain=domain, aspect=isr.aspect,
                         isr=isr.to_dict(), operators=[], answer=answer, kg_version=d.graph.version,
                         template=tpl.to_dict() if tpl else None, provenance="prewarm")

    def _check_route(self, c: Candidate, domain: str, rep: DomainReport) -> None:
        """A.7: a verified example routed elsewhere refines the right domain's description."""
        if len(self.pipe.domains) < 2:
            return
        route = self.pipe.router.route(c.question)
        if route.domain == domain:
            return
        rep.misroutes += 1
        if rep.description_updates >= MAX_DESCRIPTION_UPDATES:
            return
        comp = self.pipe.domains[domain].compiler
        spans = [(m.start, m.end) for m in comp.value_mentions(c.question) if m.label]
        terms = [phrase for _, _, phrase, _ in comp.lex.scan(c.question, spans)]
        rest = "".join(" " if any(a <= i < b for a, b in spans) else ch for i, ch in enumerate(c.question))
        terms += [w for w in re.findall(r"[a-z][a-z'-]{3,}", rest.lower()) if w not in STOP]
        strong = self.llm if self.settings.llm_backend == "openai" else None
        before = self.pipe.descriptions.get(domain)
        after = self.pipe.descriptions.refine(domain, c.question, route.domain, terms, llm=strong)
        rep.description_updates += after != before

    # -- a whole domain --------------------------------------------------------------------------------
    def run_domain(self, domain: str, budget: int, state: JobState | None = None, *, resume: bool = False,
                   progress=None) -> DomainReport:
        t0 = time.perf_counter()
        d = self.pipe.domains[domain]
        st = state.domain(domain, d.graph.version, budget, self.seed, fresh=not resume) if state else None
        rep = DomainReport.from_dict(st["report"]) if st and st.get("report") else DomainReport(domain)
        rep.entries_before = len(self.plan_cache.entries(domain))
        failures = Failures(rep.failures)  # counts into rep.failures
        try:
            templates, bases = self.candidates(domain, budget, failures)
        except Exception as err:  # noqa: BLE001 - a domain that yields no candidates ends with what it has
            failures.add(err)
            templates, bases = [], []
        done = set(st["done"]) if st else set()
        items = [(c.id, c) for c in templates] + [("llm:" + c.id, c) for c in bases]
        todo = [(i, c) for i, c in items if i not in done]
        task = progress.add_task(domain, total=len(items), completed=len(items) - len(todo)) if progress else None
        batch: list[PlanEntry] = []
        finished_ids: list[str] = []

        def flush() -> None:
            if batch:
                self.plan_cache.add_many(batch)
                batch.clear()
            if st is not None:
                st["done"].extend(finished_ids)
                rep.seconds += time.perf_counter() - t_flush[0]
                t_flush[0] = time.perf_counter()
                st["report"] = rep.to_dict()
                state.save()
            finished_ids.clear()

        t_flush = [t0]
        for todo_id, c in todo:
            if todo_id.startswith("llm:"):
                c = Candidate(c.domain, "llm", c.shape, c.question, c.spec, c.expected, c.anchors, c.facts, c.id)
            try:
                entry = self.process(c, domain, rep)
            except Exception as err:  # noqa: BLE001 - one item's failure (guard, engine, timeout) skips it
                failures.add(err)
                entry = None
            if entry is not None:
                batch.append(entry)
            finished_ids.append(todo_id)
            if progress:
                progress.advance(task)
            if len(finished_ids) >= BATCH:
                flush()
        flush()
        if st is None:
            rep.seconds += time.perf_counter() - t0
        rep.entries_after = len(self.plan_cache.entries(domain))
        if st is not None:
            st["finished"], st["report"] = True, rep.to_dict()
            state.save()
        return rep


def prewarm_into(settings: Settings, plan_cache: PlanCache, domains: list[str], budget: int, progress: bool = False,
                 *, llm: Any = "auto", seed: int | None = None, llm_fraction: float = LLM_FRACTION,
                 llm_seconds: float = LLM_SECONDS, pipeline=None) -> PrewarmReport:
    """Fill ``plan_cache`` with verified plans for ``domains`` (``budget`` candidates each); no resume state.

    ``llm``: "auto" (the configured backend, skipped if it cannot load), None (templates only) or an
    :class:`kgqa.planner.llm.LLM`. Used by the ablation to compare an empty and a pre-warmed cache."""
    t0 = time.perf_counter()
    job = Prewarmer(settings, plan_cache, llm=llm, pipeline=pipeline, seed=seed, llm_fraction=llm_fraction,
                    llm_seconds=llm_seconds)
    report = PrewarmReport(llm=job.llm_note)
    with _progress(progress) as bar:
        for name in domains:
            if name in job.pipe.domains:
                report.domains[name] = job.run_domain(name, budget, progress=bar)
    report.seconds = time.perf_counter() - t0
    return report


def run_prewarm(settings: Settings, domains: list[str], budget: int, resume: bool, if_empty: bool) -> int:
    """``kgqa prewarm``: pre-warm the service's plan cache; prints a per-source table; exit code."""
    from kgqa.cache.store import open_plan_cache

    t0 = time.perf_counter()
    missing = [d for d in domains if not (settings.graph_path(d) / DB_FILE).exists()]
    if missing:
        print(f"prewarm: no graph for {', '.join(missing)} under {settings.graphs_dir}: run `kgqa load` first",
              file=sys.stderr)
        domains = [d for d in domains if d not in missing]
        if not domains:
            return 1
    from kgqa.planner.version import compiler_version

    plan_cache = open_plan_cache(settings, code_version=compiler_version())
    if if_empty:
        warm = {d: len(plan_cache.entries(d)) for d in domains}
        for d, n in warm.items():
            if n:
                print(f"prewarm: {d} already has {n} plan-cache entries; skipped (--if-empty)")
        domains = [d for d in domains if not warm[d]]
        if not domains:
            return 0
    state = JobState.load(settings.state_dir / STATE_FILE)
    print(f"prewarm: {', '.join(domains)} (budget {budget} questions per domain"
          f"{', resuming' if resume else ''}); loading graphs and the LLM ...", flush=True)
    job = Prewarmer(settings, plan_cache)
    if job.llm is None:
        print(f"prewarm: LLM source {job.llm_note}; schema templates only", flush=True)
    report = PrewarmReport(llm=job.llm_note)
    with _progress(True) as bar:
        for name in domains:
            report.domains[name] = job.run_domain(name, budget, state, resume=resume, progress=bar)
    report.seconds = time.perf_counter() - t0
    print(report.table())
    plan_cache.close()
    if report.empty:
        print(f"prewarm: no verified plans for {', '.join(report.empty)}", file=sys.stderr)
        return 1
    return 0


class _NoProgress:
    def __enter__(self):
        return None

    def __exit__(self, *exc) -> None:
        return None


def _progress(show: bool):
    if not show:
        return _NoProgress()
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("prewarm {task.description:10}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
