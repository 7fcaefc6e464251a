"""Result comparison: whether returned rows equal expected rows, the metric that pre-warm verification
and the evaluations share.

Rules, applied cell by cell and row by row:

* **Cells.** ``None`` equals only ``None``; booleans equal only booleans. Numbers compare by value, so
  ``19 == 19.0``; two numbers are equal when their relative difference is at most ``rel_tol`` (1e-6), or
  when one side is a non-integer with at most two decimals and the other lies within half a unit of its
  last decimal (round-half tolerance: gold ``28.73`` accepts ``28.733333``; gold ``19`` does not accept
  ``19.4``). Strings compare exactly after Unicode NFC normalisation; a number never equals a string.
  Dates/times compare by ISO text. Lists (``collect()`` cells) compare as multisets, since ``collect``
  has no defined order. Dicts (unrendered nodes) compare key by key. Nodes are expected to be rendered
  already as their display value (``kg.schema.render_row``).
* **Rows.** Unordered results are compared as multisets (duplicates count: ``[a, a]`` is not ``[a]``).
  When the gold query has ``ORDER BY`` (``ordered``) rows must match position by position, ties free: rows
  whose sort key (a monotone gold column) is equal may come in any order, and in the last run of equal
  keys, where a ``LIMIT`` may cut through a tie, other members of the tie count as well.
* **Columns.** *Strict*: same number of columns, matched by position. *Lenient* (the default, the
  headline figure): the prediction may return the gold columns in another order and may add columns; it
  matches when some injective mapping of gold columns onto predicted columns, used consistently for
  every row, makes the projected prediction match the gold result. Extra predicted rows never match.
* **Empty gold** matches only an empty prediction; a failed prediction (rows ``None``) matches nothing.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

REL_TOL = 1e-6
ROUND_DECIMALS = 2  # round-half tolerance applies to values written with at most this many decimals
MAX_MAPPINGS = 5000  # column mappings tried before giving up (lenient mode)


# -- cells -----------------------------------------------------------------------------------------
def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)  # Kuzu sums INT64 into a Decimal


def _decimals(x: float) -> int | None:
    """Decimals written in the shortest repr of ``x``; None for integers, NaN and infinities."""
    if not math.isfinite(x) or float(x).is_integer():
        return None
    exp = Decimal(repr(float(x))).as_tuple().exponent
    return -exp if isinstance(exp, int) else None


def _rounds_to(value: float, rounded: float) -> bool:
    d = _decimals(rounded)
    if d is None or d > ROUND_DECIMALS:
        return False
    return abs(value - rounded) <= 0.5 * 10 ** (-d) + 1e-12


def numbers_equal(a: float, b: float, rel_tol: float = REL_TOL) -> bool:
    """Numeric equality with relative tolerance and round-half tolerance (see module docstring)."""
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    if math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-12):
        return True
    return _rounds_to(a, b) or _rounds_to(b, a)


def _text(v: Any) -> Any:
    if hasattr(v, "isoformat"):
        return v.isoformat()
    if isinstance(v, str):
        return unicodedata.normalize("NFC", v)
    return v


def values_equal(pred: Any, gold: Any, rel_tol: float = REL_TOL) -> bool:
    """Equality of one predicted cell and one gold cell."""
    pred, gold = _text(pred), _text(gold)
    if pred is None or gold is None:
        return pred is None and gold is None
    if isinstance(pred, bool) or isinstance(gold, bool):
        return isinstance(pred, bool) and isinstance(gold, bool) and pred == gold
    if _is_number(pred) or _is_number(gold):
        return _is_number(pred) and _is_number(gold) and numbers_equal(float(pred), float(gold), rel_tol)
    if isinstance(pred, (list, tuple)) or isinstance(gold, (list, tuple)):
        if not (isinstance(pred, (list, tuple)) and isinstance(gold, (list, tuple))):
            return False
        return _multiset_match([[v] for v in pred], [[v] for v in gold], rel_tol)
    if isinstance(pred, dict) or isinstance(gold, dict):
        return (isinstance(pred, dict) and isinstance(gold, dict) and pred.keys() == gold.keys()
                and all(values_equal(pred[k], gold[k], rel_tol) for k in gold))
    return pred == gold


def _coarse(v: Any) -> Any:
    """A hashable key equal for any two cells that ``values_equal`` may call equal (numbers collapse)."""
    v = _text(v)
    if isinstance(v, bool) or v is None:
        return ("b", v)
    if _is_number(v):
        return ("n",)
    if isinstance(v, (list, tuple)):
        return ("l", len(v), tuple(sorted(Counter(repr(_coarse(x)) for x in v).items())))
    if isinstance(v, dict):
        return ("d", tuple(sorted((k, _coarse(x)) for k, x in v.items())))
    return ("s", v)


def _exact(v: Any) -> Any:
    """A hashable canonical form for the exact fast path (numbers as floats)."""
    v = _text(v)
    if isinstance(v, bool) or v is None:
        return ("b", v)
    if _is_number(v):
        return ("n", float(v))
    if isinstance(v, (list, tuple)):
        return ("l", tuple(sorted(repr(_exact(x)) for x in v)))
    if isinstance(v, dict):
        return ("d", tuple(sorted((k, repr(_exact(x))) for k, x in v.items())))
    return ("s", v)


# -- rows ------------------------------------------------------------------------------------------
def _rows_equal(p: list, g: list, rel_tol: float) -> bool:
    return len(p) == len(g) and all(values_equal(a, b, rel_tol) for a, b in zip(p, g))


def _multiset_match(pred: list[list], gold: list[list], rel_tol: float) -> bool:
    """Perfect matching between predicted and gold rows (bipartite, bucketed by non-numeric cells)."""
    if len(pred) != len(gold):
        return False
    if Counter(tuple(map(_exact, r)) for r in pred) == Counter(tuple(map(_exact, r)) for r in gold):
        return True
    buckets: dict[Any, tuple[list, list]] = defaultdict(lambda: ([], []))
    for r in pred:
        buckets[tuple(map(_coarse, r))][0].append(r)
    for r in gold:
        buckets[tuple(map(_coarse, r))][1].append(r)
    for ps, gs in buckets.values():
        if len(ps) != len(gs):
            return False
        if not _bipartite(ps, gs, rel_tol):
            return False
    return True


def _bipartite(ps: list[list], gs: list[list], rel_tol: float) -> bool:
    """Kuhn's augmenting paths: can every gold row be paired with its own equal predicted row?"""
    adj = [[i for i, p in enumerate(ps) if _rows_equal(p, g, rel_tol)] for g in gs]
    owner: dict[int, int] = {}

    def augment(gi: int, seen: set[int]) -> bool:
        for pi in adj[gi]:
            if pi in seen:
                continue
            seen.add(pi)
            if pi not in owner or augment(owner[pi], seen):
                owner[pi] = gi
                return True
        return False

    return all(augment(gi, set()) for gi in sorted(range(len(gs)), key=lambda i: len(adj[i])))


def _as_rows(rows: Iterable) -> list[list]:
    return [list(r) if isinstance(r, (list, tuple)) else [r] for r in rows]


def _match_same_columns(pred: list[list], gold: list[list], ordered: bool, rel_tol: float) -> bool:
    if len(pred) != len(gold):
        return False
    if ordered:
        return all(_rows_equal(p, g, rel_tol) for p, g in zip(pred, gold)) or _ties_match(pred, gold, rel_tol)
    return _multiset_match(pred, gold, rel_tol)


def _monotone(keys: list) -> bool:
    try:
        pairs = list(zip(keys, keys[1:]))
        return all(a >= b for a, b in pairs) or all(a <= b for a, b in pairs)
    except TypeError:
        return False


def _ties_match(pred: list[list], gold: list[list], rel_tol: float) -> bool:
    """Ordered rows with ties free: some gold column is the sort key (monotone, with equal neighbours); the
    prediction has the same key at every position, the rows of each run of equal keys match as a multiset,
    and the last run, where a LIMIT may cut through a tie, may hold other members of that tie."""
    for k in range(len(gold[0])):
        keys = [g[k] for g in gold]
        if len(set(map(repr, keys))) == len(keys) or not _monotone(keys):
            continue
        if not all(values_equal(p[k], g[k], rel_tol) for p, g in zip(pred, gold)):
            continue
        starts = [i for i in range(len(gold)) if i == 0 or not values_equal(keys[i], keys[i - 1], rel_tol)]
        runs = list(zip(starts, starts[1:] + [len(gold)]))
        if all(_multiset_match(pred[a:b], gold[a:b], rel_tol) for a, b in runs[:-1]):
            return True
    return False


def _column_candidates(pred: list[list], gold: list[list], n_pred: int, n_gold: int,
                       rel_tol: float, ordered: bool = False) -> list[list[int]]:
    """For each gold column, the predicted columns whose values match it as a column multiset; for ordered rows,
    on the rows before the last run of a tied sort key, where a LIMIT may keep other members of the tie."""
    upto = _before_last_tie(gold, rel_tol) if ordered else len(gold)
    out = []
    for j in range(n_gold):
        gcol = [[r[j]] for r in gold[:upto]]
        out.append([i for i in range(n_pred) if _multiset_match([[r[i]] for r in pred[:upto]], gcol, rel_tol)])
    return out


def _before_last_tie(gold: list[list], rel_tol: float) -> int:
    """How many rows come before the last run of equal values of a gold column that may be the sort key
    (monotone, with equal neighbours at the end); all of them when there is none."""
    cut = len(gold)
    for k in range(len(gold[0])):
        keys = [g[k] for g in gold]
        if len(keys) < 2 or not _monotone(keys) or not values_equal(keys[-1], keys[-2], rel_tol):
            continue
        start = len(keys) - 1
        while start > 0 and values_equal(keys[start - 1], keys[-1], rel_tol):
            start -= 1
        cut = min(cut, start)
    return cut


def _mappings(cands: list[list[int]]) -> Iterable[tuple[int, ...]]:
    """Injective assignments gold column -> predicted column drawn from the candidates."""
    chosen: list[int] = []

    def rec(j: int):
        if j == len(cands):
            yield tuple(chosen)
            return
        for i in cands[j]:
            if i not in chosen:
                chosen.append(i)
                yield from rec(j + 1)
                chosen.pop()

    return rec(0)


def rows_match(pred_rows: Iterable | None, gold_rows: Iterable, ordered: bool, rel_tol: float = REL_TOL,
               *, lenient: bool = True) -> bool:
    """Whether a predicted result set matches the gold one (rules in the module docstring).

    ``lenient=False`` is the strict figure: same columns in the same order.
    """
    if pred_rows is None:
        return False
    pred, gold = _as_rows(pred_rows), _as_rows(gold_rows)
    if not gold or not pred:
        return not gold and not pred
    if len(pred) != len(gold):
        return False
    n_gold, n_pred = len(gold[0]), len(pred[0])
    if any(len(r) != n_gold for r in gold) or any(len(r) != n_pred for r in pred):
        return False
    if n_pred == n_gold and _match_same_columns(pred, gold, ordered, rel_tol):
        return True
    if not lenient or n_pred < n_gold:
        return False
    cands = _column_candidates(pred, gold, n_pred, n_gold, rel_tol, ordered)
    if any(not c for c in cands):
        return False
    identity = tuple(range(n_gold))
    for k, mapping in enumerate(_mappings(cands)):
        if k >= MAX_MAPPINGS:
            break
        if mapping == identity and n_pred == n_gold:
            continue  # already tried
        projected = [[r[i] for i in mapping] for r in pred]
        if _match_same_columns(projected, gold, ordered, rel_tol):
            return True
    return False


def same_answer(a: list[list[Any]], b: list[list[Any]], ranked: bool = False) -> bool:
    """Whether two readings' rows say the same: as many rows, and the narrower one's columns found in the other,
    row for row (:func:`rows_match`, lenient; in order when both rank, and a LIMIT that cuts through a tie may
    keep other members of it)."""
    if len(a) != len(b):
        return False
    wide, narrow = (a, b) if len(a[0] if a else []) >= len(b[0] if b else []) else (b, a)
    if rows_match(wide, narrow, ranked, lenient=True):
        return True
    if not ranked or not narrow:
        return False
    # a LIMIT that cuts through a tie may keep other members of it: the rows before the last run of the rank
    # key agree, and the last run holds the same key
    for i in range(len(narrow[0])):
        for j in range(len(wide[0])):
            if all(values_equal(n[i], w[j]) for n, w in zip(narrow, wide)):
                last = narrow[-1][i]
                cut = next(k for k in range(len(narrow)) if values_equal(narrow[k][i], last))
                if cut == 0 or rows_match(wide[:cut], narrow[:cut], True, lenient=True):
                    return True
    return False
