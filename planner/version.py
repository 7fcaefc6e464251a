"""The compiler's code version: which code built a learned plan.

A learned plan is keyed by the graph's KG version, but the code that compiled it matters as much: after the
reader, generator or template code changes, a plan it verified may no longer be what the code would build
(and may carry a bug fixed since). :func:`compiler_version` is a digest of the planner's modules, the
template code and the Cypher writer helpers, taken over their syntax trees without docstrings, so a comment
or docstring edit keeps the plans while any code change retires their templates (they stay as exemplars until
``kgqa cache purge --stale`` removes them).
"""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

PLAN_FORMAT = 2  # bump when what a stored plan means changes without any code in the digest changing


def _code_files() -> list[Path]:
    from kgqa.cache import templates
    from kgqa.kg import cypher

    here = Path(__file__).resolve().parent
    return sorted(here.glob("*.py")) + [Path(templates.__file__), Path(cypher.__file__)]


def _tree_without_docstrings(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, annotate_fields=False)


@lru_cache(maxsize=1)
def compiler_version() -> str:
    """Returns a 12-hex-digit digest of the compiling code (see the module docstring)."""
    h = hashlib.sha256(f"plan-format-{PLAN_FORMAT}".encode())
    for path in _code_files():
        h.update(path.name.encode())
        try:
            h.update(_tree_without_docstrings(path.read_text(encoding="utf-8")).encode())
        except (OSError, SyntaxError):
            h.update(b"?")
    return h.hexdigest()[:12]


def answer_version(kg_version: str, reader: str = "both") -> str:
    """Returns the answer-cache version of answers from a graph at ``kg_version``: that version and the
    compiling code's (:func:`compiler_version`), with the reader setting where it is not the default, so an
    answer kept in a shared tier (Redis outlives a restart) is not served by a release or a configuration
    whose compiler would answer otherwise."""
    return f"{kg_version}+{compiler_version()}" + ("" if reader == "both" else f"+{reader}")
