"""Cache benchmark (issue 4): the answer cache and the plan cache, measured in one run.

Sections, all on the real graphs and the real :class:`kgqa.planner.pipeline.Pipeline` unless noted:

1. **Answer-cache hits** - every question of ``northwind_dev.jsonl`` and ``evals/questions/*.jsonl`` (not the
   mixed ``unseen.jsonl``, ``heldout.jsonl`` and ``fresh.jsonl``) is asked once with ``use_answer_cache=False`` (the uncached pipeline, plan cache
   off) and then again, several times, through ``Pipeline.ask`` with the (memory-efficient) answer cache on;
   p50/p99 of both and the p50 ratio.
2. **Compression** - the real ``Result.to_dict()`` objects of section 1 plus a few large-row questions are
   put into a plain LRU, a compress-only LRU and the memory-efficient LRU (prune to N rows + zlib-ng):
   bytes saved and the encode (put) / decode (get) CPU cost per entry.
3. **MMR retrieval** - ``PlanCache.retrieve`` (BM25, lambda 0.5, k 5) at 1k/10k/100k synthetic entries made
   from real entity names of the three graphs and question phrasings of each aspect; p50/p99 per query.
4. **Sample sizes** (paper 001, Figures 2-3) - a stream of N = 20/40/60/80 questions drawn with repeats
   (Zipf over the question pool, surface variants such as case and punctuation that the key normalizer
   absorbs), run with no cache, an LRU and the compressed LRU, each from an empty cache and interleaved
   question by question so outside load hits all three alike: queries per second and mean latency (PNG
   ``cache_sample_sizes.png``).
5. **Parameterized reuse** - 2-fold split of ``northwind_dev.jsonl``: the plan cache learns online on fold
   A through the pipeline, then fold B is asked with a cache that may reuse but not learn; and vice versa.
   Fraction answered by a filled template (no compilation) and its accuracy against gold (``rows_match``).
   Also with the cache filled only by the pre-warm job (``autogen``, schema-template questions, no LLM;
   ``--prewarm-budget`` candidates) and every question of the set asked through it, reuse only.
6. **Bounded plan cache** - the same protocol with ``bound = 10`` against unbounded: space and reuse.
7. **Semantic hits** - fold A's results in an answer cache with ``semantic_threshold = t``; fold B's
   (different) questions asked: semantic hits and how many of them return rows that are wrong for the
   question asked.

    kgqa bench cache [--quick] [--out DIR]

Last line: ``cache-bench hit_p50_ms=<x> speedup=<x> compression_saving=<x> mmr_10k_ms=<x> param_reuse=<x>``.

Size: one benchmark whose seven sections share one pipeline, one set of questions and one report;
split, each part would re-load both.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgqa.evals.benchutil import percentile
from kgqa.evals.make_gold import MIXED_SETS
from kgqa.jsonl import read_jsonl

REPO = Path(__file__).resolve().parent.parent
# Our own sets; not the mixed ones (unseen, heldout, fresh: third-party phrasing, their northwind half is no
# northwind_dev and their unanswerable lines have no rows to compare; heldout and fresh are scored only for reports), so the figures stay
# comparable with earlier runs.
QUESTION_SETS = sorted(p for p in (REPO / "evals" / "questions").glob("*.jsonl") if p.stem not in MIXED_SETS)
LARGE_QUESTIONS = (  # real questions whose answers carry many rows (the "large context" objects)
    ("northwind", "List all orders"),
    ("northwind", "List all products"),
    ("northwind", "List all customers"),
    ("movies", "List all people"),
    ("movies", "List all movies"),
    ("nobel", "List all laureates"),
)
SEMANTIC_THRESHOLDS = (0.75, 0.80, 0.85, 0.90, 0.95)


@dataclass
class Question:
    id: str
    domain: str
    question: str
    gold_rows: list | None = None
    ordered: bool = False


# -- helpers -----------------------------------------------------------------------------------------
def load_questions(data_dir: Path, domains: set[str] | None = None) -> list[Question]:
    """Returns the questions of the shared dev set and our question sets, only those of ``domains`` (the
    registered graphs) when given: a set for a graph not loaded here (e.g. the library fixture) is skipped."""
    out = []
    for path in [data_dir / "northwind_dev.jsonl", *QUESTION_SETS]:
        if not path.exists():
            continue
        out += [Question(r["id"], r["domain"], r["question"], r.get("gold_rows"), bool(r.get("ordered")))
                for r in read_jsonl(path) if domains is None or r["domain"] in domains]
    return out


def correct(result: dict, q: Question) -> bool:
    """Execution accuracy of one result, by the scorer's rules (lenient columns)."""
    from kgqa.evals.scorer import executable
    from kgqa.kg.compare import rows_match

    rows = result.get("rows") if executable(result) else None
    return rows_match(rows, q.gold_rows or [], q.ordered)


def timed_ask(pipe, q: str, domain: str | None, **kw) -> tuple[Any, float]:
    t0 = time.perf_counter()
    r = pipe.ask(q, domain, **kw)
    return r, (time.perf_counter() - t0) * 1000


class ReuseOnly:
    """A plan cache seen by a pipeline that may read (template reuse, exemplars) but not learn."""

    _WRITES = frozenset({"learn", "add", "add_many", "invalidate", "clear"})

    def __init__(self, cache):
        self._cache = cache

    def __getattr__(self, name: str):
        if name in self._WRITES:
            raise AttributeError(name)
        return getattr(self._cache, name)


def bench_home(settings) -> Path:
    """A temporary KGQA home whose graphs are the built ones (symlinked); caches start empty."""
    home = Path(tempfile.mkdtemp(prefix="kgqa-bench-cache-"))
    (home / "graphs").symlink_to(settings.graphs_dir.resolve())
    return home


# -- 1. answer-cache hit latency ---------------------------------------------------------------------
def section_hits(pipe, questions: list[Question], repeats: int, console) -> dict:
    uncached, results = [], {}
    for q in tqdm(questions, desc="uncached pipeline", console=console):
        r, ms = timed_ask(pipe, q.question, q.domain, use_answer_cache=False)
        uncached.append(ms)
        results[q.id] = r.to_dict()
    hits, misses, llm = [], 0, 0
    for _ in tqdm(range(repeats), desc="answer-cache hits", console=console):
        for q in questions:
            r, ms = timed_ask(pipe, q.question, q.domain)
            if r.cache.get("answer_hit"):
                hits.append(ms)
                llm += r.cache.get("llm_calls", 0)
            else:
                misses += 1
    acc = sum(correct(results[q.id], q) for q in questions) / len(questions)
    out = {"questions": len(questions), "uncached_p50_ms": statistics.median(uncached),
           "uncached_p99_ms": percentile(uncached, 99, empty=math.nan),
           "uncached_mean_ms": statistics.fmean(uncached),
           "hit_p50_ms": statistics.median(hits) if hits else float("nan"),
           "hit_p99_ms": percentile(hits, 99, empty=math.nan),
           "hit_mean_ms": statistics.fmean(hits) if hits else float("nan"), "hits": len(hits),
           "non_hits": misses, "llm_calls_on_hits": llm, "accuracy": acc}
    out["speedup"] = out["uncached_p50_ms"] / out["hit_p50_ms"] if hits else 0.0
    return out, results


# -- 2. compression ------------------------------------------------------------------------------------
def section_compression(values: list[dict], settings) -> dict:
    from kgqa.cache.answer_cache import AnswerCache

    variants = {
        "lru": dict(prune_rows=0, compress=False),
        "compress-only": dict(prune_rows=0, compress=True),
        "memory-efficient": dict(prune_rows=settings.answer_prune_rows, compress=True),
    }
    out = {}
    large_cut = 8 * 1024
    for name, kw in variants.items():
        cache = AnswerCache(len(values) + 1, 1 << 40, compress_min_bytes=settings.answer_compress_min_bytes, **kw)
        put_us, get_us = [], []
        for i, v in enumerate(values):
            t0 = time.perf_counter()
            cache.put(f"q{i}", v.get("domain"), v.get("kg_version"), v)
            put_us.append((time.perf_counter() - t0) * 1e6)
        for i, v in enumerate(values):
            t0 = time.perf_counter()
            got = cache.get(f"q{i}", v.get("domain"), v.get("kg_version"))
            get_us.append((time.perf_counter() - t0) * 1e6)
            assert got is not None and got["answer"] == v["answer"]
        s = cache.stats()
        large = [it for it in cache._data.values() if it.original >= large_cut]
        lo, ls = sum(it.original for it in large), sum(it.size for it in large)
        out[name] = {"entries": s["entries"], "original_bytes": s["original_bytes"], "stored_bytes": s["stored_bytes"],
                     "saving": 1 - s["stored_bytes"] / s["original_bytes"], "pruned": s["pruned"],
                     "compressed": s["compressed"], "large_entries": len(large),
                     "large_saving": (1 - ls / lo) if lo else 0.0,
                     "put_us_p50": statistics.median(put_us),
                     "put_us_p99": percentile(put_us, 99, empty=math.nan),
                     "get_us_p50": statistics.median(get_us),
                     "get_us_p99": percentile(get_us, 99, empty=math.nan),
                     "put_us_mean": statistics.fmean(put_us), "get_us_mean": statistics.fmean(get_us)}
    return out


# -- 3. MMR retrieval at scale ---------------------------------------------------------------------------
SYNTH = {
    "movies": [
        "Who directed {movie}?", "Who acted in {movie}?", "Which movies has {person} acted in?",
        "How many movies did {person} act in?", "What year was {movie} released?", "What is the tagline of {movie}?",
        "Which movies were released after {year}?", "Which movies came out before {year}?",
        "Who produced {movie}?", "Which movies did {person} direct?", "Top {n} movies with the most actors",
        "Who acted in {movie} with {person}?", "Is {movie} older than {movie2}?", "Who reviewed {movie}?",
        "What is the average rating of {movie}?", "Which people acted in movies directed by {person}?",
        "How many people acted in {movie}?", "Which actor appeared in the most movies with {person}?",
    ],
    "northwind": [
        "Which products does '{supplier}' supply?", "What are the top {n} most expensive products supplied by "
        "'{supplier}'?", "How many orders did {customer} place?", "Which products are in the {category} category?",
        "What is the unit price of {product}?", "Which customers ordered {product}?", "Which products cost more "
        "than {price}?", "What is the average unit price of products in {category}?", "Which supplier supplies "
        "{product}?", "How many products are in {category}?", "List the products with fewer than {n} units in stock",
        "Which customers from {country} placed orders?", "What is the total quantity of {product} ordered?",
        "Which orders were shipped to {country}?", "Which category has the most products?",
        "Does {supplier} supply more products than {supplier2}?",
    ],
    "nobel": [
        "Who won the Nobel Prize in {prize} in {year}?", "When was {laureate} born?", "Which prizes did {laureate} "
        "win?", "How many laureates won in {prize}?", "Where was {laureate} born?", "Which laureates were born "
        "in {country}?", "Which institution was {laureate} affiliated with?", "How many prizes were awarded in "
        "{year}?", "What was the prize amount in {prize} in {year}?", "Which laureates won after {year} in "
        "{prize}?", "Who was the youngest laureate in {prize}?", "What is the motivation of {laureate}'s prize?",
        "Which laureates were affiliated with institutions in {country}?", "Was {laureate} born before "
        "{laureate2}?", "What is the average prize amount in {prize}?", "Top {n} countries by number of laureates",
    ],
}
_NAME_QUERIES = {
    "movie": ("movies", "MATCH (m:Movie) RETURN m.title"), "person": ("movies", "MATCH (p:Person) RETURN p.name"),
    "supplier": ("northwind", "MATCH (s:Supplier) RETURN s.companyName"),
    "customer": ("northwind", "MATCH (c:Customer) RETURN c.companyName"),
    "product": ("northwind", "MATCH (p:Product) RETURN p.productName"),
    "category": ("northwind", "MATCH (c:Category) RETURN c.categoryName"),
    "laureate": ("nobel", "MATCH (l:Laureate) RETURN l.knownName"),
    "country": ("nobel", "MATCH (c:Country) RETURN c.name"),
    "prize": ("nobel", "MATCH (p:Prize) RETURN DISTINCT p.category"),
}


def real_names(settings) -> dict[str, list[str]]:
    from kgqa.kg.db import Graph

    names: dict[str, list[str]] = {}
    graphs: dict[str, Graph] = {}
    try:
        for slot, (domain, cypher) in _NAME_QUERIES.items():
            if domain not in graphs:
                graphs[domain] = Graph(settings.graph_path(domain), read_only=True, row_cap=10_000)
            names[slot] = sorted({str(r[0]) for r in graphs[domain].query(cypher).rows if r[0]})
    finally:
        for g in graphs.values():
            g.close()
    return names


def synthetic_questions(n: int, names: dict[str, list[str]], seed: int) -> list[tuple[str, str, str]]:
    """``n`` (domain, aspect, question) made from the aspect phrasings and real names."""
    from kgqa.planner.isr import aspect_of

    rng = random.Random(seed)
    out = []
    domains = list(SYNTH)
    for i in range(n):
        d = domains[i % len(domains)]
        tpl = rng.choice(SYNTH[d])
        fill = {k: rng.choice(v) for k, v in names.items()}
        fill.update(movie2=rng.choice(names["movie"]), supplier2=rng.choice(names["supplier"]),
                    laureate2=rng.choice(names["laureate"]), year=rng.randint(1901, 2023), n=rng.randint(2, 20),
                    price=rng.choice([10, 15, 20, 25.5, 30, 50, 100]))
        q = tpl.format(**fill)
        out.append((d, aspect_of(q), q))
    return out


def section_mmr(settings, sizes: list[int], queries: int, seed: int, tmp: Path, console,
                embed_sizes: tuple[int, ...] = (1000,)) -> dict:
    from kgqa.cache.plan_cache import PlanCache
    from kgqa.cache.plan_entry import PlanEntry

    names = real_names(settings)
    out = {}
    for n in sizes:
        entries = [PlanEntry(question=q, cypher=f"MATCH (n) WHERE n.id = $v RETURN n /* {i} */", domain=d, aspect=a,
                             answer="x", kg_version="v1", isr={"aspect": a})
                   for i, (d, a, q) in enumerate(synthetic_questions(n, names, seed))]
        probe = synthetic_questions(queries, names, seed + 1)
        path = tmp / f"mmr-{n}.sqlite"
        t0 = time.perf_counter()
        with PlanCache(path) as pc:
            for i in range(0, n, 10_000):
                pc.add_many(entries[i:i + 10_000])
            load_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            for d, dom in pc._buckets.items():  # first retrieval of each bucket builds its BM25 matrix
                for a in dom:
                    pc.retrieve("warm up", d, a)
            build_s = time.perf_counter() - t0
            bucket_sizes = [len(b.ids) for dom in pc._buckets.values() for a, b in dom.items() if a != "*"]
            rec = {"entries": len(pc), "load_s": load_s, "index_build_s": build_s,
                   "bucket_median": statistics.median(bucket_sizes)}
            for d, a, q in probe[:20]:  # warm-up (numpy/scipy code paths), not timed
                pc.retrieve(q, d, a, k=5, lam=0.5)
            for label, fn in (("mmr", lambda q, d, a: pc.retrieve(q, d, a, k=5, lam=0.5)),
                              ("topk", lambda q, d, a: pc.top_k_bm25(q, d, a, k=5)),
                              ("relaxed", lambda q, d, a: pc.retrieve(q, d, "no-such-aspect", k=5, lam=0.5))):
                times = []
                for d, a, q in (probe if label != "relaxed" else probe[: max(20, len(probe) // 5)]):
                    t0 = time.perf_counter()
                    got = fn(q, d, a)
                    times.append((time.perf_counter() - t0) * 1000)
                    assert len(got) == 5
                rec[f"{label}_p50_ms"] = statistics.median(times)
                rec[f"{label}_p99_ms"] = percentile(times, 99, empty=math.nan)
            if n in embed_sizes:
                for d, dom in pc._buckets.items():
                    for a in dom:
                        pc.retrieve("warm up", d, a, sim="embedding")
                times = []
                for d, a, q in probe[:100]:
                    from kgqa.kg.embed import embed

                    embed([q])  # the question's vector is computed once per request anyway: time the retrieval
                    t0 = time.perf_counter()
                    pc.retrieve(q, d, a, k=5, lam=0.5, sim="embedding")
                    times.append((time.perf_counter() - t0) * 1000)
                rec["embedding_p50_ms"] = statistics.median(times)
                rec["embedding_p99_ms"] = percentile(times, 99, empty=math.nan)
        path.unlink(missing_ok=True)
        for extra in tmp.glob(f"mmr-{n}.sqlite-*"):
            extra.unlink()
        out[n] = rec
        console.print(f"  MMR {n:,} entries: p50 {rec['mmr_p50_ms']:.3f} ms, p99 {rec['mmr_p99_ms']:.3f} ms")
    return out


# -- 4. throughput and latency against sample size (paper 001, Figures 2-3) ---------------------------------
def variant(question: str, rng: random.Random) -> str:
    """A surface variant the answer-cache key normalizer absorbs (case outside quoted literals, spacing,
    final punctuation)."""
    choice = rng.randrange(5)
    if choice == 1:
        return _recase(question, str.lower)
    if choice == 2:
        return question.rstrip("?. ")
    if choice == 3:
        return "  " + question.replace(" ", "  ", 1) + " "
    if choice == 4:
        return _recase(question, str.upper) if len(question) < 60 else question.rstrip("?") + "?!"
    return question


def _recase(question: str, how) -> str:
    """``question`` with ``how`` applied outside its quoted literals (their case is part of the key)."""
    from kgqa.cache.templates import quoted_spans

    out, pos = [], 0
    for a, b in quoted_spans(question):
        out += [how(question[pos:a]), question[a:b]]
        pos = b
    return "".join(out) + how(question[pos:])


def stream(pool: list[Question], n: int, seed: int, zipf_s: float = 1.0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    order = pool[:]
    rng.shuffle(order)
    weights = [1.0 / (r + 1) ** zipf_s for r in range(len(order))]
    picks = rng.choices(order, weights=weights, k=n)
    return [(variant(q.question, rng), q.domain) for q in picks]


def section_sample_sizes(pipe, settings, pool: list[Question], sizes: list[int], seeds: list[int],
                         console) -> dict:
    """Each config serves the same stream from an empty cache. The configs are interleaved question by
    question (in rotating order), so load from other processes hits them alike; a config's time is the
    sum of its own per-question latencies and its throughput N / that time."""
    from kgqa.cache.store import open_answer_cache

    configs = {"no cache": lambda: None, "LRU": lambda: open_answer_cache(settings, memory_efficient=False),
               "compressed LRU": lambda: open_answer_cache(settings)}
    names = list(configs)
    saved = pipe.answer_cache
    out: dict[str, dict[int, dict]] = {c: {} for c in configs}
    try:
        for n in sizes:
            runs: dict[str, list[tuple[float, ...]]] = {c: [] for c in configs}
            for seed in seeds:
                caches = {c: make() for c, make in configs.items()}
                times: dict[str, list[float]] = {c: [] for c in configs}
                hits = dict.fromkeys(configs, 0)
                for i, (q, d) in enumerate(stream(pool, n, seed)):
                    for c in names[i % 3:] + names[:i % 3]:
                        pipe.answer_cache = caches[c]
                        r, ms = timed_ask(pipe, q, d)
                        times[c].append(ms)
                        hits[c] += bool(r.cache.get("answer_hit"))
                for c in configs:
                    total_s = sum(times[c]) / 1000
                    runs[c].append((n / total_s, statistics.fmean(times[c]), statistics.median(times[c]), hits[c] / n,
                                    caches[c].stats()["stored_bytes"] if caches[c] is not None else 0))
            for c in configs:
                qps, lat, p50, hit, mem = (statistics.fmean(x) for x in zip(*runs[c]))
                out[c][n] = {"qps": qps, "latency_ms": lat, "latency_p50_ms": p50, "hit_rate": hit,
                             "stored_bytes": mem}
            console.print(f"  N={n}: " + ", ".join(f"{c} {out[c][n]['qps']:.1f} q/s" for c in configs))
    finally:
        pipe.answer_cache = saved
    return out


def plot_sample_sizes(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for name, by_n in data.items():
        ns = sorted(by_n)
        a.plot(ns, [by_n[n]["qps"] for n in ns], marker="o", label=name)
        b.plot(ns, [by_n[n]["latency_ms"] for n in ns], marker="o", label=name)
    a.set(title="Throughput vs sample size (cf. paper 001 Fig. 2)", xlabel="sample size (questions)",
          ylabel="queries per second")
    b.set(title="Latency vs sample size (cf. paper 001 Fig. 3)", xlabel="sample size (questions)",
          ylabel="mean latency per question (ms)")
    for ax in (a, b):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- 5/6. parameterized reuse and bounded mode -------------------------------------------------------------
def folds(questions: list[Question], seed: int) -> tuple[list[Question], list[Question]]:
    order = questions[:]
    random.Random(seed).shuffle(order)
    return order[0::2], order[1::2]


def _reuse_record(pipe, q: Question, baseline: dict[str, dict]) -> dict:
    """One question through a reuse-only plan cache: hit, right, right when compiled, LLM calls."""
    r = pipe.ask(q.question, q.domain).to_dict()
    return {"id": q.id, "hit": bool(r["cache"].get("plan_hit")), "ok": correct(r, q),
            "base_ok": correct(baseline[q.id], q), "llm": r["cache"].get("llm_calls", 0)}


def _reuse_summary(recs: list[dict], **extra) -> dict:
    """Reuse fraction and accuracy of :func:`_reuse_record` records, plus ``extra`` fields."""
    hits = [r for r in recs if r["hit"]]
    n = len(recs) or 1
    return {"questions": len(recs), "reuse_hits": len(hits), "reuse_fraction": len(hits) / n,
            "reuse_accuracy": (sum(r["ok"] for r in hits) / len(hits)) if hits else float("nan"),
            "compiled_accuracy_same": (sum(r["base_ok"] for r in hits) / len(hits)) if hits else float("nan"),
            "reuse_wrong_where_compiled_right": sum(1 for r in hits if r["base_ok"] and not r["ok"]),
            "reuse_right_where_compiled_wrong": sum(1 for r in hits if r["ok"] and not r["base_ok"]),
            "accuracy_with_cache": sum(r["ok"] for r in recs) / n,
            "accuracy_without_cache": sum(r["base_ok"] for r in recs) / n,
            "llm_calls_on_hits": sum(r["llm"] for r in hits), **extra}


def section_reuse(pipe, questions: list[Question], baseline: dict[str, dict], bound: int, seed: int,
                  tmp: Path, console, tag: str) -> dict:
    """2-fold: learn online on one fold through the pipeline, reuse (frozen) on the other."""
    from kgqa.cache.plan_cache import PlanCache

    fa, fb = folds(questions, seed)
    saved_plan, saved_answer = pipe.plan_cache, pipe.answer_cache
    recs, sizes, entries, templates = [], 0, 0, 0
    try:
        pipe.answer_cache = None
        for k, (train, test) in enumerate(((fa, fb), (fb, fa))):
            path = tmp / f"reuse-{tag}-{k}.sqlite"
            with PlanCache(path, bound=bound) as pc:
                pipe.plan_cache = pc
                for q in tqdm(train, desc=f"{tag}: learn fold {k + 1}", console=console):
                    pipe.ask(q.question, q.domain)
                st = pc.stats()
                sizes, entries, templates = sizes + st["size_bytes"], entries + st["entries"], templates + st["templates"]
                pipe.plan_cache = ReuseOnly(pc)
                for q in tqdm(test, desc=f"{tag}: reuse fold {k + 1}", console=console):
                    recs.append(_reuse_record(pipe, q, baseline))
    finally:
        pipe.plan_cache, pipe.answer_cache = saved_plan, saved_answer
    return _reuse_summary(recs, entries=entries, templates=templates, size_bytes=sizes, bound=bound)


def section_reuse_prewarm(pipe, questions: list[Question], baseline: dict[str, dict], budget: int, seed: int,
                          tmp: Path, console, domain: str) -> dict:
    """Reuse from a plan cache filled only by the pre-warm job (never by the asked questions)."""
    from kgqa.autogen.job import prewarm_into
    from kgqa.cache.plan_cache import PlanCache

    saved_plan, saved_answer = pipe.plan_cache, pipe.answer_cache
    recs = []
    try:
        pipe.answer_cache = None
        with PlanCache(tmp / f"reuse-prewarm-{domain}.sqlite") as pc:
            t0 = time.perf_counter()
            report = prewarm_into(pipe.settings, pc, [domain], budget, llm=None, seed=seed)
            warm_s = time.perf_counter() - t0
            st = pc.stats()
            pipe.plan_cache = ReuseOnly(pc)
            for q in tqdm(questions, desc=f"{domain}: reuse after pre-warm", console=console):
                recs.append(_reuse_record(pipe, q, baseline))
    finally:
        pipe.plan_cache, pipe.answer_cache = saved_plan, saved_answer
    return _reuse_summary(recs, entries=st["entries"], templates=st["templates"], size_bytes=st["size_bytes"],
                          bound=0, budget=budget, prewarm_s=warm_s, prewarm=report.to_dict())


# -- 7. semantic threshold ---------------------------------------------------------------------------------
def section_semantic(questions: list[Question], results: dict[str, dict], seed: int) -> dict:
    from kgqa.cache.answer_cache import AnswerCache

    fa, fb = folds(questions, seed)
    out = {}
    for t in SEMANTIC_THRESHOLDS:
        hits = wrong = asked = 0
        for train, test in ((fa, fb), (fb, fa)):
            cache = AnswerCache(len(train) + 1, 1 << 40, semantic_threshold=t)
            for q in train:
                v = results[q.id]
                if v["status"] in ("answered", "dont_know"):
                    cache.put(q.question, v["domain"], v["kg_version"], v)
            for q in test:
                v = results[q.id]
                asked += 1
                got = cache.get(q.question, v["domain"], v["kg_version"])
                if got is not None:
                    hits += 1
                    wrong += not correct(got, q)
        out[t] = {"asked": asked, "hits": hits, "wrong": wrong, "hit_rate": hits / asked,
                  "wrong_rate_of_hits": wrong / hits if hits else 0.0}
    return out


# -- report ---------------------------------------------------------------------------------------------
def tqdm(it, desc: str, console):
    from tqdm import tqdm as _tqdm

    return _tqdm(it, desc=desc, leave=False, disable=not console.is_terminal)


def render(res: dict, args, elapsed: float) -> tuple[list, str]:
    """(rich tables, markdown) of the results."""
    from rich.table import Table

    tables, md = [], []
    cmd = "kgqa bench cache" + (" --quick" if args.quick else "")
    md += ["## Cache benchmark (issue 4)", "", f"Command: `{cmd}` ({elapsed:.0f} s). Timings are noisy on a shared "
           "2-core machine; ratios are taken within one run.", ""]

    def table(title: str, cols: list[str], rows: list[list[str]]):
        t = Table(title=title)
        for c in cols:
            t.add_column(c, justify="right")
        for r in rows:
            t.add_row(*r)
        tables.append(t)
        md.extend([f"### {title}", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)])
        md.extend("| " + " | ".join(r) + " |" for r in rows)
        md.append("")

    h = res["hits"]
    table(f"Answer-cache hit vs uncached pipeline ({h['questions']} questions, Pipeline.ask)",
          ["path", "p50 ms", "p99 ms", "mean ms", "n"],
          [["uncached (use_answer_cache=False)", f"{h['uncached_p50_ms']:.2f}", f"{h['uncached_p99_ms']:.2f}",
            f"{h['uncached_mean_ms']:.2f}", str(h["questions"])],
           ["answer-cache hit", f"{h['hit_p50_ms']:.3f}", f"{h['hit_p99_ms']:.3f}", f"{h['hit_mean_ms']:.3f}",
            str(h["hits"])],
           ["speedup (p50 ratio)", f"{h['speedup']:.0f}x", "", "", f"llm_calls on hits: {h['llm_calls_on_hits']}"]])
    c = res["compression"]
    table(f"Compression on real Result.to_dict() objects ({c['lru']['entries']} results, "
          f"{c['lru']['large_entries']} >= 8 KiB)",
          ["variant", "original KiB", "stored KiB", "saving", "saving (>= 8 KiB)", "pruned", "compressed",
           "put us p50/p99", "get us p50/p99"],
          [[name, f"{v['original_bytes'] / 1024:.1f}", f"{v['stored_bytes'] / 1024:.1f}", f"{v['saving']:.1%}",
            f"{v['large_saving']:.1%}", str(v["pruned"]), str(v["compressed"]),
            f"{v['put_us_p50']:.0f} / {v['put_us_p99']:.0f}", f"{v['get_us_p50']:.0f} / {v['get_us_p99']:.0f}"]
           for name, v in c.items()])
    m = res["mmr"]
    table("Plan-cache MMR retrieval (BM25, lambda 0.5, k 5; synthetic entries from real names)",
          ["entries", "median bucket", "load s", "BM25 build s", "MMR p50 ms", "MMR p99 ms", "top-k p50 ms",
           "relaxed C[d][*] p50 ms", "embedding p50 ms"],
          [[f"{n:,}", f"{v['bucket_median']:.0f}", f"{v['load_s']:.1f}", f"{v['index_build_s']:.2f}",
            f"{v['mmr_p50_ms']:.3f}", f"{v['mmr_p99_ms']:.3f}", f"{v['topk_p50_ms']:.3f}",
            f"{v['relaxed_p50_ms']:.3f}", f"{v['embedding_p50_ms']:.3f}" if "embedding_p50_ms" in v else "-"]
           for n, v in m.items()])
    s = res["sample_sizes"]
    ns = sorted(next(iter(s.values())))
    table("Throughput and latency vs sample size (paper 001 Figs. 2-3; Zipf stream with surface variants)",
          ["config"] + [f"N={n} q/s | mean ms | p50 ms | hit | KiB" for n in ns],
          [[name] + [f"{by[n]['qps']:.1f} | {by[n]['latency_ms']:.1f} | {by[n]['latency_p50_ms']:.2f} | "
                     f"{by[n]['hit_rate']:.0%} | "
                     f"{by[n]['stored_bytes'] / 1024:.0f}" for n in ns] for name, by in s.items()])
    rows = []
    for name, v in (("2-fold, learnt online", res["reuse"]), ("pre-warmed only", res["reuse_prewarm"])):
        rows.append([name, f"{v['reuse_hits']}/{v['questions']}", f"{v['reuse_fraction']:.1%}",
                     f"{v['reuse_accuracy']:.1%}" if v["reuse_hits"] else "-",
                     f"{v['compiled_accuracy_same']:.1%}" if v["reuse_hits"] else "-",
                     str(v["reuse_wrong_where_compiled_right"]), f"{v['accuracy_with_cache']:.1%}",
                     f"{v['accuracy_without_cache']:.1%}", str(v["entries"]), f"{v['size_bytes'] / 1024:.1f}"])
    table(f"Parameterized reuse on {res['reuse_set']}: 2-fold (learn online on one fold, reuse on the other), "
          f"and a cache filled only by the pre-warm job ({res['reuse_prewarm']['budget']} candidates, templates) "
          "with every question asked",
          ["plan cache", "reused", "fraction", "reuse acc", "compiled acc (same qs)", "reuse wrong / compiled right",
           "acc with cache", "acc w/o cache", "entries", "KiB"], rows)
    b = res["bounded"]
    table(f"Bounded vs unbounded plan cache on {b['set']} (B = {b['bounded']['bound']})",
          ["metric", "unbounded", f"B={b['bounded']['bound']}", "change"],
          [["entries (both folds)", str(b["unbounded"]["entries"]), str(b["bounded"]["entries"]),
            f"{b['space_saved']:.1%} bytes saved"],
           ["stored KiB", f"{b['unbounded']['size_bytes'] / 1024:.1f}", f"{b['bounded']['size_bytes'] / 1024:.1f}",
            ""],
           ["reuse fraction", f"{b['unbounded']['reuse_fraction']:.1%}", f"{b['bounded']['reuse_fraction']:.1%}",
            f"{b['reuse_loss']:+.1%}"],
           ["accuracy with cache", f"{b['unbounded']['accuracy_with_cache']:.1%}",
            f"{b['bounded']['accuracy_with_cache']:.1%}", f"{b['accuracy_loss']:+.1%}"]])
    sem = res["semantic"]
    table("Semantic answer-cache hits on unseen questions (2-fold; wrong = rows do not match the asked question)",
          ["threshold", "asked", "hits", "wrong hits", "hit rate", "wrong / hits"],
          [[f"{t:.2f}", str(v["asked"]), str(v["hits"]), str(v["wrong"]), f"{v['hit_rate']:.1%}",
            f"{v['wrong_rate_of_hits']:.0%}"] for t, v in sem.items()])
    md += ["![throughput and latency vs sample size](cache_sample_sizes.png)", ""]
    return tables, "\n".join(md)


def main(argv: list[str] | None = None) -> int:

    from rich.console import Console

    from kgqa.settings import Settings

    base = Settings.from_env()
    ap = argparse.ArgumentParser(prog="kgqa bench cache", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (<= 4 minutes on 2 cores)")
    ap.add_argument("--out", type=Path, default=base.reports_dir, help="report folder (cache.md, PNG, JSON)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bound", type=int, default=10, help="B for the bounded plan-cache comparison")
    ap.add_argument("--prewarm-budget", type=int, default=200,
                    help="pre-warm candidates for the pre-warmed reuse figure (kgqa prewarm's default)")
    ap.add_argument("--domains", default="all", help="comma-separated domains whose questions are used")
    ap.add_argument("--limit", type=int, default=0, help="at most this many questions per domain (0: all)")
    ap.add_argument("--sample-sizes", default="20,40,60,80", help="stream lengths for Figures 2-3")
    ap.add_argument("--mmr-sizes", default="", help="plan-cache sizes (default 1k,10k; 1k,10k,100k full)")
    ap.add_argument("--llm-warmup", action=argparse.BooleanOptionalAction, default=True,
                    help="load the LLM before timing (as a running service has it loaded)")
    args = ap.parse_args(argv)

    console = Console(width=max(140, Console().width))
    t_start = time.perf_counter()
    home = bench_home(base)
    tmp = home / "work"
    tmp.mkdir()
    settings = base.with_(home=home, plan_bucket_bound=0, semantic_cache_threshold=0.0)
    try:
        from kgqa.cache.store import open_answer_cache
        from kgqa.kg.registry import registered
        from kgqa.planner.pipeline import Pipeline

        questions = load_questions(settings.data_dir, set(registered(settings.graphs_dir)))
        if args.domains != "all":
            keep = set(args.domains.split(","))
            questions = [q for q in questions if q.domain in keep]
        if args.limit > 0:
            questions = [q for d in dict.fromkeys(q.domain for q in questions)
                         for q in [q for q in questions if q.domain == d][: args.limit]]
        northwind = [q for q in questions if q.domain == "northwind"]
        others = [q for q in questions if q.domain != "northwind"]
        if args.quick:  # every northwind question (the reuse figure needs them) and a slice of the others
            hit_set = northwind + others[::6]
            hit_repeats, mmr_sizes, mmr_queries, seeds = 3, [1000, 10_000], 200, [args.seed]
        else:
            hit_set = questions
            hit_repeats, mmr_sizes, mmr_queries, seeds = 10, [1000, 10_000, 100_000], 500, [args.seed, args.seed + 1,
                                                                                           args.seed + 2]
        sizes = [int(x) for x in args.sample_sizes.split(",") if x.strip()]
        if args.mmr_sizes:
            mmr_sizes = [int(float(x.rstrip("kK")) * (1000 if x.strip()[-1] in "kK" else 1))
                         for x in args.mmr_sizes.split(",") if x.strip()]
        pipe = Pipeline(settings, answer_cache=open_answer_cache(settings),
                        domains=sorted({q.domain for q in questions}))
        if args.llm_warmup:
            try:  # load the model before timing, as a running service has it loaded
                pipe.llm.choose("Warm-up: pick one.", ["yes", "no"])
            except Exception as err:  # noqa: BLE001 - questions needing a choice then fall back
                console.print(f"[yellow]LLM not loaded: {err}")
        for d in pipe.domains:  # warm-up: entity indexes, full-text indexes, embedder, page cache
            for q in [q for q in questions if q.domain == d][:3]:
                pipe.ask(q.question, q.domain, use_answer_cache=False)
        pipe.answer_cache.clear()
        res: dict[str, Any] = {}

        console.print("[bold]1. answer-cache hits")
        res["hits"], results = section_hits(pipe, hit_set, hit_repeats, console)
        console.print("[bold]2. compression")
        large = []
        for d, text in LARGE_QUESTIONS:
            if d in pipe.domains:
                r = pipe.ask(text, d, use_answer_cache=False)
                if r.status == "answered" and r.rows:
                    large.append(r.to_dict())
        values = [v for v in results.values()] + large
        res["compression"] = section_compression(values, settings)
        res["large_questions"] = {v["question"]: len(v["rows"]) for v in large}
        console.print(f"  large-row results (rows): {res['large_questions']}")
        console.print("[bold]3. MMR retrieval")
        res["mmr"] = section_mmr(settings, mmr_sizes, mmr_queries, args.seed, tmp, console,
                                 embed_sizes=(1000,) if args.quick else (1000, 10_000))
        console.print("[bold]4. sample sizes (Figures 2-3)")
        pool = hit_set
        res["sample_sizes"] = section_sample_sizes(pipe, settings, pool, sizes, seeds, console)
        args.out.mkdir(parents=True, exist_ok=True)
        png = args.out / "cache_sample_sizes.png"
        plot_sample_sizes(res["sample_sizes"], png)
        console.print("[bold]5. parameterized reuse")
        res["reuse_set"] = "northwind_dev.jsonl"
        res["reuse"] = section_reuse(pipe, northwind, results, 0, args.seed, tmp, console, "northwind")
        res["reuse_prewarm"] = section_reuse_prewarm(pipe, northwind, results, args.prewarm_budget, args.seed, tmp,
                                                     console, "northwind")
        console.print("[bold]6. bounded plan cache")
        if args.quick:
            bset, unb = "northwind_dev.jsonl", res["reuse"]
        else:
            bset = "all question sets"
            unb = section_reuse(pipe, questions, results, 0, args.seed, tmp, console, "all-unbounded")
        bnd = section_reuse(pipe, northwind if args.quick else questions, results, args.bound, args.seed, tmp, console,
                            "bounded")
        res["bounded"] = {"set": bset, "unbounded": unb, "bounded": bnd,
                          "space_saved": 1 - bnd["size_bytes"] / unb["size_bytes"] if unb["size_bytes"] else 0.0,
                          "reuse_loss": bnd["reuse_fraction"] - unb["reuse_fraction"],
                          "accuracy_loss": bnd["accuracy_with_cache"] - unb["accuracy_with_cache"]}
        console.print("[bold]7. semantic threshold")
        res["semantic"] = section_semantic(hit_set, results, args.seed)
    finally:
        shutil.rmtree(home, ignore_errors=True)

    elapsed = time.perf_counter() - t_start
    tables, md = render(res, args, elapsed)
    for t in tables:
        console.print(t)
    (args.out / "cache.md").write_text(md + "\n", encoding="utf-8")
    (args.out / "bench_cache.json").write_text(json.dumps(res, indent=2, default=str), encoding="utf-8")
    console.print(f"wrote {args.out / 'cache.md'}, {png}, {args.out / 'bench_cache.json'} in {elapsed:.0f} s")
    h = res["hits"]
    mmr_10k = res["mmr"].get(10_000, {}).get("mmr_p50_ms", float("nan"))
    print(f"cache-bench hit_p50_ms={h['hit_p50_ms']:.3f} speedup={h['speedup']:.1f} "
          f"compression_saving={res['compression']['memory-efficient']['saving']:.3f} "
          f"mmr_10k_ms={mmr_10k:.3f} param_reuse={res['reuse']['reuse_fraction']:.3f} "
          f"param_reuse_prewarm={res['reuse_prewarm']['reuse_fraction']:.3f}",
          flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
