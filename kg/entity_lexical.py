"""Lexical building blocks of entity linking: folded names, trigrams, acronyms and the posting lists over them."""

from __future__ import annotations

import itertools
import re

import numpy as np

from kgqa.text import fold as fold_text

ACRONYM_SKIP = frozenset({"of", "the", "and", "for", "de", "la", "le", "des", "du", "di", "der", "und", "at", "in", "&"})

_PAREN = re.compile(r"\(([^()]{2,12})\)")
_NOT_ASCII_WORD = re.compile(r"[^0-9a-z]+")
_ACRONYM_SPLIT = re.compile(r"[\s\-/,]+")
_ASCII_ALNUM = re.compile(r"[0-9A-Za-z]")


# -- text normalization ----------------------------------------------------------------------------
def fold(text: str) -> str:
    """Returns the form names are matched in, ASCII words: "Gustaf's Knäckebröd" -> "gustafs knackebrod"
    (:func:`kgqa.text.fold` with ``case="lower", ascii=True, apostrophes=False``; ASCII text takes a
    shortcut with the same result, since decomposition leaves it as it is)."""
    if isinstance(text, str) and text.isascii():
        return " ".join(_NOT_ASCII_WORD.sub(" ", text.lower().replace("'", "").replace("`", "")).split())
    return fold_text(text, case="lower", ascii=True, apostrophes=False)


def trigrams(text: str) -> set[str]:
    """Character trigrams of a folded string, padded so short words still have some."""
    padded = f"  {text} "
    return {padded[i:i + 3] for i in range(len(padded) - 2)}


def dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def acronyms(name: str) -> set[str]:
    """Acronyms a name may be written as: initials of its words, and a short parenthesized alias."""
    out: set[str] = set()
    base = name
    if "(" in name:
        for m in _PAREN.finditer(name):
            alias = fold(m.group(1)).replace(" ", "")
            if alias and m.group(1).strip().isupper():
                out.add(alias)
        base = _PAREN.sub(" ", name)
    words = [w for w in _ACRONYM_SPLIT.split(base) if w]
    if len(words) < 2:
        return {a for a in out if 2 <= len(a) <= 8}
    if base.isascii():  # initial() inlined: most names, once each per process
        search = _ASCII_ALNUM.search
        initials = [m.group(0).lower() if (m := search(w)) else "" for w in words]
    else:
        initials = [initial(w) for w in words]
    significant = [f for w, f in zip(words, initials) if f and w.lower() not in ACRONYM_SKIP]
    if len(significant) >= 2:
        out.add("".join(significant))
        if len(words) != len(significant):
            out.add("".join(initials))
    return {a for a in out if 2 <= len(a) <= 8}


def initial(word: str) -> str:
    """Returns the first character of ``fold(word)`` ("" when it folds to nothing): for ASCII, its first letter
    or digit, lower-cased, without folding the word."""
    if word.isascii():
        m = _ASCII_ALNUM.search(word)
        return m.group(0).lower() if m else ""
    return fold(word)[:1]



# -- posting lists ---------------------------------------------------------------------------------
def top_positions(scores: np.ndarray, k: int) -> np.ndarray:
    """Returns the positions of the ``k`` highest scores (all when fewer), ties to the lower position."""
    if len(scores) <= k:
        return np.arange(len(scores))
    part = np.argpartition(-scores, k - 1)[:k]
    cut = scores[part].min()
    above = np.nonzero(scores > cut)[0]
    tied = np.nonzero(scores == cut)[0][:k - len(above)]
    return np.concatenate([above, tied])


def postings(items: list[list[str]]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Returns ({item: the positions of the lists holding it, ascending, each once}, each list's length) of
    ``items`` (one list per entry), sorted by numpy rather than one set per item."""
    n = len(items)
    counts = np.fromiter(map(len, items), dtype=np.int64, count=n)
    ids: dict[str, int] = {}
    codes = np.fromiter((ids.setdefault(t, len(ids)) for t in itertools.chain.from_iterable(items)), dtype=np.int64,
                        count=int(counts.sum()))
    return _grouped(codes, np.repeat(np.arange(n, dtype=np.int64), counts), n, list(ids)), counts


def trigram_postings(folded: list[str]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Returns ({trigram: the positions of the names holding it, ascending}, each name's number of distinct
    trigrams) of :func:`fold` ed names (ASCII), as :func:`trigrams` gives them, read from one byte buffer."""
    n = len(folded)
    padded = [f"  {f} " for f in folded]
    length = np.fromiter(map(len, padded), dtype=np.int64, count=n)
    buf = np.frombuffer("".join(padded).encode("ascii"), dtype=np.uint8).astype(np.int64)
    per = length - 2  # trigrams of each padded name, repeats included
    first = np.repeat(np.cumsum(length) - length, per)  # where each trigram's name starts in the buffer
    pos = first + np.arange(int(per.sum()), dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)
    codes = (buf[pos] << 16) | (buf[pos + 1] << 8) | buf[pos + 2]
    del buf, first, pos
    found = _grouped(codes, np.repeat(np.arange(n, dtype=np.int64), per), n, None)
    every = np.concatenate(list(found.values())) if found else np.zeros(0, dtype=np.int64)
    return found, np.bincount(every, minlength=n)


def _grouped(codes: np.ndarray, entries: np.ndarray, n: int, names: list[str] | None) -> dict[str, np.ndarray]:
    """{name of a code: its entries, ascending, each once}; a code without ``names`` is three bytes of text."""
    pairs = np.sort(codes * n + entries)  # np.unique took 14 s for 10M pairs; a sort and a mask, 1 s
    if len(pairs):
        pairs = pairs[np.concatenate([[True], pairs[1:] != pairs[:-1]])]
    code_of, entry_of = np.divmod(pairs, n) if n else (pairs, pairs)
    cuts = np.flatnonzero(np.diff(code_of)) + 1
    starts = np.concatenate([[0], cuts]).astype(np.int64) if len(pairs) else np.zeros(0, dtype=np.int64)
    groups = np.split(entry_of, cuts)
    keys = code_of[starts]
    if names is None:
        return {bytes([(c >> 16) & 255, (c >> 8) & 255, c & 255]).decode("ascii"): g
                for c, g in zip(keys.tolist(), groups)}
    return {names[c]: g for c, g in zip(keys.tolist(), groups)}
