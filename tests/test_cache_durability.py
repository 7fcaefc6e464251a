"""Cache durability: atomic batches under kill -9, recency across restarts, invalidation on a real KG rebuild."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kgqa.cache.plan_cache import PlanCache
from kgqa.cache.plan_entry import PlanEntry
from kgqa.planner.version import answer_version

REPO = Path(__file__).resolve().parent.parent


def test_kill_9_mid_batch_keeps_every_committed_batch_and_no_partial_one(tmp_path):
    """A writer adding batches of 40 in one transaction each is SIGKILLed at a random moment: every batch it
    reported committed is there, and no batch is half there (a transaction is all or nothing)."""
    writer = """
        import sys
        from kgqa.cache.plan_cache import PlanCache
        from kgqa.cache.plan_entry import PlanEntry
        c = PlanCache(sys.argv[1], bound=0)
        b = 0
        while True:
            batch = [PlanEntry(question=f"Which movies did actor {b}-{i} act in? " + "pad " * 50,
                               cypher=f"RETURN {b * 1000 + i}", domain="movies", aspect="relation",
                               kg_version=str(b)) for i in range(40)]
            c.add_many(batch)
            print(b, flush=True)  # printed only after the COMMIT of the batch
            b += 1
    """
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(writer), str(tmp_path)], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    committed: list[int] = []
    try:
        while len(committed) < 12:
            line = proc.stdout.readline()
            assert line, "writer died"
            committed.append(int(line))
        time.sleep(0.013)  # land somewhere inside the next batches
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    conn = sqlite3.connect(tmp_path / "plan_cache.sqlite")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    per_batch = dict(conn.execute("SELECT kg_version, count(*) FROM plans GROUP BY kg_version").fetchall())
    conn.close()
    assert all(per_batch.get(str(b)) == 40 for b in committed)  # nothing committed was lost
    assert set(per_batch.values()) == {40}  # and no batch is partly there
    with PlanCache(tmp_path) as c:  # the reopened cache indexes all of it
        assert len(c) == 40 * len(per_batch)
        assert len(c.retrieve("Which movies did actor 3-7 act in?", "movies", "relation", k=5)) == 5


def test_recency_survives_restart_so_bounded_eviction_stays_lru(tmp_path):
    """Retrieval touches are written on close; after a restart the bounded cache still evicts by them."""
    def e(q: str) -> PlanEntry:
        return PlanEntry(question=q, cypher=f"RETURN '{q}'", domain="movies", aspect="relation")

    with PlanCache(tmp_path, bound=3) as c:
        old = c.add(e("Who acted in The Matrix?"))
        c.add(e("Who acted in Top Gun?"))
        c.add(e("Who acted in Cast Away?"))
        time.sleep(0.01)
        assert c.top_k_bm25("Who acted in The Matrix?", "movies", "relation", k=1)[0].id == old.id
    with PlanCache(tmp_path, bound=3) as c:  # a new process would see the same file
        assert c.get(old.id).hits == 1
        c.add(e("Who acted in Apollo 13?"))
        left = {x.question for x in c.entries()}
    assert "Who acted in The Matrix?" in left  # touched before the restart: kept
    assert "Who acted in Top Gun?" not in left  # the least recently used: evicted


def test_kg_rebuild_invalidates_plans_and_answers(tmp_path, data_dir):
    """Rebuild the movies graph from changed source data: the service opened on the new graph drops the
    plans learnt on the old version, and answers cached under the old version are no longer served."""
    from kgqa.cache.answer_cache import AnswerCache
    from kgqa.kg.loader import build_domain
    from kgqa.planner.pipeline import build_pipeline
    from kgqa.settings import Settings

    src = tmp_path / "data"
    src.mkdir()
    shutil.copy(Path(data_dir) / "movies.cypher", src / "movies.cypher")
    home = tmp_path / "home"
    settings = Settings(home=home, data_dir=src)
    # no fuzzy entity index: exact value linking answers the question, and the test stays fast
    v1 = build_domain("movies", src, settings.graphs_dir, progress=False, index=False).version

    answers = AnswerCache(100)
    pipe = build_pipeline(settings, answer_cache=answers, domains=["movies"])
    assert pipe.answer_cache is answers  # an empty cache passed in is kept, not replaced
    q = "Who directed The Matrix?"
    first = pipe.ask(q, "movies")
    assert first.status == "answered" and first.kg_version == v1
    assert pipe.ask(q, "movies").cache["answer_hit"]
    assert [e.kg_version for e in pipe.plan_cache.entries("movies")] == [v1]
    pipe.plan_cache.close()
    for d in pipe.domains.values():
        d.graph.close()

    text = (src / "movies.cypher").read_text(encoding="utf-8")
    (src / "movies.cypher").write_text(text.replace("Welcome to the Real World", "Welcome to the Desert"),
                                       encoding="utf-8")
    v2 = build_domain("movies", src, settings.graphs_dir, progress=False, index=False).version
    assert v2 != v1

    again = build_pipeline(settings, answer_cache=answers, domains=["movies"])  # same state dir, same answers
    try:
        assert again.plan_cache.entries("movies") == []  # plans of v1 were dropped on open
        r = again.ask(q, "movies")
        assert r.kg_version == v2 and not r.cache["answer_hit"]  # the v1 answer is not served
        assert sorted(map(str, r.rows)) == sorted(map(str, first.rows))
        assert [e.kg_version for e in again.plan_cache.entries("movies")] == [v2]  # relearnt on v2
        # only the stale v1 answer remains to drop (answers are kept under KG + compiler version)
        assert answers.invalidate("movies", keep_version=answer_version(v2)) == 1
    finally:
        again.plan_cache.close()
        for d in again.domains.values():
            d.graph.close()
