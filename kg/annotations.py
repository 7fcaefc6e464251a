"""The optional annotations file of a graph: data, not code, that says what the graph alone cannot.

JSON or YAML, every key optional::

    description: Movies and the people who made them.     # the router's description
    display: {Movie: title}                               # label -> property that renders a node
    names: {Person: [name, nickname]}                     # label -> properties the entity index links on
    who: Person                                           # the label a bare "who" asks for
    complete: true                                        # the graph holds every fact of the kinds it records:
                                                          #   a plainly stated question that finds nothing is "none"
    words:                                                # words people use -> schema names
      film: Movie                                         #   a label
      expensive: Product.unitPrice                        #   a property (of a label or a relationship)
      director: rel:DIRECTED>Person                       #   a relationship, implying the far end's label
      women: Laureate.gender=female                       #   a value
      revenue: ORDERS.revenue                             #   a measure (below)
    measures:                                             # computed numbers: Owner.name -> arithmetic over
      ORDERS.revenue: quantity * unitPrice * (1 - discount)   #   that label's or relationship's properties
    phrases:                                              # how questions are phrased (pre-warm synthesis)
      relationships: {"DIRECTED in": {np: "the directors of {x}", q: ["Who directed {x}?"]}}
      attributes: {"Movie.released": ["When was {x} released?"]}

:func:`read_annotations` checks every name against the graph's schema; a problem is an
:class:`AnnotationError` naming the file (and the line, for a file that does not parse).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from kgqa.kg.schema import GraphSchema

FILE_NAME = "annotations.json"
KEYS = ("description", "display", "names", "who", "complete", "words", "phrases", "measures")
_MEASURE_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_]\w*)|\d+(?:\.\d+)?|[-+*/()])")
PHRASE_KEYS = ("relationships", "attributes", "filters", "comparisons", "property_words")
_TARGET = re.compile(r"^(?:rel:(?P<rel>\w+)(?:>(?P<end>\w+))?|(?P<table>\w+)(?:\.(?P<prop>\w+)(?:=(?P<value>.+))?)?)$")


class AnnotationError(ValueError):
    """An annotations file that cannot be used; the message names the file."""


def parse_file(path: Path) -> dict[str, Any]:
    """Returns the file's mapping (JSON for ``.json``, YAML otherwise)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AnnotationError(f"{path}: no such annotations file") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as err:
        raise AnnotationError(f"{path}:{err.lineno}: not JSON ({err.msg})") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise AnnotationError(f"{path}:{mark.line + 1 if mark else 0}: not YAML ({err})") from None
    if not isinstance(data, dict):
        raise AnnotationError(f"{path}: the top level must be a mapping of {', '.join(KEYS)}")
    return data


def read_annotations(path: str | Path, schema: GraphSchema) -> dict[str, Any]:
    """Returns the file's annotations, each name checked against ``schema``."""
    path = Path(path)
    data = parse_file(path)
    problems = [f"unknown key {k!r} (known: {', '.join(KEYS)})" for k in data if k not in KEYS]
    labels, rels = schema.nodes, schema.rels
    props = {lb: {p for p, _ in n.properties} for lb, n in labels.items()}
    props |= {r: {p for p, _ in rel.properties} for r, rel in rels.items()}
    if not isinstance(data.get("description", ""), str):
        problems.append("description must be text")
    for label, prop in (data.get("display") or {}).items():
        if label not in labels or prop not in props[label]:
            problems.append(f"display: {label}.{prop} is not a property of a node label")
    for label, names in (data.get("names") or {}).items():
        if label not in labels or not isinstance(names, list) or any(p not in props[label] for p in names):
            problems.append(f"names: {label}: {names!r} are not properties of that label")
    if not isinstance(data.get("complete", False), bool):
        problems.append("complete must be true or false")
    if data.get("who") is not None and data["who"] not in labels:
        problems.append(f"who: {data['who']!r} is not a node label")
    measures = data.get("measures") or {}
    if not isinstance(measures, dict):
        problems.append("measures must be a mapping of Owner.name -> arithmetic")
        measures = {}
    for key, expr in measures.items():
        why = measure_problem(str(key), str(expr), props)
        if why:
            problems.append(f"measures: {key!r}: {why}")
        else:
            owner, name = str(key).split(".")
            props[owner] = props[owner] | {name}  # words may name the measure
    for word, target in (data.get("words") or {}).items():
        why = target_problem(str(target), labels, rels, props)
        if why:
            problems.append(f"words: {word!r} -> {target!r}: {why}")
    problems += phrase_problems(data.get("phrases") or {}, labels, rels, props)
    if problems:
        raise AnnotationError(f"{path}: " + "; ".join(problems))
    return {k: v for k, v in data.items() if v is not None}


def measure_problem(key: str, expr: str, props: dict[str, set[str]]) -> str | None:
    """Returns why ``key`` (``Owner.name``) and ``expr`` are no measure, or None: the owner is a label or
    relationship type, the name is new, and the arithmetic uses only numbers, + - * / ( ) and the owner's
    properties."""
    owner, _, name = key.partition(".")
    if owner not in props or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return "not Owner.name of a node label or relationship type"
    if name in props[owner]:
        return f"{name} is a property of {owner} already"
    pos, names = 0, []
    while pos < len(expr.rstrip()):
        m = _MEASURE_TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            return f"only numbers, + - * / ( ) and properties of {owner} may appear (at {expr[pos:]!r})"
        if m["name"]:
            names.append(m["name"])
        pos = m.end()
    unknown = [n for n in names if n not in props[owner]]
    if unknown or not names:
        return f"{', '.join(unknown) or 'nothing'}: no property of {owner}"
    return None


def target_problem(target: str, labels, rels, props) -> str | None:
    """Returns why a word's target does not name something in the schema, or None when it does."""
    m = _TARGET.match(target)
    if not m:
        return "not of the form Label, Label.prop, Label.prop=value or rel:TYPE[>Label]"
    if m["rel"]:
        if m["rel"] not in rels:
            return f"no relationship type {m['rel']}"
        return f"no node label {m['end']}" if m["end"] and m["end"] not in labels else None
    if m["table"] not in labels and m["table"] not in rels:
        return f"no label or relationship type {m['table']}"
    return f"no property {m['prop']} of {m['table']}" if m["prop"] and m["prop"] not in props[m["table"]] else None


def phrase_problems(phrases: dict, labels, rels, props) -> list[str]:
    """Returns what in a ``phrases`` section names nothing in the schema."""
    if not isinstance(phrases, dict):
        return ["phrases must be a mapping"]
    out = [f"phrases: unknown key {k!r} (known: {', '.join(PHRASE_KEYS)})" for k in phrases if k not in PHRASE_KEYS]
    for key in phrases.get("relationships") or {}:
        rel, _, direction = str(key).partition(" ")
        if rel not in rels or direction not in ("out", "in"):
            out.append(f"phrases.relationships: {key!r} is not 'TYPE out' or 'TYPE in' of a relationship type")
    for section in ("attributes", "filters", "comparisons"):
        for key in phrases.get(section) or {}:
            label, _, prop = str(key).partition(".")
            if label not in labels or prop not in props[label]:
                out.append(f"phrases.{section}: {key!r} is not Label.property of a node label")
    return out
