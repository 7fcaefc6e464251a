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

from planner.compiler import Compiler


class DescriptionStore:
    """Per-domain descriptions used by the router, persisted atomically as JSON."""

    def __init__(self, path: Path, defaults: dict[str, str]):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.descriptions = dict(defaults)
        if self.path.exists():
            try:
                self.descriptions.update(json.loads(self.path.read_text()))
            except (OSError, ValueError):
                pass

    def get(self, domain: str) -> str:
        return self.descriptions.get(domain, "")

    def update(self, domain: str, text: str) -> None:
        with self._lock:
            self.descriptions[domain] = text
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".desc-")
            with os.fdopen(fd, "w") as fh:
                json.dump(self.descriptions, fh, indent=2, sort_keys=True)
            os.replace(tmp, self.path)


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
                from kg.embed import embed

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
