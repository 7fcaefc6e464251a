"""Misspelled words of a question, mended against the words the reader knows (:class:`Speller`).

People type questions fast: "the minumum price", "diffrent dorm amenities", "the american archtect". A word the
English dictionary does not know (lemminflect's) is mended only toward one word of a closed vocabulary: the cue
words of :mod:`kgqa.planner.reader.cues` and the words of the graph's own schema names, with their plurals. A word
one edit away (two for long words), with the same first letter, and no other word as near, is replaced; a word
that names a schema element in any of its forms, one the graph holds as a value, a quoted text, a capitalized name, a number and any word that has two candidates
are left as written, so a mend never invents what the question did not say.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kgqa.planner.reader import cues
from kgqa.planner.reader.schema_terms import SchemaTerms
from kgqa.planner.schema_view import SchemaView
from kgqa.text import fold, name_words

MIN_LENGTH = 4  # shorter words are abbreviations ("gpa", "nyc") more often than typos
LONG = 7  # words of this length or more may be two edits away
_WORD = re.compile(r"(?<![\w'’\"])[a-z]+(?![\w'’\"])")
_QUOTED = re.compile(r"""(['"‘“]).+?(['"’”])""")


def _cue_words() -> set[str]:
    out: set[str] = set()
    for name in dir(cues):
        table = getattr(cues, name)
        if isinstance(table, dict):
            out.update(k for k in table if isinstance(k, str))
        elif isinstance(table, (set, frozenset)):
            out.update(k for k in table if isinstance(k, str))
        elif isinstance(table, list):  # the comparators: (words, operator)
            out.update(w for words, _ in table for w in words)
    return {w for w in out if w.isalpha()}


@lru_cache(maxsize=1)
def _closed_words() -> frozenset[str]:
    """English words of the closed classes that the dictionary of lemmas leaves out ("against", "three")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from kgqa.planner.lexicon import NUMBER_WORDS

    return frozenset(STOP_WORDS) | frozenset(NUMBER_WORDS)


def known(word: str) -> bool:
    """Whether ``word`` (lower case) is an English word: in lemminflect's dictionary of lemmas, or a closed-class
    word (a stop word, a number word)."""
    from lemminflect import getAllLemmas

    return word in _closed_words() or bool(getAllLemmas(word))


@lru_cache(maxsize=1)
def _inflect():
    import inflect

    return inflect.engine()


def distance(a: str, b: str, limit: int) -> int:
    """Returns the Damerau-Levenshtein distance of ``a`` and ``b`` (adjacent swaps count one), or ``limit + 1``
    when it is more than ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


class Speller:
    """The words one graph's questions are mended toward: cue words and the schema's own words (module docstring)."""

    def __init__(self, view: SchemaView, terms: SchemaTerms):
        self.view, self.terms = view, terms
        words = _cue_words()
        names = [*view.nodes, *view.rels, *(p for props in view.nodes.values() for p in props),
                 *(p for props in view.rel_props.values() for p in props)]
        for name in names:
            for w in name_words(name):
                if w.isalpha() and len(w) >= MIN_LENGTH:
                    words.update({w, _inflect().plural_noun(w) or w, _inflect().singular_noun(w) or w})
        self.vocabulary = frozenset(w for w in words if len(w) >= MIN_LENGTH - 1)
        self._by_letter: dict[str, list[str]] = {}
        for w in sorted(self.vocabulary):
            self._by_letter.setdefault(w[0], []).append(w)

    def mend(self, word: str) -> str | None:
        """Returns the one vocabulary word ``word`` (lower case) is a misspelling of, or None."""
        if len(word) < MIN_LENGTH or word in self.vocabulary or known(word) or fold(word) in self.view.values or \
                self.terms.lookup([word]):
            return None  # a word of the language, a value, or one that names a schema element in some form
        limit = 2 if len(word) >= LONG else 1
        best, found = limit + 1, []
        for w in self._by_letter.get(word[0], ()):
            d = distance(word, w, limit)
            if d < best:
                best, found = d, [w]
            elif d == best and d <= limit:
                found.append(w)
        return found[0] if best <= limit and len(found) == 1 else None

    def correct(self, question: str) -> str:
        """Returns ``question`` with each misspelled lower-case word outside quotes mended (same text otherwise)."""
        quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(question)]
        out, last = [], 0
        for m in _WORD.finditer(question):
            if any(a <= m.start() < b for a, b in quoted):
                continue
            fixed = self.mend(m.group())
            if fixed is not None:
                out.append(question[last:m.start()])
                out.append(fixed)
                last = m.end()
        return "".join(out) + question[last:] if out else question
