"""CRAG-style answer judge: accurate / missing / hallucinated, and comparing two judges."""

from __future__ import annotations

import pytest

from kgqa.evals.judge import (
    LABELS,
    LLMJudge,
    compare_judges,
    gold_values,
    is_dont_know,
    judge_answer,
    normalize,
    numbers_in,
)


def label(answer, gold, **kw):
    return judge_answer(answer, gold, **kw).label


# -- missing ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("answer", [
    "", "   ", "I don't know.", "I do not know the answer to that.", "I dont know", "I don\u2019t know",
    "Sorry, I cannot answer that question.", "I'm not sure.", "No answer found.",
    "I don't have enough information to answer.", "Unable to determine who directed it.",
])
def test_dont_know_phrasings_are_missing(answer):
    assert label(answer, [["Lana Wachowski"]]) == "missing"
    assert label(answer, []) == "missing"  # even when the right answer is "none"


@pytest.mark.parametrize("status", ["dont_know", "error", "refused"])
def test_pipeline_status_means_missing(status):
    assert label("Lana Wachowski", [["Lana Wachowski"]], status=status) == "missing"


def test_answered_status_is_judged_on_the_text():
    assert not is_dont_know("Lana Wachowski", "answered")


# -- accurate --------------------------------------------------------------------------------------
def test_all_values_present_is_accurate():
    gold = [["Lana Wachowski"], ["Lilly Wachowski"]]
    assert label("The Matrix was directed by Lilly Wachowski and Lana Wachowski.", gold) == "accurate"


def test_normalization_of_case_accents_and_punctuation():
    assert normalize("  Gustaf's  Knäckebröd!! ") == "gustafs knackebrod"
    assert label("gustafs knackebrod", [["Gustaf's Knäckebröd"]]) == "accurate"
    assert label("CARRIE ANNE MOSS", [["Carrie-Anne Moss"]]) == "accurate"


def test_words_must_match_whole():
    assert label("Tom Hanksley", [["Tom Hanks"]]) == "hallucinated"


def test_numbers_with_tolerance_and_formatting():
    assert label("The average rating is 75.67.", [[75.66666666666667]]) == "accurate"
    assert label("About 75.7 on average.", [[75.66666666666667]]) == "accurate"
    assert label("Tom Hanks acted in 12 movies.", [[12]]) == "accurate"
    assert label("Tom Hanks acted in twelve movies.", [[12]]) == "accurate"
    assert label("The prize was 10,000,000 SEK.", [[10000000]]) == "accurate"
    assert label("38.0", [[38]]) == "accurate"


def test_dates_in_written_form():
    assert label("Aage N. Bohr was born on June 19, 1922.", [["1922-06-19"]]) == "accurate"
    assert label("Born 19 June 1922.", [["1922-06-19"]]) == "accurate"
    assert label("Born 1922-06-19.", [["1922-06-19"]]) == "accurate"


def test_booleans_as_yes_no():
    assert label("Yes, The Matrix came out first.", [[True]]) == "accurate"
    assert label("No, Hugo Weaving is older.", [[False]]) == "accurate"
    assert label("Tom Hanks did act in more movies.", [[True]]) == "accurate"
    assert label("He did not.", [[False]]) == "accurate"
    assert label("Hugo Weaving isn't younger.", [[False]]) == "accurate"


def test_empty_gold_accepts_statements_of_none():
    for answer in ("Keanu Reeves did not direct any movies.", "None.", "There are no such movies.",
                   "Keanu Reeves hasn't directed anything in this graph.", "0"):
        assert label(answer, []) == "accurate", answer


def test_zero_count_answered_with_none():
    assert label("There are none.", [[0]]) == "accurate"


def test_large_gold_sets_need_ninety_percent():
    names = [f"Person {chr(65 + i)}" for i in range(20)]
    gold = [[n] for n in names]
    assert label(", ".join(names[:18]), gold) == "accurate"  # 90%
    assert label(", ".join(names[:17]), gold) == "hallucinated"  # 85%
    small = gold[:10]
    assert label(", ".join(names[:9]), small) == "hallucinated"  # up to 10 values: all required


def test_list_cells_are_flattened():
    gold = [["The Polar Express", ["Hero Boy", "Conductor"]]]
    assert gold_values(gold) == ["The Polar Express", "Hero Boy", "Conductor"]
    assert label("In The Polar Express he played Hero Boy and the Conductor.", gold) == "accurate"


def test_numbered_list_markers_are_not_stray_numbers():
    gold = [["Lilly Wachowski", 5], ["Lana Wachowski", 5]]
    assert label("1. Lilly Wachowski (5)\n2. Lana Wachowski (5)", gold) == "accurate"


def test_numbers_from_question_are_not_contradictions():
    gold = [[4]]
    assert label("4 movies came out between 2000 and 2005.", gold,
                 question="How many movies came out between 2000 and 2005?") == "accurate"
    assert label("4 movies came out between 2000 and 2005.", gold) == "hallucinated"


# -- hallucinated ----------------------------------------------------------------------------------
def test_wrong_value_is_hallucinated():
    assert label("The Matrix was directed by Joel Silver.", [["Lana Wachowski"], ["Lilly Wachowski"]]) \
        == "hallucinated"


def test_partial_answer_is_hallucinated():
    assert label("Lana Wachowski.", [["Lana Wachowski"], ["Lilly Wachowski"]]) == "hallucinated"


def test_number_contradiction():
    verdict = judge_answer("Tom Hanks acted in 12 movies, or maybe 13.", [[12]])
    assert verdict.label == "hallucinated" and "13" in verdict.reason
    assert label("Tom Hanks acted in 11 movies.", [[12]]) == "hallucinated"


def test_yes_no_contradiction():
    assert label("Yes, Hugo Weaving is younger.", [[False]]) == "hallucinated"
    assert label("No.", [[True]]) == "hallucinated"
    assert label("Hugo Weaving was born in 1960.", [[False]]) == "hallucinated"  # no yes/no at all


def test_listing_everything_is_hallucinated():
    gold = [["Joe Versus the Volcano"], ["Snow Falling on Cedars"], ["When Harry Met Sally"], ["You've Got Mail"]]
    everything = ", ".join(["The Matrix", "Top Gun", "Cast Away", "Apollo 13", "Twister"] + [g[0] for g in gold])
    verdict = judge_answer(everything, gold)
    assert verdict.label == "hallucinated" and "not in the gold" in verdict.reason
    assert label("Joe Versus the Volcano, Snow Falling on Cedars, When Harry Met Sally and You've Got Mail "
                 "(4 in all).", gold) == "accurate"
    directors = [["Lana Wachowski"], ["Lilly Wachowski"]]
    assert label("The Matrix was directed by Lana Wachowski and Lilly Wachowski.", directors) == "accurate"
    assert label("Lana Wachowski, who also made Cloud Atlas, and Lilly Wachowski.", directors) == "hallucinated"
    countries = [["Algeria"], ["Egypt"], ["Morocco"], ["South Africa"]]
    assert label("South Africa, Algeria, Morocco, Egypt and Tunisia (5 in all).", countries) == "hallucinated"
    assert label("South Africa, Algeria, Morocco and Egypt (4 in all).", countries) == "accurate"


def test_gold_values_with_commas_stay_one_item():
    gold = [["Linus Pauling", "Portland, OR"]]
    assert label("Linus Pauling was born in Portland, OR.", gold) == "accurate"


def test_row_count_is_not_a_stray_number():
    gold = [["Rob Reiner", 3], ["Ron Howard", 3], ["Lana Wachowski", 5], ["Lilly Wachowski", 5]]
    assert label("Rob Reiner (3); Ron Howard (3); Lilly Wachowski (5); Lana Wachowski (5) (4 in all).",
                 gold) == "accurate"


def test_claiming_nothing_for_a_yes_no_question():
    assert label("None: the knowledge graph has no persons matching the question.", [[False]]) \
        == "hallucinated"


def test_naming_something_when_gold_is_empty():
    assert label("Keanu Reeves directed The Matrix.", []) == "hallucinated"


def test_claiming_none_when_gold_is_not_empty():
    assert label("There are no such movies.", [["The Matrix"]]) == "hallucinated"


def test_numbers_in():
    assert numbers_in("1,234.5 and 7 and $10,000,000") == [1234.5, 7.0, 10000000.0]
    assert numbers_in("three", words=True) == [3.0]
    assert numbers_in("three", words=False) == []


# -- LLM judge and disagreements -------------------------------------------------------------------
class ScriptedChooser:
    """A choice backend that answers from a fixed script and records the prompts it was shown.

    It implements the same ``choose(prompt, options) -> int`` protocol as planner.llm backends.
    """

    def __init__(self, picks: list[str]):
        self.picks = list(picks)
        self.prompts: list[str] = []

    def choose(self, prompt: str, options: list[str]) -> int:
        self.prompts.append(prompt)
        return options.index(self.picks.pop(0))


def test_llm_judge_uses_the_backend_choice():
    backend = ScriptedChooser(["hallucinated"])
    judge = LLMJudge(backend)
    verdict = judge("Lana Wachowski", [["Lana Wachowski"]], question="Who directed The Matrix?")
    assert verdict.label == "hallucinated"
    assert "Who directed The Matrix?" in backend.prompts[0] and "Lana Wachowski" in backend.prompts[0]
    assert all(opt in backend.prompts[0] for opt in LABELS)


def test_llm_judge_skips_the_model_for_empty_answers():
    backend = ScriptedChooser([])
    assert LLMJudge(backend)("", [["x"]]).label == "missing"
    assert backend.prompts == []


def test_llm_judge_truncates_large_gold_sets():
    backend = ScriptedChooser(["accurate"])
    LLMJudge(backend, max_gold_values=3)("a", [[str(i)] for i in range(10)])
    assert "10 values in all" in backend.prompts[0]


def test_llm_judge_rejects_bad_indices():
    class Broken:
        def choose(self, prompt, options):
            return 7

    with pytest.raises(ValueError):
        LLMJudge(Broken())("answer", [["x"]])


def test_compare_judges_lists_disagreements():
    golds = [{"id": "q1", "question": "Who directed The Matrix?", "gold_rows": [["Lana Wachowski"]]},
             {"id": "q2", "question": "How many movies has Tom Hanks acted in?", "gold_rows": [[12]]},
             {"id": "q3", "question": "Unanswered", "gold_rows": [["x"]]}]
    preds = [{"id": "q1", "answer": "Lana Wachowski", "status": "answered"},
             {"id": "q2", "answer": "Thirteen, I think: 13", "status": "answered"}]
    cmp = compare_judges(preds, golds, second=LLMJudge(ScriptedChooser(["accurate", "accurate"])))
    assert cmp.n == 2 and cmp.agree == 1 and cmp.agreement == pytest.approx(0.5)
    (d,) = cmp.disagreements
    assert (d.id, d.first, d.second) == ("q2", "hallucinated", "accurate")


@pytest.mark.llm
def test_llm_judge_with_the_real_backend():
    from kgqa.settings import Settings

    settings = Settings.from_env()
    if settings.llm_backend == "embedded":
        pytest.importorskip("llama_cpp")
    from kgqa.planner.llm import make_llm

    verdicts = [LLMJudge(make_llm(settings))(answer, [["Lana Wachowski"], ["Lilly Wachowski"]],
                                             question="Who directed The Matrix?")
                for answer in ("The Matrix was directed by Lana and Lilly Wachowski.", "I don't know.")]
    assert all(v.label in LABELS and v.reason == "llm" for v in verdicts)
