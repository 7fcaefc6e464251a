"""Graph-less fallback memory (GLARE section 3.2, the non-parametric part): importance-pooled subgraphs.

Built once per domain and KG version (``kgqa load``, :mod:`kgqa.kg.memory_build`), from a graph opened
read-only:

1. read the graph once: every node (label, key, display name, properties) and every edge;
2. score every entity (:mod:`kgqa.kg.importance`) by centrality, ``deg_in + deg_out`` (GLARE Eq. 5), or by
   PageRank (Eq. 6, computed by Kuzu's statically linked ALGO extension on a projected graph of a temporary
   read-write copy);
3. pool: the highest-scored entity not yet covered becomes an anchor, its 1-hop neighbours that are not
   yet covered join it as one subgraph, and those nodes are removed; repeat ``m`` times, so no node is in
   two subgraphs (the scores are computed once, on the whole graph);
4. embed each member's text with the sentence encoder (:mod:`kgqa.kg.embed`) and mean-pool every subgraph
   into one normalised vector (Eq. 7).

Each subgraph keeps as its evidence its members' properties and every edge incident to a member (an edge
to a node outside the subgraph too, with that node's label and display name), so the facts of a covered
entity are complete in the one subgraph that holds it. Retrieval is a linear cosine scan of the ``m``
vectors. On disk (``<state>/vector_memory/<domain>/<version[:16]>-<ranking>-m<m>/``): ``vectors.npy``
(float32, m x 384) and ``memory.json`` (meta, anchors, membership, triples); never pickles.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.kg.importance import DEFAULT_RANKING

FORMAT = "kgqa-vector-memory-1"
VECTORS_FILE = "vectors.npy"
MEMORY_FILE = "memory.json"


# -- the memory -------------------------------------------------------------------------------------
@dataclass
class MemoryMeta:
    domain: str
    version: str
    ranking: str
    m: int  # requested subgraphs
    subgraphs: int = 0  # built (fewer than m when every node got covered)
    nodes: int = 0
    covered_nodes: int = 0
    edges: int = 0
    covered_edges: int = 0  # edges touching a covered node (kept as evidence)
    model: str = ""
    built_s: float = 0.0
    format: str = FORMAT
    sampled: bool = False  # built from the top anchors' neighbourhoods (build_memory_sampled), not a full read

    @property
    def node_coverage(self) -> float:
        return self.covered_nodes / self.nodes if self.nodes else 0.0

    @property
    def edge_coverage(self) -> float:
        return self.covered_edges / self.edges if self.edges else 0.0


@dataclass
class Hit:
    """One retrieved subgraph: its position in the memory, cosine score, anchor, members and evidence."""

    index: int
    score: float
    anchor: str
    members: list[str]
    subgraph: dict[str, Any]  # kgqa.types.Subgraph.to_dict(): {"nodes": {...}, "edges": [...]}


@dataclass
class VectorMemory:
    meta: MemoryMeta
    vectors: np.ndarray  # (subgraphs, dim) float32, rows L2-normalised
    anchors: list[str]
    members: list[list[str]]
    subgraphs: list[dict[str, Any]]
    _member_of: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._member_of = {nid: i for i, ms in enumerate(self.members) for nid in ms}

    def __len__(self) -> int:
        return len(self.anchors)

    def member_of(self, node_id: str) -> int | None:
        """Index of the subgraph holding ``node_id`` ("Label:key"), or None when it is not covered."""
        return self._member_of.get(node_id)

    def search(self, query_vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-``k`` (index, cosine) by a linear scan of the vectors."""
        if not len(self) or k <= 0:
            return []
        sims = self.vectors @ np.asarray(query_vector, dtype=np.float32).reshape(-1)
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.lexsort((top, -sims[top]))]
        return [(int(i), float(sims[i])) for i in top]

    def retrieve(self, question: str | np.ndarray, k: int) -> list[Hit]:
        """The ``k`` subgraphs closest to the question (a text is embedded first)."""
        if isinstance(question, str):
            from kgqa.kg.embed import embed_one

            question = embed_one(question)
        return [Hit(i, s, self.anchors[i], self.members[i], self.subgraphs[i]) for i, s in self.search(question, k)]

    # -- files --------------------------------------------------------------------------------------
    def save(self, directory: str | Path) -> Path:
        """Write atomically: a temporary sibling folder is filled, then renamed into place."""
        directory = Path(directory)
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.tmp-", dir=directory.parent))
        tmp.chmod(0o755)
        try:
            np.save(tmp / VECTORS_FILE, self.vectors.astype(np.float32), allow_pickle=False)
            payload = {"meta": asdict(self.meta), "anchors": self.anchors, "members": self.members,
                       "subgraphs": self.subgraphs}
            (tmp / MEMORY_FILE).write_text(json.dumps(payload, ensure_ascii=False, default=str))
            if directory.exists():
                shutil.rmtree(directory)
            os.rename(tmp, directory)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> VectorMemory:
        directory = Path(directory)
        data = json.loads((directory / MEMORY_FILE).read_text())
        if data.get("meta", {}).get("format") != FORMAT:
            raise ValueError(f"{directory}: not a {FORMAT} memory")
        vectors = np.load(directory / VECTORS_FILE, allow_pickle=False)
        return cls(MemoryMeta(**data["meta"]), vectors, data["anchors"], data["members"], data["subgraphs"])

    def nbytes(self, directory: str | Path) -> dict[str, int]:
        directory = Path(directory)
        return {"vectors": (directory / VECTORS_FILE).stat().st_size,
                "triples": (directory / MEMORY_FILE).stat().st_size}


# -- where memories live, versioned with the KG --------------------------------------------------------
def memory_dir(state_dir: str | Path, domain: str, version: str, *, m: int, ranking: str = DEFAULT_RANKING) -> Path:
    return Path(state_dir) / "vector_memory" / domain / f"{version[:16]}-{ranking}-m{int(m)}"


def load_memory(state_dir: str | Path, domain: str, version: str, *, m: int,
                ranking: str = DEFAULT_RANKING) -> VectorMemory | None:
    """The stored memory of this KG version, or None (absent, unreadable, or of another version)."""
    path = memory_dir(state_dir, domain, version, m=m, ranking=ranking)
    try:
        memory = VectorMemory.load(path)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return memory if memory.meta.version == version else None


_cache: dict[Path, VectorMemory | None] = {}
_cache_lock = threading.Lock()


def cached_memory(state_dir: str | Path, domain: str, version: str, *, m: int,
                  ranking: str = DEFAULT_RANKING) -> VectorMemory | None:
    """:func:`load_memory`, once per process and memory folder (the serving path; never builds)."""
    path = memory_dir(state_dir, domain, version, m=m, ranking=ranking)
    with _cache_lock:
        if path not in _cache or _cache[path] is None and (path / MEMORY_FILE).exists():
            _cache[path] = load_memory(state_dir, domain, version, m=m, ranking=ranking)
        return _cache[path]
