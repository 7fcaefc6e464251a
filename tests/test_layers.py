"""The package's import structure: layers import downward only, no cycles, no private names across modules.

Layers, bottom to top: the root package ``kgqa`` (settings, shared types, protocols) <- ``kgqa.kg`` <-
``kgqa.cache`` <- ``kgqa.planner`` <- ``kgqa.autogen`` <- ``kgqa.app``, with ``kgqa.evals`` on top. Every
import counts, also one inside a function: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FOLDERS = {"kgqa": "kgqa", "kg": "kgqa.kg", "cache": "kgqa.cache", "planner": "kgqa.planner",
           "autogen": "kgqa.autogen", "app": "kgqa.app", "evals": "kgqa.evals"}
RANK = {"kgqa": 0, "kgqa.kg": 1, "kgqa.cache": 2, "kgqa.planner": 3, "kgqa.autogen": 4, "kgqa.app": 5,
        "kgqa.evals": 6}


def modules() -> dict[str, Path]:
    """Returns every module of the package by dotted name."""
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def layer(module: str) -> str:
    """Returns the layer a dotted module name belongs to."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and ".".join(parts[:2]) in RANK else "kgqa"


def imports(module: str, path: Path, known: dict[str, Path]) -> list[tuple[str, str, int]]:
    """Returns (imported module, imported name or '', line) for each kgqa import in one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, "", node.lineno) for a in node.names if a.name.split(".")[0] == "kgqa"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != "kgqa":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.append((sub, "", node.lineno) if sub in known else (base, alias.name, node.lineno))
    return out


GRAPH = {m: imports(m, p, modules()) for m, p in modules().items()}


def test_the_layout_is_what_the_test_expects():
    assert {"kgqa.settings", "kgqa.types", "kgqa.kg.db", "kgqa.planner.pipeline", "kgqa.app.cli"} <= set(GRAPH)


def test_no_upward_import():
    upward = [f"{m}:{line} imports {target} ({layer(m)} may not import {layer(target)})"
              for m, targets in GRAPH.items() for target, _, line in targets
              if RANK[layer(target)] > RANK[layer(m)]]
    assert not upward, "\n".join(upward)


def test_no_private_name_across_modules():
    private = [f"{m}:{line} imports {target}.{name}" for m, targets in GRAPH.items()
               for target, name, line in targets if name.startswith("_") and target != m]
    assert not private, "\n".join(private)


def test_no_import_cycle():
    edges = {m: sorted({t for t, _, _ in targets if t in GRAPH and t != m}) for m, targets in GRAPH.items()}
    cycles = strongly_connected(edges)
    assert not cycles, "\n".join(" <-> ".join(sorted(c)) for c in cycles)


def strongly_connected(edges: dict[str, list[str]]) -> list[set[str]]:
    """Returns the strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in edges:
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("source, expected", [
    ({"a": ["b"], "b": ["a"], "c": ["a"]}, [{"a", "b"}]),
    ({"a": ["b"], "b": ["c"], "c": []}, []),
])
def test_the_cycle_finder_finds_cycles(source, expected):
    assert strongly_connected(source) == expected


def test_the_import_reader_sees_lazy_and_relative_imports(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("def f():\n    from kgqa.planner import _hidden\n\nfrom .. import settings\n")
    found = imports("kgqa.kg.mod", path, {"kgqa.settings": path})
    assert ("kgqa.planner", "_hidden", 2) in found and ("kgqa.settings", "", 4) in found


# -- no per-graph code -------------------------------------------------------------------------------
# The synthetic benchmark graph's Wikidata-style predicates (PART_OF, FOLLOWS, ...) are its own names.
DOMAIN_FREE_EXCEPTIONS = {"kgqa.kg.synthetic"}


def bundled_names() -> set[str]:
    """Returns the names that belong to the bundled graphs: their domain names, labels and relationship types."""
    import json

    from kgqa.kg.domains import BUNDLED

    names = set(BUNDLED)
    for name in BUNDLED:
        ann = json.loads((REPO / "kg" / "domains" / f"{name}.json").read_text())
        names |= set(ann["display"]) | set(ann["names"])
        names |= {t.split(":")[1].split(">")[0] for t in ann["words"].values() if t.startswith("rel:")}
        names |= {k.split(" ")[0] for k in ann.get("phrases", {}).get("relationships", {})}
        # property names the annotations speak of (unitPrice, birthYear, released, ...)
        names |= {t.split(".")[1].split("=")[0] for t in ann["words"].values() if "." in t}
    ordinary = {"Person", "City", "Country", "Category", "Order", "name", "title", "city", "country", "category",
                "gender", "region", "phone", "fax", "quantity", "discount", "rating", "roles", "votes", "motivation",
                "portion", "freight", "discontinued", "tagline", "born", "released", "summary"}  # words any graph may use
    return names - ordinary


def test_no_module_names_a_bundled_graph():
    """Outside the bundled graphs' own folder (readers, annotations files, the bundled list), no string in
    the code names a bundled domain, label or relationship type: a user's graph needs no code."""
    import re

    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, bundled_names()))) + r")\b")
    found = []
    for module, path in modules().items():
        if module.startswith(("kgqa.kg.domains", "kgqa.evals")) or module in DOMAIN_FREE_EXCEPTIONS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                hits = sorted(set(pattern.findall(node.value)))
                if hits:
                    found.append(f"{module}:{node.lineno} names {', '.join(hits)}")
    assert not found, "\n".join(found)


def development_names() -> set[str]:
    """Returns the distinctive names of the development graphs (``graphs/`` beside the shared data: the
    gameofthrones, fincen and Spider graphs): labels, relationship types and properties written with an
    underscore, a digit, a lower-to-upper case change or in capitals; empty where the data is not here."""
    import re

    from kgqa.settings import Settings

    root = Settings.from_env().data_dir / "graphs"
    names: set[str] = set()
    for schema in [*root.glob("*/schema.cypher"), *root.glob("*/*/schema.cypher")]:
        text = schema.read_text(encoding="utf-8")
        names |= set(re.findall(r"CREATE (?:NODE|REL) TABLE `?(\w+)`?", text))
        names |= set(re.findall(r"[(,]\s*`?(\w+)`?\s+[A-Z]+[0-9]*\b", text)) - {"FROM", "TO", "PRIMARY"}
    return {n for n in names if "_" in n.strip("_") or re.search(r"[a-z][A-Z]|\d", n) or (n.isupper() and len(n) >= 4)}


def test_no_module_names_a_development_graph():
    """The reader reads any graph's schema: no module of the library (code, docstring or comment) writes a
    distinctive name of a graph it was developed against (``HAS_DST_APID``, ``originator_bank_country``)."""
    import re

    names = development_names()
    if not names:
        pytest.skip("the development graphs are not on this machine")
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names))) + r")\b")
    found = []
    for module, path in modules().items():
        if module.startswith(("kgqa.kg.domains", "kgqa.evals")) or module in DOMAIN_FREE_EXCEPTIONS:
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            hits = sorted(set(pattern.findall(line)))
            if hits:
                found.append(f"{module}:{lineno} names {', '.join(hits)}")
    assert not found, "\n".join(found)
