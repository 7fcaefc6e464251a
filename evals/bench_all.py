"""``kgqa bench all``: every benchmark at its quick size, one Markdown report with the plots, one summary.

Each benchmark runs as its own process, ``python -m app.cli bench <name> --quick --out DIR`` (DIR =
``$KGQA_HOME/reports/<timestamp>`` unless ``--out``; the accuracy benchmark, fast, always runs at full size),
with its stdout and stderr kept under DIR/logs.
From each it collects the last stdout line (``name key=value ...``), its Markdown section (DIR/<name>.md)
and the PNGs it wrote; a benchmark that is not in this build, fails, or overruns is reported as such and
the others still run. The whole run keeps to ``--budget`` seconds (20 minutes): a benchmark that would
start with too little time left is skipped. DIR/report.md gets the summary table and every section; with
``--results FILE`` a short results file (date, machine, commit, figures, the accuracy benchmark's table per
question shape, and the sections of the old file headed "not part of `bench all`") is written too, e.g. the
committed ``evals/RESULTS.md``. The last line printed is
``bench-all ex_northwind_dev=<x> truthfulness=<x> hit_p50_ms=<x> ttft_ratio=<x> ...``.

    kgqa bench all [--only kg,accuracy] [--skip ablation] [--full] [--out DIR] [--results evals/RESULTS.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import os
import platform
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from kgqa.evals.benchutil import command_line, key_value_line, md_table, parse_key_value_line, repo_path
from kgqa.settings import REPO_ROOT, Settings

# (name as `kgqa bench <name>`, module); core ones first, so a tight budget skips the extras
BENCHES: tuple[tuple[str, str], ...] = (
    ("kg", "kgqa.evals.bench_kg"), ("cache", "kgqa.evals.bench_cache"), ("subgcache", "kgqa.evals.bench_subgcache"),
    ("accuracy", "kgqa.evals.bench_accuracy"), ("vector-memory", "kgqa.evals.bench_vector_memory"),
    ("load", "kgqa.evals.bench_load"), ("ablation", "kgqa.evals.ablation"))
# the figures of the last line: (key, the benchmark expected to print it)
HEADLINE: tuple[tuple[str, str], ...] = (("ex_northwind_dev", "accuracy"), ("truthfulness", "accuracy"),
                                        ("hit_p50_ms", "cache"), ("ttft_ratio", "subgcache"))
BUDGET_S = 1200
TIMEOUT_S = 420  # one benchmark at most (quick sizes aim at <= 240 s)
MIN_START_S = 30  # do not start a benchmark with less time than this left


@dataclass
class BenchSpec:
    """A benchmark to run: its name and command, or no command when it is not in this build."""

    name: str
    cmd: list[str] | None


@dataclass
class BenchRun:
    name: str
    status: str  # "ok", "failed", "timeout", "missing", "skipped"
    seconds: float = 0.0
    returncode: int | None = None
    last_line: str = ""
    prefix: str = ""
    figures: dict[str, str] = field(default_factory=dict)
    section: str = ""
    pngs: list[str] = field(default_factory=list)
    note: str = ""


# benchmarks fast enough to run at full size in every run: the answer-quality figures cover every question
ALWAYS_FULL = frozenset({"accuracy"})


def bench_command(name: str, out: Path, *, quick: bool = True) -> list[str]:
    quick = quick and name not in ALWAYS_FULL
    return [sys.executable, "-m", "kgqa.app.cli", "bench", name, *(["--quick"] if quick else []), "--out", str(out)]


def specs(names: list[str], out: Path, *, quick: bool = True) -> list[BenchSpec]:
    modules = dict(BENCHES)
    return [BenchSpec(n, bench_command(n, out, quick=quick) if importlib.util.find_spec(modules[n]) else None)
            for n in names]


def _files(folder: Path, pattern: str) -> dict[Path, float]:
    return {p: p.stat().st_mtime for p in folder.rglob(pattern) if p.is_file()}


def _kill_group(proc: subprocess.Popen) -> None:
    """End the benchmark process and whatever it started (its own process group)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def run_one(spec: BenchSpec, out: Path, timeout_s: float) -> BenchRun:
    """Run one benchmark process and collect its last line, Markdown section and new PNGs."""
    if spec.cmd is None:
        return BenchRun(spec.name, "missing", note="not in this build")
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    before_md, before_png = _files(out, "*.md"), _files(out, "*.png")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
               PYTHONUNBUFFERED="1")
    stdout_path, stderr_path = logs / f"{spec.name}.out", logs / f"{spec.name}.err"
    t0 = time.perf_counter()
    with open(stdout_path, "wb") as so, open(stderr_path, "wb") as se:
        proc = subprocess.Popen(spec.cmd, stdout=so, stderr=se, cwd=REPO_ROOT, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            rc = None
    run = BenchRun(spec.name, "ok", seconds=time.perf_counter() - t0, returncode=rc)
    lines = [ln for ln in stdout_path.read_text(errors="replace").splitlines() if ln.strip()]
    run.last_line = lines[-1].strip() if lines else ""
    run.prefix, run.figures = parse_key_value_line(run.last_line)
    if rc is None:
        run.status, run.note = "timeout", f"stopped after {timeout_s:.0f} s"
    elif rc != 0:
        err = [ln for ln in stderr_path.read_text(errors="replace").splitlines() if ln.strip()]
        run.status, run.note = "failed", f"exit {rc}: " + (err[-1].strip() if err else run.last_line)[:200]
    elif not run.figures:
        run.status, run.note = "failed", "no key=value last line"
    new_md = [p for p, m in _files(out, "*.md").items() if before_md.get(p) != m and p.name != "report.md"]
    own = [p for p in new_md if p.stem in (spec.name, spec.name.replace("-", "_"))]
    run.section = "\n\n".join(p.read_text(errors="replace").strip() for p in sorted(own or new_md))
    run.pngs = sorted(str(p.relative_to(out)) for p, m in _files(out, "*.png").items() if before_png.get(p) != m)
    return run


def run_all(bench_specs: list[BenchSpec], out: Path, *, budget_s: float = BUDGET_S, timeout_s: float = TIMEOUT_S,
            progress: bool = True) -> list[BenchRun]:
    """Every benchmark in turn within the budget; none of their failures stops the run."""
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    runs = []
    for spec in bench_specs:
        left = budget_s - (time.perf_counter() - start)
        if spec.cmd is not None and left < MIN_START_S:
            runs.append(BenchRun(spec.name, "skipped", note=f"time budget ({budget_s:.0f} s) spent"))
        else:
            if progress and spec.cmd is not None:
                print(f"bench {spec.name} ...", flush=True)
            runs.append(run_one(spec, out, min(timeout_s, left)))
        if progress:
            r = runs[-1]
            print(f"  {r.name}: {r.status} {r.seconds:.0f}s {r.last_line if r.status == 'ok' else r.note}", flush=True)
    return runs


def headline(runs: list[BenchRun]) -> dict[str, str]:
    """The last line's figures, each from the benchmark expected to print it (else any that does)."""
    by_name = {r.name: r for r in runs}
    out = {}
    for key, source in HEADLINE:
        candidates = [by_name[source]] if source in by_name else []
        candidates += [r for r in runs if r.name != source]
        out[key] = next((r.figures[key] for r in candidates if r.status == "ok" and key in r.figures), "na")
    return out


# -- environment -----------------------------------------------------------------------------------
def machine() -> str:
    """CPU model, cores, memory, OS, Python and the current load average (other work on the machine slows
    every timing), in one line."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f", {int(line.split()[1]) / 1024 ** 2:.0f} GiB RAM"
                break
    except (OSError, ValueError):
        pass
    try:
        load = ", load average {:.1f}/{:.1f}/{:.1f} (1/5/15 min)".format(*os.getloadavg())
    except OSError:
        load = ""
    return (f"{cpu}, {os.cpu_count()} cores{mem}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}{load}")


def git_commit() -> str:
    """The checked-out commit (short hash), with ``+changes`` when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + (" +changes" if dirty else "")


# -- reports ---------------------------------------------------------------------------------------
def _figures_text(r: BenchRun) -> str:
    return " ".join(f"{k}={v}" for k, v in r.figures.items()) if r.status == "ok" else r.note


def summary_rows(runs: list[BenchRun]) -> list[list]:
    return [[r.name, r.status, f"{r.seconds:.0f}", _figures_text(r)] for r in runs]


def write_report(runs: list[BenchRun], out: Path, *, command: str, elapsed_s: float, when: dt.datetime) -> Path:
    """DIR/report.md: environment, summary table, headline figures, then each benchmark's section."""
    head = headline(runs)
    lines = ["# kgqa benchmark report", "",
             f"- date: {when:%Y-%m-%d %H:%M %Z}".rstrip(), f"- machine: {machine()}", f"- commit: {git_commit()}",
             f"- command: `{command}` ({elapsed_s:.0f} s in all)", "",
             "## Summary", "", md_table(["benchmark", "status", "seconds", "figures (last line)"], summary_rows(runs)),
             "", md_table(["headline", "value"], list(head.items())), ""]
    for r in runs:
        lines += ["---", "", f"<!-- benchmark: {r.name} ({r.status}) -->", ""]
        if r.section:
            lines += [r.section, ""]
        else:
            lines += [f"## {r.name}", "", f"_{r.status}: {r.note or 'no Markdown section written'}_", ""]
        missing_links = [p for p in r.pngs if f"({p})" not in r.section]
        lines += [f"![{r.name}: {Path(p).stem}]({p})" for p in missing_links]
        if missing_links:
            lines.append("")
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path


def write_results(runs: list[BenchRun], path: Path, *, command: str, elapsed_s: float, when: dt.datetime,
                  report: Path | None = None) -> Path:
    """The short results file committed with the code (regenerated by the command, never edited)."""
    head = headline(runs)
    lines = ["# kgqa results", "",
             f"Generated by `{command}`; regenerate rather than edit. "
             "Timings are from a shared machine: compare ratios, not absolute milliseconds.", "",
             f"- date: {when:%Y-%m-%d %H:%M %Z}".rstrip(), f"- machine: {machine()}", f"- commit: {git_commit()}",
             f"- total time: {elapsed_s:.0f} s" + (f"; full report: `{repo_path(report)}`" if report else ""),
             "",
             "## Headline", "", md_table(["figure", "value"], list(head.items())), "",
             "## All figures", "", md_table(["benchmark", "status", "seconds", "figures"], summary_rows(runs)), ""]
    shapes = next((r.section for r in runs if r.name == "accuracy" and "### Per question shape" in r.section), "")
    if shapes:  # issue 17's table: questions answered right, wrong and declined per question shape
        table = shapes.split("### Per question shape", 1)[1].split("\n###", 1)[0].split("\n## ", 1)[0]
        lines += ["## Answer quality per question shape (`kgqa bench accuracy`, every question)", "", table.strip(),
                  ""]
    lines += kept_sections(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    return path


KEPT_MARK = "not part of `bench all`"


def kept_sections(path: Path) -> list[str]:
    """Returns the sections of the existing results file whose heading says they are not part of ``bench all``
    (figures of a benchmark too long for it, with the command that measured them), to be carried over."""
    if not path.exists():
        return []
    kept = []
    for part in path.read_text(errors="replace").split("\n## ")[1:]:
        if KEPT_MARK in part.split("\n", 1)[0]:
            kept += ["## " + part.rstrip(), ""]
    return kept


def print_summary(runs: list[BenchRun], head: dict[str, str]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=160)
    t = Table(title="kgqa bench all")
    for col in ("benchmark", "status", "seconds", "figures"):
        t.add_column(col, justify="right" if col == "seconds" else "left", overflow="fold")
    for row in summary_rows(runs):
        t.add_row(*row)
    console.print(t)
    console.print("headline: " + "  ".join(f"{k}={v}" for k, v in head.items()))


def main(argv: list[str] | None = None) -> int:
    settings = Settings.from_env()
    names = [n for n, _ in BENCHES]
    ap = argparse.ArgumentParser(prog="kgqa bench all", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated benchmarks to run (default: all): " + ", ".join(names))
    ap.add_argument("--skip", default="", help="comma-separated benchmarks to leave out")
    ap.add_argument("--full", action="store_true", help="run each at its full size (no --quick; long)")
    ap.add_argument("--quick", action="store_true", help="accepted for symmetry: quick sizes are the default")
    ap.add_argument("--budget", type=float, default=BUDGET_S, help="seconds for the whole run")
    ap.add_argument("--timeout", type=float, default=TIMEOUT_S, help="seconds for one benchmark")
    ap.add_argument("--out", type=Path, help="report folder (default $KGQA_HOME/reports/<timestamp>)")
    ap.add_argument("--results", type=Path, help="also write the short results file here (evals/RESULTS.md)")
    args = ap.parse_args(argv)

    chosen = [s.strip() for s in (args.only or ",".join(names)).split(",") if s.strip()]
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    bad = [n for n in chosen + sorted(skip) if n not in names]
    if bad:
        ap.error(f"unknown benchmark(s) {', '.join(bad)}; choose from {', '.join(names)}")
    when = dt.datetime.now().astimezone()
    out = args.out or settings.reports_dir / when.strftime("%Y%m%d-%H%M%S")
    t0 = time.perf_counter()
    runs = run_all(specs([n for n in chosen if n not in skip], out, quick=not args.full), out,
                   budget_s=args.budget, timeout_s=args.timeout)
    elapsed = time.perf_counter() - t0
    command = command_line("kgqa bench all", argv)
    report = write_report(runs, out, command=command, elapsed_s=elapsed, when=when)
    if args.results:
        write_results(runs, args.results, command=command, elapsed_s=elapsed, when=when, report=report)
    head = headline(runs)
    print_summary(runs, head)
    print(f"report: {report}", flush=True)
    ok = sum(r.status == "ok" for r in runs)
    print(key_value_line("bench-all", {**head, "benches_ok": ok, "benches": len(runs)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
