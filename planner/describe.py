"""Descriptive answers: "Who is X?", "Tell me about X" answered from X's bounded subgraph (issue 19).

1. **Detection** (:func:`target`): the question asks about one entity as a whole ("Who is/was X",
   "Tell me about X", "What do you know about X", "Describe X", "What is X") and, once the pattern is
   removed, what is left is one linked entity, with at most articles and words naming its label
   ("the supplier Exotic Liquids").
2. **Retrieval**: X's neighbourhood, depth <= 2, K_degree edges per hop, the most important
   neighbours first (:func:`kgqa.kg.neighbourhood.entity_neighbourhood`).
3. **Verbalizer** (:func:`verbalize`): a deterministic paragraph in the schema's own names (labels,
   properties and relationship types humanized), the prompt's fact lines, and evidence rows.
4. **Faithful rewrite**: an LLM may turn the facts into prose (:func:`rewrite`; the batch path shares
   prompt prefixes, :mod:`kgqa.planner.batch`). On the embedded model a grammar (:func:`prose_grammar`)
   lets it write capitalised words, numbers and dates only by copying a value of the question's own
   subgraph. :func:`problems` then checks the prose: every name, number and date must occur in the
   subgraph, and each number or date must stand in one fact with the name nearest to it in its sentence
   (so "Physics in 1911" fails where the graph says Chemistry 1911). Only a rewrite with no problem
   that names the entity and one of its neighbours replaces the verbalized paragraph.

Nothing here names a graph: every word comes from the schema or the data.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from kgqa.kg.cypher import ident
from kgqa.kg.neighbourhood import Neighbourhood, entity_neighbourhood
from kgqa.kg.operators import humanize
from kgqa.planner.lexicon import plural
from kgqa.planner.summarizer import join_words
from kgqa.text import STOPWORDS

INTENT = re.compile(
    r"^\s*(?:(?:can|could|would)\s+you\s+|please\s+)?"
    r"(?:who\s+(?:is|was|are|were)|who's|what\s+(?:is|was|are|were)|what's|"
    r"tell\s+me\s+(?:(?:something|more|everything|a\s+bit)\s+)?about|"
    r"what\s+do\s+(?:you|we)\s+know\s+about|what\s+can\s+you\s+tell\s+me\s+about|"
    r"describe|give\s+me\s+(?:an?\s+)?(?:overview|summary|description|profile)\s+of|"
    r"(?:an?\s+)?(?:overview|summary|description|profile)\s+of)\s+(?P<rest>.+?)[\s?.!]*$", re.I)
FILLER = frozenset({"the", "a", "an", "called", "named", ",", "-", "please"})
SYSTEM = ("Answer the question with a short paragraph about the entity it asks for, using only the facts "
          "below. Copy names, numbers and dates exactly as the facts write them.\n\nFacts:\n")
MAX_TOKENS = 96  # generated tokens per rewrite
MAX_ITEMS = 10  # neighbours listed per relationship in the paragraph
MAX_SECOND = 2  # hop-1 neighbours whose own neighbours the paragraph mentions
MAX_VALUE = 100  # characters of a property value in the paragraph
MAX_FACT = 200  # characters per prompt fact line
SHORT = 40  # longest value stated inside a listed neighbour
NEIGHBOUR_PROPS = 3  # properties a neighbour's compact prompt line states (the entity's: all)
PROMPT_CHARS = 1200  # one entity's compact prompt facts by default (Settings.describe_prompt_chars)
OPENERS = frozenset(("he she it they his her its their this these there in as with also after before both "
                     "and a an the together during from on at for of to by was is has had which who while "
                     "among including later its").split()) | STOPWORDS
CAPITALISED = ("The He She It They His Her Its Their This In As With Also After Before Both Together During "
               "From Among Including Later While").split()


def fmt(value: Any) -> str:
    """A property value as the answer writes it (floats trimmed, lists joined)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if abs(value) < 1e15 else str(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value)
    return str(value)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


# -- detection -------------------------------------------------------------------------------------

def intent(question: str) -> tuple[int, int] | None:
    """The (start, end) span of what a describe question asks about, or None when it asks something else."""
    m = INTENT.match(question)
    return (m.start("rest"), m.end("rest")) if m else None


def label_words(spec, label: str) -> set[str]:
    """Words that name ``label``: its humanized name and plural, and the spec's words mapped to it."""
    base = humanize(label)
    words = {base, plural(base), *base.split()}
    words |= {w.lower() for w, target in spec.words.items() if target == label}
    return words


def target(question: str, mentions: list, spec) -> Any | None:
    """The one linked mention a describe question asks about (a :class:`kgqa.planner.frame.Mention`), or None:
    outside the mention, the rest may hold only articles and words naming the mention's label."""
    span = intent(question)
    if span is None:
        return None
    start, end = span
    inside = [m for m in mentions if m.label and m.start >= start and m.end <= end]
    if len(inside) != 1:
        return None
    m = inside[0]
    if any(o is not m and o.start < end and o.end > start for o in mentions):
        return None  # a second value (a quoted literal, a number) in the asked part: not a description
    left = (question[start:m.start] + " " + question[m.end:end]).lower()
    allowed = FILLER | label_words(spec, m.label)
    rest = re.sub(r"[,;:'\"()-]", " ", left)
    for phrase in sorted(allowed, key=len, reverse=True):
        rest = re.sub(rf"(?<!\w){re.escape(phrase)}(?!\w)", " ", rest)
    return m if not rest.split() else None


def node_key(graph, spec, mention) -> Any | None:
    """The primary key of the node a mention names (it may name it by another property)."""
    key = spec.primary_keys.get(mention.label)
    if key is None:
        return None
    if mention.prop == key:
        return mention.value
    res = graph.query(f"MATCH (n:{ident(mention.label)}) WHERE n.{ident(mention.prop)} = $v RETURN n.{ident(key)} LIMIT 1",
                      {"v": mention.value}, row_cap=1)
    return res.rows[0][0] if res.rows else None


# -- verbalizer ------------------------------------------------------------------------------------

@dataclass
class Description:
    """What the verbalizer returns: the paragraph, the facts it rests on and the evidence rows."""

    name: str  # the entity's display name
    text: str  # the deterministic paragraph
    facts: list[str]  # one line per node and edge of the subgraph (the LLM's prompt)
    contexts: list[str]  # what a number must share with its name (:func:`contexts`)
    own: list[str]  # the contexts of the entity and its edges (pronoun sentences check these)
    values: list[str]  # every name and value of the subgraph, as written
    neighbours: list[str]  # names of the hop-1 neighbours, most important first
    columns: list[str] = field(default_factory=lambda: ["subject", "relationship", "object", "details"])
    rows: list[list[Any]] = field(default_factory=list)
    subgraph: dict = field(default_factory=dict)  # nodes (display name first, ``_name``, ``_text``) and edges


def _identifier(prop: str) -> bool:
    return humanize(prop).split()[-1:] in (["id"], ["key"], ["code"]) or prop.lower() in ("id", "key")


_EMPTY = frozenset({"", "null", "none", "n/a", "nan"})


def _stated(k: str, v: Any, longest: int) -> bool:
    return not k.startswith("_") and not _identifier(k) and v not in (None, [], "") \
        and fmt(v).strip().lower() not in _EMPTY and len(fmt(v)) <= longest


def _shown_props(spec, label: str, props: dict[str, Any], longest: int = 160) -> list[tuple[str, str]]:
    """(property words, value) of a node worth stating: not its name, not identifiers or empty markers, no longer
    than ``longest`` characters, and no value that another states already (a year inside a date)."""
    show = spec.display_prop(label)
    items = [(k, fmt(v)) for k, v in props.items() if k != show and _stated(k, v, longest)]
    texts = [v for _, v in items]
    return [(humanize(k), v) for k, v in items
            if not any(v != o and re.search(rf"(?<![\d]){re.escape(v)}(?![\d])", o) for o in texts)]


def _details(pairs: list[tuple[str, str]], limit: int = MAX_VALUE) -> str:
    return "; ".join(f"{k} {_clip(v, limit)}" for k, v in pairs)


def verbalize(hood: Neighbourhood, spec) -> Description:
    """The paragraph, fact lines, values and evidence rows of a neighbourhood, in the schema's own names."""
    sub = hood.subgraph
    names: dict[str, str] = {}
    for nid, props in sub.nodes.items():
        label = props["_label"]
        value = props.get(spec.display_prop(label))
        names[nid] = fmt(value) if value not in (None, "") else nid.split(":", 1)[1]
    facts, rows, values = [], [], []
    nodes_out: dict[str, dict] = {}
    for nid, props in sub.nodes.items():
        label = props["_label"]
        shown = _shown_props(spec, label, props)
        line = _clip(f"{humanize(label)} {names[nid]}" + (f": {_details(shown)}" if shown else ""), MAX_FACT)
        facts.append(line)
        values.append(names[nid])
        values += [v for _, v in shown]
        for k, v in props.items():
            if isinstance(v, list):
                values += [fmt(x) for x in v]
        show = spec.display_prop(label)
        compact = shown if nid == hood.centre else _shown_props(spec, label, props, SHORT)[:NEIGHBOUR_PROPS]
        nodes_out[nid] = {"_label": label, **({show: props[show]} if show in props else {}),
                          **{k: v for k, v in props.items() if k not in ("_label", show)},
                          "_name": names[nid], "_text": line,
                          "_fact": _clip(f"{names[nid]} ({humanize(label)})"
                                         + (f": {_details(compact, MAX_VALUE if nid == hood.centre else SHORT)}"
                                            if compact else ""), MAX_FACT)}
    centre = hood.centre
    name = names[centre]
    for k, v in _shown_props(spec, sub.nodes[centre]["_label"], sub.nodes[centre]):
        rows.append([name, k, v, None])
    edges_out = []
    for e in sub.edges:
        pairs = [(humanize(k), fmt(v)) for k, v in e["props"].items() if _stated(k, v, 160)]
        for _, v in pairs:
            values.append(v)
        for v in e["props"].values():
            if isinstance(v, list):
                values += [fmt(x) for x in v]
        line = _clip(f"{names[e['src']]} {humanize(e['rel'])} {names[e['dst']]}"
                     + (f" ({_details(pairs)})" if pairs else ""), MAX_FACT)
        facts.append(line)
        rows.append([names[e["src"]], e["rel"], names[e["dst"]], _details(pairs) or None])
        short = [(k, v) for k, v in pairs if len(v) <= SHORT]
        edges_out.append({**e, "_text": line, "_fact": _clip(f"{humanize(e['rel'])} {names[e['dst']]}"
                                                               + (f" ({_details(short)})" if short else ""), MAX_FACT)})
    neighbours = [n for n in sub.nodes if hood.hops.get(n) == 1]
    text = _paragraph(hood, spec, names)
    values = list(dict.fromkeys(v for v in values if v.strip()))
    stored = {"nodes": nodes_out, "edges": edges_out}
    ctx, own = contexts(stored)
    return Description(name, text, select(stored).lines(), ctx, own, values, [names[n] for n in neighbours],
                       rows=rows, subgraph=stored)


def _item(hood: Neighbourhood, spec, names: dict[str, str], edge: dict, other: str, props_shown: int) -> str:
    props = hood.subgraph.nodes[other]
    pairs = _shown_props(spec, props["_label"], props, SHORT)[:props_shown] + [
        (humanize(k), fmt(v)) for k, v in edge["props"].items()
        if _stated(k, v, SHORT) and fmt(v) not in (names[other], names[edge["src"]], names[edge["dst"]])]
    return names[other] + (f" ({_details(pairs)})" if pairs else "")


def _sentences_about(hood: Neighbourhood, spec, names: dict[str, str], nid: str, hop: int,
                     limit: int, props_shown: int) -> list[str]:
    """One sentence per (relationship, direction, other label) of ``nid``'s edges to nodes at ``hop``."""
    groups: dict[tuple[str, str, str], list[tuple[dict, str]]] = {}
    for e in hood.subgraph.edges:
        if e["src"] == nid and hood.hops.get(e["dst"]) == hop:
            other, d = e["dst"], "out"
        elif e["dst"] == nid and hood.hops.get(e["src"]) == hop:
            other, d = e["src"], "in"
        else:
            continue
        groups.setdefault((e["rel"], d, hood.subgraph.nodes[other]["_label"]), []).append((e, other))
    out = []
    for (rel, d, label), members in groups.items():
        items = [_item(hood, spec, names, e, o, props_shown) for e, o in members[:limit]]
        more = ", among others" if len(members) > limit else ""
        kind = humanize(label) if len(members) == 1 else plural(humanize(label))
        if d == "out":
            out.append(f"{names[nid]} {humanize(rel)} the {kind} {join_words(items)}{more}.")
        else:
            out.append(f"{names[nid]} has the {kind} that {humanize(rel)} it: {join_words(items)}{more}.")
    return out


def _paragraph(hood: Neighbourhood, spec, names: dict[str, str]) -> str:
    centre = hood.centre
    props = hood.subgraph.nodes[centre]
    kind = humanize(props["_label"])
    article = "an" if kind[:1] in "aeiou" else "a"
    shown = _shown_props(spec, props["_label"], props, MAX_VALUE)
    parts = [f"{names[centre]} is {article} {kind}" + (f" ({_details(shown)})." if shown else ".")]
    parts += _sentences_about(hood, spec, names, centre, 1, MAX_ITEMS, 2)
    firsts = [n for n in hood.subgraph.nodes if hood.hops.get(n) == 1]
    firsts.sort(key=lambda n: -hood.importance.get(n, 0.0))
    said = 0
    for nid in firsts:
        if said >= MAX_SECOND:
            break
        more = _sentences_about(hood, spec, names, nid, 2, 4, 0)
        if more:
            parts += more
            said += 1
    return " ".join(parts)


def describe(graph, spec, mention, *, depth: int = 2, k_depth: int = 3, k_degree: int = 30,
             ranking: str = "degree") -> tuple[Neighbourhood, Description] | None:
    """Returns the mentioned entity's neighbourhood and its verbalized description, or None (no such node)."""
    key = node_key(graph, spec, mention)
    if key is None:
        return None
    hood = entity_neighbourhood(graph, mention.label, key, depth=depth, k_depth=k_depth, k_degree=k_degree,
                                ranking=ranking)
    return (hood, verbalize(hood, spec)) if hood is not None else None


def contexts(subgraph: dict) -> tuple[list[str], list[str]]:
    """(contexts, own contexts) of a description's subgraph: each node's fact line, and each edge's line joined
    with its two nodes' lines (a value stated in an item, "physics-1903 (category Physics; portion 1/4)", may come
    from the edge or from either end); own = the centre's line and the contexts of its edges."""
    nodes, edges = subgraph.get("nodes") or {}, subgraph.get("edges") or []
    centre = next(iter(nodes), "")
    line = {nid: n.get("_text", "") for nid, n in nodes.items()}
    out = [t for t in line.values() if t]
    own = [line.get(centre, "")]
    for e in edges:
        ctx = "\n".join(t for t in (e.get("_text", ""), line.get(e["src"], ""), line.get(e["dst"], "")) if t)
        out.append(ctx)
        if centre in (e["src"], e["dst"]):
            own.append(ctx)
    return out, [t for t in own if t]


def _units(subgraph: dict) -> list[tuple[list[str], list[int]]]:
    """A subgraph's facts as units, most important first: (node ids, edge indices) -- the centre alone, then
    each of its edges with the neighbour it reaches, then the farther edges with any node not yet stated. The
    neighbourhood stores nodes and edges in rank order (hop, then degree or PageRank)."""
    nodes, edges = subgraph.get("nodes") or {}, subgraph.get("edges") or []
    centre = next(iter(nodes), "")
    out: list[tuple[list[str], list[int]]] = [([centre], [])] if centre else []
    seen = {centre}
    near = [i for i, e in enumerate(edges) if centre in (e["src"], e["dst"])]
    for i in near + [i for i, e in enumerate(edges) if centre not in (e["src"], e["dst"])]:
        new = [n for n in (edges[i]["src"], edges[i]["dst"]) if n in nodes and n not in seen]
        seen.update(new)
        out.append((new, [i]))
    out += [([n], []) for n in nodes if n not in seen]
    return out


def _edge_key(e: dict) -> tuple[str, str, str]:
    return e["src"], e["rel"], e["dst"]


@dataclass
class Facts:
    """The compact prompt facts of one or more subgraphs: the selected nodes and edges, in rank order.

    :meth:`lines` writes each node once (``name (label): property value; ...``) followed by its outgoing edges,
    one per line, without repeating its name (``  - acted in Frost/Nixon (roles Bob Zelnick)``). The union of
    several members' facts (:meth:`union`, SubGCache's representative subgraph) states a shared node or edge
    once."""

    nodes: dict[str, dict] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], dict] = field(default_factory=dict)

    def union(self, other: Facts) -> Facts:
        """Returns a new Facts with ``other``'s nodes and edges added after this one's (shared ones once)."""
        return Facts({**self.nodes, **{k: v for k, v in other.nodes.items() if k not in self.nodes}},
                     {**self.edges, **{k: v for k, v in other.edges.items() if k not in self.edges}})

    def lines(self) -> list[str]:
        """The prompt's fact lines (see the class docstring)."""
        out_edges: dict[str, list[dict]] = {}
        for (src, _, _), e in self.edges.items():
            out_edges.setdefault(src, []).append(e)
        out = []
        for nid, node in self.nodes.items():
            out.append(_node_fact(node))
            out += [f"  - {_edge_fact(e, self.nodes)}" for e in out_edges.get(nid, [])]
        return out

    def __len__(self) -> int:
        return len(self.nodes) + len(self.edges)


def _node_fact(node: dict) -> str:
    return node.get("_fact") or node.get("_text", "")


def _edge_fact(edge: dict, nodes: dict[str, dict]) -> str:
    if edge.get("_fact"):
        return edge["_fact"]
    dst = nodes.get(edge["dst"], {}).get("_name") or edge["dst"].split(":", 1)[-1]
    return f"{humanize(edge['rel'])} {dst}"


def select(subgraph: dict, chars: int = PROMPT_CHARS) -> Facts:
    """Returns the compact facts of a description's subgraph within ``chars`` characters of fact lines, the most
    important first (:func:`_units`); the entity itself is always stated. ``chars`` <= 0: no budget."""
    nodes, edges = subgraph.get("nodes") or {}, subgraph.get("edges") or []
    out = Facts()
    used = 0
    for ids, idx in _units(subgraph):
        ends = [n for i in idx for n in (edges[i]["src"], edges[i]["dst"])]
        ids = [n for n in dict.fromkeys([*ids, *ends]) if n in nodes and n not in out.nodes]  # both ends stated
        cost = sum(len(_node_fact(nodes[n])) + 1 for n in ids) + sum(len(_edge_fact(edges[i], nodes)) + 5 for i in idx)
        if out.nodes and chars > 0 and used + cost > chars:
            continue  # a smaller unit further down may still fit
        used += cost
        for n in ids:
            out.nodes[n] = nodes[n]
        for i in idx:
            out.edges[_edge_key(edges[i])] = edges[i]
    return out


def from_subgraph(subgraph: dict, chars: int = PROMPT_CHARS, selected: Facts | None = None) -> Description:
    """The description's checkable parts (name, compact facts within ``chars``, contexts, values, neighbours) from
    its stored subgraph: the batch path reads it from a result, possibly a cached one. The centre is the first
    node. ``selected``: the facts :func:`select` already chose from it (not chosen again)."""
    nodes, edges = subgraph.get("nodes") or {}, subgraph.get("edges") or []
    centre = next(iter(nodes), "")
    name = str(nodes.get(centre, {}).get("_name", ""))
    facts = (selected if selected is not None else select(subgraph, chars)).lines()
    hop1 = [e["dst"] if e["src"] == centre else e["src"] for e in edges if centre in (e["src"], e["dst"])]
    values: list[str] = []
    for props in [*nodes.values(), *(e.get("props") or {} for e in edges)]:
        for k, v in props.items():
            if (k.startswith("_") and k != "_name") or v in (None, "", []):
                continue
            values += [fmt(x) for x in v] if isinstance(v, list) else [fmt(v)]
    ctx, own = contexts(subgraph)
    return Description(name, "", [f for f in facts if f], ctx, own, list(dict.fromkeys(v for v in values if v.strip())),
                       list(dict.fromkeys(str(nodes[n].get("_name", "")) for n in hop1 if n in nodes)),
                       subgraph=subgraph)


# -- the LLM rewrite and its checks ----------------------------------------------------------------

def messages(facts: list[str], question: str) -> list[dict[str, str]]:
    """The rewrite prompt: instructions and facts as the system turn (a shareable prefix), the question last."""
    return [{"role": "system", "content": SYSTEM + "\n".join(f"- {f}" for f in facts)},
            {"role": "user", "content": question}]


def prose_grammar(values: list[str]) -> str:
    """GBNF for prose whose capitalised words, numbers and dates are copied from ``values`` only: free words
    are lowercase letters; a sentence may open with a value or a common capitalised function word."""
    vals = [v for v in dict.fromkeys(values) if v and len(v) <= 120 and not re.fullmatch(r"[a-z]+", v)]
    alts = " | ".join(json.dumps(v, ensure_ascii=False) for v in vals) or '"—"'
    caps = " | ".join(json.dumps(c) for c in CAPITALISED)
    return ("root ::= sentence (\" \" sentence)*\n"
            "sentence ::= head (sep part)* \".\"\n"
            "head ::= value | cap\n"
            "part ::= value | word\n"
            "sep ::= \" \" | \", \" | \"; \" | \": \"\n"
            "word ::= [a-z] [a-z]* (\"-\" [a-z]+)?\n"
            f"cap ::= {caps}\n"
            f"value ::= {alts}\n")


_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(]|\s*$)")
_NUMBER = re.compile(r"(?<![\w./-])\d+(?:[.,/:-]\d+)*(?![\w/-])")
_CAPITAL = re.compile(r"(?<![\w'-])[A-Z][\w'’.-]*")


def _has(text: str, value: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(value.lower())}(?![\w])", text) is not None


def _numeric(value: str) -> bool:
    return re.fullmatch(r"[\d.,/:-]+", value) is not None and any(c.isdigit() for c in value)


def problems(text: str, contexts: list[str], values: list[str], own: list[str]) -> list[str]:
    """What in ``text`` the subgraph does not support (empty: faithful). Every value, capitalised word and number
    must occur in the facts; each number or date must share one fact with the name nearest to it in its
    sentence (a sentence without a name: with a fact about the entity or its direct neighbours)."""
    lines = [f.lower() for f in contexts]
    evidence = "\n".join(lines)
    own_text = "\n".join(f.lower() for f in own)
    low = text.lower()
    found: list[tuple[int, int, str, bool]] = []  # (start, end, text, numeric)
    taken = [False] * len(text)
    for v in sorted({v for v in values if v.strip()}, key=len, reverse=True):
        for m in re.finditer(rf"(?<![\w]){re.escape(v.lower())}(?![\w])", low):
            if not any(taken[m.start():m.end()]):
                found.append((m.start(), m.end(), text[m.start():m.end()], _numeric(v)))
                for i in range(m.start(), m.end()):
                    taken[i] = True
    masked = "".join(" " if t else c for c, t in zip(text, taken))
    out = []
    for m in _NUMBER.finditer(masked):
        if not _has(evidence, m.group(0)):
            out.append(f"number {m.group(0)!r} is not in the subgraph")
        else:
            found.append((m.start(), m.end(), m.group(0), True))
    for m in _CAPITAL.finditer(masked):
        word = m.group(0).rstrip(".")
        if word.lower() in OPENERS or word.lower() in evidence:
            if word.lower() not in OPENERS:
                found.append((m.start(), m.start() + len(word), word, False))
            continue
        out.append(f"name {word!r} is not in the subgraph")
    ends = [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    found.sort()
    for start, end, num, numeric in found:
        if not numeric:
            continue
        lo = max([e for e in ends if e <= start], default=0)
        hi = min(e for e in ends if e >= end)
        names = [f for f in found if not f[3] and lo <= f[0] and f[1] <= hi]
        if not names:
            if not _has(own_text, num):
                out.append(f"{num!r} is in no fact about the entity")
            continue
        before = [f for f in names if f[1] <= start]
        near = before[-1] if before else min(names, key=lambda f: f[0] - end)
        if not any(_has(line, num) and _has(line, near[2]) for line in lines):
            out.append(f"{num!r} is in no fact with {near[2]!r}")
    return out


def _loops(text: str) -> bool:
    words = text.lower().split()
    grams = [" ".join(words[i:i + 4]) for i in range(len(words) - 3)]
    return len(grams) != len(set(grams))


def acceptable(text: str, desc: Description) -> bool:
    """Keep a rewrite only if it is faithful (:func:`problems`), names the entity and one of its neighbours,
    and does not loop."""
    text = text.strip()
    if not text or _loops(text) or not _has(text.lower(), desc.name):
        return False
    if desc.neighbours and not any(_has(text.lower(), n) for n in desc.neighbours if n and n != desc.name):
        return False
    return not problems(text, desc.contexts, desc.values, desc.own)


@dataclass
class Rewrite:
    """One LLM rewrite: its text, whether it was kept, and what it cost."""

    text: str
    kept: bool
    ms: float
    error: str | None = None


def rewrite(llm, desc: Description, question: str, *, max_tokens: int = MAX_TOKENS) -> Rewrite:
    """The LLM's prose from the description's own facts (grammar-bound on the embedded model), kept only when
    :func:`acceptable`."""
    t0 = time.perf_counter()
    grammar = prose_grammar(desc.values) if hasattr(llm, "eval_prefix") else None
    try:
        out = llm.complete(messages(desc.facts, question), max_tokens=max_tokens, grammar=grammar, stop=["\n\n"])
    except Exception as err:  # noqa: BLE001 - the verbalized paragraph stands
        return Rewrite("", False, (time.perf_counter() - t0) * 1000, f"{type(err).__name__}: {err}")
    text = " ".join(out.text.split())
    kept = acceptable(text, desc)
    return Rewrite(text, kept, (time.perf_counter() - t0) * 1000)


# -- the pipeline's describe path ------------------------------------------------------------------

def answer(question: str, graph, spec, mention, result, settings, llm=None) -> bool:
    """Fills ``result`` with the description of ``mention``'s entity (evidence rows, the subgraph to draw, the
    verbalized paragraph, or the LLM's rewrite when ``llm`` is given and it is :func:`acceptable`). Returns
    False, leaving ``result`` untouched, when the entity has no node to describe."""
    found = describe(graph, spec, mention, depth=settings.describe_depth, k_depth=settings.k_depth,
                     k_degree=settings.k_degree, ranking=settings.vector_memory_ranking)
    if found is None:
        return False
    hood, desc = found
    desc.facts = select(desc.subgraph, settings.describe_prompt_chars).lines()
    result.status, result.answer, result.evidence = "answered", desc.text, "subgraph"
    result.columns, result.rows, result.subgraph = desc.columns, desc.rows, desc.subgraph
    result.operators = ["describe"]
    info: dict[str, Any] = {"entity": desc.name, "label": mention.label, "nodes": len(hood.subgraph.nodes),
                            "edges": len(hood.subgraph.edges), "depth": settings.describe_depth}
    if llm is not None:
        out = rewrite(llm, desc, question)
        info["rewrite"] = {"text": out.text, "kept": out.kept, "ms": round(out.ms, 1),
                           **({"error": out.error} if out.error else {})}
        if out.kept:
            result.answer = out.text
    result.cache["describe"] = info
    return True
