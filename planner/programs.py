"""The planner's LLM programs, as DSPy signatures and modules run through our own backend.

A 135M model cannot write Cypher; it is asked only for short, schema-constrained answers:

* :class:`ExtractISR` — question -> ISR fields in the question's own words (CacheRAG §4.1, stage 1); the
  pipeline uses only its ``entity``, to name a topic entity when nothing compiles (``Pipeline._llm_entity``);
* :class:`ChooseOption` — question + options -> one option;
* :class:`JudgeComplete` — question + evidence summary -> COMPLETE | INCOMPLETE;
* :class:`Phrase` — question + facts -> one sentence (a caller must check it against the facts).

Only :meth:`Programs.extract_isr` is called by the pipeline. Its choices go to ``LLM.choose`` directly,
completeness is :mod:`kgqa.planner.dispatcher`'s deterministic verdict, and batch phrasing is
:mod:`kgqa.planner.batch`'s own prompt; ``choose``, ``judge_complete`` and ``phrase`` are called only by the
tests.

:class:`BackendEngine` plugs any :class:`kgqa.planner.llm.LLM` into ``dspy.LM`` (embedded llama.cpp offline, or an
OpenAI-compatible server), and :class:`CompactJSONAdapter` keeps prompts short (~60-150 tokens) and sends the
output fields as a JSON schema, so the decoder can only produce parseable output. :class:`Programs` runs the
modules with a deterministic fallback: a failed call returns None, never raises.
"""

from __future__ import annotations

import json
import logging
import os
import types
import typing
from typing import Any, Literal

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

import dspy  # noqa: E402
from dspy.adapters.json_adapter import JSONAdapter  # noqa: E402
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events  # noqa: E402

from kgqa.planner.isr import ASPECTS  # noqa: E402
from kgqa.planner.llm import LLM  # noqa: E402

log = logging.getLogger(__name__)

COMPLETE, INCOMPLETE = "COMPLETE", "INCOMPLETE"
MAX_STR = 48  # longest string value a program may generate (characters)
MAX_ITEMS = 3  # longest list a program may generate


# -- DSPy <-> our backend ------------------------------------------------------------------------------

class BackendEngine:
    """A DSPy engine (``complete(Request) -> Response``) that delegates to a :class:`kgqa.planner.llm.LLM`."""

    def __init__(self, llm: LLM, max_tokens: int = 96):
        self.llm, self.max_tokens = llm, max_tokens

    def complete(self, request):
        messages = []
        if request.system is not None:
            system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system)
            messages.append({"role": "system", "content": system})
        messages.extend({"role": m.role, "content": m.text or ""} for m in request.messages)
        cfg = request.config
        fmt = cfg.response_format or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
        out = self.llm.complete(messages, max_tokens=cfg.max_tokens or self.max_tokens,
                                temperature=cfg.temperature or 0.0, json_schema=schema,
                                stop=list(cfg.stop) or None)
        return Response(id=None, model="kgqa", message=Message.assistant([TextPart(out.text)]),
                        finish_reason="stop",
                        usage=Usage(input_tokens=out.prompt_tokens, output_tokens=out.completion_tokens,
                                    total_tokens=out.prompt_tokens + out.completion_tokens))

    def stream(self, request):
        return response_to_events(self.complete(request))

    def close(self) -> None:
        pass


def dspy_lm(llm: LLM, max_tokens: int = 96) -> dspy.LM:
    """A ``dspy.LM`` running on ``llm``; no DSPy cache or retries (the backend owns both)."""
    return dspy.LM("kgqa/backend", engine=BackendEngine(llm, max_tokens), cache=False, num_retries=0,
                   temperature=0.0, max_tokens=max_tokens)


def _field_schema(annotation) -> dict:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return {"type": "string", "enum": [str(a) for a in args]}
    if origin in (list, tuple):
        return {"type": "array", "items": _field_schema(args[0] if args else str), "maxItems": MAX_ITEMS}
    if origin in (typing.Union, types.UnionType):
        real = [a for a in args if a is not type(None)]
        return _field_schema(real[0]) if real else {"type": "null"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    return {"type": "string", "maxLength": MAX_STR}


def output_schema(signature: type[dspy.Signature]) -> dict:
    """JSON schema of a signature's output fields (in order, all required, nothing else)."""
    props = {name: _field_schema(f.annotation) for name, f in signature.output_fields.items()}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def _fmt_value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "\n" + "\n".join(f"- {v}" for v in value)
    return str(value)


class CompactJSONAdapter(dspy.Adapter):
    """A short prompt (instructions, ``field: value`` lines) and JSON-schema constrained output."""

    def __call__(self, lm, lm_kwargs, signature, demos, inputs):
        lm_kwargs = {**lm_kwargs, "response_format": {
            "type": "json_schema", "json_schema": {"name": "output", "schema": output_schema(signature)}}}
        return super().__call__(lm, lm_kwargs, signature, demos, inputs)

    async def acall(self, lm, lm_kwargs, signature, demos, inputs):
        lm_kwargs = {**lm_kwargs, "response_format": {
            "type": "json_schema", "json_schema": {"name": "output", "schema": output_schema(signature)}}}
        return await super().acall(lm, lm_kwargs, signature, demos, inputs)

    def format(self, signature, demos, inputs):
        fields = ", ".join(f'"{n}"' for n in signature.output_fields)
        system = f"{signature.instructions.strip()}\nReply with JSON: {fields}."
        messages = [{"role": "system", "content": system}]
        for demo in demos:
            if all(k in demo for k in signature.fields):
                messages.append({"role": "user", "content": self._inputs(signature, demo)})
                messages.append({"role": "assistant", "content": json.dumps(
                    {k: demo[k] for k in signature.output_fields})})
        messages.append({"role": "user", "content": self._inputs(signature, inputs)})
        return messages

    @staticmethod
    def _inputs(signature, values) -> str:
        return "\n".join(f"{name.replace('_', ' ').capitalize()}: {_fmt_value(values[name])}"
                         for name in signature.input_fields if name in values)

    def parse(self, signature, completion: str) -> dict[str, Any]:
        return JSONAdapter.parse(self, signature, completion)


# -- signatures ----------------------------------------------------------------------------------------

class ExtractISRSig(dspy.Signature):
    """Copy the main entity name from the question. Use only words from the question."""

    question: str = dspy.InputField()
    entity: str = dspy.OutputField(desc="the named thing, as written in the question")
    answer_type: str = dspy.OutputField(desc="what is asked for, e.g. director, films, year, count")
    constraints: list[str] = dspy.OutputField(desc="conditions, in the question's words")
    aspect: Literal[ASPECTS] = dspy.OutputField()


class ChooseOptionSig(dspy.Signature):
    """Pick the option that fits the question best."""

    question: str = dspy.InputField()
    options: list[str] = dspy.InputField()
    choice: str = dspy.OutputField()


class JudgeCompleteSig(dspy.Signature):
    """Does the evidence answer the question? COMPLETE if yes, INCOMPLETE if not."""

    question: str = dspy.InputField()
    evidence: str = dspy.InputField()
    verdict: Literal[COMPLETE, INCOMPLETE] = dspy.OutputField()


class PhraseSig(dspy.Signature):
    """Answer the question in one short sentence using only the facts."""

    question: str = dspy.InputField()
    facts: str = dspy.InputField()
    sentence: str = dspy.OutputField()


# -- modules -------------------------------------------------------------------------------------------

class ExtractISR(dspy.Module):
    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(ExtractISRSig)

    def forward(self, question: str) -> dspy.Prediction:
        return self.predict(question=question)


class ChooseOption(dspy.Module):
    """The choice field is narrowed to a Literal of the given options: the model cannot leave the list."""

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(ChooseOptionSig)

    def forward(self, question: str, options: list[str]) -> dspy.Prediction:
        sig = ChooseOptionSig.with_updated_fields("choice", type_=Literal[tuple(dict.fromkeys(options))])
        self.predict.signature = sig
        return self.predict(question=question, options=options)


class JudgeComplete(dspy.Module):
    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(JudgeCompleteSig)

    def forward(self, question: str, evidence: str) -> dspy.Prediction:
        return self.predict(question=question, evidence=evidence)


class Phrase(dspy.Module):
    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict(PhraseSig)

    def forward(self, question: str, facts: str) -> dspy.Prediction:
        return self.predict(question=question, facts=facts)


# -- the facade the pipeline calls ---------------------------------------------------------------------

class Programs:
    """The four programs on one backend. Every method returns None when the LLM fails or its output does
    not fit (the caller keeps its deterministic result); every call counts on ``llm.calls``."""

    def __init__(self, llm: LLM, *, max_tokens: int = 96):
        self.llm = llm
        self.lm = dspy_lm(llm, max_tokens)
        self.adapter = CompactJSONAdapter()
        self.isr, self.chooser, self.judge, self.phraser = ExtractISR(), ChooseOption(), JudgeComplete(), Phrase()

    def _run(self, module: dspy.Module, **inputs) -> dspy.Prediction | None:
        try:
            with dspy.context(lm=self.lm, adapter=self.adapter):
                return module(**inputs)
        except Exception as err:  # noqa: BLE001 - a failed program never breaks the pipeline
            log.warning("%s failed: %s: %s", type(module).__name__, type(err).__name__, err)
            return None

    def extract_isr(self, question: str) -> dict[str, Any] | None:
        """{"entity", "answer_type", "constraints", "aspect"} in the question's words, or None."""
        out = self._run(self.isr, question=question)
        if out is None:
            return None
        entity = (out.entity or "").strip() or None
        constraints = [c.strip() for c in (out.constraints or []) if isinstance(c, str) and c.strip()]
        return {"entity": entity, "answer_type": (out.answer_type or "").strip() or None,
                "constraints": constraints, "aspect": out.aspect if out.aspect in ASPECTS else None}

    def choose(self, question: str, options: list[str]) -> int | None:
        """Index of the chosen option, or None."""
        if not options:
            return None
        if len(set(options)) == 1:
            return 0
        out = self._run(self.chooser, question=question, options=options)
        if out is None or out.choice not in options:
            return None
        return options.index(out.choice)

    def judge_complete(self, question: str, evidence_summary: str) -> str | None:
        """COMPLETE or INCOMPLETE, or None."""
        out = self._run(self.judge, question=question, evidence=evidence_summary)
        return out.verdict if out is not None and out.verdict in (COMPLETE, INCOMPLETE) else None

    def phrase(self, question: str, facts: str) -> str | None:
        """One sentence, or None; the caller must still check it against the facts (summarizer.faithful)."""
        out = self._run(self.phraser, question=question, facts=facts)
        sentence = (out.sentence or "").strip() if out is not None else ""
        return sentence or None
