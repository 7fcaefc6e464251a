"""Prompt-prefix reuse: evaluate a shared prefix once, answer many suffixes from it (SubGCache).

Two backends, one idea: requests that share a prompt prefix (a cluster's representative-subgraph
evidence) should not pay for that prefix more than once.

* **Embedded llama.cpp** — :class:`PrefixStore` evaluates a prefix once with
  :meth:`kgqa.planner.llm.EmbeddedLLM.eval_prefix`, keeps the saved KV state, restores it for every request that
  starts with that prefix (only the suffix tokens are evaluated) and releases it when told to (SubGCache
  releases a cluster's state before the next cluster). States are bounded by count and bytes (LRU).
* **OpenAI-compatible servers** — the server owns the KV cache. vLLM reuses it across requests with
  automatic prefix caching::

      vllm serve Qwen/Qwen2.5-7B-Instruct --enable-prefix-caching --port 8000
      # V1 engines enable it by default; --no-enable-prefix-caching turns it off for a baseline.
      # --prefix-caching-hash-algo sha256 avoids hash collisions between tenants.

  The client's part is to send requests that share a prefix back to back, with byte-identical prefix
  messages (:func:`order_by_prefix`), so the prefix blocks are still resident when the next request
  arrives, and to read the server's hit counters from ``/metrics`` (:func:`read_prefix_metrics`):
  vLLM V1 ``vllm:prefix_cache_hits_total`` / ``vllm:prefix_cache_queries_total`` (tokens), vLLM V0
  ``vllm:gpu_prefix_cache_hit_rate``, SGLang ``sglang:cache_hit_rate``. ``llama_cpp.server`` and the C++
  ``llama-server`` expose no prefix-hit metric (the latter reuses the slot's previous prompt), so the
  reading is ``None`` there.
"""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


# -- embedded llama.cpp: saved KV states -------------------------------------------------------------

@dataclass
class TimedCompletion:
    """A completion from a (possibly restored) prefix, with the latencies SubGCache reports."""

    completion: Any  # planner.llm.Completion
    prefix_ms: float  # prefix evaluation charged to this request (0 when the state was reused)
    ttft_ms: float  # request start -> first token: restore + suffix prefill + first token (no prefix_ms)
    wall_ms: float  # request start -> last token (no prefix_ms)
    prefix_tokens: int
    reused: bool  # the prefix's KV state was restored rather than evaluated for this request

    @property
    def text(self) -> str:
        return self.completion.text


@dataclass
class PrefixStats:
    evaluated: int = 0  # prefixes evaluated (state misses)
    reused: int = 0  # requests served from a saved state evaluated for an earlier request
    requests: int = 0
    prefill_ms: float = 0.0  # time spent evaluating prefixes and saving their states
    prefix_tokens: int = 0  # tokens evaluated in prefixes
    reused_tokens: int = 0  # prefix tokens not evaluated again thanks to reuse
    restored: int = 0  # requests that restored a saved state (the others continued in place)
    released: int = 0
    peak_bytes: int = 0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class PrefixStore:
    """Saved KV states of prompt prefixes on one :class:`~kgqa.planner.llm.EmbeddedLLM`.

    ``complete(prefix, suffix)`` evaluates ``prefix`` on a miss (from an empty cache, so the result
    does not depend on what the model ran before) and evaluates only ``suffix`` after it: in place when
    the live KV cache still starts with the prefix (the group's previous request left it there), else
    from the restored state.
    At most ``max_states`` states and ``max_bytes`` bytes are held (least recently used released first);
    :meth:`release` frees them explicitly.
    """

    def __init__(self, llm, *, max_states: int = 1, max_bytes: int = 512 * 1024 * 1024):
        if max_states < 1:
            raise ValueError("max_states must be >= 1")
        self.llm = llm
        self.max_states, self.max_bytes = max_states, max_bytes
        self._states: OrderedDict[str, Any] = OrderedDict()  # prefix text -> PrefixState
        self.stats = PrefixStats()

    def __len__(self) -> int:
        return len(self._states)

    def __contains__(self, prefix: str) -> bool:
        return prefix in self._states

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self._states.values())

    def acquire(self, prefix: str):
        """(state, ms spent evaluating it): the saved state of ``prefix``, evaluated now on a miss."""
        state = self._states.get(prefix)
        if state is not None:
            self._states.move_to_end(prefix)
            return state, 0.0
        t0 = time.perf_counter()
        state = self.llm.eval_prefix(prefix)
        ms = (time.perf_counter() - t0) * 1000
        self.stats.evaluated += 1
        self.stats.prefill_ms += ms
        self.stats.prefix_tokens += len(state.tokens)
        self._states[prefix] = state
        while len(self._states) > self.max_states or (len(self._states) > 1 and self.nbytes > self.max_bytes):
            self._states.popitem(last=False)
            self.stats.released += 1
        self.stats.peak_bytes = max(self.stats.peak_bytes, self.nbytes)
        return state, ms

    def complete(self, prefix: str, suffix: str, **kwargs) -> TimedCompletion:
        """Generate after ``prefix + suffix``, evaluating ``prefix`` only if no saved state holds it."""
        hit = prefix in self._states
        state, prefix_ms = self.acquire(prefix)
        t0 = time.perf_counter()
        holds = getattr(self.llm, "holds", None)
        self.stats.restored += 0 if holds is not None and holds(state) else 1
        out = self.llm.complete_from_state(state, suffix, **kwargs)
        wall = (time.perf_counter() - t0) * 1000
        ttft = out.ttft_within(wall)
        self.stats.requests += 1
        if hit:
            self.stats.reused += 1
            self.stats.reused_tokens += len(state.tokens)
        return TimedCompletion(out, prefix_ms, ttft, wall, len(state.tokens), hit)

    def release(self, prefix: str | None = None) -> int:
        """Free the state of ``prefix`` (all states when None); the number freed."""
        keys = list(self._states) if prefix is None else [prefix] if prefix in self._states else []
        for k in keys:
            del self._states[k]
        self.stats.released += len(keys)
        return len(keys)


def split_prompt(llm, messages: list[dict[str, str]]) -> tuple[str, str]:
    """(prefix, suffix) of the rendered chat prompt of ``messages``: the prefix is everything before the
    last message's content (system turn and the opening of the last turn), the suffix the rest.

    The cut is kept only where tokenizing the two parts separately gives exactly the tokens of the
    whole prompt, so a restored prefix continued with the suffix is the same token sequence as the
    one-shot prompt; otherwise it falls back to the end of the previous message's content, and then
    to no prefix at all."""
    full = llm.render(messages)
    last = messages[-1]["content"]
    cuts = []
    at = full.rfind(last) if last else -1
    if at > 0:
        cuts.append(at)
    if len(messages) > 1 and messages[-2]["content"]:
        prev = full.rfind(messages[-2]["content"], 0, at if at > 0 else len(full))
        if prev >= 0:
            cuts.append(prev + len(messages[-2]["content"]))
    whole = llm.tokenize(full)
    for cut in cuts:
        prefix, suffix = full[:cut], full[cut:]
        if prefix and llm.tokenize(prefix) + llm.tokenize(suffix) == whole:
            return prefix, suffix
    return "", full


# -- OpenAI-compatible servers: request order and the server's hit counters --------------------------

def order_by_prefix(items: Iterable[T], key: Callable[[T], Hashable]) -> list[T]:
    """``items`` regrouped so that items with the same prefix key are consecutive: groups in order of
    first appearance, items in their original order within a group (stable)."""
    groups: dict[Hashable, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return [item for group in groups.values() for item in group]


@dataclass
class PrefixMetrics:
    """Prefix-cache counters read from a server's Prometheus ``/metrics``."""

    hits: float | None = None  # tokens (vLLM V1) served from the prefix cache
    queries: float | None = None  # tokens looked up in the prefix cache
    hit_rate: float | None = None  # hits / queries, or the server's own gauge
    source: list[str] = field(default_factory=list)  # the metric names read

    def since(self, before: PrefixMetrics | None) -> PrefixMetrics:
        """The counters accumulated since ``before`` (a reading taken earlier)."""
        if before is None or self.hits is None or self.queries is None or before.hits is None \
                or before.queries is None:
            return self
        hits, queries = self.hits - before.hits, self.queries - before.queries
        return PrefixMetrics(hits, queries, hits / queries if queries > 0 else None, list(self.source))

    def to_dict(self) -> dict:
        return dict(self.__dict__)


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([-+0-9.eEinfINFaN]+)")
_HIT_COUNTERS = (("vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"),
                 ("vllm:prefix_cache_hits", "vllm:prefix_cache_queries"),
                 ("vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_queries_total"),
                 ("vllm:gpu_prefix_cache_hits", "vllm:gpu_prefix_cache_queries"))
_HIT_GAUGES = ("vllm:gpu_prefix_cache_hit_rate", "sglang:cache_hit_rate")


def parse_prometheus(text: str) -> dict[str, float]:
    """Metric name -> value summed over its label sets, from the Prometheus text exposition format."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line.strip())
        if m is None:
            continue
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        out[m.group(1)] = out.get(m.group(1), 0.0) + value
    return out


def prefix_metrics_from(samples: dict[str, float]) -> PrefixMetrics | None:
    """The prefix-cache reading in parsed ``/metrics`` samples; None when the server exposes none."""
    for hits_name, queries_name in _HIT_COUNTERS:
        if hits_name in samples and queries_name in samples:
            hits, queries = samples[hits_name], samples[queries_name]
            return PrefixMetrics(hits, queries, hits / queries if queries > 0 else None, [hits_name, queries_name])
    for name in _HIT_GAUGES:
        if name in samples:
            return PrefixMetrics(hit_rate=samples[name], source=[name])
    return None


def metrics_url(base_url: str) -> str:
    """``/metrics`` next to an OpenAI-compatible base URL (``http://host:8000/v1`` -> ``.../metrics``)."""
    root = base_url.rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    return root + "/metrics"


def read_prefix_metrics(base_url: str, *, timeout_s: float = 2.0) -> PrefixMetrics | None:
    """The server's prefix-cache counters, or None when it has no ``/metrics`` or no such metric."""
    try:
        with urllib.request.urlopen(metrics_url(base_url), timeout=timeout_s) as resp:
            if resp.status != 200:
                return None
            text = resp.read().decode("utf-8", errors="replace")
    except (urllib.error.URLError, OSError, ValueError):
        return None
    return prefix_metrics_from(parse_prometheus(text))
