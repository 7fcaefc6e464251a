"""Cypher text helpers (kg/cypher.py): the one back-quoting of identifiers, literals, parameters written in."""

from __future__ import annotations

import re

import pytest

from kgqa.kg.cypher import KEYWORDS, ident, inline_params, literal, quote


@pytest.mark.parametrize("name, quoted", [
    ("Order", "`Order`"), ("Person", "`Person`"), ("odd`name", "`odd``name`"), ("", "``"),
])
def test_quote_always_back_quotes_and_doubles_backticks(name, quoted):
    assert quote(name) == quoted


@pytest.mark.parametrize("name, written", [
    ("Order", "`Order`"), ("order", "`order`"), ("TO", "`TO`"), ("count", "`count`"),
    ("Person", "Person"), ("ACTED_IN", "ACTED_IN"), ("orderID", "orderID"), ("INTERACTS2", "INTERACTS2"),
    ("Comment", "`Comment`"), ("set", "`set`"), ("Contains", "`Contains`"), ("first name", "`first name`"),
    ("2nd", "`2nd`"), ("e-mail", "`e-mail`"), ("Straße", "`Straße`"),
])
def test_ident_back_quotes_keywords_and_names_that_are_not_words(name, written):
    assert ident(name) == written


def test_ident_refuses_a_name_with_a_backtick():
    with pytest.raises(ValueError, match="backtick"):
        ident("odd`name")


def test_keywords_are_upper_case_words():
    assert "ORDER" in KEYWORDS and "COMMENT" in KEYWORDS and all(re.fullmatch("[A-Z_]+", k) for k in KEYWORDS)


def test_literal_and_inline_params():
    assert literal("it's") == "'it\\'s'" and literal(True) == "true" and literal(2.5) == "2.5"
    assert inline_params("MATCH (n) WHERE n.a = $a AND n.b = $b RETURN $c", {"a": "$b", "b": 3}) == \
        "MATCH (n) WHERE n.a = '$b' AND n.b = 3 RETURN $c"
