"""``kgqa eval``: answer a question file, one JSON line per question, never reading gold fields.

Runs with a cold answer cache (answers are recomputed), keeps going when a question fails, and writes
each result as soon as it is known so an interrupted run keeps what it did.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgqa.jsonl import JsonlError, read_jsonl
from kgqa.settings import Settings
from kgqa.types import InputError

ALLOWED = ("id", "question", "domain")  # the only input fields read: gold stays unseen


def read_questions(path: str | Path) -> list[dict]:
    """The questions of a JSONL file, only the :data:`ALLOWED` fields of each; a line that is not JSON
    ends the run (``SystemExit`` naming the file and line)."""
    try:
        items = read_jsonl(path)
    except JsonlError as err:
        raise SystemExit(str(err)) from err
    return [{k: item.get(k) for k in ALLOWED} for item in items]


def prediction(pipe, qid: str, question: Any, domain: str | None, *, use_answer_cache: bool) -> dict:
    """One question through the pipeline as a ``kgqa eval`` line: the answer, Cypher, rows, status,
    the pipeline's ``error`` (a query that failed repair or execution is not executable), timings and cache
    flags. A question the pipeline refuses as input is a line with status "error"."""
    try:
        r = pipe.ask(question, domain, use_answer_cache=use_answer_cache)
    except InputError as err:
        return {"id": qid, "question": question, "domain": domain, "cypher": None, "rows": [], "answer": str(err),
                "status": "error", "error": str(err), "timings_ms": {},
                "cache": {"answer_hit": False, "plan_hit": False, "llm_calls": 0}}
    return {"id": qid, "question": r.question, "domain": r.domain, "cypher": r.cypher, "rows": r.rows,
            "answer": r.answer, "status": r.status if r.status != "refused" else "dont_know", "error": r.error,
            "timings_ms": r.timings_ms, "cache": {k: r.cache.get(k) for k in ("answer_hit", "plan_hit", "llm_calls")}}


def run_eval(settings: Settings, questions: str, out: str, *, domain: str | None = None, limit: int | None = None,
             pipeline=None) -> int:
    from rich.progress import track

    from kgqa.planner.pipeline import build_pipeline

    pipe = pipeline or build_pipeline(settings)
    items = read_questions(questions)[:limit]
    counts = {"answered": 0, "dont_know": 0, "error": 0, "refused": 0}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        for i, item in enumerate(track(items, description="eval")):
            qid = item.get("id") or f"q{i + 1}"
            dom = domain or item.get("domain")
            line = prediction(pipe, qid, item.get("question"), dom, use_answer_cache=False)
            counts[line["status"]] = counts.get(line["status"], 0) + 1
            fh.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
            fh.flush()
    print(f"eval: {len(items)} questions -> {out}: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
    return 0
