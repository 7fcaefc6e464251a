"""kgqa.text: the one folding function (each call site's form) and the one stop-word list."""

from __future__ import annotations

import pytest

from kgqa.text import STOPWORDS, fold


def test_default_fold_drops_accents_case_and_extra_whitespace():
    assert fold("  Irène \t Joliot-Curie\n") == "irene joliot-curie"
    assert fold("CAFÉ Müller") == "cafe muller"
    assert fold("Straße") == "strasse"  # casefold spells ß out
    assert fold("ﬁnal  No\u00a0１") == "final no 1"  # compatibility forms: ligature, no-break space, full width
    assert fold("O'Brien’s") == "o'brien’s"  # apostrophes and other punctuation stay


def test_lower_case_keeps_sharp_s():
    assert fold("STRAßE", case="lower") == "straße"
    with pytest.raises(ValueError):
        fold("x", case="upper")


def test_ascii_words_for_entity_names():
    form = {"case": "lower", "ascii": True, "apostrophes": False}
    assert fold("Gustaf's Knäckebröd", **form) == "gustafs knackebrod"
    assert fold("Ærøskøbing", **form) == "aeroskobing"
    assert fold("Łódź Straße, Þór", **form) == "lodz strasse thor"
    assert fold("Joliot-Curie (née Curie)", **form) == "joliot curie nee curie"
    assert fold("ℝ ᴬb", **form) == "b"  # letters that decompose to capitals are no ASCII word letters
    assert fold("Gustaf's", ascii=True) == "gustaf s"  # apostrophes kept until then separate words


def test_judge_forms_drop_apostrophes_and_punctuation():
    assert fold("Don’t  stop: O'Brien & Co.", case="lower", apostrophes=False, punctuation=False) == \
        "dont stop obrien co"
    assert fold("Ça, c'est  Ørsted", case="lower", apostrophes=False, collapse=False) == "ca, cest  ørsted"


def test_non_strings_are_folded_as_text():
    assert fold(1997) == "1997"


def test_the_stop_word_list_holds_function_words_only():
    assert {"the", "of", "which", "who", "list", "show"} <= STOPWORDS
    assert not {"most", "not", "before", "born", "many"} & STOPWORDS  # these carry meaning somewhere
    assert isinstance(STOPWORDS, frozenset)
