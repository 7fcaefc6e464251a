"""Execution accuracy (text2cypher style): does the predicted query return the gold result set?

Rows are compared by :func:`kgqa.kg.compare.rows_match` (its rules are in that module).
``score_file`` joins prediction lines (from ``kgqa eval``) with gold lines by ``id`` and reports
execution accuracy (lenient and strict), executable rate, don't-know rate, CRAG answer truthfulness
(:mod:`kgqa.evals.judge`) and a per-``type`` breakdown. Each question also gets one :func:`outcome`:
**right** (the rows match the gold), **wrong** (answered, but the rows do not match: the hallucination rate)
or **declined** (the service said it does not know:
status ``dont_know``, or an answer the judge reads as missing); :func:`outcome_table` counts them per question
``shape`` (issue 17's question shapes; questions without one count as ``other``). "The rows match" is issue
17's strict rule, the gold's columns mapped onto the returned columns (``ex``; ``ex_strict`` also wants the
same columns in the same positions).

**Unanswerable questions.** A gold line of type ``unanswerable`` (``kgqa.evals.make_gold.UNANSWERABLE``; the
mixed ``unseen`` set) asks for what the graph does not hold, or is too vague to have one right answer: its
empty ``gold_rows`` do not mean "none", and the right outcome is a decline. For those lines only,
:func:`score_item` turns the comparison around: a decline (a don't-know status, or an answer the judge reads
as missing) is right (``ex`` and ``ex_strict`` true, judgement ``accurate``) and any answer is wrong (``ex``
false, judgement ``hallucinated``), whatever rows it returned, an empty result included; :func:`outcome`
is then ``right`` or ``wrong`` (``declined`` only when there is no prediction line at all). Every other type
is scored as described above (an ``empty`` gold still matches only an empty result).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kgqa.evals.benchutil import percentile
from kgqa.evals.make_gold import UNANSWERABLE  # a gold type whose right outcome is a decline (docstring)
from kgqa.jsonl import read_jsonl
from kgqa.kg.compare import rows_match


# -- files -----------------------------------------------------------------------------------------
@dataclass
class Bucket:
    """Counts for one slice of the questions (all, or one ``type``)."""

    n: int = 0
    ex: int = 0  # lenient execution accuracy (headline)
    ex_strict: int = 0
    executable: int = 0
    dont_know: int = 0
    accurate: int = 0  # CRAG answer judgement
    missing: int = 0
    hallucinated: int = 0

    def rate(self, count: int) -> float:
        return count / self.n if self.n else 0.0

    @property
    def truthfulness(self) -> float:
        return self.rate(self.accurate) - self.rate(self.hallucinated)

    def summary(self) -> dict[str, float]:
        return {"n": self.n, "ex": self.rate(self.ex), "ex_strict": self.rate(self.ex_strict),
                "executable": self.rate(self.executable), "dont_know": self.rate(self.dont_know),
                "accurate": self.rate(self.accurate), "missing": self.rate(self.missing),
                "hallucinated": self.rate(self.hallucinated), "truthfulness": self.truthfulness}


@dataclass
class Item:
    """The score of one question."""

    id: str
    type: str
    status: str
    executable: bool
    ex: bool
    ex_strict: bool
    judgement: str
    total_ms: float | None = None
    shape: str | None = None  # the gold line's question shape, when it has one


@dataclass
class Report:
    total: Bucket = field(default_factory=Bucket)
    by_type: dict[str, Bucket] = field(default_factory=dict)
    items: list[Item] = field(default_factory=list)
    missing_predictions: list[str] = field(default_factory=list)  # gold ids with no prediction line

    @property
    def execution_accuracy(self) -> float:
        return self.total.rate(self.total.ex)

    @property
    def execution_accuracy_strict(self) -> float:
        return self.total.rate(self.total.ex_strict)

    @property
    def executable_rate(self) -> float:
        return self.total.rate(self.total.executable)

    @property
    def dont_know_rate(self) -> float:
        return self.total.rate(self.total.dont_know)

    @property
    def truthfulness(self) -> float:
        return self.total.truthfulness

    def latency_ms(self) -> dict[str, float]:
        xs = sorted(i.total_ms for i in self.items if i.total_ms is not None)
        if not xs:
            return {}
        return {"p50": statistics.median(xs), "p95": percentile(xs, 95), "mean": statistics.fmean(xs)}

    def to_dict(self) -> dict:
        return {"total": self.total.summary(),
                "by_type": {t: b.summary() for t, b in sorted(self.by_type.items())},
                "latency_ms": self.latency_ms(), "missing_predictions": self.missing_predictions,
                "by_shape": outcome_table(self.items), "items": [asdict(i) for i in self.items]}


# -- outcomes per question shape ----------------------------------------------------------------------
OUTCOMES = ("right", "wrong", "declined")
DECLINED_STATUSES = ("dont_know", "refused", "missing")
NO_SHAPE = "other"


def declined(status: str, judgement: str) -> bool:
    """True when no answer was given: a don't-know status, or an answer the judge reads as missing."""
    return status in DECLINED_STATUSES or judgement == "missing"


def outcome(item: Item) -> str:
    """``declined`` when no answer was given (a don't-know status, or an answer the judge reads as missing),
    else ``right`` when the rows match the gold by the strict rule (``ex``: the gold's columns mapped onto the
    returned ones, order only where the gold orders, ties free), else ``wrong`` (answered but wrong: issue 17's
    hallucination). The judge's verdict on the answer text is reported apart, as the CRAG figures.

    An ``unanswerable`` question is ``right`` when declined and ``wrong`` when answered (:func:`score_item`
    sets its ``ex`` so): a decline is what it asks for. With no prediction line at all it is ``declined``, as
    any question is."""
    if item.type == UNANSWERABLE and item.status != "missing":  # "missing": no prediction line at all
        return "right" if item.ex else "wrong"
    if declined(item.status, item.judgement):
        return "declined"
    return "right" if item.ex else "wrong"


def outcome_table(items: list[Item], key: str = "shape") -> dict[str, dict[str, int]]:
    """Per value of ``key`` (default: the question shape; none counts as ``other``): questions, right, wrong and
    declined, in first-seen order."""
    table: dict[str, dict[str, int]] = {}
    for item in items:
        row = table.setdefault(getattr(item, key) or NO_SHAPE, {"questions": 0, **{o: 0 for o in OUTCOMES}})
        row["questions"] += 1
        row[outcome(item)] += 1
    return table


def executable(pred: dict) -> bool:
    return bool(pred.get("cypher")) and pred.get("status") != "error" and not pred.get("error") \
        and pred.get("rows") is not None


def score_item(pred: dict | None, gold: dict, *, judge=None) -> Item:
    """Score one prediction line against its gold line (``pred`` None: no prediction was made; an
    ``unanswerable`` gold: right only when declined)."""
    from kgqa.evals.judge import judge_answer

    qtype = gold.get("type", "unknown")
    if pred is None:
        return Item(gold["id"], qtype, "missing", False, False, False, "missing", shape=gold.get("shape"))
    status = pred.get("status", "answered")
    ran = executable(pred)
    rows = pred.get("rows") if ran else None
    ordered = bool(gold.get("ordered"))
    ex = rows_match(rows, gold["gold_rows"], ordered, lenient=True)
    ex_strict = rows_match(rows, gold["gold_rows"], ordered, lenient=False)
    judgement = (judge or judge_answer)(pred.get("answer") or "", gold["gold_rows"],
                                        question=gold.get("question", ""), status=status).label
    if qtype == UNANSWERABLE:  # the right outcome is a decline; any answer is wrong (module docstring)
        ex = ex_strict = declined(status, judgement)
        judgement = "accurate" if ex else "hallucinated"
    return Item(gold["id"], qtype, status, ran, ex, ex_strict, judgement,
                _total_ms(pred.get("timings_ms") or {}), gold.get("shape"))


def _total_ms(timings: dict) -> float | None:
    """``timings_ms["total"]``, else the sum of the stage timings; None when there are none."""
    if isinstance(timings.get("total"), (int, float)):
        return float(timings["total"])
    stages = [v for v in timings.values() if isinstance(v, (int, float))]
    return float(sum(stages)) if stages else None


def score_records(preds: list[dict], golds: list[dict], *, judge=None) -> Report:
    """Score prediction records against gold records (joined by ``id``)."""
    by_id = {p["id"]: p for p in preds}
    report = Report()
    for gold in golds:
        pred = by_id.get(gold["id"])
        if pred is None:
            report.missing_predictions.append(gold["id"])
        item = score_item(pred, gold, judge=judge)
        report.items.append(item)
        for bucket in (report.total, report.by_type.setdefault(item.type, Bucket())):
            bucket.n += 1
            bucket.ex += item.ex
            bucket.ex_strict += item.ex_strict
            bucket.executable += item.executable
            bucket.dont_know += item.status == "dont_know"
            setattr(bucket, item.judgement, getattr(bucket, item.judgement) + 1)
    return report


def score_file(pred_jsonl: str | Path, gold_jsonl: str | Path, *, judge=None) -> Report:
    """Score a ``kgqa eval`` output file against a gold question file."""
    return score_records(read_jsonl(pred_jsonl), read_jsonl(gold_jsonl), judge=judge)


def print_report(report: Report, title: str = "kgqa evaluation", console=None) -> None:
    """Print the report as a rich table: one row per question type, then the total."""
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console()
        console.width = max(console.width, 120)  # nine columns do not fit 80
    table = Table(title=title)
    for col in ("type", "n", "EX", "EX strict", "executable", "don't know", "accurate", "halluc.", "truth."):
        table.add_column(col, justify="left" if col == "type" else "right")

    def add(name: str, b: Bucket, style: str | None = None) -> None:
        s = b.summary()
        table.add_row(name, str(b.n), *(f"{s[k]:.1%}" for k in
                                        ("ex", "ex_strict", "executable", "dont_know", "accurate", "hallucinated")),
                      f"{s['truthfulness']:+.2f}", style=style)

    for name, b in sorted(report.by_type.items()):
        add(name, b)
    add("all", report.total, "bold")
    console.print(table)
    lat = report.latency_ms()
    if lat:
        console.print(f"latency ms: p50 {lat['p50']:.1f}  p95 {lat['p95']:.1f}  mean {lat['mean']:.1f}")
    if report.missing_predictions:
        console.print(f"[yellow]{len(report.missing_predictions)} gold questions had no prediction[/yellow]")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kgqa.evals.scorer", description=__doc__.splitlines()[0])
    ap.add_argument("--pred", required=True, help="predictions JSONL from `kgqa eval`")
    ap.add_argument("--gold", required=True, help="gold questions JSONL")
    ap.add_argument("--json", help="also write the full report (with per-item scores) here")
    args = ap.parse_args(argv)
    report = score_file(args.pred, args.gold)
    print_report(report, title=f"{Path(args.pred).name} vs {Path(args.gold).name}")
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
