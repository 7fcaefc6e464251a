"""The benchmark suite's plumbing: key=value lines, `bench all` on tiny real sub-benchmark scripts, the
ablation variants, the accuracy bench's question selection and stage statistics."""

from __future__ import annotations

import dataclasses
import re
import sys
import textwrap
from pathlib import Path

import pytest

from kgqa.evals import ablation, bench_accuracy, bench_all
from kgqa.evals.benchutil import (
    artifacts_note,
    as_percent,
    command_line,
    key_value_line,
    parse_key_value_line,
    percentile,
    remove_home,
    repo_path,
    scratch_home,
    summarize,
)
from kgqa.settings import REPO_ROOT, Settings

# -- key=value lines and statistics ------------------------------------------------------------------


def test_key_value_line_round_trip():
    line = key_value_line("accuracy-bench", {"ex_movies": 0.5, "n": 12, "ratio": None, "tag": "a b"})
    assert line == "accuracy-bench ex_movies=0.500 n=12 ratio=na tag=a_b"
    assert parse_key_value_line(line) == ("accuracy-bench", {"ex_movies": "0.500", "n": "12", "ratio": "na",
                                                             "tag": "a_b"})
    assert parse_key_value_line("x=1 y=2") == ("", {"x": "1", "y": "2"})
    assert parse_key_value_line("done in 3 s") == ("done", {})


def test_summarize_percentiles():
    s = summarize(range(1, 101))
    assert (s["n"], s["mean"], s["p50"], s["p99"], s["max"]) == (100, 50.5, 50.5, 99.0, 100.0)
    assert summarize([])["n"] == 0


def test_percentile_is_nearest_rank_on_any_order():
    assert percentile([5, 1, 4, 2, 3], 50) == 3.0 and percentile([3, 1, 2, 4], 50) == 2.0
    assert percentile(range(1, 11), 95) == 10.0  # numpy's linear interpolation would say 9.55
    assert percentile(range(1, 101), 99) == 99.0 and percentile([7.5], 99) == 7.5
    assert percentile([], 99) == 0.0 and percentile([], 99, empty=float("inf")) == float("inf")


def test_as_percent_formats_a_fraction():
    assert as_percent(0.1234) == "12.3%" and as_percent(1) == "100.0%"


def test_report_paths_are_relative_to_the_repository(tmp_path):
    inside = REPO_ROOT / "var" / "reports" / "20250102-030405" / "report.md"
    assert repo_path(inside) == "var/reports/20250102-030405/report.md"
    assert repo_path(str(inside)) == "var/reports/20250102-030405/report.md"
    assert repo_path(tmp_path / "x.md", root=REPO_ROOT / "var") == str(tmp_path / "x.md")  # outside: as given
    assert repo_path(tmp_path / "r" / "x.md", root=tmp_path) == "r/x.md"
    assert command_line("kgqa bench kg", ["--quick", "--out", str(REPO_ROOT / "var" / "r"), "--seed", "3"]) == \
        "kgqa bench kg --quick --out var/r --seed 3"
    assert command_line("kgqa bench all", [f"--results={REPO_ROOT / 'evals' / 'RESULTS.md'}"]) == \
        "kgqa bench all --results=evals/RESULTS.md"
    assert command_line("kgqa bench cache", None) == "kgqa bench cache"


def test_scratch_home_links_graphs_and_copies_state(tmp_path):
    graphs = tmp_path / "graphs"
    (graphs / "movies").mkdir(parents=True)
    state = tmp_path / "state"
    state.mkdir()
    (state / "plan_cache.sqlite").write_text("x")
    real = tmp_path / "real-state"
    (real / "vector_memory" / "movies").mkdir(parents=True)
    (real / "plan_cache.sqlite").write_text("learned")
    home = scratch_home(graphs, state_from=state, artifacts_from=real)
    try:
        assert (home / "graphs").is_symlink() and (home / "graphs" / "movies").is_dir()
        assert (home / "state" / "plan_cache.sqlite").read_text() == "x"  # learned state is not shared
        assert (home / "state" / "vector_memory" / "movies").is_dir()  # load-time artifacts are
        assert artifacts_note(home / "state") == "with vector_memory"
    finally:
        remove_home(home)
    assert not home.exists() and (graphs / "movies").is_dir()  # the link's target survives
    bare = scratch_home(graphs)
    assert [p.name for p in (bare / "state").iterdir()] == [] and "without vector_memory" in artifacts_note(bare)
    remove_home(bare)


# -- bench all on tiny real scripts ----------------------------------------------------------------
SCRIPTS = {
    "accuracy": """
        out = Path(sys.argv[sys.argv.index("--out") + 1])
        (out / "accuracy.md").write_text("## Accuracy\\n\\n| set | EX |\\n|---|---|\\n| movies | 50% |\\n")
        (out / "accuracy.png").write_bytes(b"\\x89PNG\\r\\n\\x1a\\n")
        print("scoring ...")
        print("accuracy-bench ex_northwind_dev=0.412 ex_movies=0.500 truthfulness=0.250")
    """,
    "cache": """
        print("cache-bench hit_p50_ms=0.80 miss_p50_ms=900.00")
    """,
    "subgcache": """
        print("subgcache-bench ttft_ratio=0.40", flush=True)
        print("Traceback: boom", file=sys.stderr)
        raise SystemExit(3)
    """,
    "vector-memory": """
        print("done, but no figures")
    """,
    "load": """
        import time
        print("load-bench starting", flush=True)
        time.sleep(60)
    """,
}


def _fake_specs(tmp_path: Path, out: Path) -> list[bench_all.BenchSpec]:
    specs = []
    for name, body in SCRIPTS.items():
        script = tmp_path / f"{name.replace('-', '_')}.py"
        script.write_text("import sys\nfrom pathlib import Path\n" + textwrap.dedent(body))
        specs.append(bench_all.BenchSpec(name, [sys.executable, str(script), "--quick", "--out", str(out)]))
    return specs + [bench_all.BenchSpec("ablation", None)]


def test_bench_all_collects_last_lines_sections_and_failures(tmp_path):
    out = tmp_path / "report"
    runs = bench_all.run_all(_fake_specs(tmp_path, out), out, timeout_s=3, progress=False)
    by = {r.name: r for r in runs}
    assert [r.name for r in runs] == ["accuracy", "cache", "subgcache", "vector-memory", "load", "ablation"]
    assert by["accuracy"].status == "ok" and by["accuracy"].prefix == "accuracy-bench"
    assert by["accuracy"].figures == {"ex_northwind_dev": "0.412", "ex_movies": "0.500", "truthfulness": "0.250"}
    assert by["accuracy"].section.startswith("## Accuracy") and by["accuracy"].pngs == ["accuracy.png"]
    assert by["cache"].status == "ok" and by["cache"].section == ""
    assert by["subgcache"].status == "failed" and "exit 3" in by["subgcache"].note and "boom" in by["subgcache"].note
    assert by["vector-memory"].status == "failed" and "no key=value" in by["vector-memory"].note
    assert by["load"].status == "timeout" and by["load"].seconds < 30
    assert by["ablation"].status == "missing"
    assert (out / "logs" / "subgcache.err").read_text().strip() == "Traceback: boom"
    # a failed benchmark's figures never reach the headline
    assert bench_all.headline(runs) == {"ex_northwind_dev": "0.412", "truthfulness": "0.250", "hit_p50_ms": "0.80",
                                        "ttft_ratio": "na"}

    import datetime as dt

    when = dt.datetime(2025, 1, 2, 3, 4)
    report = bench_all.write_report(runs, out, command="kgqa bench all", elapsed_s=12.0, when=when).read_text()
    assert "| accuracy | ok | " in report and "| ablation | missing | 0 | not in this build |" in report
    assert "## Accuracy" in report and "accuracy.png" not in report.split("## Accuracy")[0]
    assert "## cache" in report  # a benchmark without a section still gets a heading
    results = bench_all.write_results(runs, tmp_path / "RESULTS.md", command="kgqa bench all --results x",
                                      elapsed_s=12.0, when=when).read_text()
    assert "2025-01-02 03:04" in results and "| ex_northwind_dev | 0.412 |" in results
    assert re.search(r"- machine: .*\d+ cores", results) and "- commit: " in results
    # the full report is named relative to the repository, never by this machine's path to it
    in_repo = REPO_ROOT / "var" / "reports" / "20250102-030405" / "report.md"
    results = bench_all.write_results(runs, tmp_path / "RESULTS.md", command="kgqa bench all --results x",
                                      elapsed_s=12.0, when=when, report=in_repo).read_text()
    assert "full report: `var/reports/20250102-030405/report.md`" in results and str(REPO_ROOT) not in results
    # the accuracy run's table per question shape goes in; a section of the old file "not part of `bench all`"
    # (a benchmark too long for it) is carried over, any other old section is regenerated
    acc = next(r for r in runs if r.name == "accuracy")
    acc.section += "\n\n### Per question shape\n\n| set | shape | questions | right | wrong | declined |\n| a | b |"
    path = tmp_path / "RESULTS.md"
    path.write_text(path.read_text() + "\n## Long run (not part of `bench all`)\n\nttft 1.0x\n\n## Old\n\nstale\n")
    results = bench_all.write_results(runs, path, command="kgqa bench all --results x", elapsed_s=1.0,
                                      when=when).read_text()
    assert "## Answer quality per question shape" in results and "| set | shape | questions |" in results
    assert "## Long run (not part of `bench all`)\n\nttft 1.0x" in results and "stale" not in results
    assert results.count("## Long run") == 1


def test_bench_all_skips_when_the_budget_is_spent(tmp_path):
    out = tmp_path / "r"
    runs = bench_all.run_all(_fake_specs(tmp_path, out)[:2], out, budget_s=0, progress=False)
    assert [r.status for r in runs] == ["skipped", "skipped"]


def test_bench_all_commands_follow_the_conventions(tmp_path):
    (spec,) = bench_all.specs(["kg"], tmp_path)
    assert spec.cmd[1:] == ["-m", "kgqa.app.cli", "bench", "kg", "--quick", "--out", str(tmp_path)]
    (spec,) = bench_all.specs(["accuracy"], tmp_path)  # fast enough for every question, always
    assert "--quick" not in spec.cmd
    (full,) = bench_all.specs(["accuracy"], tmp_path, quick=False)
    assert "--quick" not in full.cmd


def test_bench_all_main_prints_the_last_line(tmp_path, capsys):
    rc = bench_all.main(["--only", "kg,accuracy", "--budget", "0", "--out", str(tmp_path),
                         "--results", str(tmp_path / "RESULTS.md")])
    assert rc == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(r"bench-all ex_northwind_dev=na truthfulness=na hit_p50_ms=na ttft_ratio=na "
                        r"benches_ok=0 benches=2", last)
    assert (tmp_path / "report.md").exists() and (tmp_path / "RESULTS.md").exists()
    assert f"full report: `{tmp_path / 'report.md'}`" in (tmp_path / "RESULTS.md").read_text()  # outside the repo


def test_the_committed_results_name_no_absolute_path():
    text = (REPO_ROOT / "evals" / "RESULTS.md").read_text(encoding="utf-8")
    assert str(REPO_ROOT) not in text and not re.search(r"full report: `/", text)


# -- ablation variants -----------------------------------------------------------------------------
def test_ablation_variants_are_distinct_settings():
    base = Settings()
    fields = {f.name for f in dataclasses.fields(Settings)}
    seen = set()
    for v in ablation.VARIANTS:
        s = v.settings(base, Path("/tmp/x"))
        assert s.home == Path("/tmp/x")
        assert all(name in fields for name, _ in v.changes)
        key = (dataclasses.replace(s, home=base.home), v.prewarm)
        assert key not in seen, v.name
        seen.add(key)
        changed = {f for f in fields - {"home"} if getattr(s, f) != getattr(base, f)}
        assert changed == {name for name, _ in v.changes}
    assert ablation.BY_NAME["full"].settings(base) == base
    table3 = {"full", "no_depth", "no_breadth", "no_plan_cache", "no_mmr", "one_layer", "no_prewarm",
              "no_param_reuse"}
    assert table3 <= {v.name for v in ablation.VARIANTS if not v.optional}


def test_ablation_stream_is_fixed_and_stratified():
    s = Settings()
    a, b = ablation.stream(s, 6, seed=13), ablation.stream(s, 6, seed=13)
    assert [g["id"] for g in a] == [g["id"] for g in b] and len(a) == 18
    assert {ablation.set_of(g) for g in a} == {"northwind_dev", "movies", "nobel"}
    movies = [g for g in a if g["domain"] == "movies"]
    assert len({g["type"] for g in movies}) == 6  # one of each question type
    assert [g["id"] for g in ablation.stream(s, 6, seed=14)] != [g["id"] for g in a]


# -- accuracy bench helpers -------------------------------------------------------------------------
def test_stratified_takes_types_round_robin_in_file_order():
    golds = [{"id": i, "type": t} for i, t in enumerate("aaabbc")]
    assert [g["id"] for g in bench_accuracy.stratified(golds, 4)] == [0, 1, 3, 5]
    assert bench_accuracy.stratified(golds, None) == golds


def test_stage_stats_mean_over_all_questions_percentiles_where_run():
    recs = [{"timings_ms": {"compile": 10.0, "execute": 2.0}}, {"timings_ms": {"compile": 30.0}},
            {"timings_ms": {"answer_cache": 0.5}}, {"timings_ms": {}}]
    st = bench_accuracy.stage_stats(recs)
    assert st["compile"] == {"ran": 0.5, "mean": 10.0, "p50": 20.0, "p99": 30.0}
    assert st["execute"]["mean"] == 0.5 and st["expansion"]["ran"] == 0.0
    assert st["total"]["mean"] == pytest.approx(42.5 / 4)
    assert sum(st[s]["mean"] for s in bench_accuracy.STAGES) == pytest.approx(st["total"]["mean"])


def _set_run(name: str, golds: list[dict]) -> bench_accuracy.SetRun:
    """A set run from prediction records: the first question right, the second a don't-know."""
    from kgqa.evals.scorer import score_records

    preds = [{"id": golds[0]["id"], "cypher": "MATCH ...", "rows": golds[0]["gold_rows"], "status": "answered",
              "answer": ", ".join(str(v) for row in golds[0]["gold_rows"] for v in row),
              "timings_ms": {"link": 5.0, "compile": 2.0, "execute": 3.0}, "cache": {"llm_calls": 0}},
             {"id": golds[1]["id"], "cypher": None, "rows": [], "status": "dont_know", "answer": "I don't know.",
              "timings_ms": {"link": 4.0, "vector_memory": 9.0}, "cache": {"llm_calls": 1}}]
    cached = [{"id": p["id"], "answer": p["answer"], "timings_ms": {"answer_cache": 0.1},
               "cache": {"answer_hit": True, "llm_calls": 0}} for p in preds]
    sr = bench_accuracy.SetRun(name, golds[:2], preds, cached)
    sr.report = score_records(preds, golds[:2])
    return sr


def test_accuracy_report_renders_from_scored_runs(tmp_path):
    from kgqa.jsonl import read_jsonl

    sets = bench_accuracy.question_sets(Settings())
    runs = [_set_run(n, read_jsonl(sets[n])) for n in ("movies", "nobel")]
    everything = bench_accuracy.pooled(runs)
    assert everything.total.n == 4 and everything.execution_accuracy == 0.5
    assert everything.truthfulness == 0.5 and bench_accuracy.cached_consistency(runs) == 1.0
    md = bench_accuracy.markdown(runs, everything, "kgqa bench accuracy", "accuracy.png", 1.0, False, "with x")
    assert "| movies | 2 | 50.0% |" in md and "| vector_memory | 50.0% |" in md and "![" in md
    calls = bench_accuracy.llm_call_stats([p for sr in runs for p in sr.preds])
    assert calls["mean"] == 0.5 and calls["with_calls"] == 0.5
    bench_accuracy.plot(runs, tmp_path / "a.png")
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"


def test_ablation_report_renders_variants_and_failures(tmp_path):
    from kgqa.jsonl import read_jsonl

    golds = read_jsonl(bench_accuracy.question_sets(Settings())["movies"])[:2]
    sr = _set_run("movies", golds)
    full = ablation.VariantRun(ablation.BY_NAME["full"], [sr.preds], [sr.report], [{"movies": sr.report}])
    broken = ablation.VariantRun(ablation.BY_NAME["no_depth"], error="RuntimeError: boom")
    h = ablation.headline(full)
    assert (h["n"], h["A"], h["M"], h["T"], h["EX"], h["llm_calls"]) == (2, 0.5, 0.5, 0.5, 0.5, 0.5)
    assert ablation.headline(broken) == {}
    md = ablation.markdown([full, broken], command="kgqa bench ablation", n_questions=2, passes=1,
                           prewarm={"budget": 0, "entries": 0, "seconds": 0.0}, png="ablation.png", elapsed_s=1.0)
    assert "| full | full system | 2 | 50.0% | 0.0% | 50.0% | +0.500 | +0.000 | 50.0% |" in md
    assert "| no_depth | w/o depth expansion | failed | RuntimeError: boom |" in md
    ablation.plot([full, broken], tmp_path / "ab.png")
    assert (tmp_path / "ab.png").stat().st_size > 1000


def test_accuracy_report_counts_outcomes_per_shape():
    """Right (rows that match the gold, extra columns allowed), wrong (answered with rows that do not match,
    whatever the text says) and declined (don't know) per set and question shape; no shape counts as ``other``."""
    from kgqa.evals.scorer import outcome, score_records

    golds = [{"id": f"q{i}", "question": f"question {i}", "gold_rows": [["Tom Hanks", 12]], "ordered": False,
              "type": "aggregation", "shape": shape}
             for i, shape in enumerate(["superlative", "superlative", "superlative", "string", "superlative",
                                        "string"])]
    golds[4].pop("shape")

    def pred(i, answer, rows, status="answered"):
        return {"id": f"q{i}", "cypher": "MATCH ..." if rows is not None else None, "rows": rows or [],
                "status": status, "answer": answer, "timings_ms": {"compile": 1.0}, "cache": {"llm_calls": 0}}

    preds = [pred(0, "Tom Hanks, with 12 movies.", [["Tom Hanks", 12]]),  # right
             pred(1, "Keanu Reeves, with 7 movies.", [["Keanu Reeves", 7]]),  # wrong: rows differ
             pred(2, "I don't know.", None, "dont_know"),  # declined
             pred(3, "Tom Hanks, with 12 movies.", [["Tom Hanks", 12], ["Meg Ryan", 5]]),  # wrong: rows differ
             pred(4, "Tom Hanks, with 12 movies.", [["Tom Hanks", 12]]),  # right, no shape
             pred(5, "Tom Hanks, with 12 movies.", [[1956, "Tom Hanks", 12]])]  # right: gold columns mapped
    report = score_records(preds, golds)
    assert [outcome(i) for i in report.items] == ["right", "wrong", "declined", "wrong", "right", "right"]
    assert report.to_dict()["by_shape"] == {"superlative": {"questions": 3, "right": 1, "wrong": 1, "declined": 1},
                                            "string": {"questions": 2, "right": 1, "wrong": 1, "declined": 0},
                                            "other": {"questions": 1, "right": 1, "wrong": 0, "declined": 0}}
    # the rows decide, not the judge: a tie member the gold lacks, named in the text, is still right
    tie = score_records([pred(0, "Tom Hanks and Meg Ryan, with 12 movies.", [["Tom Hanks", 12]])], golds[:1])
    assert tie.items[0].judgement == "hallucinated" and outcome(tie.items[0]) == "right"
    sr = bench_accuracy.SetRun("movies", golds, preds, [dict(p) for p in preds], report)
    nw = _set_run("northwind_dev", [{"id": "n1", "gold_rows": [["a"]]}, {"id": "n2", "gold_rows": [["b"]]}])
    tables = bench_accuracy.shape_tables([sr, nw])
    assert list(tables["movies"]) == ["superlative", "string", "other", "total"]  # issue order, then other
    assert tables["movies"]["total"] == {"questions": 6, "right": 3, "wrong": 2, "declined": 1}
    assert tables["all"]["other"] == {"questions": 3, "right": 2, "wrong": 0, "declined": 1}
    everything = bench_accuracy.pooled([sr, nw])
    md = bench_accuracy.markdown([sr, nw], everything, "kgqa bench accuracy", None, 1.0, False, "with x")
    section = md.split("### Per question shape")[1].split("###")[0]
    assert "| set | shape | questions | right | wrong | declined |" in section
    assert "| movies | superlative | 3 | 1 | 1 | 1 |" in section and "| movies | total | 6 | 3 | 2 | 1 |" in section
    assert "| northwind_dev | other | 2 | 1 | 0 | 1 |" in section and "| northwind_dev | total |" not in section
    assert "| all | total | 8 | 4 | 2 | 2 |" in section
    pairs = bench_accuracy.summary_pairs([sr, nw], everything)
    # hallucination is "answered but wrong": both wrong outcomes (a hallucinated answer, rows that differ) of
    # the 8 questions; the judge alone finds one hallucinated
    assert pairs["hallucination"] == pytest.approx(2 / 8) and pairs["hallucinated"] == pytest.approx(1 / 8)
    assert pairs["hallucination_movies"] == pytest.approx(2 / 6) and pairs["hallucination_northwind_dev"] == 0
    assert pairs["truthfulness"] == pytest.approx(everything.execution_accuracy - pairs["hallucination"])
    assert pairs["crag_truthfulness"] == pytest.approx(pairs["accurate"] - pairs["hallucinated"])
    derived = bench_accuracy.summary_pairs([sr, nw], everything, "derived_")
    assert {"derived_hallucination", "derived_hallucinated", "derived_truthfulness"} <= set(derived)
