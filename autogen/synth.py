"""Question synthesis from schema templates over sampled stars (the model-independent source).

Each generator turns sampled triples into :class:`Candidate` s: a question (a paraphrase from
:mod:`kgqa.autogen.phrases`), the :class:`kgqa.autogen.compile.Spec` it asks, and the answer rows derived directly
from the triples (or, for questions over a whole label, from the label's column in Python) — never from
the Cypher that later verifies them. Candidates are grouped by *shape* (kind, relationship or property,
paraphrase); :func:`select` takes them round-robin over shapes, so the budget is spread over every label,
relationship and phrasing before any shape repeats.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from kgqa.autogen import phrases as P
from kgqa.autogen.compile import Spec, Step
from kgqa.autogen.sampling import Sampler, Star, is_name

NUMERIC = ("INT64", "INT32", "INT16", "DOUBLE", "FLOAT")


@dataclass
class Anchor:
    """A value named in the question: its text there and the query parameter it becomes."""

    text: str
    value: Any
    label: str
    prop: str


@dataclass
class Candidate:
    domain: str
    source: str  # "template" | "llm"
    shape: str
    question: str
    spec: Spec
    expected: list[list[Any]]  # answer rows derived from the triples
    anchors: list[Anchor] = field(default_factory=list)
    facts: list[tuple[str, str, str]] = field(default_factory=list)
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            raw = json.dumps([self.domain, self.source, self.question, self.spec.to_dict()], default=str,
                             sort_keys=True)
            self.id = hashlib.sha1(raw.encode()).hexdigest()[:16]


class TemplateSynth:
    """Schema-template questions for one domain from a :class:`Sampler`'s stars."""

    def __init__(self, sampler: Sampler, domain: str, seed: int = 7):
        self.s, self.view, self.domain = sampler, sampler.view, domain
        self.book = P.Phrasebook(self.view.spec.phrases)
        self.rng = random.Random(seed)
        self.groups: dict[str, list[Candidate]] = defaultdict(list)

    # -- helpers -----------------------------------------------------------------------------------
    def _add(self, shape: str, question: str, spec: Spec, expected, anchors=(), facts=()) -> None:
        rows = [list(r) for r in expected]
        if spec.kind in ("hop", "filter", "top", "superlative"):  # the query returns DISTINCT rows
            rows = [list(r) for r in dict.fromkeys(tuple(r) for r in rows)]
        self.groups[shape].append(Candidate(self.domain, "template", shape, question, spec, rows,
                                            list(anchors), list(facts)))

    def _numeric(self, label: str) -> list[str]:
        key = self.view.key(label)
        return [p for p, t in self.view.nodes[label].items() if t in NUMERIC and p != key]

    def _anchor(self, star: Star) -> Anchor | None:
        c = star.centre
        if not self.s.anchorable(c.label) or not self.s.unique_name(c.label, c.name):
            return None
        return Anchor(str(c.name), c.name, c.label, self.view.display(c.label))

    def _para(self, options: list[str], i: int) -> tuple[int, str]:
        j = i % len(options)
        return j, options[j]

    def _who(self, label: str) -> str:
        return "Who" if self.view.spec.who == label else "What"

    # -- generators over stars ------------------------------------------------------------------------
    def from_stars(self, stars: list[Star], on_error: Callable[[Exception], Any] | None = None) -> None:
        """Candidates about each star's centre; with ``on_error``, a star whose queries fail is skipped and its
        error passed to it (else raised)."""
        for i, star in enumerate(stars):
            with _skipping(on_error):
                a = self._anchor(star)
                if a is None:
                    continue
                self._attrs(star, a, i)
                for hop in star.hops:
                    if hop.truncated:
                        continue
                    self._hop(star, a, hop, i)
                for h1, h2, nodes in self.s.two_hop(star):
                    self._two_hop(star, a, h1, h2, nodes, i)
        with _skipping(on_error):
            self._compare(stars)

    def _attrs(self, star: Star, a: Anchor, i: int) -> None:
        c = star.centre
        skip = {self.view.key(c.label), self.view.display(c.label)}
        props = [p for p, v in c.props.items() if p not in skip and v not in (None, "") and not (
            isinstance(v, str) and (len(v) > 200 or v.casefold() in str(c.name).casefold()))]
        self.rng.shuffle(props)
        for p in props[:2]:
            opts = self.book.attrs.get((c.label, p)) or [f"What is the {self.book.words(p)} of {{x}}?"]
            j, text = self._para(opts, i)
            self._add(f"attr:{c.label}.{p}:{j}", text.format(x=a.text),
                      Spec("attr", c.label, c.label, a.prop, a.value, prop=p), [[c.props[p]]], [a],
                      [(str(c.name), self.book.words(p), str(c.props[p]))])

    def _hop(self, star: Star, a: Anchor, hop, i: int) -> None:
        c = star.centre
        ph = self.book.rel_phrases(hop.rel, hop.direction, hop.label)
        step = [Step(hop.rel, hop.direction, hop.label)]
        facts = [(str(c.name), hop.rel.lower().replace("_", " "), str(n.name)) if hop.direction == "out"
                 else (str(n.name), hop.rel.lower().replace("_", " "), str(c.name)) for n in hop.nodes]
        names = [[n.name] for n in {n.name: n for n in hop.nodes}.values()]
        j, text = self._para(list(ph["q"]), i)
        self._add(f"hop:{c.label}-{hop.rel}-{hop.direction}:{j}", text.format(x=a.text),
                  Spec("hop", hop.label, c.label, a.prop, a.value, steps=step), names, [a], facts)
        if len(hop.nodes) >= 2:
            counts = list(ph.get("count") or [f"What is the number of {ph['np']}?"])
            j, text = self._para(counts, i)
            self._add(f"count:{c.label}-{hop.rel}-{hop.direction}:{j}", text.format(x=a.text),
                      Spec("count", hop.label, c.label, a.prop, a.value, steps=step), [[len(hop.nodes)]], [a], facts)
        if len(hop.nodes) >= 3:
            np = str(ph["np"]).format(x=a.text)
            for p in self._numeric(hop.label):
                vals = list(dict.fromkeys((n.name, n.props.get(p)) for n in hop.nodes if n.props.get(p) is not None))
                if len(vals) < 3:
                    continue
                facts_p = facts + [(str(n), self.book.words(p), str(v)) for n, v in vals]
                self._star_numeric(c.label, hop, a, np, step, p, vals, facts_p, i)

    def _star_numeric(self, label, hop, a, np, step, p, vals, facts, i) -> None:
        w = self.book.words(p)
        ranked = sorted(vals, key=lambda v: -v[1])
        if ranked[0][1] != ranked[1][1]:
            self._add(f"sup:{label}-{hop.rel}.{p}", f"Which of {np} has the highest {w}?",
                      Spec("superlative", hop.label, label, a.prop, a.value, steps=step, prop=p, limit=1),
                      [list(ranked[0])], [a], facts)
        per_node = [n.props[p] for n in hop.nodes if n.props.get(p) is not None]  # avg is over distinct nodes
        mean = sum(per_node) / len(per_node)
        self._add(f"agg:{label}-{hop.rel}.{p}", f"What is the average {w} of {np}?",
                  Spec("agg", hop.label, label, a.prop, a.value, steps=step, prop=p, agg="avg"), [[mean]], [a], facts)
        cut = int(sorted(v for _, v in vals)[len(vals) // 2])
        above = [[n, v] for n, v in vals if v > cut]
        if above and cut > 0:
            self._add(f"sfilter:{label}-{hop.rel}.{p}", f"Which of {np} have a {w} greater than {cut}?",
                      Spec("filter", hop.label, label, a.prop, a.value, steps=step, prop=p, op=">",
                           value=float(cut) if self.view.nodes[hop.label][p] in ("DOUBLE", "FLOAT") else cut),
                      above, [a], facts)

    def _two_hop(self, star: Star, a: Anchor, h1, h2, nodes, i: int) -> None:
        c = star.centre
        np1 = str(self.book.rel_phrases(h1.rel, h1.direction, h1.label)["np"]).format(x=a.text)
        np2 = str(self.book.rel_phrases(h2.rel, h2.direction, h2.label)["np"]).format(x=np1)
        opts = [f"List {np2}.", f"Find {np2}."]
        j, text = self._para(opts, i)
        steps = [Step(h1.rel, h1.direction, h1.label), Step(h2.rel, h2.direction, h2.label)]
        names = [[n] for n in dict.fromkeys(n.name for n in nodes)]
        self._add(f"2hop:{c.label}-{h1.rel}-{h2.rel}-{h2.direction}:{j}", text,
                  Spec("hop", h2.label, c.label, a.prop, a.value, steps=steps), names, [a])

    def _compare(self, stars: list[Star]) -> None:
        by_label: dict[str, list[Star]] = defaultdict(list)
        for st in stars:
            if self._anchor(st) is not None:
                by_label[st.centre.label].append(st)
        for label, group in by_label.items():
            for p in self._numeric(label):
                pairs = [(x, y) for x, y in zip(group, group[1:])
                         if x.centre.props.get(p) is not None and y.centre.props.get(p) is not None
                         and x.centre.props[p] != y.centre.props[p]]
                for k, (x, y) in enumerate(pairs[:3]):
                    table = self.book.compares.get((label, p), {})
                    keys = sorted(table, reverse=True) or [True, False]
                    desc = keys[k % len(keys)]
                    opts = table.get(desc) or [f"Which has a {'higher' if desc else 'lower'} {self.book.words(p)}, {{x}} or {{y}}?"]
                    win = max((x, y), key=lambda s: s.centre.props[p] * (1 if desc else -1))
                    ax, ay = self._anchor(x), self._anchor(y)
                    self._add(f"compare:{label}.{p}:{desc}", opts[0].format(x=ax.text, y=ay.text),
                              Spec("compare", label, label, ax.prop, ax.value, anchor2_value=ay.value, prop=p,
                                   desc=desc), [[win.centre.name]], [ax, ay])

    # -- generators over whole labels -----------------------------------------------------------------
    def from_labels(self, on_error: Callable[[Exception], Any] | None = None) -> None:
        """Candidates about whole labels; with ``on_error``, a label whose queries fail is skipped and its error
        passed to it (else raised)."""
        for label in sorted(self.view.nodes):
            with _skipping(on_error):
                lp = P.plural(label)
                n = len(self.s.keys(label))
                self._add(f"countall:{label}:0", f"How many {lp} are there?", Spec("count_all", label), [[n]])
                for p in self._numeric(label):
                    rows = list(dict.fromkeys((d, v) for d, v in self.s.table(label, p) if v is not None))
                    if len(rows) >= 4:
                        self._filters(label, p, rows)
                        self._tops(label, p, rows)
                for p, t in self.view.nodes[label].items():
                    if t == "BOOL" or t == "BOOLEAN":
                        self._booleans(label, p)
                    elif t == "STRING" and p not in (self.view.key(label), self.view.display(label)):
                        self._categories(label, p)

    def _filters(self, label: str, p: str, rows: list[tuple[Any, Any]]) -> None:
        vals = sorted(v for _, v in rows)
        double = self.view.nodes[label][p] in ("DOUBLE", "FLOAT")
        w, lp = self.book.words(p), P.plural(label)
        table = self.book.filters.get((label, p), {})
        for op, qs in ((">", (0.8, 0.9, 0.95)), ("<", (0.05, 0.1, 0.2))):
            opts = table.get(op) or ([f"Which {lp} have a {w} greater than {{v}}?", f"List all {lp} with a {w} above {{v}}."]
                                     if op == ">" else
                                     [f"Which {lp} have a {w} less than {{v}}?", f"List all {lp} with a {w} below {{v}}."])
            for j, q in enumerate(qs):
                cut = int(vals[min(len(vals) - 1, int(q * len(vals)))])
                hits = [[d, v] for d, v in rows if (v > cut if op == ">" else v < cut)]
                if not hits or len(hits) > 60 or cut <= 0:
                    continue
                text = opts[j % len(opts)]
                self._add(f"filter:{label}.{p}{op}:{j % len(opts)}", text.format(v=cut),
                          Spec("filter", label, prop=p, op=op, value=float(cut) if double else cut), hits)

    def _tops(self, label: str, p: str, rows: list[tuple[Any, Any]]) -> None:
        w, lp = self.book.words(p), P.plural(label)
        for desc, k, text in ((True, 3, f"What are the top {{k}} {lp} by {w}?"),
                              (True, 5, f"Which {{k}} {lp} have the highest {w}?"),
                              (False, 3, f"List the {{k}} {lp} with the lowest {w}.")):
            ranked = sorted(rows, key=lambda r: -r[1] if desc else r[1])
            if len(ranked) <= k:
                continue
            head = [v for _, v in ranked[:k + 1]]
            if len(set(head)) < k + 1:  # a tie inside the top k or at its edge: order is not defined
                continue
            self._add(f"top:{label}.{p}:{desc}:{k}", text.format(k=k),
                      Spec("top", label, prop=p, desc=desc, limit=k), [list(r) for r in ranked[:k]])

    def _booleans(self, label: str, p: str) -> None:
        w, lp = self.book.words(p), P.plural(label)
        rows = self.s.table(label, p)
        for value, text in ((True, f"Which {lp} are {w}?"), (False, f"Which {lp} are not {w}?")):
            hits = [[d, v] for d, v in rows if v is value]
            if hits and len(hits) <= 60:
                self._add(f"bool:{label}.{p}:{value}", text, Spec("filter", label, prop=p, op="=", value=value), hits)

    def _categories(self, label: str, p: str) -> None:
        rows = [(d, v) for d, v in self.s.table(label, p) if isinstance(v, str) and v]
        freq: dict[str, int] = defaultdict(int)
        for _, v in rows:
            freq[v] += 1
        # a categorical property: few distinct values, shared by several nodes, and readable
        shared = sorted(v for v, n in freq.items() if n >= 2 and is_name(v) and len(v) <= 40)
        if not 2 <= len(freq) <= 60 or not shared:
            return
        w, lp = self.book.words(p), P.plural(label)
        opts = [f"Which {lp} have the {w} {{v}}?", f"List all {lp} whose {w} is {{v}}."]
        picks = self.rng.sample(shared, min(2, len(shared)))
        for j, v in enumerate(picks):
            hits = [[d, v] for d, x in rows if x == v]
            if len(hits) > 60:
                continue
            self._add(f"cat:{label}.{p}:{j}", opts[j].format(v=v),
                      Spec("filter", label, prop=p, op="=", value=v), hits, [Anchor(v, v, label, p)])


@contextmanager
def _skipping(on_error: Callable[[Exception], Any] | None) -> Iterator[None]:
    """Runs the block; an error in it goes to ``on_error`` (the block is skipped), or is raised without one."""
    try:
        yield
    except Exception as err:  # noqa: BLE001 - one item must not stop the job
        if on_error is None:
            raise
        on_error(err)


def select(groups: dict[str, list[Candidate]], quota: int, seed: int = 7) -> list[Candidate]:
    """Up to ``quota`` candidates, round-robin over shapes (shapes and their members in seeded order)."""
    rng = random.Random(seed)
    shapes = sorted(groups)
    rng.shuffle(shapes)
    pools = {s: list(groups[s]) for s in shapes}
    for pool in pools.values():
        rng.shuffle(pool)
    out: list[Candidate] = []
    seen: set[str] = set()
    depth = 0
    while len(out) < quota and any(len(p) > depth for p in pools.values()):
        for s in shapes:
            if depth < len(pools[s]) and len(out) < quota:
                c = pools[s][depth]
                if c.question.casefold() not in seen:
                    seen.add(c.question.casefold())
                    out.append(c)
        depth += 1
    return out
