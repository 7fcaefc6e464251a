"""Ablations in the manner of CacheRAG Table 3: A / H / M / T and execution accuracy per system variant.

Every variant is the full system's :class:`kgqa.settings.Settings` with one switch changed (``with_``), run on
its own scratch KGQA home (graphs symlinked read-only, a fresh plan cache and state), with one shared
LLM backend (same model and seed; it holds no per-question state).

Protocol, identical for every variant:

1. *Pre-warm.* When ``autogen`` is available, one plan cache is pre-warmed once, offline, with the full
   system's settings (``autogen.job.prewarm_into``, ``--prewarm`` plans per domain) and copied into the
   home of every variant except ``no_prewarm`` (empty cache) and ``no_plan_cache`` (no cache at all).
2. *Stream.* The question sets (northwind_dev, movies, nobel; ``--limit`` per set, stratified by type)
   are interleaved into one stream in a fixed pseudo-random order (``--seed``), the same for every
   variant. Each question is asked once with the answer cache bypassed, and scored as it comes, so
   the plan cache is judged on what it learned online from *earlier* questions (prequential). With
   ``--passes 2`` the stream is asked a second time (answer cache still bypassed) and scored separately:
   that pass shows what reuse of the plans learned in pass 1 gives.

    kgqa bench ablation [--quick] [--limit N] [--variants full,no_depth,...] [--passes 1|2] [--out DIR]

The last line printed is ``ablation-bench full_T=<x> no_depth_T=<x> ... full_EX=<x> ...``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgqa.evals.bench_accuracy import ask_record, question_sets, stratified
from kgqa.evals.benchutil import (
    artifacts_note,
    as_percent,
    command_line,
    key_value_line,
    md_table,
    remove_home,
    scratch_home,
    summarize,
)
from kgqa.evals.scorer import Report, score_records
from kgqa.jsonl import read_jsonl
from kgqa.settings import Settings


@dataclass(frozen=True)
class Variant:
    """One system variant: a name, what it removes, the Settings fields it changes, and whether its plan
    cache starts pre-warmed."""

    name: str
    label: str
    changes: tuple[tuple[str, Any], ...] = ()
    prewarm: bool = True
    optional: bool = False  # not in CacheRAG Table 3: run with --variants or without --quick

    def settings(self, base: Settings, home: Path | None = None) -> Settings:
        s = base.with_(**dict(self.changes))
        return s.with_(home=home) if home is not None else s


VARIANTS: tuple[Variant, ...] = (
    Variant("full", "full system"),
    Variant("no_depth", "w/o depth expansion", (("use_depth", False),)),
    Variant("no_breadth", "w/o breadth expansion", (("use_breadth", False),)),
    Variant("no_plan_cache", "w/o plan cache (static exemplars)", (("use_plan_cache", False),), prewarm=False),
    Variant("no_mmr", "w/o MMR (BM25 top-k)", (("plan_mmr", False),)),
    Variant("one_layer", "one-layer index (domain only)", (("plan_index_layers", 1),)),
    Variant("no_prewarm", "w/o pre-warm (empty cache)", (), prewarm=False),
    Variant("no_param_reuse", "w/o parameterized reuse", (("param_reuse", False),)),
    Variant("embedding_sim", "embedding similarity instead of BM25", (("plan_similarity", "embedding"),),
            optional=True),
    Variant("no_vector_memory", "w/o vector memory", (("vector_memory", False),), optional=True),
)
BY_NAME = {v.name: v for v in VARIANTS}
QUICK_LIMIT = 20  # questions per set in --quick
QUICK_PREWARM = 12  # pre-warm candidates per domain in --quick
FULL_PREWARM = 100  # pre-warm candidates per domain otherwise


def stream(settings: Settings, limit: int | None, seed: int, sets: list[str] | None = None) -> list[dict]:
    """The question stream every variant sees: the sets' (stratified) questions in one seeded order."""
    files = question_sets(settings)
    golds = [g for name in (sets or list(files)) for g in stratified(read_jsonl(files[name]), limit)]
    random.Random(seed).shuffle(golds)
    return golds


def set_of(gold: dict) -> str:
    """The question set a gold line comes from (its domain; Northwind's is its dev set)."""
    dom = gold.get("domain") or "?"
    return "northwind_dev" if dom == "northwind" else dom


# -- pre-warm --------------------------------------------------------------------------------------
def prewarm_api():
    """``autogen.job.prewarm_into`` when the pre-warm job is in this build, else None."""
    try:
        from kgqa.autogen.job import prewarm_into
    except ImportError:
        return None
    return prewarm_into


def build_prewarmed_state(settings: Settings, budget: int, llm=None) -> tuple[Path | None, float, int]:
    """A state folder whose plan cache the pre-warm job filled (full-system settings), its build time and
    entry count; (None, 0, 0) when autogen is not available or the budget is 0."""
    prewarm_into = prewarm_api()
    if prewarm_into is None or budget <= 0:
        return None, 0.0, 0
    from kgqa.cache.store import open_plan_cache
    from kgqa.kg.registry import registered

    home = scratch_home(settings.graphs_dir, prefix="kgqa-ablation-prewarm-", artifacts_from=settings.state_dir)
    s = settings.with_(home=home)
    t0 = time.perf_counter()
    cache = open_plan_cache(s)
    try:
        domains = list(registered(s.graphs_dir))
        _call_prewarm(prewarm_into, s, cache, domains, budget, llm)
        cache.flush()
        n = len(cache)
    finally:
        cache.close()
    return home / "state", time.perf_counter() - t0, n


def _call_prewarm(prewarm_into, settings, cache, domains, budget, llm):
    import inspect

    kwargs: dict[str, Any] = {}
    params = inspect.signature(prewarm_into).parameters
    if "progress" in params:
        kwargs["progress"] = False
    if "llm" in params:
        kwargs["llm"] = llm  # None: schema templates only
    return prewarm_into(settings, cache, domains, budget, **kwargs)


# -- running ---------------------------------------------------------------------------------------
@dataclass
class VariantRun:
    variant: Variant
    passes: list[list[dict]] = field(default_factory=list)  # prediction records per pass
    reports: list[Report] = field(default_factory=list)
    by_set: list[dict[str, Report]] = field(default_factory=list)
    elapsed_s: float = 0.0
    plan_entries: int = 0
    error: str | None = None


def run_variant(variant: Variant, base: Settings, golds: list[dict], *, passes: int, state_from: Path | None,
                llm=None) -> VariantRun:
    """One variant on its own scratch home: the stream ``passes`` times, each pass scored."""
    from kgqa.planner.pipeline import build_pipeline

    vr = VariantRun(variant)
    home = scratch_home(base.graphs_dir, prefix=f"kgqa-ablation-{variant.name}-",
                        state_from=state_from if variant.prewarm else None, artifacts_from=base.state_dir)
    t0 = time.perf_counter()
    pipe = None
    try:
        pipe = build_pipeline(variant.settings(base, home), llm=llm)
        for _ in range(passes):
            preds = [ask_record(pipe, g, use_answer_cache=False) for g in golds]
            vr.passes.append(preds)
            vr.reports.append(score_records(preds, golds))
            sets = sorted({set_of(g) for g in golds})
            vr.by_set.append({name: score_records(preds, [g for g in golds if set_of(g) == name]) for name in sets})
        if pipe.plan_cache is not None:
            vr.plan_entries = len(pipe.plan_cache)
    except Exception as err:  # noqa: BLE001 - one broken variant is reported, the others still run
        vr.error = f"{type(err).__name__}: {err}"
    finally:
        if pipe is not None:
            _close(pipe)
        remove_home(home)
    vr.elapsed_s = time.perf_counter() - t0
    return vr


def _close(pipe) -> None:
    if pipe.plan_cache is not None:
        pipe.plan_cache.close()
    for d in pipe.domains.values():
        d.graph.close()


def headline(vr: VariantRun, pass_index: int = 0) -> dict[str, float]:
    """The figures of one pass of one variant: A/H/M/T, EX, plan hits, LLM calls, latency."""
    if vr.error or len(vr.reports) <= pass_index:
        return {}
    rep, preds = vr.reports[pass_index], vr.passes[pass_index]
    s = rep.total.summary()
    n = len(preds) or 1
    lat = summarize(sum((p.get("timings_ms") or {}).values()) for p in preds)
    return {"n": rep.total.n, "A": s["accurate"], "H": s["hallucinated"], "M": s["missing"], "T": s["truthfulness"],
            "EX": s["ex"], "EX_strict": s["ex_strict"],
            "plan_hits": sum(bool((p.get("cache") or {}).get("plan_hit")) for p in preds) / n,
            "llm_calls": sum(int((p.get("cache") or {}).get("llm_calls") or 0) for p in preds) / n,
            "mean_ms": lat["mean"], "p50_ms": lat["p50"]}


# -- output ----------------------------------------------------------------------------------------
def plot(runs: list[VariantRun], path: Path, pass_index: int = 0) -> None:
    """Grouped bars: T, A, H and EX per variant."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    ok = [vr for vr in runs if not vr.error and vr.reports]
    fig, ax = plt.subplots(figsize=(max(7, 1.2 * len(ok) + 2), 4.6))
    metrics = [("T", "T = A-H"), ("A", "accurate"), ("H", "hallucinated"), ("EX", "EX")]
    x = np.arange(len(ok))
    w = 0.8 / len(metrics)
    for i, (key, label) in enumerate(metrics):
        ax.bar(x + (i - len(metrics) / 2 + 0.5) * w, [headline(vr, pass_index)[key] for vr in ok], w, label=label)
    ax.set_xticks(x, [vr.variant.name.replace("_", "\n") for vr in ok], fontsize=8)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_title(f"Ablations (pass {pass_index + 1}, n={headline(ok[0], pass_index)['n'] if ok else 0})")
    ax.legend(fontsize=8, ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


HEADERS = ["variant", "removes", "n", "A", "H", "M", "T", "ΔT", "EX", "plan hits", "LLM/q", "mean ms"]


def _rows(runs: list[VariantRun], pass_index: int) -> list[list]:
    full = next((headline(vr, pass_index) for vr in runs if vr.variant.name == "full" and not vr.error), {})
    rows = []
    for vr in runs:
        h = headline(vr, pass_index)
        if not h:
            rows.append([vr.variant.name, vr.variant.label, "failed", vr.error or "", "", "", "", "", "", "", "", ""])
            continue
        delta = f"{h['T'] - full['T']:+.3f}" if full else ""
        rows.append([vr.variant.name, vr.variant.label, h["n"], as_percent(h["A"]), as_percent(h["H"]),
                     as_percent(h["M"]), f"{h['T']:+.3f}", delta, as_percent(h["EX"]), as_percent(h["plan_hits"]),
                     f"{h['llm_calls']:.2f}", f"{h['mean_ms']:.0f}"])
    return rows


def _set_rows(runs: list[VariantRun], pass_index: int) -> tuple[list[str], list[list]]:
    sets = sorted({name for vr in runs if not vr.error and vr.by_set for name in vr.by_set[pass_index]})
    headers = ["variant"] + [f"{s} {m}" for s in sets for m in ("T", "EX")]
    rows = []
    for vr in runs:
        if vr.error or len(vr.by_set) <= pass_index:
            continue
        row: list[Any] = [vr.variant.name]
        for s in sets:
            rep = vr.by_set[pass_index].get(s)
            row += [f"{rep.truthfulness:+.3f}", as_percent(rep.execution_accuracy)] if rep else ["", ""]
        rows.append(row)
    return headers, rows


def markdown(runs: list[VariantRun], *, command: str, n_questions: int, passes: int, prewarm: dict,
             png: str | None, elapsed_s: float) -> str:
    pw = (f"pre-warmed once with autogen ({prewarm['budget']} candidates per domain, "
          f"{'schema templates and LLM-written questions' if prewarm.get('llm') else 'schema templates only'}; "
          f"{prewarm['entries']} entries in {prewarm['seconds']:.0f} s) and copied into each variant's home"
          if prewarm["entries"] else "no pre-warm (autogen not available or budget 0): every cache starts empty, "
          "so `full` and `no_prewarm` coincide")
    pw += f"; load-time state {artifacts_note(Settings.from_env().state_dir)}"
    out = ["## Ablations (CacheRAG Table 3)", "",
           f"Each variant is the full system with one switch off, on a fresh scratch home; plan cache {pw}. "
           f"The same stream of {n_questions} questions (northwind_dev, movies, nobel, interleaved in a fixed "
           "seeded order) is asked once per pass with the answer cache bypassed, and each answer is scored when "
           "it is given, so the plan cache only knows what it learned from earlier questions. "
           "A/H/M: accurate / hallucinated / missing (deterministic CRAG judge); T = A - H; ΔT against `full`; "
           "EX: lenient execution accuracy.", "",
           f"Command: `{command}` ({elapsed_s:.0f} s)", ""]
    for p in range(passes):
        title = "Pass 1 (online, prequential)" if p == 0 else f"Pass {p + 1} (same stream again)"
        out += [f"### {title}", "", md_table(HEADERS, _rows(runs, p)), ""]
        headers, rows = _set_rows(runs, p)
        if rows:
            out += [md_table(headers, rows), ""]
    if png:
        out += [f"![ablations]({png})", ""]
    return "\n".join(out)


def print_table(runs: list[VariantRun], passes: int) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=150)
    for p in range(passes):
        t = Table(title=f"Ablations, pass {p + 1}")
        for h in HEADERS:
            t.add_column(h, justify="left" if h in ("variant", "removes") else "right")
        for row in _rows(runs, p):
            t.add_row(*map(str, row))
        console.print(t)


def main(argv: list[str] | None = None) -> int:
    settings = Settings.from_env()
    ap = argparse.ArgumentParser(prog="kgqa bench ablation", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help=f"Table-3 variants only, {QUICK_LIMIT} questions per set, pre-warm {QUICK_PREWARM}")
    ap.add_argument("--limit", type=int, help=f"questions per set (default: all; --quick: {QUICK_LIMIT})")
    ap.add_argument("--variants", help="comma-separated variants (default: all; --quick: the non-optional ones): "
                    + ", ".join(BY_NAME))
    ap.add_argument("--passes", type=int, default=1, choices=(1, 2))
    ap.add_argument("--prewarm", type=int, help=f"pre-warm plans per domain (default {FULL_PREWARM}; "
                    f"--quick {QUICK_PREWARM}; 0 = none)")
    ap.add_argument("--prewarm-llm", action=argparse.BooleanOptionalAction, default=None,
                    help="let the pre-warm also write questions with the LLM (default: yes, no with --quick)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=settings.reports_dir)
    args = ap.parse_args(argv)

    if args.variants:
        names = [v.strip() for v in args.variants.split(",") if v.strip()]
        bad = [n for n in names if n not in BY_NAME]
        if bad:
            ap.error(f"unknown variant(s) {', '.join(bad)}; choose from {', '.join(BY_NAME)}")
        variants = [BY_NAME[n] for n in names]
    else:
        variants = [v for v in VARIANTS if not (args.quick and v.optional)]
    limit = args.limit if args.limit is not None else (QUICK_LIMIT if args.quick else None)
    budget = args.prewarm if args.prewarm is not None else (QUICK_PREWARM if args.quick else FULL_PREWARM)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)

    golds = stream(settings, limit, args.seed)
    t0 = time.perf_counter()
    from kgqa.planner.llm import make_llm

    llm = make_llm(settings)
    from kgqa.kg.embed import embed

    embed(["warm up"])  # load the sentence encoder before any variant is timed
    state = None
    prewarm = {"budget": budget, "entries": 0, "seconds": 0.0}
    try:
        if any(v.prewarm for v in variants):
            use_llm = args.prewarm_llm if args.prewarm_llm is not None else not args.quick
            prewarm["llm"] = use_llm
            state, secs, entries = build_prewarmed_state(settings, budget, llm if use_llm else None)
            prewarm.update(seconds=secs, entries=entries)
            print(f"pre-warm: {entries} plans in {secs:.0f}s" if state else "pre-warm: not available", flush=True)
        runs = []
        for v in variants:
            vr = run_variant(v, settings, golds, passes=args.passes, state_from=state, llm=llm)
            h = headline(vr)
            print(f"  {v.name}: " + (f"T={h['T']:+.3f} EX={h['EX']:.3f} ({vr.elapsed_s:.0f}s)" if h
                                     else f"failed: {vr.error}"), flush=True)
            runs.append(vr)
    finally:
        if state is not None:
            remove_home(state.parent)
    elapsed = time.perf_counter() - t0

    png = out / "ablation.png"
    plot(runs, png)
    command = command_line("kgqa bench ablation", argv)
    (out / "ablation.md").write_text(markdown(runs, command=command, n_questions=len(golds), passes=args.passes,
                                              prewarm=prewarm, png=png.name, elapsed_s=elapsed))
    (out / "ablation.json").write_text(json.dumps(
        {"protocol": {"questions": len(golds), "passes": args.passes, "seed": args.seed, "limit": limit,
                      "prewarm": prewarm},
         "variants": {vr.variant.name: {"label": vr.variant.label, "changes": dict(vr.variant.changes),
                                        "prewarm": vr.variant.prewarm, "error": vr.error,
                                        "elapsed_s": vr.elapsed_s, "plan_entries": vr.plan_entries,
                                        "passes": [headline(vr, p) for p in range(len(vr.reports))],
                                        "by_set": [{k: r.total.summary() for k, r in bs.items()} for bs in vr.by_set]}
                      for vr in runs}, "elapsed_s": elapsed}, indent=2, default=str))
    print_table(runs, args.passes)
    pairs: dict[str, Any] = {}
    for key in ("T", "EX"):
        for vr in runs:
            pairs[f"{vr.variant.name}_{key}"] = headline(vr).get(key)
    print(key_value_line("ablation-bench", pairs), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
