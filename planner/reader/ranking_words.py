"""The words that say how rows are ranked, read from a question's lemmas: by what ("by the", "based on their",
"in terms of"), said before a point or starting at it, and in the order of letters ("in alphabetical order")."""

from __future__ import annotations

from kgqa.planner.reader import cues

_DETERMINERS = ("the", "their", "its")  # between "by" and what the ranking is by


def said_ranked_by(lem: list[str], i: int) -> bool:
    """Whether the words before ``i`` say what a ranking is by: "by the", "based on the", "in terms of their"."""
    k = i
    while k > 0 and lem[k - 1] in _DETERMINERS:
        k -= 1
    return k < i and any(tuple(lem[max(0, k - len(words)):k]) == words for words in cues.RANKED_BY)


def by_what(lem: list[str], at: int) -> int:
    """The length of the words at ``at`` that say what a ranking is by ("by", "based on the", "in terms of"),
    else 0."""
    for words in cues.RANKED_BY:
        if tuple(lem[at:at + len(words)]) == words:
            k = at + len(words)
            while k < len(lem) and lem[k] in _DETERMINERS:
                k += 1
            return k - at
    return 0


def alphabetical(lem: list[str]) -> bool:
    """Whether the question orders text by its letters ("ordered by name", "in alphabetical order")."""
    return any(w in ("alphabetical", "alphabetically", "name", "title", "lexicographical") for w in lem) or \
        any(w in cues.ORDER_WORDS for w in lem)
