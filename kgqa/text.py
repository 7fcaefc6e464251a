"""Text folding and stop words: the one definition every layer matches text with.

:func:`fold` is the package's only folding function. Its defaults give the form graph values are matched
in (the schema view's value index, the compiler, the plan cache's slot lookup, the vector-memory
answerer); its keywords give the other forms, as steps of the same pipeline:

- entity linking's ASCII name form: ``fold(t, case="lower", ascii=True, apostrophes=False)``;
- the judge's word form: ``fold(t, case="lower", apostrophes=False, punctuation=False)``;
- the judge's item form (punctuation kept to split items): ``fold(t, case="lower", apostrophes=False,
  collapse=False)``.

:data:`STOPWORDS` is the only stop-word list: function words of a question that carry no content (it is
the plan cache's BM25 list). A role that reads past more words extends it where it is used, as a named
superset: the compiler's ``planner.lexicon.STOP``, entity linking's ``kg.entity_index.LINK_STOPWORDS``,
and the vector-memory answerer's extension of ``STOP``.

Standard library only: this module sits below every layer.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["STOPWORDS", "fold"]

STOPWORDS: frozenset[str] = frozenset("""
a an the of in on at to for from by with and or is are was were be been do does did which what who whom
whose how me please tell show list give name find all any that this those these it its
""".split())

# letters without a Unicode decomposition, spelled in ASCII (the ``ascii`` form)
_LETTERS = {"ß": "ss", "ø": "o", "ł": "l", "æ": "ae", "œ": "oe", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}
_APOSTROPHES = re.compile(r"['’`]")
_NOT_WORD = re.compile(r"[^\w]+")
_NOT_ASCII_WORD = re.compile(r"[^0-9a-z]+")


def fold(text: object, *, case: str = "casefold", ascii: bool = False, apostrophes: bool = True,
         punctuation: bool = True, collapse: bool = True) -> str:
    """Returns ``text`` (``str()`` of it) folded for matching: "  Irène  Joliot-Curie " -> "irene joliot-curie".

    Always: compatibility decomposition (NFKD) with the combining marks dropped (accents go, "ﬁ" is "fi")
    and one case: ``case="casefold"`` (the default; "Straße" -> "strasse") or ``"lower"`` ("straße").
    Then, in this order:

    - ``ascii=True`` (names as ASCII words): the case is applied before the decomposition, not after (so
      a letter that decomposes to a capital, "ᴬ" or "ℝ", is no word letter), letters without a
      decomposition are spelled out (ß ss, ø o, æ ae, œ oe, ł l, đ ð d, þ th, ı i), and every run of
      characters outside ``[0-9a-z]`` separates words;
    - ``apostrophes=False``: ``'``, ``’`` and `````` are deleted, before any separating ("O'Brien" ->
      "obrien", not "o brien");
    - ``punctuation=False``: every run of non-word characters (``\\W``) separates words;
    - ``collapse`` (default True): whitespace runs become one space and the ends are stripped.
    """
    if case not in ("casefold", "lower"):
        raise ValueError(f"case must be 'casefold' or 'lower', not {case!r}")
    text = str(text)
    if ascii:
        text = _case(text, case)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    if ascii:
        text = "".join(_LETTERS.get(c, c) for c in text)
    else:
        text = _case(text, case)
    if not apostrophes:
        text = _APOSTROPHES.sub("", text)
    if ascii:
        text = _NOT_ASCII_WORD.sub(" ", text)
    elif not punctuation:
        text = _NOT_WORD.sub(" ", text)
    return " ".join(text.split()) if collapse else text


def _case(text: str, case: str) -> str:
    return text.casefold() if case == "casefold" else text.lower()


_NAME_BREAK = re.compile(r"([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])")


def name_words(name: str) -> list[str]:
    """Returns a schema name's lower-case words in any naming convention: ``unitsInStock`` -> units, in,
    stock; ``has_creator`` -> has, creator; ``ACTED_IN`` -> acted, in; ``HTTPServer`` -> http, server."""
    spaced = _NAME_BREAK.sub(lambda m: f"{m[1] or m[3]} {m[2] or m[4]}", name)
    return [w.lower() for w in re.split(r"[\W_]+", spaced) if w]
