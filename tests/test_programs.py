"""The DSPy programs on the embedded model: short prompts, constrained output, counted calls, no raising."""

from __future__ import annotations

import socket
from typing import Literal

import pytest

from kgqa.planner.isr import ASPECTS
from kgqa.planner.llm import EmbeddedLLM, OpenAICompatLLM
from kgqa.planner.programs import (
    COMPLETE,
    INCOMPLETE,
    ChooseOptionSig,
    CompactJSONAdapter,
    ExtractISRSig,
    JudgeCompleteSig,
    PhraseSig,
    Programs,
    output_schema,
)


@pytest.fixture(scope="module")
def llm() -> EmbeddedLLM:
    model = EmbeddedLLM(n_threads=1, n_ctx=1024)  # one thread: the test machine is shared
    yield model
    model.close()


@pytest.fixture(scope="module")
def programs(llm) -> Programs:
    return Programs(llm)


def test_output_schema_constrains_every_field():
    schema = output_schema(ExtractISRSig)
    assert schema["required"] == ["entity", "answer_type", "constraints", "aspect"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["aspect"]["enum"] == list(ASPECTS)
    assert schema["properties"]["constraints"]["type"] == "array"
    assert schema["properties"]["entity"]["maxLength"] > 0
    narrowed = ChooseOptionSig.with_updated_fields("choice", type_=Literal["a", "b"])
    assert output_schema(narrowed)["properties"]["choice"]["enum"] == ["a", "b"]
    assert output_schema(JudgeCompleteSig)["properties"]["verdict"]["enum"] == [COMPLETE, INCOMPLETE]


def test_failed_backend_gives_none_not_an_exception():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens
    dead = Programs(OpenAICompatLLM(f"http://127.0.0.1:{port}/v1", "m", retries=0, timeout_s=2))
    assert dead.extract_isr("Who directed The Matrix?") is None
    assert dead.choose("Which relation?", ["directed", "acted in"]) is None
    assert dead.judge_complete("Who directed The Matrix?", "no rows") is None
    assert dead.phrase("Who directed The Matrix?", "Lana Wachowski") is None
    assert dead.llm.calls == 4
    assert dead.choose("Which relation?", ["directed"]) == 0  # one option needs no model


@pytest.mark.llm
@pytest.mark.parametrize("sig,inputs", [
    (ExtractISRSig, {"question": "Which films directed by Christopher Nolan came out after 2010?"}),
    (ChooseOptionSig, {"question": "Who directed The Matrix?", "options": ["acted in", "directed", "produced"]}),
    (JudgeCompleteSig, {"question": "Who directed The Matrix?", "evidence": "Lana Wachowski; Lilly Wachowski"}),
    (PhraseSig, {"question": "Who directed The Matrix?", "facts": "The Matrix: directed by Lana Wachowski"}),
])
def test_prompts_stay_short(llm, sig, inputs):
    messages = CompactJSONAdapter().format(sig, [], inputs)
    assert len(llm.tokenize(llm.render(messages))) < 150


@pytest.mark.llm
def test_extract_isr_on_the_matrix(programs):
    before = programs.llm.calls
    isr = programs.extract_isr("Who directed The Matrix?")
    assert programs.llm.calls == before + 1
    assert isr is not None and set(isr) == {"entity", "answer_type", "constraints", "aspect"}
    assert "Matrix" in isr["entity"]
    assert isr["aspect"] is None or isr["aspect"] in ASPECTS
    assert all(isinstance(c, str) for c in isr["constraints"])


@pytest.mark.llm
@pytest.mark.parametrize("question,options", [
    ("Who directed The Matrix?", ["acted in", "directed", "produced"]),
    ("Which supplier ships Chai?", ["Exotic Liquids", "Tokyo Traders", 'Pavlova, "Ltd."']),
])
def test_choose_option_stays_in_the_list(programs, question, options):
    before = programs.llm.calls
    assert programs.choose(question, options) in range(len(options))
    assert programs.llm.calls == before + 1


@pytest.mark.llm
def test_judge_complete_is_a_verdict(programs):
    before = programs.llm.calls
    verdict = programs.judge_complete("Who directed The Matrix?", "rows: Lana Wachowski, Lilly Wachowski")
    assert verdict in (COMPLETE, INCOMPLETE)
    assert programs.llm.calls == before + 1


@pytest.mark.llm
def test_phrase_returns_a_sentence(programs):
    before = programs.llm.calls
    sentence = programs.phrase("Who directed The Matrix?", "The Matrix directed by: Lana Wachowski")
    assert isinstance(sentence, str) and 0 < len(sentence) <= 80
    assert programs.llm.calls == before + 1
