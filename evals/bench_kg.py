"""Scalability of the bounded operators on Wikidata-like synthetic graphs (CacheRAG appendix A.5).

For each graph size (triples) it times point queries (depth expansion along one relation from one item)
and star queries (breadth expansion of one item, super-nodes included, pruned to K_degree), after a
warm-up pass; each query's time is the median of its repeats, and a size's time is the median over
queries. The growth ratio is largest-size median / smallest-size median (CacheRAG claims O(log n), so
the target is <= 1.5x over a 32x size range). The last line printed is always
``kg-bench point_growth=<x> star_growth=<x>``.

    python -m kgqa.evals.bench_kg [--sizes 40000,160000,640000,1280000] [--queries 50] [--repeats 5] [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from kgqa.evals.benchutil import command_line, percentile

DEFAULT_SIZES = (40_000, 160_000, 640_000, 1_280_000)
QUICK_SIZES, QUICK_QUERIES, QUICK_REPEATS = "40k,160k,1.28m", 20, 3  # --quick: same 32x range, fewer queries
QUESTION_TEMPLATES = (
    "Where was {name} born?", "Who directed {name}?", "Which awards did {name} receive?",
    "What is {name} part of?", "Which country is {name} located in?", "Who founded {name}?",
    "What language does {name} use?", "Who is the spouse of {name}?", "Where did {name} study?",
    "Which team does {name} play for?",
)


@dataclass
class SizeResult:
    triples: int
    items: int
    reused: bool
    build_s: float
    point_ms_p50: float
    point_ms_p95: float
    star_ms_p50: float
    star_ms_p95: float
    star_max_edges: int
    point_max_edges: int
    max_in_degree: int


def _time(fn, repeats: int) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        sub = fn()
        times.append((time.perf_counter() - t0) * 1000)
        size = len(sub.edges)
    return statistics.median(times), size


def _workload(graph, stats, n_queries: int, seed: int):
    """Deterministic point and star queries: items drawn from edge endpoints, plus the super-nodes."""
    from kgqa.kg.synthetic import PREDICATES

    rng = np.random.default_rng(seed + stats.triples)
    points = []
    for _ in range(n_queries):
        rel = PREDICATES[int(rng.integers(0, min(12, len(PREDICATES))))]
        row = graph.query(f"MATCH (a:Item)-[:{rel}]->() WHERE a.id >= $lo RETURN a.id LIMIT 1",
                          {"lo": int(rng.integers(0, stats.items))}).rows
        if not row:
            row = graph.query(f"MATCH (a:Item)-[:{rel}]->() RETURN a.id LIMIT 1").rows
        points.append((int(row[0][0]), rel))
    hubs = list(stats.hubs[: max(1, n_queries // 5)])
    stars = hubs + [int(i) for i in rng.integers(0, stats.items, size=n_queries - len(hubs))]
    return points, stars[:n_queries]


def run_size(home: Path, triples: int, *, n_queries: int, repeats: int, k_degree: int, k_depth: int,
             seed: int, question_vectors: np.ndarray) -> SizeResult:
    from kgqa.kg import synthetic
    from kgqa.kg.db import Graph
    from kgqa.kg.operators import breadth_expand, depth_expand

    existed = synthetic.load_stats(synthetic.graph_dir(home, triples, seed)) is not None
    path, stats = synthetic.build(home, triples, seed)
    graph = Graph(path, read_only=True, pool_size=1, timeout_ms=60_000, row_cap=10_000)
    try:
        points, stars = _workload(graph, stats, n_queries, seed)

        def point(i):
            item, rel = points[i]
            return depth_expand(graph, [("Item", item)], rel, "out", k_depth_used=0, k_depth=k_depth,
                                limit=k_degree)

        def star(i):
            return breadth_expand(graph, ("Item", stars[i]), question_vectors[i % len(question_vectors)],
                                  k_degree=k_degree)

        for i in range(len(points)):  # warm-up: page cache, catalogue, predicate embeddings
            point(i)
        for i in range(len(stars)):
            star(i)
        point_res = [_time(lambda i=i: point(i), repeats) for i in range(len(points))]
        star_res = [_time(lambda i=i: star(i), repeats) for i in range(len(stars))]
    finally:
        graph.close()
    pt = [t for t, _ in point_res]
    st = [t for t, _ in star_res]
    return SizeResult(triples=triples, items=stats.items, reused=existed, build_s=stats.build_s,
                      point_ms_p50=round(statistics.median(pt), 3), point_ms_p95=round(percentile(pt, 95), 3),
                      star_ms_p50=round(statistics.median(st), 3), star_ms_p95=round(percentile(st, 95), 3),
                      star_max_edges=max(n for _, n in star_res), point_max_edges=max(n for _, n in point_res),
                      max_in_degree=stats.max_in_degree)


def _parse_sizes(text: str) -> list[int]:
    sizes = []
    for part in text.split(","):
        part = part.strip().lower().replace("_", "")
        if not part:
            continue
        mult = 1
        if part[-1] in "km":
            mult, part = (1_000 if part[-1] == "k" else 1_000_000), part[:-1]
        sizes.append(int(float(part) * mult))
    return sorted(set(sizes))


def _write_section(out: Path, results: list[SizeResult], args, point_growth: float, star_growth: float,
                   argv: list[str] | None) -> None:
    """``out/kg.md`` (the table) and ``out/kg.png`` (p50/p95 latency against graph size) for ``bench all``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kgqa.evals.benchutil import md_table

    out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    xs = [r.triples for r in results]
    for attr, label in (("point_ms_p50", "point p50"), ("point_ms_p95", "point p95"), ("star_ms_p50", "star p50"),
                        ("star_ms_p95", "star p95")):
        ax.plot(xs, [getattr(r, attr) for r in results], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("triples")
    ax.set_ylabel("ms per query")
    ax.set_title(f"Bounded operators (K_degree={args.k_degree})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "kg.png", dpi=110)
    plt.close(fig)
    rows = [[f"{r.triples:,}", r.max_in_degree, r.point_ms_p50, r.point_ms_p95, r.star_ms_p50, r.star_ms_p95,
             r.star_max_edges] for r in results]
    (out / "kg.md").write_text("\n".join([
        "## Bounded operators on synthetic graphs (CacheRAG A.5)", "",
        f"Point (depth) and star (breadth, K_degree={args.k_degree}) queries, {args.queries} each, median of "
        f"{args.repeats} repeats; growth = largest / smallest size p50 (target <= 1.5x).", "",
        f"Command: `{command_line('kgqa bench kg', argv)}`", "",
        md_table(["triples", "max in-degree", "point p50 ms", "point p95 ms", "star p50 ms", "star p95 ms",
                  "max star edges"], rows, digits=2), "",
        f"Growth over x{results[-1].triples / results[0].triples:g} size: point x{point_growth:.2f}, "
        f"star x{star_growth:.2f}.", "", "![kg latency](kg.png)", ""]))


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.table import Table

    from kgqa.settings import Settings

    settings = Settings.from_env()
    ap = argparse.ArgumentParser(prog="kgqa bench kg", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES),
                    help="comma-separated triple counts (k/m suffixes allowed), e.g. 40k,160k,640k,1.28m")
    ap.add_argument("--queries", type=int, default=50, help="point and star queries per size")
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats per query (median taken)")
    ap.add_argument("--k-degree", type=int, default=settings.k_degree)
    ap.add_argument("--k-depth", type=int, default=settings.k_depth)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--home", type=Path, default=settings.home, help="graphs are cached in <home>/bench")
    ap.add_argument("--report", type=Path, default=None, help="JSON report path (default <out>/bench_kg.json)")
    ap.add_argument("--quick", action="store_true",
                    help=f"sizes {QUICK_SIZES}, {QUICK_QUERIES} queries x {QUICK_REPEATS} repeats (unless given)")
    ap.add_argument("--out", type=Path, default=None, help="folder for kg.md, kg.png and the JSON report "
                    "(default <home>/reports)")
    args = ap.parse_args(argv)
    if args.quick:
        given = {a.split("=", 1)[0] for a in (argv if argv is not None else sys.argv[1:])}
        args.sizes = args.sizes if "--sizes" in given else QUICK_SIZES
        args.queries = args.queries if "--queries" in given else QUICK_QUERIES
        args.repeats = args.repeats if "--repeats" in given else QUICK_REPEATS
    sizes = _parse_sizes(args.sizes)
    if not sizes:
        ap.error("--sizes needs at least one size")

    from kgqa.kg.embed import embed

    console = Console()
    if console.width < 120:
        console = Console(width=120)
    questions = [t.format(name=f"item {i}") for i, t in enumerate(QUESTION_TEMPLATES)]
    qvecs = embed(questions)
    results = []
    t0 = time.perf_counter()
    for n in sizes:
        with console.status(f"kg bench: {n:,} triples"):
            results.append(run_size(args.home, n, n_queries=args.queries, repeats=args.repeats,
                                    k_degree=args.k_degree, k_depth=args.k_depth, seed=args.seed,
                                    question_vectors=qvecs))
    elapsed = time.perf_counter() - t0

    table = Table(title=f"Bounded operators on synthetic Wikidata-like graphs "
                        f"(K_degree={args.k_degree}, {args.queries} queries x {args.repeats} repeats)")
    for col in ("triples", "items", "max in-degree", "graph", "point p50 ms", "point p95 ms",
                "star p50 ms", "star p95 ms", "max star edges"):
        table.add_column(col, justify="right")
    for r in results:
        table.add_row(f"{r.triples:,}", f"{r.items:,}", f"{r.max_in_degree:,}",
                      "cached" if r.reused else f"built {r.build_s:.1f}s",
                      f"{r.point_ms_p50:.2f}", f"{r.point_ms_p95:.2f}", f"{r.star_ms_p50:.2f}",
                      f"{r.star_ms_p95:.2f}", str(r.star_max_edges))
    console.print(table)
    first, last = results[0], results[-1]
    point_growth = last.point_ms_p50 / first.point_ms_p50 if first.point_ms_p50 else 0.0
    star_growth = last.star_ms_p50 / first.star_ms_p50 if first.star_ms_p50 else 0.0
    size_ratio = last.triples / first.triples
    console.print(f"size x{size_ratio:g}: point p50 x{point_growth:.2f}, star p50 x{star_growth:.2f} "
                  f"(target <= 1.5x); total {elapsed:.1f}s")
    out = args.out or (args.home / "reports")
    report = args.report or (out / "bench_kg.json")
    report.parent.mkdir(parents=True, exist_ok=True)
    _write_section(out, results, args, point_growth, star_growth, argv)
    report.write_text(json.dumps({"sizes": [asdict(r) for r in results], "point_growth": point_growth,
                                  "star_growth": star_growth, "k_degree": args.k_degree,
                                  "queries": args.queries, "repeats": args.repeats, "elapsed_s": elapsed},
                                 indent=2))
    print(f"kg-bench point_growth={point_growth:.2f} star_growth={star_growth:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
