"""The cache benchmark's workload pieces and a tiny end-to-end run on northwind."""

from __future__ import annotations

import json
import re

from kgqa.cache.answer_cache import AnswerCache
from kgqa.cache.plan_cache import PlanCache
from kgqa.evals import bench_cache
from kgqa.evals.bench_cache import Question, ReuseOnly, stream, synthetic_questions, variant


def test_surface_variants_share_the_answer_cache_key():
    import random

    rng = random.Random(1)
    q = "Which products does 'Exotic Liquids' supply?"
    keys = {AnswerCache.key(variant(q, rng), "northwind", "v") for _ in range(40)}
    assert keys == {AnswerCache.key(q, "northwind", "v")}


def test_stream_is_deterministic_and_repeats_questions():
    pool = [Question(f"q{i}", "northwind", f"Question number {i}?") for i in range(100)]
    s = stream(pool, 80, seed=3)
    assert s == stream(pool, 80, seed=3) and len(s) == 80
    distinct = {AnswerCache.key(q, d, "v") for q, d in s}
    assert 10 < len(distinct) < 80  # a Zipf stream: repeats, but not one question over and over


def test_synthetic_entries_use_real_phrasings_and_every_aspect_bucket():
    names = {"movie": ["The Matrix", "Top Gun"], "person": ["Tom Hanks"], "supplier": ["Exotic Liquids"],
             "customer": ["Alfreds Futterkiste"], "product": ["Chai"], "category": ["Beverages"],
             "laureate": ["Marie Curie"], "country": ["Poland"], "prize": ["physics"]}
    got = synthetic_questions(600, names, seed=2)
    assert {d for d, _, _ in got} == {"movies", "northwind", "nobel"}
    assert len({a for _, a, _ in got}) >= 6
    assert all("{" not in q for _, _, q in got)


def test_reuse_only_view_reads_but_never_learns(tmp_path):
    with PlanCache(tmp_path) as pc:
        view = ReuseOnly(pc)
        assert getattr(view, "learn", None) is None and getattr(view, "add", None) is None
        assert view.reuse == pc.reuse and view.stats()["entries"] == 0


def test_tiny_run_prints_the_summary_line(built_graphs, kgqa_home, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KGQA_HOME", str(kgqa_home))
    state = kgqa_home / "state" / "plan_cache.sqlite"
    before = state.stat().st_mtime_ns if state.exists() else None
    rc = bench_cache.main(["--quick", "--domains", "northwind", "--limit", "6", "--sample-sizes", "3,6",
                           "--mmr-sizes", "200,400", "--no-llm-warmup", "--prewarm-budget", "20", "--out", str(tmp_path)])
    assert rc == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    m = re.fullmatch(r"cache-bench hit_p50_ms=(\S+) speedup=(\S+) compression_saving=(\S+) mmr_10k_ms=nan "
                     r"param_reuse=(\S+) param_reuse_prewarm=(\S+)", last)
    assert m, last
    hit_ms, speedup, saving, reuse, reuse_warm = map(float, m.groups())
    assert 0 < hit_ms and speedup > 1 and 0 < saving < 1 and 0 <= reuse <= 1 and 0 <= reuse_warm <= 1
    data = json.loads((tmp_path / "bench_cache.json").read_text())
    assert data["hits"]["llm_calls_on_hits"] == 0 and data["hits"]["non_hits"] == 0
    assert set(data["sample_sizes"]) == {"no cache", "LRU", "compressed LRU"}
    assert data["sample_sizes"]["no cache"]["6"]["hit_rate"] == 0
    warm = data["reuse_prewarm"]
    assert warm["questions"] == 6 and warm["entries"] > 0 and warm["llm_calls_on_hits"] == 0
    assert (tmp_path / "cache.md").read_text().startswith("## Cache benchmark")
    assert (tmp_path / "cache_sample_sizes.png").stat().st_size > 1000
    assert (state.stat().st_mtime_ns if state.exists() else None) == before  # the home's plan cache is untouched
