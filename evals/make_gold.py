"""Fill (or check) ``gold_rows`` and ``ordered`` of a question set by running every gold query.

Each line of ``evals/questions/<domain>.jsonl`` holds a hand-written question and gold Cypher; this
script executes the Cypher on the built graph, renders nodes as their display value
(``kg.schema.render_row``), and writes ``gold_rows`` (sorted when the query has no ``ORDER BY``, so the
file is stable) and ``ordered`` (true iff the query has ``ORDER BY``), keeping the optional ``shape`` (one of
:data:`SHAPES`). It fails loudly when a gold query errors, when a question not of type ``empty`` returns
nothing, or when an ``empty`` one returns rows.

A set named in :data:`MIXED_SETS` (``unseen`` and the held-out ``heldout`` and ``fresh``: third-party questions on
movies and northwind) holds lines of several domains: each line is run on its own ``domain``'s graph. Such a set may also hold lines of type
``unanswerable`` (:data:`UNANSWERABLE`): the graph does not hold what they ask, or they are too vague to have
one right answer, so the right outcome is a decline (``kgqa.evals.scorer``). Those carry an empty
``gold_cypher``, ``gold_rows`` ``[]`` and a ``note`` saying why; nothing is run for them. Any line may carry
a ``note`` (kept as it is).

    python -m kgqa.evals.make_gold                    # fill movies and nobel, building graphs if needed
    python -m kgqa.evals.make_gold library            # a registered graph's set (kgqa load --name library ...)
    python -m kgqa.evals.make_gold --check nobel      # verify the stored rows, change nothing
    python -m kgqa.evals.make_gold --check unseen     # a mixed set: each line on its own domain's graph
    python -m kgqa.evals.make_gold --check heldout    # the held-out mixed set (scored only for reports)
    python -m kgqa.evals.make_gold --check fresh      # a third sample, held out the same way
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgqa.jsonl import numbered_jsonl

QUESTIONS_DIR = Path(__file__).resolve().parent / "questions"
SET_DOMAINS = ("movies", "nobel")
TYPES = ("single-hop", "filter", "aggregation", "multi-hop", "comparison", "empty")
UNANSWERABLE = "unanswerable"  # mixed sets only: no gold query, the right outcome is a decline
MIXED_SETS = ("unseen", "heldout", "fresh")  # sets whose lines carry their own domain (run on that domain's graph)
# The question shapes of issue 17 (``shape``, optional): what a set must cover, each measured on its own.
SHAPES = ("superlative", "top-n", "rel-property", "string", "negation", "conjunction", "aggregate-comparison",
          "cycle", "role-target", "implicit-order", "return-asked", "arithmetic")
FIELDS = ("id", "domain", "question", "gold_cypher", "gold_rows", "type", "shape", "ordered", "note")
OPTIONAL = ("shape", "note")  # written only when the line has it
_ORDER_BY = re.compile(r"\bORDER\s+BY\b", re.I)


class GoldError(RuntimeError):
    """A question set is malformed or its gold queries disagree with the graph."""


@dataclass
class Gold:
    rows: list[list[Any]]
    ordered: bool


def has_order_by(cypher: str) -> bool:
    """True iff the query sorts its result (``ORDER BY`` outside strings and comments)."""
    from kgqa.kg.safety import skeleton

    return bool(_ORDER_BY.search(skeleton(cypher)))


def _canonical(rows: list[list[Any]]) -> list[list[Any]]:
    """A JSON-round-tripped copy, so stored and freshly computed rows compare alike."""
    return json.loads(json.dumps(rows, ensure_ascii=False))


def run_gold(graph, cypher: str, spec) -> Gold:
    """Execute one gold query on a ``kg.db.Graph`` and render its rows for storage."""
    from kgqa.kg.db import QueryError, render_value
    from kgqa.kg.schema import render_row

    try:
        result = graph.query(cypher, row_cap=100_000)
    except (QueryError, ValueError) as err:
        raise GoldError(f"gold query failed: {err}\n  {cypher}") from err
    if result.truncated:
        raise GoldError(f"gold query returned more than 100000 rows:\n  {cypher}")
    rows = _canonical([render_value(render_row(row, spec)) for row in result.rows])
    ordered = has_order_by(cypher)
    if not ordered:
        rows.sort(key=lambda r: json.dumps(r, ensure_ascii=False, sort_keys=True))
    return Gold(rows, ordered)


def set_types(name: str) -> tuple[str, ...]:
    """The types a set's lines may have: :data:`TYPES`, and :data:`UNANSWERABLE` in a mixed set."""
    return (*TYPES, UNANSWERABLE) if name in MIXED_SETS else TYPES


def read_set(path: Path) -> list[dict]:
    """The questions of one set, checked for the required fields, a known type and unique ids
    (:class:`GoldError` names the file and line otherwise). An ``unanswerable`` line (mixed sets only) has
    no gold query, no gold rows and a ``note``."""
    items: list[dict] = []
    seen: set[str] = set()
    types = set_types(path.stem)
    for n, item in numbered_jsonl(path):
        items.append(item)
        unanswerable = item.get("type") == UNANSWERABLE
        required = ("id", "domain", "question", "type") + (("note",) if unanswerable else ("gold_cypher",))
        missing = [f for f in required if not item.get(f)]
        if missing:
            raise GoldError(f"{path.name}:{n}: missing {', '.join(missing)}")
        if item["type"] not in types:
            raise GoldError(f"{path.name}:{n}: type {item['type']!r} not one of {types}")
        if unanswerable and (item.get("gold_cypher") or item.get("gold_rows")):
            raise GoldError(f"{path.name}:{n}: an {UNANSWERABLE} line has no gold_cypher and no gold_rows")
        if "shape" in item and item["shape"] not in SHAPES:
            raise GoldError(f"{path.name}:{n}: shape {item['shape']!r} not one of {SHAPES}")
        if item["id"] in seen:
            raise GoldError(f"{path.name}:{n}: duplicate id {item['id']}")
        seen.add(item["id"])
    return items


def fill_set(path: Path, graph, spec, *, check: bool = False) -> list[str]:
    """Compute gold rows for every question of ``path``; write them back unless ``check``.

    Returns the ids whose stored rows/ordered differ from the computed ones (always empty after a
    fill). Raises :class:`GoldError` on a failing query or an unexpected (non-)empty result.
    """
    return fill_lines(path, {spec.name: (graph, spec)}, check=check)


def same_rows(stored: Any, rows: list) -> bool:
    """Whether stored gold rows are the rows a gold query returns, floats to their last bits (an average's last
    bit follows the order the engine stored the rows in)."""
    if not isinstance(stored, list) or len(stored) != len(rows):
        return False
    for a, b in zip(stored, rows):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            close = isinstance(x, float) and isinstance(y, float) and math.isclose(x, y, rel_tol=1e-12)
            if x != y and not close:
                return False
    return True


def fill_lines(path: Path, graphs: dict[str, tuple[Any, Any]], *, check: bool = False) -> list[str]:
    """:func:`fill_set` with one ``(graph, spec)`` per domain: each line runs on its own domain's graph (a
    set of one domain passes one; a mixed set one per domain it holds). ``unanswerable`` lines get
    ``gold_rows`` ``[]`` and ``ordered`` false without running anything."""
    items = read_set(path)
    problems, changed = [], []
    for item in items:
        if item["type"] == UNANSWERABLE:
            gold = Gold([], False)
        elif item["domain"] not in graphs:
            where = f"the {next(iter(graphs))} set" if len(graphs) == 1 else f"{path.name} (no graph given)"
            problems.append(f"{item['id']}: domain {item['domain']!r} in {where}")
            continue
        else:
            graph, spec = graphs[item["domain"]]
            try:
                gold = run_gold(graph, item["gold_cypher"], spec)
            except GoldError as err:
                problems.append(f"{item['id']} ({item['question']}): {err}")
                continue
            if item["type"] == "empty" and gold.rows:
                problems.append(f"{item['id']} ({item['question']}): type empty but {len(gold.rows)} rows")
            elif item["type"] != "empty" and not gold.rows:
                problems.append(f"{item['id']} ({item['question']}): type {item['type']} returned nothing")
        if not same_rows(item.get("gold_rows"), gold.rows) or item.get("ordered") != gold.ordered:
            changed.append(item["id"])
        item["gold_rows"], item["ordered"] = gold.rows, gold.ordered
    if problems:
        raise GoldError(f"{path.name}: {len(problems)} problem(s):\n  " + "\n  ".join(problems))
    if not check:
        path.write_text("".join(json.dumps({f: item[f] for f in FIELDS if f in item or f not in OPTIONAL},
                                           ensure_ascii=False) + "\n"
                                for item in items), encoding="utf-8")
        return []
    return changed


def open_graph(domain: str, settings, *, rebuild: bool = False):
    """Returns the domain's graph: a bundled one (re)built unless current (``rebuild``: always), any other
    as registered (``kgqa load --name``)."""
    from kgqa.kg.db import Graph
    from kgqa.kg.domains import BUNDLED
    from kgqa.kg.loader import build_domain

    if domain in BUNDLED:
        build_domain(domain, settings.data_dir, settings.graphs_dir, force=rebuild, progress=False)
    elif not (settings.graph_path(domain) / "meta.json").exists():
        raise SystemExit(f"no graph {domain!r} under {settings.graphs_dir}: load it first (kgqa load --name ...)")
    return Graph(settings.graph_path(domain), read_only=True, timeout_ms=60_000, row_cap=100_000)


def main(argv: list[str] | None = None) -> int:
    from kgqa.kg.registry import graph_spec
    from kgqa.settings import Settings

    ap = argparse.ArgumentParser(prog="python -m kgqa.evals.make_gold", description=__doc__.splitlines()[0])
    ap.add_argument("domains", nargs="*", default=list(SET_DOMAINS),
                    help=f"question sets (default: {' '.join(SET_DOMAINS)}; mixed sets: {' '.join(MIXED_SETS)})")
    ap.add_argument("--check", action="store_true", help="verify the stored gold rows; write nothing")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the graphs first")
    ap.add_argument("--questions", type=Path, default=QUESTIONS_DIR, help="directory of <domain>.jsonl")
    args = ap.parse_args(argv)
    settings = Settings.from_env()
    status = 0
    for name in args.domains:
        path = args.questions / f"{name}.jsonl"
        opened: dict = {}
        try:
            domains = sorted({item["domain"] for item in read_set(path)}) if name in MIXED_SETS else [name]
            for domain in domains:
                opened[domain] = open_graph(domain, settings, rebuild=args.rebuild)
            changed = fill_lines(path, {d: (g, graph_spec(g)) for d, g in opened.items()}, check=args.check)
        except GoldError as err:
            print(f"FAIL {err}", file=sys.stderr)
            status = 1
            continue
        finally:
            for graph in opened.values():
                graph.close()
        n = len(read_set(path))
        if args.check and changed:
            print(f"FAIL {path.name}: stored gold differs for {', '.join(changed)}", file=sys.stderr)
            status = 1
        else:
            print(f"ok   {path.name}: {n} questions {'match the graph' if args.check else 'filled'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
