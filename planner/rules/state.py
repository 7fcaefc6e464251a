"""The rules reader's shared state, :class:`Reading`, and the lookups several of its rules use."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from kgqa.planner.frame import Cond, Frame, Mention
from kgqa.planner.lexicon import Lexicon, is_date_like, is_year_like
from kgqa.planner.schema_view import SchemaView

Span = tuple[int, int]
PropAt = tuple[int, int, str, str]  # (start, end, owner label or relationship, property)


@dataclass
class Reading:
    """One question being read: the frame the rules fill, and what they share while filling it."""

    view: SchemaView
    lex: Lexicon
    question: str  # stripped
    low: str  # lower-cased
    frame: Frame
    mentions: list[Mention]  # linked values and quoted literals
    blocked: list[Span]  # the mentions' spans
    terms: list[tuple[int, int, str, str]]  # schema words: (start, end, phrase, target)
    labels_at: list[tuple[int, str]] = field(default_factory=list)  # (start, label) of label words
    props_at: list[PropAt] = field(default_factory=list)  # property words
    value_conds: list[Cond] = field(default_factory=list)  # words that name a value ("women")
    used: list[Span] = field(default_factory=list)  # spans the comparisons consumed
    listing: bool = False  # "the first 3 products": ordered by key, the graph's listing order, not a ranking

    @cached_property
    def masked(self) -> str:
        """The lower-cased question with the linked values blanked out (same length)."""
        low = self.low
        for a, b in self.blocked:
            low = low[:a] + " " * (b - a) + low[b:]
        return low


def consumed(r: Reading, pos: int) -> bool:
    """Whether an earlier rule read the word at ``pos`` already."""
    return any(a <= pos < b for a, b in r.used)


def timed(view: SchemaView, label: str) -> list[str]:
    """Returns a label's time properties: its year properties (integers), else its date properties."""
    props = view.nodes.get(label, {})
    years = [p for p, t in props.items() if t.startswith("INT") and is_year_like(p)]
    return years or [p for p in props if is_date_like(p)]


def alternatives(f: Frame) -> bool:
    """Whether two anchors name values of one property joined by "or" ("Apollo 13 or Twister"), or two years
    are alternatives ("1901 or 2001")."""
    return any(a.label == b.label and a.prop == b.prop and re.search(r"\bor\b", f.question[a.end:b.start].lower())
               for a, b in zip(f.anchors, f.anchors[1:])) or any(c.op == "IN" for c in f.conds)


def head_label(r: Reading, s: int, label: str, *, counting_target: bool = True) -> str:
    """Returns the head of a compound of label words starting at ``s`` ("Nobel laureates" -> the laureate
    label, when the two labels are related), else ``label``. Without ``counting_target`` the head may not be
    the target ("the most common product categories" counts products per category)."""
    for s2, lb in r.labels_at:
        if (s2 > s and lb != label and (counting_target or lb != r.frame.target)
                and re.fullmatch(r"[a-z]+\s+", r.low[s:s2])
                and rels_between(r.view, label, lb)):
            _join_modifier(r, label, lb)
            return lb
    return label


def rels_between(view: SchemaView, a: str, b: str) -> list[str]:
    """Returns the relationships that join labels ``a`` and ``b`` (either way)."""
    return [rel for rel, pairs in view.rels.items() if (a, b) in pairs or (b, a) in pairs]


def _join_modifier(r: Reading, modifier: str, head: str) -> None:
    """"Nobel laureates": the modifier label is joined to its head along the first relationship between them."""
    rels = rels_between(r.view, modifier, head)
    if rels and not set(rels) & set(r.frame.rel_hints):
        r.frame.rel_hints.append(rels[0])


def rel_of(r: Reading, owner: str) -> str | None:
    """The relationship a property owner is, or None for a node label."""
    return owner if owner in r.view.rel_props and owner not in r.view.nodes else None
