"""A graph's :class:`~kgqa.kg.spec.DomainSpec` derived from its catalogue and a few statistics of its data.

:func:`derive_spec`: primary keys from the catalogue; the display property of each label (a name- or
title-like string with a high distinct ratio, else the key); the name-like properties the entity index
links against (short strings, mostly distinct); which label a bare "who" asks for (a person-like label, if
there is one); and a description for the router (labels, relationship types, property names, a few sampled
values); the properties a text key is composed of, when there is no name to show. Nothing here knows any particular graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kgqa.kg.cypher import ident
from kgqa.kg.db import Graph
from kgqa.kg.schema import GraphSchema
from kgqa.kg.spec import DomainSpec
from kgqa.text import name_words

NAME_WORDS = ("name", "title")
PERSON_WORDS = frozenset("""person people human individual user author actor actress laureate customer employee
member student player artist writer creator contact patient client musician scientist""".split())
PERSON_PROPS = frozenset("""born birth birthdate birthday gender sex firstname lastname givenname familyname
surname""".split())
DISTINCT_DISPLAY = 0.9  # distinct/non-null ratio (rounded to 2 places) a display property needs
DISTINCT_NAME = 0.3  # ... and a name-like property the entity index links against
MAX_NAME_CHARS = 60  # average length of a name-like property


@dataclass
class PropStats:
    """Statistics of one string property: non-null count, distinct count, mean length."""

    count: int
    distinct: int
    mean_chars: float

    @property
    def distinct_ratio(self) -> float:
        return round(self.distinct / self.count, 2) if self.count else 0.0


def string_stats(graph: Graph, label: str, props: list[str]) -> dict[str, PropStats]:
    """Returns the statistics of each STRING property of ``label`` (one query)."""
    if not props:
        return {}
    parts = []
    for i, p in enumerate(props):
        v = f"n.{ident(p)}"
        parts.append(f"count({v}) AS c{i}, count(DISTINCT {v}) AS d{i}, avg(size({v})) AS m{i}")
    row = graph.query(f"MATCH (n:{ident(label)}) RETURN {', '.join(parts)}", row_cap=1).rows[0]
    return {p: PropStats(int(row[3 * i] or 0), int(row[3 * i + 1] or 0), float(row[3 * i + 2] or 0.0))
            for i, p in enumerate(props)}


def is_name_like(prop: str) -> bool:
    """Whether a property's name says it names its node (``name``, ``productName``, ``title``, ``full_name``)."""
    words = name_words(prop)
    return bool(words) and words[-1] in NAME_WORDS


@lru_cache(maxsize=1)
def _inflect():
    import inflect

    return inflect.engine()


@lru_cache(maxsize=4096)
def singular_words(name: str) -> tuple[str, ...]:
    """Returns a name's words, each in the singular (``Herbs`` -> ("herb",))."""
    return tuple(_inflect().singular_noun(w) or w for w in name_words(name))


def choose_display(pk: str, strings: dict[str, PropStats], label: str = "") -> str:
    """Returns the display property: the first name-like string (or one named after its label in any number:
    ``city.City``, ``Herbs.Herb``) with the highest (rounded) distinct ratio of at least DISTINCT_DISPLAY, in
    column order; else the primary key."""
    own = singular_words(label)
    ranked = [(s.distinct_ratio, -i, p) for i, (p, s) in enumerate(strings.items())
              if (is_name_like(p) or (own and singular_words(p) == own)) and s.distinct_ratio >= DISTINCT_DISPLAY]
    return max(ranked)[2] if ranked else pk


def choose_names(display: str, pk: str, strings: dict[str, PropStats]) -> list[str]:
    """Returns the properties the entity index links against: the display property and every other
    name-like, short, mostly distinct string."""
    out = [display] if display in strings else []
    out += [p for p, s in strings.items() if p != display and is_name_like(p)
            and s.distinct_ratio >= DISTINCT_NAME and s.mean_chars <= MAX_NAME_CHARS]
    if not out and pk in strings:
        out.append(pk)
    return out


def slug(value: object) -> str:
    """Returns ``value`` as lower-case words joined by hyphens ("Physiology or Medicine" ->
    "physiology-or-medicine")."""
    return "-".join(re.findall(r"[^\W_]+", str(value).lower()))


def key_parts(graph: Graph, label: str, pk: str, props: list[str], sample: int = 50) -> list[str]:
    """Returns the properties a text key is composed of (a prize keyed "physics-1903" by its category and
    year), in key order: each one's value, as words, is part of the key on every sampled node. A key so
    composed says less than its parts, which are shown beside it."""
    others = [p for p in props if p != pk]
    if not others:
        return []
    cols = ", ".join(f"n.{ident(p)}" for p in [pk, *others])
    rows = graph.query(f"MATCH (n:{ident(label)}) RETURN {cols} LIMIT {sample}", row_cap=sample).rows
    keys = [slug(r[0]) for r in rows]
    found = []
    for i, prop in enumerate(others, start=1):
        values = [(k, slug(r[i])) for k, r in zip(keys, rows) if r[i] is not None and not isinstance(r[i], bool)]
        if len(values) >= max(3, len(rows) // 2) and all(
                len(x) >= 3 and re.search(rf"(?:^|-){re.escape(x)}(?:-|$)", k) for k, x in values):
            found.append((min(k.find(x) for k, x in values), prop))
    return [p for _, p in sorted(found)]


def person_label(schema: GraphSchema) -> str | None:
    """Returns the label a bare "who" asks for: the one whose name is a person noun, or failing that the one
    with the most person-like properties (birth, gender, first/last name); None when no label looks so."""
    def evidence(label: str) -> tuple[int, int, int]:
        node = schema.nodes[label]
        named = int(any(w in PERSON_WORDS for w in name_words(label)))
        props = sum("".join(name_words(p)) in PERSON_PROPS for p, _ in node.properties)
        return named, props, node.count
    scored = sorted(((evidence(lb), lb) for lb in schema.nodes), reverse=True)
    return scored[0][1] if scored and (scored[0][0][0] or scored[0][0][1] >= 2) else None


def describe(schema: GraphSchema, display: dict[str, str]) -> str:
    """Returns the router's description: labels with their properties and a few values, relationships."""
    parts = []
    for label, node in schema.nodes.items():
        props = ", ".join(" ".join(name_words(p)) for p, _ in node.properties)
        eg = node.samples.get(display.get(label, ""), [])[:3]
        parts.append(f"{' '.join(name_words(label))} ({props})" + (f" e.g. {', '.join(map(str, eg))}" if eg else ""))
    rels = [f"{' '.join(name_words(src))} {' '.join(name_words(r.name))} {' '.join(name_words(dst))}"
            for r in schema.rels.values() for src, dst in r.pairs]
    return "; ".join(parts) + ("; relationships: " + "; ".join(rels) if rels else "") + "."


def derive_spec(graph: Graph, name: str | None = None) -> DomainSpec:
    """Returns the spec of ``graph`` derived from its catalogue and data alone (no annotations)."""
    schema = GraphSchema.from_graph(graph, samples=3)
    keys, display, names, parts = {}, {}, {}, {}
    for label, node in schema.nodes.items():
        keys[label] = node.primary_key
        strings = string_stats(graph, label, [p for p, t in node.properties if t == "STRING"])
        display[label] = choose_display(node.primary_key, strings, label)
        names[label] = choose_names(display[label], node.primary_key, strings)
        if display[label] == node.primary_key and node.primary_key in strings:
            found = key_parts(graph, label, node.primary_key, [p for p, _ in node.properties])
            if found:
                parts[label] = found
    return DomainSpec(name=name or graph.domain, description=describe(schema, display), primary_keys=keys,
                      display=display, name_props=names, who=person_label(schema), key_parts=parts)
