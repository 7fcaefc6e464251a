"""Accuracy benchmark: execution accuracy, CRAG truthfulness, stage latency and LLM calls per question.

Protocol. One pipeline (the service's: plan cache + answer cache) on a scratch KGQA home whose graphs are
the built ones (symlinked) and whose plan cache starts empty, so nothing is written to the real state.
Pass 1 (uncached) answers every question of every set once, in file order, northwind_dev then movies then
nobel, with the answer cache bypassed on lookup (``kgqa eval``'s loop); the plan cache learns online as it
goes, as in the service. Pass 2 (cached) asks the same questions again with the answer cache on, which is
what a repeated question costs. Pass 1 is scored: execution accuracy (lenient and strict, see
:mod:`kgqa.evals.scorer`), executable rate, and CRAG accurate / hallucinated / missing with T = A - H from the
deterministic judge (:mod:`kgqa.evals.judge`); ``--llm-judge`` also grades the answers with the LLM backend
and reports where the two judges disagree. Per set and per question shape (the gold lines' ``shape``, issue
17's shapes; ``other`` for lines without one) it counts the questions answered right, wrong (answered but
with rows that do not match the gold) and declined (:func:`kgqa.evals.scorer.outcome`). Stage timings
come from ``Result.timings_ms``: per stage, the share of questions in which it ran, the mean over all
questions (0 where it did not run, so the means add up to the mean total) and p50/p99 over the questions in
which it ran.

    kgqa bench accuracy [--quick] [--limit N] [--sets northwind_dev,movies,nobel] [--questions FILE ...]
                        [--annotations on|off|both] [--llm-judge] [--out DIR]

``--annotations off`` serves graphs derived from their schema and data alone (the bundled ones rebuilt
without their annotations files into the scratch home): the figure a new user gets on their own graph;
``both`` measures the two in one run. The last line printed is
``accuracy-bench ex_<set>=<x> hallucination_<set>=<x> truthfulness_<set>=<x> ... hallucination=<x>
truthfulness=<x> crag_truthfulness=<x> ... hallucinated=<x> ...``: per set and over all, ``hallucination`` is
issue 17's "answered but wrong" (the share of questions whose outcome is ``wrong``: answered with rows that do
not match the gold by the strict rule), ``truthfulness`` is execution accuracy - hallucination;
``crag_truthfulness`` and ``hallucinated`` are the judge's CRAG figures (T = A - H). With ``both``, the same
figures of the derived run follow with a ``derived_`` prefix.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kgqa.evals.benchutil import (
    artifacts_note,
    as_percent,
    command_line,
    fmt,
    key_value_line,
    md_table,
    remove_home,
    scratch_home,
    summarize,
)
from kgqa.evals.graph_sets import SPLITS, GraphSet, discover, split
from kgqa.evals.make_gold import SHAPES
from kgqa.evals.scorer import NO_SHAPE, OUTCOMES, Report, outcome, outcome_table, score_records
from kgqa.jsonl import read_jsonl
from kgqa.kg.failures import Failures, kind_of_error
from kgqa.settings import REPO_ROOT, Settings

STAGES = ("answer_cache", "parse_route", "link", "cache_retrieval", "compile", "repair", "execute", "dispatch",
          "expansion", "vector_memory", "summarize", "cache_update")
_NOT_RUN = {"ran": 0.0, "mean": 0.0, "p50": 0.0, "p99": 0.0}
QUICK_LIMIT = 24  # questions per set in --quick (stratified over the question types)


def question_sets(settings: Settings) -> dict[str, Path]:
    """The benchmark's question files: the shared Northwind dev set and our movies and nobel sets."""
    return {"northwind_dev": settings.data_dir / "northwind_dev.jsonl",
            "movies": REPO_ROOT / "evals" / "questions" / "movies.jsonl",
            "nobel": REPO_ROOT / "evals" / "questions" / "nobel.jsonl"}


def stratified(golds: list[dict], limit: int | None, key: str = "type") -> list[dict]:
    """At most ``limit`` questions, taken round-robin over the values of ``key`` (file order within each),
    then put back in file order; all of them when ``limit`` is None."""
    if limit is None or limit >= len(golds):
        return list(golds)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(golds):
        groups[str(g.get(key))].append(i)
    chosen: list[int] = []
    queues = [list(v) for v in groups.values()]
    while len(chosen) < limit and any(queues):
        for q in queues:
            if q and len(chosen) < limit:
                chosen.append(q.pop(0))
    return [golds[i] for i in sorted(chosen)]


@dataclass
class SetRun:
    """One question set: its gold lines, pass-1 predictions (scored), pass-2 (answer cache) records."""

    name: str
    golds: list[dict]
    preds: list[dict] = field(default_factory=list)
    cached: list[dict] = field(default_factory=list)
    report: Report | None = None
    judge_agreement: float | None = None
    disagreements: list = field(default_factory=list)


def stage_stats(records: list[dict]) -> dict[str, dict[str, float]]:
    """Per stage (and ``total``): share of questions where it ran, mean over all, p50/p99 where it ran."""
    out: dict[str, dict[str, float]] = {}
    n = len(records)
    names = list(STAGES) + sorted({k for r in records for k in (r.get("timings_ms") or {})} - set(STAGES))
    for stage in names:
        ran = [float(r["timings_ms"][stage]) for r in records if stage in (r.get("timings_ms") or {})]
        s = summarize(ran)
        out[stage] = {"ran": len(ran) / n if n else 0.0, "mean": sum(ran) / n if n else 0.0,
                      "p50": s["p50"], "p99": s["p99"]}
    totals = summarize(sum(float(v) for v in (r.get("timings_ms") or {}).values()) for r in records)
    out["total"] = {"ran": 1.0 if n else 0.0, "mean": totals["mean"], "p50": totals["p50"], "p99": totals["p99"]}
    return out


def llm_call_stats(records: list[dict]) -> dict[str, float]:
    calls = [int((r.get("cache") or {}).get("llm_calls") or 0) for r in records]
    n = len(calls) or 1
    return {"mean": sum(calls) / n, "with_calls": sum(c > 0 for c in calls) / n,
            "answer_hits": sum(bool((r.get("cache") or {}).get("answer_hit")) for r in records) / n,
            "plan_hits": sum(bool((r.get("cache") or {}).get("plan_hit")) for r in records) / n}


FAILURES = Failures()  # this process's questions and graphs that failed, by kind (the summary line's failed=)


def ask_record(pipe, gold: dict, *, use_answer_cache: bool) -> dict:
    """One gold question through the pipeline, as a ``kgqa eval`` prediction line; a question that fails is an
    ``error`` line, counted by kind in :data:`FAILURES`, and the run goes on."""
    from kgqa.planner.evaluate import prediction

    try:
        line = prediction(pipe, gold["id"], gold["question"], gold.get("domain"), use_answer_cache=use_answer_cache)
    except Exception as err:  # noqa: BLE001 - one question must not end the bench
        FAILURES.add(err)
        return error_record(gold, f"{type(err).__name__}: {err}")
    if line["status"] == "error":
        error = str(line.get("error") or "")
        FAILURES.add(error, kind_of_error(error))
    return line


def error_record(gold: dict, error: str) -> dict:
    """The prediction line of a question that could not be asked (its graph failed to load or open)."""
    return {"id": gold["id"], "question": gold["question"], "domain": gold.get("domain"), "cypher": None, "rows": [],
            "answer": error, "status": "error", "error": error, "timings_ms": {},
            "cache": {"answer_hit": False, "plan_hit": False, "llm_calls": 0}}


def warm_up(pipe) -> float:
    """Load the models a first question would otherwise pay for (sentence embedder, LLM), so stage timings
    are steady-state; returns the seconds it took. Asks no question, so no cache learns anything."""
    from kgqa.kg.embed import embed

    t0 = time.perf_counter()
    embed(["warm up"])
    try:
        pipe.llm  # noqa: B018 - the property loads the backend
    except Exception:  # noqa: BLE001 - no LLM: questions that need one answer "I don't know"
        pass
    return time.perf_counter() - t0


def run(settings: Settings, sets: dict[str, Path], *, limit: int | None, llm_judge: bool = False,
        pred_dir: Path | None = None, progress: bool = True, graph_sets: list[GraphSet] = ()) -> list[SetRun]:
    """Both passes over the question sets with one pipeline (protocol in the module docstring); then each graph
    of ``graph_sets`` with a pipeline of its own that opens that graph alone (both passes, graph by graph)."""
    from kgqa.planner.pipeline import build_pipeline

    runs = [SetRun(name, stratified(read_jsonl(path), limit)) for name, path in sets.items()]
    graph_runs = [SetRun(gs.name, [q for g in gs.graphs for q in stratified(g.questions, limit)]) for gs in graph_sets]
    total = sum(len(r.golds) for r in runs + graph_runs)
    done = 0
    t0 = time.perf_counter()

    def passes(pipe, work: list[tuple[SetRun, list[dict]]]) -> None:
        nonlocal done
        for use_cache, attr in ((False, "preds"), (True, "cached")):
            for sr, golds in work:
                for gold in golds:
                    getattr(sr, attr).append(ask_record(pipe, gold, use_answer_cache=use_cache))
                    done += 1
                    if progress and done % 25 == 0:
                        print(f"  {done}/{2 * total} questions, {time.perf_counter() - t0:.0f}s", flush=True)

    if runs:
        pipe = build_pipeline(settings)
        warm_up(pipe)
        passes(pipe, [(sr, sr.golds) for sr in runs])
        pipe.close()
    for sr in graph_runs:
        for domain, golds in _by_domain(sr.golds).items():
            try:
                pipe = build_pipeline(settings, domains=[domain])
                if domain not in pipe.domains:
                    raise RuntimeError(f"graph {domain!r} could not be opened")
            except Exception as err:  # noqa: BLE001 - one graph must not end the bench: its questions fail
                FAILURES.add(err, "load")
                for use_cache, attr in ((False, "preds"), (True, "cached")):
                    getattr(sr, attr).extend(error_record(g, f"{type(err).__name__}: {err}") for g in golds)
                done += 2 * len(golds)
                continue
            warm_up(pipe)
            passes(pipe, [(sr, golds)])
            pipe.close()
        order = {g["id"]: i for i, g in enumerate(sr.golds)}
        sr.preds.sort(key=lambda p: order[p["id"]])
        sr.cached.sort(key=lambda p: order[p["id"]])
    runs += graph_runs
    judge = None
    if llm_judge:
        from kgqa.evals.judge import LLMJudge

        judge = LLMJudge(pipe.llm)
    for sr in runs:
        sr.report = score_records(sr.preds, sr.golds)
        if judge is not None:
            from kgqa.evals.judge import compare_judges

            cmp = compare_judges(sr.preds, sr.golds, second=judge)
            sr.judge_agreement, sr.disagreements = cmp.agreement, cmp.disagreements
        if pred_dir is not None:
            pred_dir.mkdir(parents=True, exist_ok=True)
            for suffix, records in (("pred", sr.preds), ("cached", sr.cached)):
                with open(pred_dir / f"{sr.name}.{suffix}.jsonl", "w", encoding="utf-8") as fh:
                    for p in records:
                        fh.write(json.dumps(p, ensure_ascii=False, default=str) + "\n")
    return runs


def _by_domain(golds: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for g in golds:
        out[str(g["domain"])].append(g)
    return out


def load_graph_sets(settings: Settings, paths: list[Path], which: str, *, progress: bool = True) -> list[GraphSet]:
    """Returns the ``which`` part (:func:`kgqa.evals.graph_sets.split`) of each graph folder given, every graph
    of it loaded under ``$KGQA_HOME/graphs`` by its folder's name as ``kgqa load --name NAME --schema --csv``
    loads it (a graph already current is reused), with its vector memory when the service builds one."""
    from kgqa.kg.loader import build_graph
    from kgqa.kg.sources import csv_source

    out = []
    for path in paths:
        gs = split(discover(path), which)
        for g in gs.graphs:
            t0 = time.perf_counter()
            try:
                build_graph(g.name, csv_source(g.schema, g.csv), settings.graphs_dir, progress=False)
            except Exception as err:  # noqa: BLE001 - a graph that does not load is skipped with its questions
                FAILURES.add(err, "load")
                print(f"  {g.name} not loaded, its {len(g.questions)} questions skipped: {err}", flush=True)
                gs.graphs = [x for x in gs.graphs if x is not g]
                continue
            if settings.vector_memory:
                from kgqa.kg.db import Graph
                from kgqa.kg.memory_build import ensure_memory
                from kgqa.kg.registry import graph_spec

                try:
                    with Graph(settings.graph_path(g.name), read_only=True, pool_size=1) as graph:
                        ensure_memory(graph, graph_spec(graph, annotations=settings.annotations), settings.state_dir,
                                      m=settings.vector_memory_m, ranking=settings.vector_memory_ranking)
                except Exception as err:  # noqa: BLE001 - the graph still answers without its vector memory
                    FAILURES.add(err)
            if progress and time.perf_counter() - t0 > 1:
                print(f"  loaded {g.name} ({time.perf_counter() - t0:.0f}s)", flush=True)
        out.append(gs)
    return out


def graph_table(sr: SetRun) -> list[list]:
    """Rows per graph of a set: graph, questions, strict EX, hallucination (answered but wrong), declined."""
    domain = {g["id"]: str(g.get("domain")) for g in sr.golds}
    groups: dict[str, list] = defaultdict(list)
    for item in sr.report.items:
        groups[domain.get(item.id, "?")].append(item)
    rows = []
    for name, items in sorted(groups.items()):
        n = len(items)
        count = {o: sum(outcome(i) == o for i in items) for o in OUTCOMES}
        rows.append([sr.name, name, n, as_percent(count["right"] / n), as_percent(count["wrong"] / n),
                     as_percent(count["declined"] / n)])
    return rows


GRAPH_HEADERS = ["set", "graph", "n", "EX", "hallucination", "declined"]


def pooled(runs: list[SetRun]) -> Report:
    """One report over every question of every set."""
    return score_records([p for sr in runs for p in sr.preds], [g for sr in runs for g in sr.golds])


def cached_consistency(runs: list[SetRun]) -> float:
    """Share of pass-2 answers (answer-cache hits) identical to the pass-1 answer."""
    pairs = [(a, b) for sr in runs for a, b in zip(sr.preds, sr.cached)]
    same = sum(a.get("answer") == b.get("answer") for a, b in pairs)
    return same / len(pairs) if pairs else 0.0


# -- output ----------------------------------------------------------------------------------------
def plot(runs: list[SetRun], path: Path) -> None:
    """Accuracy per set (left) and mean stage latency per set, uncached and cached (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 4.8), gridspec_kw={"width_ratios": [1.3, 1]})
    metrics = [("ex", "EX"), ("ex_strict", "EX strict"), ("executable", "executable"), ("accurate", "A"),
               ("hallucinated", "H"), ("truthfulness", "T = A-H")]
    x = np.arange(len(runs))
    w = 0.8 / len(metrics)
    for i, (key, label) in enumerate(metrics):
        ax1.bar(x + (i - len(metrics) / 2 + 0.5) * w, [sr.report.total.summary()[key] for sr in runs], w, label=label)
    ax1.set_xticks(x, [f"{sr.name}\n(n={len(sr.golds)})" for sr in runs])
    ax1.axhline(0, color="black", lw=0.6)
    ax1.set_ylim(min(-0.1, min(sr.report.truthfulness for sr in runs) - 0.05), 1.25)
    ax1.set_title("Accuracy per question set (pass 1)")
    ax1.legend(fontsize=8, ncol=6, loc="upper center")

    bars = [(sr.name, stage_stats(sr.preds)) for sr in runs]
    bars.append(("cached\n(all sets)", stage_stats([c for sr in runs for c in sr.cached])))
    bottom = np.zeros(len(bars))
    totals = np.array([sum(st[s]["mean"] for s in STAGES) for _, st in bars])
    cmap = plt.get_cmap("tab20")
    for i, stage in enumerate(STAGES):
        vals = np.array([st[stage]["mean"] for _, st in bars])
        if not vals.any():
            continue
        share = np.divide(100 * vals, totals, out=np.zeros_like(vals), where=totals > 0)
        ax2.bar(range(len(bars)), share, bottom=bottom, label=stage, color=cmap(i))
        bottom += share
    for i, total in enumerate(totals):
        ax2.text(i, 101, f"{total:.3g} ms", ha="center", va="bottom", fontsize=8)
    ax2.set_xticks(range(len(bars)), [b for b, _ in bars])
    ax2.set_ylabel("% of mean time per question")
    ax2.set_ylim(0, 112)
    ax2.set_title("Where the time goes (mean ms per question on top)")
    ax2.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _accuracy_rows(runs: list[SetRun], all_report: Report) -> list[list]:
    rows = []
    for name, rep in [(sr.name, sr.report) for sr in runs] + [("all", all_report)]:
        s = rep.total.summary()
        rows.append([name, rep.total.n, as_percent(s["ex"]), as_percent(s["ex_strict"]), as_percent(s["executable"]),
                     as_percent(s["accurate"]), as_percent(s["hallucinated"]), as_percent(s["missing"]),
                     f"{s['truthfulness']:+.3f}"])
    return rows


ACC_HEADERS = ["set", "n", "EX", "EX strict", "executable", "A", "H", "M", "T"]
SHAPE_HEADERS = ["set", "shape", "questions", *OUTCOMES]
TOTAL = "total"


def _shape_order(shape: str) -> tuple:
    """Issue 17's shapes in their order, then any other shape by name, then lines without one."""
    return (0, SHAPES.index(shape), "") if shape in SHAPES else (2, 0, "") if shape == NO_SHAPE else (1, 0, shape)


def shape_tables(runs: list[SetRun]) -> dict[str, dict[str, dict[str, int]]]:
    """Per set, and ``all`` pooled: {shape: {questions, right, wrong, declined}} in shape order, with a
    ``total`` row."""
    out = {}
    for name, items in [(sr.name, sr.report.items) for sr in runs] + [("all", [i for sr in runs
                                                                              for i in sr.report.items])]:
        table = outcome_table(items)
        table = {k: table[k] for k in sorted(table, key=_shape_order)}
        table[TOTAL] = {c: sum(row[c] for row in table.values()) for c in ("questions", *OUTCOMES)}
        out[name] = table
    return out


def _shape_rows(runs: list[SetRun]) -> list[list]:
    """Rows of the per-shape table: each set's shapes (its ``total`` row only when it has several), then all
    sets pooled (when there are several)."""
    rows = []
    for name, table in shape_tables(runs).items():
        if name == "all" and len(runs) < 2:
            continue
        shown = [k for k in table if k != TOTAL]
        for shape in shown + ([TOTAL] if len(shown) > 1 else []):
            rows.append([name, shape, table[shape]["questions"], *(table[shape][o] for o in OUTCOMES)])
    return rows


def markdown(runs: list[SetRun], all_report: Report, command: str, png: str | None, elapsed_s: float,
             llm_judge: bool, artifacts: str = "") -> str:
    uncached = [p for sr in runs for p in sr.preds]
    cached = [c for sr in runs for c in sr.cached]
    st_u, st_c = stage_stats(uncached), stage_stats(cached)
    lc_u, lc_c = llm_call_stats(uncached), llm_call_stats(cached)
    out = ["## Accuracy", "",
           "Execution accuracy (lenient: gold columns found in any order; strict: same columns in order), "
           "executable rate and CRAG answer scores (A accurate, H hallucinated, M missing, T = A - H; "
           "deterministic judge). Pass 1 answers each question once with a plan cache that starts empty and "
           "learns online; pass 2 repeats them through the answer cache. Service settings as configured "
           f"(KGQA_* variables), scratch state {artifacts}.", "",
           f"Command: `{command}` ({elapsed_s:.0f} s)", "", md_table(ACC_HEADERS, _accuracy_rows(runs, all_report)), ""]
    for sr in runs:
        if len(sr.report.by_type) > 1:
            out += [f"### {sr.name} by type", ""]
            rows = []
            for t, b in sorted(sr.report.by_type.items()):
                s = b.summary()
                rows.append([t, b.n, as_percent(s["ex"]), as_percent(s["ex_strict"]), as_percent(s["executable"]),
                             as_percent(s["accurate"]), as_percent(s["hallucinated"]), as_percent(s["missing"]),
                             f"{s['truthfulness']:+.3f}"])
            out += [md_table(["type", *ACC_HEADERS[1:]], rows), ""]
    graphs = [row for sr in runs if len({g.get("domain") for g in sr.golds}) > 1 for row in graph_table(sr)]
    if graphs:
        out += ["### Per graph", "", "Each graph's questions answered right (strict EX), wrong (hallucination) "
                "or declined.", "", md_table(GRAPH_HEADERS, graphs), ""]
    out += ["### Per question shape", "",
            "Questions per set and shape (issue 17; `other`: lines without a shape) answered **right** (the rows "
            "match the gold, its columns mapped onto the returned ones; order only where the gold orders, ties "
            "free), **wrong** (answered, rows that do not match: the hallucination rate) or **declined** "
            "(don't know).", "",
            md_table(SHAPE_HEADERS, _shape_rows(runs)), ""]
    out += ["### Latency by stage (ms)", "",
            "`ran`: share of questions in which the stage ran; mean over all questions; p50/p99 over those "
            "in which it ran.", ""]
    stages = list(st_u) + [s for s in st_c if s not in st_u]
    rows = [[s, as_percent(u["ran"]), u["mean"], u["p50"], u["p99"], as_percent(c["ran"]), c["mean"], c["p50"],
             c["p99"]]
            for s in stages for u, c in [(st_u.get(s, _NOT_RUN), st_c.get(s, _NOT_RUN))] if u["ran"] or c["ran"]]
    out += [md_table(["stage", "ran", "mean", "p50", "p99", "ran (cached)", "mean (cached)", "p50 (cached)",
                      "p99 (cached)"], rows, digits=2), ""]
    out += ["### LLM calls per question", "",
            md_table(["pass", "questions", "LLM calls / q", "with >= 1 call", "answer-cache hits", "plan hits"],
                     [["uncached (pass 1)", len(uncached), lc_u["mean"], as_percent(lc_u["with_calls"]),
                       as_percent(lc_u["answer_hits"]), as_percent(lc_u["plan_hits"])],
                      ["cached (pass 2)", len(cached), lc_c["mean"], as_percent(lc_c["with_calls"]),
                       as_percent(lc_c["answer_hits"]), as_percent(lc_c["plan_hits"])]], digits=2),
            "", f"Cached answers identical to pass 1: {as_percent(cached_consistency(runs))}.", ""]
    if llm_judge:
        out += ["### Deterministic vs LLM judge", ""]
        out += [md_table(["set", "agreement", "disagreements"],
                         [[sr.name, as_percent(sr.judge_agreement or 0.0), len(sr.disagreements)]
                          for sr in runs]), ""]
        dis = [(sr.name, d) for sr in runs for d in sr.disagreements][:15]
        if dis:
            out += [md_table(["set", "id", "deterministic", "LLM", "answer"],
                             [[n, d.id, d.first, d.second, " ".join(d.answer.split())[:90]] for n, d in dis]), ""]
    if png:
        out += [f"![accuracy and stage latency]({png})", ""]
    return "\n".join(out)


def print_tables(runs: list[SetRun], all_report: Report) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    t = Table(title="Accuracy (pass 1, deterministic judge)")
    for h in ACC_HEADERS:
        t.add_column(h, justify="left" if h == "set" else "right")
    for row in _accuracy_rows(runs, all_report):
        t.add_row(*map(str, row))
    console.print(t)
    typed = [(sr.name, t, b) for sr in runs if len(sr.report.by_type) > 1 and any("hardness" in g for g in sr.golds)
             for t, b in sorted(sr.report.by_type.items())]
    if typed:
        t = Table(title="Accuracy by hardness (pass 1; hallucination: answered but wrong)")
        for h in ("set", "hardness", "n", "EX", "hallucination", "declined"):
            t.add_column(h, justify="left" if h in ("set", "hardness") else "right")
        for name, hardness, b in typed:
            t.add_row(name, hardness, str(b.n), as_percent(b.rate(b.ex)), as_percent(b.rate(b.n - b.ex - b.dont_know)),
                      as_percent(b.rate(b.dont_know)))
        console.print(t)
    graphs = [row for sr in runs if 1 < len({g.get("domain") for g in sr.golds}) <= 12 for row in graph_table(sr)]
    if graphs:
        t = Table(title="Per graph (pass 1)")
        for h in GRAPH_HEADERS:
            t.add_column(h, justify="left" if h in ("set", "graph") else "right")
        for row in graphs:
            t.add_row(*map(str, row))
        console.print(t)
    t = Table(title="Outcomes per question shape (pass 1)")
    for h in SHAPE_HEADERS:
        t.add_column(h, justify="left" if h in ("set", "shape") else "right")
    for row in _shape_rows(runs):
        t.add_row(*map(str, row))
    console.print(t)
    st_u = stage_stats([p for sr in runs for p in sr.preds])
    st_c = stage_stats([c for sr in runs for c in sr.cached])
    t = Table(title="Latency by stage, ms (uncached pass 1 | cached pass 2)")
    for h in ("stage", "ran", "mean", "p50", "p99", "| mean", "p50", "p99"):
        t.add_column(h, justify="left" if h == "stage" else "right")
    for s in list(st_u) + [s for s in st_c if s not in st_u]:
        v, c = st_u.get(s, _NOT_RUN), st_c.get(s, _NOT_RUN)
        if v["ran"] or c["ran"]:
            t.add_row(s, as_percent(v["ran"]), *(fmt(x, 2) for x in (v["mean"], v["p50"], v["p99"], c["mean"],
                                                                      c["p50"], c["p99"])))
    console.print(t)


def derived_home(settings: Settings, domains: list[str]) -> Path:
    """Returns a scratch home whose graphs are built from what they derive alone: the bundled ones rebuilt
    without their annotations files (entity index and vector memory included), any other registered graph
    linked as it is (served with ``annotations=False``). This is what a new user's own graph gets."""
    from kgqa.kg.db import Graph
    from kgqa.kg.domains import BUNDLED
    from kgqa.kg.loader import build_domain
    from kgqa.kg.memory_build import ensure_memory
    from kgqa.kg.registry import graph_spec

    home = scratch_home(settings.graphs_dir, prefix="kgqa-accuracy-derived-")
    (home / "graphs").unlink()
    (home / "graphs").mkdir()
    s = settings.with_(home=home, annotations=False)
    for name in domains:
        if name in BUNDLED:
            build_domain(name, settings.data_dir, s.graphs_dir, progress=False, annotations=False)
        else:
            (s.graphs_dir / name).symlink_to(settings.graph_path(name).resolve(), target_is_directory=True)
        if settings.vector_memory:
            with Graph(s.graph_path(name), read_only=True, pool_size=1) as graph:
                ensure_memory(graph, graph_spec(graph, annotations=False), s.state_dir, m=s.vector_memory_m,
                              ranking=s.vector_memory_ranking)
    return home


def measure(settings: Settings, sets: dict[str, Path], *, annotated: bool, limit: int | None, llm_judge: bool,
            pred_dir: Path, graph_sets: list[GraphSet] = ()) -> tuple[list[SetRun], float, str]:
    """Returns the runs over ``sets`` on a scratch home (annotated graphs, or graphs derived alone), the
    seconds they took and a note on the scratch state."""
    t0 = time.perf_counter()
    if annotated:
        home = scratch_home(settings.graphs_dir, prefix="kgqa-accuracy-", artifacts_from=settings.state_dir)
    else:
        home = derived_home(settings, sorted({g["domain"] for p in sets.values() for g in read_jsonl(p)
                                              if g.get("domain")} | {g.name for gs in graph_sets for g in gs.graphs}))
    artifacts = artifacts_note(home / "state")
    try:
        runs = run(settings.with_(home=home, annotations=annotated), sets, limit=limit, llm_judge=llm_judge,
                   pred_dir=pred_dir, graph_sets=graph_sets)
    finally:
        remove_home(home)
    return runs, time.perf_counter() - t0, artifacts


def wrong_rate(report: Report) -> float:
    """Returns the share of questions answered but wrong (:func:`kgqa.evals.scorer.outcome` ``wrong``: answered
    with rows that do not match the gold): issue 17's hallucination."""
    return sum(outcome(item) == "wrong" for item in report.items) / len(report.items) if report.items else 0.0


def summary_pairs(runs: list[SetRun], all_report: Report, prefix: str = "") -> dict[str, float]:
    """Returns the figures of the summary line (keys prefixed by ``prefix``)."""
    uncached = [p for sr in runs for p in sr.preds]
    cached = [c for sr in runs for c in sr.cached]
    pairs = {}
    for sr in runs:  # per set: accuracy, hallucination (answered but wrong) and their difference
        pairs |= {f"ex_{sr.name}": sr.report.execution_accuracy, f"hallucination_{sr.name}": wrong_rate(sr.report),
                  f"truthfulness_{sr.name}": sr.report.execution_accuracy - wrong_rate(sr.report)}
    pairs |= {"hallucination": wrong_rate(all_report),
              "truthfulness": all_report.execution_accuracy - wrong_rate(all_report),
              "crag_truthfulness": all_report.truthfulness, "ex_strict": all_report.execution_accuracy_strict,
              "executable": all_report.executable_rate, "accurate": all_report.total.rate(all_report.total.accurate),
              "hallucinated": all_report.total.rate(all_report.total.hallucinated)}
    if not prefix:
        pairs |= {"llm_calls_uncached": llm_call_stats(uncached)["mean"],
                  "llm_calls_cached": llm_call_stats(cached)["mean"],
                  "p50_ms_uncached": stage_stats(uncached)["total"]["p50"],
                  "p50_ms_cached": stage_stats(cached)["total"]["p50"], "n": all_report.total.n}
    return {prefix + k: v for k, v in pairs.items()}


def main(argv: list[str] | None = None) -> int:
    settings = Settings.from_env()
    ap = argparse.ArgumentParser(prog="kgqa bench accuracy", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_LIMIT} questions per set, stratified by type")
    ap.add_argument("--limit", type=int, help=f"questions per set (default: all; --quick: {QUICK_LIMIT})")
    ap.add_argument("--sets", help="comma-separated question sets (default: northwind_dev,movies,nobel, "
                                   "or none when --questions is given)")
    ap.add_argument("--questions", type=Path, action="append", default=[], metavar="FILE",
                    help="a question file (JSONL with id, domain, question, gold_rows) for any registered domain; "
                         "repeatable; the set is named after the file")
    ap.add_argument("--graph", type=Path, action="append", default=[], metavar="DIR",
                    help="a graph in the shared format (schema.cypher, csv/, questions.jsonl) or a folder of them "
                         "with one questions.jsonl (Spider's databases); loaded as kgqa load would, then scored "
                         "per graph; repeatable; the set is named after the folder")
    ap.add_argument("--split", choices=SPLITS, default="dev",
                    help="which part of each --graph set: dev (developed against), heldout (a fixed fifth, by "
                         "graph for a folder of graphs, by question for one graph: score it, never read it), all")
    ap.add_argument("--annotations", choices=("on", "off", "both"), default="on",
                    help="serve the graphs with their annotations files (on), from what they derive alone (off: "
                         "what a new user's graph gets), or both, compared")
    ap.add_argument("--llm-judge", action="store_true", help="also grade with the LLM backend; report disagreements")
    ap.add_argument("--out", type=Path, default=settings.reports_dir, help="report folder (accuracy.md, .png, .json)")
    args = ap.parse_args(argv)

    all_sets = question_sets(settings)
    names = [s.strip() for s in (args.sets if args.sets is not None else
                                 "" if args.questions or args.graph else ",".join(all_sets)).split(",")
             if s.strip()]
    unknown = [n for n in names if n not in all_sets]
    if unknown:
        ap.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(all_sets)}")
    missing = [str(p) for p in args.questions if not p.is_file()]
    if missing:
        ap.error(f"no such question file: {', '.join(missing)}")
    sets = {n: all_sets[n] for n in names} | {p.stem: p for p in args.questions}
    try:
        graph_sets = load_graph_sets(settings, args.graph, args.split)
    except (ValueError, OSError) as err:
        ap.error(str(err))
    limit = args.limit if args.limit is not None else (QUICK_LIMIT if args.quick else None)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    command = command_line("kgqa bench accuracy", argv)
    modes = {"on": (True,), "off": (False,), "both": (True, False)}[args.annotations]
    line: dict[str, float] = {}
    md, summary = [], {}
    for annotated in modes:
        label = "" if annotated else "derived"
        runs, elapsed, artifacts = measure(settings, sets, annotated=annotated, limit=limit,
                                           llm_judge=args.llm_judge, graph_sets=graph_sets,
                                           pred_dir=out / ("accuracy" if annotated else "accuracy-derived"))
        all_report = pooled(runs)
        png = out / f"accuracy{'-' + label if label else ''}.png"
        plot(runs, png)
        text = markdown(runs, all_report, command, png.name, elapsed, args.llm_judge, artifacts)
        md.append(text if annotated else text.replace("## Accuracy", "## Accuracy without annotations files "
                                                                    "(graphs derived alone)", 1))
        uncached = [p for sr in runs for p in sr.preds]
        cached = [c for sr in runs for c in sr.cached]
        summary[label or "annotated"] = {
            "sets": {sr.name: sr.report.to_dict() | {"judge_agreement": sr.judge_agreement} for sr in runs},
            "all": all_report.total.summary(), "shapes": shape_tables(runs), "stages_uncached": stage_stats(uncached),
            "stages_cached": stage_stats(cached), "llm_calls_uncached": llm_call_stats(uncached),
            "llm_calls_cached": llm_call_stats(cached), "cached_consistency": cached_consistency(runs),
            "limit": limit, "elapsed_s": elapsed}
        if len(modes) > 1:
            print(f"\n{'with annotations files' if annotated else 'without annotations files (derived alone)'}:")
        print_tables(runs, all_report)
        line |= summary_pairs(runs, all_report, "" if annotated or len(modes) == 1 else "derived_")
    line |= {"failed": FAILURES.total} | {f"failed_{k}": n for k, n in sorted(FAILURES.counts.items())}
    if FAILURES.total:
        print(f"accuracy-bench: {FAILURES.text()}; first of each: {FAILURES.first}", flush=True)
    (out / "accuracy.md").write_text("\n".join(md))
    (out / "accuracy.json").write_text(json.dumps(summary if len(modes) > 1 else next(iter(summary.values())),
                                                  indent=2, default=str))
    print(key_value_line("accuracy-bench", line), flush=True)
    return 0
