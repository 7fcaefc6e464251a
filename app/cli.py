"""The ``kgqa`` command line: load graphs, ask, eval, serve, pre-warm, cache inspect/purge, bench."""

from __future__ import annotations

import argparse
import json
import os
import sys

from kgqa.settings import Settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def registered_domains(settings: Settings, value: str | None) -> list[str]:
    """Returns the registered domains ``value`` names ("all" or one name); exits with a clear message else."""
    from kgqa.kg.registry import registered

    names = list(registered(settings.graphs_dir))
    if value in (None, "all"):
        return names
    if value not in names:
        raise SystemExit(f"unknown domain {value!r}; registered: {', '.join(names) or 'none (run kgqa load)'}")
    return [value]


def cmd_load(args, settings: Settings) -> int:
    from kgqa.kg.ddl import SourceError
    from kgqa.kg.domains import BUNDLED
    from kgqa.kg.loader import NameClash, build_graph
    from kgqa.kg.sources import bundled_source, csv_source, cypher_source, kuzu_source

    routes = [r for r in ("schema", "cypher", "kuzu", "bolt") if getattr(args, r)]
    if args.bolt:
        return _load_bolt(args, settings, routes)
    try:
        if routes or args.name:
            if not args.name or len(routes) != 1 or (args.schema is None) != (args.csv is None):
                raise SystemExit("kgqa load: give --name NAME and one of --schema FILE --csv DIR, --cypher FILE, "
                                 "--kuzu PATH (or --domain NAME|all for the bundled graphs)")
            ann = args.annotations if settings.annotations else None
            source = (csv_source(args.schema, args.csv, ann) if args.schema else
                      cypher_source(args.cypher, ann) if args.cypher else kuzu_source(args.kuzu, ann))
            todo = [(args.name, source)]
        else:
            names = list(BUNDLED) if args.domain == "all" else [args.domain]
            if any(n not in BUNDLED for n in names):
                raise SystemExit(f"unknown bundled graph {args.domain!r}; bundled: {', '.join(BUNDLED)} or all "
                                 "(your own graph: kgqa load --name NAME ...)")
            todo = [(n, bundled_source(n, settings.data_dir, annotations=settings.annotations)) for n in names]
        from kgqa.kg.embed import preload, set_threads

        set_threads(settings.load_embed_threads)  # a batch job: its encodes (names, vector memory) are few and large
        for name, source in todo:
            memory: list[str] = []  # the vector memory's line, when it is built beside the new graph's index
            beside = (lambda graph, spec: memory.append(_vector_memory(graph, spec, settings, force=args.force))
                      ) if settings.vector_memory else None
            meta = build_graph(name, source, settings.graphs_dir, force=args.force, beside=beside,
                               staged=preload if settings.vector_memory else None)
            nodes = sum(meta.node_counts.values())
            rels = sum(meta.rel_counts.values())
            print(f"{name}: {nodes} nodes, {rels} relationships "
                  f"({', '.join(f'{k} {v}' for k, v in meta.node_counts.items())}) version {meta.version[:12]}")
            for note in meta.notes:
                print(f"{name}: {note}")
            if settings.vector_memory:
                print(f"{name}: {memory[0] if memory else _load_vector_memory(name, settings, force=args.force)}")
    except (SourceError, NameClash, ValueError) as err:
        print(f"kgqa load: {err}", file=sys.stderr)
        return 2
    return 0


def _load_bolt(args, settings: Settings, routes: list[str]) -> int:
    """``kgqa load --name NAME --bolt URI``: registers a graph on a Neo4j-compatible server (introspected,
    never copied or written)."""
    from kgqa.kg.bolt_engine import register_bolt

    if not args.name or routes != ["bolt"]:
        raise SystemExit("kgqa load: --bolt URI goes with --name NAME alone (plus --database, --user, --annotations)")
    try:
        meta = register_bolt(settings.graphs_dir, args.name, args.bolt, database=args.database or "",
                             user=args.user or settings.bolt_user, password=settings.bolt_password,
                             annotations=args.annotations if settings.annotations else None)
    except Exception as err:  # noqa: BLE001 - a server that is down or refuses: one clear line
        print(f"kgqa load: {type(err).__name__}: {err}", file=sys.stderr)
        return 2
    print(f"{args.name}: {sum(meta.node_counts.values())} nodes, {sum(meta.rel_counts.values())} relationships "
          f"({', '.join(f'{k} {v}' for k, v in meta.node_counts.items())}) on {args.bolt} version {meta.version[:12]}")
    return 0


def cmd_bolt_import(args, settings: Settings) -> int:
    """The one-off import of a registered local graph into an empty database of a Bolt server."""
    from kgqa.kg.bolt_engine import import_graph
    from kgqa.kg.db import Graph

    registered_domains(settings, args.domain)
    with Graph(settings.graph_path(args.domain), read_only=True, pool_size=1) as graph:
        try:
            written = import_graph(graph, args.bolt, database=args.database or "",
                                   user=args.user or settings.bolt_user, password=settings.bolt_password)
        except Exception as err:  # noqa: BLE001 - one clear line
            print(f"kgqa bolt-import: {type(err).__name__}: {err}", file=sys.stderr)
            return 2
    print(f"{args.domain} -> {args.bolt}: " + ", ".join(f"{k} {v}" for k, v in written.items()))
    return 0


def cmd_domains(args, settings: Settings) -> int:
    from kgqa.kg.registry import registered, remove_domain

    if args.action == "remove":
        if not args.name:
            raise SystemExit("kgqa domains remove NAME")
        try:
            meta = remove_domain(settings.graphs_dir, args.name)
        except (KeyError, ValueError) as err:
            print(f"kgqa domains: {err.args[0]}", file=sys.stderr)
            return 2
        dropped = _drop_caches(settings, args.name)
        print(f"removed {args.name} (version {meta.version[:12]}); {dropped} cached plans dropped")
        return 0
    rows = [{"name": n, "source": m.source.get("kind", "bundled"), "files": m.source.get("files", []),
             "annotations": bool(m.source.get("annotations")), "nodes": sum(m.node_counts.values()),
             "relationships": sum(m.rel_counts.values()), "version": m.version[:12], "built_at": m.built_at}
            for n, m in registered(settings.graphs_dir).items()]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        print(f"{r['name']:<16} {r['source']:<8} {r['nodes']:>8} nodes {r['relationships']:>9} relationships  "
              f"version {r['version']}  {'annotated' if r['annotations'] else 'derived'}"
              + (f"  {r['files'][0]}" if r["files"] and r["source"] != "bundled" else ""))
    if not rows:
        print("no domains registered: kgqa load --domain all, or kgqa load --name NAME ...")
    return 0


def _drop_caches(settings: Settings, name: str) -> int:
    """Drops every cached plan of a removed domain (answers die with its KG version); returns how many."""
    from kgqa.cache.store import open_plan_cache

    with open_plan_cache(settings) as cache:
        return cache.invalidate(name, keep_version="")


def _load_vector_memory(domain: str, settings: Settings, *, force: bool = False) -> str:
    """Returns a line on the registered graph's GLARE vector memory, built unless current."""
    from kgqa.kg.db import Graph
    from kgqa.kg.registry import graph_spec

    with Graph(settings.graph_path(domain), read_only=True, pool_size=1) as graph:
        return _vector_memory(graph, graph_spec(graph, annotations=settings.annotations), settings, force=force)


def _vector_memory(graph, spec, settings: Settings, *, force: bool) -> str:
    """Returns a line on the graph's GLARE vector memory, built (or found current) under state/ keyed by the KG
    version; ``spec`` is the graph's spec or a future of it."""
    from kgqa.kg.memory_build import ensure_memory

    memory, _, built = ensure_memory(graph, spec, settings.state_dir, m=settings.vector_memory_m,
                                     ranking=settings.vector_memory_ranking, force=force,
                                     full_max=settings.vector_memory_full_max, members=settings.k_degree)
    meta = memory.meta
    how = (f", sampled: the top anchors' neighbourhoods, at most {settings.k_degree} members each "
           "(KGQA_VECTOR_MEMORY_FULL_MAX)") if meta.sampled else ""
    return (f"vector memory {'built' if built else 'current'}: {meta.subgraphs} subgraphs ({meta.ranking}), "
            f"node coverage {meta.node_coverage:.1%}, edge coverage {meta.edge_coverage:.1%}{how}")


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
    """``kgqa eval``: one line per question (a failing question is an ``error`` line, the run goes on), then the
    failures by kind."""
    import json

    from kgqa.kg.failures import Failures, kind_of_error
    from kgqa.planner.evaluate import run_eval

    code = run_eval(settings, args.questions, args.out, domain=args.domain, limit=args.limit)
    failures = Failures()
    with open(args.out, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record.get("status") == "error":
                failures.add(str(record.get("error")), kind_of_error(str(record.get("error"))))
    print(f"eval: {failures.text()}")
    return code


def cmd_serve(args, settings: Settings) -> int:
    from kgqa.app.serving import serve

    settings = settings.with_(workers=args.workers or settings.workers)
    if settings.workers > 1:  # gunicorn, preloaded (kgqa.app.workers)
        from kgqa.app.workers import serve_workers

        serve = serve_workers
    serve(settings.with_(host=args.host or settings.host, port=settings.port if args.port is None else args.port,
                         threads=args.threads or settings.threads))
    return 0


def cmd_prewarm(args, settings: Settings) -> int:
    from kgqa.autogen.job import run_prewarm

    return run_prewarm(settings, registered_domains(settings, args.domain), budget=args.budget, resume=args.resume,
                       if_empty=args.if_empty)


def cmd_bench(args, settings: Settings) -> int:
    import importlib

    names = {"kg": "kgqa.evals.bench_kg", "cache": "kgqa.evals.bench_cache", "subgcache": "kgqa.evals.bench_subgcache",
             "accuracy": "kgqa.evals.bench_accuracy", "vector-memory": "kgqa.evals.bench_vector_memory",
             "ablation": "kgqa.evals.ablation", "load": "kgqa.evals.bench_load", "abuse": "kgqa.evals.bench_abuse",
             "backends": "kgqa.evals.bench_backends", "soak": "kgqa.evals.bench_soak", "scale": "kgqa.evals.bench_scale",
             "all": "kgqa.evals.bench_all"}
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

    s = sub.add_parser("load", help="build a graph under $KGQA_HOME: the bundled ones, or your own")
    s.add_argument("--domain", default="all", help="a bundled graph or 'all' (default)")
    s.add_argument("--name", help="your graph's domain name (with one of the three routes below)")
    s.add_argument("--schema", metavar="FILE", help="Kuzu DDL (CREATE NODE/REL TABLE ...); with --csv")
    s.add_argument("--csv", metavar="DIR", help="one CSV per table, named after it, with a header row")
    s.add_argument("--cypher", metavar="FILE", help="a Cypher CREATE script")
    s.add_argument("--kuzu", metavar="PATH", help="an existing Kuzu database, registered in place, opened read-only")
    s.add_argument("--bolt", metavar="URI", help="a graph on a Neo4j-compatible server (bolt://, neo4j://), "
                   "introspected, never copied or written; password from KGQA_BOLT_PASSWORD")
    s.add_argument("--database", help="with --bolt: the database on the server (default: the server's)")
    s.add_argument("--user", help="with --bolt: the user (default: KGQA_BOLT_USER)")
    s.add_argument("--annotations", metavar="FILE", help="optional annotations (JSON or YAML)")
    s.add_argument("--force", action="store_true", help="rebuild even when up to date")
    s.set_defaults(func=cmd_load)

    s = sub.add_parser("bolt-import", help="one-off import of a registered graph into an EMPTY database of a "
                                           "Neo4j-compatible server (then: kgqa load --name NAME --bolt URI)")
    s.add_argument("--domain", required=True, help="a registered Kuzu graph")
    s.add_argument("--bolt", required=True, metavar="URI")
    s.add_argument("--database", help="the database on the server (default: the server's)")
    s.add_argument("--user", help="the user (default: KGQA_BOLT_USER); password from KGQA_BOLT_PASSWORD")
    s.set_defaults(func=cmd_bolt_import)

    s = sub.add_parser("domains", help="list the registered graphs, or remove one")
    s.add_argument("action", nargs="?", choices=["list", "remove"], default="list")
    s.add_argument("name", nargs="?")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_domains)

    s = sub.add_parser("ask", help="answer a question")
    s.add_argument("question", nargs="*")
    s.add_argument("--domain", help="a registered domain (default: the router chooses)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--batch", metavar="FILE.jsonl", help="answer a batch (one {\"question\"} per line)")
    s.set_defaults(func=cmd_ask)

    s = sub.add_parser("eval", help="answer a question file, one JSON result per line")
    s.add_argument("--questions", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--domain", help="a registered domain (default: each line's, else the router's)")
    s.add_argument("--limit", type=int)
    s.set_defaults(func=cmd_eval)

    s = sub.add_parser("serve", help="run the REST API and web chat UI")
    s.add_argument("--host")
    s.add_argument("--port", type=int)
    s.add_argument("--workers", type=int, help="processes (gunicorn, preloaded) sharing the plan cache and, with "
                                               "KGQA_REDIS_URL, the answer cache (default KGQA_WORKERS, 1)")
    s.add_argument("--threads", type=int, help="request threads per process (default KGQA_THREADS, 8)")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("prewarm", help="pre-warm the plan cache offline (auto-generation)")
    s.add_argument("--domain", default="all", help="a domain or 'all'")
    s.add_argument("--budget", type=int, default=200, help="candidate questions per domain (verified entries are fewer)")
    s.add_argument("--resume", action="store_true", help="continue an interrupted run without duplicates")
    s.add_argument("--if-empty", action="store_true", help="only domains whose plan cache is empty")
    s.set_defaults(func=cmd_prewarm)

    from kgqa.app.cache_cmd import add_parser as add_cache_parser

    add_cache_parser(sub)

    s = sub.add_parser("bench", help="run a benchmark (kg, cache, subgcache, accuracy, "
                                          "vector-memory, ablation, load, soak, backends, abuse, scale, all)")
    s.add_argument("name")
    s.add_argument("rest", nargs=argparse.REMAINDER)
    s.set_defaults(func=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as err:  # a KGQA_* variable that is no value of its setting: say which, no traceback
        print(f"kgqa: {err}", file=sys.stderr)
        return 2
    try:
        return args.func(args, settings) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
