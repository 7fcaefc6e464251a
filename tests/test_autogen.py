"""The pre-warm job: sampling, deterministic compilation, verification, resume, dynamic descriptions."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from kgqa.autogen.compile import KINDS, Spec, Step, compile_spec
from kgqa.autogen.job import JobState, Prewarmer, prewarm_into
from kgqa.autogen.sampling import Sampler
from kgqa.autogen.synth import TemplateSynth
from kgqa.autogen.verify import execute, leak
from kgqa.cache.plan_cache import PlanCache
from kgqa.planner.router import DescriptionStore
from kgqa.planner.schema_view import SchemaView
from kgqa.settings import Settings


class _Dom:
    """What verification needs of a domain: its graph and schema view."""

    def __init__(self, graph, view):
        self.graph, self.view = graph, view


@pytest.fixture(scope="module")
def views(graph, spec):
    return {d: SchemaView.from_graph(graph(d), spec(d)) for d in ("movies", "northwind", "nobel")}


@pytest.fixture(scope="module")
def synths(graph, views):
    out = {}
    for d in ("movies", "northwind", "nobel"):
        s = TemplateSynth(Sampler(graph(d), views[d], seed=3), d, seed=3)
        s.from_stars(s.s.sample(3))
        s.from_labels()
        out[d] = s
    return out


@pytest.fixture(scope="module")
def home(tmp_path_factory, built_graphs):
    path = tmp_path_factory.mktemp("prewarm-home")
    (path / "graphs").symlink_to(next(iter(built_graphs.values())).parent)
    return path


@pytest.fixture(scope="module")
def pipe(home):
    from kgqa.planner.pipeline import Pipeline

    return Pipeline(Settings(home=home))


def test_sampling_covers_every_label(graph, views):
    for d, view in views.items():
        stars = Sampler(graph(d), view, seed=1).sample(2)
        assert {s.centre.label for s in stars} == set(view.nodes), d
        assert all(s.centre.key is not None for s in stars)
        assert any(s.hops for s in stars)


def test_every_pattern_compiles_executes_and_verifies(graph, views, synths):
    kinds = set()
    for d, synth in synths.items():
        dom = _Dom(graph(d), views[d])
        for shape, group in synth.groups.items():
            c = group[0]
            v = execute(c, dom)
            assert v.ok, (d, shape, c.question, v.reason, v.cypher, v.rows[:3], c.expected[:3])
            kinds.add(c.spec.kind)
    assert kinds == set(KINDS)


def test_verification_rejects_a_wrong_answer(graph, views, synths):
    dom = _Dom(graph("movies"), views["movies"])
    hop = next(g[0] for k, g in synths["movies"].groups.items() if k.startswith("hop:") and len(g[0].expected) > 1)
    assert execute(hop, dom).ok
    assert not execute(replace(hop, expected=hop.expected[1:]), dom).ok  # a missing answer
    assert not execute(replace(hop, expected=hop.expected + [["Nobody"]]), dom).ok  # an extra one
    count = next(g[0] for k, g in synths["movies"].groups.items() if k.startswith("count:"))
    assert not execute(replace(count, expected=[[count.expected[0][0] + 1]]), dom).ok
    # a query along the wrong relationship is not the triples' answer either
    wrong = replace(hop, spec=replace(hop.spec, steps=[Step("REVIEWED", hop.spec.steps[0].direction,
                                                            hop.spec.steps[0].label)]))
    assert not execute(wrong, dom).ok


def test_leak_filter(synths):
    hop = next(g[0] for k, g in synths["movies"].groups.items() if k.startswith("hop:"))
    assert leak(hop) is None
    answer = str(hop.expected[0][0])
    assert leak(replace(hop, question=f"{hop.question[:-1]} like {answer}?")) == "answer in question"
    assert leak(replace(hop, question="Which movies won physics-1958 prizes?")) is not None
    assert leak(replace(hop, question="Which movies did somebody act in?")) == "anchor not named"


def test_compile_refuses_names_outside_the_schema(views):
    with pytest.raises(ValueError):
        compile_spec(Spec("hop", "Movie", "Person", "name", "Tom Hanks", steps=[Step("SUPPLIES", "out", "Movie")]),
                     views["movies"])
    with pytest.raises(ValueError):
        compile_spec(Spec("attr", "Movie", "Movie", "title", "X", prop="budget"), views["movies"])


def test_prewarm_resume_does_not_duplicate(home, pipe):
    settings = Settings(home=home)
    cache = PlanCache(settings.state_dir)
    reader = PlanCache(settings.state_dir)  # a server's handle, opened before anything was written
    job = Prewarmer(settings, cache, llm=None, pipeline=pipe)
    state = JobState(settings.state_dir / "prewarm_state.json")
    calls = {"n": 0}
    real = job.process

    def interrupted(c, domain, rep):
        calls["n"] += 1
        if calls["n"] > 15:
            raise KeyboardInterrupt
        return real(c, domain, rep)

    job.process = interrupted
    with pytest.raises(KeyboardInterrupt):
        job.run_domain("movies", 24, state)
    first = len(cache.entries("movies"))
    saved = json.loads(state.path.read_text())["domains"]["movies"]
    assert len(saved["done"]) == 10 and first > 0  # one batch of 10 was committed before the stop
    job.process = real
    rep = job.run_domain("movies", 24, JobState.load(state.path), resume=True)
    entries = cache.entries("movies")
    questions = [e.question.casefold() for e in entries]
    assert len(questions) == len(set(questions))
    assert sum(s.generated for s in rep.sources.values()) == 24  # each candidate processed exactly once
    assert len(entries) == sum(s.ingested for s in rep.sources.values())
    assert all(e.kg_version and e.aspect for e in entries)
    assert sum(1 for e in entries if e.template) >= len(entries) // 2
    again = job.run_domain("movies", 24, JobState.load(state.path), resume=True)  # nothing left to do
    assert len(cache.entries("movies")) == len(entries)
    assert sum(s.generated for s in again.sources.values()) == 24
    assert len(reader.entries("movies")) == len(entries)  # the other handle sees the entries, no restart
    # a fresh (non-resumed) run re-adds the same questions: the cache dedupes them
    prewarm_into(settings, cache, ["movies"], 24, llm=None, pipeline=job.pipe)
    assert len(cache.entries("movies")) == len(entries)


def test_descriptions_persist_and_update_on_a_misroute(home, pipe, spec):
    settings = Settings(home=home)
    job = Prewarmer(settings, PlanCache(settings.state_dir), llm=None, pipeline=pipe)
    synth = TemplateSynth(Sampler(job.pipe.domains["northwind"].graph, job.pipe.domains["northwind"].view, 5),
                          "northwind", 5)
    synth.from_labels()
    # a verified northwind question, checked as if it belonged to movies: the router must disagree
    c = next(g[0] for k, g in synth.groups.items() if k.startswith("filter:Product.unitPrice"))
    c = replace(c, domain="movies")
    assert job.pipe.router.route(c.question).domain != "movies"
    from kgqa.autogen.job import DomainReport

    rep = DomainReport("movies")
    job._check_route(c, "movies", rep)
    assert rep.misroutes == 1 and rep.description_updates == 1
    path = settings.state_dir / "descriptions.json"
    stored = json.loads(path.read_text())
    assert "price" in stored["movies"] and stored["movies"].startswith(spec("movies").description)
    # another process's store (the server's) sees the update without a restart, and a new one loads it
    other = DescriptionStore(path, {"movies": spec("movies").description})
    assert other.get("movies") == stored["movies"]
    job.pipe.descriptions.update("movies", spec("movies").description + " Edited.")
    assert other.get("movies").endswith("Edited.")


def test_llm_writes_and_judges_a_question(synths):
    from kgqa.autogen import llm_synth

    try:
        from kgqa.planner.llm import EmbeddedLLM

        llm = EmbeddedLLM()
        llm.model  # noqa: B018
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"embedded model unavailable: {err}")
    base = next(c for g in synths["movies"].groups.values() for c in g if llm_synth.eligible(c))
    made = llm_synth.generate(llm, base)
    assert made is not None and made.source == "llm" and made.question.strip()
    assert made.spec == base.spec and made.expected == base.expected and made.id != base.id
    assert isinstance(llm_synth.judge(llm, made), bool)
    assert llm.calls == 2
