"""The kg scalability benchmark at tiny sizes: synthetic graphs, caching, output format, bounds."""

from __future__ import annotations

import json
import re

import numpy as np

from kgqa.evals import bench_kg
from kgqa.kg import synthetic


def test_generator_is_deterministic_power_law():
    src, pred, dst, n = synthetic.generate(20_000, seed=3)
    again = synthetic.generate(20_000, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip((src, pred, dst), again[:3]))
    triples = set(zip(src.tolist(), pred.tolist(), dst.tolist()))
    assert len(triples) == 20_000 and n == 2_500 and not np.any(src == dst)
    in_deg = np.bincount(dst, minlength=n)
    assert in_deg.max() > 50 * np.median(in_deg)  # super-nodes, like Wikidata's "human"
    assert len(np.unique(pred)) == len(synthetic.PREDICATES)


def test_build_is_cached(tmp_path):
    path, stats = synthetic.build(tmp_path, 3_000, seed=5)
    again_path, again = synthetic.build(tmp_path, 3_000, seed=5)
    assert again_path == path and again.build_s == stats.build_s  # reused, not rebuilt
    assert stats.hubs and stats.max_in_degree > 0 and stats.items == 375


def test_tiny_bench_prints_the_growth_line(tmp_path, capsys):
    report = tmp_path / "bench.json"
    rc = bench_kg.main(["--sizes", "2k,4k", "--queries", "6", "--repeats", "1", "--k-degree", "8",
                        "--home", str(tmp_path), "--report", str(report)])
    assert rc == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert re.fullmatch(r"kg-bench point_growth=\d+\.\d\d star_growth=\d+\.\d\d", lines[-1])
    data = json.loads(report.read_text())
    assert [s["triples"] for s in data["sizes"]] == [2_000, 4_000]
    for size in data["sizes"]:
        assert 0 < size["star_max_edges"] <= 8 and size["point_max_edges"] <= 8
        assert size["point_ms_p50"] > 0 and size["star_ms_p50"] > 0
    assert (tmp_path / "bench" / "synthetic-4000-s13-v1" / "graph.kuzu").exists()


def test_size_parsing():
    assert bench_kg._parse_sizes("40k, 1.28m,160000") == [40_000, 160_000, 1_280_000]
