"""Graphs of millions of edges: ``kgqa load`` against Kuzu's own ``COPY``, and question latency by size.

For each size (relationships) a seeded library graph is generated once (:mod:`kgqa.evals.scale_graph`,
kept under ``--work`` and reused), then:

* ``copy_s``: Kuzu ``COPY FROM`` of the same CSV files into an empty database (DDL included), in this process;
* ``load_s``: ``kgqa load --name ... --schema ... --csv ... --force`` as a child process (validation, COPY,
  spec, entity index, vector memory; interpreter start included), and its peak RSS (``wait4``);
* latency: a fresh child process opens the graph, asks one warm-up question per template, then the fixed
  template questions once each (answer cache empty); ``right`` counts answers whose first column equals
  the generator's answer, ``wrong`` answers that differ (a decline is neither).

Prints a table and, last, ``scale-bench edges=... load_s=... copy_s=... load_ratio=... rss_mb=... p50_ms=...
p99_ms=... answered=... right=... growth_p50=...`` for the largest size (growth: p50 there over p50 at the
smallest). Writes ``scale.json`` and ``scale.png`` (load time and p50 against size) under ``--out``.

    kgqa bench scale [--sizes 20k,200k,2m] [--quick] [--work DIR] [--out DIR] [--kgqa EXE --python EXE]

``--kgqa``/``--python`` run another checkout's loader and pipeline on the same graphs (the "before" column).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_SIZES = "20k,200k,2m"


def parse_size(text: str) -> int:
    """Returns a size written as 20000, 20k or 2m."""
    text = text.strip().lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * mult)


def size_tag(edges: int) -> str:
    return f"{edges // 1_000_000}m" if edges % 1_000_000 == 0 else f"{edges // 1_000}k"


def generated(work: Path, edges: int, seed: int) -> Path:
    """Returns the folder of the graph of ``edges``, generating it unless the same one is there."""
    from kgqa.evals.scale_graph import GENERATOR_VERSION, generate

    folder = work / f"library-{size_tag(edges)}-s{seed}"
    marker = folder / "questions.json"
    if marker.exists():
        stats = json.loads(marker.read_text())["stats"]
        if stats.get("version") == GENERATOR_VERSION:
            return folder
    shutil.rmtree(folder, ignore_errors=True)
    generate(edges, folder, seed=seed)
    return folder


def copy_seconds(folder: Path) -> float:
    """Seconds for Kuzu to create the schema and ``COPY`` every CSV file into an empty database."""
    import kuzu

    from kgqa.kg.ddl import parse_ddl, statements

    nodes, rels = parse_ddl(folder / "schema.cypher")
    with tempfile.TemporaryDirectory(prefix="kgqa-copy-") as tmp:
        t0 = time.perf_counter()
        db = kuzu.Database(str(Path(tmp) / "db"))
        conn = kuzu.Connection(db)
        for _, stmt in statements((folder / "schema.cypher").read_text()):
            conn.execute(stmt)
        for name in [t.label for t in nodes] + [t.name for t in rels]:
            path = (folder / "csv" / f"{name}.csv").as_posix().replace("'", "\\'")
            conn.execute(f"COPY `{name}` FROM '{path}' (header=true)")
        conn.execute("CHECKPOINT")
        elapsed = time.perf_counter() - t0
        conn.close()
        db.close()
    return elapsed


def timed_child(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """Runs ``cmd``; returns (seconds, peak RSS in MB, exit status, its output)."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return elapsed, usage.ru_maxrss / 1024, proc.returncode, text


def ask_all(home: Path, domain: str, questions_file: Path) -> dict:
    """In this process: opens ``domain`` under ``home``, asks a warm-up question per template, then every
    question once; returns {"times_ms": [...], "answered": n, "right": n, "wrong": [...], "startup_s": s}."""
    from kgqa.planner.pipeline import Pipeline
    from kgqa.settings import Settings

    data = json.loads(questions_file.read_text())
    qs = data["questions"]
    t0 = time.perf_counter()
    pipe = Pipeline(Settings(home=home), domains=[domain])
    from kgqa.app.compute import freeze_heap, warm

    warm(pipe)  # as the server's compute processes do at start-up
    freeze_heap()
    startup = time.perf_counter() - t0
    seen: set[str] = set()
    for q in data.get("warmup", []):
        if q["template"] not in seen:
            seen.add(q["template"])
            pipe.ask(q["question"], domain, use_answer_cache=False)
    times, answered, right, wrong = [], 0, 0, []
    for q in qs:
        t = time.perf_counter()
        r = pipe.ask(q["question"], domain, use_answer_cache=False)
        times.append((time.perf_counter() - t) * 1000)
        if r.status != "answered":
            continue
        answered += 1
        got = sorted(row[0] for row in r.rows) if isinstance(q["answer"][0], str) else [r.rows[0][0]] if r.rows else []
        if got == q["answer"]:
            right += 1
        else:
            wrong.append({"question": q["question"], "want": q["answer"][:5], "got": got[:5], "cypher": r.cypher})
    pipe.close()
    return {"times_ms": times, "answered": answered, "right": right, "wrong": wrong, "startup_s": startup}


def run_size(edges: int, args, work: Path) -> dict:
    from kgqa.evals.benchutil import percentile

    folder = generated(work, edges, args.seed)
    stats = json.loads((folder / "questions.json").read_text())["stats"]
    copy_s = copy_seconds(folder)
    home = Path(tempfile.mkdtemp(prefix="kgqa-scale-"))
    env = {**os.environ, "KGQA_HOME": str(home)}
    env.pop("KGQA_TEST_HOME", None)
    name = f"library{size_tag(edges)}"
    try:
        load_s, rss, rc, out = timed_child([*args.kgqa, "load", "--name", name, "--schema",
                                            str(folder / "schema.cypher"), "--csv", str(folder / "csv"), "--force"], env)
        if rc != 0:
            raise SystemExit(f"kgqa load failed ({rc}):\n{out}")
        print(out.rstrip(), file=sys.stderr)
        ask_cmd = [*args.python, os.path.abspath(__file__), "--ask-only", str(home), name,
                   str(folder / "questions.json")]
        _, ask_rss, rc, out = timed_child(ask_cmd, env)
        if rc != 0:
            raise SystemExit(f"asking failed ({rc}):\n{out[-4000:]}")
        asked = json.loads(out.strip().splitlines()[-1])
    finally:
        shutil.rmtree(home, ignore_errors=True)
    times = asked["times_ms"]
    return {"edges": stats["edges"], "nodes": sum(stats["nodes"].values()), "load_s": round(load_s, 2),
            "copy_s": round(copy_s, 2), "load_ratio": round(load_s / copy_s, 2), "rss_mb": round(rss),
            "serve_rss_mb": round(ask_rss), "startup_s": round(asked["startup_s"], 2),
            "p50_ms": round(percentile(times, 50), 1), "p99_ms": round(percentile(times, 99), 1),
            "questions": len(times), "answered": asked["answered"], "right": asked["right"],
            "wrong": asked["wrong"]}


def table(rows: list[dict]) -> str:
    """The results as a Markdown table."""
    head = ("edges", "nodes", "load_s", "copy_s", "load_ratio", "rss_mb", "startup_s", "serve_rss_mb", "p50_ms",
            "p99_ms", "answered", "right")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(f"{r[h]:,}" if isinstance(r[h], int) else str(r[h]) for h in head) + " |")
    return "\n".join(lines)


def plot(rows: list[dict], path: Path) -> None:
    """Load time (kgqa and COPY) and p50 latency against the number of relationships, log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["edges"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, draw, series, ylabel, title in (
            (ax1, ax1.loglog, (("load_s", "kgqa load"), ("copy_s", "Kuzu COPY")), "seconds", "Load time"),
            (ax2, ax2.semilogx, (("p50_ms", "p50"), ("p99_ms", "p99")), "ms per question (warm)", "Question latency")):
        for (key, label), style in zip(series, ("o-", "s--")):
            draw(x, [r[key] for r in rows], style, label=label)
        ax.set_xlabel("relationships")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--ask-only"]:  # the child that asks (may run under another checkout's interpreter)
        home, domain, questions = argv[1:4]
        print(json.dumps(ask_all(Path(home), domain, Path(questions))))
        return 0
    from kgqa.evals.benchutil import command_line
    from kgqa.settings import Settings

    ap = argparse.ArgumentParser(prog="kgqa bench scale", description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=DEFAULT_SIZES, help="relationships per graph, e.g. 20k,200k,2m")
    ap.add_argument("--quick", action="store_true", help="20k only")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--work", help="where generated graphs are kept and reused (default $KGQA_HOME/bench/scale)")
    ap.add_argument("--out", help="report folder (default $KGQA_HOME/reports/scale)")
    ap.add_argument("--kgqa", default=None, help="the kgqa executable that loads (default: this one)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter that asks (default: this one)")
    args = ap.parse_args(argv)
    settings = Settings.from_env()
    args.kgqa = [args.kgqa] if args.kgqa else [sys.executable, "-m", "kgqa.app.cli"]
    args.python = [args.python]
    sizes = [20_000] if args.quick else [parse_size(s) for s in args.sizes.split(",")]
    work = Path(args.work) if args.work else settings.home / "bench" / "scale"
    out = Path(args.out) if args.out else settings.home / "reports" / "scale"
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for edges in sizes:
        rows.append(run_size(edges, args, work))
        print(json.dumps({k: v for k, v in rows[-1].items() if k != "wrong"}), file=sys.stderr)
    (out / "scale.json").write_text(json.dumps({"command": command_line("kgqa bench scale", argv), "rows": rows},
                                               indent=1))
    plot(rows, out / "scale.png")
    print(table(rows))
    for r in rows:
        for w in r["wrong"]:
            print(f"wrong at {r['edges']:,}: {w['question']} want {w['want']} got {w['got']}")
    last, first = rows[-1], rows[0]
    growth = last["p50_ms"] / first["p50_ms"] if first["p50_ms"] else float("nan")
    print(f"report: {out / 'scale.json'}, plot: {out / 'scale.png'}")
    print(f"scale-bench edges={last['edges']} load_s={last['load_s']} copy_s={last['copy_s']} "
          f"load_ratio={last['load_ratio']} rss_mb={last['rss_mb']} p50_ms={last['p50_ms']} p99_ms={last['p99_ms']} "
          f"answered={last['answered']}/{last['questions']} right={last['right']}/{last['questions']} "
          f"growth_p50={growth:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
