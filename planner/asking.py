"""One question's state on the answer path (:class:`Asking`): what each step found, for the steps after it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgqa.kg.cypher import inline_params
from kgqa.planner.compiler import Compilation
from kgqa.planner.dispatcher import Verdict
from kgqa.planner.domain import Domain
from kgqa.planner.frame import Compiled
from kgqa.planner.plan import Plan
from kgqa.planner.summarizer import DONT_KNOW
from kgqa.types import Result


@dataclass
class Asking:
    """One question on its way along the answer path (:data:`STEPS`): what each step found, for the steps after
    it, and the result it fills (``r``)."""

    question: str
    d: Domain
    r: Result
    timings: dict[str, float] = field(default_factory=dict)
    reuse: bool = True  # a plan-cache template may answer (not when an empty template's answer is checked)
    mentions: list = field(default_factory=list)
    isr: Any = None
    picked: list = field(default_factory=list)  # the plan cache's exemplars for this question
    hints: dict[str, float] = field(default_factory=dict)  # relationships the exemplars vote for
    compilation: Compilation | None = None
    compiled: Compiled | None = None
    plan: Plan | None = None
    origin: str = "compiler"  # where the plan came from: "compiler", "template", "llm"
    reused: int | None = None  # the plan-cache entry whose template gave the plan
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    error: str | None = None
    verdict: Verdict | None = None
    none: bool = False  # no rows, and the tree's presuppositions hold on a complete graph: the answer is "none"
    tie: tuple[Any, list[list[Any]], bool] | None = None
    learnable: bool = False  # verified: the plan cache may learn the plan
    over: bool = False  # a step has ended the question

    def decline(self, error: str | None, answer: str = DONT_KNOW) -> None:
        """Ends the question with "I don't know" (and why, when known)."""
        self.r.status, self.r.answer, self.r.evidence, self.r.rows = "dont_know", answer, "none", []
        if error:
            self.r.error = error
        self.over = True

    def show_plan(self) -> None:
        """Shows the plan about to run: its Cypher with values inlined, beside what executes and its values."""
        self.r.cypher = inline_params(self.plan.cypher, self.plan.params)
        self.r.cypher_run, self.r.params = self.plan.cypher, dict(self.plan.params)
