"""Domain routing over the loaded graphs (CacheRAG §4.1 domain hint, A.7 dynamic descriptions).

Each domain is scored by how much of the question its graph can ground — exact value mentions and
schema vocabulary — plus the similarity of the question to the domain's description. Descriptions are
kept in a small JSON store so that the pre-warm job can refine them when routing proves wrong.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from kgqa.planner.compiler import Compiler

KEYWORDS = "Questions mention:"
MAX_KEYWORDS = 40

UPDATE_PROMPT = """You will be given a set of KGs with descriptions; your task is to refine the descriptions of the KGs.
These are the current descriptions of the KGs:
{current}
In the previous round, you were asked to determine which KG is most suitable for answering this question.
Based on the KG descriptions, you thought the most appropriate KG was {wrong}, for the question "{question}".
Your selection was wrong: the right KG was {domain}. Based on this answering history, update the description of
{domain} to better answer the question in the next round. Focus on the differences between the KGs; avoid
overlapping descriptions. Reply with the new description of {domain} only."""


class DescriptionStore:
    """Per-domain descriptions used by the router, persisted atomically as JSON (CacheRAG A.7).

    Readers in other processes (the server) see updates without a restart: :meth:`get` reloads the
    file when its modification time changes. :meth:`refine` is the A.7 update loop: when a verified
    example was routed to the wrong domain, the right domain's description gains the question's
    distinguishing terms (or, with a capable ``llm``, is rewritten by it) and is persisted.
    """

    def __init__(self, path: Path, defaults: dict[str, str]):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.defaults = dict(defaults)
        self.descriptions = dict(defaults)
        self._mtime: float | None = None
        self._reload()

    def _reload(self) -> None:
        try:
            mtime = self.path.stat().st_mtime_ns
        except OSError:
            return
        if mtime == self._mtime:
            return
        try:
            stored = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return
        self._mtime = mtime
        self.descriptions = {**self.defaults, **{k: v for k, v in stored.items() if isinstance(v, str)}}

    def get(self, domain: str) -> str:
        with self._lock:
            self._reload()
            return self.descriptions.get(domain, "")

    def all(self) -> dict[str, str]:
        with self._lock:
            self._reload()
            return dict(self.descriptions)

    def update(self, domain: str, text: str) -> None:
        with self._lock:
            self._reload()
            self.descriptions[domain] = text
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".desc-")
            with os.fdopen(fd, "w") as fh:
                json.dump(self.descriptions, fh, indent=2, sort_keys=True)
            os.replace(tmp, self.path)
            self._mtime = self.path.stat().st_mtime_ns

    def keywords(self, domain: str) -> list[str]:
        text = self.get(domain)
        if KEYWORDS not in text:
            return []
        return [w.strip() for w in text.split(KEYWORDS, 1)[1].rstrip(".").split(",") if w.strip()]

    def refine(self, domain: str, question: str, wrong: str, terms: list[str], llm=None) -> str:
        """Update ``domain``'s description after ``question`` was routed to ``wrong``; returns the new text.

        Deterministic by default: ``terms`` (the question's words the right domain's schema knows, and its
        other content words) are added to the description's keyword list, the newest kept. With ``llm``
        (a capable model), the A.7 prompt asks it to rewrite the description; a reply that is empty, shorter
        than 20 or longer than 800 characters is ignored in favour of the keyword update."""
        current = self.get(domain)
        base = current.split(KEYWORDS, 1)[0].strip()
        if llm is not None:
            text = _llm_update(llm, self.all(), domain, question, wrong)
            if text and 20 <= len(text) <= 800:
                self.update(domain, text)
                return text
        known = self.keywords(domain)
        folded = {k.casefold() for k in known} | set(base.casefold().replace(",", " ").replace(";", " ").split())
        fresh = [t for t in dict.fromkeys(t.strip().lower() for t in terms) if t and t.casefold() not in folded]
        if not fresh:
            return current
        keep = (known + fresh)[-MAX_KEYWORDS:]
        text = f"{base} {KEYWORDS} {', '.join(keep)}."
        self.update(domain, text)
        return text


def _llm_update(llm, current: dict[str, str], domain: str, question: str, wrong: str) -> str | None:
    listing = "\n".join(f"[{k}]: {v}" for k, v in current.items())
    try:
        out = llm.complete(UPDATE_PROMPT.format(current=listing, wrong=wrong, question=question, domain=domain),
                           max_tokens=160)
    except Exception:  # noqa: BLE001 - the keyword update stands
        return None
    return " ".join((out.text or "").split()) or None


@dataclass
class Route:
    domain: str
    scores: dict[str, float]


class Router:
    def __init__(self, compilers: dict[str, Compiler], descriptions: DescriptionStore, use_embeddings: bool = True):
        self.compilers = compilers
        self.descriptions = descriptions
        self.use_embeddings = use_embeddings

    def score(self, question: str) -> dict[str, float]:
        scores: dict[str, float] = {}
        for name, comp in self.compilers.items():
            mentions = comp.value_mentions(question)
            grounded = sum(min(m.end - m.start, 30) for m in mentions if m.label and (m.end - m.start) > 3)
            terms = comp.lex.scan(question, [(m.start, m.end) for m in mentions if m.label])
            scores[name] = grounded / 10.0 + 1.0 * len(terms)
        if self.use_embeddings and len(self.compilers) > 1:
            try:
                from kgqa.kg.embed import embed

                names = list(self.compilers)
                vecs = embed([question] + [self.descriptions.get(n) or n for n in names])
                for n, sim in zip(names, vecs[1:] @ vecs[0]):
                    scores[n] += 3.0 * float(sim)
            except Exception:  # noqa: BLE001 - lexical routing still works
                pass
        return scores

    def route(self, question: str) -> Route:
        scores = self.score(question)
        best = max(scores, key=scores.get)
        return Route(best, scores)
