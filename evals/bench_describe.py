"""``kgqa bench subgcache --kind describe``: SubGCache on descriptive answers (issue 19).

Questions ("Who is X?", "Tell me about X", ...) are drawn (seeded) from related entities of the three graphs:
the members of one neighbourhood (a film's cast, a prize's or an institution's laureates, a category's
products), several such groups per graph, then shuffled. Each is retrieved once through the pipeline (fresh
caches): its answer is the verbalized description of the entity's bounded subgraph. The LLM rewrite stage then
runs per question (the baseline: the question's own facts as its prefix, evaluated for it alone) and for each
cluster count (:func:`kgqa.planner.batch.summarize_batch`: one shared prefix per group, its KV state reused).

Each question's prompt states its entity's compact facts (one node per line with its outgoing edges under it,
importance-ranked within ``--describe-chars`` characters: :func:`kgqa.planner.describe.select`); a group's shared
prefix is the union of its members' facts, the suffix only the question turn.

Reported per setting: **TTFT** (the group's prefix evaluation divided among its members + restore + own prefill
+ first token: the honest per-question cost, the headline), **PFTT** (restore + own prefill + first token, once the
prefix is cached), prompt tokens evaluated per question, the token bound, the mean shared-prefix length, **faithful** (share of raw LLM
rewrites in which every name, number and date occurs in the question's own subgraph, with each number beside
its name: :func:`kgqa.planner.describe.problems`), **kept** (rewrites that replaced the verbalized paragraph),
and **final faithful** (of the answers returned). The headline is the best TTFT ratio at the largest batch
whose faithful share loses at most 1 point; the last line is
``subgcache-bench kind=describe ttft_ratio=<x> faithfulness_delta=<points> clusters=<n> prefix_tokens=<n>``.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgqa.kg.cypher import ident

DOMAINS = ("movies", "nobel", "northwind")
PHRASES = ("Tell me about {}", "What do you know about {}?", "Describe {}.")


@dataclass
class Row:
    size: int
    clusters: str
    questions: int
    groups: int
    ttft_ms: float
    pftt_ms: float
    tokens_q: float
    prefix_tokens: float
    cluster_ms: float
    total_s: float
    faithful: float  # % of raw rewrites
    kept: float  # %
    final_faithful: float  # % of answers returned
    ttft_ratio: float = 1.0
    faithful_delta: float = 0.0
    pftt_ratio: float = 1.0
    token_bound: float = 1.0  # baseline tokens/q over the setting's: the TTFT ratio if time were linear in tokens


def draw_questions(settings, n: int, seed: int) -> list[dict]:
    """``n`` describe questions over related entities: groups of 3-8 nodes sharing one neighbour, per graph."""
    from kgqa.kg.engines import open_graph
    from kgqa.kg.operators import catalog
    from kgqa.kg.registry import graph_spec

    rng = random.Random(seed)
    out: list[dict] = []
    per = -(-n // len(DOMAINS))
    for domain in DOMAINS:
        graph = open_graph(settings.graph_path(domain))
        try:
            spec, cat = graph_spec(graph), catalog(graph)
            rels = [(rel, s, d) for rel, pairs in sorted(cat.rels.items()) for s, d in pairs]
            got: list[dict] = []
            tries = 0
            while len(got) < per and tries < 200:
                tries += 1
                rel, src, dst = rng.choice(rels)
                # the group: nodes of `src` sharing one `dst` neighbour through `rel`
                show = spec.display_prop(src)
                res = graph.query(f"MATCH (a:{ident(src)})-[:{ident(rel)}]->(b:{ident(dst)}) WITH b, collect(a.{ident(show)}) AS xs "
                                  "WHERE size(xs) >= 3 AND size(xs) <= 8 RETURN xs", row_cap=5000)
                if not res.rows:
                    continue
                names = [x for x in rng.choice(res.rows)[0] if isinstance(x, str) and not re.fullmatch(r"[\d\W]+", x)]
                for name in names:
                    if len(got) >= per or any(q["entity"] == name for q in got):
                        continue
                    who = src == spec.who
                    text = f"Who is {name}?" if who and rng.random() < 0.6 else rng.choice(PHRASES).format(name)
                    got.append({"question": text, "domain": domain, "entity": name})
            out += got
        finally:
            graph.close()
    rng.shuffle(out)
    return out[:n]


def setting_row(size: int, label: str, rep, descs: dict, answers: dict, only: set[int] | None = None) -> Row:
    """Metrics of one setting on the first ``size`` questions (``only``: the baseline's sample of them)."""
    from kgqa.planner import describe

    ph = [p for p in rep.phrases if p.index < size and (only is None or p.index in only)]
    n = max(len(ph), 1)
    faithful = [not describe.problems(p.text, descs[p.index].contexts, descs[p.index].values, descs[p.index].own)
                for p in ph if p.text]
    final = []
    for i in (sorted(only) if only is not None else range(size)):
        if i >= size:
            continue
        p = next((x for x in ph if x.index == i), None)
        text = p.text if p is not None and p.kept else answers[i]
        final.append(not describe.problems(text, descs[i].contexts, descs[i].values, descs[i].own))
    groups = {p.group for p in ph}
    prefix = [p.prefix_tokens for p in ph]
    return Row(size, label, len(ph), len(groups), sum(p.prefix_ms + p.ttft_ms for p in ph) / n,
               sum(p.ttft_ms for p in ph) / n, sum(p.evaluated_tokens for p in ph) / n, sum(prefix) / n,
               rep.cluster_ms, (rep.cluster_ms + sum(p.prefix_ms + p.wall_ms for p in ph)) / 1000,
               100 * sum(faithful) / max(len(ph), 1), 100 * sum(p.kept for p in ph) / n,
               100 * sum(final) / max(len(final), 1))


def against_baseline(rows: list[Row], base: Row) -> None:
    """Sets each row's ratios and faithfulness change against the per-question baseline ``base``."""
    for r in rows:
        r.ttft_ratio = base.ttft_ms / r.ttft_ms if r.ttft_ms > 0 else 0.0
        r.pftt_ratio = base.pftt_ms / r.pftt_ms if r.pftt_ms > 0 else 0.0
        r.token_bound = base.tokens_q / r.tokens_q if r.tokens_q > 0 else 0.0
        r.faithful_delta = r.faithful - base.faithful


def headline(rows: list[Row], size: int) -> Row:
    """Returns the best TTFT ratio at batch ``size`` that loses at most 1 point of faithful rewrites (else the
    baseline)."""
    top = [r for r in rows if r.size == size]
    ok = [r for r in top if r.clusters != "per" and r.faithful_delta >= -1.0]
    return max(ok, key=lambda r: r.ttft_ratio) if ok else next(r for r in top if r.clusters == "per")


def table(rows: list[Row]) -> list[str]:
    """The markdown table of the settings."""
    out = ["| batch | clusters | rewrites | prefixes | prefix tokens | TTFT ms | PFTT ms | tokens/q | clustering ms | "
           "total s | TTFT ratio | PFTT ratio | token bound | faithful % (Δ) | kept % | final faithful % |",
           "|" + "---|" * 16]
    for r in rows:
        out.append(f"| {r.size} | {r.clusters} | {r.questions} | {r.groups} | {r.prefix_tokens:.0f} | {r.ttft_ms:.0f} | "
                   f"{r.pftt_ms:.0f} | {r.tokens_q:.0f} | {r.cluster_ms:.0f} | {r.total_s:.1f} | {r.ttft_ratio:.2f}x | "
                   f"{r.pftt_ratio:.2f}x | {r.token_bound:.2f}x | {r.faithful:.1f} ({r.faithful_delta:+.1f}) | "
                   f"{r.kept:.1f} | {r.final_faithful:.1f} |")
    return out


def plot(rows: list[Row], sizes: list[int], path: Path,
         title: str = "SubGCache on descriptions (embedded SmolLM2-135M, CPU)") -> None:
    """TTFT per cluster setting (bars) and faithful share (line), one panel per batch size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(sizes), figsize=(5.2 * len(sizes), 3.8), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        rs = [r for r in rows if r.size == size]
        ax.bar(range(len(rs)), [r.ttft_ms / 1000 for r in rs],
               color=["#c44e52" if r.clusters == "per" else "#4c72b0" for r in rs], label="TTFT (prefix amortized)")
        ax.plot(range(len(rs)), [r.pftt_ms / 1000 for r in rs], "k^", label="PFTT (prefix cached)")
        ax.legend(loc="upper left", fontsize=8)
        ax.set_xticks(range(len(rs)), [r.clusters for r in rs])
        ax.set_xlabel("cluster number (per = per-question baseline)")
        ax.set_ylabel("TTFT (s)")
        ax.set_title(f"describe, batch of {size}")
        tw = ax.twinx()
        tw.plot(range(len(rs)), [r.faithful for r in rs], "o-", color="#dd8452", label="faithful rewrites %")
        tw.set_ylim(0, 100)
        tw.legend(loc="upper right", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


@contextmanager
def described(settings, args, n: int) -> Iterator[tuple[Any, list]]:
    """Yields (pipeline, results): the first ``n`` drawn questions (``args.seed``) that a pipeline on a
    throw-away home (fresh caches, the real graphs) answered with a description of the entity's subgraph."""
    from kgqa.evals.benchutil import remove_home, scratch_home
    from kgqa.kg.embed import embed
    from kgqa.planner.batch import retrieve
    from kgqa.planner.pipeline import build_pipeline

    drawn = draw_questions(settings, n * 3 // 2, args.seed)  # some names are not described (ambiguous)
    home = scratch_home(settings.graphs_dir, prefix="kgqa-describe-")
    try:
        pipe = build_pipeline(settings.with_(home=home))
        embed(["warm-up"])
        t0 = time.perf_counter()
        results = [r for r in retrieve(pipe, drawn) if "describe" in r.operators][:n]
        print(f"retrieval: {len(results)} of {len(drawn)} drawn questions described in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
        yield pipe, results
    finally:
        remove_home(home)


def run(settings, args, sizes: list[int], labels: list[str], out_dir: Path, command: str) -> int:
    """The describe benchmark (see the module docstring); prints the table and the summary line."""
    from kgqa.planner import describe
    from kgqa.planner.batch import summarize_batch, summarize_each

    t_start = time.perf_counter()
    settings = settings.with_(llm_threads=args.threads, llm_ctx=args.ctx, describe_rewrite="batch",
                              describe_prompt_chars=args.describe_chars)
    with described(settings, args, max(sizes)) as (pipe, results):
        sizes = sorted({min(s, len(results)) for s in sizes})
        chars = args.describe_chars
        descs = {i: describe.from_subgraph(r.subgraph, chars) for i, r in enumerate(results)}
        answers = {i: r.answer for i, r in enumerate(results)}
        llm = pipe.llm
        # the per-question baseline, on every question or on a seeded sample of them (same run, same model)
        sample = sorted(random.Random(args.seed).sample(range(len(results)), args.baseline_sample)) \
            if 0 < args.baseline_sample < len(results) else list(range(len(results)))
        base = summarize_each(copy.deepcopy([results[i] for i in sample]), llm, describe_tokens=args.max_tokens,
                              apply=False, describe_chars=chars)
        for p in base.phrases:
            p.index = sample[p.index]
        only = set(sample) if len(sample) < len(results) else None
        print(f"baseline: {len(base.phrases)} rewrites, mean TTFT {base.mean_ttft_ms:.0f} ms", flush=True)
        rows: list[Row] = []
        for size in sizes:
            base_row = setting_row(size, "per", base, descs, answers, only)
            size_rows = []
            for label in labels:
                if label == "per":
                    size_rows.append(base_row)
                    continue
                rep = summarize_batch(copy.deepcopy(results[:size]), llm, n_clusters=int(label),
                                      describe_tokens=args.max_tokens, apply=False, describe_chars=chars,
                                      prefix_tokens=settings.batch_prefix_tokens)
                size_rows.append(setting_row(size, label, rep, descs, answers))
                print(f"batch {size} clusters {label}: TTFT {size_rows[-1].ttft_ms:.0f} ms vs "
                      f"{base_row.ttft_ms:.0f} ms, {rep.n_groups} prefixes", flush=True)
            against_baseline(size_rows, base_row)
            rows += size_rows
    best = headline(rows, max(sizes))
    elapsed = time.perf_counter() - t_start
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    out_dir.mkdir(parents=True, exist_ok=True)
    plot(rows, sizes, out_dir / "subgcache_describe.png")
    base_note = (f"the per-question baseline ran on a seeded random sample of {len(sample)} of the {len(results)} "
                 "questions (its rows are means over that sample; the settings' over all)" if only is not None
                 else f"the per-question baseline ran on all {len(results)} questions")
    lines = ["## SubGCache on descriptive answers (issue 19)", "",
             f"Command: `{command}` — {elapsed / 60:.1f} min, load average {load}; {len(results)} descriptions of "
             f"related entities (movies, nobel, northwind; seed {args.seed}), embedded SmolLM2-135M, {args.threads} "
             f"thread(s), n_ctx {args.ctx}, shared prefixes of at most {settings.batch_prefix_tokens} tokens, flash "
             f"attention, {chars} characters of compact facts per entity, "
             f"{args.max_tokens} generated tokens per rewrite; {base_note}. No GPU was available for this run.", "",
             "TTFT = the group's shared-prefix evaluation divided among its members + restore (if needed) + the "
             "question's own prefill + first token; PFTT = the same without the prefix share; tokens/q = prompt tokens "
             "evaluated per question (prefixes amortized); token bound = the baseline's tokens/q over the setting's. "
             "Faithful = raw LLM rewrites in which every name, number and date is in the question's own subgraph.",
             "", *table(rows), "",
             f"Headline: batch {best.size}, clusters {best.clusters}: TTFT {best.ttft_ratio:.2f}x lower (PFTT "
             f"{best.pftt_ratio:.2f}x, token bound {best.token_bound:.2f}x), faithful rewrites "
             f"{best.faithful_delta:+.1f} points, shared prefix {best.prefix_tokens:.0f} tokens.", "",
             "![SubGCache on descriptions](subgcache_describe.png)", ""]
    (out_dir / "subgcache_describe.md").write_text("\n".join(lines), encoding="utf-8")
    (out_dir / "subgcache_describe.json").write_text(json.dumps({"rows": [r.__dict__ for r in rows],
                                                                 "elapsed_s": elapsed}, indent=1), encoding="utf-8")
    print("\n".join(table(rows)))
    print(f"report: {out_dir / 'subgcache_describe.md'} ({elapsed / 60:.1f} min)")
    clusters = best.clusters if best.clusters != "per" else "per-question"
    print(f"subgcache-bench kind=describe ttft_ratio={best.ttft_ratio:.2f} faithfulness_delta={best.faithful_delta:+.1f} "
          f"clusters={clusters} prefix_tokens={best.prefix_tokens:.0f} pftt_ratio={best.pftt_ratio:.2f} "
          f"baseline_sample={len(sample)}", flush=True)
    return 0
