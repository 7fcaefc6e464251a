"""SubGCache on descriptions, measured on a GPU with torch + transformers (issue 19).

The CPU benchmark (:mod:`kgqa.evals.bench_describe`) runs the embedded llama.cpp model. A GPU machine has torch
and transformers but not kgqa's graph stack, so the measurement is split in three, each step's output the next
one's input:

1. **plan** (here, ``kgqa bench subgcache --kind describe --export-plan PLAN.json``): the same retrieval and
   clustering as the CPU benchmark; for every setting (batch size × cluster count, and the per-question
   baseline) the prompt groups: each group's shared prefix (the rendered system turn of its facts) and its
   members' suffixes (their question turns), cut where the embedded model's tokenizer gives the same tokens
   apart as together (:func:`kgqa.cache.prefix.split_prompt`); with each question's subgraph, to score against.
2. **replay** (on the GPU: ``python3 evals/describe_gpu.py replay PLAN.json MODEL_DIR GGUF OUT.json``, torch
   and transformers only): the same SmolLM2-135M-Instruct weights, read from the GGUF file and dequantized to
   bf16 on the GPU. The baseline prefills each question's whole prompt; a shared setting prefills each group's
   prefix once and, per member, continues a copy of its KV cache with the member's suffix. Greedy decoding of
   ``max_tokens`` tokens, stopped at a blank line or end of turn. Times are CUDA-synchronised wall clocks.
3. **score** (here, ``kgqa bench subgcache --kind describe --replayed PLAN.json OUT.json``): the CPU
   benchmark's table (TTFT, PFTT, tokens per question, token bound, faithful rewrites) from the replay.

Unlike the embedded path, transformers has no GBNF grammar: the GPU rewrites are unconstrained, so their
faithful share is lower in every setting alike; the comparison that matters is each setting's against the
baseline in the same run.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

STOP = "\n\n"  # the rewrite ends at a blank line (as on the embedded path)


# -- 1. the prompt plan (here) --------------------------------------------------------------------------

def export_plan(settings, args, sizes: list[int], labels: list[str], path: Path, command: str) -> int:
    """Writes the prompt plan of every setting to ``path`` (see the module docstring); returns 0."""
    import copy

    from kgqa.cache.prefix import split_prompt
    from kgqa.evals.bench_describe import described
    from kgqa.planner.batch import candidates, item_messages, prompt_groups
    from kgqa.planner.llm import default_model_path

    t0 = time.perf_counter()
    with described(settings, args, max(sizes)) as (pipe, results):
        llm = pipe.llm
        sizes = sorted({min(s, len(results)) for s in sizes})
        out = {"command": command, "seed": args.seed, "max_tokens": args.max_tokens, "stop": STOP,
               "model": Path(settings.llm_model_path or default_model_path()).name, "describe_chars": args.describe_chars,
               "prefix_tokens": settings.batch_prefix_tokens,
               "questions": [{"index": i, "question": r.question, "answer": r.answer, "subgraph": r.subgraph}
                             for i, r in enumerate(results)],
               "settings": []}
        for size in sizes:
            for label in labels:
                if label == "per" and size != max(sizes):
                    continue  # the baseline is replayed once, on every question; smaller sizes take its head
                batch = copy.deepcopy(results[:size])
                items = candidates(batch, describe_chars=args.describe_chars)
                t1 = time.perf_counter()
                groups = prompt_groups(items, llm, n_clusters=len(items) if label == "per" else int(label),
                                       describe_tokens=args.max_tokens, prefix_tokens=settings.batch_prefix_tokens)
                cluster_ms = (time.perf_counter() - t1) * 1000
                setting = {"size": size, "clusters": label, "cluster_ms": cluster_ms, "groups": []}
                for cluster, members, facts in groups:
                    group = {"cluster": cluster, "prefix": None, "members": []}
                    for it in members:
                        prefix, suffix = split_prompt(llm, item_messages(it, facts))
                        if group["prefix"] is None:
                            group["prefix"] = prefix
                        if prefix != group["prefix"]:  # a cut elsewhere: this member shares nothing
                            suffix, prefix = prefix + suffix, ""
                        group["members"].append({"index": it.index, "suffix": suffix, "shares": bool(prefix)})
                    setting["groups"].append(group)
                out["settings"].append(setting)
                print(f"plan: batch {size}, clusters {label}: {len(groups)} prompt groups", flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, default=str), encoding="utf-8")
    print(f"plan: {path} ({len(out['questions'])} questions, {len(out['settings'])} settings, "
          f"{time.perf_counter() - t0:.0f} s)")
    return 0


# -- 2. the replay (on the GPU; torch and transformers only) --------------------------------------------

def replay(plan_path: str, model_dir: str, gguf: str, out_path: str, dtype: str = "bfloat16") -> dict:
    """Runs every setting of the plan on the GPU and returns (and writes to ``out_path``) each question's
    rewrite and timings per setting: prefix_ms (the group's prefix evaluation, charged to its first member),
    pftt_ms (copy of the prefix cache + own prefill + first token), wall_ms, token counts."""
    import copy

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    plan = json.loads(Path(plan_path).read_text(encoding="utf-8"))
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    t_load = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(model_dir, gguf_file=gguf)
    model = AutoModelForCausalLM.from_pretrained(model_dir, gguf_file=gguf, dtype=getattr(torch, dtype)).to(dev).eval()
    load_s = time.perf_counter() - t_load
    eos = {t for t in (tok.eos_token_id, tok.convert_tokens_to_ids("<|im_end|>")) if isinstance(t, int)}

    def ids(text: str) -> list[int]:
        return tok(text, add_special_tokens=False).input_ids if text else []

    def sync() -> float:
        if dev == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter()

    @torch.inference_mode()
    def forward(tokens: list[int], cache=None):
        x = torch.tensor([tokens], device=dev)
        return model(input_ids=x, past_key_values=cache, use_cache=True)

    @torch.inference_mode()
    def decode(first, cache, limit: int) -> str:
        out = [first]
        while len(out) < limit and out[-1] not in eos:
            step = forward([out[-1]], cache)
            cache = step.past_key_values
            out.append(int(step.logits[0, -1].argmax()))
            if STOP in tok.decode(out, skip_special_tokens=True):
                break
        text = tok.decode([t for t in out if t not in eos], skip_special_tokens=True)
        return text.split(STOP)[0]

    warm = ids(plan["settings"][0]["groups"][0]["prefix"] or "warm up") or [1]
    for _ in range(10):  # kernels, allocator and cuBLAS handles, before anything is timed
        forward(warm)
    sync()
    limit = int(plan["max_tokens"])
    settings = []
    for setting in plan["settings"]:
        phrases = []
        t_set = sync()
        for g, group in enumerate(setting["groups"]):
            pre = ids(group["prefix"] or "")
            baseline = setting["clusters"] == "per"
            cache, prefix_ms = None, 0.0
            if pre and not baseline:
                t0 = sync()
                cache = forward(pre).past_key_values
                prefix_ms = (sync() - t0) * 1000
            for m, member in enumerate(group["members"]):
                suf = ids(member["suffix"])
                shared = not baseline and member["shares"] and cache is not None
                t0 = sync()
                if shared:  # continue a copy of the group's prefix cache with the question's own tokens
                    step = forward(suf, copy.deepcopy(cache))
                else:  # the whole prompt at once
                    step = forward((pre if member["shares"] else []) + suf)
                first = int(step.logits[0, -1].argmax())
                pftt = (sync() - t0) * 1000
                text = decode(first, step.past_key_values, limit)
                wall = (sync() - t0) * 1000
                phrases.append({"index": member["index"], "group": g, "cluster": group["cluster"], "text": text,
                                "prefix_ms": prefix_ms if m == 0 else 0.0, "ttft_ms": pftt, "wall_ms": wall,
                                "prefix_tokens": len(pre), "reused": shared and m > 0,
                                "prompt_tokens": len(pre) + len(suf)})
        settings.append({"size": setting["size"], "clusters": setting["clusters"],
                         "cluster_ms": setting["cluster_ms"], "phrases": phrases,
                         "total_s": sync() - t_set})
        print(f"replay: batch {setting['size']}, clusters {setting['clusters']}: {len(phrases)} rewrites in "
              f"{settings[-1]['total_s']:.1f} s", flush=True)
    out = {"device": torch.cuda.get_device_name(0) if dev == "cuda" else "cpu", "torch": torch.__version__,
           "transformers": __import__("transformers").__version__, "dtype": dtype, "load_s": load_s,
           "settings": settings}
    Path(out_path).write_text(json.dumps(out, indent=1), encoding="utf-8")
    return out


# -- 3. the score (here) --------------------------------------------------------------------------------

def score(plan_path: Path, replay_path: Path, out_dir: Path, command: str) -> int:
    """Prints (and writes to ``out_dir/subgcache_describe_gpu.md``) the CPU benchmark's table and summary line
    from a GPU replay of a plan; returns 0."""
    from kgqa.evals.bench_describe import against_baseline, headline, plot, setting_row, table
    from kgqa.planner import describe
    from kgqa.planner.batch import BatchReport, Phrase

    plan = json.loads(Path(plan_path).read_text(encoding="utf-8"))
    rep_all = json.loads(Path(replay_path).read_text(encoding="utf-8"))
    chars = plan["describe_chars"]
    descs = {q["index"]: describe.from_subgraph(q["subgraph"], chars) for q in plan["questions"]}
    answers = {q["index"]: q["answer"] for q in plan["questions"]}

    def report(setting: dict) -> BatchReport:
        rep = BatchReport(cluster_ms=setting["cluster_ms"])
        for p in setting["phrases"]:
            ph = Phrase(p["index"], p["group"], p["cluster"], p["text"], False, p["prefix_ms"], p["ttft_ms"],
                        p["wall_ms"], p["prefix_tokens"], p["reused"], prompt_tokens=p["prompt_tokens"])
            ph.kept = describe.acceptable(ph.text, descs[ph.index])
            rep.phrases.append(ph)
        return rep

    base = next(s for s in rep_all["settings"] if s["clusters"] == "per")
    base_rep = report(base)
    sizes = sorted({s["size"] for s in rep_all["settings"]} | {base["size"]})
    rows = []
    for size in sizes:
        base_row = setting_row(size, "per", base_rep, descs, answers)
        size_rows = [setting_row(size, s["clusters"], report(s), descs, answers)
                     for s in rep_all["settings"] if s["size"] == size and s["clusters"] != "per"] + [base_row]
        against_baseline(size_rows, base_row)
        rows += size_rows
    best = headline(rows, max(sizes))
    top = [r for r in rows if r.size == max(sizes)]
    fastest = max((r for r in top if r.clusters != "per"), key=lambda r: r.ttft_ratio, default=best)
    out_dir.mkdir(parents=True, exist_ok=True)
    plot(rows, sizes, out_dir / "subgcache_describe_gpu.png",
         title=f"SubGCache on descriptions (SmolLM2-135M, {rep_all['device']}, torch + transformers)")
    lines = ["## SubGCache on descriptive answers, on a GPU (issue 19)", "",
             f"Plan: `{plan['command']}` (seed {plan['seed']}, {len(plan['questions'])} descriptions, shared prefixes "
             f"of at most {plan['prefix_tokens']} tokens, {chars} characters of facts per entity, "
             f"{plan['max_tokens']} generated tokens per rewrite). Replay: `python3 evals/describe_gpu.py replay` on "
             f"{rep_all['device']}, torch {rep_all['torch']}, transformers {rep_all['transformers']}, "
             f"{plan['model']} dequantized to {rep_all['dtype']}, greedy, no grammar (transformers has no GBNF); "
             f"the baseline on all {base['size']} questions. Score: `{command}`.", "",
             *table(rows), "",
             f"Headline: batch {best.size}, clusters {best.clusters}: TTFT {best.ttft_ratio:.2f}x lower (PFTT "
             f"{best.pftt_ratio:.2f}x, token bound {best.token_bound:.2f}x), faithful rewrites "
             f"{best.faithful_delta:+.1f} points. Fastest shared setting: clusters {fastest.clusters}, TTFT "
             f"{fastest.ttft_ratio:.2f}x, faithful {fastest.faithful_delta:+.1f} points.", "",
             "![SubGCache on descriptions, GPU](subgcache_describe_gpu.png)", ""]
    (out_dir / "subgcache_describe_gpu.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(table(rows)))
    clusters = best.clusters if best.clusters != "per" else "per-question"
    print(f"subgcache-bench kind=describe device=gpu ttft_ratio={best.ttft_ratio:.2f} "
          f"faithfulness_delta={best.faithful_delta:+.1f} clusters={clusters} prefix_tokens={best.prefix_tokens:.0f} "
          f"pftt_ratio={best.pftt_ratio:.2f} fastest_ttft_ratio={fastest.ttft_ratio:.2f}", flush=True)
    return 0


if __name__ == "__main__":  # the GPU step runs as a plain script: kgqa is not installed there
    if len(sys.argv) < 6 or sys.argv[1] != "replay":
        sys.exit("usage: python3 evals/describe_gpu.py replay PLAN.json MODEL_DIR GGUF_FILE OUT.json [dtype]")
    replay(*sys.argv[2:7])
