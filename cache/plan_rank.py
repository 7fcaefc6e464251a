"""BM25 buckets of plan questions (rank-bm25's Okapi weights as sparse matrices) and MMR selection.

Per-bucket BM25 weights are kept as a sparse matrix and rebuilt lazily, only for buckets that changed.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse


class Bucket:
    """Entry ids of one bucket with lazily built BM25 weights (and embeddings)."""

    __slots__ = ("ids", "dirty", "weights", "counts", "vocab", "emb")

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.dirty = True
        self.weights = None  # csr (n_docs, vocab): BM25 term weight of each term in each doc
        self.counts = None  # csr (n_docs, vocab): term counts (docs used as queries)
        self.vocab: dict[str, int] = {}
        self.emb: np.ndarray | None = None

    def add(self, eid: int) -> None:
        self.ids.append(eid)
        self.dirty, self.emb = True, None

    def remove(self, eids: set[int]) -> None:
        self.ids = [i for i in self.ids if i not in eids]
        self.dirty, self.emb = True, None

    def build(self, tokens: list[list[str]]) -> None:
        """BM25Okapi (rank-bm25) over the bucket, kept as a sparse weight matrix for fast scoring."""
        from rank_bm25 import BM25Okapi

        docs = [t if t else ["\x00"] for t in tokens]  # rank-bm25 needs non-empty documents
        bm = BM25Okapi(docs)
        vocab: dict[str, int] = {}
        rows, cols, w, c = [], [], [], []
        k1, b, avgdl = bm.k1, bm.b, bm.avgdl or 1.0
        for i, (freqs, dl) in enumerate(zip(bm.doc_freqs, bm.doc_len)):
            norm = k1 * (1 - b + b * dl / avgdl)
            for term, tf in freqs.items():
                j = vocab.setdefault(term, len(vocab))
                rows.append(i)
                cols.append(j)
                c.append(tf)
                w.append(bm.idf.get(term, 0.0) * tf * (k1 + 1) / (tf + norm))
        shape = (len(docs), max(1, len(vocab)))
        self.weights = sparse.csr_matrix((w, (rows, cols)), shape=shape, dtype=np.float64)
        self.counts = sparse.csr_matrix((c, (rows, cols)), shape=shape, dtype=np.float64)
        self.vocab, self.dirty = vocab, False

    def query_vector(self, tokens: list[str]) -> np.ndarray:
        q = np.zeros(self.weights.shape[1])
        for t in tokens:
            j = self.vocab.get(t)
            if j is not None:
                q[j] += 1.0
        return q


def embed(texts: list[str]) -> np.ndarray:
    from kgqa.kg.embed import embed

    return embed(texts)


def top(rel: np.ndarray, n: int, floor: float) -> np.ndarray:
    """Indices of the ``n`` highest relevances (>= floor), best first, ties by position."""
    cand = np.flatnonzero(rel >= floor) if floor > 0 else np.arange(rel.size)
    if cand.size > n:
        part = np.argpartition(-rel[cand], n - 1)[:n]
        cand = cand[part]
    order = np.lexsort((cand, -rel[cand]))
    return cand[order]


def mmr(rel: np.ndarray, pair: np.ndarray, k: int, lam: float) -> list[int]:
    """Greedy MMR over a pool: positions chosen, in selection order."""
    n = rel.size
    chosen: list[int] = []
    max_sim = np.zeros(n)
    free = np.ones(n, dtype=bool)
    for _ in range(min(k, n)):
        score = lam * rel - (1.0 - lam) * max_sim
        score[~free] = -math.inf
        j = int(np.argmax(score))
        chosen.append(j)
        free[j] = False
        max_sim = np.maximum(max_sim, pair[:, j])
    return chosen
