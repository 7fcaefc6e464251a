"""The one JSONL reader (kgqa/jsonl.py) and the files read through it: line numbers, blank lines, errors
that name the file and line, and each caller's own conversion of a bad line."""

from __future__ import annotations

import json

import pytest

from kgqa.jsonl import JsonlError, numbered_jsonl, read_jsonl


def test_values_with_their_line_numbers_blank_lines_skipped(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": 1}\n\n  \n"just a string"\n[1, 2]\n{"text": "a\u2028b"}\n', encoding="utf-8")
    assert list(numbered_jsonl(path)) == [(1, {"id": 1}), (4, "just a string"), (5, [1, 2]), (6, {"text": "a\u2028b"})]
    assert read_jsonl(path) == [{"id": 1}, "just a string", [1, 2], {"text": "a\u2028b"}]
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    assert read_jsonl(tmp_path / "empty.jsonl") == []


def test_a_bad_line_names_the_file_and_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1}\n\n{"id": 2\n', encoding="utf-8")
    with pytest.raises(JsonlError) as info:
        read_jsonl(path)
    assert str(info.value).startswith(f"{path}:3: not JSON (")
    assert (info.value.path, info.value.line) == (path, 3) and isinstance(info.value, ValueError)
    with pytest.raises(FileNotFoundError):
        read_jsonl(tmp_path / "missing.jsonl")


def test_eval_questions_keep_only_the_allowed_fields_and_exit_on_a_bad_line(tmp_path):
    from kgqa.planner.evaluate import read_questions

    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": "Who?", "domain": "movies", "gold_rows": [["x"]]}) + "\n\n"
                    + json.dumps({"id": "q2", "question": "What?"}) + "\n", encoding="utf-8")
    assert read_questions(path) == [{"id": "q1", "question": "Who?", "domain": "movies"},
                                    {"id": "q2", "question": "What?", "domain": None}]
    path.write_text('{"id": "q1", "question": "Who?"}\nnot json\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"q\.jsonl:2: not JSON"):
        read_questions(path)


def test_question_sets_report_the_file_line(tmp_path):
    from kgqa.evals.make_gold import GoldError, read_set

    good = {"id": "movies-1", "domain": "movies", "question": "Who?", "gold_cypher": "MATCH (n) RETURN n",
            "type": "lookup"}
    path = tmp_path / "movies.jsonl"
    path.write_text(json.dumps(good | {"type": "single-hop"}) + "\n\n" + json.dumps(good) + "\n", encoding="utf-8")
    with pytest.raises(GoldError, match=r"movies\.jsonl:3: type 'lookup'"):
        read_set(path)


def test_saved_answer_cache_entries_come_back_through_the_reader(tmp_path):
    from kgqa.cache.answer_cache import AnswerCache

    cache = AnswerCache(10)
    cache.put("Who directed The Matrix?", "movies", "v1", {"answer": "Lana Wachowski", "rows": [["Lana"]]})
    path = tmp_path / "answers.jsonl"
    assert cache.save(path) == 1
    fresh = AnswerCache(10)
    assert fresh.load(path) == 1
    assert fresh.get("Who directed The Matrix?", "movies", "v1")["answer"] == "Lana Wachowski"
    path.write_text(path.read_text() + "{truncated\n")
    with pytest.raises(JsonlError, match=r"answers\.jsonl:2:"):
        AnswerCache(10).load(path)
