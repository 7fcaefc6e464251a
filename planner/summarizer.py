"""Answers from the evidence only (CacheRAG Summarize; CRAG truthfulness: a wrong answer costs more
than a missing one).

Rows are rendered deterministically into a sentence or list, so every value in the answer is a value
from the rows; this module never calls an LLM. Only the batch path (:mod:`kgqa.planner.batch`) lets an LLM
rephrase an answer, and keeps the phrasing only when :func:`faithful` finds no value in it that is not
in the evidence.
"""

from __future__ import annotations

import re
from typing import Any

from kgqa.planner.lexicon import IRREGULAR_PLURALS, plural
from kgqa.planner.outline import Outline
from kgqa.text import name_words

DONT_KNOW = "I don't know: the knowledge graph gave no evidence that answers this question."


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.2f}".rstrip("0").rstrip(".") if abs(v) < 1e15 else str(v)
    if isinstance(v, list):
        return ", ".join(_fmt(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items() if not str(k).startswith("_"))
    return str(v)


def join_words(items: list[str]) -> str:
    """Returns the items as English lists them ("a, b and c")."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def beside_keys(columns: list[str], keys: set[str], parts: set[str] = frozenset(),
                shown: tuple[tuple[str, str], ...] = ()) -> set[int]:
    """Returns the positions of key columns shown beside their node's display column (``p.productID`` after
    ``p.productName``), or before the properties the key is made of (``p.id`` before ``p.category``, when
    ``parts`` holds it): evidence in the rows, left out of the sentence. ``shown``: (variable, property) of each
    column, as the plan's tree says (:attr:`Outline.shown`); else read from names written ``variable.property``."""
    pairs = list(shown) if len(shown) == len(columns) else [(c.partition(".")[0], c.partition(".")[2]) for c in columns]
    hidden = set()
    for i, (var, prop) in enumerate(pairs):
        if not var or prop not in keys:
            continue
        if i > 0 and pairs[i - 1][0] == var and pairs[i - 1][1] not in ("", prop):
            hidden.add(i)
        elif i + 1 < len(pairs) and pairs[i + 1][0] == var and pairs[i + 1][1] in parts:
            hidden.add(i)
    return hidden


def evidence_items(columns: list[str], rows: list[list[Any]], lists: frozenset[str] = frozenset()
                   ) -> tuple[list[str], list[list[Any]]]:
    """Returns the columns and rows with each evidence column (``lists``: their names case-folded, as
    :attr:`Outline.lists`; ``collect(p.productName)``, written beside the rows it explains) whose lists all hold
    one item shown as that item, under the collected expression's name; evidence with two items on some row
    stays lists, the parallel lists of a row put in one order (collect's own varies between runs); other columns
    unchanged."""
    at = [i for i, col in enumerate(columns) if col.casefold() in lists]
    if at and all(isinstance(r[i], list) and len(r[i]) == len(r[at[0]]) for r in rows for i in at):
        rows = [list(r) for r in rows]
        for r in rows:
            items = sorted(zip(*(r[i] for i in at)), key=lambda item: [(v is None, str(v)) for v in item])
            for k, i in enumerate(at):
                r[i] = [item[k] for item in items]
    single = [i for i in at if rows and all(isinstance(r[i], list) and len(r[i]) == 1 for r in rows)]
    if not single:
        return columns, rows
    columns = [col[len("collect("):-1] if i in single and col.casefold().startswith("collect(") else col
               for i, col in enumerate(columns)]
    return columns, [[x[0] if i in single else x for i, x in enumerate(r)] for r in rows]


def evidence_columns(columns: list[str], lists: frozenset[str] = frozenset()) -> set[int]:
    """Returns the positions of the columns of evidence lists (some row has several items): in the rows, left
    out of the sentence, which names what was asked. Evidence of one item per row is said beside it."""
    return {i for i, col in enumerate(columns) if i > 0 and col.casefold() in lists}


def fixed_columns(columns: list[str], fixed: frozenset[tuple[str, str]], names: set[str] = frozenset()) -> set[int]:
    """Returns the positions of columns (after the first) the plan sets equal to one value (``fixed``:
    :attr:`Outline.fixed`): the same on every row, evidence in the rows that the sentence leaves out, since the
    question said it. Names (``names``: display properties) stay: "Yes (The Matrix, 1999, Cast Away, 2000)"."""
    props = dict(fixed)
    return {i for i, col in enumerate(columns) if i > 0 and col in props and props[col] not in names}


def render_rows(columns: list[str], rows: list[list[Any]], limit: int = 100, hide: set[int] = frozenset()) -> str:
    """Returns the rows as one sentence or list, without the columns at the positions in ``hide``."""
    if hide:
        rows = [[x for i, x in enumerate(r) if i not in hide] for r in rows]
        columns = [c for i, c in enumerate(columns) if i not in hide]
    if not rows:
        return ""
    if len(rows) == 1 and len(rows[0]) == 1:
        return f"{_fmt(rows[0][0])}."
    if all(len(r) == 1 for r in rows):
        items = [_fmt(r[0]) for r in rows[:limit]]
        more = f" (and {len(rows) - limit} more)" if len(rows) > limit else ""
        return f"{join_words(items)}{more} ({len(rows)} in all)." if len(rows) > 1 else f"{items[0]}."
    if len(rows) == 1 and isinstance(rows[0][0], bool):  # a yes/no comparison, with its evidence
        return f"{'Yes' if rows[0][0] else 'No'} ({', '.join(_fmt(x) for x in rows[0][1:])})."
    items = []
    for r in rows[:limit]:
        head, rest = _fmt(r[0]), [_fmt(x) for x in r[1:]]
        items.append(f"{head} ({', '.join(rest)})")
    more = f"; and {len(rows) - limit} more" if len(rows) > limit else ""
    return "; ".join(items) + more + (f" ({len(rows)} in all)." if len(rows) > 1 else ".")


def top_group(names: list[Any], count: Any, noun: str) -> str:
    """Returns the sentence for the group tied at the top of a count of ``noun``s: "Pavlova and Plutzer
    Lebensmittelgroßmärkte AG, with 5 products each" ("A Few Good Men, with 12 people" for one)."""
    nouns = noun if count == 1 else IRREGULAR_PLURALS.get(noun) or plural(noun)
    return f"{join_words([_fmt(n) for n in names])}, with {_fmt(count)} {nouns}{' each' if len(names) > 1 else ''}."


def tie_note(value: Any, names: list[Any], more: bool = False, *, cut: int) -> str:
    """Returns the sentence that says a top-``cut`` list cuts through a tie: who else has the last row's
    ``value`` (the first five ``names``, then how many more; ``more``: there may be others beyond those)."""
    rest = len(names) - 5
    listed = [_fmt(n) for n in names[:5]] + ([f"{rest}{'+' if more else ''} more"] if rest > 0 else [])
    verb = "has" if len(names) == 1 and not more else "have"
    return f"{join_words(listed)} also {verb} {_fmt(value)}: the top {cut} cuts through a tie."


def summarize(question: str, columns: list[str], rows: list[list[Any]], *, empty_is_answer: bool = False,
              subject: str = "results", keys: set[str] = frozenset(),
              parts: set[str] = frozenset(), outline: Outline | None = None,
              names: set[str] = frozenset()) -> tuple[str, str]:
    """(answer, status) from the rows. Empty rows give 'I don't know' unless the query was fully grounded,
    in which case 'none' is itself the answer. Key columns beside a display column or before the properties
    they are made of (``keys``: the graph's primary-key properties; ``parts``: those properties), columns
    the plan sets to one value (``outline``: :class:`Outline`) (but names: ``names``) and evidence lists stay out of the sentence. The
    group tied at the top of a count is said with its figure (:func:`top_group`)."""
    if rows and not (len(rows) == 1 and all(v is None for v in rows[0])):
        outline = outline or Outline()
        if outline.counted and all(len(row) == 2 and row[1] == rows[0][1] for row in rows):
            noun = " ".join(name_words(outline.counted)).lower()
            return top_group([row[0] for row in rows], rows[0][1], noun), "answered"
        cols = columns or []
        hide = (beside_keys(cols, keys, parts, outline.shown) | fixed_columns(cols, outline.fixed, names)
                | evidence_columns(cols, outline.lists))
        return render_rows(columns, rows, hide=hide), "answered"
    if empty_is_answer:
        return f"None: the knowledge graph has no {subject} matching the question.", "answered"
    return DONT_KNOW, "dont_know"


def faithful(text: str, evidence: str) -> bool:
    """True when every number and capitalised word of ``text`` occurs in ``evidence``."""
    ev = evidence.lower()
    for tok in re.findall(r"\d+(?:\.\d+)?|[A-Z][\w'-]+", text):
        if tok.lower() not in ev and tok.lower() not in {"the", "i", "a", "an", "there", "none", "yes", "no"}:
            return False
    return True
