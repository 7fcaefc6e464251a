"""Question synthesis and judging with the LLM (CacheRAG §4.4: the prompt skeleton, the second judge).

The model is shown sampled triples and the answer they give, and writes one question in its own words:
*simple* (one relationship, the answer is its objects) or *compositional* (how many; which is highest;
an average over the facts). The shape of the question — and therefore its Cypher and answer — is fixed
by the triples we chose, so the model only contributes phrasing; the same model then judges whether the
question is sensible and answered by the facts. Every call is short and JSON/grammar-constrained.
"""

from __future__ import annotations

from dataclasses import replace

from kgqa.autogen.synth import Candidate

GEN_SYSTEM = ("You are an expert in question generation. Write one question that a person might naturally "
              "ask about the named entity, answered by the facts. Never put the answer or any ID in the question. "
              'Reply with JSON: {"question": "..."}')
MODES = {"hop": "simple: ask for the objects of the relation",
         "count": "compositional: ask how many",
         "superlative": "compositional: ask which one has the highest value",
         "agg": "compositional: ask for the average value"}


def eligible(c: Candidate) -> bool:
    """Template candidates whose shape the LLM may rephrase (one relationship from a named anchor)."""
    return c.spec.kind in MODES and len(c.spec.steps) == 1 and bool(c.facts) and bool(c.anchors)


def _answer_text(c: Candidate) -> str:
    if c.spec.kind == "agg":
        return f"{float(c.expected[0][0]):.2f}"
    cells = [str(r[0]) for r in c.expected[:6]]
    more = f" (and {len(c.expected) - 6} more)" if len(c.expected) > 6 else ""
    return ", ".join(cells) + more


def prompt(c: Candidate) -> list[dict[str, str]]:
    facts = "\n".join(f"- {s} | {r} | {o}" for s, r, o in c.facts[:8])
    return [{"role": "system", "content": GEN_SYSTEM},
            {"role": "user", "content": f"Facts:\n{facts}\nEntity: {c.anchors[0].text}\n"
                                        f"Answer (not to be written): {_answer_text(c)}\n"
                                        f"Question type: {MODES[c.spec.kind]}"}]


def _pattern_literal(text: str) -> str:
    """``text`` as a regex literal; special characters as one-character classes (llama.cpp's grammar
    converter keeps backslash escapes in literals, which GBNF does not accept)."""
    return "".join(f"[{ch}]" if ch in ".^$*+?()[]{}|\\/-" else ch for ch in text)


def question_schema(c: Candidate) -> dict:
    """The output schema: a question that names the anchor as written and ends with '?'. The decoder
    cannot leave it, so a small model cannot answer instead of asking or drop the entity's name."""
    anchor = _pattern_literal(str(c.anchors[0].text))
    pattern = f"^[A-Z][a-zA-Z ,']{{2,40}} {anchor}[a-zA-Z ,']{{0,40}}\\?$"
    return {"type": "object", "properties": {"question": {"type": "string", "pattern": pattern}},
            "required": ["question"], "additionalProperties": False}


def generate(llm, c: Candidate) -> Candidate | None:
    """An ``llm``-sourced copy of ``c`` with the model's question, or None when it wrote nothing usable."""
    out = llm.complete(prompt(c), max_tokens=48, json_schema=question_schema(c))
    data = out.json()
    text = data.get("question") if isinstance(data, dict) else None
    if not isinstance(text, str) or not text.strip():
        return None
    text = " ".join(text.split())
    return replace(c, source="llm", question=text, id="")


def judge(llm, c: Candidate) -> bool:
    """The model as a second judge: is the question sensible and answered by the facts?"""
    facts = "\n".join(f"- {s} | {r} | {o}" for s, r, o in c.facts[:8])
    pick = llm.choose(f"Facts:\n{facts}\nQuestion: {c.question}\n"
                      "Is this a sensible question that the facts answer?", ["yes", "no"])
    return pick == 0
