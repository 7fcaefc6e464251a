"""Answer cache: LRU order and bounds, pruning + compression, statistics, threads, persistence."""

from __future__ import annotations

import json
import random
import threading

import pytest

from kgqa.cache.answer_cache import AnswerCache, normalize_question, prune
from kgqa.types import Result


def result(question: str, n_rows: int = 3, answer: str = "yes") -> dict:
    rows = [[f"Product {i}", i * 1.5, "Beverages"] for i in range(n_rows)]
    return Result(question=question, domain="northwind", status="answered", answer=answer,
                  cypher="MATCH (p:Product) RETURN p.productName", columns=["name", "price", "category"],
                  rows=rows, kg_version="v1").to_dict()


def test_key_normalization():
    assert normalize_question("  Who   ACTED in The Matrix?! ") == "who acted in the matrix"
    c = AnswerCache(10)
    c.put("Who acted in The Matrix?", "movies", "v1", result("q"))
    assert c.get("who acted in the   matrix", "movies", "v1") is not None
    assert c.get("Who acted in The Matrix?", "movies", "v2") is None  # another KG version
    assert c.get("Who acted in The Matrix?", "nobel", "v1") is None


def test_lru_order_and_entry_bound():
    c = AnswerCache(max_entries=3)
    for q in "abc":
        c.put(q, "d", "v", result(q))
    assert c.get("a", "d", "v") is not None  # a becomes most recent
    c.put("d", "d", "v", result("d"))  # evicts b, the least recently used
    assert [k[0] for k in c.keys()] == ["c", "a", "d"]
    assert c.get("b", "d", "v") is None
    s = c.stats()
    assert (s["entries"], s["evictions"], s["hits"], s["misses"]) == (3, 1, 1, 1)


def test_byte_bound():
    one = len(json.dumps(result("x", 20), separators=(",", ":")))
    c = AnswerCache(max_entries=100, max_bytes=int(one * 2.5))
    for q in "abcd":
        c.put(q, "d", "v", result(q, 20))
    s = c.stats()
    assert s["entries"] == 2 and s["stored_bytes"] <= c.max_bytes and s["evictions"] == 2
    assert c.put("huge", "d", "v", result("huge", 2000)) is False  # larger than the whole cache
    assert len(c) == 2


def test_values_are_copies():
    c = AnswerCache(10)
    v = result("q")
    c.put("q", "d", "v", v)
    v["rows"].append(["mutated"])
    got = c.get("q", "d", "v")
    got["rows"].clear()
    assert len(c.get("q", "d", "v")["rows"]) == 3


def test_memory_efficient_round_trip_with_pruning_and_compression():
    c = AnswerCache(100, prune_rows=50, compress=True, compress_min_bytes=512)
    big = result("big", n_rows=500)
    big["subgraph"] = {"nodes": {f"P:{i}": {"_label": "P", "name": f"n{i}"} for i in range(200)},
                       "edges": [{"src": "a", "rel": "R", "dst": f"P:{i}", "props": {}} for i in range(200)]}
    c.put("big", "d", "v", big)
    got = c.get("big", "d", "v")
    assert got["rows"] == big["rows"][:50] and got["answer"] == big["answer"]
    assert len(got["subgraph"]["nodes"]) == 50 and len(got["subgraph"]["edges"]) == 50
    assert got["cache"]["rows_pruned"] is True and got["rows_total"] == 500
    assert Result.from_dict(got).rows == big["rows"][:50]
    small = result("small", n_rows=2)
    c.put("small", "d", "v", small)
    assert c.get("small", "d", "v") == small  # under every threshold: unchanged, not flagged
    s = c.stats()
    assert s["pruned"] == 1 and s["compressed"] == 1
    assert s["stored_bytes"] < 0.2 * s["original_bytes"] and s["saved_pct"] > 80


def test_compression_only_when_it_saves_ten_percent():
    from zlib_ng import zlib_ng

    c = AnswerCache(10, compress=True, compress_min_bytes=64)
    rnd = random.Random(7)
    alphabet = [ch for ch in map(chr, range(33, 127)) if ch not in '"\\']
    noisy = {"answer": "".join(rnd.choice(alphabet) for _ in range(90))}
    data = json.dumps(noisy, separators=(",", ":")).encode()
    assert len(data) >= 64 and len(zlib_ng.compress(data, 6)) > 0.9 * len(data)  # saves < 10%
    c.put("noisy", "d", "v", noisy)
    assert c.stats()["compressed"] == 0 and c.stats()["stored_bytes"] == len(data)
    assert c.get("noisy", "d", "v") == noisy
    c.put("plain", "d", "v", result("plain", 40))
    assert c.stats()["compressed"] == 1
    c2 = AnswerCache(10, compress=True, compress_min_bytes=10**6)
    c2.put("plain", "d", "v", result("plain", 40))
    assert c2.stats()["compressed"] == 0  # below the size threshold: stored as JSON


def test_small_results_compress_against_the_preset_dictionary():
    """A ~1 KiB result (the common size) shrinks by well over half, and comes back identical."""
    from zlib_ng import zlib_ng

    version = "45c1332599211db35501434c10fae27c95135018a925390523eff467adae3f8c"
    v = Result(question="Who directed The Matrix?", domain="movies", status="answered",
               answer="Lilly Wachowski and Lana Wachowski (2 in all).",
               cypher="MATCH (p:Person)-[:DIRECTED]->(m:Movie) WHERE m.title = 'The Matrix' RETURN DISTINCT p.name",
               columns=["p.name"], rows=[["Lilly Wachowski"], ["Lana Wachowski"]], evidence="rows",
               isr={"entity": "The Matrix", "constraints": ["directed"], "domain": "movies", "aspect": "relation",
                    "answer_type": None, "literals": []},
               candidates=[{"label": "Movie", "key": "The Matrix", "name": "The Matrix", "score": 1.0,
                            "prop": "title", "source": "exact"}],
               timings_ms={"parse_route": 1.9, "link": 3.9, "compile": 15.0, "repair": 8.6, "execute": 3.9},
               cache={"answer_hit": False, "plan_hit": False, "llm_calls": 0}, kg_version=version).to_dict()
    raw = json.dumps(v, separators=(",", ":")).encode()
    c = AnswerCache(10, compress=True, prune_rows=50)
    c.put(v["question"], "movies", version, v)
    s = c.stats()
    assert s["compressed"] == 1 and s["stored_bytes"] < 0.4 * len(raw)
    assert s["stored_bytes"] < 0.8 * len(zlib_ng.compress(raw, 6))  # the dictionary, not deflate alone
    assert c.get("who directed the matrix", "movies", version) == v


def test_prune_leaves_short_values_alone():
    v = result("q", 3)
    assert prune(v, 5) == (v, False)


def test_thread_safety_smoke():
    c = AnswerCache(max_entries=64, max_bytes=200_000, prune_rows=10, compress=True, compress_min_bytes=256)
    errors: list[BaseException] = []

    def hammer(seed: int) -> None:
        rnd = random.Random(seed)
        try:
            for _ in range(400):
                q = f"question {rnd.randrange(100)}"
                if rnd.random() < 0.5:
                    c.put(q, "d", "v", result(q, rnd.randrange(1, 40)))
                else:
                    got = c.get(q, "d", "v")
                    assert got is None or got["question"] == q
        except BaseException as err:  # noqa: BLE001 - reported by the main thread
            errors.append(err)

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    s = c.stats()
    assert s["entries"] <= 64 and s["stored_bytes"] <= 200_000
    assert s["hits"] + s["misses"] > 0 and s["puts"] > 0
    assert s["stored_bytes"] == sum(len(c._data[k].payload) for k in c.keys())  # byte count stays exact


def test_invalidate_by_kg_version():
    c = AnswerCache(10)
    c.put("a", "movies", "v1", result("a"))
    c.put("b", "movies", "v2", result("b"))
    c.put("c", "nobel", "v1", result("c"))
    assert c.invalidate("movies", keep_version="v2") == 1
    assert ("a", "movies", "v1") not in c and ("b", "movies", "v2") in c and ("c", "nobel", "v1") in c


def test_save_and_load_atomically(tmp_path):
    c = AnswerCache(10, prune_rows=5, compress=True, compress_min_bytes=100)
    for q in "abc":
        c.put(q, "d", "v", result(q, 30))
    c.get("a", "d", "v")
    path = tmp_path / "answers.jsonl"
    assert c.save(path) == 3
    assert not list(tmp_path.glob("*.tmp"))
    again = AnswerCache(10)
    assert again.load(path) == 3
    assert [k[0] for k in again.keys()] == ["b", "c", "a"]  # LRU order survives
    got = again.get("a", "d", "v")
    assert len(got["rows"]) == 5 and got["cache"]["rows_pruned"] is True
    assert AnswerCache(10).load(tmp_path / "missing.jsonl") == 0


def test_semantic_hits_are_off_by_default_and_thresholded():
    pytest.importorskip("sentence_transformers")
    exact = AnswerCache(10)
    exact.put("Which movies did Tom Hanks act in?", "movies", "v1", result("tom"))
    assert exact.get("What films did Tom Hanks act in?", "movies", "v1") is None
    sem = AnswerCache(10, semantic_threshold=0.85)
    sem.put("Which movies did Tom Hanks act in?", "movies", "v1", result("tom"))
    sem.put("Who directed The Matrix?", "movies", "v1", result("matrix"))
    got = sem.get("Which films did Tom Hanks act in?", "movies", "v1")
    assert got is not None and got["question"] == "tom" and got["cache"]["semantic_hit"] is True
    assert sem.get("Which films did Tom Hanks act in?", "movies", "v2") is None  # other KG version
    assert sem.get("How many Nobel prizes were awarded in 1921?", "movies", "v1") is None
    assert sem.stats()["semantic_hits"] == 1


def test_opened_from_settings(tmp_path):
    from kgqa.cache.store import open_answer_cache, open_plan_cache
    from kgqa.settings import Settings

    s = Settings(home=tmp_path, answer_cache_entries=7, answer_prune_rows=4, plan_bucket_bound=3)
    ac = open_answer_cache(s)
    assert (ac.max_entries, ac.prune_rows, ac.compress, ac.semantic_threshold) == (7, 4, True, 0.0)
    assert open_answer_cache(s, memory_efficient=False).prune_rows == 0
    with open_plan_cache(s) as pc:
        assert pc.bound == 3 and pc.path == tmp_path / "state" / "plan_cache.sqlite" and pc.path.exists()
