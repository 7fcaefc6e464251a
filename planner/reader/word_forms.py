"""How the words of a schema name are said: their forms (lemmas, singular, British and American spellings),
abbreviations, the verbs a name says and the nouns of who does them (lemminflect, inflect)."""

from __future__ import annotations

from functools import lru_cache

from kgqa.text import name_words

SPELLINGS = (("isation", "ization"), ("ise", "ize"), ("our", "or"))  # British and American endings of one word


@lru_cache(maxsize=65536)
def forms(word: str) -> frozenset[str]:
    """Returns the forms of one word: itself (lower case), its noun and verb lemmas and its singular."""
    from lemminflect import getLemma

    w = word.lower()
    out = {w}
    if w.isalpha() and len(w) > 2:
        for upos in ("NOUN", "VERB"):
            out.update(getLemma(w, upos=upos))
        out.add(singular(w))
        for f in list(out):  # "organisation" of Organizations, "colour" of a colour property
            out.update(f[:-len(a)] + b for one, other in SPELLINGS for a, b in ((one, other), (other, one))
                       if f.endswith(a) and len(f) >= len(a) + 3)
    elif len(w) > 2 and w.endswith("s") and w[-2].isdigit():
        out.add(w[:-1])  # "VISITS2s", "DROP8s": the plural of a name that ends in a digit
    return frozenset(out)


@lru_cache(maxsize=1)
def inflect_engine():
    import inflect

    return inflect.engine()


def spells_label(label: str, words: list[str]) -> bool:
    """Whether ``words`` spell a label's name word for word, in any number ("tables" and a label ``table``)."""
    own = name_words(label)
    return bool(own) and len(own) == len(words) and all(n in forms(w) for n, w in zip(own, words))


def names_own_label(label: str, prop: str) -> bool:
    """Whether a property is named after its own label, word for word in any number (``City`` of ``city``)."""
    return spells_label(label, name_words(prop))


def abbreviates(short: str, word: str) -> bool:
    """Whether ``short`` abbreviates ``word``: the same first letter, its letters in ``word`` in order
    ("dept" department, "stu" student, "crs" course, "emp" employee)."""
    if not short or len(short) >= len(word) or short[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(c in rest for c in short[1:])


def action_lemmas(name: str) -> list[str]:
    """The verb lemmas of a name's words that read only as verbs, not as nouns ("WON": win, "DIRECTED_BY":
    direct; "Review", "Reads_Books" and "HAS_OWNER": none): the action a relationship's name says."""
    from lemminflect import getAllLemmas

    out = []
    for w in name_words(name):
        lemmas = getAllLemmas(w)
        if "VERB" in lemmas and "NOUN" not in lemmas and "AUX" not in lemmas:
            out += [v for v in lemmas["VERB"] if v not in out]
    return out


def past_tense(word: str) -> bool:
    """Whether a word is the simple past of a verb ("wrote", "borrowed")."""
    from lemminflect import getInflection, getLemma

    return any(word in getInflection(lemma, tag="VBD") for lemma in getLemma(word, upos="VERB") if lemma != word)


def agent_nouns(participle: str) -> list[str]:
    """The nouns of who does a verb, from its past participle ("directed": director, directer; "made": maker)."""
    from lemminflect import getLemma

    return [lemma + end for lemma in getLemma(participle, upos="VERB")
            for end in (("r", "or", "er") if lemma.endswith("e") else ("or", "er"))]


def singular(word: str) -> str:
    """A word's singular, for comparing names ("documents", "document")."""
    return inflect_engine().singular_noun(word) or word
