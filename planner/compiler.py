"""Grounded Cypher compilation by linking and choosing (the backend adapter's compiler): the facade.

A small model cannot write Cypher, so the compiler never asks it to. Two readers do the work, each with its
own modules, until the first goes:

- the grammar reader (:mod:`kgqa.planner.reader.read` and its components) reads the question into a query tree
  (:mod:`kgqa.planner.query`), whose Cypher :func:`~kgqa.planner.query.to_cypher` writes and whose rows
  :func:`~kgqa.planner.outline.of_query` outlines; it reads every graph without annotations;
- the rules reader (:mod:`kgqa.planner.lexicon`, :mod:`kgqa.planner.rules.read`, :mod:`kgqa.planner.frame`,
  :mod:`kgqa.planner.rules.generator`) reads an annotated graph's question into a frame first.

:class:`Compiler` ties them together for one graph and says what compiling found (:class:`Compilation`). It
stays a class of its own, in a module of its own, because it is what a domain holds and what the pipeline,
linker, router and autogen call: they need one object per graph with its view, terms and chooser, and none of
them needs to know how the work is split.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field, replace

from kgqa.planner.cypher_outline import of_cypher
from kgqa.planner.dispatcher import grounded
from kgqa.planner.frame import Chooser, Compiled, Frame, Mention
from kgqa.planner.lexicon import Lexicon, unused_numbers
from kgqa.planner.outline import of_query
from kgqa.planner.plan import Plan
from kgqa.planner.query import schema_names, to_cypher
from kgqa.planner.reader.read import Reading, read_query
from kgqa.planner.reader.schema_terms import SchemaTerms
from kgqa.planner.rules.generator import generate
from kgqa.planner.rules.read import read
from kgqa.planner.schema_view import SchemaView
from kgqa.planner.spelling import Speller
from kgqa.settings import READERS

GRAMMAR = "grammar"  # the Settings.reader that reads with the grammar reader alone, and its plans' description


@dataclass
class Compilation:
    """What compiling one question gave: ``[plan]`` or none; why the grammar reader declined it; whether the
    question names a label to ask for (when it names none, a model may name its topic entity first)."""

    plans: list[Compiled]
    unread: list[str] = field(default_factory=list)
    topic: bool = True


class Compiler:
    """Question (+ linked mentions) -> one Cypher plan over one domain's schema.

    ``chooser`` (the LLM, constrained to a list) breaks ties between schema paths the question's words and
    the exemplars leave open; it may be replaced at any time (``compiler.chooser = ...``).
    """

    def __init__(self, view: SchemaView, chooser: Chooser | None = None, reader: str = "both"):
        if reader not in READERS:
            raise ValueError(f"reader must be one of {', '.join(READERS)}, not {reader!r}")
        self.view = view
        self.reader = reader
        self.lex = Lexicon(view)
        self.terms = SchemaTerms(view)
        self.chooser = chooser
        self._speller: Speller | None = None

    def spelled(self, question: str) -> str:
        """Returns the question with its misspelled words mended toward this graph's words: :meth:`Speller.correct`."""
        if self._speller is None:
            self._speller = Speller(self.view, self.terms)
        return self._speller.correct(question)

    def value_mentions(self, question: str) -> list[Mention]:
        """Returns the graph values (and quoted literals) the question names: :meth:`Lexicon.value_mentions`."""
        return self.lex.value_mentions(question)

    def frame(self, question: str, mentions: list[Mention] | None = None) -> Frame:
        """Returns the question read into a frame: :func:`kgqa.planner.rules.read.read`."""
        return read(question, self.lex, mentions)

    def compile(self, question: str, mentions: list[Mention] | None = None,
                exemplar_rels: dict[str, float] | None = None) -> list[Compiled]:
        """Returns ``[plan]``, the one plan compiled for the question, or ``[]``: :meth:`read`'s plans."""
        return self.read(question, mentions, exemplar_rels).plans

    def read(self, question: str, mentions: list[Mention] | None = None,
             exemplar_rels: dict[str, float] | None = None) -> Compilation:
        """Returns the question compiled: ``[plan]``, or no plan with why the grammar reader declined it (on a
        graph without annotations, the grammar reader's reading alone). Not ranked candidates: where the schema
        offers several paths, one is chosen while generating, by the question's words, then ``exemplar_rels``
        (relationship types of the verified plans of similar questions, from the plan cache), then the chooser.
        ``mentions`` default to :meth:`value_mentions`."""
        mentions = self.value_mentions(question) if mentions is None else mentions
        given = deepcopy(mentions)  # the rules set each linked mention to the reading they chose
        if not self.view.spec.words or self.reader == GRAMMAR:
            # a graph without annotations is one the rules were not fitted to: the grammar reader reads it alone.
            # On Spider's training graphs the rules' plans disagreed with right readings 124 times, and where the
            # grammar declined they were right 150 times and wrong 173 (dropped negations, numbers put on the
            # wrong property): evals/RESULTS.md
            done = self._grammar(question, given)
            if not done.plans:
                done.topic = self.frame(question, deepcopy(mentions)).target is not None
            return done
        f = self.frame(question, mentions)
        plan = None
        if f.target is not None:
            f.exemplar_rels = dict(exemplar_rels or {})
            f.linked = [(m.start, m.end) for m in f.anchors]
            plan = self._generated(f)
            if not self.left_out(question, Plan.compiled(plan)):
                return Compilation([plan])
        done = self._grammar(question, given)
        if not done.plans and plan is not None:
            done.plans = [plan]
        done.topic = f.target is not None
        return done

    def grammar(self, question: str, mentions: list[Mention]) -> list[Compiled]:
        """Returns the plans of the grammar reader's readings of the question (:func:`read_query`), one per way
        of settling what the schema leaves open, each with the others as ``alternatives``; ``[]`` when it
        declines."""
        return self._grammar(question, mentions).plans

    def unread(self, question: str, mentions: list[Mention]) -> list[str]:
        """Returns what the grammar reader could not read in the question (why it declines it), [] when it reads
        it."""
        return self._grammar(question, deepcopy(mentions)).unread

    def _grammar(self, question: str, mentions: list[Mention]) -> Compilation:
        readings = read_query(question, self.view, self.terms, mentions)
        if readings[0].declined:
            return Compilation([], readings[0].declined)
        plans = [self._plan(r) for r in readings]
        for p in plans:
            p.alternatives = [x for x in plans if x is not p]
        return Compilation(plans[:1])

    def _plan(self, r: Reading) -> Compiled:
        cypher, params = to_cypher(r.query)
        label = r.query.nodes[r.target]
        return Compiled(cypher, params, None, description=GRAMMAR,
                        choices=[f"{t.owner}.{t.prop}" if t.prop else t.owner for t in r.choices.values()],
                        query=r.query, outline=of_query(r.query, label))

    def _generated(self, f: Frame) -> Compiled:
        """Returns the rules generator's plan of ``f``, outlined from its Cypher and what the frame knows."""
        plan = generate(f, self.view, self.chooser)
        plan.outline = of_cypher(plan.cypher, target=f.target, limit=f.limit, unranked=f.unranked,
                                 grounded=grounded(f))
        return plan

    def left_out(self, question: str, plan: Plan) -> list[str]:
        """Returns what of the question a plan leaves out: numbers it uses nowhere, and (for the rules' plans)
        content words the frame does not explain or schema words the Cypher does not use. The grammar
        reader's plans explain every word or are not made; the numbers a tree uses are its values, its limit and
        those in the schema names it uses ("ROUND2")."""
        if plan.tree is not None:
            return unused_numbers(question, [*plan.params.values(), plan.tree.limit], " ".join(schema_names(plan.tree)))
        bound = [plan.outline.limit] if plan.outline.unranked else []  # checked on the rows by the pipeline
        out = unused_numbers(question, [*plan.params.values(), *bound], plan.cypher)
        if plan.frame is not None:
            out += self.unexplained(plan.frame) + self.unused(plan.frame, plan.cypher)
        return out

    def folded(self, f: Frame) -> Compiled | None:
        """Returns the plan of ``f`` with its substring conditions written in mixed case made case-insensitive
        ("a tagline containing the word Love" where the data writes "love"), or None when it has none."""
        conds = [replace(c, fold=True) if c.op in ("CONTAINS", "STARTS WITH", "ENDS WITH") and not c.fold
                 and isinstance(c.value, str) and c.value != c.value.lower() else c for c in f.conds]
        if conds == f.conds:
            return None
        again = deepcopy(f)
        again.conds, again.notes = deepcopy(conds), []
        return self._generated(again)

    def unexplained(self, f: Frame) -> list[str]:
        """Returns the content words the frame leaves unexplained: :meth:`Lexicon.unexplained`."""
        return self.lex.unexplained(f)

    def unused(self, f: Frame, cypher: str) -> list[str]:
        """Returns the question's schema words whose target ``cypher`` does not use: :meth:`Lexicon.unused`."""
        return self.lex.unused(f, cypher)
