"""The ``kgqa`` command line: load graphs, ask, eval, serve, pre-warm, bench."""

from __future__ import annotations

import argparse
import json
import os
import sys

from kgqa.settings import DOMAINS, Settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _domains(value: str) -> list[str]:
    if value == "all":
        return list(DOMAINS)
    if value not in DOMAINS:
        raise SystemExit(f"unknown domain {value!r}; choose one of {', '.join(DOMAINS)} or all")
    return [value]


def cmd_load(args, settings: Settings) -> int:
    from kgqa.kg.loader import build_domain

    for domain in _domains(args.domain):
        meta = build_domain(domain, settings.data_dir, settings.graphs_dir, force=args.force)
        nodes = sum(meta.node_counts.values())
        rels = sum(meta.rel_counts.values())
        print(f"{domain}: {nodes} nodes, {rels} relationships "
              f"({', '.join(f'{k} {v}' for k, v in meta.node_counts.items())}) version {meta.version[:12]}")
        if settings.vector_memory:
            _load_vector_memory(domain, settings, force=args.force)
    return 0


def _load_vector_memory(domain: str, settings: Settings, *, force: bool = False) -> None:
    """Build (or find current) the domain's GLARE vector memory, stored under state/ keyed by the KG version."""
    from kgqa.kg.db import Graph
    from kgqa.kg.domains import SPECS
    from kgqa.kg.vector_memory import ensure_memory

    with Graph(settings.graph_path(domain), read_only=True, pool_size=1) as graph:
        memory, path, built = ensure_memory(graph, SPECS[domain], settings.state_dir, m=settings.vector_memory_m,
                                            ranking=settings.vector_memory_ranking, force=force)
    meta = memory.meta
    print(f"{domain}: vector memory {'built' if built else 'current'}: {meta.subgraphs} subgraphs "
          f"({meta.ranking}), node coverage {meta.node_coverage:.1%}, edge coverage {meta.edge_coverage:.1%}")


def cmd_ask(args, settings: Settings) -> int:
    from kgqa.planner.pipeline import build_pipeline

    pipe = build_pipeline(settings)
    if args.batch:
        from kgqa.planner.batch import read_batch

        questions = read_batch(args.batch)
        results = pipe.ask_batch(questions)
        for r in results:
            print(json.dumps(r.to_dict(), ensure_ascii=False, default=str) if args.json else _pretty(r))
        return 0
    if not args.question:
        raise SystemExit("kgqa ask: give a question (or --batch FILE.jsonl)")
    result = pipe.ask(" ".join(args.question), domain=args.domain)
    print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str) if args.json else _pretty(result))
    return 0 if result.status != "error" else 1


def _pretty(r) -> str:
    lines = [r.answer or "(no answer)"]
    lines.append(f"  status={r.status} domain={r.domain} plan_hit={r.cache.get('plan_hit')} "
                 f"answer_hit={r.cache.get('answer_hit')} llm_calls={r.cache.get('llm_calls')}")
    if r.cypher:
        lines.append("  cypher: " + " ".join(r.cypher.split()))
    total = sum(r.timings_ms.values())
    lines.append(f"  time: {total:.0f} ms (" + ", ".join(f"{k} {v:.0f}" for k, v in r.timings_ms.items()) + ")")
    return "\n".join(lines)


def cmd_eval(args, settings: Settings) -> int:
    from kgqa.planner.evaluate import run_eval

    return run_eval(settings, args.questions, args.out, domain=args.domain, limit=args.limit)


def cmd_serve(args, settings: Settings) -> int:
    from kgqa.app.server import serve

    serve(settings.with_(host=args.host or settings.host, port=settings.port if args.port is None else args.port))
    return 0


def cmd_prewarm(args, settings: Settings) -> int:
    from kgqa.autogen.job import run_prewarm

    return run_prewarm(settings, _domains(args.domain), budget=args.budget, resume=args.resume,
                       if_empty=args.if_empty)


def cmd_bench(args, settings: Settings) -> int:
    import importlib

    names = {"kg": "kgqa.evals.bench_kg", "cache": "kgqa.evals.bench_cache", "subgcache": "kgqa.evals.bench_subgcache",
             "accuracy": "kgqa.evals.bench_accuracy", "vector-memory": "kgqa.evals.bench_vector_memory",
             "ablation": "kgqa.evals.ablation", "load": "kgqa.evals.bench_load", "all": "kgqa.evals.bench_all"}
    if args.name not in names:
        raise SystemExit(f"unknown benchmark {args.name!r}; choose one of {', '.join(names)}")
    try:
        module = importlib.import_module(names[args.name])
    except ModuleNotFoundError as err:
        raise SystemExit(f"benchmark {args.name!r} is not available in this build ({err})") from err
    return module.main(args.rest) or 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kgqa", description="Question answering over knowledge graphs (CacheRAG on Kuzu).")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("load", help="build the Kuzu graphs under $KGQA_HOME")
    s.add_argument("--domain", default="all")
    s.add_argument("--force", action="store_true", help="rebuild even when up to date")
    s.set_defaults(func=cmd_load)

    s = sub.add_parser("ask", help="answer a question")
    s.add_argument("question", nargs="*")
    s.add_argument("--domain", choices=DOMAINS)
    s.add_argument("--json", action="store_true")
    s.add_argument("--batch", metavar="FILE.jsonl", help="answer a batch (one {\"question\"} per line)")
    s.set_defaults(func=cmd_ask)

    s = sub.add_parser("eval", help="answer a question file, one JSON result per line")
    s.add_argument("--questions", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--domain", choices=DOMAINS)
    s.add_argument("--limit", type=int)
    s.set_defaults(func=cmd_eval)

    s = sub.add_parser("serve", help="run the REST API and web chat UI")
    s.add_argument("--host")
    s.add_argument("--port", type=int)
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("prewarm", help="pre-warm the plan cache offline (auto-generation)")
    s.add_argument("--domain", default="all", help="a domain or 'all'")
    s.add_argument("--budget", type=int, default=200, help="candidate questions per domain (verified entries are fewer)")
    s.add_argument("--resume", action="store_true", help="continue an interrupted run without duplicates")
    s.add_argument("--if-empty", action="store_true", help="only domains whose plan cache is empty")
    s.set_defaults(func=cmd_prewarm)

    s = sub.add_parser("bench", help="run a benchmark (kg, cache, subgcache, accuracy, "
                                          "vector-memory, ablation, load, all)")
    s.add_argument("name")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = Settings.from_env()
    try:
        return args.func(args, settings) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
