"""The load harness (``evals/bench_load.py``) briefly against the real app on waitress: no errors."""

from __future__ import annotations

import pytest

from kgqa.app.compute import warm
from kgqa.app.server import create_app
from kgqa.app.serving import BackgroundServer
from kgqa.evals.bench_load import (
    REPEATS,
    LoadResult,
    Sample,
    question_pool,
    run_load,
    scrape_metrics,
    server_figures,
    warm_up,
)
from kgqa.planner.pipeline import build_pipeline
from kgqa.settings import Settings


@pytest.fixture(scope="module")
def served(built_graphs, tmp_path_factory):
    home = tmp_path_factory.mktemp("load-home")
    (home / "graphs").symlink_to(next(iter(built_graphs.values())).parent, target_is_directory=True)
    pipe = build_pipeline(Settings(home=home))
    warm(pipe)
    with BackgroundServer(create_app(pipe)) as srv:
        yield srv.url, question_pool(home / "graphs")


def test_question_pool_is_distinct_and_spans_the_domains(served):
    pool = served[1]
    assert len(pool) > 1000
    assert len({q.lower() for q, _ in pool}) == len(pool)
    assert not {q.lower() for q, _ in pool} & {q.lower() for q, _ in REPEATS}
    assert {d for _, d in pool} == {None, "movies", "northwind", "nobel"}


def test_short_load_run_has_no_errors(served):
    url, pool = served
    warm_up(url)  # the repeats are in the answer cache from here on
    result = run_load(url, clients=8, duration_s=5, pool=pool, cached_share=0.5)
    failed = [s for s in result.samples if not s.ok]
    assert failed == [], failed[:5]
    assert result.errors == 0 and len(result.samples) >= 8
    assert any(s.cached for s in result.samples) and any(s.cached is False for s in result.samples)
    assert result.pool_used > 0
    figures = server_figures(scrape_metrics(url))
    assert figures["ask_requests"] >= len(result.samples) and figures["ask_non_200"] == 0
    assert figures["questions_error"] == 0 and 0 < figures["answer_cache_hit_ratio"] <= 1


def test_popular_users_and_new_question_users_in_one_run(served):
    """The default workload's shape: paced users re-asking repeats (all answer-cache hits), others asking new
    questions back to back; hits are counted while uncached work was in flight."""
    url, pool = served
    warm_up(url)
    result = run_load(url, clients=6, duration_s=4, pool=pool[200:], cached_share=0.0, cached_only=4, think_s=0.05)
    assert result.errors == 0 and result.window == 4
    repeats = set(REPEATS)
    hits = [s for s in result.samples if s.cached]
    assert hits and all(s.question in repeats for s in hits)
    assert all(s.question not in repeats for s in result.samples if s.cached is False)
    assert result.pool_used > 0 and any(s.cached is False for s in result.samples)
    during = result.during_uncached()
    assert during and set(map(id, during)) <= set(map(id, hits))
    assert 0 < result.throughput(True) <= len(hits) / 4


def test_throughput_and_overlap_are_counted_on_the_window():
    r = LoadResult(clients=2, seconds=12.0, window=10.0, samples=[
        Sample(3000.0, False, True, "answered", at=1.0),  # uncached in flight over [1, 4]
        Sample(5.0, True, True, "answered", at=2.0),  # during it
        Sample(5.0, True, True, "answered", at=3.999),  # answered after it ended: not during
        Sample(5.0, True, True, "answered", at=6.0),  # no uncached request in flight
        Sample(4000.0, False, True, "answered", at=7.0),  # answered after the window: not in req/s
        Sample(10.0, True, True, "answered", at=7.5)])
    assert [s.at for s in r.during_uncached()] == [2.0, 7.5]
    assert r.throughput(True) == 0.4 and r.throughput(False) == 0.1 and r.rps == 0.5


def test_load_refuses_non_loopback_targets():
    with pytest.raises(ValueError, match="loopback"):
        run_load("http://192.0.2.1:80/", clients=1, duration_s=1, pool=[])
