"""The service's metrics: a tiny thread-safe Prometheus registry and the kgqa series it exposes."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgqa.types import Result

HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
STAGE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


@dataclass
class _Histogram:
    buckets: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0
    n: int = 0

    def __post_init__(self) -> None:
        self.counts = [0] * len(self.buckets)

    def observe(self, value: float) -> None:
        i = bisect.bisect_left(self.buckets, value)
        if i < len(self.counts):
            self.counts[i] += 1
        self.total += value
        self.n += 1


def _labels(labels: tuple[tuple[str, str], ...]) -> str:
    if not labels:
        return ""
    esc = (str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") for _, v in labels)
    return "{" + ",".join(f'{k}="{v}"' for (k, _), v in zip(labels, esc)) + "}"


def _num(v: float) -> str:
    return repr(float(v)) if not float(v).is_integer() else str(int(v))


class Metrics:
    """Counters, gauges and histograms with labels, rendered in the Prometheus text format 0.0.4."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._help: dict[str, tuple[str, str]] = {}  # name -> (type, help)
        self._counters: dict[str, dict[tuple, float]] = {}
        self._hists: dict[str, dict[tuple, _Histogram]] = {}
        self._buckets: dict[str, tuple[float, ...]] = {}

    def counter(self, name: str, help_: str) -> None:
        self._help[name] = ("counter", help_)
        self._counters.setdefault(name, {})

    def histogram(self, name: str, help_: str, buckets: tuple[float, ...]) -> None:
        self._help[name] = ("histogram", help_)
        self._hists.setdefault(name, {})
        self._buckets[name] = buckets

    def inc(self, name: str, value: float = 1.0, **labels: str) -> None:
        key = tuple(sorted(labels.items()))
        with self._lock:
            series = self._counters[name]
            series[key] = series.get(key, 0.0) + value

    def observe(self, name: str, value: float, **labels: str) -> None:
        key = tuple(sorted(labels.items()))
        with self._lock:
            series = self._hists[name]
            if key not in series:
                series[key] = _Histogram(self._buckets[name])
            series[key].observe(value)

    def value(self, name: str, **labels: str) -> float:
        with self._lock:
            return self._counters[name].get(tuple(sorted(labels.items())), 0.0)

    def total(self, name: str) -> float:
        """A counter summed over all its label values."""
        with self._lock:
            return sum(self._counters[name].values())

    def render(self, gauges: Iterable[tuple[str, str, dict[str, str], float]] = ()) -> str:
        """The exposition text; ``gauges`` are (name, help, labels, value) computed at scrape time."""
        out: list[str] = []
        with self._lock:
            for name, series in self._counters.items():
                out += [f"# HELP {name} {self._help[name][1]}", f"# TYPE {name} counter"]
                out += [f"{name}{_labels(k)} {_num(v)}" for k, v in sorted(series.items())]
            for name, series in self._hists.items():
                out += [f"# HELP {name} {self._help[name][1]}", f"# TYPE {name} histogram"]
                for key, h in sorted(series.items()):
                    running = 0
                    for bound, c in zip(h.buckets, h.counts):
                        running += c
                        out.append(f"{name}_bucket{_labels(key + (('le', _num(bound)),))} {running}")
                    out.append(f"{name}_bucket{_labels(key + (('le', '+Inf'),))} {h.n}")
                    out.append(f"{name}_sum{_labels(key)} {_num(round(h.total, 6))}")
                    out.append(f"{name}_count{_labels(key)} {h.n}")
        seen: set[str] = set()
        for name, help_, labels, value in gauges:
            if name not in seen:
                out += [f"# HELP {name} {help_}", f"# TYPE {name} gauge"]
                seen.add(name)
            out.append(f"{name}{_labels(tuple(sorted(labels.items())))} {_num(value)}")
        return "\n".join(out) + "\n"


def new_metrics() -> Metrics:
    m = Metrics()
    m.counter("kgqa_http_requests_total", "HTTP requests by endpoint, method and status code.")
    m.histogram("kgqa_http_request_duration_seconds", "HTTP request latency by endpoint.", HTTP_BUCKETS)
    m.counter("kgqa_questions_total", "Questions answered, by domain and result status.")
    m.histogram("kgqa_stage_duration_seconds", "Pipeline stage latency (Result.timings_ms).", STAGE_BUCKETS)
    m.counter("kgqa_answer_cache_hits_total", "Questions served from the answer cache.")
    m.counter("kgqa_plan_cache_hits_total", "Questions whose plan came from the plan cache (template reuse).")
    m.counter("kgqa_llm_calls_total", "LLM calls made while answering questions.")
    m.counter("kgqa_feedback_total", "Thumbs up/down votes accepted (applied or recorded), by vote.")
    m.counter("kgqa_busy_rejections_total", "Requests refused with 503 because no compute slot was free in time.")
    for name in ("kgqa_answer_cache_hits_total", "kgqa_plan_cache_hits_total", "kgqa_llm_calls_total"):
        m.inc(name, 0.0)  # unlabelled counters are exposed from the start
    return m


def record(metrics: Metrics, results: Iterable[Result]) -> None:
    for r in results:
        metrics.inc("kgqa_questions_total", domain=r.domain or "none", status=r.status)
        for stage, ms in r.timings_ms.items():
            metrics.observe("kgqa_stage_duration_seconds", ms / 1000.0, stage=stage)
        if r.cache.get("answer_hit"):
            metrics.inc("kgqa_answer_cache_hits_total")
        if r.cache.get("plan_hit"):
            metrics.inc("kgqa_plan_cache_hits_total")
        metrics.inc("kgqa_llm_calls_total", float(r.cache.get("llm_calls") or 0))
