"""Execution-accuracy scorer: cells, rows, columns, files."""

from __future__ import annotations

import json

import pytest

from kgqa.evals.scorer import main, score_file, score_records
from kgqa.kg.compare import numbers_equal, rows_match, values_equal

# -- cells -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("pred, gold", [
    (19, 19.0), (19.0, 19), (28.733333, 28.73), (28.73, 28.733333), (75.66666666666667, 75.67),
    (1966.0, 1966), (0.1 + 0.2, 0.3), (1234567.0000001, 1234567), ("Tom Hanks", "Tom Hanks"),
    (None, None), (True, True), (["Neo", "Thomas Anderson"], ["Thomas Anderson", "Neo"]),
    ("Cafe\u0301", "Café"),
])
def test_values_equal(pred, gold):
    assert values_equal(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    (19.4, 19),  # round-half tolerance only applies to golds written with 1-2 decimals
    (28.74, 28.733333),
    (28.8, 28.73),
    (28.7351, 28.73),
    (1, True), (0, False), (True, 1),  # booleans are not numbers
    ("19", 19), (None, 0), ("tom hanks", "Tom Hanks"),
    (["Neo"], ["Neo", "Neo"]), (["Neo"], "Neo"),
])
def test_values_differ(pred, gold):
    assert not values_equal(pred, gold)


def test_numbers_equal_relative_tolerance():
    assert numbers_equal(1e9, 1e9 + 100)
    assert not numbers_equal(1e9, 1e9 + 10_000)
    assert not numbers_equal(float("nan"), float("nan"))


def test_dates_compare_by_iso_text():
    import datetime as dt

    assert values_equal(dt.date(1922, 6, 19), "1922-06-19")
    assert not values_equal(dt.date(1922, 6, 19), "1922-06-20")


# -- rows ------------------------------------------------------------------------------------------
GOLD = [["The Matrix", 1999], ["Cast Away", 2000], ["Top Gun", 1986]]


def test_unordered_ignores_row_order():
    assert rows_match(list(reversed(GOLD)), GOLD, ordered=False)


def test_ordered_requires_row_order():
    assert rows_match(GOLD, GOLD, ordered=True)
    assert not rows_match(list(reversed(GOLD)), GOLD, ordered=True)


def test_duplicates_count():
    assert not rows_match([["Keanu Reeves"]], [["Keanu Reeves"], ["Keanu Reeves"]], ordered=False)
    assert not rows_match([["Keanu Reeves"], ["Keanu Reeves"]], [["Keanu Reeves"]], ordered=False)
    assert rows_match([["a"], ["b"], ["a"]], [["a"], ["a"], ["b"]], ordered=False)
    assert not rows_match([["a"], ["b"], ["b"]], [["a"], ["a"], ["b"]], ordered=False)


def test_rendered_nodes_compare_by_display_value():
    # kg.schema.render_row turns a Person node into its name: compared like any string
    assert rows_match([["Lana Wachowski"], ["Lilly Wachowski"]], [["Lilly Wachowski"], ["Lana Wachowski"]],
                      ordered=False)
    assert not rows_match([["Lana Wachowski"]], [["Lilly Wachowski"]], ordered=False)


def test_unrendered_node_dicts_compare_key_by_key():
    node = {"name": "Tom Hanks", "born": 1956, "_label": "Person"}
    assert rows_match([[dict(node)]], [[node]], ordered=False)
    assert not rows_match([[node | {"born": 1957}]], [[node]], ordered=False)


def test_numeric_tolerance_in_rows():
    gold = [["The Replacements", 75.67], ["Cloud Atlas", 95]]
    pred = [["Cloud Atlas", 95.0], ["The Replacements", 75.66666666666667]]
    assert rows_match(pred, gold, ordered=False)
    assert not rows_match([["Cloud Atlas", 95.0], ["The Replacements", 75.5]], gold, ordered=False)


def test_tolerant_matching_finds_a_perfect_pairing():
    # 2.549 equals both golds (2.5 at one decimal, 2.549 exactly), 2.46 only the gold 2.5: pairing
    # 2.549 with 2.5 first would strand the gold 2.549; a perfect matching exists and must be found
    gold = [["x", 2.5], ["x", 2.549]]
    pred = [["x", 2.549], ["x", 2.46]]
    assert rows_match(pred, gold, ordered=False)
    assert not rows_match([["x", 2.46], ["x", 2.46]], gold, ordered=False)


def test_int_and_float_rows():
    assert rows_match([[38]], [[38.0]], ordered=False)
    assert rows_match([[38.0]], [[38]], ordered=True)


def test_decimal_sums_are_numbers():
    """Kuzu returns the sum of an INT64 property as a ``Decimal``: a number like any other, not text."""
    from decimal import Decimal

    assert rows_match([[Decimal("21993")]], [[21993]], ordered=False)
    assert rows_match([["x", Decimal("1.5")]], [["x", 1.5]], ordered=False, lenient=False)
    assert not rows_match([[Decimal("21993")]], [["21993"]], ordered=False)


def test_empty_gold_matches_only_empty_prediction():
    assert rows_match([], [], ordered=False)
    assert not rows_match([["The Matrix"]], [], ordered=False)
    assert not rows_match([], [["The Matrix"]], ordered=False)
    assert not rows_match(None, [], ordered=False)  # the query failed: no result set at all


def test_scalar_rows_are_single_cells():
    assert rows_match(["a", "b"], [["b"], ["a"]], ordered=False)


def test_column_reordering_is_lenient_not_strict():
    pred = [[1999, "The Matrix"], [2000, "Cast Away"], [1986, "Top Gun"]]
    assert rows_match(pred, GOLD, ordered=False)
    assert not rows_match(pred, GOLD, ordered=False, lenient=False)


def test_extra_predicted_columns_are_lenient_not_strict():
    gold = [["The Matrix"], ["Cast Away"]]
    pred = [["The Matrix", 1999, "Welcome to the Real World"], ["Cast Away", 2000, None]]
    assert rows_match(pred, gold, ordered=False)
    assert not rows_match(pred, gold, ordered=False, lenient=False)


def test_column_mapping_is_consistent_across_rows():
    # each gold column appears in some predicted column only if rows are split differently
    gold = [["a", "x"], ["b", "y"]]
    pred = [["a", "y"], ["b", "x"]]
    assert not rows_match(pred, gold, ordered=False)
    assert not rows_match([["y", "a"], ["x", "b"]], gold, ordered=False)


def test_same_valued_columns_are_mapped_injectively():
    gold = [[1, 1]]
    assert not rows_match([[1]], gold, ordered=False)  # a predicted column cannot serve twice
    assert rows_match([[1, 2, 1]], gold, ordered=False)


def test_missing_gold_column_fails():
    assert not rows_match([["The Matrix"], ["Cast Away"], ["Top Gun"]], GOLD, ordered=False)


def test_extra_rows_fail_even_when_lenient():
    assert not rows_match(GOLD + [["Twister", 1996]], GOLD, ordered=False)


def test_ordered_with_reordered_columns():
    pred = [[y, t] for t, y in GOLD]
    assert rows_match(pred, GOLD, ordered=True)
    assert not rows_match(list(reversed(pred)), GOLD, ordered=True)


# -- files -----------------------------------------------------------------------------------------
def _gold(i, rows, qtype, ordered=False, question="q"):
    return {"id": f"g{i}", "domain": "movies", "question": question, "gold_cypher": "RETURN 1",
            "gold_rows": rows, "type": qtype, "ordered": ordered}


def _pred(i, rows, answer, status="answered", cypher="MATCH (n) RETURN n"):
    return {"id": f"g{i}", "question": "q", "domain": "movies", "cypher": cypher, "rows": rows,
            "answer": answer, "status": status, "timings_ms": {"total": 10.0 * i}, "cache": {}}


GOLDS = [
    _gold(1, [["Lana Wachowski"], ["Lilly Wachowski"]], "single-hop", question="Who directed The Matrix?"),
    _gold(2, [[12]], "aggregation", question="How many movies has Tom Hanks acted in?"),
    _gold(3, [], "empty", question="Which movies did Keanu Reeves direct?"),
    _gold(4, [["Tom Hanks", 1956]], "comparison", question="Who is older?"),
]
PREDS = [
    _pred(1, [["Lilly Wachowski"], ["Lana Wachowski"]], "Lilly Wachowski and Lana Wachowski."),
    _pred(2, [[11]], "Tom Hanks acted in 11 movies."),
    _pred(3, None, "I don't know.", status="dont_know", cypher=None),
    _pred(4, [[1956, "Tom Hanks"]], "Tom Hanks (born 1956)."),
]


def test_score_records_counts():
    report = score_records(PREDS, GOLDS)
    assert report.total.n == 4
    assert report.execution_accuracy == pytest.approx(2 / 4)  # g1, g4 (columns reordered)
    assert report.execution_accuracy_strict == pytest.approx(1 / 4)
    assert report.executable_rate == pytest.approx(3 / 4)
    assert report.dont_know_rate == pytest.approx(1 / 4)
    assert (report.total.accurate, report.total.missing, report.total.hallucinated) == (2, 1, 1)
    assert report.truthfulness == pytest.approx(2 / 4 - 1 / 4)
    assert set(report.by_type) == {"single-hop", "aggregation", "empty", "comparison"}
    assert report.by_type["aggregation"].ex == 0
    assert report.latency_ms()["p50"] == pytest.approx(25.0)


def test_latency_sums_stages_without_a_total():
    pred = _pred(1, [["Lana Wachowski"], ["Lilly Wachowski"]], "Lana and Lilly Wachowski")
    pred["timings_ms"] = {"link": 2.0, "compile": 3.5, "execute": 1.5}
    assert score_records([pred], GOLDS[:1]).items[0].total_ms == pytest.approx(7.0)


def test_error_status_is_not_executable():
    pred = _pred(1, [], "Something went wrong", status="error")
    report = score_records([pred], [_gold(1, [], "empty")])
    assert report.executable_rate == 0
    assert report.execution_accuracy == 0


def test_missing_prediction_scores_zero():
    report = score_records(PREDS[:1], GOLDS[:2])
    assert report.missing_predictions == ["g2"]
    assert report.total.n == 2 and report.total.ex == 1 and report.total.missing == 1


def test_score_file_and_cli(tmp_path, capsys):
    pred_path, gold_path, out = tmp_path / "pred.jsonl", tmp_path / "gold.jsonl", tmp_path / "report.json"
    pred_path.write_text("".join(json.dumps(p) + "\n" for p in PREDS))
    gold_path.write_text("".join(json.dumps(g) + "\n" for g in GOLDS))
    report = score_file(pred_path, gold_path)
    assert report.execution_accuracy == pytest.approx(0.5)
    assert main(["--pred", str(pred_path), "--gold", str(gold_path), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "aggregation" in printed and "50.0%" in printed
    saved = json.loads(out.read_text())
    assert saved["total"]["ex"] == pytest.approx(0.5) and len(saved["items"]) == 4


def test_ordered_ties_are_free_and_a_tie_cut_by_the_limit_may_keep_other_members():
    gold = [["Formaggi", 110], ["Exotic", 110], ["New Orleans", 100]]
    assert rows_match([["Exotic", 110], ["Formaggi", 110], ["New Orleans", 100]], gold, ordered=True)
    # not a tie: the order of different keys still counts
    assert not rows_match([["New Orleans", 100], ["Exotic", 110], ["Formaggi", 110]], gold, ordered=True)
    # a tie at the cut: "top 3" where four rows share 1
    gold = [["Meat", 4], ["Condiments", 1], ["Beverages", 1]]
    assert rows_match([["Meat", 4], ["Grains", 1], ["Condiments", 1]], gold, ordered=True)
    # but a wrong member before the last run is wrong, and so is a wrong key
    assert not rows_match([["Grains", 4], ["Condiments", 1], ["Beverages", 1]], gold, ordered=True)
    assert not rows_match([["Meat", 4], ["Condiments", 1], ["Beverages", 2]], gold, ordered=True)
    # the same with more columns returned (a key beside each name): the gold's columns mapped onto them
    assert rows_match([["Meat", "6", 4], ["Grains", "5", 1], ["Condiments", "2", 1]], gold, ordered=True)
    assert not rows_match([["Meat", "6", 4], ["Grains", "5", 1], ["Condiments", "2", 1]], gold, ordered=True,
                          lenient=False)
    assert not rows_match([["Grains", "5", 4], ["Meat", "6", 1], ["Condiments", "2", 1]], gold, ordered=True)


def test_unanswerable_is_right_only_when_declined():
    """An ``unanswerable`` gold (empty rows, no query) is right when the service declines and wrong when it
    answers, even with an empty result that would match an ``empty`` gold; other types are unchanged."""
    from kgqa.evals.scorer import outcome, outcome_table

    gold = _gold(5, [], "unanswerable", question="Which movies have more than 100 votes?")
    answered_empty = _pred(5, [], "There are no movies with more than 100 votes.")
    answered_rows = _pred(5, [["The Matrix"]], "The Matrix.")
    dont_know = _pred(5, None, "I don't know.", status="dont_know", cypher=None)
    dont_know_text = _pred(5, [], "I don't know: the graph holds no vote counts.")

    def item(pred):
        return score_records([pred], [gold]).items[0]

    for pred in (answered_empty, answered_rows):
        scored = item(pred)
        assert (scored.ex, scored.ex_strict, scored.judgement, outcome(scored)) == \
            (False, False, "hallucinated", "wrong")
    for pred in (dont_know, dont_know_text):
        scored = item(pred)
        assert (scored.ex, scored.ex_strict, scored.judgement, outcome(scored)) == (True, True, "accurate", "right")

    report = score_records([dont_know, PREDS[2]], [gold, GOLDS[2]])
    # the same decline on an ``empty`` gold (the right answer is "none") is still declined, not right
    assert [outcome(i) for i in report.items] == ["right", "declined"]
    assert report.execution_accuracy == pytest.approx(1 / 2)
    assert report.by_type["unanswerable"].ex == 1 and report.by_type["empty"].ex == 0
    assert outcome_table(report.items) == {"other": {"questions": 2, "right": 1, "wrong": 0, "declined": 1}}
    # an empty answer to the ``empty`` gold is right, to the ``unanswerable`` one wrong
    report = score_records([answered_empty | {"id": "g3"}, answered_empty], [GOLDS[2], gold])
    assert [outcome(i) for i in report.items] == ["right", "wrong"]
    # no prediction line at all: declined, for an unanswerable gold as for any other
    assert outcome(score_records([], [gold]).items[0]) == "declined"
