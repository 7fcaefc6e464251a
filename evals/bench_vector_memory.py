"""Vector memory (GLARE) benchmark: retrieval latency vs Kuzu traversal, size, coverage, and the fallback's
effect on answers.

Per domain it builds the memory with both importance rankings (degree, PageRank) from one read and one
encoding of the graph, and reports subgraphs, node and edge coverage, build time and bytes on disk against
the Kuzu database file. Latency: for each dev question of the domain, the top-k linear cosine scan of the
memory (question embedding timed apart) against the equivalent Kuzu traversal, the 1-hop and 2-hop
neighbourhoods of the same k anchor entities, read-only; each is the median of its repeats after a warm-up.
Recall@k: share of questions with string gold values that have one among the retrieved subgraphs' nodes.
Memory alone: the answer rule (planner/memory_answer.py) on the top-k subgraphs of every question, without
the Cypher path, judged by the CRAG judge (how often it answers, and how truthfully). Answers: the dev sets
are asked once with the fallback on; the fallback-off result is the same with each memory answer put back
to "I don't know" (the fallback runs only after the Cypher path ended so, and changes nothing else); both
are scored with evals.scorer (execution accuracy) and the CRAG judge (accurate, hallucinated, truthfulness). The memories live in a temporary KGQA home whose graphs are
links to the real ones. Last line: ``vector-memory-bench speedup=<x> accuracy_delta=<points>`` (speed-up of
the median scan over the median traversal, all domains pooled; change of CRAG accuracy in points).

    kgqa bench vector-memory [--quick] [--out DIR] [--m 300] [--k 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kgqa.jsonl import read_jsonl
from kgqa.kg.cypher import ident

DEV_SETS = {"northwind": "northwind_dev.jsonl", "movies": "movies.jsonl", "nobel": "nobel.jsonl"}


@dataclass
class BuildRow:
    domain: str
    ranking: str
    subgraphs: int
    nodes: int
    node_coverage: float
    edge_coverage: float
    build_s: float
    vector_bytes: int
    triple_bytes: int
    graph_bytes: int


@dataclass
class LatencyRow:
    domain: str
    queries: int
    embed_ms: float
    scan_ms: float
    kuzu_1hop_ms: float
    kuzu_2hop_ms: float
    recall: float | None
    kuzu_rows: float
    alone: dict = field(default_factory=dict)  # memory alone: answered / accurate / hallucinated counts
    scan_samples: list[float] = field(default_factory=list, repr=False)
    kuzu_samples: list[float] = field(default_factory=list, repr=False)

    @property
    def kuzu_ms(self) -> float:
        return self.kuzu_1hop_ms + self.kuzu_2hop_ms


@dataclass
class AnswerRow:
    name: str
    n: int
    off: dict = field(default_factory=dict)
    on: dict = field(default_factory=dict)
    dont_know_off: int = 0
    fallback_ran: int = 0
    fallback_answered: int = 0
    fallback_accurate: int = 0
    fallback_hallucinated: int = 0


def _dev_path(settings, domain: str) -> Path:
    shared = settings.data_dir / DEV_SETS[domain]
    if shared.exists():
        return shared
    return Path(__file__).resolve().parent / "questions" / DEV_SETS[domain]


def _golds(settings, domain: str, limit: int | None) -> list[dict]:
    path = _dev_path(settings, domain)
    items = [g for g in read_jsonl(path) if (g.get("domain") or domain) == domain]
    return items[:limit] if limit else items


def _median_ms(fn, repeats: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), out


def _traversal(graph, cat, anchors: list[str]) -> tuple[callable, callable]:
    """Functions running the 1-hop and 2-hop neighbourhoods of the anchors ("Label:key") in Kuzu."""
    def hop(n: int):
        def run():
            rows = 0
            for anchor in anchors:
                label, key = anchor.split(":", 1)
                where, params = cat.key_match("a", label, cat.coerce_key(label, key))
                pattern = f"(a:{ident(label)})-[r]-(b)" if n == 1 else f"(a:{ident(label)})-[]-(b)-[r]-(c)"
                ret = "r, b" if n == 1 else "DISTINCT c"
                rows += len(graph.query(f"MATCH {pattern} WHERE {where} RETURN {ret}",
                                        params, row_cap=10**6, timeout_ms=60_000).rows)
            return rows
        return run
    return hop(1), hop(2)


def _gold_strings(gold_rows) -> set[str]:
    return {v for row in gold_rows for v in (row if isinstance(row, list) else [row]) if isinstance(v, str)}


def bench_domain(domain: str, settings, home: Path, *, m: int, k: int, questions: list[dict], repeats: int,
                 kuzu_repeats: int, console) -> tuple[list[BuildRow], LatencyRow]:
    from kgqa.evals.judge import judge_answer
    from kgqa.kg.db import DB_FILE, Graph
    from kgqa.kg.embed import embed_one
    from kgqa.kg.importance import DEFAULT_RANKING, RANKINGS, read_snapshot
    from kgqa.kg.memory_build import build_memory, embed_nodes
    from kgqa.kg.operators import catalog
    from kgqa.kg.registry import graph_spec
    from kgqa.kg.vector_memory import memory_dir
    from kgqa.planner.memory_answer import answer_from_memory

    builds: list[BuildRow] = []
    src = settings.graph_path(domain) / DB_FILE
    graph_bytes = src.stat().st_size + (src.with_name(src.name + ".wal").stat().st_size
                                        if src.with_name(src.name + ".wal").exists() else 0)
    with Graph(settings.graph_path(domain), read_only=True, pool_size=1, timeout_ms=60_000) as graph:
        spec = graph_spec(graph, annotations=settings.annotations)
        t0 = time.perf_counter()
        snap = read_snapshot(graph, spec)
        vectors = embed_nodes(snap)
        shared_s = time.perf_counter() - t0
        memories = {}
        for ranking in RANKINGS:
            memory = build_memory(graph, spec, m=m, ranking=ranking, snapshot=snap, node_vectors=vectors)
            where = memory.save(memory_dir(home / "state", domain, graph.version, m=m, ranking=ranking))
            sizes = memory.nbytes(where)
            meta = memory.meta
            builds.append(BuildRow(domain, ranking, meta.subgraphs, meta.nodes, meta.node_coverage, meta.edge_coverage,
                                   round(meta.built_s + shared_s, 2), sizes["vectors"], sizes["triples"], graph_bytes))
            memories[ranking] = memory
        memory = memories[DEFAULT_RANKING]
        cat = catalog(graph)
        embed_times, scans, one, two, recalls, rows = [], [], [], [], [], []
        alone = {"answered": 0, "accurate": 0, "hallucinated": 0, "missing": 0}
        for g in questions:
            t0 = time.perf_counter()
            qv = embed_one(g["question"])
            embed_times.append((time.perf_counter() - t0) * 1000)
            memory.search(qv, k)  # warm-up
            scan_ms, top = _median_ms(lambda qv=qv: memory.search(qv, k), repeats)
            scans.append(scan_ms)
            anchors = [memory.anchors[i] for i, _ in top]
            hop1, hop2 = _traversal(graph, cat, anchors)
            hop1(), hop2()  # warm-up
            t1, n1 = _median_ms(hop1, kuzu_repeats)
            t2, n2 = _median_ms(hop2, kuzu_repeats)
            one.append(t1)
            two.append(t2)
            rows.append(n1 + n2)
            out = answer_from_memory(g["question"], memory.retrieve(qv, k), words=spec.words)
            if out.answer is not None:
                label = judge_answer(out.answer, g["gold_rows"], question=g["question"]).label
                alone["answered"] += 1
                alone[label] += 1
            gold = _gold_strings(g.get("gold_rows") or [])
            if gold:
                names = {str(node.get("_name")) for i, _ in top for node in memory.subgraphs[i]["nodes"].values()}
                recalls.append(bool(gold & names))
    lat = LatencyRow(domain, len(questions), statistics.median(embed_times) if embed_times else 0.0,
                     statistics.median(scans) if scans else 0.0, statistics.median(one) if one else 0.0,
                     statistics.median(two) if two else 0.0,
                     (sum(recalls) / len(recalls)) if recalls else None, statistics.fmean(rows) if rows else 0.0,
                     alone, scans, [a + b for a, b in zip(one, two, strict=True)])
    console.print(f"[dim]{domain}: memories built, {len(questions)} retrievals timed[/dim]")
    return builds, lat


def _answers(pipe, golds: list[dict]) -> list[dict]:
    out = []
    for g in golds:
        r = pipe.ask(g["question"], g.get("domain"), use_answer_cache=False)
        out.append({"id": g["id"], "question": r.question, "domain": r.domain, "cypher": r.cypher, "rows": r.rows,
                    "answer": r.answer, "status": r.status, "timings_ms": r.timings_ms,
                    "operators": list(r.operators), "evidence": r.evidence})
    return out


def bench_answers(settings, home: Path, sets: dict[str, list[dict]], console) -> list[AnswerRow]:
    """Each question is asked once, with the fallback on. The fallback runs only on a result the Cypher path
    left at "I don't know" and changes nothing else, so the fallback-off result is that same result with
    every memory answer put back to "I don't know" (asking twice would also compare run-to-run noise of
    the LLM calls, not the fallback)."""
    from kgqa.evals.judge import judge_answer
    from kgqa.evals.scorer import score_records
    from kgqa.planner import summarizer
    from kgqa.planner.pipeline import Pipeline

    pipe = Pipeline(settings.with_(home=home, vector_memory=True), domains=list(sets))
    rows = []
    for domain, golds in sets.items():
        t0 = time.perf_counter()
        on = _answers(pipe, golds)
        off = [dict(p, answer=summarizer.DONT_KNOW, status="dont_know") if p["evidence"] == "vector-memory" else p
               for p in on]
        by_id = {g["id"]: g for g in golds}
        row = AnswerRow(domain, len(golds), score_records(off, golds).total.summary(),
                        score_records(on, golds).total.summary(),
                        dont_know_off=sum(p["status"] == "dont_know" for p in off))
        for p in on:
            row.fallback_ran += "vector_memory" in p["operators"]
            if p["evidence"] == "vector-memory":
                row.fallback_answered += 1
                label = judge_answer(p["answer"], by_id[p["id"]]["gold_rows"], question=p["question"],
                                     status=p["status"]).label
                row.fallback_accurate += label == "accurate"
                row.fallback_hallucinated += label == "hallucinated"
        rows.append(row)
        console.print(f"[dim]{domain}: {len(golds)} questions asked in {time.perf_counter() - t0:.0f}s[/dim]")
    return rows


def _plot(lat: list[LatencyRow], out: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001 - the plot is optional
        return None
    fig, ax = plt.subplots(figsize=(7, 3.5))
    x = np.arange(len(lat))
    w = 0.2
    for j, (label, vals) in enumerate((("memory scan", [r.scan_ms for r in lat]),
                                       ("question embedding", [r.embed_ms for r in lat]),
                                       ("Kuzu 1-hop", [r.kuzu_1hop_ms for r in lat]),
                                       ("Kuzu 1+2-hop", [r.kuzu_ms for r in lat]))):
        ax.bar(x + (j - 1.5) * w, vals, w, label=label)
    ax.set_yscale("log")
    ax.set_xticks(x, [r.domain for r in lat])
    ax.set_ylabel("median ms per question (log)")
    ax.set_title("Vector memory retrieval vs Kuzu traversal (same k anchors)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "vector_memory_latency.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.table import Table

    from kgqa.settings import Settings

    settings = Settings.from_env()
    ap = argparse.ArgumentParser(prog="kgqa bench vector-memory", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="20 questions per dev set, fewer repeats (<= 4 min)")
    ap.add_argument("--out", type=Path, default=settings.reports_dir)
    ap.add_argument("--m", type=int, default=settings.vector_memory_m, help="pooled subgraphs per domain")
    ap.add_argument("--k", type=int, default=settings.vector_memory_k, help="subgraphs retrieved per question")
    ap.add_argument("--limit", type=int, default=None, help="questions per dev set (default: all; --quick: 20)")
    ap.add_argument("--domains", default=",".join(DEV_SETS))
    ap.add_argument("--no-answers", action="store_true", help="skip the on/off answer comparison")
    ap.add_argument("--keep", action="store_true", help="keep the temporary KGQA home with the memories")
    args = ap.parse_args(argv)
    domains = [d for d in args.domains.split(",") if d]
    limit = args.limit or (20 if args.quick else None)
    repeats, kuzu_repeats = (5, 2) if args.quick else (21, 5)
    console = Console(width=max(Console().width, 160))
    args.out.mkdir(parents=True, exist_ok=True)

    home = Path(tempfile.mkdtemp(prefix="kgqa-vm-bench-"))
    (home / "graphs").symlink_to(settings.graphs_dir.resolve(), target_is_directory=True)
    t_start = time.perf_counter()
    try:
        sets = {d: _golds(settings, d, limit) for d in domains}
        builds, lats = [], []
        for d in domains:
            b, lat = bench_domain(d, settings, home, m=args.m, k=args.k, questions=sets[d], repeats=repeats,
                                  kuzu_repeats=kuzu_repeats, console=console)
            builds += b
            lats.append(lat)
        answers = [] if args.no_answers else bench_answers(settings, home, sets, console)
    finally:
        if args.keep:
            console.print(f"memories kept in {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
    elapsed = time.perf_counter() - t_start

    t1 = Table(title=f"Vector memory build (M={args.m}): coverage and size")
    for col in ("domain", "ranking", "subgraphs", "nodes", "node cov.", "edge cov.", "build s", "vectors KiB",
                "triples KiB", "graph.kuzu KiB", "vectors/graph"):
        t1.add_column(col, justify="left" if col in ("domain", "ranking") else "right")
    for b in builds:
        t1.add_row(b.domain, b.ranking, str(b.subgraphs), str(b.nodes), f"{b.node_coverage:.1%}",
                   f"{b.edge_coverage:.1%}", f"{b.build_s:.1f}", f"{b.vector_bytes / 1024:.0f}",
                   f"{b.triple_bytes / 1024:.0f}", f"{b.graph_bytes / 1024:.0f}", f"{b.vector_bytes / b.graph_bytes:.3f}")
    t2 = Table(title=f"Retrieval latency, median ms per question (k={args.k}; Kuzu: 1-hop and 2-hop of the same "
                     f"k anchors)")
    for col in ("domain", "questions", "memory scan", "question embed", "Kuzu 1-hop", "Kuzu 2-hop", "Kuzu rows",
                "speed-up (scan)", "speed-up (embed+scan)", f"recall@{args.k}", "memory alone: answered",
                "accurate", "halluc."):
        t2.add_column(col, justify="left" if col == "domain" else "right")
    for r in lats:
        t2.add_row(r.domain, str(r.queries), f"{r.scan_ms:.4f}", f"{r.embed_ms:.2f}", f"{r.kuzu_1hop_ms:.2f}",
                   f"{r.kuzu_2hop_ms:.2f}", f"{r.kuzu_rows:.0f}", f"x{r.kuzu_ms / max(r.scan_ms, 1e-9):,.0f}",
                   f"x{r.kuzu_ms / max(r.scan_ms + r.embed_ms, 1e-9):.2f}",
                   "-" if r.recall is None else f"{r.recall:.0%}", str(r.alone["answered"]), str(r.alone["accurate"]),
                   str(r.alone["hallucinated"]))
    scans = [x for r in lats for x in r.scan_samples]
    kuzu = [x for r in lats for x in r.kuzu_samples]
    speedup = statistics.median(kuzu) / max(statistics.median(scans), 1e-9) if scans else 0.0
    t3 = Table(title="Answers with the fallback off -> on (CRAG judge; EX = execution accuracy)")
    for col in ("dev set", "n", "don't know (off)", "fallback ran", "answered by memory", "of which accurate",
                "of which halluc.", "EX", "accurate", "halluc.", "truthfulness"):
        t3.add_column(col, justify="left" if col == "dev set" else "right")
    n_all = sum(a.n for a in answers)
    acc_off = sum(a.off["accurate"] * a.n for a in answers)
    acc_on = sum(a.on["accurate"] * a.n for a in answers)
    delta = 100.0 * (acc_on - acc_off) / n_all if n_all else 0.0
    for a in answers:
        t3.add_row(a.name, str(a.n), str(a.dont_know_off), str(a.fallback_ran), str(a.fallback_answered),
                   str(a.fallback_accurate), str(a.fallback_hallucinated),
                   f"{a.off['ex']:.1%} -> {a.on['ex']:.1%}", f"{a.off['accurate']:.1%} -> {a.on['accurate']:.1%}",
                   f"{a.off['hallucinated']:.1%} -> {a.on['hallucinated']:.1%}",
                   f"{a.off['truthfulness']:+.3f} -> {a.on['truthfulness']:+.3f}")
    for t in (t1, t2) + ((t3,) if answers else ()):
        console.print(t)
    console.print(f"pooled median: memory scan {statistics.median(scans):.4f} ms vs Kuzu 1+2-hop "
                  f"{statistics.median(kuzu):.2f} ms -> x{speedup:,.0f}; total {elapsed:.0f}s")
    plot = _plot(lats, args.out)
    cmd = "kgqa bench vector-memory" + (" --quick" if args.quick else "") + f" --m {args.m} --k {args.k}"
    md = ["## Vector memory (GLARE fallback)", "",
          __doc__.split("\n\n")[0].replace("\n", " "), "",
          "Pooling: anchors by importance (degree = GLARE-Deg, PageRank = GLARE-PgRank), 1-hop subgraphs of "
          "uncovered nodes, removed after pooling; vectors are mean all-MiniLM-L6-v2 embeddings of the member "
          "nodes' names. Latency: median over questions of the median of repeats; the scan is a numpy linear "
          "cosine scan; the Kuzu traversal reads the same k anchors' 1-hop and 2-hop neighbourhoods from the "
          "read-only graph. Answers: one run with the fallback on; the off result reverts each memory answer "
          "to \"I don't know\" (the fallback runs only after the Cypher path ended so). Timings are noisy on a shared 2-core machine; "
          "ratios are from one run.", "",
          f"Command: `{cmd}` ({elapsed:.0f} s)", "",
          _md_table(["domain", "ranking", "subgraphs", "nodes", "node cov.", "edge cov.", "vectors B",
                     "triples B", "graph.kuzu B"],
                    [[b.domain, b.ranking, b.subgraphs, b.nodes, f"{b.node_coverage:.1%}", f"{b.edge_coverage:.1%}",
                      b.vector_bytes, b.triple_bytes, b.graph_bytes] for b in builds]), "",
          _md_table(["domain", "questions", "scan ms", "embed ms", "Kuzu 1-hop ms", "Kuzu 2-hop ms", "speed-up (scan)",
                     "speed-up (embed+scan)", f"recall@{args.k}", "memory alone: answered", "accurate",
                     "halluc."],
                    [[r.domain, r.queries, f"{r.scan_ms:.4f}", f"{r.embed_ms:.2f}", f"{r.kuzu_1hop_ms:.2f}",
                      f"{r.kuzu_2hop_ms:.2f}", f"x{r.kuzu_ms / max(r.scan_ms, 1e-9):,.0f}",
                      f"x{r.kuzu_ms / max(r.scan_ms + r.embed_ms, 1e-9):.2f}",
                      "-" if r.recall is None else f"{r.recall:.0%}", r.alone["answered"], r.alone["accurate"],
                      r.alone["hallucinated"]] for r in lats])]
    if answers:
        md += ["", _md_table(["dev set", "n", "don't know (off)", "fallback ran", "answered by memory", "accurate",
                              "halluc.", "EX off->on", "accurate off->on", "truthfulness off->on"],
                             [[a.name, a.n, a.dont_know_off, a.fallback_ran, a.fallback_answered, a.fallback_accurate,
                               a.fallback_hallucinated, f"{a.off['ex']:.1%} -> {a.on['ex']:.1%}",
                               f"{a.off['accurate']:.1%} -> {a.on['accurate']:.1%}",
                               f"{a.off['truthfulness']:+.3f} -> {a.on['truthfulness']:+.3f}"] for a in answers])]
    if plot:
        md += ["", f"![latency]({plot.name})"]
    md += ["", f"`vector-memory-bench speedup={speedup:.0f} accuracy_delta={delta:+.2f}`", ""]
    (args.out / "vector_memory.md").write_text("\n".join(md))
    (args.out / "vector_memory.json").write_text(json.dumps({
        "builds": [b.__dict__ for b in builds],
        "latency": [{k: v for k, v in r.__dict__.items() if not k.endswith("_samples")} for r in lats],
        "answers": [a.__dict__ for a in answers], "speedup": speedup, "accuracy_delta": delta,
        "m": args.m, "k": args.k, "quick": args.quick, "elapsed_s": elapsed}, indent=2, default=str))
    print(f"vector-memory-bench speedup={speedup:.0f} accuracy_delta={delta:+.2f}", flush=True)
    return 0


def _md_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
