"""The load harness (``evals/bench_load.py``) briefly against the real app on waitress: no errors."""

from __future__ import annotations

import pytest

from kgqa.app.server import BackgroundServer, create_app, warm
from kgqa.evals.bench_load import REPEATS, question_pool, run_load, scrape_metrics, server_figures, warm_up
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


def test_load_refuses_non_loopback_targets():
    with pytest.raises(ValueError, match="loopback"):
        run_load("http://192.0.2.1:80/", clients=1, duration_s=1, pool=[])
