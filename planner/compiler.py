"""Grounded Cypher compilation by linking and choosing (the backend adapter's compiler): the facade.

A small model cannot write Cypher, so the compiler never asks it to. The work is done by four modules,
one concept each:

- :mod:`kgqa.planner.lexicon`: what the question's words name in the graph (schema names, values);
- :mod:`kgqa.planner.reader`: reading the question into a frame, by an ordered list of rules;
- :mod:`kgqa.planner.frame`: the frame and the compiled plan (typed objects only);
- :mod:`kgqa.planner.generator`: generating Cypher from the frame along schema paths.

:class:`Compiler` only ties them together for one graph. It stays a class of its own, in a module of its
own, because it is what a domain holds and what the pipeline, linker, router and autogen call: they need
one object per graph with its lexicon, view and chooser, and none of them needs to know how the work is
split. Types and words are imported from :mod:`~kgqa.planner.frame` and :mod:`~kgqa.planner.lexicon`.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import replace

from kgqa.planner.frame import Chooser, Compiled, Frame, Mention
from kgqa.planner.generator import generate
from kgqa.planner.lexicon import Lexicon
from kgqa.planner.reader import read
from kgqa.planner.schema_view import SchemaView


class Compiler:
    """Question (+ linked mentions) -> one Cypher plan over one domain's schema.

    ``chooser`` (the LLM, constrained to a list) breaks ties between schema paths the question's words and
    the exemplars leave open; it may be replaced at any time (``compiler.chooser = ...``).
    """

    def __init__(self, view: SchemaView, chooser: Chooser | None = None):
        self.view = view
        self.lex = Lexicon(view)
        self.chooser = chooser

    def value_mentions(self, question: str) -> list[Mention]:
        """Returns the graph values (and quoted literals) the question names: :meth:`Lexicon.value_mentions`."""
        return self.lex.value_mentions(question)

    def frame(self, question: str, mentions: list[Mention] | None = None) -> Frame:
        """Returns the question read into a frame: :func:`kgqa.planner.reader.read`."""
        return read(question, self.lex, mentions)

    def compile(self, question: str, mentions: list[Mention] | None = None,
                exemplar_rels: dict[str, float] | None = None) -> list[Compiled]:
        """Returns ``[plan]``, the one plan compiled for the question, or ``[]`` when the question names no
        label to ask for. Not ranked candidates: where the schema offers several paths, one is chosen while
        generating, by the question's words, then ``exemplar_rels`` (relationship types of the verified
        plans of similar questions, from the plan cache), then the chooser. ``mentions`` default to
        :meth:`value_mentions`."""
        f = self.frame(question, mentions)
        if f.target is None:
            return []
        f.exemplar_rels = dict(exemplar_rels or {})
        f.linked = [(m.start, m.end) for m in f.anchors]
        return [generate(f, self.view, self.chooser)]

    def folded(self, f: Frame) -> Compiled | None:
        """Returns the plan of ``f`` with its substring conditions written in mixed case made case-insensitive
        ("a tagline containing the word Love" where the data writes "love"), or None when it has none."""
        conds = [replace(c, fold=True) if c.op in ("CONTAINS", "STARTS WITH", "ENDS WITH") and not c.fold
                 and isinstance(c.value, str) and c.value != c.value.lower() else c for c in f.conds]
        if conds == f.conds:
            return None
        again = deepcopy(f)
        again.conds, again.notes = deepcopy(conds), []
        return generate(again, self.view, self.chooser)

    def unexplained(self, f: Frame) -> list[str]:
        """Returns the content words the frame leaves unexplained: :meth:`Lexicon.unexplained`."""
        return self.lex.unexplained(f)

    def unused(self, f: Frame, cypher: str) -> list[str]:
        """Returns the question's schema words whose target ``cypher`` does not use: :meth:`Lexicon.unused`."""
        return self.lex.unused(f, cypher)
