"""LLM backends: the embedded SmolLM2 model, and a real llama_cpp.server behind OpenAICompatLLM."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from llama_server import free_port, llama_server

from kgqa.planner.llm import (
    LLM,
    EmbeddedLLM,
    LLMError,
    OpenAICompatLLM,
    choice_grammar,
    choice_schema,
    default_model_path,
    make_llm,
    option_index,
)
from kgqa.settings import Settings

ENTITY_SCHEMA = {"type": "object", "properties": {"entity": {"type": "string", "maxLength": 40}},
                 "required": ["entity"], "additionalProperties": False}


@pytest.fixture(scope="module")
def llm() -> EmbeddedLLM:
    model = EmbeddedLLM(n_threads=1, n_ctx=1024)  # one thread: the test machine is shared
    yield model
    model.close()


# -- pure helpers ----------------------------------------------------------------------------------------

def test_choice_grammar_quotes_options():
    assert choice_grammar(['say "hi"', "a\\b", "x", "x"]) == 'root ::= "say \\"hi\\"" | "a\\\\b" | "x"'


def test_choice_schema_is_an_enum():
    schema = choice_schema(["directed", "acted in", "directed"])
    assert schema["properties"]["answer"]["enum"] == ["directed", "acted in"]


@pytest.mark.parametrize("text,expected", [("acted in", 1), ('"Acted In"', 1), ("prod", 2), ("nothing", 0)])
def test_option_index(text, expected):
    assert option_index(text, ["directed", "acted in", "produced"]) == expected


def test_make_llm_backends():
    embedded = make_llm(Settings(llm_backend="embedded", llm_threads=1, llm_seed=3))
    assert isinstance(embedded, EmbeddedLLM) and isinstance(embedded, LLM)
    assert embedded.model_path == default_model_path() and embedded.model_path.suffix == ".gguf"
    assert embedded.seed == 3 and embedded.n_threads == 1 and embedded.wait_s == 30.0
    assert make_llm(Settings(llm_backend="embedded", llm_wait_s=0)).wait_s is None  # 0 = no bound
    remote = make_llm(Settings(llm_backend="openai", llm_base_url="http://127.0.0.1:9/v1", llm_model="m"))
    assert isinstance(remote, OpenAICompatLLM) and remote.model == "m"
    with pytest.raises(LLMError):
        make_llm(Settings(llm_backend="openai", llm_base_url=""))
    with pytest.raises(ValueError):
        make_llm(Settings(llm_backend="gpt"))


def test_openai_backend_retries_then_fails_on_connection_errors():
    port = free_port()  # nothing listens there
    remote = OpenAICompatLLM(f"http://127.0.0.1:{port}/v1", "m", retries=2, backoff_s=0.01, timeout_s=2)
    t0 = time.perf_counter()
    with pytest.raises(LLMError, match="APIConnectionError"):
        remote.complete("hi", max_tokens=2)
    assert remote.calls == 1
    assert time.perf_counter() - t0 >= 0.03  # backoff 0.01 + 0.02 between the three attempts


# -- embedded model ----------------------------------------------------------------------------------

@pytest.mark.llm
def test_embedded_completion_returns_text(llm):
    before = llm.calls
    out = llm.complete("Say hello.", max_tokens=4)
    assert out.text.strip()
    assert 0 < out.completion_tokens <= 4 and out.prompt_tokens > 5
    assert out.elapsed_ms > 0 and 0 < out.ttft_ms <= out.elapsed_ms
    assert llm.calls == before + 1
    assert llm.load_ms is not None


@pytest.mark.llm
@pytest.mark.parametrize("question", ["Who directed The Matrix?", "How many products does Exotic Liquids supply?",
                                      "Which physicists won the Nobel Prize in 1921?"])
def test_embedded_json_schema_output_parses(llm, question):
    messages = [{"role": "system", "content": "Copy the main entity from the question as JSON."},
                {"role": "user", "content": question}]
    out = llm.complete(messages, max_tokens=24, json_schema=ENTITY_SCHEMA)
    data = json.loads(out.text)
    assert set(data) == {"entity"} and isinstance(data["entity"], str) and len(data["entity"]) <= 40


@pytest.mark.llm
@pytest.mark.parametrize("prompt,options", [
    ("Question: Who directed The Matrix? Which relation does it use?", ["acted in", "directed", "produced"]),
    ("Question: Which company supplies Chai? Which relation does it use?", ["supplies", "ordered by", 'is "part of"']),
    ("Is Paris in France?", ["yes", "no"]),
])
def test_embedded_choose_returns_a_valid_index(llm, prompt, options):
    before = llm.calls
    assert llm.choose(prompt, options) in range(len(options))
    assert llm.calls == before + 1


@pytest.mark.llm
def test_enum_values_with_quotes_and_a_bad_grammar_do_not_crash(llm):
    odd = ['Pavlova, "Ltd."', "back\\slash", "Café"]
    schema = {"type": "object", "properties": {"name": {"type": "string", "enum": odd}}, "required": ["name"]}
    assert json.loads(llm.complete("Pick a name.", max_tokens=40, json_schema=schema).text)["name"] in odd
    assert llm.choose("Pick a name.", odd) in range(3)
    with pytest.raises(LLMError, match="cannot parse"):
        llm.complete("Hi.", max_tokens=2, grammar='root ::= "unterminated')


@pytest.mark.llm
def test_choose_is_serialized_and_counted_across_threads(llm):
    before, picks = llm.calls, []
    threads = [threading.Thread(target=lambda: picks.append(llm.choose("Pick a colour.", ["red", "blue"])))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(picks) == [picks[0]] * 3  # greedy and serialized: the same answer each time
    assert llm.calls == before + 3


@pytest.mark.llm
def test_restored_state_gives_the_logits_of_a_fresh_evaluation(llm):
    text = llm.render([{"role": "system", "content": "Answer briefly."},
                       {"role": "user", "content": "Who directed The Matrix?"}])
    prefix = text[:text.index("Who directed")]
    state = llm.eval_prefix(prefix)
    assert list(state.tokens) == llm.tokenize(prefix) and state.nbytes > 0
    fresh = llm.logits_after(text, state=state)  # continues the prefix just evaluated
    llm.complete("Something else entirely.", max_tokens=3)  # overwrite the KV cache
    np.testing.assert_array_equal(llm.logits_after(text, state=state), fresh)
    assert llm.eval_prefix(prefix).kv == state.kv  # evaluation is deterministic
    # one-shot evaluation of the whole text differs only by float rounding (another batch split)
    whole = llm.logits_after(text)
    assert int(np.argmax(whole)) == int(np.argmax(fresh))
    np.testing.assert_allclose(whole, fresh, atol=2.0)
    assert int(np.argmax(llm.logits_after(prefix, state=state))) == int(np.argmax(llm.logits_after(prefix)))


@pytest.mark.llm
def test_complete_from_state_evaluates_only_the_suffix(llm):
    messages = [{"role": "system", "content": "Copy the main entity from the question as JSON."},
                {"role": "user", "content": "Who directed The Matrix?"}]
    full = llm.render(messages)
    cut = full.index("Who directed")
    state = llm.eval_prefix(full[:cut])
    llm.complete("Unrelated.", max_tokens=2)
    out = llm.complete_from_state(state, full[cut:], max_tokens=24, json_schema=ENTITY_SCHEMA)
    assert out.cached_tokens == len(state.tokens)
    assert out.prompt_tokens == len(llm.tokenize(full))
    assert isinstance(json.loads(out.text)["entity"], str)


# -- OpenAI-compatible server (a real llama_cpp.server) ----------------------------------------------

@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    with llama_server(tmp_path_factory.mktemp("llama-server"), n_threads=1, n_ctx=1024) as url:
        yield url


@pytest.mark.llm
def test_openai_backend_completion_and_json_schema(server_url):
    remote = OpenAICompatLLM(server_url, timeout_s=60)
    out = remote.complete("Say hello.", max_tokens=4)
    assert out.text.strip() and out.completion_tokens > 0 and out.prompt_tokens > 0
    assert remote.model  # discovered from /v1/models
    messages = [{"role": "system", "content": "Copy the main entity from the question as JSON."},
                {"role": "user", "content": "Who directed The Matrix?"}]
    data = json.loads(remote.complete(messages, max_tokens=24, json_schema=ENTITY_SCHEMA).text)
    assert set(data) == {"entity"} and isinstance(data["entity"], str)
    assert remote.json_mode == "json_object"  # llama_cpp.server rejected json_schema and we switched
    options = ["acted in", "directed", "produced"]
    assert remote.choose("Question: Who directed The Matrix? Which relation?", options) in range(3)
    assert remote.calls == 3


@pytest.mark.llm
def test_a_request_queued_past_the_wait_bound_gets_llm_busy(llm):
    from kgqa.planner.llm import LLMBusy

    held, release = threading.Event(), threading.Event()

    def hold():  # another request is using the model
        with llm._lock:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(5)
    wait, before = llm.wait_s, llm.calls
    llm.wait_s = 0.2
    try:
        with pytest.raises(LLMBusy, match="busy for 0.2 s"):
            llm.choose("Pick a colour.", ["red", "blue"])
        assert llm.calls == before  # nothing was generated
    finally:
        release.set()
        t.join()
        llm.wait_s = wait
    assert llm.choose("Pick a colour.", ["red", "blue"]) in (0, 1)  # free again
