"""Feedback closes the loop: thumbs up/down on the service's own answers, through the caches only."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kgqa.app.server import create_app
from kgqa.app.votes import VoteLedger
from kgqa.cache.answer_cache import AnswerCache
from kgqa.cache.plan_cache import PlanCache
from kgqa.kg.schema import graph_checksum
from kgqa.planner.feedback import FeedbackConflict, FeedbackNotFound, give_feedback
from kgqa.planner.pipeline import build_pipeline
from kgqa.settings import Settings
from kgqa.types import InputError, Result

MATRIX = "Who directed The Matrix?"
TOP_GUN = "Who directed Top Gun?"
CAST_AWAY = "Who directed Cast Away?"
JSON = "application/json"
TOKEN = "operator-secret"
OPERATOR = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def pipe(built_graphs, kgqa_home, tmp_path_factory):
    plans = PlanCache(tmp_path_factory.mktemp("feedback-plans"))
    p = build_pipeline(Settings(home=kgqa_home, max_question_chars=300, admin_token=TOKEN, feedback_quorum=3,
                                feedback_per_minute=6), plan_cache=plans, answer_cache=AnswerCache())
    yield p
    plans.close()


@pytest.fixture(autouse=True)
def fresh_caches(pipe):
    pipe.plan_cache.clear()
    pipe.answer_cache.clear()


@pytest.fixture()
def client(pipe, tmp_path):
    app = create_app(pipe, votes=VoteLedger(tmp_path, quorum=3, max_votes=1000))
    return app.test_client()


def version(pipe, domain: str = "movies") -> str:
    return pipe.domains[domain].graph.version


def cache_version(pipe, domain: str = "movies") -> str:
    """The answer cache's version of a domain's answers: KG version and compiler version."""
    from kgqa.planner.version import answer_version

    return answer_version(version(pipe, domain))


def by_cypher(pipe, cypher: str, domain: str = "movies"):
    return pipe.plan_cache.with_cypher(domain, cypher)


# -- thumbs up ------------------------------------------------------------------------------------------
def test_up_stores_a_user_plan_that_the_repeat_reuses(pipe):
    first = pipe.ask(MATRIX, "movies")
    assert first.status == "answered" and "Wachowski" in first.answer
    pipe.plan_cache.clear()  # only the answer cache remembers the answer: the plan must come from the vote
    out = give_feedback(pipe, MATRIX, "movies", "up")
    assert out.action == "verified" and out.cypher == first.cypher and out.domain == "movies"
    [entry] = by_cypher(pipe, first.cypher)
    assert entry.provenance == "user" and not entry.demoted and entry.template
    assert out.plans == [{"id": entry.id, "question": MATRIX, "provenance": "user", "demoted": False}]
    again = pipe.ask(MATRIX, "movies", use_answer_cache=False)
    assert again.cache["plan_hit"] is True and again.answer == first.answer
    other = pipe.ask("Who directed Apollo 13?", "movies")  # the verified template fills another title too
    assert other.cache["plan_hit"] is True and "Ron Howard" in other.answer


def test_up_on_a_learned_plan_makes_it_user(pipe):
    r = pipe.ask(MATRIX, "movies")
    [learned] = by_cypher(pipe, r.cypher)
    assert learned.provenance == "online"
    give_feedback(pipe, "  who directed the MATRIX ", None, "up")  # same normalized question, routed domain
    [entry] = by_cypher(pipe, r.cypher)
    assert entry.id == learned.id and entry.provenance == "user"
    assert len(pipe.plan_cache) == 1


@pytest.mark.parametrize("status,evidence,cypher", [
    ("dont_know", "none", None),
    ("dont_know", "none", "MATCH (m:Movie) WHERE m.released = 1234 RETURN m.title"),  # a plan that found nothing
    ("answered", "vector-memory", None),  # answered from the vector memory, not by a query
])
def test_up_needs_an_answer_computed_by_a_query(pipe, status, evidence, cypher):
    q = "What is the airspeed velocity of an unladen swallow?"
    stored = Result(question=q, domain="movies", status=status, evidence=evidence, cypher=cypher,
                    kg_version=version(pipe))  # as the pipeline stores such answers (no LLM load here)
    pipe.answer_cache.put(q, "movies", cache_version(pipe), stored.to_dict())
    with pytest.raises(FeedbackConflict, match="computed by a Cypher query"):
        give_feedback(pipe, q, "movies", "up")
    assert len(pipe.plan_cache) == 0
    out = give_feedback(pipe, q, "movies", "down")  # a wrong "I don't know" can still be forgotten
    assert out.answer_forgotten and (q, "movies", cache_version(pipe)) not in pipe.answer_cache


# -- thumbs down ----------------------------------------------------------------------------------------
def test_down_demotes_the_plan_and_forgets_the_answer(pipe):
    r = pipe.ask(TOP_GUN, "movies")
    assert pipe.ask(TOP_GUN, "movies").cache["answer_hit"] is True
    [learned] = by_cypher(pipe, r.cypher)
    out = give_feedback(pipe, TOP_GUN, "movies", "down", cypher=r.cypher)
    assert out.action == "demoted" and out.answer_forgotten is True
    assert [p["id"] for p in out.plans] == [learned.id] and out.plans[0]["demoted"] is True
    assert (TOP_GUN, "movies", cache_version(pipe)) not in pipe.answer_cache
    [entry] = by_cypher(pipe, r.cypher)
    assert entry.demoted and entry.provenance == "online"  # demoted, not deleted; its origin kept
    assert pipe.plan_cache.retrieve(TOP_GUN, "movies", k=5) == []  # never an exemplar
    assert pipe.plan_cache.stats()["demoted"] == 1

    again = pipe.ask(TOP_GUN, "movies")
    assert again.cache["answer_hit"] is False and again.cache["plan_hit"] is False
    assert [e.demoted for e in by_cypher(pipe, r.cypher)] == [True]  # learning it again does not revive it


def test_down_blocks_the_reused_template_for_that_question_only(pipe):
    pipe.ask(MATRIX, "movies")
    r = pipe.ask(CAST_AWAY, "movies")
    assert r.cache["plan_hit"] is True  # filled the template learned from MATRIX
    out = give_feedback(pipe, CAST_AWAY, "movies", "down")
    assert [p["question"] for p in out.plans] == [CAST_AWAY]
    [matrix] = [e for e in pipe.plan_cache.entries("movies") if e.question == MATRIX]
    assert not matrix.demoted  # nobody voted its own answer down
    assert pipe.ask(CAST_AWAY, "movies").cache["plan_hit"] is False  # no template gives the plan back
    assert pipe.ask("Who directed Apollo 13?", "movies").cache["plan_hit"] is True  # others still reuse it


def test_down_without_a_learned_plan_leaves_a_tombstone_and_up_lifts_it(pipe):
    r = pipe.ask(MATRIX, "movies")
    pipe.plan_cache.clear()
    out = give_feedback(pipe, MATRIX, "movies", "down")
    [tomb] = by_cypher(pipe, r.cypher)
    assert tomb.demoted and tomb.provenance == "user" and out.plans[0]["id"] == tomb.id
    pipe.ask(MATRIX, "movies")  # answered afresh (compiled), learned again: still demoted
    assert [e.demoted for e in by_cypher(pipe, r.cypher)] == [True]
    give_feedback(pipe, MATRIX, "movies", "up")  # a user changes their mind
    [entry] = by_cypher(pipe, r.cypher)
    assert entry.id == tomb.id and not entry.demoted and entry.provenance == "user"
    assert pipe.ask(MATRIX, "movies", use_answer_cache=False).cache["plan_hit"] is True


# -- only the service's own answers ---------------------------------------------------------------------
def test_feedback_on_a_question_never_answered_is_not_found(pipe):
    with pytest.raises(FeedbackNotFound, match="ask it first"):
        give_feedback(pipe, MATRIX, "movies", "up")
    pipe.ask(MATRIX, "movies")
    with pytest.raises(FeedbackNotFound):  # answered in movies, not in nobel
        give_feedback(pipe, MATRIX, "nobel", "down")
    with pytest.raises(InputError, match="'vote'"):
        give_feedback(pipe, MATRIX, "movies", "sideways")
    with pytest.raises(InputError, match="unknown domain"):
        give_feedback(pipe, MATRIX, "weather", "up")


def test_a_client_cypher_is_checked_never_stored(pipe):
    r = pipe.ask(MATRIX, "movies")
    forged = "MATCH (p:Person) RETURN p.name"
    with pytest.raises(FeedbackConflict, match="changed since"):
        give_feedback(pipe, MATRIX, "movies", "up", cypher=forged)
    assert by_cypher(pipe, forged) == []
    out = give_feedback(pipe, MATRIX, "movies", "up", cypher="  " + r.cypher.replace(" ", "  "))
    assert out.cypher == r.cypher  # the stored answer's Cypher, whitespace aside the same


def test_the_graph_is_untouched(pipe):
    graph = pipe.domains["movies"].graph
    before = graph_checksum(graph)
    for q in (MATRIX, TOP_GUN, CAST_AWAY):
        pipe.ask(q, "movies")
    give_feedback(pipe, MATRIX, "movies", "up")
    give_feedback(pipe, TOP_GUN, "movies", "down")
    give_feedback(pipe, CAST_AWAY, "movies", "down")
    assert graph_checksum(graph) == before


# -- persistence ----------------------------------------------------------------------------------------
def test_provenance_and_demotion_survive_reopening_the_file(pipe):
    r1 = pipe.ask(MATRIX, "movies")
    r2 = pipe.ask(TOP_GUN, "movies")
    give_feedback(pipe, MATRIX, "movies", "up")
    give_feedback(pipe, TOP_GUN, "movies", "down")
    pipe.plan_cache.flush()
    with PlanCache(pipe.plan_cache.path) as reopened:
        [up] = reopened.with_cypher("movies", r1.cypher)
        [down] = reopened.with_cypher("movies", r2.cypher)
        assert (up.provenance, up.demoted) == ("user", False)
        assert (down.provenance, down.demoted) == ("online", True)
        assert [e.question for e in reopened.retrieve(TOP_GUN, "movies", k=5)] == [MATRIX]


def test_prewarm_entries_are_marked_prewarm(built_graphs, tmp_path):
    from kgqa.autogen.job import Prewarmer
    from kgqa.planner.pipeline import Pipeline

    (tmp_path / "graphs").symlink_to(built_graphs["movies"].parent)
    settings = Settings(home=tmp_path)
    with PlanCache(settings.state_dir) as cache:
        Prewarmer(settings, cache, llm=None, pipeline=Pipeline(settings, domains=["movies"])).run_domain("movies", 8)
        entries = cache.entries("movies")
        assert entries and {e.provenance for e in entries} == {"prewarm"}


def test_an_old_plan_cache_file_without_the_columns_still_opens(tmp_path):
    path = tmp_path / "plan_cache.sqlite"
    with sqlite3.connect(path) as conn:  # the table as the first release wrote it
        conn.executescript("""
            CREATE TABLE plans (id INTEGER PRIMARY KEY AUTOINCREMENT, dedupe TEXT NOT NULL UNIQUE,
                question TEXT NOT NULL, isr TEXT NOT NULL, cypher TEXT NOT NULL, operators TEXT NOT NULL,
                answer TEXT NOT NULL, domain TEXT NOT NULL, aspect TEXT NOT NULL, verified_at REAL NOT NULL,
                kg_version TEXT NOT NULL, template TEXT, last_used REAL NOT NULL, hits INTEGER NOT NULL DEFAULT 0);
            CREATE INDEX plans_bucket ON plans(domain, aspect, last_used);""")
        conn.execute("INSERT INTO plans (dedupe, question, isr, cypher, operators, answer, domain, aspect, "
                     "verified_at, kg_version, template, last_used, hits) VALUES "
                     "('k', 'Who acted in Top Gun?', '{}', 'MATCH (n) RETURN n', '[]', 'x', 'movies', 'cast', "
                     "1.0, 'v1', NULL, 1.0, 3)")
    with PlanCache(path) as cache:
        [old] = cache.entries()
        assert (old.question, old.provenance, old.demoted, old.hits) == ("Who acted in Top Gun?", "online", False, 3)
        assert [e.id for e in cache.retrieve("Who acted in Top Gun?", "movies", "cast")] == [old.id]
        cache.demote([old.id])
        assert cache.retrieve("Who acted in Top Gun?", "movies", "cast") == []
    columns = [row[1] for row in sqlite3.connect(path).execute("PRAGMA table_info(plans)")]
    assert columns[-3:] == ["provenance", "demoted", "code_version"]
    with PlanCache(path) as cache:  # migrated once; opens again as is
        assert [e.demoted for e in cache.entries()] == [True]


# -- HTTP ------------------------------------------------------------------------------------------------
def test_post_feedback_up_and_down(client, pipe):
    asked = client.post("/ask", json={"question": MATRIX, "domain": "movies"}).get_json()
    resp = client.post("/feedback", json={"question": MATRIX, "domain": asked["domain"], "vote": "up",
                                          "cypher": asked["cypher"]})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["action"] == "verified" and body["plans"][0]["provenance"] == "user"
    assert body["kg_version"] == version(pipe) and body["message"]

    resp = client.post("/feedback", json={"question": MATRIX, "domain": "auto", "vote": "down"}, headers=OPERATOR)
    assert resp.status_code == 200 and resp.get_json()["answer_forgotten"] is True
    assert client.post("/ask", json={"question": MATRIX}).get_json()["cache"]["answer_hit"] is False
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'kgqa_feedback_total{vote="down"} 1' in metrics


@pytest.mark.parametrize("body,content_type,status,message", [
    (b'{"question": "Who directed', JSON, 400, "not valid JSON"),
    (b'[]', JSON, 400, "JSON object"),
    (json.dumps({"question": MATRIX, "domain": "movies", "vote": "up"}).encode(), "text/plain", 415, "Content-Type"),
    (json.dumps({"domain": "movies", "vote": "up"}).encode(), JSON, 400, "'question' is required"),
    (json.dumps({"question": "  ", "vote": "up"}).encode(), JSON, 400, "non-empty"),
    (json.dumps({"question": MATRIX, "domain": "weather", "vote": "up"}).encode(), JSON, 400, "unknown domain"),
    (json.dumps({"question": MATRIX, "domain": 7, "vote": "up"}).encode(), JSON, 400, "'domain' must be a string"),
    (json.dumps({"question": MATRIX, "domain": "movies"}).encode(), JSON, 400, "'vote' is required"),
    (json.dumps({"question": MATRIX, "vote": "meh"}).encode(), JSON, 400, "'vote' must be 'up' or 'down'"),
    (json.dumps({"question": MATRIX, "vote": True}).encode(), JSON, 400, "'vote' must be 'up' or 'down'"),
    (json.dumps({"question": MATRIX, "vote": "up", "cypher": 1}).encode(), JSON, 400, "'cypher' must be a string"),
    (json.dumps({"question": "x" * 301, "vote": "up"}).encode(), JSON, 413, "longer than 300"),
    (json.dumps({"question": MATRIX, "domain": "movies", "vote": "up"}).encode(), JSON, 404, "ask it first"),
])
def test_post_feedback_rejects_bad_input(client, pipe, body, content_type, status, message):
    resp = client.post("/feedback", data=body, content_type=content_type)
    assert resp.status_code == status
    assert resp.mimetype == JSON and message in resp.get_json()["error"]
    assert len(pipe.plan_cache) == 0


def test_post_feedback_with_another_cypher_is_a_conflict(client, pipe):
    client.post("/ask", json={"question": MATRIX, "domain": "movies"})
    resp = client.post("/feedback", json={"question": MATRIX, "domain": "movies", "vote": "down",
                                          "cypher": "MATCH (n) DETACH DELETE n"})
    assert resp.status_code == 409 and "changed since" in resp.get_json()["error"]
    assert (MATRIX, "movies", cache_version(pipe)) in pipe.answer_cache  # nothing was done
    assert not any(e.demoted for e in pipe.plan_cache.entries())


# -- the trust boundary: anonymous votes, the operator's token, rate limits ---------------------------------
def from_client(n: int) -> dict:
    return {"REMOTE_ADDR": f"10.0.0.{n}"}


def test_an_anonymous_thumbs_down_is_recorded_and_changes_nothing_for_others(client, pipe):
    r = pipe.ask(TOP_GUN, "movies")
    learned = by_cypher(pipe, r.cypher)
    assert learned and not any(e.demoted for e in learned)
    resp = client.post("/feedback", json={"question": TOP_GUN, "domain": "movies", "vote": "down"},
                       environ_base=from_client(1))
    body = resp.get_json()
    assert resp.status_code == 202 and body["action"] == "recorded" and body["applied"] is False
    assert (body["clients"], body["quorum"]) == (1, 3)
    assert not any(e.demoted for e in by_cypher(pipe, r.cypher))  # the plans stay live for everyone
    ask = {"question": TOP_GUN, "domain": "movies"}
    assert client.post("/ask", json=ask, environ_base=from_client(2)).get_json()["cache"]["answer_hit"] is True
    # the voter's own next ask is computed afresh
    assert client.post("/ask", json=ask, environ_base=from_client(1)).get_json()["cache"]["answer_hit"] is False
    # the same client voting again is still one client
    resp = client.post("/feedback", json={"question": TOP_GUN, "domain": "movies", "vote": "down"},
                       environ_base=from_client(1))
    assert resp.status_code == 202 and resp.get_json()["clients"] == 1


def test_enough_distinct_clients_apply_a_thumbs_down_for_everyone(client, pipe):
    r = pipe.ask(TOP_GUN, "movies")
    vote = {"question": TOP_GUN, "domain": "movies", "vote": "down"}
    assert client.post("/feedback", json=vote, environ_base=from_client(1)).status_code == 202
    assert client.post("/feedback", json=vote, environ_base=from_client(2)).status_code == 202
    resp = client.post("/feedback", json=vote, environ_base=from_client(3))
    assert resp.status_code == 200 and resp.get_json()["applied"] is True
    assert resp.get_json()["answer_forgotten"] is True
    assert all(e.demoted for e in by_cypher(pipe, r.cypher))


def test_the_operator_token_demotes_at_once_and_a_wrong_one_is_anonymous(client, pipe):
    r = pipe.ask(TOP_GUN, "movies")
    vote = {"question": TOP_GUN, "domain": "movies", "vote": "down"}
    wrong = client.post("/feedback", json=vote, headers={"Authorization": "Bearer operator-secreT"})
    assert wrong.status_code == 202 and not any(e.demoted for e in by_cypher(pipe, r.cypher))
    resp = client.post("/feedback", json=vote, headers=OPERATOR)
    assert resp.status_code == 200 and all(e.demoted for e in by_cypher(pipe, r.cypher))


def test_an_anonymous_thumbs_up_does_not_bring_back_a_demoted_plan(client, pipe):
    r = pipe.ask(TOP_GUN, "movies")
    client.post("/feedback", json={"question": TOP_GUN, "domain": "movies", "vote": "down"}, headers=OPERATOR)
    pipe.ask(TOP_GUN, "movies")
    resp = client.post("/feedback", json={"question": TOP_GUN, "domain": "movies", "vote": "up"},
                       environ_base=from_client(4))
    assert resp.status_code == 202 and resp.get_json()["applied"] is False
    assert all(e.demoted for e in by_cypher(pipe, r.cypher))


def test_votes_are_rate_limited_per_client_and_bounded_in_size(client, pipe):
    pipe.ask(MATRIX, "movies")
    vote = {"question": MATRIX, "domain": "movies", "vote": "down"}
    codes = [client.post("/feedback", json=vote, environ_base=from_client(5)).status_code for _ in range(8)]
    assert codes[:6] == [202] * 6 and codes[6:] == [429, 429]
    limited = client.post("/feedback", json=vote, environ_base=from_client(5))
    assert int(limited.headers["Retry-After"]) >= 1
    assert client.post("/feedback", json=vote, environ_base=from_client(6)).status_code == 202  # another client
    operator = client.post("/feedback", json=vote, environ_base=from_client(5), headers=OPERATOR)
    assert operator.status_code == 200  # the operator is never rate-limited
    big = client.post("/feedback", json=vote | {"cypher": "x" * 20_001}, environ_base=from_client(7))
    assert big.status_code == 413


def test_reload_is_off_without_a_token_and_needs_the_operator_with_one(pipe, tmp_path):
    off = create_app(build_pipeline(pipe.settings.with_(admin_token=""), plan_cache=PlanCache(tmp_path / "p"),
                                    answer_cache=AnswerCache()), votes=VoteLedger(tmp_path, quorum=3, max_votes=10))
    resp = off.test_client().post("/domains/reload", headers=OPERATOR)
    assert resp.status_code == 403 and "KGQA_ADMIN_TOKEN" in resp.get_json()["error"]
    on = create_app(pipe, votes=VoteLedger(tmp_path, quorum=3, max_votes=10)).test_client()
    assert on.post("/domains/reload").status_code == 401
    assert on.post("/domains/reload", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert on.post("/domains/reload", headers=OPERATOR).status_code == 200
