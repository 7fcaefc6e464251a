"""Entity linking: map a mention ("Tom Hangs", "Nolan", "MIT", "curie") to graph nodes, keeping ambiguity.

Build time (:func:`kgqa.kg.entity_names.build_index`, on the loader's writable connection): Kuzu FTS indexes
over each label's name-like properties, plus ``entities.json`` (one row per (label, key, name, prop)) and
``entities.npz`` (embeddings of every distinct name and its accent-folded lower-case variant).

Serve time (:class:`EntityIndex`, on the read-only graph): everything lexical is precomputed in memory
(exact, case/accent-folded, token containment with per-token fuzzy matching, acronyms from initials,
character-trigram similarity); Kuzu FTS (BM25) and embedding cosine are consulted only when the lexical
matchers find nothing strong, which keeps a link well under 20 ms. Scores are in [0, 1]; every source
that found an entity is kept in the ranking, and several near-equal candidates are all returned.

The names file and its build live in :mod:`kgqa.kg.entity_names`, the folding, trigrams and posting lists
in :mod:`kgqa.kg.entity_lexical`.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.kg.cypher import ident, literal
from kgqa.kg.entity_lexical import acronyms, fold, postings, top_positions, trigram_postings, trigrams
from kgqa.kg.entity_names import (
    VECTORS_FILE,
    Entry,
    collect_entries,
    embed_entries,
    graph_runner,
    load_entries,
)
from kgqa.kg.spec import DomainSpec
from kgqa.settings import Settings
from kgqa.text import STOPWORDS
from kgqa.types import EntityCandidate

log = logging.getLogger(__name__)

# Scores per matcher (the best source of an entity sets its score; extra sources add a small bonus).
S_EXACT, S_FOLDED, S_ACRONYM = 1.0, 0.97, 0.86
S_PARTIAL_BASE, S_PARTIAL_COVER = 0.6, 0.3  # all mention tokens inside the name; cover = share of its tokens
FUZZY_MIN, FUZZY_BASE, FUZZY_SLOPE = 0.5, 0.3, 0.65  # whole-name trigram Dice d -> 0.3 + 0.65 d
TOKEN_FUZZY_MIN = 0.6
VECTOR_MIN, VECTOR_WEIGHT = 0.55, 0.85
FTS_TOP, FTS_WEIGHT = 0.72, 0.25
STRONG = 0.7  # lexical best at or above this: skip the embedding search
WEAK = 0.6  # lexical best below this: also ask Kuzu FTS (BM25)
MULTI_SOURCE_BONUS = 0.02

# stop words of linking: the shared list and the words that name no entity in a question ("born", "won")
LINK_STOPWORDS = STOPWORDS | frozenset("""
being done many much when where why names some his her their there has have had not no as than more most
less least after before between during about into over under per each every other same also only both
either i you we they he she them us my your our can could would should will shall may might must get got
won win wins born located one ones
""".split())

_TOKEN_SPAN = re.compile(r"[\w][\w'’\-.&]*", re.UNICODE)
_QUOTED = re.compile(r"\"([^\"]{2,120})\"|“([^”]{2,120})”|‘([^’]{2,120})’|(?<![\w])'([^']{2,120})'(?![\w])")
# candidates kept per matcher before ranking, the most postings a fuzzy lookup reads (more: too common a string
# to link fuzzily) and the most names whose trigrams it counts: a link costs about the same on a graph of
# millions of names as on one of thousands (10 ms for a question's windows at 440k names, 57 ms at 100,000)
MATCHER_TOP = 64
FUZZY_POSTINGS_MAX = 30_000
FUZZY_CANDIDATES = 2048


@dataclass
class _Hit:
    score: float
    source: str
    entry: int


class EntityIndex:
    """In-memory entity linker over one graph; thread-safe, results memoized per mention.

    Order of work in :meth:`link`: lexical matchers (always, ~0.2 ms); Kuzu FTS when the best lexical
    score is below ``WEAK``; embedding cosine when the best so far is below ``STRONG``.
    """

    def __init__(self, graph, spec: DomainSpec, *, use_fts: bool = True, use_vectors: bool = True,
                 cache_size: int = 4096, vectors_max: int | None = None):
        self.graph = graph
        self._vectors_max = Settings.from_env().entity_full_max if vectors_max is None else vectors_max
        self.spec = spec
        graph_dir = Path(getattr(graph, "dir", "."))
        entries = load_entries(graph_dir)
        self._vector_file = graph_dir / VECTORS_FILE
        if entries is None:  # graph built without an index: derive it from the graph itself
            from kgqa.kg.backend import read_catalog

            tables = {lb: dict(props) for lb, props in read_catalog(graph).nodes.items()}
            entries = collect_entries(graph_runner(graph), spec, tables)
            self._vector_file = None
        self.entries: list[Entry] = entries
        self.use_vectors = use_vectors
        self._vectors: dict[str, np.ndarray] | None = None
        self._cache: OrderedDict[tuple, list[EntityCandidate]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._build_lexical()
        self.fts_indexes = self._fts_indexes() if use_fts else {}
        if use_vectors and self._vector_file is not None:
            self._vector_data()

    def warm(self) -> EntityIndex:
        """Load the name embeddings and the shared embedding model now rather than on first use."""
        if self.use_vectors:
            from kgqa.kg.embed import get_model

            self._vector_data()
            get_model()
        return self

    # -- precomputation ----------------------------------------------------------------------------
    def _build_lexical(self) -> None:
        names = [e.name for e in self.entries]
        folded = [fold(n) for n in names]
        self._exact: dict[str, list[int]] = defaultdict(list)
        self._folded: dict[str, list[int]] = defaultdict(list)
        self._acronym: dict[str, list[int]] = defaultdict(list)
        for i, (name, f) in enumerate(zip(names, folded)):
            self._exact[name].append(i)
            self._folded[f].append(i)
            for a in acronyms(name):
                self._acronym[a].append(i)
        self._token_entries, ntok = postings([f.split() for f in folded])
        self._entry_ntok = np.maximum(ntok, 1).astype(np.float32)
        self._tri_entries, tri_len = trigram_postings(folded)
        self._entry_tri_len = tri_len.astype(np.float32)
        # per-token trigram index, for fuzzy tokens ("Wachowsky" -> "wachowski")
        self._vocab = sorted(self._token_entries)
        vocab_tri: dict[str, list[int]] = defaultdict(list)
        self._vocab_tri_len = np.zeros(len(self._vocab), dtype=np.float32)
        for j, tok in enumerate(self._vocab):
            tris = trigrams(tok)
            self._vocab_tri_len[j] = len(tris)
            for t in tris:
                vocab_tri[t].append(j)
        self._vocab_tri = {t: np.asarray(v, dtype=np.int64) for t, v in vocab_tri.items()}
        self._keys = [(e.label, e.key) for e in self.entries]

    def _fts_indexes(self) -> dict[str, str]:
        """label -> FTS index name, for the indexes present in the graph."""
        if getattr(getattr(self.graph, "dialect", None), "name", "kuzu") != "kuzu":
            return {}  # Kuzu's FTS extension; other engines link with the in-memory matchers and vectors
        try:
            rows = self.graph.query("CALL show_indexes() RETURN *").rows
        except Exception as err:  # noqa: BLE001 - FTS is an optional source
            log.info("no FTS indexes: %s", err)
            return {}
        found = {r[0]: r[1] for r in rows if len(r) > 2 and r[2] == "FTS"}
        if found and hasattr(self.graph, "load_fts"):
            self.graph.load_fts()
        return found

    def _vector_data(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            with self._lock:
                if self._vectors is None:
                    if self._vector_file is not None and self._vector_file.exists():
                        with np.load(self._vector_file) as data:
                            self._vectors = {k: data[k] for k in data.files}
                    else:
                        self._vectors = embed_entries(self.entries, self._vectors_max)
                    offsets = self._vectors["offsets"]
                    self._vector_owner_start = offsets[:-1]
                    self._vector_owner_len = np.diff(offsets)
        return self._vectors

    # -- matchers ----------------------------------------------------------------------------------
    def _fuzzy_tokens(self, token: str) -> list[tuple[str, float]]:
        """Vocabulary tokens equal or close to ``token``: [(vocab token, similarity)]."""
        if token in self._token_entries:
            return [(token, 1.0)]
        if len(token) > 3 and token.endswith("s") and token[:-1] in self._token_entries:
            return [(token[:-1], 0.95)]  # plural: "Wachowskis", "Curies"
        if len(token) < 4:
            return []
        tris = trigrams(token)
        lists = [self._vocab_tri[t] for t in tris if t in self._vocab_tri]
        if not lists:
            return []
        counts = np.bincount(np.concatenate(lists), minlength=len(self._vocab)).astype(np.float32)
        sims = 2 * counts / (len(tris) + self._vocab_tri_len)
        best = np.nonzero(sims >= TOKEN_FUZZY_MIN)[0]
        return [(self._vocab[j], float(sims[j])) for j in best]

    def _lexical(self, mention: str) -> list[_Hit]:
        hits: list[_Hit] = []
        f = fold(mention)
        if not f:
            return hits
        for i in self._exact.get(mention.strip(), ()):
            hits.append(_Hit(S_EXACT, "exact", i))
        for i in self._folded.get(f, ()):
            hits.append(_Hit(S_FOLDED, "casefold", i))
        compact = f.replace(" ", "")
        if " " not in f and 2 <= len(compact) <= 8:
            bonus = 0.02 if mention.strip().isupper() else 0.0
            for i in self._acronym.get(compact, ()):
                hits.append(_Hit(S_ACRONYM + bonus, "acronym", i))
        hits.extend(self._partial(f))
        hits.extend(self._fuzzy(f))
        return hits

    def _partial(self, f: str) -> list[_Hit]:
        """Entries whose tokens contain every mention token (each exactly or fuzzily); the best
        :data:`MATCHER_TOP` of them."""
        toks = [t for t in f.split() if t not in LINK_STOPWORDS] or f.split()
        if not toks or len(toks) > 8:
            return []
        common: np.ndarray | None = None
        per_token: list[tuple[np.ndarray, np.ndarray]] = []
        for t in toks:
            matches = self._fuzzy_tokens(t)
            if not matches:
                return []
            ents = np.concatenate([self._token_entries[vt] for vt, _ in matches])
            sims = np.concatenate([np.full(len(self._token_entries[vt]), sim, dtype=np.float32)
                                   for vt, sim in matches])
            order = np.lexsort((-sims, ents))  # by entry, best similarity first
            ents, sims = ents[order], sims[order]
            first = np.ones(len(ents), dtype=bool)
            first[1:] = ents[1:] != ents[:-1]
            ents, sims = ents[first], sims[first]  # each entry once, with its best similarity
            per_token.append((ents, sims))
            common = ents if common is None else np.intersect1d(common, ents, assume_unique=True)
            if not len(common):
                return []
        sim = np.ones(len(common), dtype=np.float32)
        for ents, sims in per_token:
            sim = np.minimum(sim, sims[np.searchsorted(ents, common)])
        cover = np.minimum(1.0, len(toks) / self._entry_ntok[common])
        scores = (S_PARTIAL_BASE + S_PARTIAL_COVER * cover) * sim
        keep = top_positions(scores, MATCHER_TOP)
        return [_Hit(float(scores[j]), "partial", int(common[j])) for j in keep]

    def _fuzzy(self, f: str) -> list[_Hit]:
        """Whole-name character-trigram (Dice) similarity, for misspellings ("Tom Hangs"); the best
        :data:`MATCHER_TOP` entries at or above ``FUZZY_MIN``.

        Candidates come from the rarest trigrams only: a name within ``FUZZY_MIN`` (Dice 0.5) of the
        mention's ``a`` trigrams shares at least ``a/3`` of them, so it holds one of the rarest
        ``len - ceil(a/3) + 1`` of those in the index; its shared count is then read by binary search in
        each trigram's sorted posting list, for the :data:`FUZZY_CANDIDATES` that share most of the rarest
        ones (all of them on a graph of a few thousand names). A mention whose rarest trigrams still list
        more than :data:`FUZZY_POSTINGS_MAX` names is too common a string to link fuzzily."""
        tris = trigrams(f)
        lists = sorted((self._tri_entries[t] for t in tris if t in self._tri_entries), key=len)
        if not lists:
            return []
        need = -(-len(tris) // 3)
        if need > len(lists):
            return []
        prefix = lists[:len(lists) - need + 1]
        if sum(len(x) for x in prefix) > FUZZY_POSTINGS_MAX:
            return []
        shared = np.bincount(np.concatenate(prefix), minlength=len(self.entries))
        cands = np.flatnonzero(shared)
        shared = shared[cands]
        if len(cands) > FUZZY_CANDIDATES:  # the names sharing most of the rarest trigrams
            keep = np.sort(top_positions(shared.astype(np.float32), FUZZY_CANDIDATES))
            cands = cands[keep]
        counts = np.zeros(len(cands), dtype=np.float32)
        for post in lists:
            pos = np.minimum(np.searchsorted(post, cands), len(post) - 1)
            counts += post[pos] == cands
        sims = 2 * counts / (len(tris) + self._entry_tri_len[cands])
        ok = np.nonzero(sims >= FUZZY_MIN)[0]
        keep = ok[top_positions(sims[ok], MATCHER_TOP)]
        return [_Hit(FUZZY_BASE + FUZZY_SLOPE * float(sims[j]), "fuzzy", int(cands[j])) for j in keep]

    def _fts(self, mention: str, labels: set[str] | None, k: int) -> list[_Hit]:
        """Kuzu FTS (BM25) over each label's name properties; scores rescaled to below STRONG."""
        out: list[tuple[float, int]] = []
        by_key = self._key_positions()
        for label, idx in self.fts_indexes.items():
            if labels and label not in labels:
                continue
            pk = self.spec.primary_keys.get(label)
            if not pk:
                continue
            try:
                rows = self.graph.query(
                    f"CALL QUERY_FTS_INDEX({literal(label)}, {literal(idx)}, $q, top := $k) RETURN node.{ident(pk)}, score",
                    {"q": mention, "k": k}).rows
            except Exception as err:  # noqa: BLE001 - FTS is an optional source
                log.debug("FTS %s failed: %s", idx, err)
                continue
            for key, score in rows:
                for i in by_key.get((label, key), ()):
                    out.append((float(score), i))
        if not out:
            return []
        top = max(s for s, _ in out) or 1.0
        return [_Hit(FTS_TOP - FTS_WEIGHT * (1 - s / top), "fts", i) for s, i in out]

    def _key_positions(self) -> dict[tuple[str, Any], list[int]]:
        if not hasattr(self, "_by_key"):
            by_key: dict[tuple[str, Any], list[int]] = defaultdict(list)
            for i, key in enumerate(self._keys):
                by_key[key].append(i)
            self._by_key = dict(by_key)
        return self._by_key

    def _vector(self, mention: str, labels: set[str] | None, k: int) -> list[_Hit]:
        from kgqa.kg.embed import embed_one

        data = self._vector_data()
        if data["vectors"].shape[0] == 0:
            return []
        sims = data["vectors"] @ embed_one(mention)
        order = np.argsort(-sims)[: 4 * k]
        hits = []
        for row in order:
            if sims[row] < VECTOR_MIN:
                break
            start, n = self._vector_owner_start[row], self._vector_owner_len[row]
            for i in data["owners"][start:start + n]:
                hits.append(_Hit(VECTOR_WEIGHT * float(sims[row]), "vector", int(i)))
        return hits

    # -- public API --------------------------------------------------------------------------------
    def link(self, mention: str, k: int = 10, labels: Iterable[str] | None = None, *,
             lexical_only: bool = False) -> list[EntityCandidate]:
        """Ranked candidates for ``mention`` (best first, at most ``k``), optionally within ``labels``."""
        label_set = frozenset(labels) if labels else None
        key = (mention, k, label_set, lexical_only)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return [EntityCandidate(**c.to_dict()) for c in cached]
        result = self._link(mention, k, label_set, lexical_only)
        with self._lock:
            self._cache[key] = result
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return [EntityCandidate(**c.to_dict()) for c in result]

    def _link(self, mention: str, k: int, labels: frozenset[str] | None,
              lexical_only: bool) -> list[EntityCandidate]:
        mention = " ".join(str(mention).split())
        if not mention:
            return []
        hits = [h for h in self._lexical(mention) if not labels or self.entries[h.entry].label in labels]
        best = max((h.score for h in hits), default=0.0)
        if not lexical_only and best < WEAK and self.fts_indexes:
            fts = self._fts(mention, labels, k)
            hits += fts
            best = max([best] + [h.score for h in fts])
        if not lexical_only and best < STRONG and self.use_vectors:
            hits += [h for h in self._vector(mention, labels, k)
                     if not labels or self.entries[h.entry].label in labels]
        return self._rank(hits, k)

    def _rank(self, hits: list[_Hit], k: int) -> list[EntityCandidate]:
        """One candidate per node: its best hit, plus a small bonus per additional agreeing source."""
        best: dict[tuple[str, Any], _Hit] = {}
        sources: dict[tuple[str, Any], set[str]] = defaultdict(set)
        for h in hits:
            node = self._keys[h.entry]
            sources[node].add(h.source)
            cur = best.get(node)
            if cur is None or h.score > cur.score or (h.score == cur.score and h.entry < cur.entry):
                best[node] = h
        ranked = []
        for node, h in best.items():
            bonus = MULTI_SOURCE_BONUS * min(2, len(sources[node]) - 1)
            e = self.entries[h.entry]
            ranked.append(EntityCandidate(label=e.label, key=str(e.key), name=e.display,
                                          score=round(min(1.0, h.score + bonus), 4), prop=e.prop,
                                          source=h.source))
        ranked.sort(key=lambda c: (-c.score, len(c.name), c.label, c.name, c.key))
        return ranked[:k]

    def find_mentions(self, question: str, k: int = 5, max_ngram: int = 6
                      ) -> list[tuple[str, list[EntityCandidate]]]:
        """Entity mentions in a question, in textual order: [(span text, candidates)]."""
        return [(text, cands) for _, _, text, cands in self.find_mention_spans(question, k, max_ngram)]

    def find_mention_spans(self, question: str, k: int = 5, max_ngram: int = 6
                           ) -> list[tuple[int, int, str, list[EntityCandidate]]]:
        """Entity mentions in a question, in textual order: [(start, end, span text, candidates)], where
        ``question[start:end]`` is the span (its position, not the first place its text occurs).

        Quoted strings are linked first (with every source); then n-gram windows of the remaining words
        are linked lexically and the best non-overlapping spans kept (higher score, then longer span).
        """
        taken: list[tuple[int, int]] = []
        found: list[tuple[int, str, list[EntityCandidate]]] = []
        for m in _QUOTED.finditer(question):
            text = next(g for g in m.groups() if g)
            cands = self.link(text, k=k)
            if cands:
                start = m.start() + m.group(0).index(text)
                found.append((start, start + len(text), text, cands))
                taken.append((m.start(), m.end()))
        spans = self._token_spans(question)
        options = []
        for n in range(min(max_ngram, len(spans)), 0, -1):
            for i in range(len(spans) - n + 1):
                start, end = spans[i][0], spans[i + n - 1][1]
                if any(start < b and a < end for a, b in taken):
                    continue
                words = [question[a:b] for a, b in spans[i:i + n]]
                if all(fold(w) in LINK_STOPWORDS or not fold(w) for w in words):
                    continue
                if n == 1 and len(fold(words[0])) < 2:
                    continue
                text = question[start:end]
                cands = self.link(text, k=k, lexical_only=True)
                if not cands:
                    continue
                top = cands[0]
                informative = any(self._marked(question, a, w) for (a, _), w in zip(spans[i:i + n], words))
                edge_stop = fold(words[0]) in LINK_STOPWORDS or fold(words[-1]) in LINK_STOPWORDS
                score = top.score - (0.05 if edge_stop and top.source not in ("exact", "casefold") else 0.0)
                if score < (0.7 if informative else 0.88):
                    continue
                options.append((score, n, start, end, text, cands))
        options.sort(key=lambda o: (-o[0], -o[1], o[2]))
        for score, n, start, end, text, cands in options:
            if any(start < b and a < end for a, b in taken):
                continue
            taken.append((start, end))
            found.append((start, end, text, cands))
        found.sort(key=lambda f: f[0])
        return found

    @staticmethod
    def _marked(question: str, start: int, word: str) -> bool:
        """A word that looks like part of a name: digits, or capitalized mid-sentence and not a stopword."""
        if any(ch.isdigit() for ch in word):
            return True
        if not word[:1].isupper() or fold(word) in LINK_STOPWORDS:
            return False
        before = question[:start].rstrip()
        return bool(before) and before[-1] not in ".!?:;\"“(" or word.isupper() and len(word) > 1

    @staticmethod
    def _token_spans(question: str) -> list[tuple[int, int]]:
        spans = []
        for m in _TOKEN_SPAN.finditer(question):
            a, b = m.start(), m.end()
            word = question[a:b]
            for suffix in ("'s", "’s"):
                if word.lower().endswith(suffix) and len(word) > 2:
                    b -= 2
                    word = word[:-2]
            while word and word[-1] in ".-&'’" and word.count(".") <= 1:
                b -= 1
                word = word[:-1]
            if b > a:
                spans.append((a, b))
        return spans
